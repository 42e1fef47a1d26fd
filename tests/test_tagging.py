import os
import subprocess
import sys
import textwrap
import threading
from datetime import date, datetime, timezone
from pathlib import Path

import pytest
from gitrepo import git

from tachikoma.reading import tagfile
from tachikoma.tagging import applying, journal, model, planning, recovery, writers
from tachikoma.reading.frontmatter import split
from tachikoma.memory import TAG_FILE
from tachikoma.reading.tagfile import TagFileError
from tachikoma.tagging.applying import apply, undo
from tachikoma.tagging.model import DEFAULTS, Selector
from tachikoma.tagging.planning import default_plan, plan
from tachikoma.reading.tags import InvalidTagValue

REPO_ROOT = Path(__file__).resolve().parents[1]


pytestmark = pytest.mark.usefixtures("isolated_git")
#: A transcript of one turn (a file that is "{}" would be a data file, not a transcript).
TURN = '{"role": "user", "content": "hi"}\n'


def put(root: Path, rel: str, data):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)


MARKDOWN = {
    "plain.md": "# Plain\n\nNo front matter.\n",
    "crlf.md": "---\r\ntitle: Windows\r\n---\r\n# CRLF body\r\nline two\r\n",
    "crlf-nofm.md": "# CRLF without front matter\r\nsecond\r\n",
    "no-newline.md": "# No trailing newline",
    "bom.md": "\ufeff# BOM note\nbody\n",
    "bom-fm.md": "\ufeff---\ntitle: bom\n---\nbody\n",
    "unicode/ünï 日本.md": "---\n# a comment kept\ntitle: 'Ünï'\ntags: [a, b]\n---\nΑλφα — 日本語 🙂\n",
    "partial.md": "---\ntrust: owner\n---\nowner wrote this\n",
    "invalid.md": "---\ntrust: bogus\nconfidence: HIGH\n---\nbody\n",
    "tagged.md": "---\ntrust: external\nconfidence: low\nsource: web\n---\nbody\n",
    "empty-fm.md": "---\n---\nbody after empty block\n",
}
MALFORMED = {
    "broken/unclosed.md": "---\ntitle: never closed\nbody\n",
    "broken/bad-yaml.md": "---\ntitle: [oops\n---\nbody\n",
}
TRANSCRIPTS = {
    "2026-03/s1.jsonl": '{"role": "user", "content": "hi"}\n',
    "2026-03/s2.jsonl": '{"role": "user", "content": "hello"}\n',
    "2026-04/s3.jsonl": '{"role": "user", "content": "yo"}\n',
    "2026-04/partial.jsonl": '{"role": "user", "content": "hey"}\n',
    "2026-04/invalid.jsonl": '{"role": "user", "content": "hm"}\n',
}
TAGS_YAML = "# my own comment\n2026-04/partial.jsonl:\n  source: me\n2026-04/invalid.jsonl:\n  trust: maybe\n"


def make_memory(root: Path) -> Path:
    for rel, text in {**MARKDOWN, **MALFORMED, **TRANSCRIPTS}.items():
        put(root, rel, text)
    put(root, TAG_FILE, TAGS_YAML)
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file() and ".git" not in p.relative_to(root).parts}


def memory_files(snap: dict[str, bytes]) -> dict[str, bytes]:
    return {k: v for k, v in snap.items() if not k.startswith(".cache/")}


def body_of(data: bytes) -> str:
    text = data.decode("utf-8").removeprefix("\ufeff")
    return split(text).body


@pytest.fixture
def memory(tmp_path):
    return make_memory(tmp_path / "memory")


@pytest.fixture
def repo(tmp_path):
    top = tmp_path / "repo"
    top.mkdir()
    git(top, "init", "-q")
    root = make_memory(top / "mem")
    put(top, "elsewhere.md", "not memory\n")
    git(top, "add", "-A")
    git(top, "commit", "-qm", "init")
    return root


# --------------------------------------------------------------------------- values


@pytest.mark.parametrize("values", [
    {"trust": "friend"},
    {"confidence": "certain"},
    {"colour": "blue"},
    {"source": "   "},
    {},
])
def test_invalid_values_given_raise(memory, values):
    before = snapshot(memory)
    with pytest.raises(InvalidTagValue):
        plan(memory, values)
    assert snapshot(memory) == before


def test_values_are_canonicalised(memory):
    p = plan(memory, {"Trust": " OWNER ", "confidence": "High"}, Selector(pattern="plain.md"))
    assert p.values == {"trust": "owner", "confidence": "high"}
    assert p.changes[0].after == {"trust": "owner", "confidence": "high"}


# --------------------------------------------------------------------------- plans


def test_default_plan_tags_only_untagged_transcripts(memory):
    p = default_plan(memory)
    assert p.values == DEFAULTS
    assert sorted(c.path for c in p.changes) == ["2026-03/s1.jsonl", "2026-03/s2.jsonl", "2026-04/s3.jsonl"]
    assert all(c.kind == "transcript" and c.before == {} for c in p.changes)
    assert all(c.after == {"trust": "self", "confidence": "medium", "source": "tachikoma"} for c in p.changes)


def test_default_plan_names_the_agent_and_skips_data_files(tmp_path):
    from pathlib import Path
    import shutil

    data = Path(__file__).parent / "data" / "sessions"
    for rel in ("claude-code/-Users-ken-shop/0b9d2e61-7c3a-4e55-8f10-c2d4e6f80a13.jsonl",
                "openclaw/agents/main/sessions/8e2f4c6a-1d3b-4a5c-9e7f-0b2d4f6a8c1e.jsonl",
                "codex/sessions/rollout-2025-05-07-2f6e1c3a-8b7d-4e59-a0c1-d2e3f4a5b6c7.jsonl",
                "generic/chat.jsonl", "not-a-transcript/prices.jsonl"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(data / rel, tmp_path / rel)
    p = default_plan(tmp_path)
    assert {c.path.split("/")[0]: c.after for c in p.changes} == {
        "claude-code": {"trust": "self", "confidence": "medium", "source": "claude-code"},
        "openclaw": {"trust": "self", "confidence": "medium", "source": "openclaw"},
        "codex": {"trust": "self", "confidence": "medium", "source": "codex"},
        "generic": {"trust": "self", "confidence": "medium", "source": "tachikoma"},
    }
    assert p.skipped == [("not-a-transcript/prices.jsonl",
                          "not a transcript: no line is a message of a known format; not tagged")]
    assert p.values["source"] == "claude-code / codex / openclaw / tachikoma"
    # Any selection: a data file is not a transcript for `tag --kind transcript --untagged` either (it was).
    chosen = plan(tmp_path, {"trust": "self"}, Selector(kind="transcript", untagged_only=True))
    assert "not-a-transcript/prices.jsonl" not in [c.path for c in chosen.changes]
    assert chosen.skipped == p.skipped
    assert plan(tmp_path, {"trust": "self"}, Selector(pattern="not-a-transcript/prices.jsonl")).skipped == p.skipped


def test_the_defaults_are_said_in_the_readers_own_sources():
    """The CLI's help and the dashboard's "Use the defaults" say DEFAULTS_TEXT (plain text, so the
    command line need not import the readers): it names every agent's source, as `default_plan` sets it."""
    from tachikoma import transcripts
    from tachikoma.vocabulary import DEFAULTS_TEXT

    agents = [r.SOURCE for r in transcripts.FORMATS if r is not transcripts.generic]
    assert f"({', '.join(dict.fromkeys(agents))}; {transcripts.generic.SOURCE} for a generic transcript)" in DEFAULTS_TEXT
    assert f"trust: {DEFAULTS['trust']}, confidence: {DEFAULTS['confidence']}" in DEFAULTS_TEXT


def test_plan_writes_nothing(memory):
    before = snapshot(memory)
    plan(memory, {"trust": "owner"}, overwrite=True)
    default_plan(memory)
    plan(memory, {"confidence": "low"}, Selector(kind="markdown", untagged_only=True))
    assert snapshot(memory) == before


def test_keep_versus_overwrite(memory):
    keep = {c.path: c for c in plan(memory, {"trust": "self", "confidence": "medium"}, Selector(kind="markdown")).changes}
    assert "tagged.md" not in keep  # both values valid already
    assert keep["partial.md"].before == {} and keep["partial.md"].after == {"confidence": "medium"}
    # an invalid existing value counts as missing and gets replaced; a valid one (HIGH) is kept
    assert keep["invalid.md"].before == {"trust": "bogus"}
    assert keep["invalid.md"].after == {"trust": "self"}

    over = {c.path: c for c in plan(memory, {"trust": "self", "confidence": "medium"},
                                      Selector(kind="markdown"), overwrite=True).changes}
    assert over["tagged.md"].before == {"trust": "external", "confidence": "low"}
    assert over["tagged.md"].after == {"trust": "self", "confidence": "medium"}
    assert over["partial.md"].before == {"trust": "owner"}
    assert over["invalid.md"].before == {"trust": "bogus", "confidence": "HIGH"}
    # overwriting with the value already there is not a change
    same = plan(memory, {"trust": "external"}, Selector(pattern="tagged.md"), overwrite=True)
    assert same.changes == [] and same.matched == 1


def test_malformed_front_matter_is_skipped(memory):
    p = plan(memory, {"trust": "owner"}, Selector(kind="markdown"))
    skipped = {s.path: s.reason for s in p.skipped}
    assert set(skipped) == set(MALFORMED)
    assert "never closed" in skipped["broken/unclosed.md"]
    assert "malformed" in skipped["broken/bad-yaml.md"]
    assert not any(c.path in MALFORMED for c in p.changes)
    before = {rel: (memory / rel).read_bytes() for rel in MALFORMED}
    apply(memory, p)
    assert {rel: (memory / rel).read_bytes() for rel in MALFORMED} == before


def test_malformed_file_at_apply_time_is_not_rewritten(memory):
    p = plan(memory, {"trust": "owner"}, Selector(pattern="plain.md"))
    put(memory, "plain.md", "---\ntitle: [broken\n---\nbody\n")
    applied = apply(memory, p)
    assert applied.changes == []
    assert (memory / "plain.md").read_bytes() == b"---\ntitle: [broken\n---\nbody\n"
    assert "malformed" in applied.skipped[0].reason


@pytest.mark.parametrize("pattern,expected", [
    ("2026-03/", ["2026-03/s1.jsonl", "2026-03/s2.jsonl"]),
    ("2026-03", ["2026-03/s1.jsonl", "2026-03/s2.jsonl"]),
    ("2026-0", []),
    ("**/*.jsonl", sorted(TRANSCRIPTS)),
    ("*.jsonl", sorted(TRANSCRIPTS)),
    ("2026-04/s?.jsonl", ["2026-04/s3.jsonl"]),
    ("*/s[12].jsonl", ["2026-03/s1.jsonl", "2026-03/s2.jsonl"]),
    ("unicode/**", ["unicode/ünï 日本.md"]),
    ("*.md", sorted({*MARKDOWN, *MALFORMED})),
    ("broken/", sorted(MALFORMED)),
    ("crlf.md", ["crlf.md"]),
])
def test_selector_patterns(memory, pattern, expected):
    p = plan(memory, {"source": "x"}, Selector(pattern=pattern), overwrite=True)
    assert sorted([c.path for c in p.changes] + [s.path for s in p.skipped]) == expected
    assert p.matched == len(expected)


def test_selector_glob_with_a_bracket_right_after_the_opening_one():
    from tachikoma.globs import pattern_matches as _pattern_matches
    assert _pattern_matches("x[]].md", "x].md")
    assert not _pattern_matches("x[]].md", "xa.md")
    assert _pattern_matches("[]", "[]") and not _pattern_matches("[]", "a")


def test_selector_kind_and_untagged_only(memory):
    p = plan(memory, {"source": "x"}, Selector(kind="markdown", untagged_only=True))
    assert sorted(c.path for c in p.changes) == sorted(
        ["plain.md", "crlf.md", "crlf-nofm.md", "no-newline.md", "bom.md", "bom-fm.md", "unicode/ünï 日本.md",
         "empty-fm.md"])
    with pytest.raises(ValueError):
        Selector(kind="pdf")


def test_selector_modified_dates(tmp_path):
    top = tmp_path / "repo"
    top.mkdir()
    git(top, "init", "-q")
    root = top / "mem"
    put(root, "old.md", "old\n")
    put(root, "edited.md", "edited later\n")
    git(top, "add", "-A")
    git(top, "commit", "-qm", "old", date="2026-01-10T12:00:00+00:00")
    put(root, "mid.md", "mid\n")
    git(top, "add", "-A")
    git(top, "commit", "-qm", "mid", date="2026-02-10T12:00:00+00:00")
    stamp = datetime(2026, 3, 10, 12, tzinfo=timezone.utc).timestamp()
    put(root, "uncommitted.md", "new\n")
    os.utime(root / "uncommitted.md", (stamp, stamp))
    # the file-system time of a committed, unchanged file is not what counts...
    os.utime(root / "old.md", (stamp, stamp))
    # ...but a file changed since its last commit counts by its file-system time
    put(root, "edited.md", "edited later, changed\n")
    os.utime(root / "edited.md", (stamp, stamp))

    def chosen(**kw):
        return sorted(c.path for c in plan(root, {"trust": "self"}, Selector(**kw)).changes)

    assert chosen(modified_since=date(2026, 2, 1)) == ["edited.md", "mid.md", "uncommitted.md"]
    assert chosen(modified_until=date(2026, 2, 1)) == ["old.md"]
    assert chosen(modified_since=date(2026, 1, 20), modified_until=date(2026, 3, 1)) == ["mid.md"]
    assert chosen(modified_since=date(2026, 3, 20)) == []
    # both bounds include their own day
    assert chosen(modified_since=date(2026, 2, 10), modified_until=date(2026, 2, 10)) == ["mid.md"]


# --------------------------------------------------------------------------- apply and undo


def test_apply_then_undo_restores_every_file(memory):
    before = snapshot(memory)
    p = plan(memory, {"trust": "self", "confidence": "medium", "source": "tachikoma"}, overwrite=True)
    applied = apply(memory, p)
    after = snapshot(memory)
    changed = {rel for rel in before if before[rel] != after.get(rel)}
    assert changed == {c.path for c in applied.changes if c.kind == "markdown"} | {TAG_FILE}
    # every markdown body is byte-for-byte the same
    for rel in MARKDOWN:
        assert body_of(after[rel]) == body_of(before[rel]), rel
        assert after[rel].startswith(b"\xef\xbb\xbf") == before[rel].startswith(b"\xef\xbb\xbf")
    undone = undo(memory, applied)
    assert memory_files(snapshot(memory)) == memory_files(before)
    assert len(undone.changes) == len(applied.changes)


def test_undo_from_changes_alone_restores_bytes(memory):
    """Without the in-memory originals, undo works key by key and still gives back the same bytes."""
    before = snapshot(memory)
    p = plan(memory, {"trust": "owner", "confidence": "high"}, Selector(kind="markdown"))
    applied = apply(memory, p)
    assert snapshot(memory) != before
    undo(memory, list(applied.changes))
    after = memory_files(snapshot(memory))
    for rel in MARKDOWN:  # including empty-fm.md: an empty block the person wrote stays
        assert after[rel] == before[rel], rel


def test_apply_results_read_back(memory):
    p = plan(memory, {"trust": "self", "confidence": "medium"}, Selector(kind="markdown"))
    apply(memory, p)
    crlf = (memory / "crlf-nofm.md").read_bytes()
    assert crlf == b"---\r\ntrust: self\r\nconfidence: medium\r\n---\r\n# CRLF without front matter\r\nsecond\r\n"
    assert (memory / "bom.md").read_bytes() == "\ufeff---\ntrust: self\nconfidence: medium\n---\n# BOM note\nbody\n".encode()
    assert (memory / "no-newline.md").read_bytes().endswith(b"---\n# No trailing newline")
    uni = (memory / "unicode/ünï 日本.md").read_text(encoding="utf-8")
    assert "# a comment kept\n" in uni and "tags: [a, b]\n" in uni
    invalid = split((memory / "invalid.md").read_text()).meta
    assert invalid["trust"] == "self" and invalid["confidence"] == "HIGH"


def test_transcripts_tagged_through_the_tag_file(memory):
    applied = apply(memory, default_plan(memory))
    tf = tagfile.load(memory)
    for rel in ["2026-03/s1.jsonl", "2026-03/s2.jsonl", "2026-04/s3.jsonl"]:
        assert tf.tags_for(rel).as_dict() == {"trust": "self", "confidence": "medium", "source": "tachikoma"}
    assert tf.entries["2026-04/partial.jsonl"] == {"source": "me"}
    assert tf.entries["2026-04/invalid.jsonl"] == {"trust": "maybe"}
    # transcripts themselves are never written
    for rel, text in TRANSCRIPTS.items():
        assert (memory / rel).read_text() == text
    assert applied.commit is None  # not a git repository


def test_invalid_values_in_files_are_replaced(memory):
    apply(memory, plan(memory, {"trust": "self"}))
    assert tagfile.load(memory).tags_for("2026-04/invalid.jsonl").trust == "self"
    assert split((memory / "invalid.md").read_text()).meta["trust"] == "self"


def test_file_changed_after_plan_is_skipped_not_clobbered(memory):
    p = plan(memory, {"trust": "self"}, Selector(pattern="*.md"))
    put(memory, "plain.md", "---\ntrust: owner\n---\nthe person tagged it meanwhile\n")
    tf = tagfile.load(memory)
    p2 = plan(memory, {"trust": "self"}, Selector(kind="transcript"))
    tagfile.save(memory, {**tf.all_entries(), "2026-03/s1.jsonl": {"trust": "external"}})
    applied = apply(memory, p)
    applied2 = apply(memory, p2)
    assert (memory / "plain.md").read_bytes() == b"---\ntrust: owner\n---\nthe person tagged it meanwhile\n"
    assert "plain.md" in {s.path for s in applied.skipped}
    assert "changed since" in {s.path: s.reason for s in applied.skipped}["plain.md"]
    assert "2026-03/s1.jsonl" in {s.path for s in applied2.skipped}
    assert tagfile.load(memory).tags_for("2026-03/s1.jsonl").trust == "external"
    assert tagfile.load(memory).tags_for("2026-03/s2.jsonl").trust == "self"


def test_undo_keeps_later_body_edits_and_skips_retagged_files(memory):
    applied = apply(memory, plan(memory, {"trust": "self"}, Selector(pattern="plain.md")))
    applied2 = apply(memory, plan(memory, {"trust": "self"}, Selector(pattern="crlf.md")))
    text = (memory / "plain.md").read_text()
    put(memory, "plain.md", text + "a line added later\n")
    put(memory, "crlf.md", (memory / "crlf.md").read_bytes().replace(b"trust: self", b"trust: owner"))
    undone = undo(memory, applied)
    assert (memory / "plain.md").read_text() == MARKDOWN["plain.md"] + "a line added later\n"
    assert [c.path for c in undone.changes] == ["plain.md"]
    not_undone = undo(memory, applied2)
    assert not_undone.changes == []
    assert "changed since" in not_undone.skipped[0].reason
    assert b"trust: owner" in (memory / "crlf.md").read_bytes()


def test_undo_removes_a_tag_file_it_created(tmp_path):
    root = tmp_path / "m"
    put(root, "a.jsonl", TURN)
    applied = apply(root, default_plan(root))
    assert (root / TAG_FILE).exists()
    undo(root, applied)
    assert not (root / TAG_FILE).exists()


def test_undo_key_by_key_in_the_tag_file(memory):
    before = tagfile.load(memory).entries
    applied = apply(memory, plan(memory, {"trust": "owner", "source": "bulk"}, Selector(kind="transcript"),
                                 overwrite=True))
    # someone else edits the tag file afterwards: exact restore is impossible, key-level undo still works
    tf = tagfile.load(memory)
    tagfile.save(memory, {**tf.all_entries(), "elsewhere.jsonl": {"trust": "self"}})
    undo(memory, applied)
    after = tagfile.load(memory).entries
    assert after.pop("elsewhere.jsonl") == {"trust": "self"}
    assert after == before


def test_malformed_tag_file_stops_apply_before_writing(memory):
    p = plan(memory, {"trust": "self"})
    put(memory, TAG_FILE, "a.jsonl: [unclosed\n")
    before = snapshot(memory)
    with pytest.raises(TagFileError):
        apply(memory, p)
    assert memory_files(snapshot(memory)) == memory_files(before)


def test_apply_holds_the_lock_in_cache(memory, monkeypatch):
    real = writers.FileLock
    seen = []

    class Spy(real):
        def __init__(self, path, *args, **kw):
            seen.append(path)
            super().__init__(path, *args, **kw)

    def save_checking_lock(root, entries, previous=None):
        probe = real(str(memory / ".cache" / "tag.lock"), timeout=0)
        with pytest.raises(writers.Timeout):
            probe.acquire()
        return real_save(root, entries, previous)

    real_save = tagfile.save
    monkeypatch.setattr(writers, "FileLock", Spy)
    monkeypatch.setattr(tagfile, "save", save_checking_lock)
    apply(memory, default_plan(memory))
    assert seen == [str(memory.resolve() / ".cache" / "tag.lock")]
    assert (memory / ".cache" / ".gitignore").exists()


# --------------------------------------------------------------------------- odd files


def test_aliased_tag_file_entries_are_tagged_independently(tmp_path):
    root = tmp_path / "m"
    for name in ("a", "b"):
        put(root, f"{name}.jsonl", TURN)
    put(root, TAG_FILE, "a.jsonl: &x {trust: self}\nb.jsonl: *x\n")
    applied = apply(root, plan(root, {"trust": "owner"}, Selector(pattern="a.jsonl"), overwrite=True))
    assert [c.path for c in applied.changes] == ["a.jsonl"]
    tf = tagfile.load(root)
    assert tf.tags_for("a.jsonl").trust == "owner" and tf.tags_for("b.jsonl").trust == "self"


def test_transcript_with_a_backslash_in_its_name(tmp_path):
    root = tmp_path / "m"
    put(root, "a\\b.jsonl", TURN)
    applied = apply(root, default_plan(root))
    assert [c.path for c in applied.changes] == ["a\\b.jsonl"] and applied.skipped == []
    assert tagfile.load(root).tags_for("a\\b.jsonl").trust == "self"
    again = default_plan(root)
    assert again.changes == [] and again.skipped == [] and again.warnings == []


def test_key_set_twice_is_skipped_with_a_reason(tmp_path):
    root = tmp_path / "m"
    text = "---\ntrust: owner\nTrust: self\n---\nbody\n"
    put(root, "n.md", text)
    p = plan(root, {"trust": "external"}, Selector(), overwrite=True)
    assert p.changes == [] and p.matched == 1
    assert p.skipped == [("n.md", "front matter: trust is set more than once (trust at line 2, Trust at line 3); "
                                  "fix it by hand, tachikoma will not guess which one to change")]
    # A change made from an older plan is refused at write time too.
    put(root, "n.md", "---\ntrust: owner\n---\nbody\n")
    stale = plan(root, {"trust": "external"}, Selector(), overwrite=True)
    put(root, "n.md", text)
    applied = apply(root, stale)
    assert applied.changes == [] and "more than once" in applied.skipped[0].reason
    assert (root / "n.md").read_text() == text


def test_tag_file_entry_with_a_key_twice_gets_every_spelling_replaced(tmp_path):
    root = tmp_path / "m"
    put(root, "a.jsonl", TURN)
    put(root, TAG_FILE, "a.jsonl:\n  trust: owner\n  Trust: self\n")
    apply(root, plan(root, {"trust": "external"}, Selector(), overwrite=True))
    assert tagfile.load(root).entries == {"a.jsonl": {"trust": "external"}}


def test_impossible_dates_do_not_stop_tagging(tmp_path):
    root = tmp_path / "m"
    put(root, "n.md", "---\ndate: 2026-02-30\n---\nbody\n")
    put(root, "a.jsonl", TURN)
    put(root, TAG_FILE, "a.jsonl: {date: 2026-13-01}\n")
    applied = apply(root, plan(root, {"trust": "self"}, Selector()))
    assert sorted(c.path for c in applied.changes) == ["a.jsonl", "n.md"]
    assert (root / "n.md").read_text() == "---\ndate: 2026-02-30\ntrust: self\n---\nbody\n"
    assert tagfile.load(root).entries["a.jsonl"] == {"trust": "self", "date": "2026-13-01"}


def test_source_no_counts_as_a_source(tmp_path):
    root = tmp_path / "m"
    put(root, "n.md", "---\nsource: no\n---\nbody\n")
    p = plan(root, {"source": "x", "trust": "self"}, Selector())
    assert [(c.before, c.after) for c in p.changes] == [({}, {"trust": "self"})]


def test_change_shows_the_files_current_tags(memory):
    p = plan(memory, {"source": "x", "trust": "owner"}, Selector(pattern="tagged.md"), overwrite=True)
    change = p.changes[0]
    assert change.current == {"trust": "external", "confidence": "low", "source": "web"}
    assert change.describe() == "trust=external, confidence=low, source=web → trust=owner, source=x"
    assert change.result == {"trust": "owner", "confidence": "low", "source": "x"}
    p = plan(memory, {"source": "x"}, Selector(pattern="partial.md"))
    assert p.changes[0].describe() == "trust=owner → + source=x"
    assert plan(memory, {"trust": "self"}, Selector(pattern="plain.md")).changes[0].describe() == \
        "no quality tags → + trust=self"
    back = p.changes[0].inverse()
    assert back.current == {"trust": "owner", "source": "x"}
    assert back.describe() == "trust=owner, source=x → - source"
    applied = apply(memory, p)
    assert applied.changes[0].current == {"trust": "owner"}


def test_the_preview_of_a_note_with_topic_tags_does_not_say_it_has_no_tags(memory, capsys):
    """An Obsidian note's own `tags: [boiler, house]` are topic tags, not trust, confidence or source: the preview
    said "no tags → + trust=self" of it. It says "no quality tags", and the note's topic tags stay as they were."""
    from tachikoma import cli

    note = memory / "obsidian.md"
    note.write_text("---\ntags: [boiler, house]\naliases: [heating]\n---\n# Boiler\n\nServiced in March.\n")
    assert cli.main(["--memory", str(memory), "tag", "obsidian.md", "--trust", "self", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "obsidian.md: no quality tags → + trust=self"
    assert "no tags" not in out
    assert cli.main(["--memory", str(memory), "tag", "obsidian.md", "--trust", "self", "--no-commit"]) == 0
    assert note.read_text() == ("---\ntags: [boiler, house]\naliases: [heating]\ntrust: self\n---\n# Boiler\n\n"
                                "Serviced in March.\n")


# --------------------------------------------------------------------------- git


def test_commit_message_and_files(repo):
    top = repo.parent
    p = plan(repo, {"trust": "self", "confidence": "medium", "source": "tachikoma"}, Selector(pattern="2026-03/"))
    p.changes += plan(repo, {"trust": "self", "confidence": "medium", "source": "tachikoma"},
                      Selector(pattern="plain.md")).changes
    applied = apply(repo, p)
    assert applied.commit == git(top, "rev-parse", "HEAD").strip()
    message = git(top, "log", "-1", "--format=%B")
    assert message.startswith("tachikoma: tag 3 files (trust=self, confidence=medium, source=tachikoma)\n\n")
    for rel in ["2026-03/s1.jsonl", "2026-03/s2.jsonl", "plain.md"]:
        assert rel in message
    stat = git(top, "show", "--stat=200", "--format=", "HEAD")
    files = sorted(line.split("|")[0].strip() for line in stat.splitlines() if "|" in line)
    assert files == ["mem/plain.md", f"mem/{TAG_FILE}"]
    assert git(top, "status", "--porcelain", "--untracked-files=no") == ""

    undone = undo(repo, applied)
    assert undone.commit == git(top, "rev-parse", "HEAD").strip()
    assert git(top, "log", "-1", "--format=%s").strip() == "tachikoma: undo tagging of 3 files"
    assert git(top, "diff", "HEAD~2", "HEAD", "--stat") == ""


def test_symlinked_note_is_skipped_and_its_target_tagged_and_committed(tmp_path):
    """A note reached through a symlink inside the memory is tagged as its target, once: writing through
    the link left the target changed but uncommitted (git cannot commit a file through a symlink) and
    the target itself skipped as 'changed since the plan'."""
    put(tmp_path, "real.md", "# Real\n\nbody text\n")
    os.symlink("real.md", tmp_path / "alias.md")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "notes")
    p = plan(tmp_path, {"trust": "owner"}, Selector(pattern="*.md"))
    assert [c.path for c in p.changes] == ["real.md"]
    assert p.skipped == []  # the walk lists real.md alone: alias.md is the same note
    applied = apply(tmp_path, p)
    assert applied.commit and not applied.commit_error and not applied.skipped
    assert git(tmp_path, "status", "--porcelain") == ""
    assert (tmp_path / "alias.md").is_symlink()
    assert (tmp_path / "real.md").read_text() == "---\ntrust: owner\n---\n# Real\n\nbody text\n"


def test_commit_leaves_other_work_alone(repo):
    top = repo.parent
    put(repo, "crlf.md", "someone is editing\n")
    put(top, "elsewhere.md", "staged by someone\n")
    git(top, "add", "elsewhere.md")
    applied = apply(repo, default_plan(repo))
    assert applied.commit
    assert git(top, "show", "--name-only", "--format=", "HEAD").split() == [f"mem/{TAG_FILE}"]
    status = git(top, "status", "--porcelain")
    assert "M  elsewhere.md" in status and " M mem/crlf.md" in status


def show(top, rev_path):
    return subprocess.run(["git", "show", rev_path], cwd=top, check=True, capture_output=True).stdout.decode()


def test_commit_holds_only_the_tags_not_an_unrelated_edit(repo):
    top = repo.parent
    original = (repo / "partial.md").read_text()
    with open(repo / "partial.md", "a") as handle:
        handle.write("UNRELATED EDIT\n")
    applied = apply(repo, plan(repo, {"source": "manual"}, Selector(pattern="partial.md"), overwrite=True))
    assert applied.commit and applied.commit_error is None
    committed = show(top, "HEAD:mem/partial.md")
    assert committed == original.replace("trust: owner\n", "trust: owner\nsource: manual\n")
    assert "UNRELATED EDIT" not in committed
    on_disk = (repo / "partial.md").read_text()
    assert "source: manual" in on_disk and on_disk.endswith("UNRELATED EDIT\n")
    # The index matches the commit: only the person's edit shows, unstaged.
    assert git(top, "status", "--porcelain", "--untracked-files=no") == " M mem/partial.md\n"
    assert git(top, "diff", "--cached") == ""
    added = [line for line in git(top, "diff").splitlines() if line.startswith("+") and not line.startswith("+++")]
    assert added == ["+UNRELATED EDIT"]

    # Reverting the tagging commit takes back the tags only.
    git(top, "stash")
    git(top, "revert", "--no-edit", "HEAD")
    git(top, "stash", "pop")
    assert (repo / "partial.md").read_text() == original + "UNRELATED EDIT\n"


def test_undo_commits_only_the_tags_too(repo):
    top = repo.parent
    original = (repo / "partial.md").read_text()
    applied = apply(repo, plan(repo, {"source": "manual"}, Selector(pattern="partial.md")))
    with open(repo / "partial.md", "a") as handle:
        handle.write("EDIT AFTER TAGGING\n")
    undone = undo(repo, applied)
    assert undone.commit and undone.commit_error is None
    assert show(top, "HEAD:mem/partial.md") == original
    assert (repo / "partial.md").read_text() == original + "EDIT AFTER TAGGING\n"
    assert git(top, "status", "--porcelain", "--untracked-files=no") == " M mem/partial.md\n"


def test_staged_edit_stays_staged_and_out_of_the_commit(repo):
    top = repo.parent
    original = (repo / "tagged.md").read_text()
    put(repo, "tagged.md", original + "staged line\n")
    git(top, "add", "mem/tagged.md")
    put(repo, "tagged.md", original + "staged line\nunstaged line\n")
    applied = apply(repo, plan(repo, {"trust": "owner"}, Selector(pattern="tagged.md"), overwrite=True))
    assert applied.commit
    tagged = original.replace("trust: external", "trust: owner")
    assert show(top, "HEAD:mem/tagged.md") == tagged
    assert show(top, ":mem/tagged.md") == tagged + "staged line\n"
    assert (repo / "tagged.md").read_text() == tagged + "staged line\nunstaged line\n"


def test_tag_file_commit_holds_only_tachikomas_entries(repo):
    top = repo.parent
    committed_before = show(top, f"HEAD:mem/{TAG_FILE}")
    with open(repo / TAG_FILE, "a") as handle:
        handle.write("2026-04/s3.jsonl:\n  source: written by hand, not committed\n")
    applied = apply(repo, plan(repo, {"trust": "external"}, Selector(pattern="2026-03/s1.jsonl")))
    assert applied.commit and applied.commit_error is None
    committed = tagfile.parse(repo, show(top, f"HEAD:mem/{TAG_FILE}").encode())
    assert committed.entries == {**tagfile.parse(repo, committed_before.encode()).entries,
                                 "2026-03/s1.jsonl": {"trust": "external"}}
    on_disk = tagfile.load(repo)
    assert on_disk.tags_for("2026-04/s3.jsonl").source == "written by hand, not committed"
    assert on_disk.tags_for("2026-03/s1.jsonl").trust == "external"


def test_file_malformed_in_git_is_tagged_but_not_committed(repo):
    top = repo.parent
    put(repo, "broken/bad-yaml.md", "---\ntitle: fixed now\n---\nbody\n")  # fixed, not committed
    head = git(top, "rev-parse", "HEAD")
    applied = apply(repo, plan(repo, {"trust": "self"}, Selector(pattern="broken/bad-yaml.md")))
    assert [c.path for c in applied.changes] == ["broken/bad-yaml.md"]
    assert "trust: self" in (repo / "broken/bad-yaml.md").read_text()
    assert applied.commit is None and git(top, "rev-parse", "HEAD") == head
    assert "broken/bad-yaml.md" in applied.commit_error and "malformed" in applied.commit_error
    assert "not committed" in applied.commit_error


def test_some_files_committed_when_others_cannot_be(repo):
    top = repo.parent
    put(repo, "broken/bad-yaml.md", "---\ntitle: fixed now\n---\nbody\n")
    applied = apply(repo, plan(repo, {"trust": "self"}, Selector(pattern="broken/bad-yaml.md")))
    p = plan(repo, {"source": "x"}, Selector(pattern="plain.md"))
    p.changes += plan(repo, {"source": "x"}, Selector(pattern="broken/bad-yaml.md"), overwrite=True).changes
    applied = apply(repo, p)
    assert applied.commit and "broken/bad-yaml.md" in applied.commit_error
    assert git(top, "show", "--name-only", "--format=", "HEAD").split() == ["mem/plain.md"]
    assert git(top, "log", "-1", "--format=%B").startswith("tachikoma: tag 1 file (source=x)\n\nplain.md\n")


def test_a_note_git_does_not_track_is_tagged_and_said_never_committed_whole(repo):
    """Regression: a note git did not track was committed whole by the tagging commit, so a draft nobody
    had added to git went into its history. Only the tag changes of tracked files are committed; the
    untracked note is tagged, named as not committed, stays untracked, and undo gives its bytes back."""
    top = repo.parent
    draft = "# brand new\n\nA private draft nobody added to git.\n"
    put(repo, "new.md", draft)
    partial = (repo / "partial.md").read_text()
    p = plan(repo, {"source": "manual"}, Selector(paths=frozenset({"new.md", "partial.md"})), overwrite=True)
    applied = apply(repo, p)
    assert sorted(c.path for c in applied.changes) == ["new.md", "partial.md"]
    assert (repo / "new.md").read_text() == "---\nsource: manual\n---\n" + draft  # tagged, as asked
    assert applied.commit == git(top, "rev-parse", "HEAD").strip()
    assert git(top, "show", "--name-only", "--format=", "HEAD").split() == ["mem/partial.md"]
    assert applied.commit_error == ("not committed: new.md is not tracked by git (tachikoma commits no file you "
                                    "have not added: `git add` it to commit it with its tags)")
    assert git(top, "log", "-1", "--format=%B").startswith("tachikoma: tag 1 file (source=manual)\n\npartial.md\n")
    assert git(top, "status", "--porcelain") == "?? mem/new.md\n"
    assert not journal.load(repo)  # not tried again by the next run: nothing is pending

    undone = undo(repo, applied)
    assert (repo / "new.md").read_text() == draft and (repo / "partial.md").read_text() == partial
    assert git(top, "show", "--name-only", "--format=", "HEAD").split() == ["mem/partial.md"]
    assert "new.md is not tracked by git" in undone.commit_error
    assert git(top, "status", "--porcelain") == "?? mem/new.md\n"
    assert "new.md" not in git(top, "log", "--all", "--name-only", "--format=")  # never in any commit

    git(top, "add", "mem/new.md")  # added, not committed: the user's own choice to put it in git
    staged = apply(repo, plan(repo, {"trust": "self"}, Selector(pattern="new.md")))
    assert staged.commit and staged.commit_error is None
    assert show(top, "HEAD:mem/new.md") == "---\ntrust: self\n---\n" + draft


def test_a_new_tag_file_is_committed_whole(tmp_path):
    """The tag file is tachikoma's own, holding tags only: made by a run, it is committed with them."""
    put(tmp_path, "s1.jsonl", '{"role": "user", "content": "hello"}\n')
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "s1.jsonl")
    git(tmp_path, "commit", "-q", "-m", "a session")
    applied = apply(tmp_path, plan(tmp_path, {"trust": "self"}, Selector(pattern="s1.jsonl")))
    assert applied.commit and applied.commit_error is None
    assert git(tmp_path, "show", "--name-only", "--format=", "HEAD").split() == [TAG_FILE]
    assert git(tmp_path, "status", "--porcelain") == ""


def test_ignored_file_is_not_committed(repo):
    top = repo.parent
    put(top, ".gitignore", "mem/private/\n")
    put(repo, "private/p.md", "# private\n")
    applied = apply(repo, plan(repo, {"trust": "self"}, Selector(pattern="private/")))
    assert applied.commit is None and "private/p.md is ignored by git" in applied.commit_error
    assert "mem/private/p.md" not in git(top, "ls-files")


def test_commit_false_and_commit_identity(repo):
    top = repo.parent
    head = git(top, "rev-parse", "HEAD")
    applied = apply(repo, default_plan(repo), commit=False)
    assert applied.commit is None and git(top, "rev-parse", "HEAD") == head
    assert undo(repo, applied, commit=False).commit is None
    applied = apply(repo, default_plan(repo))
    assert git(top, "log", "-1", "--format=%an <%ae>") == "tachikoma <tachikoma@localhost>\n"


def test_commit_failure_is_reported_not_raised(repo, monkeypatch):
    from tachikoma.git import gitutil

    def failing(root, contents, message, stage=None, config_path=None):
        raise gitutil.GitError("git commit failed: hook said no")

    monkeypatch.setattr(gitutil, "commit_blobs", failing)
    applied = apply(repo, default_plan(repo))
    assert applied.commit is None and "hook said no" in applied.commit_error
    assert tagfile.load(repo).tags_for("2026-03/s1.jsonl").trust == "self"


# --------------------------------------------------------------------------- concurrency


def test_concurrent_applies_in_threads_lose_no_tags(tmp_path):
    root = tmp_path / "m"
    names = [f"t/{i:03d}.jsonl" for i in range(40)] + [f"n/{i:03d}.md" for i in range(20)]
    for rel in names:
        put(root, rel, TURN if rel.endswith(".jsonl") else "# note\n")
    plans = [plan(root, {"trust": "self"}, Selector(pattern=rel)) for rel in names]
    plans += [plan(root, {"confidence": "low"}, Selector(pattern=rel)) for rel in names]
    errors = []

    def work(chunk):
        try:
            for p in chunk:
                apply(root, p, commit=False)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(plans[i::6],)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    tf = tagfile.load(root)
    for rel in names:
        if rel.endswith(".jsonl"):
            tags = tf.tags_for(rel)
        else:
            from tachikoma.reading.tags import Tags
            tags = Tags.from_mapping(split((root / rel).read_text()).meta)
        assert (tags.trust, tags.confidence) == ("self", "low"), rel


def test_concurrent_applies_in_processes_lose_no_tags(tmp_path):
    root = tmp_path / "m"
    for i in range(60):
        put(root, f"t/{i:03d}.jsonl", TURN)
    script = textwrap.dedent("""
        import sys
        from pathlib import Path
        from tachikoma.tagging.applying import apply
        from tachikoma.tagging.model import Selector
        from tachikoma.tagging.planning import plan
        root, start = Path(sys.argv[1]), int(sys.argv[2])
        for i in range(start, 60, 3):
            apply(root, plan(root, {"trust": "self"}, Selector(pattern=f"t/{i:03d}.jsonl")), commit=False)
    """)
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    procs = [subprocess.Popen([sys.executable, "-c", script, str(root), str(k)], env=env,
                              stderr=subprocess.PIPE) for k in range(3)]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
    tf = tagfile.load(root)
    assert sorted(tf.entries) == [f"t/{i:03d}.jsonl" for i in range(60)]
    assert all(tf.tags_for(p).trust == "self" for p in tf.entries)


# --------------------------------------------------------------------------- frontmatter.remove_keys


def test_remove_keys_keeps_everything_else():
    from tachikoma.reading.frontmatter import remove_keys

    text = "---\r\ntitle: x\r\nTrust: self\r\nsource: >\r\n  folded\r\n  text\r\n# note\r\n---\r\nbody\r\nno newline"
    out = remove_keys(text, ["trust", "source"])
    assert out == "---\r\ntitle: x\r\n# note\r\n---\r\nbody\r\nno newline"
    assert remove_keys("no front matter", ["trust"]) == "no front matter"
    with pytest.raises(ValueError):
        remove_keys("---\ntrust: [x\n---\nbody", ["trust"])


def test_remove_keys_empty_block():
    from tachikoma.reading.frontmatter import remove_keys

    text = "\ufeff---\ntrust: self\n---\n# body\n"
    assert remove_keys(text, ["trust"]) == "\ufeff---\n---\n# body\n"
    assert remove_keys(text, ["trust"], drop_empty_block=True) == "\ufeff# body\n"
    kept = "---\ntrust: self\ntitle: t\n---\n# body\n"
    assert remove_keys(kept, ["trust"], drop_empty_block=True) == "---\ntitle: t\n---\n# body\n"


def test_remove_keys_block_values_and_odd_line_breaks():
    from tachikoma.reading.frontmatter import remove_keys

    text = "---\nsource: |\n  one\n\n  two\n\ntitle: t\ntrust: \"a\u2028b\"\n---\nbody\n"
    assert remove_keys(text, ["source", "trust"]) == "---\n\ntitle: t\n---\nbody\n"


def test_a_journal_whose_run_wrote_nothing_is_dropped_without_announcing_a_recovery(repo):
    """A run that failed before writing (not killed after) leaves a journal of changes it never made:
    the next run has nothing to finish and says nothing about an interrupted run."""
    put(repo, "plain.md", "# Plain\n\nbody\n")
    planned = planning.plan(repo, {"trust": "owner"}, model.Selector(pattern="plain.md"))
    applying._save_journal(repo, ("tag", "trust: owner"), True, planned.changes)
    journal_file = repo / ".cache" / journal.NAME
    assert journal_file.exists() and planned.changes
    assert recovery.recover(repo) is None
    assert not journal_file.exists()
    assert (repo / "plain.md").read_bytes() == b"# Plain\n\nbody\n"
