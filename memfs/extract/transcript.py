"""A document that is really a transcript: "Name: text" lines are turns of that speaker.

Meeting notes and pasted chats arrive as Markdown or plain text. Read as a document, the
first person in "Marcus: I have capped the warehouse" would become "the author"; read as
a transcript it is Marcus. A segment counts as a transcript when most of its lines (at
least two) start with a speaker label — a capitalised name of one or two words, maybe
a time ("[10:02] Dana:", "Dana (PM):") — and at least one label repeats or two differ.
Its lines become turns (continuation lines join the turn above), in order, citing the
segment's own anchor; a source whose segments are mostly transcripts becomes a
conversation with those speakers as participants.
"""

from __future__ import annotations

import re

from memfs.core.segment import ParsedSource, Segment

_LABEL = re.compile(
    r"^\s*(?:[-*]\s+)?(?:\[?\(?\d{1,2}:\d{2}(?::\d{2})?\s*(?:[AaPp][Mm])?\]?\)?\s*[-–]?\s*)?"
    r"(?:\*\*)?(?P<name>[A-Z][\w'.-]{0,30}(?: [A-Z][\w'.-]{0,30})?)(?:\*\*)?"
    r"(?:\s*\([^)]{1,40}\))?\s*(?:\*\*)?:(?:\*\*)?\s+(?P<text>\S.*)$")
_NOT_NAMES = frozenset("""note notes todo action actions agenda summary decision decisions date time
attendees present absent re subject from to cc bcc update status next result results goal goals
question answer q a warning tip important example step location where when why what who how
owner due topic topics minutes update""".split())
MIN_SHARE = 0.6
_INLINE = re.compile(r"(?<=[.!?\"')\]])\s+(?=[A-Z][\w'.-]{0,30}(?: [A-Z][\w'.-]{0,30})?(?:\s*\([^)]{1,40}\))?:\s)")
_PERSONAL = re.compile(r"\b(?:I|I'm|I've|I'll|I'd|my|me|we|we're|we'll|our|us|you|your|let's|okay|ok|"
                       r"yes|no|thanks|sure)\b", re.IGNORECASE)


def _label(line: str) -> tuple[str, str] | None:
    m = _LABEL.match(line)
    if not m:
        return None
    name = m.group("name").strip()
    if name.lower() in _NOT_NAMES or name.split()[0].lower() in _NOT_NAMES:
        return None
    return name, m.group("text").strip()


def turns_of(text: str) -> list[tuple[str, str]] | None:
    """The (speaker, text) turns of a transcript segment, or None if it is not one."""
    # A Markdown paragraph arrives with its line breaks folded: split before each label.
    lines = [part for ln in text.split("\n") if ln.strip() for part in _INLINE.split(ln) if part.strip()]
    labelled = [_label(ln) for ln in lines]
    count = sum(1 for x in labelled if x)
    if count < 2 or count < MIN_SHARE * len(lines):
        return None
    names = [x[0] for x in labelled if x]
    spoken = [x[1] for x in labelled if x]
    repeats = len(set(names)) < len(names)
    chatty = sum(1 for t in spoken if _PERSONAL.search(t)) * 2 >= len(spoken)
    if not (repeats or chatty):  # "Install: pip install memfs" / "Port: 5433" is a list of fields
        return None
    turns: list[tuple[str, str]] = []
    for line, lab in zip(lines, labelled):
        if lab:
            turns.append(lab)
        elif turns:
            turns[-1] = (turns[-1][0], turns[-1][1] + " " + line.strip())
    return turns


def as_transcript(source: ParsedSource) -> ParsedSource:
    """The same source with transcript segments split into speaker turns (kind
    "conversation" when most segments are transcripts); unchanged otherwise."""
    if source.kind != "document":
        return source
    out: list[Segment] = []
    speakers: list[str] = []
    converted = 0
    for seg in source.segments:
        turns = turns_of(seg.text)
        if not turns:
            out.append(seg)
            continue
        converted += 1
        for name, text in turns:
            if name not in speakers:
                speakers.append(name)
            out.append(seg.model_copy(update={"text": text, "speaker": name}))
    if not converted:
        return source
    kind = "conversation" if converted * 2 >= len(source.segments) else "document"
    participants = list(source.participants) + [s for s in speakers if s not in source.participants]
    return source.model_copy(update={"segments": out, "kind": kind, "participants": participants})
