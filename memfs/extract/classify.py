"""Memory type and category hint for one fact, from keyword and tense rules.

Documents (first match wins):

1. tool: "Use X for/to Y".
2. skill: how to do something: a numbered step, a sentence opening with an imperative
   verb ("Run", "Install", "Click") or reading "To deploy, run ...".
3. tool: a code span or command line (`git rebase`, ``$ make``, ``--flag``), "using X
   to|for Y", "X is used for", CLI/API/library words.
4. skill: a list item in a section whose heading is procedural ("How to", "Setup",
   "Install", "Usage").
5. knowledge: everything else (facts about the world, projects, systems).
A document sentence about its author (written in the first person) follows the
conversation rules instead.

Conversations (first match wins):

1. tool: a command or code span, or "use X for/to Y" where X is a tool ("app",
   "script", ...) or a named product ("uses VS Code for"); skill if it is an imperative.
2. skill: "To deploy, run ...".
3. behavior: a habit of one of the people: "usually", "always <verb>", "every morning",
   "tends to", "used to", "whenever", "twice a week", "most days", "daily".
4. event: something that happened or will happen at a time: a resolved date
   expression, or a past-tense action ("went", "visited", "rehearsed") by one of the
   people. A plan with no time ("going to continue my education", "Priya will send the
   slides") is a profile goal.
5. profile: everything else (traits, identity, preferences, relationships, opinions).

Category hints (a slug; the categorize step uses it only if that category exists):
``events`` for events, ``habits`` for behavior, ``procedures`` for skills, ``tools`` for
tools (the default workspace's files); for profile facts the first of ``goals``,
``health``, ``relationships``, ``work``, ``education``, ``preferences``, ``hobbies``
whose cue words occur (some exist only if a person creates them: then the categorize
step falls back to meaning). Knowledge gets no hint: the pipeline decides.
"""

from __future__ import annotations

import re

from memfs.extract.lexicon import (
    EDUCATION_WORDS,
    HEALTH_WORDS,
    HOBBY_WORDS,
    RELATION_WORDS,
    WORK_WORDS,
    is_past_form,
)

CATEGORY_HINTS: tuple[str, ...] = ("events", "habits", "procedures", "tools", "goals", "health",
                                   "relationships", "work", "education", "preferences",
                                   "hobbies")

_I = re.IGNORECASE

_CODE_RE = re.compile(r"`[^`]+`|(?:^|\s)\$\s+\w|(?:^|\s)--[a-z][\w-]+|\b\w+\(\)|"
                      r"\b(?:sudo|pip|pip3|npm|npx|yarn|pnpm|git|docker|kubectl|cargo|brew|"
                      r"apt|apt-get|curl|wget|ssh|systemctl|conda|poetry)\s+(?:install|run|"
                      r"build|push|pull|commit|clone|checkout|add|start|stop|exec|init|get|"
                      r"apply|status|update|upgrade|rebase|merge|compose|logs|create|remove|-)",
                      _I)
# "use X for/to Y", "X is used for".
_USE_FOR_RE = re.compile(
    r"\b(?:use|uses|using|used)\s+(?:the\s+)?[\w.+#-]+(?:\s+[\w.+#-]+)?\s+(?:to|for)\b|"
    r"\bis\s+used\s+(?:to|for)\b", _I)
_TOOL_WORD_RE = re.compile(r"\b(?:cli|api|sdk|command|commands|endpoint|flag|shortcut|"
                           r"plugin|extension|library|package)\b", _I)
_IMPERATIVE = frozenset("""
run install open click create add set use configure copy start stop restart check make
ensure navigate select enter type press download edit update remove delete build deploy
execute go call pass write read put keep avoid do don't never always verify confirm test
clone push pull commit merge fetch log login sign mount enable disable save load export
import paste replace move rename upload submit choose pick wait restart reboot backup
apply register define declare initialize init launch connect attach specify provide
""".split())
# "uses VS Code for", "using Obsidian to": a named product used for something.
_PRODUCT_USE_RE = re.compile(r"\b(?:use|uses|using)\s+(?:the\s+)?[A-Z][\w.+#-]*"
                             r"(?:\s+[A-Z][\w.+#-]*)?\s+(?:to|for)\b")
_STEP_RE = re.compile(r"^\s*(?:\d+[.)]|step\s+\d+[:.]?|first,|then,|next,|finally,)\s*", _I)
_TO_DO_RE = re.compile(r"^(?:to|in order to)\s+\w+[^,]{0,80},\s*(?:\w+\s+){0,2}"
                       r"(?:run|use|type|click|open|call|set|add|go|press|install|edit)\b", _I)
_PROCEDURAL_HEADING_RE = re.compile(
    r"\b(?:how\s+to|how-to|setup|set\s+up|install|installation|getting\s+started|steps|guide|"
    r"procedure|usage|deploy|deployment|quickstart|quick\s+start|tutorial|recipe|"
    r"instructions|workflow|runbook|checklist)\b", _I)

_BEHAVIOR_RE = re.compile(
    r"(?<!not )\b(?:usually|always|often|normally|typically|generally|regularly|frequently)\s+"
    r"(?!been\b|being\b|be\b|there\b|here\b|so\b|a\b|an\b|the\b|such\b|good\b|great\b)[a-z]+|"
    r"\b(?:daily|"
    r"weekly|nightly|every\s+(?:day|morning|evening|night|week|weekend|month|year|time|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|summer|winter)|each\s+"
    r"(?:morning|day|night|week)|tends?\s+to|used\s+to|whenever|on\s+weekends|most\s+days|"
    r"(?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays)|habit|routine|"
    r"twice\s+a|once\s+a|every\s+other|all\s+the\s+time|a\s+lot\s+of\s+the\s+time|"
    r"(?:\w+|a\s+few|several|many)\s+times\s+(?:a|per|each)\s+(?:day|week|month|year))\b",
    _I,
)
_GOAL_RE = re.compile(
    r"\b(?:wants?\s+to|want\s+to|would\s+love\s+to|plans?\s+to|planning\s+(?:to|on)|hopes?\s+"
    r"to|hoping\s+to|dreams?\s+(?:of|to|about)|goal|goals|aspires?\s+to|aims?\s+to|intends?\s+"
    r"to|is\s+going\s+to|are\s+going\s+to|looking\s+forward|thinking\s+(?:of|about)|keen\s+on|"
    r"considering|working\s+towards?|saving\s+(?:up\s+)?for|wishes\s+to|would\s+like\s+to|"
    r"is\s+determined\s+to)\b",
    _I,
)
_PREFERENCE_RE = re.compile(
    r"\b(?:loves?|loved|likes|liked|(?<=don't\s)like|(?<=not\s)like|(?<=would\s)like|"
    r"(?<=others\s)like|(?<=family\s)like|(?<=really\s)like|enjoys?|enjoyed|prefers?|"
    r"preferred|favou?rite|hates?|"
    r"hated|dislikes?|can't\s+stand|fan\s+of|into|passionate|adores?|fond\s+of|obsessed)\b",
    _I,
)
_WORD_RE = re.compile(r"[a-z][a-z'-]*")
# Where someone lives and what they do for a living are who they are (profile, work),
# even when the sentence carries a date ("moved to Leeds in March").
_HOME_RE = re.compile(
    r"\b(?:lives|live|living|lived|resides|is based|are based|moved|moving|relocated|relocating)\s+"
    r"(?:back\s+)?(?:in|to|into|near|from)\b|\b(?:new|own|first)\s+(?:flat|apartment|house|home|place)\b|"
    r"\bhometown\b|\bgrew up in\b", _I)
_JOB_RE = re.compile(
    r"\b(?:works|work|worked|working)\s+(?:as|at|for|in)\b|\b(?:new|first|part-time|full-time|dream)\s+job\b|"
    r"\b(?:got|landed|accepted|started|starts|starting|quit|left|lost)\s+(?:a\s+|the\s+|her\s+|his\s+|"
    r"their\s+)?(?:new\s+)?(?:job|role|position|internship)\b|\b(?:promoted|hired|employed|retired)\b|"
    r"\b(?:last|first)\s+day\s+(?:at|of)\s+(?:work|the\s+office|[A-Z])|\bjoined\s+[A-Z][\w&.-]*\s+as\b|"
    r"\bstarted\s+(?:work(?:ing)?\s+)?as\s+(?:[\w-]+\s+){1,4}?(?:at|for|with)\s+(?-i:[A-Z])|\b(?:laid\s+off|let\s+go|made\s+redundant|fired)\s+(?:from|by|at)\b|"
    r"\bresigned\s+from\b", _I)
# "Priya will send the slides": an undated commitment is a goal (a dated one an event).
_WILL_RE = re.compile(r"^(?:[A-Z][\w'-]*(?: [A-Z][\w'-]*)?|The user) will (?:(?:also|definitely|finally|soon) )?"
                      r"(?!(?:be|have|not|never|probably|likely|always|love|like|enjoy|need|know|miss|feel|"
                      r"understand|remember|find|see|get)\b)[a-z]+")
# Who someone is: where they are from, their age, the languages they speak, their trade.
_IDENTITY_RE = re.compile(
    r"\b(?:is|are|was) (?:originally )?from [A-Z]|\boriginally from\b|\b\d{1,3} years old\b|"
    r"\bspeaks? (?:fluent )?[A-Z][a-z]+\b|\bgrew up\b", re.IGNORECASE)
_TRADE_RE = re.compile(
    r"\b(?:is|am|was) an? (?:[a-z-]+ ){0,2}(?:engineer|developer|programmer|teacher|nurse|doctor|designer|"
    r"manager|lawyer|accountant|analyst|scientist|consultant|writer|journalist|chef|cook|architect|"
    r"researcher|professor|electrician|plumber|pilot|pharmacist|dentist|surgeon|therapist|counselor|"
    r"counsellor|librarian|curator|translator|paramedic|firefighter|police officer|mechanic|"
    r"carpenter|barista|waiter|waitress|cashier|banker|economist|editor|producer|photographer|"
    r"freelancer|contractor|intern|ceo|cto|founder|entrepreneur)s?\b", re.IGNORECASE)
_POSSESSED_RELATION_RE = re.compile(r"^[A-Z][\w-]*'s (?:\w+ )?(?:" + "|".join(sorted(RELATION_WORDS - {
    "married", "marriage", "wedding", "divorce", "divorced", "dating", "date"}, key=len, reverse=True)) + r")\b")
_PET_RE = re.compile(r"\b(?:has|have|adopted|got) (?:a|an|two|three|another) (?:\w+ )?(?:dog|puppy|cat|kitten|"
                     r"rabbit|hamster|parrot|horse|pony|retriever|labrador|terrier|spaniel|poodle|bulldog)s?\b",
                     re.IGNORECASE)

# A how-to told in conversation: "The trick to crispy tofu is to press it first."
_HOWTO_RE = re.compile(
    r"\b(?:the\s+)?(?:best|easiest|quickest|fastest|only|right|simplest)?\s*(?:way|trick|secret|key)\s+to\s+"
    r"[^,.;]{2,60}?\s+is\s+(?:to\s+)?[a-z]+|\bhow\s+to\s+[^,.;]{2,60}?:\s|^to\s+\w+[^,]{0,60},\s+\w+", _I)

# Cheap guards: a regex runs only if one of its cue words is in the text.
_CODE_CUES = frozenset("""sudo pip pip3 npm npx yarn pnpm git docker kubectl cargo brew apt apt-get
curl wget ssh systemctl conda poetry""".split())
_TOOL_CUES = frozenset("""use uses using used cli api sdk command commands endpoint flag shortcut
plugin extension library package""".split())
_BEHAVIOR_CUES = frozenset("""usually always often normally typically generally regularly
frequently daily weekly nightly every each tend tends used whenever weekends most mondays
tuesdays wednesdays thursdays fridays saturdays sundays habit routine twice once all lot
times""".split())
_EVENT_VERBS = frozenset("""went visited attended bought started finished joined moved met took
got gave received won lost celebrated traveled travelled adopted graduated married ran made
painted signed launched quit left arrived returned organized hosted completed participated
volunteered performed presented published released sold built""".split())
_GOAL_CUES = frozenset("""want wants love plan plans planning hope hopes hoping dream dreams goal
goals aspire aspires aim aims intend intends going looking thinking keen considering working
saving wishes like determined""".split())
_PREFERENCE_CUES = frozenset("""love loves loved like likes liked enjoy enjoys enjoyed prefer
prefers preferred favorite favourite favorites favourites hate hates hated dislike dislikes
stand fan into passionate adore adores fond obsessed""".split())
_PERSON_DOC_RE = re.compile(r"\b(?:the author|the user)\b", _I)


def _has_any(words: set[str], vocab: frozenset[str]) -> bool:
    return not vocab.isdisjoint(words)


def profile_hint(text: str, ws: list[str] | None = None) -> str | None:
    if ws is None:
        ws = _WORD_RE.findall(text.lower())
    wset = set(ws)
    if not _GOAL_CUES.isdisjoint(wset) and _GOAL_RE.search(text):
        return "goals"
    if _has_any(wset, HEALTH_WORDS):
        return "health"
    if _has_any(wset, RELATION_WORDS):
        return "relationships"
    if _has_any(wset, WORK_WORDS):
        return "work"
    if _has_any(wset, EDUCATION_WORDS):
        return "education"
    if not _PREFERENCE_CUES.isdisjoint(wset) and _PREFERENCE_RE.search(text):
        return "preferences"
    if _has_any(wset, HOBBY_WORDS):
        return "hobbies"
    return None


_STATIVE_PAST = frozenset("""was were had did thought felt knew meant said told understood
kept could would should might seemed wanted needed hoped wished liked loved believed preferred
used""".split())
# Words that make "use X for Y" about a tool in a conversation.
_TOOL_NOUNS = frozenset("""app apps tool tools software cli api apis command commands extension
plugin plugins library libraries script scripts editor spreadsheet terminal shell sdk
framework database browser shortcut""".split())
_PASSIVE_AUX = frozenset("""is am are was were be been being feel feels felt get gets got
seem seems seemed so very really too""".split())


def _past_action(ws: list[str]) -> bool:
    """A past-tense action verb ("went", "rehearsed"), not a state ("was", "felt")."""
    prev = ""
    for i, w in enumerate(ws):
        if w == "got" and ws[i + 1:i + 2] == ["to"]:
            prev = w
            continue  # "it's got to be tough"
        if w in _EVENT_VERBS:
            return True
        if w not in _STATIVE_PAST and prev not in _PASSIVE_AUX and is_past_form(w):
            return True
        prev = w
    return False


def _mentions_person(text: str, names: tuple[str, ...]) -> bool:
    if _PERSON_DOC_RE.search(text):
        return True
    return any(n and n in text for n in names)


_FIRST_WORD_RE = re.compile(r"\s*(?:\d+[.)]\s*)?(?:please\s+)?([A-Za-z']+)", _I)


def _is_imperative(text: str) -> bool:
    m = _FIRST_WORD_RE.match(text)
    return bool(m) and m.group(1).lower() in _IMPERATIVE


def classify(text: str, *, kind: str, dated: bool = False, heading: str | None = None,
             list_item: bool = False, ordered: bool = False,
             personal: bool = False, names: tuple[str, ...] = ()) -> tuple[str, str | None]:
    """Return (memory type, category hint or None) for one fact text.

    ``dated``: a date expression was resolved in the sentence. ``personal``: a document
    sentence that was about its author (first person). ``ordered``: a numbered list item.
    ``names``: the people of a conversation; a habit must be about one of them.
    """
    is_doc = kind == "document"
    ws = _WORD_RE.findall(text.lower())
    wset = set(ws)
    code = (("`" in text or "$" in text or "--" in text or "()" in text
             or not _CODE_CUES.isdisjoint(wset)) and bool(_CODE_RE.search(text)))
    use_for = not _TOOL_CUES.isdisjoint(wset) and bool(_USE_FOR_RE.search(text))
    tool = use_for or (not _TOOL_CUES.isdisjoint(wset) and bool(_TOOL_WORD_RE.search(text)))
    behavior = not _BEHAVIOR_CUES.isdisjoint(wset) and bool(_BEHAVIOR_RE.search(text))
    imperative = _is_imperative(text) or (ws[:1] in (["to"], ["in"])
                                          and bool(_TO_DO_RE.match(text)))
    if is_doc and not personal:
        procedural = bool(heading and _PROCEDURAL_HEADING_RE.search(heading))
        if ws[:1] == ["use"] and use_for:
            return "tool", "tools"  # "Use restic for backups."
        if imperative or ordered or _STEP_RE.match(text):
            return "skill", "procedures"
        if code or tool:
            return "tool", "tools"
        if procedural and list_item:
            return "skill", "procedures"
        if behavior and _PERSON_DOC_RE.search(text):
            return "behavior", "habits"
        return "knowledge", None

    # Conversation (or a personal note in a document).
    if code or (use_for and (not _TOOL_NOUNS.isdisjoint(wset) or _PRODUCT_USE_RE.search(text))):
        return ("skill", "procedures") if imperative else ("tool", "tools")
    if imperative and ws[:1] == ["to"]:
        return "skill", "procedures"
    if _HOWTO_RE.search(text):
        return "skill", "procedures"
    about = personal or _mentions_person(text, names) or not names
    home = _HOME_RE.search(text) is not None
    job = _JOB_RE.search(text) is not None or _TRADE_RE.search(text) is not None
    if about and (_POSSESSED_RELATION_RE.match(text) or _PET_RE.search(text)):
        return "profile", "relationships"  # "Ada's sister Clara is a doctor", "has a golden retriever"
    if (home or job) and not behavior and about:
        return "profile", ("work" if job else "profile")
    if about and not behavior and _IDENTITY_RE.search(text):
        return "profile", "profile"
    if about and ((not _GOAL_CUES.isdisjoint(wset) and _GOAL_RE.search(text))
                  or (not dated and "will" in wset and _WILL_RE.match(text))):
        return "profile", "goals"  # "wants to run a marathon in 2027": a goal, even with a date
    if behavior and (personal or _mentions_person(text, names)):
        return "behavior", "habits"
    if dated or (_past_action(ws) and (personal or _mentions_person(text, names))):
        return "event", "events"
    return "profile", profile_hint(text, ws)
