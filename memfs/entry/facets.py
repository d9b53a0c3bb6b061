"""What an item says about its person: home, work, people around them, constraints ...

memory.md and the person pages group a person's current facts by facet, so an agent
finds "where do they live now" or "what must I not offer them" in one place. Offline
this is a small set of word rules over the fact text, with the category file as the
fallback; it only orders and groups lines, it never changes or drops a fact.
"""

from __future__ import annotations

import re
from functools import lru_cache

from memfs.extract.lexicon import FILLER, STOPWORDS

#: Facets in the order a profile shows them, with their headings.
FACETS: tuple[tuple[str, str], ...] = (
    ("identity", "Who they are"),
    ("home", "Where they live"),
    ("work", "Work and role"),
    ("people", "People and animals around them"),
    ("constraints", "Constraints (diet, allergies, health, limits)"),
    ("health", "Health and fitness"),
    ("preferences", "Preferences"),
    ("habits", "Habits"),
    ("plans", "Goals and plans"),
    ("events", "Events"),
    ("other", "Other facts"),
)
PROFILE_FACETS: tuple[str, ...] = ("identity", "home", "work", "people", "constraints", "health", "preferences",
                                   "habits")

#: Lower-case patterns, matched against the lower-cased fact (IGNORECASE is 4x slower).
_RULES: tuple[tuple[str, re.Pattern[str]], ...] = tuple((name, re.compile(rx)) for name, rx in (
    ("constraints", r"\b(allerg\w*|vegetarian|vegan|pescatarian|gluten|lactose|intoleran\w*|coeliac|celiac|"
                    r"diabet\w*|halal|kosher|teetotal|sober|on a diet|diet\b|can'?t eat|cannot eat|"
                    r"does ?n[o']t (eat|drink)|do ?n[o']t (eat|drink)|never (eats|drinks)|"
                    r"stopped (drinking|eating|smoking)|quit (drinking|smoking|coffee|alcohol)|"
                    r"avoids?|must not|mustn'?t|should ?n[o']t|injur\w*|disabilit\w*|wheelchair)\b"),
    ("home", r"\b(lives?|(?<!a )living|lived) (in|at|near|with)\b|\b(moved|moving|relocat\w*) (to|back)\b|"
             r"\bbased in\b|\bhome ?town\b|\bgrew up\b|\bresides?\b|\bhouse in\b|\bflat in\b|\bapartment in\b"),
    ("work", r"\b(works?|working|worked) (as|at|for|on|remotely)\b|\bjob\b|\bemploy\w*|\bhired\b|\bjoined\b|"
             r"\bstarted as\b|\b(freelanc\w*|retired|career|colleague|employer)\b|"
             # a firm, not companionship: "enjoy each other's company"
             r"(?<!other's )(?<!other\u2019s )(?<!others' )(?<!others\u2019 )\bcompany\b|"
             # A trade counts only when said of the person: not "Priya's sister is a nurse".
             r"^(the user|the author|(?!(her|his|their|my|our|its|a|an|the)\b)[a-z-]+( [a-z-]+)?) (is|was|has been|"
             r"became|is now|trained as|qualified as) (an? |the )([a-z-]+ ){0,2}(engineer|designer|developer|"
             r"manager|director|head of|lead|founder|ceo|cto|consultant|analyst|scientist|teacher|nurse|doctor|"
             r"lawyer|architect|researcher|intern)s?\b"),
    ("people", r"\b(partner|wife|husband|spouse|boyfriend|girlfriend|fianc\w*|married|son|daughter|kids?|"
               r"children|child|baby|mother|mom|mum|father|dad|sister|brother|sibling|parents?|"
               r"grand\w+|aunt|uncle|cousin|friend|neighbou?r|dog|cat|pet|puppy|kitten|horse|rabbit|"
               r"hamster|parrot|beagle|labrador|terrier)\b"),
    ("preferences", r"\b(prefers?|preferred|loves?|loved|likes?|liked|favou?rite|enjoys?|enjoyed|hates?|"
                    r"dislikes?|can'?t stand|fan of|passionate about|into)\b"),
    ("habits", r"\b(every (day|morning|evening|night|week|monday|tuesday|wednesday|thursday|friday|"
               r"saturday|sunday|weekend)|usually|always|often|regularly|daily|weekly|each (morning|week))\b"),
    ("plans", r"\b(plans?|planning|planned|going to|will|intends?|intending|wants? to|hopes? to|hoping to|"
              r"goals?|aims? to|aiming|dreams? of|due (on|by)|deadline|launch\w*|upcoming|next "
              r"(week|month|year|spring|summer|autumn|fall|winter)|(training|preparing|signed up|registered) for)\b"),
    # "named"/"called" only of the person ("Priya is called Pri"), not "a cat called Miso".
    # "is a/the ..." only of the fact's subject ("Priya is a nurse"), not "looking back is a blessing".
    ("identity", r"^(the user|the author|[a-z'-]+( [a-z'-]+)?) (is an?|is the)\b|"
                 r"\b((is|was|gets|goes by|also) (named|called)|nicknamed|years old|\d+ years|born|"
                 r"identif\w+|pronouns?|nationality)\b"),
))



#: Category names that say the facet when the words do not.
#: A health file's line is "health", not a constraint: filed there by meaning, it is as often
#: fitness or wellbeing talk ("John is off to do some taekwondo") as a limit; a constraint is
#: what the words say ("allergic", "can't eat", "avoids").
_BY_CATEGORY = {"profile": "identity", "work": "work", "relationships": "people", "health": "health",
                "preferences": "preferences", "hobbies": "preferences", "habits": "habits", "goals": "plans",
                "events": "events", "education": "work"}

_CONSTRAINT = dict(_RULES)["constraints"]
#: Words of health: a remark quoted from a chat that holds one is kept however it reads
#: ("Tom: I can't have sugar, doctor's orders.", "Tom: No alcohol for me, I'm pregnant.").
_HEALTH = re.compile(
    r"\b(health\w*|doctors?|hospital\w*|clinic|surgery|surgeon|operation|sick|illness|ill|disease|"
    r"diagnos\w*|therap\w*|medic\w*|meds|pills?|prescri\w*|pain\w*|aches?|asthma|cancer|pregnan\w*|"
    r"symptoms?|conditions?|blood|migraines?|anxiety|panic|depress\w*|antidepress\w*|adhd|ptsd|autis\w*|"
    r"disorders?|recover\w*|physio\w*|fractur\w*|sprain\w*|broken|concussion|flu|covid|virus|infection|"
    r"fever|insomnia|apnea|chronic|checkups?|check-ups?|dentist|vaccin\w*|stroke|heart|hearing|deaf\w*|"
    r"blind\w*|eyesight|glasses|insulin|inhaler|epilep\w*|seizures?|arthritis|eczema|cholesterol|"
    r"chemo\w*|cane|crutches|stairs|alcohol|sugar|dairy|nuts?|walk)\b")
#: A line that says what its subject believes, thinks or suggests, or what they showed
#: ("Maria believes kindness is key", "Jon and Gina should meet", "Nate shares a photo of a
#: turtle"). Filed by meaning, such a line lands in health or work for the topic it
#: touches; it says nothing of the person's constraints or job, so its file is no facet.
#: Verbs that often carry a fact are not here (a review): "feels dizzy", "knows Python",
#: "could not sleep without his CPAP", "is excited to start teaching at Lincoln High".
_SAID = re.compile(
    r"^[a-z'-]+( [a-z'-]+)?( and (others|family|[a-z'-]+))? ((really|truly|just|also|still|sure|totally|so|"
    r"definitely|always) )?(believes|thinks|thought|finds it|found it|appreciates|wishes|hopes|wonders|guesses|"
    r"bets|agrees|is (so |really |very )?(glad|grateful|thankful|blessed|amazed|impressed|touched|in awe)|"
    r"can'?t wait|would (really )?(love|appreciate)|should|shares? a (photo|picture|pic|video|screenshot) of)\b")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_DANGLING = re.compile(r"^(that|this|it|these|those|there)\b", re.IGNORECASE)


@lru_cache(maxsize=1 << 17)  # pure; the root files are regenerated after every input (issue #18, item 4)
def facets_of(text: str, category: str, type_: str, future: bool) -> tuple[str, ...]:
    """The facets a fact belongs to, the main one first (at most two). A fact dated after
    it was learned is a plan; "lives in Leeds with her partner Tom" is home and people.
    Its file is the facet only when the words name none, and not for a line of what someone
    believes or showed (`_SAID`): its file was chosen by the topic it touches, unless a line
    in a health file names a health matter."""
    if future:
        return ("plans",)
    found = []
    lowered = text.lower()
    for name, rule in _RULES:
        if name == "identity" and type_ == "event":
            continue  # "the concert was the best" is an event, not who someone is
        if rule.search(lowered):
            found.append(name)
            if len(found) == 2:
                break
    if found:
        return tuple(found)
    if type_ == "event":
        return ("events",)
    facet = _BY_CATEGORY.get(category, "other")
    if facet != "other" and _SAID.match(lowered) and not (facet == "health" and _HEALTH.search(lowered)):
        return ("other",)
    return (facet,)


def facet_of(text: str, category: str, type_: str, future: bool) -> str:
    return facets_of(text, category, type_, future)[0]


def content_words(text: str, names: tuple[str, ...] = ()) -> int:
    """How many words carry meaning (not stopwords, reaction words or the people's names)."""
    skip = {n.lower() for n in names}
    count = 0
    for word in _WORD.findall(text):
        low = word.lower().strip("'")
        if low.endswith("'s"):
            low = low[:-2]
        if low and low not in STOPWORDS and low not in FILLER and low not in skip:
            count += 1
    return count


@lru_cache(maxsize=1 << 17)  # pure, like facets_of
def is_filler(text: str, facet: str, quoted: bool, names: tuple[str, ...] = ()) -> bool:
    """True for lines an agent should not spend tokens on at the start of a conversation:
    a reaction quoted from a meeting ("Dana: Great, that saves us a sprint."), a dangling
    "That saves Dana a sprint.", or a line with almost no content. A constraint is never
    filler, however short ("Priya is vegan."), nor is an unquoted line of a health file; a
    remark quoted from a chat that names no constraint or health matter and is health only by
    its file ("Joanna: The important thing is to stay positive.") is a remark like any other."""
    if facet == "constraints":
        return False
    if facet == "health":
        if not quoted or _CONSTRAINT.search(low := text.lower()) or _HEALTH.search(low):
            return False
        facet = "other"
    body = text.split(": ", 1)[1] if quoted and ": " in text else text
    if len(body.split()) < 12 and content_words(body, names) < 2:
        return True
    if _DANGLING.match(body) and facet in ("other", "events", "people", "preferences", "identity"):
        return True
    if quoted and facet in ("other", "identity", "preferences", "people", "events"):
        return True
    return False
