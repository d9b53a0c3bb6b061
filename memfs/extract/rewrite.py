"""Say what a chat sentence means, in fewer words, before pronouns become names.

Chat wraps a fact in talk: hedges ("honestly", "definitely", "kinda"), and evaluations
built on a dummy "it" ("It was great to unplug with the kids", "It's important to me to
stay fit") whose holder is only implied. A memory line should name whose view it is and
drop the padding. These rules run on the raw sentence, in the first person, so the
attribution step that follows turns "I" into the speaker and makes the verb agree:

- **The view gets its holder.** "It's/It was/It's been [so] ADJ to VERB ..." or "...
  VERBing ..." becomes "I find/found/have found it ADJ to ...": "It was great to unplug
  and hang with the kids" -> "Melanie found it great to unplug and hang with the kids".
  A bare "It was ADJ (and ADJ)" after a fact is the speaker's view of it too: "I went to
  a council meeting. It was inspiring and emotional." -> "... They found it inspiring and
  emotional." Only evaluative adjectives (a closed list of plain English), never a
  "that"-clause ("It's great that you ...": the listener's news, handled elsewhere),
  never a sentence speaking to the listener.
- **Hedges go.** "honestly", "actually", "definitely", "totally", "literally",
  "basically", "truly", "absolutely", "kinda"/"kind of" before an adjective: they change
  how sure the speaker sounds, not what happened. Kept after a negation ("not totally
  sure" is not "sure").
"""

from __future__ import annotations

import re

#: Adjectives that judge an experience; "it" before them is the speaker's view of it.
EVALUATIVE = (
    "great|amazing|awesome|fun|nice|cool|lovely|wonderful|fantastic|incredible|awful|terrible|"
    "hard|tough|rough|difficult|tricky|challenging|easy|scary|stressful|exhausting|intense|"
    "rewarding|fulfilling|satisfying|inspiring|motivating|encouraging|empowering|liberating|"
    "freeing|humbling|eye-opening|heartbreaking|heartwarming|touching|moving|emotional|"
    "powerful|overwhelming|nerve-wracking|exciting|thrilling|interesting|fascinating|"
    "relaxing|calming|peaceful|soothing|refreshing|therapeutic|healing|helpful|useful|"
    "important|special|meaningful|worthwhile|surreal|magical|beautiful|unforgettable|"
    "memorable|enjoyable|comforting|reassuring|uplifting|frustrating|disappointing|sad|"
    "weird|strange|crazy|wild|epic|unreal"
)
_ADV = r"(?:(?:so|really|super|very|pretty|quite|truly|totally|absolutely|incredibly|such|a bit|" \
       r"a little|kind of|kinda|also|just|honestly|definitely|always|still)\s+)*"
_ADJ = rf"(?:{EVALUATIVE})"
_ADJS = rf"{_ADJ}(?:(?:,\s*|\s+and\s+|\s+but\s+){_ADV}{_ADJ})*"
# "It's great to unplug", "It was so nice seeing everyone", "It's been tough juggling both".
_VIEW_RE = re.compile(
    rf"^(?P<it>it's been|it has been|it's|it is|it was|it was just)\s+"
    rf"(?P<adv>{_ADV})(?P<adj>{_ADJS})(?P<rest>\s+(?:for me\s+|to me\s+)?(?:to\s+(?!(?:me|us|him|her|them|you|everyone|all|others)\b)[a-z]|[a-z]+ing\b|how\b|when\b).*)$",
    re.IGNORECASE)
# "It was inspiring and emotional.", "It was so powerful - everyone shared their story."
_BARE_VIEW_RE = re.compile(
    rf"^(?P<it>it's been|it has been|it's|it is|it was)\s+(?P<adv>{_ADV})(?P<adj>{_ADJS})"
    rf"(?P<rest>\s*(?:[.!\u2026]+|\s-\s.*|,\s+(?!but\b|though\b).*)?)$", re.IGNORECASE)
# "It's been a tough week with this injury" -> "I've had a tough week with this injury".
_SPELL_RE = re.compile(
    rf"^(?:it's been|it has been)\s+(?P<a>an?\s+{_ADV}(?:{EVALUATIVE}|busy|long|rough|hectic)\s+"
    rf"(?:week|month|year|day|few days|few weeks|few months|couple of weeks|time|stretch))"
    rf"(?:\s+for me)?(?P<rest>(?:\s+(?!since\b)|[,.!\u2026]).*)?$", re.IGNORECASE)
# The same view inside a sentence, after a clause boundary: "Even though it can be hard,
# it's so rewarding to know ...", "... and it was comforting to know they are not alone".
_INNER_VIEW_RE = re.compile(
    rf"(?P<pre>(?:[,;]|\s-)\s+(?:(?:and|but|so|yet)\s+)?|\b(?:and|but|so|yet)\s+)(?P<it>it's been|it has been|it's|it is|it was)\s+"
    rf"(?P<adv>{_ADV})(?P<adj>{_ADJS})(?=\s+(?:to\s+(?!(?:me|us|him|her|them|you|everyone|all|others)\b)[a-z]|"
    rf"[a-z]+ing\b|how\b))", re.IGNORECASE)
_TENSE = {"it's": "find", "it is": "find", "it was": "found", "it was just": "found", "it's been": "have found",
          "it has been": "have found"}
# A general statement: a bare noun or gerund phrase as subject, a present-tense verb, no
# past and no pointer ("Confidence is important in business", "Staying positive is key").
_GENERAL_RE = re.compile(
    r"^(?!(?i:the|this|that|these|those|it|its|it's|they|their|there|here|his|her|one|all|every|"
    r"some|something|someone|what|which|when|if|just|so|then|now|on|in|at|after|before|since|"
    r"last|fingers|best|finally|remember|make|keep|try|take|stay|let|go|be|have|get|find|enjoy|"
    r"do|don't|never|always|look|check|give|believe|trust|focus|put|think|not|nothing|no)\b)"
    r"[A-Z][a-z'-]+(?:\s+(?!(?:that|to|if|when|because|you|your)\b)[a-z'-]+){0,5}?\s+"
    r"(?:is|are|can|helps|help|makes|make|brings|bring|matters|matter|gives|give|keeps|"
    r"pays|shows|creates|leads|teaches|needs|has a way)\b")
# The past, a number or a pointer at something said or shown: no general statement.
_PAST_RE = re.compile(r"\b(?:was|were|had|did|went|got|made|yesterday|ago|last|it|them|this|that|these|"
                      r"those|here|there)\b|\d", re.IGNORECASE)
_SECOND_RE = re.compile(r"\b(?:you|your|you're|you've|you'll|yours|ya|u|ur)\b", re.IGNORECASE)

_HEDGE_RE = re.compile(
    r"(?<!\bnot )(?<!n't )(?<!\bnever )\b(?:honestly|actually|definitely|totally|literally|basically|truly|"
    r"absolutely)\b,?\s+(?=[a-z])|"
    r"(?<!\bnot )(?<!n't )\b(?:kinda|kind of|sort of|sorta)\s+(?=" + _ADJ + r"\b)|"
    r"(?<=\w )super\s+(?=[a-z]+\b)(?!(?:bowl|market|hero|power|star|man|woman|mario)s?\b)|"  # intensifiers: "such a great day"
    r"(?<=\w )such\s+(?=an?\s)", re.IGNORECASE)


def speaker_view(sentence: str, *, bare: bool = False) -> tuple[str, bool]:
    """ "It was great to unplug" -> ("I found it great to unplug", True): a view that now
    reads on its own. Anything else comes back unchanged, with False.

    ``bare=True`` also rewrites "It was inspiring." (no complement), with False: "it" is
    still the speaker's previous fact, which the sentence must join; alone it is a reaction.
    """
    s = sentence.strip()
    if _SECOND_RE.search(s):
        return sentence, False
    if not s[:2].lower() == "it":
        return _inner_views(sentence), False
    spell = _SPELL_RE.match(s)
    if spell is not None:
        return f"I've had {spell.group('a')}{spell.group('rest') or ''}", True
    m = _VIEW_RE.match(s)
    alone = m is not None
    if m is None and bare:
        m = _BARE_VIEW_RE.match(s)
    if m is None:
        return _inner_views(sentence), False
    verb = _TENSE[" ".join(m.group("it").lower().split())]
    adv = m.group("adv") or ""
    rest = m.group("rest") or ""
    rest = re.sub(r"^\s+(?:for me|to me)\s+", " ", rest, flags=re.IGNORECASE)
    return f"I {verb} it {adv}{m.group('adj')}{rest}", alone


def _inner_views(sentence: str) -> str:
    if "it" not in sentence.lower():
        return sentence

    def holder(m: re.Match[str]) -> str:
        verb = _TENSE[" ".join(m.group("it").lower().split())]
        return f"{m.group('pre')}I {verb} it {m.group('adv') or ''}{m.group('adj')}"

    return _INNER_VIEW_RE.sub(holder, sentence)


def drop_hedges(sentence: str) -> str:
    """ "I honestly think it's definitely worth it" -> "I think it's worth it"."""
    if not _HEDGE_RE.search(sentence):
        return sentence
    out = _HEDGE_RE.sub("", sentence)
    return out[:1].upper() + out[1:] if sentence[:1].isupper() else out


def general_belief(text: str, name: str) -> str | None:
    """ "Confidence is important in business." said by Gina -> "Gina believes confidence is
    important in business.": a general statement is its speaker's belief. None when the
    text is no general statement (an event, a pointer at something shown)."""
    if not _GENERAL_RE.match(text) or _PAST_RE.search(text):
        return None
    first, _, rest = text.partition(" ")
    nxt = rest.split(None, 1)[0] if rest else ""
    if not (first.isupper() and len(first) > 1) and not nxt[:1].isupper():
        first = first.lower()  # "Nature is ..." -> "... believes nature is"; "Edinburgh, Scotland" stays
    return f"{name} believes {first} {rest}".rstrip()
