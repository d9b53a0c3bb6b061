"""The offline extractor: segments in, small standalone facts out, no network.

Per segment: text -> blocks (paragraphs, list items) -> sentences -> drop filler and
pure questions -> attribute (names for pronouns) -> resolve dates -> join a sentence that
only continues the previous one ("It's special to me.") onto it -> classify -> Fact.

Decisions:
- One fact per sentence, except that a sentence opening with a bare reference ("It",
  "That", "This", "They", "He", "She", "There") is appended to the previous fact of
  the same segment; one still opening a line is ``dangle``'s, and one it cannot resolve
  joins the line of the sentence before it ("Maria got a puppy. Her name's Coco."), or
  keeps the sentence it points at, quoted, or is not stored (``context``, ``reach``); a
  pointer inside a line is ``inner``'s.
- Conversation turns by assistant/system/tool roles are skipped: the memory is about
  the user and the people in the conversation, and an assistant's text is mostly
  advice, not facts about them.
- ``Fact.when``: the first date expression resolved in the fact; otherwise the date
  of the segment (or of the source): the day the fact was stated. None if undated.
- Documents: every sentence or list item is a fact (knowledge/skill/tool); a list
  item, a table row, a code line, a sentence opening with a bare reference or a very
  short one gets its heading in front ("Requirements: Python 3.11 or newer.").
  First-person sentences in a document are attributed to the segment's speaker, else
  to "the author", and classified like conversation facts.
- Facts are cut to 300 characters at a word boundary; identical texts (ignoring case,
  spacing and final punctuation) are kept once per source, first occurrence wins.
- Deterministic: no randomness, no dependence on set or dict ordering of inputs.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from datetime import datetime

from memfs.core.segment import Fact, ParsedSource, Segment
from memfs.extract.answer import completed
from memfs.extract.antecedent import resolve_opening, resolve_view
from memfs.extract.attribution import (
    ASSISTANT_ROLES,
    GENERIC_AUTHOR,
    GENERIC_USER,
    USER_ROLES,
    attribute,
    is_generic_you,
    normalize_slang,
    restore_subject,
)
from memfs.extract.blocks import Block, chat_blocks, document_blocks
from memfs.extract.classify import classify
from memfs.extract.clauses import clauses_of
from memfs.extract.context import in_context
from memfs.extract.dangle import joined, settle
from memfs.extract.dates import resolve_dates
from memfs.extract.deixis import resolve_place, shown
from memfs.extract.inner import settle_inner
from memfs.extract.intro import drop_introduction, introduced_name
from memfs.extract.listener import (LETS_RE, OWN_SUBJECT_RE, courtesy, glad_for, held_by, same_subject,
                                    specific, told_back)
from memfs.extract.rewrite import drop_hedges, speaker_view
from memfs.extract.said import attributed, is_reaction
from memfs.extract.slotsplit import split_home
from memfs.extract.transcript import as_transcript
from memfs.extract.sentences import (has_content, is_talk, normalize_text, question_to_statement, short_fact,
                                     split_sentences, strip_edges)

log = logging.getLogger(__name__)

MAX_FACT_CHARS = 300
#: A follow-up sentence this short joins the speaker's previous fact in the same turn.
MERGE_SHORT_CHARS = 60
_ATTACHMENT_RE = re.compile(r"(?:^|\s)(?:[A-Z][\w'-]*(?: [A-Z][\w'-]*)? )?shares? (?:a|an|some|the) "
                            r"(?:photo|picture|pic|image|video|link|screenshot|drawing)s? (?:of|from)\b.*$")
# "There were games for the kids" (existential "there") reads on its own; "There" as a
# place is resolved or dropped by deixis, so neither needs the fact before it.
_CONTINUATION_RE = re.compile(r"^(?:it|it's|its|that|that's|this|this's|they|they're|these|"
                              r"those|there(?!\s+(?:is|are|was|were|will|has|have|had|'s|must|might|"
                              r"could|can|should|would|seems?|seemed)\b|'s\b)|he|he's|she|she's|which|them)\b",
                              re.IGNORECASE)
# Singular first person in a document: its author (a document's "we" is left alone).
_FIRST_PERSON_RE = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|[Mm]y|[Mm]e|[Mm]ine|[Mm]yself)\b")
_FIRST_PERSON_ANY_RE = re.compile(r"\b(?:i|i'm|im|i've|i'd|i'll|my|me|mine|myself|we|"
                                  r"we're|we've|our|ours|us)\b", re.IGNORECASE)
_SECOND_PERSON_RE = re.compile(r"\b(?:you|your|you're|you've|you'll|you'd|yours|yourself|ya|u|ur)\b",
                               re.IGNORECASE)
_PERSONAL_RE = re.compile(r"\b(?:i|i'm|im|i've|i'd|i'll|my|me|mine|myself|we|us|our|you|your|ya|u|ur)\b",
                          re.IGNORECASE)
_WS_RE = re.compile(r"\s+")
_LAST_SENTENCE_RE = re.compile(r"(?<=[.!])\s+(?=[A-Z])")
_SPACE_PUNCT_RE = re.compile(r"\s+([,.;:!?])")
_END_RE = re.compile(r"[\s!.\u2026,;:]+$")


@dataclass
class _Piece:
    text: str
    when: str | None
    dated: bool
    personal: bool
    block: Block
    continuation: bool = False
    before: str | None = ""  # the turn's words before this sentence (None: not found)
    first: int = 0  # the turn's sentences this piece holds: first and last, counted from 0
    last: int = 0


@dataclass
class _Context:
    kind: str
    names: list[str]
    addressee: dict[str, str]
    source_time: datetime | None
    user_name: str | None = None  # the name a generic user gave themselves ("I'm Priya")
    previous: str = ""  # the turn before the current one: where "there" may point
    previous_speaker: str = ""  # who said `previous`: whose question a line may answer
    earlier: str = ""  # the turn before that: what a question in `previous` ("What inspired it?") asks about

    @classmethod
    def of(cls, source: ParsedSource) -> _Context:
        named: list[str] = []
        for p in list(source.participants) + [s.speaker or "" for s in source.segments]:
            p = p.strip()
            if p and _is_named(p) and p not in named:
                named.append(p)
        addressee: dict[str, str] = {}
        if source.kind == "conversation" and len(named) == 2:
            addressee = {named[0]: named[1], named[1]: named[0]}
        user_name = None
        if source.kind == "conversation":
            user_name = introduced_name([s.text for s in source.segments
                                         if not _is_named(s.speaker or "user")
                                         and (s.speaker or "user").strip().lower() in USER_ROLES])
            if user_name in named:
                user_name = None
        return cls(source.kind, named, addressee, source.time, user_name)


def _is_named(speaker: str) -> bool:
    low = speaker.strip().lower()
    return bool(low) and low not in USER_ROLES and low not in ASSISTANT_ROLES


def _finish(text: str) -> str:
    """Single spaces, a capital first letter, a final full stop, balanced quotes."""
    text = _SPACE_PUNCT_RE.sub(r"\1", _WS_RE.sub(" ", text).strip())
    quotes = text.count('"')
    if quotes % 2 == 1:  # a quote cut off by sentence splitting
        if text.startswith('"'):
            text = text[1:].lstrip()
        elif text.endswith('"'):
            text = text[:-1].rstrip()
    elif quotes == 2 and text.startswith('"') and text.endswith('"'):
        text = text[1:-1].strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    if text.endswith(("`", '."', '!"', '?"', ".'", "?")):
        return text
    return _END_RE.sub("", text) + "."


def _trim(text: str, limit: int = MAX_FACT_CHARS) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:-") + "\u2026"


def _dedupe_key(text: str) -> str:
    return _END_RE.sub("", " ".join(text.lower().split()))


def _sentence_piece(raw: str, block: Block, seg: Segment, ctx: _Context, name: str,
                    ref: datetime | None, named: bool = False) -> _Piece | None:
    is_doc = ctx.kind == "document"
    names = ctx.names + ([seg.speaker] if seg.speaker else [])
    s = strip_edges(raw, names)
    if not s:
        return None
    if s.endswith("?"):
        stmt = question_to_statement(s)
        if stmt is None and not is_doc and " - " in s:
            # "Need help with marketing - any advice?": the statement before the ask.
            head = restore_subject(s.split(" - ", 1)[0])
            if len(head.split()) >= 4 and head.split(None, 1)[0].lower() in ("i", "i'm", "i've"):
                stmt = head.rstrip(",;:") + "."
        if stmt is None:
            return None
        s = stmt
    min_words = 2 if is_doc else 4
    if not has_content(s, min_words=min_words, names=names) and not block.code \
            and not (not is_doc and short_fact(s, names)):
        return None
    personal = alone = False
    if is_doc:
        if _FIRST_PERSON_RE.search(s):
            s = attribute(s, name, plural=False)
            personal = True
    else:
        addressee = ctx.addressee.get(seg.speaker or "")
        opinion = exhortation = False
        s = restore_subject(normalize_slang(s))  # "Been reading the book you recommended": "I've"
        s = drop_hedges(s)
        viewed, alone = speaker_view(s, bare=named)  # "It was great to ..." -> "I found it great to ..."
        if alone and not named and not _PERSONAL_RE.search(s) and is_reaction(s, dated=False):
            return None  # "It's great to see that!" opening a turn: a reaction, though it names the speaker
        if alone:
            named = False  # it names its holder itself and reads on its own
        s = viewed
        if addressee and not _FIRST_PERSON_ANY_RE.search(s):
            if is_generic_you(s):
                return None  # "you guys are the best": about a group, not a fact about anyone
            if _SECOND_PERSON_RE.search(s):
                if told_back(s) or glad_for(raw):
                    # "You found the perfect spot for your store", "Glad you're moving": the
                    # listener's news told back to them; their own turn holds it first-hand.
                    return None
                opinion = True  # "You're a great mentor": what the speaker thinks of them
        exhortation = LETS_RE.match(s) is not None and not specific(s, names)
        s = attribute(s, name, addressee, context=seg.text, named=named)
    if "there" in s or "here" in s:
        before = seg.text[: max(seg.text.find(raw[:20]), 0)] if raw else ""
        resolved = resolve_place(s, ctx.previous + " " + before)
        if resolved is None:
            return None  # "the food there" with no place to point at: says nothing alone
        s = resolved
    s, when = resolve_dates(s, ref)
    if not is_doc and exhortation and when is None:
        return None  # "Let's keep making a difference!": no plan, no date, no place
    if not is_doc and opinion:
        addressee = ctx.addressee.get(seg.speaker or "", "")
        if s.startswith(addressee):  # a clause about the listener: the speaker's view
            if not named:
                s = held_by(s, name, ctx.names)
        # Anything else keeps its speaker below: advice ("Make sure you watch other people's
        # videos first") is worth a line; encouragement was dropped by has_content.

    text = _finish(s)
    if not text:
        return None
    return _Piece(text=text, when=when, dated=when is not None, personal=personal, block=block,
                  before=seg.text[:at] if (at := seg.text.find(raw[:20])) >= 0 else None, continuation=bool(_CONTINUATION_RE.match(raw.strip())) and not alone)


def _with_heading(piece: _Piece, text: str, heading: str | None) -> str:
    if not heading:
        return text
    heading = heading.strip().strip("#").strip().rstrip(":")
    if not heading or heading.lower() in text.lower():
        return text
    short = len(text.split()) < 6
    if piece.block.list_item or piece.block.code or piece.continuation or short:
        return f"{heading}: {text}"
    return text


def _segment_facts(seg: Segment, ctx: _Context) -> list[Fact]:
    speaker = (seg.speaker or "").strip()
    if ctx.kind == "conversation" and speaker.lower() in ASSISTANT_ROLES:
        return []
    if speaker and _is_named(speaker):
        name = speaker
    elif ctx.user_name and ctx.kind == "conversation":
        name = ctx.user_name
    else:
        name = GENERIC_AUTHOR if ctx.kind == "document" and not speaker else GENERIC_USER
    ref = seg.time or ctx.source_time
    text = normalize_text(seg.text or "")
    if name == ctx.user_name or (ctx.kind == "conversation" and name == speaker):
        # A speaker's own introduction is no fact: "I'm Marcus, the backend engineer" by
        # Marcus would read "Marcus is Marcus, the backend engineer".
        text = drop_introduction(text, name)
        if ctx.kind == "conversation":  # "Are you vegetarian?" / "Yes, ..." or "Where do you live?" / "Leeds."
            text = completed(text, ctx.previous, ctx.previous_speaker, name, earlier=ctx.earlier, group=len(ctx.names) > 2)
    if not text.strip():
        return []
    blocks = (document_blocks(text, seg.heading) if ctx.kind == "document"
              else chat_blocks(text))

    pieces: list[_Piece] = []
    k = -1  # the sentence's place in the turn
    for block in blocks:
        sentences = split_sentences(block.text)
        for raw in (clauses_of(sentences) if ctx.kind == "conversation" else sentences):
            k += 1
            prev = pieces[-1] if pieces else None
            joins = (prev is not None and prev.block is block and not block.list_item
                     and name in prev.text and bool(_CONTINUATION_RE.match(raw.strip())))
            piece = _sentence_piece(raw, block, seg, ctx, name, ref, named=joins)
            if piece is None:
                continue
            if (ctx.kind == "conversation" and not joins and prev is not None
                    and prev.block is block and name in prev.text
                    and len(piece.text) <= MERGE_SHORT_CHARS
                    and not OWN_SUBJECT_RE.match(strip_edges(raw, ctx.names))
                    and same_subject(prev.text, piece.text, ctx.names + [name])
                    and len(prev.text) + len(piece.text) + 1 <= MAX_FACT_CHARS):
                # A short follow-up by the same speaker adds to the fact before it ("Melanie
                # took the kids to the museum. They loved the dinosaurs."): one line, not two.
                again = _sentence_piece(raw, block, seg, ctx, name, ref, named=True)
                if again is not None:
                    again.continuation = True
                    piece = again
            if joins and piece.continuation and prev is not None:
                # "It's special to me." after "I painted that lake sunrise": a line of its own
                # when the sentence before names what "It" is (``antecedent``).
                alone = _sentence_piece(raw, block, seg, ctx, name, ref, named=False)
                spelled = None if _LAST_SENTENCE_RE.search(prev.text) else (
                    resolve_view(piece.text, prev.text, name) or (alone and resolve_opening(alone.text, prev.text)))
                if alone is not None and spelled:
                    alone.text, alone.continuation = _finish(spelled), False
                    alone.first = alone.last = k
                    pieces.append(alone)
                    continue
            if (piece.continuation and prev is not None and prev.block is block
                    and not block.list_item
                    and len(prev.text) + len(piece.text) + 1 <= MAX_FACT_CHARS):
                prev.text = prev.text + " " + piece.text
                prev.when = prev.when or piece.when
                prev.dated = prev.dated or piece.dated
                prev.last = k
                continue
            if joins and piece.continuation:
                # Too long to join: on its own the line must name its speaker ("They ..." would not).
                alone = _sentence_piece(raw, block, seg, ctx, name, ref, named=False)
                if alone is None:
                    continue
                piece = alone
            piece.first = piece.last = k
            pieces.append(piece)
    if len(pieces) > 1 or (pieces and _ATTACHMENT_RE.search(pieces[0].text) and
                           _ATTACHMENT_RE.search(pieces[0].text).start() > 0):
        # An attachment's description is context, not a fact, beside real ones.
        kept = []
        for p in pieces:
            m = _ATTACHMENT_RE.search(p.text)
            if m is not None:
                head = p.text[: m.start()].rstrip()
                if not head:
                    continue
                p.text = _finish(head)
            kept.append(p)
        pieces = kept or pieces[:1]

    stated = ref.date().isoformat() if ref is not None else None
    people = tuple(ctx.names) + (name,)
    facts: list[Fact] = []
    last: _Piece | None = None  # the piece the last fact of this turn came from
    for p in pieces:
        heading = p.block.heading if ctx.kind == "document" else None
        mtype, hint = classify(p.text, kind=ctx.kind, dated=p.dated, heading=heading,
                               list_item=p.block.list_item, ordered=p.block.ordered,
                               personal=p.personal, names=people)
        said = attributed(_with_heading(p, p.text, heading), name, people, ctx.kind, p.dated, ctx.addressee.get(name, ""))
        if said is None or (ctx.kind == "conversation" and courtesy(said, name, ctx.addressee.get(name, ""), ctx.names)):
            continue
        if ctx.kind == "conversation":  # a line opening on a pointer: resolved, rewritten or as said
            said = settle(shown(said, name), name, people, p.before, ctx.previous, ctx.addressee.get(name, ""), ctx.earlier)
            said, hollow = settle_inner(said, name, people, p.before, seg.text or "")  # "it" further in
            pair = joined(facts[-1].text, said, name, MAX_FACT_CHARS, hollow) \
                if last is not None and facts and last.last == p.first - 1 else None
            if pair is not None:  # unresolved, joined to the line of the sentence just before it
                facts[-1].text, last = pair, p
                continue
            if (said := in_context(said, name, people, p.before, ctx.previous, ctx.previous_speaker,
                                   MAX_FACT_CHARS, seg.text or "")) is None:
                continue  # still unresolved: with the sentence it points at, or dropped if it names nothing
        last = p
        text = _trim(said)
        facts.append(Fact(text=text, type=mtype, when=p.when or stated, anchor=seg.anchor,
                          speaker=seg.speaker, category_hint=hint, stated=stated))
    return facts


def extract_offline(source: ParsedSource) -> list[Fact]:
    """Extract standalone facts from every segment of ``source``, in order, deduplicated."""
    source = as_transcript(source)  # "Name: text" lines are that speaker's turns
    ctx = _Context.of(source)
    out: list[Fact] = []
    seen: set[str] = set()
    for seg in source.segments:
        try:
            facts = _segment_facts(seg, ctx)
        except Exception:  # one odd segment must not lose the rest of the source
            log.warning("offline extractor skipped segment %s", seg.anchor, exc_info=True)
            continue
        finally:
            ctx.earlier, ctx.previous, ctx.previous_speaker = ctx.previous, seg.text or "", (seg.speaker or "").strip()
        for fact in (part for f in facts for part in split_home(f)):
            key = _dedupe_key(fact.text)
            if not key or key in seen:
                continue
            seen.add(key)
            out.append(fact)
    return out
