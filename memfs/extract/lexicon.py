"""Word lists shared by the offline extractor's rules (data only, no logic).

Kept in one place so the heuristics in ``sentences``, ``attribution``, ``dates`` and
``classify`` agree on what a stopword, a filler word or a past-tense verb is.
All entries are lower case.
"""

from __future__ import annotations

STOPWORDS: frozenset[str] = frozenset("""
a about above after again against all almost along also although am an and another any
anybody anyone anything anyway anyways are aren't around as at be because been before
being below between both but by can can't cannot could couldn't did didn't do does doesn't
doing don't done down during each either else enough etc even ever every everything for
from further get gets getting got gotten had hadn't has hasn't have haven't having he he'd
he'll he's her here here's hers herself him himself his how how's however i i'd i'll i'm
i've if in into is isn't it it'd it'll it's its itself just let let's lot lots many may
maybe me might mine more most much must my myself neither no nor not now of off on once
one only or other others otherwise our ours ourselves out over own per perhaps quite rather
really same shall she she'd she'll she's should shouldn't so some somebody someone
something somehow still such than that that's the their theirs them themselves then there
there's these they they'd they'll they're they've thing things this those though through
thus to too toward towards under until up upon us very via was wasn't way we we'd we'll
we're we've well were weren't what what's whatever when where where's whether which while
who who's whom whose why will with within without won't would wouldn't yet you you'd
you'll you're you've your yours yourself yourselves
gonna wanna gotta kinda sorta im ive dont cant wont didnt doesnt isnt thats whats
""".split())

# Reaction words: a sentence made only of these (plus stopwords) carries no fact.
FILLER: frozenset[str] = frozenset("""
hi hey hello heya hiya yo bye goodbye cheers thanks thank thx ty welcome ok okay okey k
yes yeah yep yup yah ya no nope nah sure totally absolutely definitely exactly indeed
right true agreed agree wow whoa woah oh ooh ah aw aww awww omg gosh geez jeez damn dang
lol lmao rofl haha hahaha hehe heh hmm hm um umm uh uhh er well alright anyway anyways
cool awesome amazing great nice good fine wonderful fantastic incredible lovely sweet
super neat fab fabulous brilliant excellent terrific splendid stunning gorgeous perfect
impressive remarkable outstanding marvelous marvellous superb beautiful
fun funny exciting excited inspiring inspired glad happy proud sorry congrats
congratulations kudos bravo yay hooray woohoo sounds sound seems seem looks look glad
news stuff guess mean means meant care soon later touch chat talk talking catch see
tell told wish wishes luck keep kept going doing hope hoping let lemme gimme gotcha
hear heard thought think feel feeling totally truly honestly seriously literally
appreciate appreciated means much way idea thing things bit kind sort tho though
wonder wondering awesome dear buddy pal friend mate guys guy folks everyone
""".split())

# Adverbs that may sit between a subject and its verb ("I really love", "I also went").
ADVERBS: frozenset[str] = frozenset("""
really also just always never usually often sometimes still actually totally definitely
absolutely even only already finally recently truly honestly seriously literally mostly
generally certainly probably rarely seldom occasionally constantly genuinely particularly
especially personally kinda sorta def definately typically normally basically
frequently regularly sure ever hardly barely nearly almost once occasionally
now currently mainly no longer
""".split())



def is_adverb(low: str) -> bool:
    """An adverb right after a subject pronoun, before its verb: a listed one, or any word of
    six letters or more in -ly ("I completely agree", "I simply love it") but the verbs and
    nouns in -ly (`_NOT_ADVERBS`: "I multiply", "I supply"). (Not after "and": "cooking and
    family time" holds a noun in -ly.)"""
    return low in ADVERBS or (len(low) >= 6 and low.endswith("ly") and low.isalpha() and low not in _NOT_ADVERBS)


_NOT_ADVERBS = frozenset("""
comply supply multiply family assembly anomaly monopoly homily butterfly dragonfly firefly
""".split())


MODALS: frozenset[str] = frozenset("""
can could will would should might must may shall can't cannot couldn't won't wouldn't
shouldn't mightn't mustn't did didn't had hadn't was wasn't were weren't used ought
better gotta wanna gonna need't dare
""".split())

# Irregular past-tense forms (simple past; a few are also participles).
IRREGULAR_PAST: frozenset[str] = frozenset("""
was were went did had got saw made took came gave found felt thought told said knew left
met ran bought brought caught taught began drew wrote became built chose drank drove ate
fell fought flew forgot forgave froze grew hung heard held hid kept kneeled knelt laid
led lent lost meant paid rode rang rose sang sank sat slept slid spoke spent stood stole
stuck struck swam swung threw understood woke wore won wound sold sent shook shot showed
shone sought spun split sprang stank strode strove swore tore wept withdrew overcame
undertook upheld became dealt dug dreamt learnt burnt spelt lit fed fled bled bred bent
bound sped spat forbade mistook overheard rebuilt retold underwent broke chose drew hid
bit blew froze leapt leaped knew rode shrank spoke stung swept taught trod wove
""".split())

# Prefixes that keep an irregular past irregular: "retook", "overcame", "underwent".
PAST_PREFIXES: tuple[str, ...] = ("re", "un", "over", "under", "mis", "out", "up", "with",
                                  "fore", "be")


_PREFIXED_PAST: frozenset[str] = frozenset(
    p + w for p in PAST_PREFIXES for w in IRREGULAR_PAST if len(w) >= 3)


def is_past_form(word: str) -> bool:
    """True for a simple-past form: irregular ("went", "retook") or regular ("-ed")."""
    w = word.lower()
    if w in IRREGULAR_PAST or w in _PREFIXED_PAST:
        return True
    return len(w) > 4 and w.endswith("ed") and w not in ED_ADJECTIVES

# Forms that are identical in present and past: tense is decided by other cues.
AMBIGUOUS_PAST: frozenset[str] = frozenset("""
read put set cut hit let quit hurt cost spread bet shut beat cast burst fit rid split
thrust upset broadcast forecast
""".split())

# -ed words that are mostly adjectives, not past events.
ED_ADJECTIVES: frozenset[str] = frozenset("""
excited interested tired bored scared worried inspired motivated interested pleased
surprised amazed shocked thrilled stressed overwhelmed involved married engaged related
based supposed used tied obsessed blessed determined dedicated committed attached
concerned confused annoyed disappointed frustrated relieved prepared qualified
talented skilled experienced detailed advanced limited needed need red bed seed feed
speed weed shed sled led breed creed deed heed greed indeed embed hundred sacred naked
wicked rugged crooked beloved learned aged wretched ragged
""".split())

RELATION_WORDS: frozenset[str] = frozenset("""
friend friends bestie bff husband wife spouse partner boyfriend girlfriend fiance
fiancee fiancé fiancée kid kids child children son sons daughter daughters baby babies
mother mom mum mommy mama father dad daddy papa parent parents sister sisters brother
brothers sibling siblings family grandma grandpa grandmother grandfather grandparents
grandchildren grandkids aunt uncle cousin cousins niece nephew in-laws neighbor
neighbour neighbors roommate married marriage wedding divorce divorced dating date
relationship relationships boyfriend's girlfriend's husband's wife's pet pets dog dogs
cat cats puppy kitten
""".split())

FAMILY_WORDS: frozenset[str] = frozenset("""
husband wife spouse partner kid kids child children son sons daughter daughters baby
family mother mom mum father dad parents sister brother siblings grandma grandpa
""".split())

WORK_WORDS: frozenset[str] = frozenset("""
job jobs career work working worked works boss manager colleague colleagues coworker
coworkers co-worker company office promotion promoted hired hiring interview salary
business startup client clients customer customers project projects employer employee
shift team profession professional internship intern resume cv workplace fired laid
quit retire retired retirement biz store shop entrepreneur
""".split())

HEALTH_WORDS: frozenset[str] = frozenset("""
health healthy doctor doctors hospital sick illness ill injury injured injuries therapy
therapist medication medicine diet allergic allergy allergies anxiety depression
surgery pain cancer disease diagnosed diagnosis symptoms mental physio physical workout
workouts gym fitness weight sleep insomnia stress stressed burnout recovery recovering
clinic nurse treatment vegetarian vegan
""".split())

EDUCATION_WORDS: frozenset[str] = frozenset("""
school college university uni degree class classes course courses study studying studied
student students teacher teachers professor exam exams graduate graduated graduation
edu education major thesis phd masters bachelor homework lecture semester tutor
""".split())

HOBBY_WORDS: frozenset[str] = frozenset("""
painting paint painted paints drawing draw sketch sketching pottery ceramics art
artwork music guitar piano violin drums singing sing song songs band concert camping
camp hiking hike hikes climbing swimming swim running run marathon yoga gardening garden
cooking cook baking bake recipe photography photos reading books book novel novels
games gaming chess dance dancing sports soccer football basketball tennis golf surfing
skiing travel traveling travelling trip trips knitting crafts writing poetry poems
volunteering volunteer fishing cycling biking bike skateboarding
""".split())

WEEKDAYS: dict[str, int] = {
    "monday": 0, "mon": 0,
    "tuesday": 1, "tue": 1, "tues": 1,
    "wednesday": 2, "wed": 2,
    "thursday": 3, "thu": 3, "thur": 3, "thurs": 3,
    "friday": 4, "fri": 4,
    "saturday": 5, "sat": 5,
    "sunday": 6, "sun": 6,
}

MONTHS: dict[str, int] = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3,
    "april": 4, "apr": 4, "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7,
    "august": 8, "aug": 8, "september": 9, "sep": 9, "sept": 9, "october": 10, "oct": 10,
    "november": 11, "nov": 11, "december": 12, "dec": 12,
}

NUMBER_WORDS: dict[str, int] = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "fifteen": 15, "twenty": 20, "thirty": 30, "couple": 2, "a couple": 2,
    "a couple of": 2, "couple of": 2,
}

#: Verbs that say nothing about what a file holds ("lives", "goes", "started"): no keyword
#: of index.md, and no person when one opens a line whose subject was lost ("Makes Mel feel ...").
PLAIN_VERBS = frozenset("""
live lives lived living go goes went going love loves loved like likes liked near based build builds built
start starts started run runs ran make makes made write writes written use uses used want wants wanted plan
plans planning prefer prefers preferred work works worked working move moves moved moving stop stopped
said says tell told get gets got take takes took give gives gave come comes came keep keeps kept find found
""".split())

#: What a word splits "isn't" into before the apostrophe: no keyword ("isn" was one of
#: index.md's). Not "won", "don" or "haven", which are words of their own.
NEGATION_STEMS = frozenset("""isn aren wasn weren doesn didn hasn hadn couldn wouldn shouldn mustn needn
mightn shan ain""".split())
