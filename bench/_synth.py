"""Deterministic synthetic memory for bench/perf.py: fact-like sentences, category files, queries.

Everything comes from a seeded `random.Random`, so the same seed and size give the same
bytes on every machine. Items are rendered with memfs' own `render_item_line`, so the files
are exactly what memfs itself would write (~10 items per file by default).
"""

from __future__ import annotations

import hashlib
import os
import random
from pathlib import Path

from memfs.core.itemline import render_item_line
from memfs.core.model import Item

NAMES = (
    "Caroline Melanie Jon Gina Audrey Andrew James John Maria Joanna Nate Tim Deborah Jolene Evan Sam "
    "Calvin Dave Priya Arjun Mei Wei Hiroshi Yuki Olga Ivan Fatima Omar Lucia Mateo Sofia Liam Emma Noah "
    "Ava Ethan Mia Lucas Chloe Daniel Grace Henry Zoe Oscar Ruby Felix Nora Hugo Ines Tomas Leila Rafael"
).split()
RELATIONS = ("sister", "brother", "mother", "father", "cousin", "best friend", "colleague", "neighbour",
             "partner", "daughter", "son", "grandmother", "manager", "roommate", "mentor")
PLACES = (
    "Boston", "Lisbon", "Kyoto", "Nairobi", "Lake Tahoe", "Yosemite", "the Louvre", "Central Park",
    "Barcelona", "Reykjavik", "Banff", "the Grand Canyon", "Seoul", "Cape Town", "Vancouver", "Prague",
    "the public library", "the community center", "the farmers market", "Zion National Park", "Dublin",
    "Mexico City", "Hanoi", "Marrakesh", "Edinburgh", "the Alps", "Portland", "Austin", "Melbourne",
    "Buenos Aires", "the art museum", "the animal shelter", "Venice", "Oslo", "Santorini", "Chicago",
    "the climbing gym", "the pottery studio", "Montreal", "the beach house", "Sedona", "Amsterdam",
)
ACTIVITIES = (  # (past tense phrase, bare phrase)
    ("went hiking", "hiking"), ("painted a sunrise", "painting"), ("ran a half marathon", "running"),
    ("went camping with the kids", "camping"), ("took a pottery class", "pottery"),
    ("volunteered at a charity drive", "volunteering"), ("played a violin concert", "violin"),
    ("baked sourdough bread", "baking"), ("went kayaking", "kayaking"), ("adopted a rescue dog", "dogs"),
    ("started learning Japanese", "languages"), ("attended an LGBTQ support group", "support groups"),
    ("went to a jazz festival", "jazz"), ("planted a vegetable garden", "gardening"),
    ("finished reading a fantasy novel", "reading"), ("joined a chess club", "chess"),
    ("went birdwatching", "birdwatching"), ("cooked a Thai curry for friends", "cooking"),
    ("visited an old friend", "friends"), ("gave a talk about climate policy", "public speaking"),
    ("went scuba diving", "diving"), ("built a treehouse", "woodworking"), ("went skiing", "skiing"),
    ("learned to surf", "surfing"), ("recorded a podcast episode", "podcasts"),
    ("photographed the northern lights", "photography"), ("went to a yoga retreat", "yoga"),
    ("repaired an old bicycle", "cycling"), ("wrote a short story", "writing"),
    ("watched a theatre play", "theatre"), ("organised a book club meeting", "book clubs"),
    ("went on a road trip", "road trips"), ("sang in a choir concert", "singing"),
)
LIKES = ("green tea", "black coffee", "spicy food", "classical music", "science fiction", "dark chocolate",
         "mountain sunsets", "vintage records", "board games", "long walks", "indie films", "Italian food",
         "hot springs", "crossword puzzles", "early mornings", "thunderstorms", "street food", "poetry")
JOBS = ("nurse", "software engineer", "teacher", "counselor", "chef", "architect", "photographer",
        "data analyst", "carpenter", "veterinarian", "librarian", "graphic designer", "pilot", "lawyer")
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
PROJECTS = ("Atlas", "Beacon", "Cobalt", "Delta", "Ember", "Falcon", "Granite", "Harbor", "Iris", "Juniper",
            "Kestrel", "Lumen", "Meridian", "Nimbus", "Orion", "Pioneer", "Quartz", "Raven")
TECH = ("PostgreSQL", "Redis", "Kafka", "SQLite", "Kubernetes", "nginx", "S3", "Elasticsearch", "RabbitMQ",
        "Terraform", "gRPC", "GraphQL", "DuckDB", "Prometheus")
PURPOSES = ("caching", "billing", "search", "authentication", "event streaming", "backups", "metrics",
            "job scheduling", "image storage", "analytics", "rate limiting", "audit logs")
TASKS = (("deploy the web app", "make deploy"), ("rotate the TLS certificates", "certbot renew"),
         ("restore a backup", "pg_restore -d app latest.dump"), ("run the test suite", "pytest -q"),
         ("clear the cache", "redis-cli FLUSHDB"), ("rebuild the search index", "memfs sync --rebuild"),
         ("tag a release", "git tag -s vX.Y.Z"), ("profile a slow query", "EXPLAIN ANALYZE"),
         ("check disk usage", "du -sh *"), ("update dependencies", "pip install -U -r requirements.txt"))

#: (kind, category stem, memory type) and how often a file of that category appears.
CATEGORIES = (
    ("memory", "events", "event", 30), ("memory", "preferences", "profile", 14),
    ("memory", "profile", "profile", 12), ("memory", "relationships", "profile", 10),
    ("memory", "habits", "behavior", 8), ("memory", "goals", "profile", 6),
    ("index", "knowledge", "knowledge", 14), ("skill", "procedures", "skill", 4), ("skill", "tools", "tool", 2),
)


def _date(rng: random.Random) -> str:
    return f"{rng.randint(2018, 2024)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


def fact(rng: random.Random, category: str) -> tuple[str, str | None]:
    """One fact-like sentence for a category, and its date (if it has one)."""
    n1, n2 = rng.sample(NAMES, 2)
    place = rng.choice(PLACES)
    past, bare = rng.choice(ACTIVITIES)
    rel = rng.choice(RELATIONS)
    if category == "events":
        when = _date(rng)
        return rng.choice((
            f"On {when} {n1} {past} in {place} with {n1}'s {rel} {n2}.",
            f"{n1} {past} near {place} on {when}, and told {n2} it was the best day of the year.",
            f"On {when} {n1} and {n2} {past} in {place}.",
        )), when
    if category == "preferences":
        like, other = rng.sample(LIKES, 2)
        return rng.choice((
            f"{n1} loves {like}, especially after {bare} in {place}.",
            f"{n1} prefers {like} over {other} when visiting {place} with {n2}.",
            f"{n1} dislikes {other} but enjoys {bare} with {n1}'s {rel} {n2}.",
        )), None
    if category == "profile":
        return rng.choice((
            f"{n1} works as a {rng.choice(JOBS)} in {place} and has known {n2} since {rng.randint(1995, 2022)}.",
            f"{n1} was born in {place} in {rng.randint(1960, 2005)} and now lives near {rng.choice(PLACES)}.",
            f"{n1} is a {rng.choice(JOBS)} whose favourite hobby is {bare}.",
        )), None
    if category == "relationships":
        return rng.choice((
            f"{n2} is {n1}'s {rel}; they met in {place} in {rng.randint(1990, 2023)}.",
            f"{n1}'s {rel} {n2} often joins {n1} for {bare} in {place}.",
        )), None
    if category == "habits":
        return rng.choice((
            f"{n1} usually goes {bare} in {place} on {rng.choice(DAYS)} mornings.",
            f"Every {rng.choice(DAYS)} {n1} calls {n1}'s {rel} {n2} after {bare}.",
        )), None
    if category == "goals":
        return rng.choice((
            f"{n1} plans to try {bare} in {place} before {rng.randint(2024, 2030)}.",
            f"{n1} hopes to move to {place} with {n2} within {rng.randint(2, 9)} years.",
        )), None
    if category == "knowledge":
        p, t, u = rng.choice(PROJECTS), rng.choice(TECH), rng.choice(PURPOSES)
        return rng.choice((
            f"The {p} project uses {t} for {u}; {n1} is its owner since {rng.randint(2018, 2024)}.",
            f"{n1} moved {p}'s {u} from {t} to {rng.choice(TECH)} in {rng.randint(2019, 2024)}.",
            f"The {p} service keeps {u} data in {t} in the {place} region.",
        )), None
    task, cmd = rng.choice(TASKS)
    if category == "procedures":
        return f"To {task} for {rng.choice(PROJECTS)}, run `{cmd}` and ask {n1} to review the result.", None
    return f"{n1} uses `{cmd}` to {task} on the {rng.choice(PROJECTS)} servers.", None


def make_items(rng: random.Random, category: str, mtype: str, count: int, seen_texts: set[str],
               seen_ids: set[str], salt: str) -> list[Item]:
    items = []
    for k in range(count):
        for _attempt in range(50):
            text, when = fact(rng, category)
            if text not in seen_texts:
                break
        seen_texts.add(text)
        n = 0
        while True:
            item_id = hashlib.sha1(f"{salt}:{k}:{n}".encode()).hexdigest()[:8]
            if item_id not in seen_ids:
                break
            n += 1
        seen_ids.add(item_id)
        items.append(Item(id=item_id, text=text, type=mtype, when=when,  # type: ignore[arg-type]
                          src=f"resources/2024/01/chat-{rng.randint(1, 999):03d}.json#D{rng.randint(1, 40)}:"
                              f"{rng.randint(1, 30)}",
                          seen=rng.choice((1, 1, 1, 2, 3)), updated=None))
    return items


def render_file(kind: str, stem: str, items: list[Item]) -> str:
    title = stem.replace("-", " ").capitalize()
    head = f"---\ntitle: {title}\nkind: {kind}\ndescription: Synthetic {stem.split('-')[0]} for the benchmark.\n" \
           f"items: {len(items)}\n---\n# {title}\n\n"
    return head + "".join(render_item_line(it) + "\n" for it in items)


class Synth:
    """Writes category files into a workspace; remembers texts and ids so later files stay unique."""

    def __init__(self, seed: int = 1234) -> None:
        self.rng = random.Random(seed)
        self.texts: set[str] = set()
        self.ids: set[str] = set()
        self.files = 0
        weights = [c[3] for c in CATEGORIES]
        self._cats = CATEGORIES
        self._weights = weights

    def new_file(self, root: Path, items_per_file: int = 10) -> Path:
        kind, cat, mtype, _ = self.rng.choices(self._cats, weights=self._weights)[0]
        n = self.files
        self.files += 1
        stem = f"{cat}-{n:05d}"
        items = make_items(self.rng, cat, mtype, items_per_file, self.texts, self.ids, f"{stem}")
        path = root / kind / f"{stem}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render_file(kind, stem, items), encoding="utf-8")
        return path

    def populate(self, root: Path, files: int, items_per_file: int = 10) -> list[Path]:
        return [self.new_file(root, items_per_file) for _ in range(files)]


def edit_one_item(path: Path, rng: random.Random) -> None:
    """Change the text of one item in a file, as a person in an editor would (the id stays)."""
    lines = path.read_text(encoding="utf-8").split("\n")
    idx = [i for i, line in enumerate(lines) if line.startswith("- ") and "<!-- id=" in line]
    i = rng.choice(idx)
    text, sep, meta = lines[i].partition(" <!-- ")
    lines[i] = f"{text.rstrip('.')} (edited {rng.randint(0, 10**9)}).{sep}{meta}"
    path.write_text("\n".join(lines), encoding="utf-8")
    st = path.stat()  # make sure the mtime moves even on a coarse clock
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))


def queries(n: int, seed: int = 99) -> list[str]:
    """Questions an agent would ask, built from the same vocabulary (so most have answers)."""
    rng = random.Random(seed)
    out: list[str] = []
    forms = (
        lambda: f"What did {rng.choice(NAMES)} do in {rng.choice(PLACES)}?",
        lambda: f"When did {rng.choice(NAMES)} go {rng.choice(ACTIVITIES)[1]}?",
        lambda: f"Who is {rng.choice(NAMES)}'s {rng.choice(RELATIONS)}?",
        lambda: f"What does {rng.choice(NAMES)} like to drink?",
        lambda: f"Where does {rng.choice(NAMES)} work?",
        lambda: f"{rng.choice(ACTIVITIES)[1]} in {rng.choice(PLACES)}",
        lambda: f"Which database does the {rng.choice(PROJECTS)} project use for {rng.choice(PURPOSES)}?",
        lambda: f"How do I {rng.choice(TASKS)[0]}?",
        lambda: f"What are {rng.choice(NAMES)}'s plans for the future?",
        lambda: f"{rng.choice(NAMES)} and {rng.choice(NAMES)} {rng.choice(ACTIVITIES)[0]}",
    )
    while len(out) < n:
        out.append(rng.choice(forms)())
    return out
