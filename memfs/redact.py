"""Secret redaction: secret-shaped strings become `[redacted:<kind>]` before anything is written.

Runs on every input's bytes at the ingest step (so the archived resource, the Markdown,
the index, the logs and the commits only ever see the redacted text) and on `memfs add`.

A tested pattern set, not a detector library: provider key formats are precise enough
to match on their own; generic shapes (assignments, bearer tokens, high-entropy strings)
are only taken next to a word that says "secret", and must look random, so ordinary
prose (LoCoMo's 5 conversations: zero redactions, bench/redact_fp.py) is left alone.
The replacement never contains a quote, a backslash or a newline, so a JSON or JSONL
input stays valid JSON after redaction.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

MARK = "[redacted:{kind}]"
_ALREADY = re.compile(r"\[redacted:[a-z0-9-]+\]")

#: Characters a secret value may hold in running text: stops at white space, quotes,
#: backslashes (a JSON escape), brackets and the separators around values.
_VALUE = r"[^\s\"'\\`,;<>()\[\]{}|]"
#: An optional quote after a key or before a value, JSON-escaped (\") inside a JSON string.
_Q = r"(?:\\?[\"'])?"


@dataclass
class Redaction:
    """The redacted text and how many secrets of each kind were replaced."""

    text: str
    kinds: Counter[str] = field(default_factory=Counter)

    @property
    def count(self) -> int:
        return sum(self.kinds.values())


def shannon_bits(token: str) -> float:
    """Bits of entropy per character of `token` (its own character frequencies)."""
    if not token:
        return 0.0
    counts = Counter(token)
    n = len(token)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def looks_random(token: str, min_len: int = 16) -> bool:
    """A credential-like token: long, mixing letters with digits (or both cases), high entropy.

    Words ("responsibilities"), dates, plain numbers and slugs fail at least one test."""
    if len(token) < min_len or _ALREADY.search(token):
        return False
    has_lower = any(c.islower() for c in token)
    has_upper = any(c.isupper() for c in token)
    has_digit = any(c.isdigit() for c in token)
    letters = has_lower or has_upper
    if not letters or not (has_digit or (has_lower and has_upper and sum(c.isupper() for c in token) >= 3)):
        return False
    if re.fullmatch(r"[\d\W_]*", token) or re.fullmatch(r"[A-Za-z]+(?:[-_][A-Za-z]+)*", token):
        return False
    # Random strings switch between lower, upper and digits every char or two; names built
    # from words ("HelloWorld2023Example") keep each run for three or more.
    runs = len(re.findall(r"[a-z]+|[A-Z]+|\d+|[^A-Za-z\d]+", token))
    if len(token) / runs >= 3.0:
        return False
    return shannon_bits(token) >= 3.0


def _digest_like(token: str) -> bool:
    """A SHA-1 or SHA-256 in hex (a commit id, a checksum): published, not secret."""
    return bool(re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", token))


def _plain(kind: str, pattern: str, flags: int = 0) -> tuple[str, re.Pattern[str], Callable[[re.Match[str]], str | None]]:
    """A pattern whose whole match is the secret."""
    return kind, re.compile(pattern, flags), lambda m: MARK.format(kind=kind)


def _group(kind: str, pattern: str, flags: int = 0,
           check: Callable[[str], bool] | None = None) -> tuple[str, re.Pattern[str], Callable[[re.Match[str]], str | None]]:
    """A pattern with groups `pre`, `secret` and optionally `post`: only `secret` is replaced,
    and only if `check(secret)` holds."""
    rx = re.compile(pattern, flags)

    def sub(m: re.Match[str]) -> str | None:
        secret = m.group("secret")
        if _ALREADY.fullmatch(secret) or (check is not None and not check(secret)):
            return None
        post = m.groupdict().get("post") or ""
        return m.group("pre") + MARK.format(kind=kind) + post

    return kind, rx, sub


def _credential_value(value: str) -> bool:
    """After `password:` (prose-like syntax) a value counts only if it does not read as a word:
    a digit or a symbol in it, or 12+ characters ("secret: Caroline" is not a secret)."""
    if len(value) < 4:
        return False
    return bool(re.search(r"[\d!@#$%^&*+=/?~.-]", value)) or len(value) >= 12


def _url_like(token: str) -> bool:
    """A link or a path ("//i.redd.it/l7hozpetnhlb1.jpg", "docs/v2.1/setup"): not a secret on
    its own, however random its file name looks. Base64 keys hold '/' but no '.'."""
    return token.startswith("//") or ("/" in token and "." in token)


_SECRET_WORD = (r"(?:api[_\s-]?keys?|apikey|keys?|access[_-]?key|secret[_-]?key|secret|token|passw(?:or)?d|passphrase|pwd"
                r"|credentials?|auth(?:orization)?|private[_-]?key|client[_-]?secret|bearer)")

#: Order matters: precise provider formats first, the generic shapes after (they skip
#: what is already redacted).
RULES: list[tuple[str, re.Pattern[str], Callable[[re.Match[str]], str | None]]] = [
    _plain("private-key", r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
                          r"(?:.*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[^\"]*?(?=\"|\n\s*\n|\Z))",
           re.DOTALL),
    _plain("anthropic-key", r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
    _plain("openai-key", r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}"),
    _plain("aws-access-key", r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{16}\b"),
    _group("aws-secret-key", r"(?P<pre>(?i:aws)?_?(?i:secret)_?(?i:access)?_?(?i:key)[\"']?\s*[:=]\s*[\"']?)"
                             r"(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])"),
    _plain("github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b"),
    _plain("slack-webhook", r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]{20,}"),
    _plain("slack-token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    _plain("stripe-key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b|\bwhsec_[A-Za-z0-9]{24,}\b"),
    _plain("google-api-key", r"\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])"),
    _plain("google-oauth", r"\bya29\.[0-9A-Za-z_-]{20,}|\bGOCSPX-[A-Za-z0-9_-]{20,}"),
    _plain("jwt", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    _group("bearer-token", r"(?P<pre>\b[Bb]earer\s+)(?P<secret>[A-Za-z0-9._~+/-]{16,}=*)",
           check=lambda s: looks_random(s.rstrip("="))),
    _group("url-password", r"(?P<pre>\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^\s:/@\"'\\]{1,64}:)(?P<secret>[^\s@/\"'\\]{1,128})"
                           r"(?P<post>@)"),
    # `password=...`, `token: ...`, `"api_key": "..."` — code-like assignments.
    _group("password", r"(?P<pre>\b(?i:passw(?:or)?d|passphrase|pwd)" + _Q + r"\s*=\s*" + _Q + r")(?P<secret>" + _VALUE + r"+)"),
    _group("password", r"(?P<pre>\b(?i:passw(?:or)?d|passphrase)" + _Q + r"\s*:\s*" + _Q + r")(?P<secret>" + _VALUE + r"+)",
           check=_credential_value),
    _group("token", r"(?P<pre>\b(?i:(?:[a-z]+[_-])?(?:token|secret|api[_-]?key|apikey|access[_-]?key|client[_-]?secret"
                    r"|private[_-]?key))" + _Q + r"\s*=\s*" + _Q + r")(?P<secret>" + _VALUE + r"{4,})"),
    _group("token", r"(?P<pre>\b(?i:(?:[a-z]+[_-])?(?:token|secret|api[_-]?key|apikey|access[_-]?key|client[_-]?secret"
                    r"|private[_-]?key))" + _Q + r"\s*:\s*" + _Q + r")(?P<secret>" + _VALUE + r"{8,})",
           check=lambda s: looks_random(s, 12)),
    # A random-looking string shortly after a secret-ish word ("my api key is 9f8a7c...").
    _group("secret", r"(?P<pre>(?i:\b" + _SECRET_WORD + r"\b)[^\n\"]{0,40}?)(?P<secret>(?<![A-Za-z0-9_+/=.-])"
                     r"[A-Za-z0-9_+/=.-]{20,}(?![A-Za-z0-9_+/=.-]))",
           check=lambda s: looks_random(s.strip("=."), 20) and not _url_like(s) and not _digest_like(s)),
]

KINDS: tuple[str, ...] = tuple(dict.fromkeys(kind for kind, _, _ in RULES))


def redact(text: str) -> Redaction:
    """Replace every secret-shaped string in `text` by `[redacted:<kind>]`."""
    kinds: Counter[str] = Counter()
    for kind, rx, sub in RULES:
        if kind == "private-key" and "PRIVATE KEY" not in text:
            continue

        def repl(m: re.Match[str], kind: str = kind, sub=sub) -> str:  # type: ignore[no-untyped-def]
            out = sub(m)
            if out is None:
                return m.group(0)
            kinds[kind] += 1
            return out

        text = rx.sub(repl, text)
    return Redaction(text, kinds)


def redact_bytes(data: bytes) -> tuple[bytes, Redaction]:
    """Redact UTF-8 input (a BOM is kept). Bytes that are not UTF-8 are returned unchanged:
    the readers refuse them, so they are never archived or indexed."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return data, Redaction("")
    result = redact(text)
    if not result.kinds:
        return data, result
    return result.text.encode("utf-8"), result


COUNTS_NAME = "redactions.json"


def record_counts(state_dir: Path, kinds: Counter[str] | dict[str, int]) -> None:
    """Add to `.memfs/redactions.json` (what `memfs status` shows). Call under the writer lock."""
    import json

    from memfs.fsutil import atomic_write

    if not kinds:
        return
    counts = load_counts(state_dir)
    for kind, n in kinds.items():
        counts[kind] = counts.get(kind, 0) + int(n)
    state_dir.mkdir(parents=True, exist_ok=True)
    atomic_write(state_dir / COUNTS_NAME, json.dumps(dict(sorted(counts.items())), indent=2) + "\n")


def load_counts(state_dir: Path) -> dict[str, int]:
    import json

    try:
        data = json.loads((state_dir / COUNTS_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): int(v) for k, v in data.items() if isinstance(v, int)} if isinstance(data, dict) else {}
