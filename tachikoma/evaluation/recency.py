"""The two properties recency exists for, measured on memories built for the purpose.

LoCoMo asks about a year of conversation where the answer is as likely to be
old as new, so it can only show what recency costs. These two sets show
what it is for:

* **knowledge updates**: two memories state a fact and, later, its
  replacement ("Priya lives in Lisbon" … "Priya moved to Oslo"); asked
  about it, the newer must rank above the older.
* **old exact match**: the only memory that answers a question is old, and
  a few fresh memories share words with it without answering; the old one
  must be the top result.

Cases are generated from templates with varied vocabulary and phrasing (a
fixed seed, so every run builds the same memory). Ages run from 1 to 400
days. Every case's memories go into one memory folder, and each question
competes only with its own memories (the others are left out of its
ranking; keyword statistics come from the whole folder). A memory is dated the way real ones are,
chosen at random per memory: front matter ``date`` or ``updated``, a
``YYYY-MM-DD`` folder or file name, a transcript's turn timestamps, or the
file's modification time. The folder is indexed by the normal indexer and
each question asked through the normal search, "now" fixed, once per
recency preset.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import tempfile
import time
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

from ..indexer import runner
from ..config import RECENCY_PRESETS, Config
from ..embedders import choose, offline_default
from ..search.keywords import keyword_scores, keyword_search, words_held
from ..search.scoring import rank_snapshot
from ..search.searcher import Searcher
from .cached_queries import CachedQueries

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)
CASES = 240
TARGET = 0.95
SEED = 8
#: How many results a question looks at (both memories of an update must be among them to compare).
DEPTH = 20

NAMES = """Priya Jonas Martin Aiko Tomasz Lena Omar Sofia Ravi Ingrid Mateo Chloe Kwame Yuki Dmitri Amara Felix
Nadia Bruno Leila Hugo Mei Anders Zara Pablo Elif Tariq Greta Kenji Ines Samir Olga Diego Hana Lukas Noor Emil
Rosa Viktor Asha Malik Freya Idris Lucia Arjun Sven Camila Tobias Yara Nikolai Esme Rafael Dalia Henrik Mira
Quentin Beatriz Kofi Astrid Farid Marta Jakob Selin Pedro Alma Ilya Noemi Bastian Rania Oskar Talia""".split()
CITIES = """Lisbon Oslo Porto Krakow Valencia Tallinn Ghent Lyon Turin Leipzig Bergen Seville Graz Utrecht Bilbao
Gdansk Bologna Aarhus Malmo Toulouse Nantes Geneva Basel Riga Vilnius Ljubljana Zagreb Brno Salzburg Cork""".split()
TOOLS = """Jira Linear YouTrack Trello Asana GitHub-Issues Redmine Shortcut ClickUp Notion Basecamp Plane""".split()
VENDORS = """Misumi McMaster Digikey Mouser RS-Components Farnell Adafruit Pimoroni Reichelt LCSC Arrow
Conrad""".split()
PARTS = """M5-brackets linear-rails stepper-drivers gate-drivers shaft-couplers aluminium-extrusions heat-sinks
timing-belts limit-switches power-connectors bearings spur-gears encoder-discs PTFE-washers""".split()
DAYS = "Monday Tuesday Wednesday Thursday Friday".split()
TIMES = "8:30 9:00 9:15 10:00 10:30 11:00 13:30 14:00 15:00 16:30".split()
DRINKS = """green-tea espresso oat-latte black-coffee chai rooibos matcha cortado hot-chocolate
yerba-mate""".split()
COMPANIES = """Northwind Acme Globex Initech Umbrella Hooli Vandelay Stark Wayne Tyrell Cyberdyne Soylent Wonka
Aperture""".split()
ROLES = """data-engineer product-manager firmware-developer designer site-reliability-engineer
QA-lead technical-writer researcher""".split()
PROJECTS = """Falcon Harbor Juniper Atlas Comet Orchid Pelican Quarry Sextant Tundra Willow Zephyr Beacon
Cobalt Driftwood Ember Granite Heron Indigo Kestrel Lantern Meridian Nimbus Osprey Prism Quill Riverbend Saffron
Thistle Umber Vireo Wren Yarrow Aurora Bramble Cinder Dune Fjord Glacier Hollow""".split()
DATABASES = ["PostgreSQL 13", "PostgreSQL 15", "PostgreSQL 16", "MySQL 8.0", "MariaDB 10.11", "SQLite 3.45"]
MONTHS = "January February March April May June July August September October November December".split()
MAX_CASES = 320  # each subject meets each template once at most (see `build`)
HOSTS = """Hetzner Fly.io Render Heroku DigitalOcean Linode Vultr OVH Scaleway Railway""".split()


def _words(token: str) -> str:
    return token.replace("-", " ")


@dataclass
class Memory:
    key: str  # unique within the set, also the file name stem
    text: str
    age_days: float


@dataclass
class Case:
    kind: str  # "update" | "exact"
    query: str
    target: str  # key of the memory that must win
    other: list[str]  # update: the stale memory; exact: the fresh distractors
    memories: list[Memory]


# --------------------------------------------------------------------- generation

UPDATE_KINDS, EXACT_KINDS = 10, 8


def _update_templates(rng: random.Random, choice: int, person: str, thing: str):
    """(old statement, new statement, query) for one fact of `person` or project `thing` that changed.

    The newer statement restates the fact in its own words (the two are comparably relevant, as
    an update usually is); whether it names the old value too varies.
    """
    a, b = rng.sample(range(1000), 2)
    pick = lambda pool: [_words(x) for x in rng.sample(pool, 2)]  # noqa: E731 (a one-line closure handed on)
    if choice == 0:
        c1, c2 = pick(CITIES)
        return (rng.choice([f"{person} lives in {c1}.", f"{person} lives in {c1} and likes the old town."]),
                rng.choice([f"{person} lives in {c2} now.", f"{person} moved from {c1}; {person} lives in {c2}.",
                            f"Update: {person} now lives in {c2}."]),
                rng.choice([f"Where does {person} live?", f"which city does {person} live in",
                            f"{person} lives where"]))
    if choice == 1:
        t1, t2 = pick(TOOLS)
        return (f"The {thing} team tracks its bugs in {t1}.",
                rng.choice([f"The {thing} team tracks its bugs in {t2} now.",
                            f"{thing} switched bug tracking from {t1} to {t2}; bugs are tracked in {t2}."]),
                rng.choice([f"Where does the {thing} team track bugs?", f"{thing} bug tracker",
                            f"which tool tracks {thing} bugs"]))
    if choice == 2:
        return (f"{person}'s phone number is +44 7700 {a:03d}{b:03d}.",
                rng.choice([f"{person}'s phone number is now +44 7700 {b:03d}{a:03d}.",
                            f"{person} has a new phone number: +44 7700 {b:03d}{a:03d}."]),
                rng.choice([f"What is {person}'s phone number?", f"{person} phone number",
                            f"phone number for {person}"]))
    if choice == 3:
        d1, d2 = rng.sample(DAYS, 2)
        t1, t2 = rng.sample(TIMES, 2)
        return (f"The {thing} stand-up is every {d1} at {t1}.",
                rng.choice([f"The {thing} stand-up is every {d2} at {t2} from now on.",
                            f"The {thing} stand-up moved to {d2} at {t2}."]),
                rng.choice([f"When is the {thing} stand-up?", f"{thing} stand-up day and time",
                            f"what time is the {thing} stand-up"]))
    if choice == 4:
        v1, v2 = pick(VENDORS)
        part = _words(rng.choice(PARTS))
        return (f"We order {part} for {thing} from {v1}.",
                rng.choice([f"We order {part} for {thing} from {v2} now.",
                            f"Changed supplier: {part} for {thing} are ordered from {v2}, no longer {v1}."]),
                rng.choice([f"Where do we order {part} for {thing}?", f"{thing} {part} supplier",
                            f"who do we order {thing} {part} from"]))
    if choice == 5:
        c1, c2 = pick(COMPANIES)
        r1, r2 = pick(ROLES)
        return (f"{person} works at {c1} as a {r1}.",
                rng.choice([f"{person} works at {c2} now, as a {r2}.",
                            f"{person} left {c1}; {person} works at {c2} as a {r2}."]),
                rng.choice([f"Where does {person} work?", f"{person} works at which company",
                            f"{person} employer and job"]))
    if choice == 6:
        d1, d2 = rng.sample(DATABASES, 2)
        return (f"The {thing} staging database runs {d1}.",
                rng.choice([f"The {thing} staging database runs {d2} since the upgrade.",
                            f"Upgraded the {thing} staging database from {d1}; it runs {d2}."]),
                rng.choice([f"Which database does {thing} staging run?", f"{thing} staging database version",
                            f"what database runs {thing} staging"]))
    if choice == 7:
        k1, k2 = pick(DRINKS)
        return (f"{person} drinks {k1} every morning.",
                rng.choice([f"{person} drinks {k2} every morning these days.",
                            f"{person} switched from {k1}: {person} drinks {k2} in the morning."]),
                rng.choice([f"What does {person} drink in the morning?", f"{person} morning drink",
                            f"which drink does {person} have every morning"]))
    if choice == 8:
        m1, m2 = rng.sample(MONTHS, 2)
        return (f"The {thing} launch is planned for {m1}.",
                rng.choice([f"The {thing} launch is planned for {m2} now.",
                            f"The {thing} launch moved from {m1}; it is planned for {m2}."]),
                rng.choice([f"When is the {thing} launch planned?", f"{thing} launch date",
                            f"which month is the {thing} launch"]))
    h1, h2 = pick(HOSTS)
    return (f"The {thing} API is hosted on {h1}.",
            rng.choice([f"The {thing} API is hosted on {h2} now.",
                        f"We migrated the {thing} API from {h1}; it is hosted on {h2}."]),
            rng.choice([f"Where is the {thing} API hosted?", f"{thing} API hosting", f"which host runs the {thing} API"]))


def _exact_templates(rng: random.Random, choice: int, person: str, thing: str):
    """(the old answer, fresh statements sharing words without answering, query)."""
    code = f"{rng.choice('ABCDEFGHKMNPRSTX')}{rng.choice('ABCDEFGHKMNPRSTX')}-{rng.randrange(1000, 9999)}"
    if choice == 0:
        vendor, part = _words(rng.choice(VENDORS)), _words(rng.choice(PARTS))
        return (f"We buy the {part} for {thing} from {vendor}, order code {code}.",
                [f"The {thing} prototype passed the drop test.", f"{person} is reviewing the {thing} budget.",
                 f"{person} cleaned the {thing} workbench."],
                rng.choice([f"Where do we buy the {part} for {thing}?", f"{thing} {part} vendor and order code",
                            f"who supplies {thing} {part}"]))
    if choice == 1:
        city = rng.choice(CITIES)
        return (f"{person} was born in {city} and grew up near the harbour.",
                [f"{person} sent photos from the weekend.", f"{person} is travelling again next week.",
                 f"Call {person} about the invoice."],
                rng.choice([f"Where was {person} born?", f"{person} was born where", f"town where {person} was born"]))
    if choice == 2:
        return (f"The wifi password for the {thing} lab is {code.lower()}-{rng.randrange(10, 99)}.",
                [f"The {thing} printer is out of toner.", f"Booked the {thing} lab for Thursday.",
                 f"The {thing} door sticks again."],
                rng.choice([f"What is the {thing} lab wifi password?", f"{thing} lab wifi",
                            f"password for the network in the {thing} lab"]))
    if choice == 3:
        allergy = rng.choice(["peanuts", "shellfish", "penicillin", "cats", "pollen", "latex", "sesame"])
        return (f"{person} is allergic to {allergy}; keep it away from {person}.",
                [f"Team lunch with {person} went well.", f"{person} will organise the next team lunch.",
                 f"{person} liked the new lunch place."],
                rng.choice([f"What is {person} allergic to?", f"{person} is allergic to what",
                            f"things {person} is allergic to"]))
    if choice == 4:
        month, year = rng.choice(MONTHS), rng.choice([2019, 2020, 2021, 2022])
        return (f"We chose {_words(rng.choice(TOOLS))} as the {thing} tracker in {month} {year} because it works "
                "offline.",
                [f"{thing} planning meeting notes are in the shared folder, next to the budget.",
                 f"Need to revisit the {thing} roadmap before the offsite in spring.",
                 f"{person} will demo {thing} on Friday to the sales team."],
                rng.choice([f"Why did we choose the {thing} tracker?", f"reason we chose the {thing} tracker",
                            f"{thing} tracker: why was it chosen"]))
    if choice == 5:
        size = rng.choice(["38", "40", "42", "44", "M", "L", "XL"])
        return (f"{person} wears shoe size {size} and prefers {rng.choice(['running', 'hiking', 'leather'])} shoes.",
                [f"{person} bought new hiking boots for the trip to the coast.",
                 f"{person} walked 20 km on Sunday along the river.",
                 f"Remember {person}'s birthday next month; maybe a book."],
                rng.choice([f"What shoe size does {person} wear?", f"{person} shoe size",
                            f"which shoe size for {person}"]))
    if choice == 6:
        port = rng.randrange(2000, 9999)
        return (f"The {thing} metrics server listens on port {port} behind the VPN.",
                [f"The {thing} dashboard looked odd this morning.",
                 f"Restarted the {thing} build after the update.", f"{person} is on call for {thing} this week."],
                rng.choice([f"Which port does the {thing} metrics server listen on?", f"{thing} metrics server port",
                            f"port of the {thing} metrics server"]))
    anniversary = f"{rng.randrange(1, 28)} {rng.choice(MONTHS)}"
    return (f"{person} and their partner celebrate their anniversary on {anniversary}.",
            [f"{person} fixed the flaky login test before lunch.",
             f"{person}'s partner joined the team dinner on Friday.",
             f"Ask {person} about the holiday plans for August."],
            rng.choice([f"When is {person}'s anniversary?", f"{person} anniversary date",
                        f"what date is the anniversary of {person} and their partner"]))


def build(n: int = CASES, seed: int = SEED) -> tuple[list[Case], list[Case]]:
    """`n` knowledge-update cases and `n` old-exact-match cases, the same for the same seed."""
    rng = random.Random(seed)

    def subjects(kinds: int) -> list[tuple[int, str, str]]:
        """(template, person, project) per case: no person or project meets the same template twice."""
        per_kind = -(-n // kinds)
        if per_kind > min(len(NAMES), len(PROJECTS)):
            raise ValueError(f"at most {kinds * min(len(NAMES), len(PROJECTS))} cases per set")
        drawn = [list(zip(rng.sample(NAMES, per_kind), rng.sample(PROJECTS, per_kind))) for _ in range(kinds)]
        return [(i % kinds, *drawn[i % kinds][i // kinds]) for i in range(n)]

    updates, exact = [], []
    for i, (choice, person, thing) in enumerate(subjects(UPDATE_KINDS)):
        old_text, new_text, query = _update_templates(rng, choice, person, thing)
        new_age = rng.uniform(1, 370)
        old_age = rng.uniform(new_age + 30, 400)  # replaced at least a month later
        updates.append(Case("update", query, f"u{i}-new", [f"u{i}-old"],
                            [Memory(f"u{i}-old", old_text, old_age), Memory(f"u{i}-new", new_text, new_age)]))
    for i, (choice, person, thing) in enumerate(subjects(EXACT_KINDS)):
        answer, fresh, query = _exact_templates(rng, choice, person, thing)
        old_age = rng.uniform(60, 400)
        distractors = [Memory(f"x{i}-fresh{j}", text, rng.uniform(1, 14)) for j, text in enumerate(fresh)]
        exact.append(Case("exact", query, f"x{i}-old", [m.key for m in distractors],
                          [Memory(f"x{i}-old", answer, old_age), *distractors]))
    return updates, exact


# --------------------------------------------------------------------- the memory folder

DATE_WAYS = ("frontmatter-date", "frontmatter-updated", "path-folder", "path-file", "transcript", "mtime")


def write_memory(cases: list[Case], root: Path, now: datetime = NOW, seed: int = SEED) -> dict[str, str]:
    """Write every case's memories under `root`, each dated one of `DATE_WAYS`; key → relative path.

    Rewriting the same cases leaves unchanged files as they are (so their index is reused)."""
    rng = random.Random(seed + 1)
    root.mkdir(parents=True, exist_ok=True)
    where: dict[str, str] = {}
    wanted: set[str] = set()
    for case in cases:
        for m in case.memories:
            when = now - timedelta(days=m.age_days)
            day = when.strftime("%Y-%m-%d")
            way = rng.choice(DATE_WAYS)
            stamp = when.strftime("%Y-%m-%dT%H:%M:%SZ")
            if way == "transcript":
                rel = f"sessions/{m.key}.jsonl"
                lines = [{"role": "user", "content": m.text, "timestamp": stamp},
                         {"role": "assistant", "content": "Noted.", "timestamp": stamp}]
                content = "".join(json.dumps(line) + "\n" for line in lines)
            elif way.startswith("frontmatter"):
                rel = f"notes/{m.key}.md"
                content = f"---\n{way.split('-')[1]}: {stamp}\n---\n{m.text}\n"
            elif way == "path-folder":
                rel = f"daily/{day}/{m.key}.md"
                content = f"{m.text}\n"
            elif way == "path-file":
                rel = f"journal/{day}-{m.key}.md"
                content = f"{m.text}\n"
            else:
                rel = f"inbox/{m.key}.md"
                content = f"{m.text}\n"
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if not path.exists() or path.read_text(encoding="utf-8") != content:
                path.write_text(content, encoding="utf-8")
            seconds = when.timestamp()
            os.utime(path, (seconds, seconds))  # for "mtime"; the other ways are dated before mtime counts
            where[m.key] = rel
            wanted.add(rel)
    for stale in list(root.rglob("*")):
        if stale.is_file() and ".cache" not in stale.parts and stale.relative_to(root).as_posix() not in wanted:
            stale.unlink()
    return where


# --------------------------------------------------------------------- measuring

def passed(case: Case, ranked: list[str], where: dict[str, str]) -> bool:
    """Update: the newer memory ranks above the older (and is found). Exact: the old answer is first."""
    target = where[case.target]
    if case.kind == "exact":
        return bool(ranked) and ranked[0] == target
    stale = where[case.other[0]]
    return target in ranked and (stale not in ranked or ranked.index(target) < ranked.index(stale))


def ranked_paths(searcher: Searcher, case: Case, where: dict[str, str], config: Config) -> list[str]:
    """The case's own memories as the search ranks them for its question (best first).

    The normal ranking (`search.scoring.rank_snapshot`: fused similarity, tags,
    recency, per-file rule) over the whole index, with every other case's
    memories left out, so a case measures the competition it was built for;
    keyword statistics still come from the whole memory.
    """
    snap = searcher.snapshot()
    own = {where[m.key] for m in case.memories}
    exclude = np.array([p not in own for p in snap.paths], dtype=bool)
    qvec = np.asarray(searcher.embedder.embed_query(case.query), dtype=np.float32)
    store = searcher.store
    keyword = keyword_scores(snap, keyword_search(store, case.query, len(snap.chunk_ids),
                                                  config.search.keyword_candidates))
    answer = rank_snapshot(snap, qvec, DEPTH, config, now=NOW, keyword=keyword, exclude=exclude,
                           words=lambda ids: words_held(store, case.query, ids))
    return list(dict.fromkeys(str(snap.paths[snap.chunk_file[p]]) for p in answer["positions"]))


def measure(embedder_name: str | None = None, base: Config | None = None, work: Path | None = None,
            n: int = CASES, presets: tuple[str, ...] = tuple(RECENCY_PRESETS), progress=None,
            seed: int = SEED) -> dict:
    """Both sets under each recency preset: {"sets": {set: {preset: {"passed", "cases", "rate"}}}, ...}.

    `seed` draws other cases from the same templates (the default rule was set with `SEED`)."""
    started = time.perf_counter()
    base = base or Config()
    base = replace(base, search=replace(base.search, min_score=0.0))
    updates, exact = build(n, seed)
    scratch = None
    if work is None:
        scratch = Path(tempfile.mkdtemp(prefix="tachikoma-recency-"))
        work = scratch
    # each question is asked once per preset
    embedder = CachedQueries(choose(embedder_name or offline_default(), None))
    root = Path(work) / re.sub(r"[^A-Za-z0-9._-]+", "_", f"recency-{embedder.name}-{n}-{seed}")
    try:
        where = write_memory(updates + exact, root, seed=seed)
        summary = runner.run(root, base, embedder=embedder)
        searcher = Searcher(root, base, embedder=embedder)
        sets: dict = {"knowledge_updates": {}, "old_exact_match": {}}
        failures: dict = {}
        try:
            for preset in presets:
                config = replace(base, ranking=base.ranking.with_recency(preset))
                for name, cases in (("knowledge_updates", updates), ("old_exact_match", exact)):
                    ok = 0
                    for case in cases:
                        ranked = ranked_paths(searcher, case, where, config)
                        if passed(case, ranked, where):
                            ok += 1
                        elif preset == "default":
                            failures.setdefault(name, []).append(
                                {"query": case.query, "want": where[case.target], "got": ranked[:3]})
                        if progress:
                            progress()
                    sets[name][preset] = {"passed": ok, "cases": len(cases), "rate": ok / len(cases)}
        finally:
            searcher.close()
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    return {"sets": sets, "target": TARGET, "cases": n, "seed": seed, "embedder": embedder.name,
            "now": NOW.isoformat(),
            "memories": summary.files, "seconds": round(time.perf_counter() - started, 1),
            "failures_default": failures}


def table(result: dict) -> str:
    """A markdown table: pass rate per set (rows) and recency preset (columns)."""
    presets = list(next(iter(result["sets"].values())))
    lines = ["| set | " + " | ".join(presets) + " |", "|---|" + "---|" * len(presets)]
    titles = {"knowledge_updates": "knowledge updates (newer above older)",
              "old_exact_match": "old exact match (old answer first)"}
    for name, by_preset in result["sets"].items():
        cells = [f"{v['rate']:.3f} ({v['passed']}/{v['cases']})" for v in by_preset.values()]
        lines.append(f"| {titles[name]} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
