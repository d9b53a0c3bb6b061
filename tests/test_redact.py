"""Secret redaction (memfs/redact.py): each kind is replaced, prose is left alone, JSON stays
JSON, and a chat holding keys of several kinds leaves none of them anywhere — Markdown,
resources/, the SQLite files, the CLI's output, or any git object."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memfs.redact import looks_random, redact, redact_bytes
from tests.support.cli import env, init, run
from tests.support.workspace import hashing_memory

SECRETS = {
    "openai-key": "sk-proj-Q2b8xV0pLr4mN7tK1sD9fG3hJ6wE5yU8iO2aZx",
    "anthropic-key": "sk-ant-api03-Vt7Kp2Lm9Qr4Xs1Nz8Bw6Cy3Dh5Fj0Gk-AbCdEf",
    "aws-access-key": "AKIAZ7Q4M2N8P5R3T6W9",
    "github-token": "ghp_R4t9Yp2Lk7Mq3Xz8Nv1Bc6Df0Gh5Jw2Ea4Su",
    "slack-token": "xoxb-204857613920-3958271046382-Kq8Wz3Lp7Rt2Yx9Mn4Vb6Cd1",
    "stripe-key": "sk_live_51Hx8Kq2Lm7Np4Rt9Vz3Wy6Bc",
    "google-api-key": "AIzaSyD4x9Lm2Qp7Rt3Vz8Wy1Bc6Df0Gh5JkLmN",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
}


@pytest.mark.parametrize("kind, secret", sorted(SECRETS.items()))
def test_provider_keys_are_redacted_by_kind(kind: str, secret: str) -> None:
    out = redact(f"here you go: {secret} (keep it safe)")
    assert out.text == f"here you go: [redacted:{kind}] (keep it safe)"
    assert out.kinds == {kind: 1}


@pytest.mark.parametrize("text, expected, kind", [
    ("Authorization: Bearer q8Vx2LmP0tR7sK4wZ9bN3cY6", "Authorization: Bearer [redacted:bearer-token]", "bearer-token"),
    ("db at postgres://admin:hunter2pass@db.example.com:5432/app",
     "db at postgres://admin:[redacted:url-password]@db.example.com:5432/app", "url-password"),
    ("password=hunter2 then", "password=[redacted:password] then", "password"),
    ("password: hunter2", "password: [redacted:password]", "password"),
    ("export GITLAB_TOKEN=glpat-8xQ2mN4vB6cD1eF3gH5j", "export GITLAB_TOKEN=[redacted:token]", "token"),
    ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
     "aws_secret_access_key = [redacted:aws-secret-key]", "aws-secret-key"),
    ("https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX", "[redacted:slack-webhook]",
     "slack-webhook"),
    ("the api key is Zx81kP0qLm29aBc7Yt4QwErT, ok", "the api key is [redacted:secret], ok", "secret"),
])
def test_generic_secret_shapes(text: str, expected: str, kind: str) -> None:
    out = redact(text)
    assert out.text == expected and out.kinds[kind] == 1


def test_private_key_blocks_whole_or_cut_short() -> None:
    block = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1234\nabcd==\n-----END RSA PRIVATE KEY-----"
    assert redact(f"key:\n{block}\nafter").text == "key:\n[redacted:private-key]\nafter"
    cut = redact("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n\nNext paragraph.")
    assert cut.text == "[redacted:private-key]\n\nNext paragraph."


@pytest.mark.parametrize("text", [
    "He was the bearer of bad news; responsibilities abound.",
    "Password: Let me think about it.",
    "my secret: Caroline loves painting",
    "the token of appreciation was lovely, the key to success is practice",
    "commit 3f786850e387550fdab836ed7e6dc881de23001b fixed it",
    "see https://i.redd.it/l7hozpetnhlb1.jpg and resources/2023/05/08-locomo-26-ab12cd34ef567890.json#D1:12",
    "id 123e4567-e89b-12d3-a456-426614174000 on 2023-05-08T13:56:00, call +1 415 555 0100",
    "I keep my passwords in a manager; the secret is consistency. Token ring networks!",
    "https://example.com/path?x=1 and user@example.com and http://localhost:8080/api",
    "Caroline: I went to a LGBTQ support group yesterday and it was so powerful.",
    "Here's the key photo: https://i.redd.it/l7hozpetnhlb1.jpg and the token list at docs/v2.1/Tokens8xQ2mN4vB6.md",
    "key fingerprint 3f786850e387550fdab836ed7e6dc881de23001b",
    "The keys are under the mat, next to the HelloWorld2023Example file",
])
def test_prose_and_everyday_strings_are_left_alone(text: str) -> None:
    assert redact(text).text == text


def test_looks_random() -> None:
    assert looks_random("Zx81kP0qLm29aBc7Yt4QwErT")
    assert not looks_random("responsibilities-and-duties")
    assert not looks_random("2023050813560012")
    assert not looks_random("HelloWorld2023Example")


def test_json_stays_valid_json_after_redaction() -> None:
    data = json.dumps({"messages": [{"role": "user", "content":
                       'password="x1y2z3" and {"api_key": "Zx81kP0qLm29aBc7Yt4Q"} ' + SECRETS["openai-key"]
                       + "\n-----BEGIN PRIVATE KEY-----\nMIIabc\n-----END PRIVATE KEY-----"}]}).encode()
    out, result = redact_bytes(data)
    parsed = json.loads(out)
    content = parsed["messages"][0]["content"]
    assert "x1y2z3" not in content and "Zx81kP0qLm29aBc7Yt4Q" not in content and "MIIabc" not in content
    assert result.count == 4, result.kinds
    raw = b"\xff\xfe not utf-8 " + SECRETS["openai-key"].encode()
    assert redact_bytes(raw)[0] == raw  # the readers refuse it; nothing is archived


def _chat_with_keys() -> dict:
    lines = [f"My {kind} is {secret}, do not share it." for kind, secret in SECRETS.items()]
    lines += ["Authorization: Bearer q8Vx2LmP0tR7sK4wZ9bN3cY6",
              "Our database is postgres://admin:Tr0ub4dor3xyz@db.internal:5432/app",
              "password=Hunter2Hunter2 for the staging box",
              "-----BEGIN RSA PRIVATE KEY-----\nMIIEpQIBAAKCAQEAqWv3kP9\n-----END RSA PRIVATE KEY-----",
              "I adopted a cat named Pixel last week."]
    return {"messages": [{"role": "user", "name": "Rosa", "content": text} for text in lines],
            "time": "2025-03-02T09:00:00"}


PLANTED = list(SECRETS.values()) + ["q8Vx2LmP0tR7sK4wZ9bN3cY6", "Tr0ub4dor3xyz", "Hunter2Hunter2", "MIIEpQIBAAKCAQEAqWv3kP9"]


def _every_byte(root: Path) -> bytes:
    """Every file of the workspace (.memfs/ and .git/ included) plus every git object, decompressed."""
    blobs = [p.read_bytes() for p in root.rglob("*") if p.is_file()]
    if (root / ".git").exists():
        blobs.append(subprocess.run(["git", "-C", str(root), "cat-file", "--batch-all-objects", "--batch"],
                                    capture_output=True, check=True).stdout)
    return b"\n".join(blobs)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_a_chat_with_keys_of_several_kinds_leaves_none_anywhere(tmp_path: Path) -> None:
    e = env(MEMFS_GIT_AUTOCOMMIT="true", GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
            GIT_COMMITTER_EMAIL="t@t")
    ws = init(tmp_path / "w", e, git=True)
    (ws / "inbox" / "keys.json").write_text(json.dumps(_chat_with_keys()))
    outputs = [run(["ingest", str(ws / "inbox" / "keys.json"), "--json"], ws, e)]
    result = json.loads(outputs[0].stdout)[0]
    assert result["status"] == "processed" and sum(result["redacted"].values()) >= 12, result
    outputs.append(run(["add", "The deploy token: " + SECRETS["github-token"]], ws, e))
    outputs.append(run(["recall", "cat Pixel", "--json"], ws, e))
    outputs.append(run(["status"], ws, e))
    st = json.loads(run(["status", "--json"], ws, e).stdout)
    assert st["redactions"] == result_total(result) + 1 and st["redaction_kinds"]["github-token"] == 2
    assert "redacted   " in outputs[-1].stdout
    everything = _every_byte(ws) + b"".join(o.stdout.encode() + o.stderr.encode() for o in outputs)
    for secret in PLANTED:
        assert secret.encode() not in everything, secret
    assert b"[redacted:openai-key]" in (ws / result["resource"]).read_bytes()  # the archive is the redacted text
    assert b"Pixel" in everything  # the rest of the chat was learned


def result_total(result: dict) -> int:
    return sum(result["redacted"].values())


def test_memory_add_redacts_before_writing(ws_path: Path) -> None:
    with hashing_memory(ws_path) as mem:
        item = mem.add("The staging password=Hunter2Hunter2 rotates monthly.")
        assert item.text == "The staging password=[redacted:password] rotates monthly."
        assert mem.status().redactions == 1
    assert b"Hunter2Hunter2" not in _every_byte(ws_path)


def test_bench_script_counts_false_positives(tmp_path: Path) -> None:
    sample = {"speaker_a": "A", "speaker_b": "B", "session_1_date_time": "1:56 pm on 8 May, 2023",
              "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "The key to a good token economy is trust."},
                            {"speaker": "B", "dia_id": "D1:2", "text": "my password: hunter22", "img_url":
                             ["https://i.redd.it/l7hozpetnhlb1.jpg"]}]}
    (tmp_path / "1.json").write_text(json.dumps(sample))
    bench = Path(__file__).resolve().parent.parent / "bench" / "redact_fp.py"
    out = subprocess.run([sys.executable, str(bench), "--data", str(tmp_path)], capture_output=True, text=True,
                         check=True).stdout
    assert "false positives: 1" in out and "planted secrets redacted: 35/35" in out


def test_markdown_and_jsonl_inputs_are_archived_redacted(ws_path: Path, tmp_path: Path) -> None:
    note = tmp_path / "servers.md"
    note.write_text("# Staging\n\nThe staging box uses password=Hunter2Hunter2 and the deploy key:\n\n"
                    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\n"
                    "-----END OPENSSH PRIVATE KEY-----\n\nThe staging database runs PostgreSQL 16.\n")
    log = tmp_path / "chat.jsonl"
    log.write_text("\n".join(json.dumps(m) for m in [
        {"role": "user", "name": "Rosa", "content": "Use Authorization: Bearer q8Vx2LmP0tR7sK4wZ9bN3cY6 for the API."},
        {"role": "user", "name": "Rosa", "content": "I adopted a cat named Pixel last week."}]) + "\n")
    with hashing_memory(ws_path) as mem:
        results = mem.ingest([note, log])
        assert [r.status for r in results] == ["processed", "processed"]
        assert results[0].redacted == {"private-key": 1, "password": 1}
        assert results[1].redacted == {"bearer-token": 1}
        assert mem.status().redaction_kinds == {"bearer-token": 1, "password": 1, "private-key": 1}
        for r in results:
            archived = (ws_path / (r.resource or "")).read_text()
            assert "[redacted:" in archived
    everything = _every_byte(ws_path)
    for secret in (b"Hunter2Hunter2", b"b3BlbnNzaC1rZXktdjEAAAAABG5vbmU", b"q8Vx2LmP0tR7sK4wZ9bN3cY6"):
        assert secret not in everything
    assert b"PostgreSQL 16" in everything and b"Pixel" in everything
