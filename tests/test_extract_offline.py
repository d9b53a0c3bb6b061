"""The offline extractor: sentences, attribution, dates, classification, the glue."""

from __future__ import annotations

import time
from datetime import date, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memfs.core.segment import Fact, ParsedSource, Segment
from memfs.extract import extract_offline
from memfs.extract.attribution import attribute, normalize_slang, restore_subject, third_person
from memfs.extract.classify import classify
from memfs.extract.dates import resolve_dates
from memfs.extract.offline import MAX_FACT_CHARS, _Context, _segment_facts
from memfs.extract.sentences import has_content, split_sentences, strip_edges
from tests.support.factories import parsed_conversation

REF = datetime(2023, 5, 8, 13, 56)  # a Monday
TYPES = {"profile", "event", "knowledge", "behavior", "skill", "tool"}


def chat(*turns: tuple[str, str], when: datetime | None = REF,
         participants: tuple[str, ...] = ("Caroline", "Melanie")) -> ParsedSource:
    return parsed_conversation(turns, when=when, participants=participants)


def doc(text: str, heading: str | None = None, when: datetime | None = None) -> ParsedSource:
    return ParsedSource(kind="document", format="markdown", time=when,
                        segments=[Segment(anchor="setup/install", text=text, heading=heading,
                                          time=when)])


def texts(source: ParsedSource) -> list[str]:
    return [f.text for f in extract_offline(source)]


def said(speaker: str, text: str, addressee: str | None = None) -> str:
    return attribute(restore_subject(normalize_slang(text)), speaker, addressee)


# --- sentences & filler ------------------------------------------------------------

def test_split_sentences_regex_and_abbreviations() -> None:
    assert split_sentences("I went home. Then I slept! Did you?") == [
        "I went home.", "Then I slept!", "Did you?"]
    # Ambiguous periods go through pysbd.
    assert split_sentences("Dr. Smith met Mr. Jones at 3 p.m. on Friday. They went home.") == [
        "Dr. Smith met Mr. Jones at 3 p.m. on Friday.", "They went home."]
    # A closing quote stays with its sentence.
    assert split_sentences('We did a piece called "Finding Freedom." It was great.') == [
        'We did a piece called "Finding Freedom."', "It was great."]


def test_pysbd_backtracking_inputs_do_not_hang() -> None:
    start = time.perf_counter()
    split_sentences("Dr. Who said hi. ..[111 111 111 111 111 111 111 111 111 111 111]")
    split_sentences("e.g. f.302205302116302416302500302513915bd and more. Done.")
    assert time.perf_counter() - start < 1.0


@pytest.mark.parametrize("text", [
    "Hey Mel!", "Thanks!", "Wow, that's great!", "How are you?", "lol", "Sounds good",
    "Good to see you!", "Talk to you soon!", "That sounds awesome, Caroline!",
    "Take a look at this.", "Keep it up!", "Thank you so much!", "What an amazing journey!",
])
def test_filler_is_dropped(text: str) -> None:
    assert texts(chat(("Caroline", text))) == []


def test_strip_edges_removes_interjections_and_vocatives() -> None:
    names = ["Caroline", "Melanie"]
    assert strip_edges("Wow, Mel! I love it", names) == "I love it"
    assert strip_edges("Yeah, I painted that lake sunrise, Caroline!", names) == \
        "I painted that lake sunrise!"
    assert has_content("I painted that lake sunrise")
    assert not has_content("That's really cool.")


def test_questions_dropped_unless_they_carry_a_statement() -> None:
    facts = texts(chat(
        ("Caroline", "What kinda jobs are you thinking of?"),
        ("Melanie", "Did I tell you I adopted a puppy last week?"),
        ("Caroline", "I went to Paris last month, can you believe it?"),
    ))
    assert facts == ["Melanie adopted a puppy in the week of 2023-05-01.",
                     "Caroline went to Paris in April 2023."]


# --- attribution ---------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("I went to a support group.", "Caroline went to a support group."),
    ("I'm swamped with my kids.", "Caroline is swamped with their kids."),
    ("I've been to Paris.", "Caroline has been to Paris."),
    ("I have two dogs.", "Caroline has two dogs."),
    ("I am a teacher.", "Caroline is a teacher."),
    ("I was sad.", "Caroline was sad."),
    ("I do yoga and I don't like cats.", "Caroline does yoga and they don't like cats."),
    ("I love painting.", "Caroline loves painting."),
    ("I really enjoy camping.", "Caroline really enjoys camping."),
    ("I try to watch my diet.", "Caroline tries to watch their diet."),
    ("I usually go running.", "Caroline usually goes running."),
    ("I'd love to help.", "Caroline would love to help."),
    ("I'd been there before.", "Caroline had been there before."),
    ("It made me feel accepted.", "It made Caroline feel accepted."),
    ("My friend and I go hiking.", "Caroline's friend and Caroline go hiking."),
    ("I'll call you tomorrow.", "Caroline will call Melanie tomorrow."),
    ("You're a great painter.", "Melanie is a great painter."),
    ("Your kids are lovely.", "Melanie's kids are lovely."),
    ("You have such a caring heart.", "Melanie has such a caring heart."),
    ("It helps the people you work with.", "It helps the people Melanie works with."),
    # "you" as the subject of what the speaker thinks, or of a clause on "something", agrees
    ("I think you need a break.", "Caroline thinks Melanie needs a break."),
    ("I hope you enjoy the new chair.", "Caroline hopes Melanie enjoys the new chair."),
    ("I know you want to travel.", "Caroline knows Melanie wants to travel."),
    ("It's cool when something you love brings success.", "It's cool when something Melanie loves brings success."),
    ("Doing activities you love is a treasure.", "Doing activities Melanie loves is a treasure."),
    ("Ask me anytime you need.", "Ask Caroline anytime Melanie needs."),
    # ... and "you" as an object stays as it is
    ("My mom knows you well.", "Caroline's mom knows Melanie well."),
    ("She hears you sing every night.", "She hears Melanie sing every night."),
    ("I miss you like crazy.", "Caroline misses Melanie like crazy."),
    ("I'll give you love and support.", "Caroline will give Melanie love and support."),
    ("Seeing you enjoy it made my day.", "Seeing Melanie enjoy it made Caroline's day."),
    ("I miss you love.", "Caroline misses Melanie love."),
    ("Should you need anything, just text me.", "Should Melanie need anything, just text Caroline."),
    ("Gonna continue my edu.", "Caroline is going to continue their edu."),
    ("Love that painting!", "Caroline loves that painting!"),
    ("Lost my job yesterday.", "Caroline lost their job yesterday."),
    ("I carved out some me-time.", "Caroline carved out some me-time."),
    ("Taking care of ourselves is vital.", "Taking care of themselves is vital."),
    # A later mention of the speaker in the same line is singular "they" -- unless someone
    # else could be meant ("they" already there, or the listener named).
    ("My sister and I think they moved.", "Caroline's sister and Caroline think they moved."),
    ("I told you my plan.", "Caroline told Melanie Caroline's plan."),
    ("I was glad my team won and I am proud.", "Caroline was glad their team won and they are proud."),
    ("We organized a meal and our kids served it to us.",
     "Caroline and family organized a meal and their kids served it to them."),
    ("Working with people like you is motivating.", "Working with people like Melanie is motivating."),
    ("Working together would be great!", "Working together would be great!"),
    ("Networking plays a big role in deals.", "Networking plays a big role in deals."),
])
def test_attribution(text: str, expected: str) -> None:
    assert said("Caroline", text, "Melanie") == expected


def test_we_becomes_family_others_or_both() -> None:
    assert said("Melanie", "We went camping with the kids.", "Caroline") == \
        "Melanie and family went camping with the kids."
    assert said("Melanie", "We went to a concert.", "Caroline") == \
        "Melanie and others went to a concert."
    assert said("Melanie", "Since we last chatted, a lot happened.", "Caroline") == \
        "Since Melanie and Caroline last chatted, a lot happened."
    assert said("Melanie", "A lot happened since our last chat.", "Caroline") == \
        "A lot happened since Melanie and Caroline's last chat."
    assert said("Melanie", "Our kids love it.", "Caroline") == "Melanie's kids love it."


def test_third_person() -> None:
    assert [third_person(v) for v in ("love", "go", "watch", "try", "play", "have", "Miss")] == [
        "loves", "goes", "watches", "tries", "plays", "has", "Misses"]


def test_generic_speaker_and_assistant_turns() -> None:
    src = ParsedSource(kind="conversation", format="openai-messages", time=REF, segments=[
        Segment(anchor="m1", speaker="user", text="I'm allergic to peanuts."),
        Segment(anchor="m2", speaker="assistant", text="I will remember that you are allergic."),
        Segment(anchor="m3", speaker=None, text="My wife prefers running."),
    ])
    facts = extract_offline(src)
    assert [f.text for f in facts] == ["The user is allergic to peanuts.",
                                       "The user's wife prefers running."]
    assert [f.anchor for f in facts] == ["m1", "m3"]


def test_you_is_left_alone_without_exactly_two_people() -> None:
    src = chat(("Caroline", "I think you would love the new cafe downtown."),
               participants=("Caroline", "Melanie", "Jon"))
    assert texts(src) == ["Caroline thinks you would love the new cafe downtown."]


# --- dates ---------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected_text", "when"), [
    ("I went to a support group yesterday.", "I went to a support group on 2023-05-07.",
     "2023-05-07"),
    ("I did it today.", "I did it on 2023-05-08.", "2023-05-08"),
    ("We met last night.", "We met on the night of 2023-05-07.", "2023-05-07"),
    ("I ran a race last Saturday.", "I ran a race on 2023-05-06.", "2023-05-06"),
    ("I hiked on Saturday.", "I hiked on 2023-05-06.", "2023-05-06"),
    ("I have a concert this Friday.", "I have a concert on 2023-05-12.", "2023-05-12"),
    ("I started 3 days ago.", "I started on 2023-05-05.", "2023-05-05"),
    ("I visited Paris two weeks ago.", "I visited Paris around 2023-04-24.", "2023-04-24"),
    ("I went to a conference last week.", "I went to a conference in the week of 2023-05-01.",
     "2023-05-01"),
    ("We camped last weekend.", "We camped on the weekend of 2023-05-06.", "2023-05-06"),
    ("I adopted a dog last month.", "I adopted a dog in April 2023.", "2023-04"),
    ("I will move next month.", "I will move in June 2023.", "2023-06"),
    ("I painted that last year.", "I painted that in 2022.", "2022"),
    ("I lived there 10 years ago.", "I lived there in 2013.", "2013"),
    ("I went there last summer.", "I went there in summer 2022.", "2022"),
    ("I saw a bird the other day.", "I saw a bird a few days before 2023-05-08.", "2023-05"),
    ("I graduated in 2020.", "I graduated in 2020.", "2020"),
    ("We met on May 7, 2023.", "We met on May 7, 2023.", "2023-05-07"),
    ("We met on 7 May 2023.", "We met on 7 May 2023.", "2023-05-07"),
    ("It shipped on 2023-04-30.", "It shipped on 2023-04-30.", "2023-04-30"),
    ("We went there in May.", "We went there in May 2023.", "2023-05"),
    ("Since last week I feel better.", "Since the week of 2023-05-01 I feel better.",
     "2023-05-01"),
    ("I go running every Sunday.", "I go running every Sunday.", None),
    ("I may go.", "I may go.", None),
])
def test_resolve_dates(text: str, expected_text: str, when: str | None) -> None:
    assert resolve_dates(text, REF) == (expected_text, when)


@pytest.mark.parametrize("text,expected_text,when", [
    # A span the sentence looks forward by: a day of its own.
    ("I will be back in a week.", "I will be back around 2023-05-15.", "2023-05-15"),
    ("My exam is in two weeks.", "My exam is around 2023-05-22.", "2023-05-22"),
    ("I start the new job two weeks from now.", "I start the new job around 2023-05-22.", "2023-05-22"),
    # How long something takes: no day (it wrote "Rome wasn't built on 2023-05-09").
    ("Rome wasn't built in a day.", "Rome wasn't built in a day.", None),
    ("I can read a whole book in a day.", "I can read a whole book in a day.", None),
    ("We moved house in a day.", "We moved house in a day.", None),
    ("Two days later we drove home.", "Two days later we drove home.", None),
])
def test_a_span_is_a_date_only_when_it_looks_forward(text: str, expected_text: str, when: str | None) -> None:
    assert resolve_dates(text, REF) == (expected_text, when)


def test_dates_without_reference_keep_relative_words() -> None:
    assert resolve_dates("I went there yesterday.", None) == ("I went there yesterday.", None)
    assert resolve_dates("I went there in 2020.", None) == ("I went there in 2020.", "2020")
    assert resolve_dates("It was May 7, 2023.", date(2024, 1, 1)) == ("It was May 7, 2023.",
                                                                     "2023-05-07")


def test_fact_when_defaults_to_statement_date() -> None:
    facts = extract_offline(chat(("Caroline", "I went to a LGBTQ support group yesterday."),
                                 ("Melanie", "I love painting sunrises over the lake.")))
    assert facts[0].text == "Caroline went to a LGBTQ support group on 2023-05-07."
    assert facts[0].when == "2023-05-07"
    assert facts[1].when == "2023-05-08"
    undated = extract_offline(chat(("Melanie", "I love painting sunrises over the lake."),
                                   when=None))
    assert undated[0].when is None


# --- classification ------------------------------------------------------------------

@pytest.mark.parametrize(("text", "kwargs", "expected"), [
    ("Caroline loves painting sunrises.", {}, ("profile", "preferences")),
    ("Caroline's husband is a firefighter.", {}, ("profile", "relationships")),
    ("Caroline wants to become a counselor.", {}, ("profile", "goals")),
    ("Caroline works as a nurse at the hospital.", {}, ("profile", "work")),
    ("Caroline went to a support group on 2023-05-07.", {"dated": True}, ("event", "events")),
    ("Caroline visited her grandma.", {}, ("event", "events")),
    ("Caroline usually goes running every morning.", {}, ("behavior", "habits")),
    ("Caroline runs `git rebase -i` to clean up commits.", {}, ("tool", "tools")),
    ("The home server is a Synology NAS.", {"kind": "document"}, ("knowledge", None)),
    ("Run make install on the NAS.", {"kind": "document"}, ("skill", "procedures")),
    ("Copy the config file.", {"kind": "document", "ordered": True, "list_item": True},
     ("skill", "procedures")),
    ("Use restic for backups.", {"kind": "document"}, ("tool", "tools")),
    ("The author usually checks backups on Sundays.", {"kind": "document", "personal": True},
     ("behavior", "habits")),
])
def test_classify(text: str, kwargs: dict, expected: tuple[str, str | None]) -> None:
    kwargs = {"kind": "conversation", "names": ("Caroline",), **kwargs}
    assert classify(text, **kwargs) == expected


# --- the glue ------------------------------------------------------------------------

def test_locomo_like_session() -> None:
    src = chat(
        ("Caroline", "Hey Mel! Good to see you! How have you been?"),
        ("Melanie", "Hey Caroline! Good to see you! I'm swamped with the kids & work. "
                    "What's up with you? Anything new?"),
        ("Caroline", "I went to a LGBTQ support group yesterday and it was so powerful."),
        ("Melanie", "Yeah, I painted that lake sunrise last year! It's special to me."),
    )
    facts = extract_offline(src)
    assert [(f.anchor, f.text, f.type, f.when) for f in facts] == [
        ("D1:2", "Melanie is swamped with the kids & work.", "profile", "2023-05-08"),
        ("D1:3", "Caroline went to a LGBTQ support group on 2023-05-07 and it was so powerful.",
         "event", "2023-05-07"),
        ("D1:4", "Melanie painted that lake sunrise in 2022.", "event", "2022"),
        # "It" is the one thing the sentence before names: a line of its own (``antecedent``)
        ("D1:4", "The lake sunrise is special to Melanie.", "profile", "2023-05-08"),
    ]
    assert [f.speaker for f in facts] == ["Melanie", "Caroline", "Melanie", "Melanie"]


def test_what_one_says_of_the_listener_is_their_view_and_echoes_are_dropped() -> None:
    src = chat(
        ("Caroline", "I opened my store last week."),
        ("Melanie", "Wow! You found the perfect spot for your store. You're a great businesswoman."),
        ("Caroline", "Your support means a lot, I'm opening a second shop in May."),
    )
    texts = [f.text for f in extract_offline(src)]
    assert texts == ["Caroline opened their store in the week of 2023-05-01.",
                     "Melanie thinks Caroline is a great businesswoman.",
                     "Caroline is opening a second shop in May 2023."]


def test_provenance_dedupe_and_determinism() -> None:
    src = chat(("Caroline", "I adopted a dog named Max."), ("Melanie", "Nice!"),
               ("Caroline", "I adopted a dog named Max!"), ("Caroline", "I love hiking a lot."))
    first = extract_offline(src)
    assert [(f.anchor, f.text) for f in first] == [
        ("D1:1", "Caroline adopted a dog named Max."), ("D1:4", "Caroline loves hiking a lot.")]
    assert extract_offline(src) == first
    assert extract_offline(src.model_copy(deep=True)) == first


def test_long_sentence_is_trimmed_on_a_word_boundary() -> None:
    text = "I went to the market and bought " + ", ".join(["apples and pears"] * 40) + "."
    [fact] = extract_offline(chat(("Caroline", text)))
    assert len(fact.text) <= MAX_FACT_CHARS
    assert fact.text.endswith("\u2026")
    assert fact.text.startswith("Caroline went to the market")


def test_document_sections() -> None:
    text = ("To install, run:\n\nmake install\n\nRun make test before every release.\n\n"
            "1. Clone the repository.\n2. Copy config.example.toml to config.toml.\n\n"
            "- Python 3.11 or newer\n\nTool | Use\nrestic | backups\n\n"
            "I moved the NAS to the basement last month.")
    facts = extract_offline(doc(text, heading="Server", when=datetime(2024, 2, 1)))
    assert [(f.text, f.type) for f in facts] == [
        ("Server: To install, run: `make install`", "skill"),
        ("Run make test before every release.", "skill"),
        ("Server: Clone the repository.", "skill"),
        ("Server: Copy config.example.toml to config.toml.", "skill"),
        ("Server: Python 3.11 or newer.", "knowledge"),
        ("Server: Tool: restic; Use: backups.", "knowledge"),
        ("The author moved the NAS to the basement in January 2024.", "event"),
    ]
    assert {f.anchor for f in facts} == {"setup/install"}
    # Under a procedural heading, list items are steps.
    [fact] = extract_offline(doc("- Python 3.11 or newer", heading="Installation"))
    assert (fact.text, fact.type) == ("Installation: Python 3.11 or newer.", "skill")


def test_document_markdown_fences_and_headings() -> None:
    text = "## Deploy\nTo deploy, run:\n```\n./deploy.sh --prod\n```\nIt takes two minutes."
    facts = extract_offline(doc(text))
    assert [(f.text, f.type) for f in facts] == [
        ("To deploy, run: `./deploy.sh --prod`", "skill"),
        ("Deploy: It takes two minutes.", "knowledge")]


# --- properties ----------------------------------------------------------------------

_words = st.sampled_from(["I", "my", "we", "you", "went", "love", "yesterday", "last",
                          "week", "Dr.", "e.g.", "?", "!", ".", "Mel", "kids", "May", "7",
                          "2023", "-", "`git`", "\n", "- ", "1. ", "|", "```", "…", "🙂"])
_texts = st.one_of(
    st.text(max_size=400),
    st.lists(_words, max_size=80).map(" ".join),
    st.builds(lambda w, n: (w + " ") * n, st.sampled_from(["word", "I love it.", "a.b."]),
              st.integers(min_value=0, max_value=400)),
)
_speakers = st.sampled_from([None, "", "user", "assistant", "Caroline", "Melanie", "Jon"])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(_speakers, _texts), max_size=4),
       st.sampled_from(["conversation", "document"]),
       st.one_of(st.none(), st.datetimes(min_value=datetime(1901, 1, 1),
                                         max_value=datetime(2098, 12, 31))))
def test_never_raises_and_facts_are_valid(turns, kind, when) -> None:
    segs = [Segment(anchor=f"a{i}", speaker=spk, text=text, time=when, heading="Notes")
            for i, (spk, text) in enumerate(turns)]
    src = ParsedSource(kind=kind, format="test", participants=["Caroline", "Melanie"],
                       segments=segs)
    ctx = _Context.of(src)
    # The per-segment path, without extract_offline's safety net, must not raise.
    raw = [f for seg in segs for f in _segment_facts(seg, ctx)]
    facts = extract_offline(src)
    assert len(facts) <= len(raw)
    anchors = {s.anchor for s in segs}
    for f in facts:
        assert isinstance(f, Fact)
        assert f.text.strip()
        assert f.type in TYPES
        assert len(f.text) <= MAX_FACT_CHARS
        assert f.anchor in anchors
        assert f.when is None or len(f.when) in (4, 7, 10)


@pytest.mark.parametrize("kind", ["conversation", "document"])
def test_very_long_and_empty_segments(kind: str) -> None:
    long_text = "I love it. Dr. Smith went home yesterday! " * 700 + "x" * 5000
    segs = [Segment(anchor="a", text=long_text, speaker="Caroline", time=REF),
            Segment(anchor="b", text="", speaker="Caroline"),
            Segment(anchor="c", text=" \n\t ", speaker=None)]
    src = ParsedSource(kind=kind, format="test", segments=segs)
    start = time.perf_counter()
    facts = extract_offline(src)
    assert time.perf_counter() - start < 2.0
    assert facts and all(f.anchor == "a" and len(f.text) <= MAX_FACT_CHARS for f in facts)


def test_a_fact_that_names_nobody_keeps_its_speaker() -> None:
    src = ParsedSource(kind="conversation", format="memfs.conversation/1", time=REF,
                       participants=["Melanie", "Caroline"], segments=[
        Segment(anchor="D1:1", speaker="Melanie", text="That roadtrip to the canyon was insane, honestly."),
        Segment(anchor="D1:2", speaker="Caroline", text="I painted a lake sunrise for my friend Melanie."),
    ])
    texts = [f.text for f in extract_offline(src)]
    assert texts[0].startswith("Melanie: ") and "roadtrip to the canyon" in texts[0]
    assert not texts[1].startswith("Caroline: ")  # it already names its people
