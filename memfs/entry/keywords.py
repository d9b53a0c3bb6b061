"""index.md's per-file keywords (the words that set a file apart), kept up to date file by file.

A file's keywords are its `top` usable words by tf x idf: in how many of its items a word
occurs, times log(1 + files / files holding the word). A new input changes the counts of
the few files it was filed into, and with them the df of the words that entered or left
those files; every other file's words keep their counts, so only those words' scores move.

The previous version re-sorted all words of every file whose *top* words included a word
whose df moved: at 100,000 items (1,000 files), a new input's common words ("chat",
"turn") sat in the top five of ~400 files, and re-sorting them was 0.4 s of the input.
Here each file also keeps its best `kept` words with their sort keys and the key of the
last of them (the bar). Every word not kept sorts after the bar, and its score changes
only if its df did, so after a df change the new top words are found among the kept
words (unchanged keys) and the file's moved words (rescored): exact as long as `top`
of them still beat the bar, which they nearly always do; else the file is re-sorted.

The idf reads df and the file count at a coarse grain (`grain`: exact up to 15, then their
top four bits): a word in 1,000 files scores as if in 960 until it reaches 1,024. A new
input moves the df of hundreds of common words by one, and at 100,000 items that re-scored
~80-490 files an input (10-60 ms); at this grain a move of one changes a common word's score
only when it crosses a step, and which five words set a file apart is the same to a reader.

A word whose df rose scores lower everywhere. If none of a file's top words is such a word
(and no word of the file lost df), its top words stand: every other word only scored lower
(flat5). So the file is not re-scored then, only told which words' kept scores are now
stale; they are re-scored with the next change that can move its top words (or after
_MAX_PENDING inputs). At 100,000 items that was ~600 files re-scored an input for the
common words of each chat ("chat", "turn"), which sit in most files' best 20 but few top 5.
"""

from __future__ import annotations

import heapq
import math
import operator
from collections import Counter
from collections.abc import Callable

from memfs.entry.poolcache import Pool

WordCounts = tuple[Counter[str], dict[str, Counter[str]]]  # (items holding each word, its surface forms)
Key = tuple[float, str]  # (-score, word): the sort order of a file's words, best first
_word = operator.itemgetter(1)  # the word of a kept (key, word)
_MAX_PENDING = 16  # inputs a file's re-scoring may wait (what it keeps per file stays bounded)


def grain(k: int) -> int:
    """A df or file count as the idf reads it: exact below 16, else its top four bits (steps
    of 1/16 to 1/8 of the value). Integers, so every process and platform agree."""
    drop = k.bit_length() - 4
    return k if drop <= 0 else (k >> drop) << drop


class _Top:
    """One file's best words and what they were computed from."""

    __slots__ = ("n", "names", "kept", "bar", "best")

    def __init__(self, n: int, names: frozenset[str], kept: list[tuple[Key, str]], bar: Key | None,
                 top: int) -> None:
        self.n, self.names, self.kept, self.bar = n, names, kept, bar  # bar None: every usable word is kept
        self.best = [w for _, w in kept[:top]]


class Keywords:
    """indexfile.keywords' counts across files (df, surface forms) and each file's top
    words, recomputed only from what changed (module docstring)."""

    def __init__(self, kept: int = 20) -> None:
        self.kept = kept
        self.counts: dict[str, WordCounts] = {}
        self.df: Counter[str] = Counter()
        self.surface: dict[str, Counter[str]] = {}
        self.top: dict[str, _Top] = {}
        self.shown: dict[str, list[str]] = {}  # path -> its keywords as shown (surface forms)
        self._holders: dict[str, set[str]] = {}  # word -> the files whose kept words include it
        #: path -> sets of words whose df rose since its kept words were scored, none of them
        #: among its top words: their kept scores are stale (too high) until the file is next
        #: re-scored, which re-scores them too (flat5).
        self._pending: dict[str, list[set[str]]] = {}
        self._names: frozenset[str] = frozenset()  # the names of the last call (one object)

    def words(self, pool: Pool, paths: list[str], names: set[str], count_words: Callable[..., WordCounts],
              best_surface: Callable[[Counter[str]], str], words_delta: Callable[..., WordCounts] | None,
              top: int = 5) -> dict[str, list[str]]:
        """{path: its `top` keywords, each in its most used surface form}."""
        fresh = {p: pool.memo(p, ("words",), lambda items: count_words([it for it in items if it.current]),
                              words_delta)
                 if p in pool.files else (Counter(), {}) for p in paths}
        changed = [(p, self.counts.get(p), fresh.get(p)) for p in set(self.counts) | set(fresh)
                   if self.counts.get(p) is not fresh.get(p)]
        dirty: set[str] = set()
        for _, old, new in changed:
            # A word in both the old and the new counts of a file kept its df; the rest changed.
            dirty |= (old[0].keys() if old else set()) ^ (new[0].keys() if new else set())
        before = {w: self.df.get(w, 0) for w in dirty}
        restyled: set[str] = set()  # words whose surface forms may have changed
        for p, old, new in changed:
            for part, sign in ((old, -1), (new, +1)):
                if part is not None:
                    self._add(part, sign)
                    restyled |= part[1].keys()
            self._drop(p)
        self.counts = fresh
        up = {w for w in dirty if grain(self.df.get(w, 0)) > grain(before[w])}  # scores fell: only where kept
        moved = up | {w for w in dirty if grain(self.df.get(w, 0)) < grain(before[w])}
        # Which files' kept words changed score: only those holding a word whose df rose, unless
        # some df fell (a word left a file): then its score rose anywhere, and every file is checked.
        visit = None if len(moved) > len(up) else set().union(*(self._holders.get(w, ()) for w in up))
        fell = moved - up
        n = grain(max(1, len(fresh)))
        frozen = frozenset(names)
        if frozen == self._names:  # the kept object: each file's check below is then by identity
            frozen = self._names
        self._names = frozen
        styled: dict[str, str] = {}
        out: dict[str, list[str]] = {}
        for p, (c, _) in fresh.items():
            hit = was = self.top.get(p)
            if hit is None or hit.n != n or (hit.names is not frozen and hit.names != frozen):
                hit = self._full(c, n, frozen, top)
            elif moved and (visit is None or p in visit):
                waiting = self._pending.get(p)
                if not any(w in moved for w in hit.best) and not any(w in c for w in fell) and (
                        waiting is None or len(waiting) < _MAX_PENDING):
                    # Only scores outside its top words fell: the top words stand (module docstring).
                    self._pending.setdefault(p, []).append(up)
                else:
                    dirty = moved.union(*self._pending.pop(p, ()))
                    hit = self._moved(hit, c, dirty, n, top) or self._full(c, n, frozen, top)
            if hit is not was:
                self._pending.pop(p, None)
                self._hold(p, was, hit)
            shown = self.shown.get(p)
            if shown is None or (hit is not was and (was is None or hit.best != was.best)) or (
                    restyled and not restyled.isdisjoint(hit.best)):
                again = [styled[w] if w in styled else styled.setdefault(w, best_surface(self.surface[w]))
                         for w in hit.best]  # a word's shown form, once per regeneration, not per file
                if again != shown:  # the same list object otherwise: index.md keeps the file's row
                    shown = self.shown[p] = again
            out[p] = shown
        for p in set(self.top) - set(fresh):
            self._drop(p)
        return out

    def _hold(self, path: str, was: _Top | None, hit: _Top) -> None:
        """Keep `_holders` (word -> files that keep it) up to date with a file's new kept words."""
        self.top[path] = hit
        if was is not None and len(was.kept) == len(hit.kept) and list(map(_word, was.kept)) == list(
                map(_word, hit.kept)):
            return  # the same words kept (their scores moved): the holders stay
        self._unhold(path, was)
        for _, w in hit.kept:
            self._holders.setdefault(w, set()).add(path)

    def _drop(self, path: str) -> None:
        self.shown.pop(path, None)
        self._pending.pop(path, None)
        self._unhold(path, self.top.pop(path, None))

    def _unhold(self, path: str, was: _Top | None) -> None:
        """`path` no longer keeps the words it kept (`was`)."""
        for _, w in was.kept if was is not None else ():
            got = self._holders.get(w)
            if got is not None:
                got.discard(path)
                if not got:
                    del self._holders[w]

    def _full(self, c: Counter[str], n: int, names: frozenset[str], top: int) -> _Top:
        """Score every usable word of the file."""
        df, log = self.df, math.log
        keyed = [((-(k * log(1 + n / grain(df[w]))), w), w) for w, k in c.items() if w not in names]
        best = heapq.nsmallest(self.kept, keyed) if len(keyed) > self.kept else sorted(keyed)
        bar = best[-1][0] if len(keyed) > len(best) else None
        return _Top(n, names, best, bar, top)

    def _moved(self, hit: _Top, c: Counter[str], dirty: set[str], n: int, top: int) -> _Top | None:
        """The file's top words after the df of `dirty` moved (its own counts did not), from
        its kept words; None when too few of them still beat the bar (then re-sort)."""
        touched = [w for w in dirty if w in c and w not in hit.names] if len(dirty) < len(c) else [
            w for w in c if w in dirty and w not in hit.names]
        if not touched:
            return hit
        moved = set(touched)
        cands = [kw for kw in hit.kept if kw[1] not in moved]
        df, log = self.df, math.log
        cands += [((-(c[w] * log(1 + n / grain(df[w]))), w), w) for w in touched]  # as _full scores
        cands.sort()
        if hit.bar is not None:  # (without a bar every usable word is kept: exact as it is)
            cands = [kw for kw in cands if kw[0] <= hit.bar]
            if len(cands) < top:
                return None
        return _Top(n, hit.names, cands, hit.bar, top)

    def _add(self, part: WordCounts, sign: int) -> None:
        c, surf = part
        for w in c:
            self.df[w] += sign
            if self.df[w] <= 0:
                del self.df[w]
        for w, forms in surf.items():
            into = self.surface.setdefault(w, Counter())
            for form, k in forms.items():
                into[form] += sign * k
                if into[form] <= 0:
                    del into[form]
            if not into:
                del self.surface[w]


__all__ = ["Keywords"]
