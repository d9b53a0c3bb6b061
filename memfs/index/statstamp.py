"""The (size, mtime) the index records for a file, made safe against a same-tick edit.

Sync skips a file whose size and mtime match what it recorded. A file's mtime only moves
in ticks (a few ms on ext4, 1-2 s on FAT, HFS+ and some network mounts), so a same-size
edit made within the tick of the stat that was recorded leaves both unchanged and would
be skipped until a rebuild (git calls this "racily clean"). A stat taken that recently is
recorded with mtime 0, which no file has: the next sync reads and hashes the file once
(cheap; it is parsed only if its bytes changed) and records its mtime then.
"""

from __future__ import annotations

import os
import time

#: A stat whose mtime is this close to the clock (or after it) is not trusted to mark the
#: content: covers 2 s filesystem ticks and small clock skew on network mounts.
RACY_NS = 3_000_000_000


def recorded_mtime(st: os.stat_result, now_ns: int | None = None) -> int:
    """st's mtime, or 0 (forces a hash check on the next sync) if it may still be in its tick."""
    now = time.time_ns() if now_ns is None else now_ns
    return 0 if st.st_mtime_ns >= now - RACY_NS else st.st_mtime_ns
