import json
import re
from collections import Counter
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tachikoma.chunking import PATH_SEPARATOR, chunk_document, date_context
from tachikoma.reading.documents import MARKDOWN, TRANSCRIPT, Document, Turn
from tachikoma.reading.reader import read_document

SEP = PATH_SEPARATOR.strip()


def md(text, body_line=1):
    return Document(path="n.md", kind=MARKDOWN, text=text, body_line=body_line)


def words(text):
    return text.split()


# Heading titles in these tests are capitalised "H…" words; body words are lowercase.
_CONTEXT_LINE = re.compile(rf"^(?:H\w*|{re.escape(SEP)})(?: (?:H\w*|{re.escape(SEP)}))*$")


def body_of(chunk_text):
    """The chunk text without its heading-path context line, if it has one."""
    first, _, rest = chunk_text.partition("\n")
    return rest if rest and _CONTEXT_LINE.match(first) else chunk_text


def file_words(file_lines, start, end):
    return Counter(w for line in file_lines[start - 1:end] for w in line.split())


def assert_maps_back(chunks, file_lines):
    """Every chunk's own words are found, as often, in its file line range."""
    for c in chunks:
        assert 1 <= c.line_start <= c.line_end <= len(file_lines)
        own = Counter(words(body_of(c.text)))
        assert own <= file_words(file_lines, c.line_start, c.line_end), (c, file_lines[c.line_start - 1:c.line_end])


# ---------------------------------------------------------------- markdown basics

def test_whitespace_only_gives_no_chunks():
    assert chunk_document(md(""), 50) == []
    assert chunk_document(md("  \n\n\t\n"), 50) == []
    assert chunk_document(Document(path="t.jsonl", kind=TRANSCRIPT), 50) == []


def test_small_note_without_headings_is_one_chunk():
    chunks = chunk_document(md("\n\nfirst line\nsecond line\n\n", body_line=5), 50)
    assert len(chunks) == 1
    c = chunks[0]
    assert (c.index, c.text, c.line_start, c.line_end) == (0, "first line\nsecond line", 7, 8)


def test_heading_path_context():
    text = ("# Top\nintro words\n## Middle\nmiddle words\n### Deep\ndeep words\n"
            "## Other\nother words\n")
    # max_words so small that no two sections fit together: every section is its own chunk
    chunks = chunk_document(md(text), 5, overlap_words=0)
    texts = [c.text for c in chunks]
    assert texts == [
        "# Top\nintro words",  # top heading: no context needed
        f"Top{PATH_SEPARATOR}Middle\n## Middle\nmiddle words",
        f"Top{PATH_SEPARATOR}Middle{PATH_SEPARATOR}Deep\n### Deep\ndeep words",
        f"Top{PATH_SEPARATOR}Other\n## Other\nother words",
    ]
    assert [c.line_start for c in chunks] == sorted(c.line_start for c in chunks)


def test_heading_context_when_every_section_is_alone():
    # Sections too big to merge with each other: each chunk shows its full path.
    body = " ".join(["w"] * 30)
    text = f"# Top\n{body}\n## Middle\n{body}\n### Deep\n{body}\n"
    chunks = chunk_document(md(text), 40, overlap_words=0)
    assert [c.text.split("\n")[0] for c in chunks] == ["# Top", f"Top{PATH_SEPARATOR}Middle",
                                                      f"Top{PATH_SEPARATOR}Middle{PATH_SEPARATOR}Deep"]
    assert [(c.line_start, c.line_end) for c in chunks] == [(1, 2), (3, 4), (5, 6)]


def test_closing_hashes_and_non_headings():
    text = "## Title ##\ntext\n#hashtag is not a heading\n####### seven is not one either\n"
    chunks = chunk_document(md(text), 100)
    assert len(chunks) == 1 and chunks[0].text == text.strip()
    body = " ".join(["w"] * 30)
    chunks = chunk_document(md(f"# Top #\n{body}\n## Sub ##\n{body}\n"), 40, overlap_words=0)
    assert chunks[1].text.startswith(f"Top{PATH_SEPARATOR}Sub\n")


def test_hash_lines_in_fenced_code_are_not_headings():
    body = " ".join(["w"] * 30)
    for fence in ("```", "~~~", "````"):
        text = (f"# Script\n{body}\n{fence}bash\n# install it\nmake install\n"
                f"## also not a heading\n{fence}\nafter the fence\n")
        chunks = chunk_document(md(text), 40, overlap_words=0)
        # One section only: a split of it never gets "install it" as a heading path.
        assert all("install it" + PATH_SEPARATOR not in c.text for c in chunks)
        assert all(not c.text.startswith("Script" + PATH_SEPARATOR + "install") for c in chunks)
        joined = " ".join(c.text for c in chunks)
        assert "# install it" in joined and "## also not a heading" in joined
        big = chunk_document(md(text), 1000)
        assert len(big) == 1


def test_unclosed_fence_hides_later_headings():
    body = " ".join(["w"] * 30)
    text = f"# A\n{body}\n```\ncode\n# B\n{body}\n"
    chunks = chunk_document(md(text), 25, overlap_words=0)
    assert not any(c.text.startswith(f"A{PATH_SEPARATOR}B") for c in chunks)
    assert any(c.text.startswith("A\n") for c in chunks)  # continuation pieces of section A


def test_small_sections_merge_up_to_the_budget():
    sections = [f"## H{i}\n" + " ".join([f"w{i}"] * 8) for i in range(12)]
    text = "\n\n".join(sections) + "\n"
    chunks = chunk_document(md(text), 40)
    assert len(chunks) < len(sections)  # some merging happened
    for c in chunks:
        assert len(words(body_of(c.text))) <= 40
    # Sections that fit are never cut in two: each chunk holds all 8 words of a section or none.
    for c in chunks:
        counts = Counter(words(c.text))
        for i in range(12):
            assert counts[f"w{i}"] in (0, 8)
    # Merging happened for real: chunks hold several sections on average (a section is 10 words).
    sizes = [len(words(body_of(c.text))) for c in chunks]
    assert sum(sizes) / len(sizes) >= 20
    assert_maps_back(chunks, text.split("\n"))


def test_big_section_splits_at_paragraphs_with_overlap():
    paragraphs = [" ".join(f"p{i}w{j}" for j in range(12)) for i in range(10)]
    text = "# Hbig\n\n" + "\n\n".join(paragraphs) + "\n"
    lines = text.split("\n")
    chunks = chunk_document(md(text, body_line=3), 40, overlap_words=6)
    assert len(chunks) > 1
    for c in chunks:
        assert len(words(body_of(c.text))) <= 40
    for c in chunks[1:]:
        assert c.text.startswith("Hbig\n")  # continuation names its heading
    # Each piece after the first repeats the last words of the previous one.
    for prev, nxt in zip(chunks, chunks[1:]):
        tail = words(body_of(prev.text))[-3:]
        assert " ".join(tail) in body_of(nxt.text)
    # Paragraphs are never cut when they fit: each paragraph appears whole somewhere.
    for p in paragraphs:
        assert any(p in c.text for c in chunks)
    file_lines = ["---", "x: 1"] + lines  # body_line=3: two lines of front matter before
    assert_maps_back(chunks, file_lines)


def test_overlap_default_is_about_15_percent():
    text = "\n".join(" ".join(f"l{i}w{j}" for j in range(10)) for i in range(40))  # one paragraph
    chunks = chunk_document(md(text), 100)
    assert len(chunks) > 1
    first, second = words(chunks[0].text), words(chunks[1].text)
    overlap = next(n for n in range(len(second), 0, -1) if first[-n:] == second[:n])
    assert 10 <= overlap <= 15


def test_huge_line_is_split_by_sentences_then_words():
    sentences = [" ".join(f"s{i}w{j}" for j in range(8)) + "." for i in range(20)]
    huge_line = " ".join(sentences)
    text = f"intro\n\n{huge_line}\n\n" + " ".join(f"x{j}" for j in range(300)) + "\nlast\n"
    lines = text.split("\n")
    chunks = chunk_document(md(text), 30)
    for c in chunks:
        assert len(words(c.text)) <= 30
    for s in sentences:  # sentences fit, so none is cut
        assert any(s in c.text for c in chunks)
    on_line_3 = [c for c in chunks if c.line_start == c.line_end == 3]
    assert len(on_line_3) >= 5
    on_line_5 = [c for c in chunks if c.line_start <= 5 <= c.line_end]
    assert {w for c in on_line_5 for w in words(c.text)} >= set(lines[4].split())
    assert_maps_back(chunks, lines)


def test_line_ranges_map_back_through_front_matter(tmp_path):
    filler = " ".join(["lorem"] * 20)
    content = ("---\ntrust: owner\nupdated: 2025-01-01\n---\n"
               "# Hnotes\n\nalpha beta gamma\n\n## Hsetup\n"
               + "\n".join(f"setup{i} {filler}" for i in range(6))
               + "\n\n## Hend\nomega\n")
    (tmp_path / "n.md").write_text(content.replace("\n", "\r\n"))
    doc = read_document(tmp_path, "n.md", MARKDOWN)
    chunks = chunk_document(doc, 50)
    file_lines = content.split("\n")
    assert_maps_back(chunks, file_lines)
    first = chunks[0]
    assert first.line_start == 5 and file_lines[4] == "# Hnotes"
    omega = [c for c in chunks if "omega" in c.text]
    assert omega and all(c.line_end == file_lines.index("omega") + 1 for c in omega)


def test_deterministic():
    text = "\n\n".join(f"## H{i}\n" + " ".join(f"w{i}x{j}" for j in range(i * 7)) for i in range(15))
    doc = md(text, body_line=4)
    a = chunk_document(doc, 30)
    b = chunk_document(md(text, body_line=4), 30)
    assert [(c.index, c.text, c.line_start, c.line_end, c.hash) for c in a] == \
           [(c.index, c.text, c.line_start, c.line_end, c.hash) for c in b]
    assert [c.index for c in a] == list(range(len(a)))


def test_parameter_validation():
    with pytest.raises(ValueError):
        chunk_document(md("x"), 0)
    with pytest.raises(ValueError):
        chunk_document(md("x"), 10, overlap_words=10)
    with pytest.raises(ValueError):
        chunk_document(md("x"), 10, overlap_words=-1)
    with pytest.raises(ValueError):
        chunk_document(Document(path="x", kind="pdf", text="x"), 10)


# ---------------------------------------------------------------- edits stay local

FIVE_SECTIONS = {
    "Hpeople": "martin is a hardware engineer in munich who designs motor controllers for robots",
    "Hmeetings": "short standups at half past nine never after four and always with an agenda",
    "Hfamily": "his daughter lena starts school in september and his partner sam plays the cello",
    "Hcontacts": "signal over email for anything urgent and the office number is in the address book",
    "Hprojects": "board revision c is due in april after the heat sink is resized with jonas",
}


def five_section_note(edit_key=None, extra=""):
    parts = ["# Hmartin", "notes about martin kept by his assistant"]
    for key, body in FIVE_SECTIONS.items():
        parts += ["", f"## {key}", "", body + (" " + extra if key == edit_key and extra else "")]
    return "\n".join(parts) + "\n"


def section_lines(text, key):
    lines = text.split("\n")
    start = lines.index(f"## {key}") + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("## ")), len(lines))
    return start, end  # 1-based first line, last line


def touching(chunks, start, end):
    return [c for c in chunks if c.line_start <= end and c.line_end >= start]


@pytest.mark.parametrize("max_words", [20, 35, 60, 200])
@pytest.mark.parametrize("key", list(FIVE_SECTIONS))
@pytest.mark.parametrize("extra", ["and one more thing to remember", "x"])
def test_editing_one_section_changes_only_chunks_touching_it(max_words, key, extra):
    before_text, after_text = five_section_note(), five_section_note(key, extra)
    before = chunk_document(md(before_text), max_words)
    after = chunk_document(md(after_text), max_words)
    start, end = section_lines(after_text, key)  # same lines before and after: the edit is within a line
    as_rows = lambda chunks: {(c.text, c.line_start, c.line_end) for c in chunks}  # noqa: E731 (a one-line closure handed on)
    assert as_rows(after) != as_rows(before)
    # Every old chunk that did not touch the edited section is still there, unchanged: not re-embedded.
    untouched_before = [c for c in before if c.line_end < start or c.line_start > end]
    assert as_rows(untouched_before) <= as_rows(after)
    # Anything new lies within what the old chunks touching the section covered (the section grew,
    # so the group that held it may have had to be cut in two; nothing beyond it moves).
    old_span = touching(before, start, end)
    lo, hi = min(c.line_start for c in old_span), max(c.line_end for c in old_span)
    for c in after:
        if (c.text, c.line_start, c.line_end) not in as_rows(before):
            assert lo <= c.line_start and c.line_end <= hi


def test_prepending_a_section_does_not_reshape_the_rest():
    """A log with the newest entry on top: greedy packing from the start would shift every chunk."""
    entries = [f"## H2025x{i:02d}\n" + " ".join(f"e{i}w{j}" for j in range(9)) for i in range(40)]
    old = chunk_document(md("\n".join(entries)), 40)
    new = chunk_document(md("## H2026x01\n" + " ".join(["fresh"] * 9) + "\n" + "\n".join(entries)), 40)
    old_texts, new_texts = {c.text for c in old}, {c.text for c in new}
    # Only the chunks on the way from the new entry to the top of the heading-rank tree change
    # (expected about log2(40) of them); greedy packing from the top would change nearly all.
    assert len(old_texts - new_texts) <= 8
    assert len(new_texts - old_texts) <= 8
    assert len(old_texts & new_texts) >= len(old_texts) - 8


@settings(max_examples=300, deadline=None)
@given(sizes=st.lists(st.integers(1, 60), min_size=2, max_size=12),
       titles=st.lists(st.integers(0, 10**6), min_size=12, max_size=12, unique=True),
       max_words=st.integers(5, 80), data=st.data())
def test_an_edit_only_reshapes_the_group_holding_the_section(sizes, titles, max_words, data):
    """Chunks outside the edited section's group (before or after the edit) keep text and lines.

    The group is the span of the chunks that contain part of the section; it
    may gain or lose neighbours when the section grows or shrinks, but what
    lies beyond it must not move. Greedy packing fails this.
    """
    def note(sizes):
        return "\n".join(f"## H{titles[i]}\n" + " ".join(f"s{i}w{j}" for j in range(n))
                         for i, n in enumerate(sizes)) + "\n"

    k = data.draw(st.integers(0, len(sizes) - 1))
    edited = list(sizes)
    edited[k] = data.draw(st.integers(1, 60))
    before = chunk_document(md(note(sizes)), max_words)
    after = chunk_document(md(note(edited)), max_words)
    section = (2 * k + 1, 2 * k + 2)  # its heading line and its one body line
    holding = [c for c in before + after if c.line_start <= section[1] and c.line_end >= section[0]]
    first, last = min(c.line_start for c in holding), max(c.line_end for c in holding)

    def outside(chunks):
        return [(c.text, c.line_start, c.line_end) for c in chunks if c.line_end < first or c.line_start > last]

    assert outside(before) == outside(after)


# ---------------------------------------------------------------- markdown properties

title = st.integers(0, 999).map(lambda n: f"H{n}")
word = st.sampled_from(["alpha", "beta", "gamma", "delta", "end.", "why?", "x", "long-word", "a"])
text_line = st.lists(word, min_size=1, max_size=60).map(" ".join)
block = st.one_of(
    st.tuples(st.integers(1, 6), title).map(lambda t: "#" * t[0] + " " + t[1]),
    text_line,
    st.just(""),
    st.just("   "),
    st.lists(text_line, min_size=1, max_size=4).map(lambda ls: "```\n# Hcode\n" + "\n".join(ls) + "\n```"),
    st.just("```"),  # an unclosed fence now and then
)


@settings(max_examples=300, deadline=None)
@given(blocks=st.lists(block, max_size=40), max_words=st.integers(2, 60),
       body_line=st.integers(1, 5), overlap=st.floats(0, 0.5), crlf=st.booleans())
def test_markdown_chunk_properties(blocks, max_words, body_line, overlap, crlf):
    text = "\n".join(blocks)
    if crlf:
        text = text.replace("\n", "\r\n")
    overlap_words = min(int(max_words * overlap), max_words - 1)
    doc = md(text, body_line=body_line)
    chunks = chunk_document(doc, max_words, overlap_words)
    file_lines = ["front matter"] * (body_line - 1) + text.split("\n")

    assert [c.index for c in chunks] == list(range(len(chunks)))
    if not text.strip():
        assert chunks == []
    # line ranges inside the body, in order
    for c in chunks:
        assert body_line <= c.line_start <= c.line_end <= len(file_lines)
    assert [c.line_start for c in chunks] == sorted(c.line_start for c in chunks)
    assert [c.line_end for c in chunks] == sorted(c.line_end for c in chunks)
    # size: the chunk's own words fit the budget; only a heading-path line may come on top
    for c in chunks:
        assert len(words(body_of(c.text))) <= max_words
        assert len(words(c.text)) <= max_words + 11  # at most six titles and five separators
    # each chunk's words come from its own line range
    assert_maps_back(chunks, file_lines)
    # every word of every line is in a chunk that covers that line
    for number, line in enumerate(file_lines[body_line - 1:], body_line):
        covering = Counter()
        for c in chunks:
            if c.line_start <= number <= c.line_end:
                covering.update(words(c.text))
        assert set(line.split()) <= set(covering), (number, line)
    # deterministic
    assert [(c.text, c.line_start, c.line_end) for c in chunk_document(md(text, body_line), max_words,
                                                                       overlap_words)] == \
           [(c.text, c.line_start, c.line_end) for c in chunks]


# ---------------------------------------------------------------- transcripts

def tdoc(turns):
    return Document(path="t.jsonl", kind=TRANSCRIPT, turns=turns)


def test_transcript_windows_overlap_by_one_turn():
    turns = [Turn("user" if i % 2 == 0 else "assistant", " ".join(f"t{i}w{j}" for j in range(9)), line=i + 1)
             for i in range(8)]
    chunks = chunk_document(tdoc(turns), 25)
    assert len(chunks) > 1
    for c in chunks:
        assert len(words(c.text)) <= 25
        for line in c.text.split("\n"):
            assert line.startswith(("user: ", "assistant: "))
    for prev, nxt in zip(chunks, chunks[1:]):
        assert nxt.text.split("\n")[0] == prev.text.split("\n")[-1]
        assert nxt.line_start == prev.line_end
    assert chunks[0].line_start == 1 and chunks[-1].line_end == 8
    for t in turns:
        assert any(f"{t.speaker}: {t.text}" in c.text for c in chunks)


def test_transcript_fits_in_one_chunk():
    turns = [Turn("summary", "planning", 1), Turn("user", "hi", 3), Turn("Caroline", "hello", 7)]
    chunks = chunk_document(tdoc(turns), 100)
    assert [(c.text, c.line_start, c.line_end) for c in chunks] == [
        ("summary: planning\nuser: hi\nCaroline: hello", 1, 7)]


def test_oversized_turn_is_split_by_words_on_its_line():
    long_text = " ".join(f"w{j}" for j in range(100))
    turns = [Turn("user", "short question", 1), Turn("assistant", long_text, 2), Turn("user", "thanks", 3)]
    chunks = chunk_document(tdoc(turns), 30, overlap_words=5)
    pieces = [c for c in chunks if c.line_start == c.line_end == 2]
    assert len(pieces) >= 4
    for c in chunks:
        assert len(words(c.text)) <= 30
    for p in pieces:
        assert p.text.startswith("assistant: ")
    covered = {w for p in pieces for w in words(p.text)}
    assert covered >= set(long_text.split())
    for prev, nxt in zip(pieces, pieces[1:]):  # overlap between word pieces
        assert words(prev.text)[-5:] == words(nxt.text)[1:6]
    assert chunks[0].text == "user: short question" and chunks[-1].text == "user: thanks"


def test_transcript_line_ranges_map_back_to_the_file(tmp_path):
    rows = []
    for i in range(30):
        rows.append(json.dumps({"speaker": f"P{i % 3}", "text": " ".join(f"r{i}w{j}" for j in range(i % 7 + 1))}))
        if i % 5 == 0:
            rows.append(json.dumps({"type": "system", "content": "noise"}))
    (tmp_path / "t.jsonl").write_text("\n".join(rows) + "\n")
    doc = read_document(tmp_path, "t.jsonl", TRANSCRIPT)
    chunks = chunk_document(doc, 12)
    for c in chunks:
        span = "\n".join(rows[c.line_start - 1:c.line_end])
        for line in c.text.split("\n"):
            _, _, said = line.partition(": ")
            for w in said.split():
                assert w in span


@settings(max_examples=200, deadline=None)
@given(turns=st.lists(st.tuples(st.sampled_from(["user", "assistant", "Ann"]),
                                st.lists(word, min_size=1, max_size=50).map(" ".join),
                                st.integers(1, 3)), max_size=25),
       max_words=st.integers(2, 60))
def test_transcript_chunk_properties(turns, max_words):
    line = 0
    built = []
    for speaker, text, gap in turns:
        line += gap
        built.append(Turn(speaker, text, line))
    chunks = chunk_document(tdoc(built), max_words)
    assert [c.index for c in chunks] == list(range(len(chunks)))
    assert (chunks == []) == (built == [])
    for c in chunks:
        assert len(words(c.text)) <= max_words
        assert c.line_start <= c.line_end
    assert [c.line_start for c in chunks] == sorted(c.line_start for c in chunks)
    for t in built:
        covering = [c for c in chunks if c.line_start <= t.line <= c.line_end]
        assert set(t.text.split()) <= {w for c in covering for w in words(c.text)}


# ---------------------------------------------------------------- transcript date lines

UTC = timezone.utc


def at(day, hour=12, minute=0, tz=UTC):
    return datetime(2023, 5, day, hour, minute, tzinfo=tz)


def split_date_line(chunk_text):
    """(date line, the rest) of a transcript chunk; ("", text) without one."""
    first, _, rest = chunk_text.partition("\n")
    return (first, rest) if re.fullmatch(r"\[\d{4}-\d\d-\d\d.*\]", first) else ("", chunk_text)


def test_chunk_of_one_day_starts_with_its_date():
    turns = [Turn("Caroline", "I went to the support group.", 1, at(8, 13, 56)),
             Turn("Melanie", "How was it?", 2, at(8, 14, 2))]
    chunks = chunk_document(tdoc(turns), 100)
    assert [(c.text, c.line_start, c.line_end) for c in chunks] == [
        ("[2023-05-08, Monday 8 May 2023]\nCaroline: I went to the support group.\nMelanie: How was it?", 1, 2)]


def test_chunk_spanning_days_names_the_range():
    turns = [Turn("user", "start", 1, at(8)), Turn("assistant", "middle", 2, at(9)),
             Turn("user", "end", 3, at(10, 23, 59))]
    assert chunk_document(tdoc(turns), 100)[0].text.split("\n")[0] == \
        "[2023-05-08 – 2023-05-10, Monday 8 May – Wednesday 10 May 2023]"
    new_year = [Turn("user", "late", 1, datetime(2023, 12, 31, 23, tzinfo=UTC)),
                Turn("user", "early", 2, datetime(2024, 1, 1, 1, tzinfo=UTC))]
    assert date_context(new_year) == \
        "[2023-12-31 – 2024-01-01, Sunday 31 December 2023 – Monday 1 January 2024]"


def test_date_line_uses_utc_days_and_fixed_english_names():
    # 23:30 at UTC-5 is the next day in UTC; a naive time is taken as UTC, not as local time.
    evening = datetime(2023, 5, 8, 23, 30, tzinfo=timezone(timedelta(hours=-5)))
    assert date_context([Turn("a", "x", 1, evening)]) == "[2023-05-09, Tuesday 9 May 2023]"
    assert date_context([Turn("a", "x", 1, datetime(2023, 5, 8, 23, 30))]) == "[2023-05-08, Monday 8 May 2023]"
    week = [date_context([Turn("a", "x", 1, at(day))]) for day in range(8, 15)]
    assert [w.split(", ")[1].split()[0] for w in week] == [
        "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    months = [date_context([Turn("a", "x", 1, datetime(2024, m, 1, tzinfo=UTC))]).split()[3] for m in range(1, 13)]
    assert months == ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                      "October", "November", "December"]


def test_turns_without_timestamps_are_left_out_of_the_range():
    turns = [Turn("summary", "plan", 1), Turn("user", "hi", 2, at(8)), Turn("assistant", "hello", 3)]
    assert chunk_document(tdoc(turns), 100)[0].text == "[2023-05-08, Monday 8 May 2023]\nsummary: plan\nuser: hi\n" \
        "assistant: hello"
    assert date_context([Turn("user", "hi", 1)]) == ""
    # A chunk none of whose turns has a time gets no line, even when its neighbours do.
    turns = [Turn("user", "one two three four", 1, at(8)), Turn("user", "five six seven eight", 2),
             Turn("user", "nine ten eleven twelve", 3)]
    texts = [c.text for c in chunk_document(tdoc(turns), 5)]
    assert texts == ["[2023-05-08, Monday 8 May 2023]\nuser: one two three four", "user: five six seven eight",
                     "user: nine ten eleven twelve"]


def test_date_line_is_context_not_budget():
    """With timestamps, every chunk is the same as without, behind its date line."""
    plain = [Turn("user" if i % 2 == 0 else "assistant", " ".join(f"t{i}w{j}" for j in range(9)), line=i + 1)
             for i in range(12)]
    dated = [Turn(t.speaker, t.text, t.line, at(8 + i // 5)) for i, t in enumerate(plain)]
    without, with_dates = chunk_document(tdoc(plain), 25), chunk_document(tdoc(dated), 25)
    assert len(without) == len(with_dates) > 2
    for a, b in zip(without, with_dates):
        line, rest = split_date_line(b.text)
        assert line and rest == a.text and (a.line_start, a.line_end) == (b.line_start, b.line_end)
        assert len(words(rest)) <= 25
    assert {split_date_line(c.text)[0] for c in with_dates} >= {
        "[2023-05-08, Monday 8 May 2023]", "[2023-05-08 – 2023-05-09, Monday 8 May – Tuesday 9 May 2023]"}


def test_pieces_of_an_oversized_turn_carry_its_date():
    long_text = " ".join(f"w{j}" for j in range(100))
    turns = [Turn("user", "short question", 1, at(8)), Turn("assistant", long_text, 2, at(9, 0, 5))]
    chunks = chunk_document(tdoc(turns), 30, overlap_words=5)
    assert chunks[0].text == "[2023-05-08, Monday 8 May 2023]\nuser: short question"
    pieces = chunks[1:]
    assert len(pieces) >= 4
    for p in pieces:
        line, rest = split_date_line(p.text)
        assert line == "[2023-05-09, Tuesday 9 May 2023]" and rest.startswith("assistant: ")
        assert len(words(rest)) <= 30 and p.line_start == p.line_end == 2


def test_an_oversized_turn_is_cut_between_its_tool_lines():
    actions = [f"[Bash: pytest -q tests/test_{i}.py]" for i in range(20)]
    turn = Turn("assistant", "I ran the whole suite file by file.", 7, at(8), line_end=60, actions=actions)
    chunks = chunk_document(tdoc([turn]), 30, overlap_words=5)
    assert len(chunks) > 2
    for chunk in chunks:
        _, rest = split_date_line(chunk.text)
        assert rest.startswith("assistant: ") and len(words(rest)) <= 30
        assert (chunk.line_start, chunk.line_end) == (7, 60)
        for line in rest.removeprefix("assistant: ").split("\n"):
            assert line in [turn.text, *actions], line  # whole lines only, never half a tool line
    seen = {line for c in chunks for line in split_date_line(c.text)[1].removeprefix("assistant: ").split("\n")}
    assert seen == {turn.text, *actions}


def test_timestamped_jsonl_file_gets_date_lines(tmp_path):
    rows = [
        {"type": "user", "timestamp": "2025-06-01T09:31:02.123Z", "message": {"role": "user", "content": "When?"}},
        {"type": "assistant", "timestamp": "2025-06-02T08:00:00Z",
         "message": {"role": "assistant", "content": "Tomorrow."}},
        {"type": "user", "timestamp": "2025-06-02T09:00:00Z", "message": {"role": "user", "content": "Noted."}},
    ]
    (tmp_path / "t.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    doc = read_document(tmp_path, "t.jsonl", TRANSCRIPT)
    [chunk] = chunk_document(doc, 100)
    assert chunk.text == ("[2025-06-01 – 2025-06-02, Sunday 1 June – Monday 2 June 2025]\n"
                          "user: When?\nassistant: Tomorrow.\nuser: Noted.")
    assert (chunk.line_start, chunk.line_end) == (1, 3)


@settings(max_examples=200, deadline=None)
@given(turns=st.lists(st.tuples(st.sampled_from(["user", "assistant", "Ann"]),
                                st.lists(word, min_size=1, max_size=50).map(" ".join),
                                st.integers(1, 3),
                                st.one_of(st.none(), st.integers(0, 3 * 24 * 60))), max_size=25),
       max_words=st.integers(2, 60))
def test_dated_transcript_chunks_are_the_plain_chunks_behind_their_turns_dates(turns, max_words):
    line, plain, dated = 0, [], []
    for speaker, text, gap, minutes in turns:
        line += gap
        plain.append(Turn(speaker, text, line))
        stamp = None if minutes is None else datetime(2023, 5, 8, tzinfo=UTC) + timedelta(minutes=minutes)
        dated.append(Turn(speaker, text, line, stamp))
    a, b = chunk_document(tdoc(plain), max_words), chunk_document(tdoc(dated), max_words)
    assert b == chunk_document(tdoc(dated), max_words)  # deterministic
    assert [(c.index, c.line_start, c.line_end) for c in a] == [(c.index, c.line_start, c.line_end) for c in b]
    for x, y in zip(a, b):
        inside = [t for t in dated if y.line_start <= t.line <= y.line_end]
        context = date_context(inside)
        assert y.text == (f"{context}\n{x.text}" if context else x.text)


# ---------------------------------------------------------------- scripts written without spaces

JAPANESE = "ゆきさんの歯医者の予約は十二月十八日の午後三時です。場所は駅前の田中デンタルクリニックで、保険証を忘れないこと。"


def test_words_of_scripts_without_spaces_are_counted_by_characters():
    from tachikoma.chunking import RUN_CHARACTERS_PER_WORD, word_count

    assert word_count("the boiler service is on Tuesday") == 6
    assert word_count("歯医者の予約") == -(-6 // RUN_CHARACTERS_PER_WORD)
    assert word_count("Call 김민수 about the 견적서") == 1 + 2 + 1 + 1 + 2  # Hangul syllables too
    assert word_count("München Straße") == 2


def test_a_japanese_paragraph_without_breaks_is_cut_into_chunks_an_embedder_reads_whole():
    """Before, a paragraph without spaces was one word: a Japanese or Chinese note became one chunk of
    thousands of characters, most of them past the embedder's window. It is cut at 。 into sentences, and a
    sentence too long for a chunk inside its run; nothing is lost, and no space is put between sentences."""
    from tachikoma.chunking import word_count

    text = "".join(f"第{i}回。{JAPANESE}" for i in range(100))  # about 6,000 characters, one line
    chunks = chunk_document(md(text), 80)
    assert len(chunks) > 30 and all(word_count(c.text) <= 80 for c in chunks)
    assert all(" " not in c.text and c.text in text for c in chunks)
    covered = set()
    for c in chunks:
        start = text.find(c.text)
        covered.update(range(start, start + len(c.text)))
    assert covered == set(range(len(text)))  # every character is in a chunk
    long_run = "歯" * 5000  # no punctuation at all: cut inside the run
    pieces = chunk_document(md(long_run), 80)
    assert len(pieces) > 30 and all(word_count(p.text) <= 80 for p in pieces)


def test_an_english_note_is_cut_as_before():
    """Words between spaces: the counts and cuts of a note without such scripts do not change (every note of
    the example and everyday memories gave the same chunks as the previous rules, session 30)."""
    from tachikoma.chunking import word_count

    text = "The boiler is serviced every October. Call Brandl before nine! " * 40
    chunks = chunk_document(md(text), 80)
    assert len(chunks) == 6 and all(word_count(c.text) == len(c.text.split()) <= 80 for c in chunks)


def test_a_notes_first_chunk_opens_with_what_its_front_matter_names_it():
    """Claude Code's memory notes say what they are in front matter (`name`, `description`) and Obsidian notes give
    other names (`aliases`): the passages held none of it, so "HK" found only the note that links to Hannah Kessler
    by that name, not hers by its words. The first chunk opens with it, as a heading path (`front_matter_line`)."""
    from tachikoma.chunking import chunk_document, front_matter_line
    from tachikoma.reading.documents import MARKDOWN, Document

    assert front_matter_line({"name": "Webhook retry policy", "type": "project",
                              "description": "the retry policy decided for outgoing merchant webhooks"},
                             "Decided 2026-10-14 with Priya") == \
        "Webhook retry policy: the retry policy decided for outgoing merchant webhooks"
    assert front_matter_line({"aliases": ["Prof. Kessler", "HK"], "tags": ["people"]},
                             "# Hannah Kessler\nMy second supervisor.") == "also Prof. Kessler, HK"
    # what the chunk already says is not said again; only text values count
    assert front_matter_line({"title": "Hannah Kessler", "aliases": "HK"}, "# Hannah Kessler") == "also HK"
    assert front_matter_line({"Title": "Hannah", "Aliases": ["HK", "HK"]}, "x") == "Hannah (also HK)"
    assert front_matter_line({"aliases": [1, None, {"a": 1}], "title": 2026, "trust": "owner"}, "x") == ""
    assert len(front_matter_line({"description": "word " * 200}, "x")) <= 300

    doc = Document(path="people/hk.md", kind=MARKDOWN, text="# Hannah Kessler\n\n" + "Office 3.14. " * 200,
                   meta={"aliases": ["HK"]})
    first, second, *_ = chunk_document(doc, 80)
    assert first.text.startswith("also HK\n# Hannah Kessler") and "HK" not in second.text


def test_a_bullet_holding_a_heading_is_a_heading_as_one_at_line_start_is():
    """Logseq (and other outliners) write headings as bullets, `- ## What it is`, indented under their parents:
    they cut sections and give the heading path exactly as `## What it is` does. A bullet is a heading only as
    CommonMark reads one (`#` to `######`, then a space, then a title): `- #tag`, `- #1 priority`, `-## x` and a
    heading mark in a code block are not."""
    body = " ".join(f"w{i}" for i in range(30))
    outline = (f"- ## Harbour\n\t- {body}\n\t- ### Incidents\n\t\t- {body}\n- ## Rollout\n\t- {body}\n"
               f"\t* ### Dates\n\t\t- {body}\n")
    plain = f"## Harbour\n\t- {body}\n### Incidents\n\t\t- {body}\n## Rollout\n\t- {body}\n### Dates\n\t\t- {body}\n"
    cut = chunk_document(md(outline), 40)
    same = chunk_document(md(plain), 40)
    assert [(c.line_start, c.line_end) for c in cut] == [(c.line_start, c.line_end) for c in same] == \
        [(1, 2), (3, 4), (5, 6), (7, 8)]
    assert [c.text.split("\n")[0] for c in cut] == ["- ## Harbour", f"Harbour {SEP} Incidents", "- ## Rollout",
                                                    f"Rollout {SEP} Dates"]
    not_headings = (f"- #tag {body}\n- #1 priority {body}\n-## glued {body}\n```\n- ## in code\n```\n"
                    f"- ## \n- {body}\n")
    assert [(c.line_start, c.line_end) for c in chunk_document(md(not_headings), 200)] == [(1, 8)]
    for budget in (40, 70):  # cut where the same lines without a "#" are cut: by size alone
        assert [(c.line_start, c.line_end, c.text.replace("#", "x")) for c in chunk_document(md(not_headings), budget)] \
            == [(c.line_start, c.line_end, c.text) for c in chunk_document(md(not_headings.replace("#", "x")), budget)]
