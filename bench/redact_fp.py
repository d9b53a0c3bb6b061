"""Redaction false positives on real conversations, and recall on a planted-secret set.

    python bench/redact_fp.py [--data DIR]

Every turn of every LoCoMo conversation (none holds a secret) is run through
memfs.redact; every redaction is a false positive. If the `detect-secrets` library is
importable (it is not a memfs dependency: `pip install detect-secrets` in a scratch venv
and run this script with that venv's python plus PYTHONPATH=.), its default plugins scan
the same turns for comparison. Then a set of planted secrets of each kind checks recall.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from memfs.redact import redact  # noqa: E402

#: The LoCoMo sample files: --data, or $MEMFS_BENCH_LOCOMO (as bench/locomo.py).
DEFAULT_DATA = Path(os.environ.get("MEMFS_BENCH_LOCOMO", "bench-data/locomo")).resolve()

PLANTED = {
    "openai-key": "sk-proj-Q2b8xV0pLr4mN7tK1sD9fG3hJ6wE5yU8iO2aZx",
    "anthropic-key": "sk-ant-api03-Vt7Kp2Lm9Qr4Xs1Nz8Bw6Cy3Dh5Fj0Gk-AbCdEf",
    "aws-access-key": "AKIAZ7Q4M2N8P5R3T6W9",
    "github-token": "ghp_R4t9Yp2Lk7Mq3Xz8Nv1Bc6Df0Gh5Jw2Ea4Su",
    "slack-token": "xoxb-204857613920-3958271046382-Kq8Wz3Lp7Rt2Yx9Mn4Vb6Cd1",
    "stripe-key": "sk_live_51Hx8Kq2Lm7Np4Rt9Vz3Wy6Bc",
    "google-api-key": "AIzaSyD4x9Lm2Qp7Rt3Vz8Wy1Bc6Df0Gh5JkLmN",
}
SENTENCES = ["here is my key {s} keep it safe", "Authorization: Bearer {s}", "export API_KEY={s}",
             "the token is {s}, don't share it", "{s}"]


def turns(data: Path) -> list[str]:
    out: list[str] = []
    for path in sorted(data.glob("*.json")):
        conv = json.loads(path.read_text(encoding="utf-8"))
        samples = conv if isinstance(conv, list) else [conv]
        for sample in samples:
            sessions = sample.get("conversation", sample)
            for key, value in sessions.items():
                if key.startswith("session_") and isinstance(value, list):
                    for turn in value:
                        out.append(turn.get("text", ""))
                        out.extend(str(turn.get(k, "")) for k in ("blip_caption", "query") if turn.get(k))
                        out.extend(turn.get("img_url") or [])
    return out


def detect_secrets_values(texts: list[str]) -> list[str] | None:
    """The secret values detect-secrets reports in `texts` (None if not installed)."""
    try:
        from detect_secrets import SecretsCollection
        from detect_secrets.settings import default_settings
    except ImportError:
        return None
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "planted.txt"
        path.write_text("\n".join(texts) + "\n", encoding="utf-8")
        secrets = SecretsCollection()
        with default_settings():
            secrets.scan_file(str(path))
        return [s.secret_value or "" for _, s in secrets]


def detect_secrets_hits(texts: list[str]) -> tuple[int, list[str]] | None:
    """detect-secrets' default plugins and filters over the texts, one per line of a scratch file."""
    try:
        from detect_secrets import SecretsCollection
        from detect_secrets.settings import default_settings
    except ImportError:
        return None
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "turns.txt"
        path.write_text("\n".join(" ".join(t.split()) for t in texts) + "\n", encoding="utf-8")
        secrets = SecretsCollection()
        with default_settings():
            secrets.scan_file(str(path))
        found = [s for _, s in secrets]
    return len(found), sorted({s.type for s in found})


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = ap.parse_args(argv)
    texts = turns(args.data)
    t0 = time.perf_counter()
    fp = [(t, dict(redact(t).kinds)) for t in texts if redact(t).kinds]
    seconds = time.perf_counter() - t0
    chars = sum(len(t) for t in texts)
    print(f"LoCoMo: {len(texts)} texts, {chars / 1e6:.2f} M chars")
    print(f"memfs.redact   false positives: {len(fp)}  ({chars / 1e6 / max(seconds, 1e-9):.1f} M chars/s, two passes)")
    for text, kinds in fp[:20]:
        print(f"  {kinds}: {text[:120]}")
    ds = detect_secrets_hits(texts)
    print("detect-secrets false positives: " + ("not installed" if ds is None else f"{ds[0]} ({', '.join(ds[1])})"))
    found = total = 0
    for kind, secret in PLANTED.items():
        for sentence in SENTENCES:
            total += 1
            out = redact(sentence.format(s=secret)).text
            found += secret not in out
    print(f"planted secrets redacted: {found}/{total}")
    planted = [(secret, sentence.format(s=secret)) for secret in PLANTED.values() for sentence in SENTENCES]
    ds_found = detect_secrets_values([text for _, text in planted])
    if ds_found is not None:
        caught = sum(1 for secret, _ in planted if any(secret in v or v in secret for v in ds_found))
        print(f"detect-secrets planted secrets found: {caught}/{len(planted)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
