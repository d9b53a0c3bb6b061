"""Parse the time strings found in chat logs: ISO 8601, unix seconds, and LoCoMo's
"1:56 pm on 8 May, 2023". Strict on purpose: an unreadable time is reported, not guessed.

All results are naive datetimes (wall-clock time as written; unix seconds as UTC), so
that times from different inputs can always be compared with each other.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timezone

from memfs.readers.errors import ReadError
from memfs.readers.text import one_line

_MONTHS: dict[str, int] = {
    name: i + 1
    for i, names in enumerate(
        [
            ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"),
            ("may",), ("june", "jun"), ("july", "jul"), ("august", "aug"),
            ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
            ("december", "dec"),
        ]
    )
    for name in names
}

# "1:56 pm on 8 May, 2023" (LoCoMo session_N_date_time); ASCII digits only.
_LOCOMO = re.compile(
    r"(?P<h>[0-9]{1,2}):(?P<m>[0-9]{2})\s*(?P<ampm>[ap])\.?m\.?\s+on\s+"
    r"(?P<d>[0-9]{1,2})\s+(?P<mon>[A-Za-z]+)\.?,?\s+(?P<y>[0-9]{4})",
    re.IGNORECASE,
)


def _naive(value: datetime) -> datetime:
    """Drop the offset but keep the wall-clock time the speaker saw."""
    return value.replace(tzinfo=None)


def _parse_locomo(text: str) -> datetime | None:
    match = _LOCOMO.fullmatch(text)
    if match is None:
        return None
    hour, minute = int(match["h"]), int(match["m"])
    month = _MONTHS.get(match["mon"].lower())
    if month is None or not 1 <= hour <= 12:
        return None
    hour = hour % 12 + (12 if match["ampm"].lower() == "p" else 0)
    try:
        return datetime(int(match["y"]), month, int(match["d"]), hour, minute)
    except ValueError:
        return None


def parse_time_string(text: str) -> datetime | None:
    """ISO 8601 (date or date-time, 'Z' allowed) or the LoCoMo pattern; None if neither."""
    text = text.strip()
    if not text or not text.isascii():
        return None
    try:
        iso = text[:-1] + "+00:00" if text[-1] in "zZ" else text
        return _naive(datetime.fromisoformat(iso))
    except ValueError:
        pass
    return _parse_locomo(text)


def parse_time(value: object, where: str) -> datetime | None:
    """Turn a JSON/YAML time value into a naive datetime; ``where`` names it in errors.

    None means "no time given"; anything given but unreadable is a ReadError.
    """
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return _naive(value)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            stamp = datetime.fromtimestamp(float(value), tz=timezone.utc)
        except (ValueError, OverflowError, OSError):
            raise ReadError(f"{where}: unix time {value!r} is out of range") from None
        return _naive(stamp)
    if isinstance(value, str):
        parsed = parse_time_string(value)
        if parsed is None:
            raise ReadError(
                f"{where}: cannot read time {one_line(value)!r} "
                "(use ISO 8601 like 2023-05-08T13:56:00, or '1:56 pm on 8 May, 2023')"
            )
        return parsed
    raise ReadError(f"{where}: time must be a string or unix seconds, not {type(value).__name__}")
