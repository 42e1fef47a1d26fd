"""The dashboard's pure presentation functions, without Flask.

`tachikoma.web.render`: query-word highlighting, snippets, the score
explanation and its arithmetic, dates and numbers.
`tachikoma.web.memory_file`: markdown split into blocks and sanitised,
links between memory files, transcript turns and line ranges.
"""

from __future__ import annotations

import math
import random
import re
import time
from datetime import datetime, timedelta, timezone

import pytest
from markupsafe import Markup

from tachikoma.reading.documents import Turn
from tachikoma.web.memory_file import (join_rel, mark_first, parse_lines, render_markdown, sanitise, speaker_class,
                                       split_blocks, transcript_turns)
from tachikoma.search.explain import fusion_text, recency_why
from tachikoma.web.render import ago, explain, fraction, highlight, pct, plural, query_terms, snippet, when


def file_link(rel: str) -> str:
    return "/file/" + rel


# --------------------------------------------------------------------------- highlighting and snippets


def test_query_terms_drop_stop_words_and_single_letters_longest_first():
    assert query_terms("When does Martin like the meetings? a x") == ["meetings", "martin", "like"]
    assert query_terms("") == [] and query_terms(None) == []


def test_highlight_escapes_first_then_marks():
    text = "The <b>meeting</b> & the <script>alert(1)</script> tag."
    html = highlight(text, "meeting script")
    assert isinstance(html, Markup)
    assert html == ("The &lt;b&gt;<mark>meeting</mark>&lt;/b&gt; &amp; the "
                    "&lt;<mark>script</mark>&gt;alert(1)&lt;/<mark>script</mark>&gt; tag.")


def test_highlight_marks_only_escaped_text_even_for_markup_in_the_query():
    # the query's "<mark>" is a word "mark"; the text's tags never come through as tags
    html = highlight('<mark onclick="x()">mark</mark>', "<mark>")
    assert "<mark onclick" not in html
    assert html == '&lt;<mark>mark</mark> onclick=&#34;x()&#34;&gt;<mark>mark</mark>&lt;/<mark>mark</mark>&gt;'


def test_highlight_matches_word_starts_case_insensitively():
    assert highlight("Meetings and remeet", "meet") == "<mark>Meetings</mark> and remeet"


def test_highlight_without_query_words_only_escapes():
    assert highlight("a < b", "the of") == "a &lt; b"


def test_highlight_matches_inflections_as_the_keyword_index_does():
    # FTS5's porter stemmer matched these, so the page marks them too
    assert highlight("Two retries, then it retried.", "retry") == "Two <mark>retries</mark>, then it <mark>retried</mark>."
    assert highlight("The meeting ran long", "meetings") == "The <mark>meeting</mark> ran long"
    assert highlight("configuration", "config") == "configuration"  # no stem in common: not a keyword match


def test_highlight_keeps_offsets_with_private_use_characters_in_memory():
    assert highlight("\ue000retry\ue001 retries", "retry") == "\ue000<mark>retry</mark>\ue001 <mark>retries</mark>"


def test_snippet_leaves_out_markdown_syntax():
    text = "# Motor\n\n## Decisions\n\n| Part | Choice |\n|---|:---:|\n| driver | **DRV8353** |\n```\ncode\n```"
    assert snippet(text, "driver") == "Motor\nDecisions\nPart · Choice\ndriver · DRV8353\ncode"


def test_snippet_leaves_out_a_bullet_headings_marks_too():
    """A bullet holding a heading, as Logseq writes one (`- ## Checks`, at any depth), is a heading to the chunker, but
    the snippet showed its `- ##`, where `## Checks` at a line's start shows as `Checks`. Failed before."""
    text = "- ## Checks\n\t- ### Disk ###\n\t- df -h on every host\n- #tag stays\n- ##"
    assert snippet(text, "disk") == "Checks\nDisk\n\t- df -h on every host\n- #tag stays\n- ##"  # no title: no heading


def test_snippet_short_text_loses_blank_lines_only():
    assert snippet("one\n\n\ntwo\n", "x") == "one\ntwo"


def test_snippet_long_text_is_cut_around_the_first_query_word():
    text = " ".join(f"word{i}" for i in range(200)) + " needle " + " ".join(f"tail{i}" for i in range(200))
    cut = snippet(text, "needle", width=120)
    assert cut.startswith("… ") and cut.endswith(" …")
    assert "needle" in cut
    assert len(cut) <= 120 + 4
    assert snippet(text, "zzz", width=120).startswith("word0 ")


# --------------------------------------------------------------------------- the score explanation


def factors(similarity=0.5, trust=1.0, confidence=1.0, recency=0.8, penalty=1.0, **extra) -> dict:
    return {"similarity": similarity, "trust": "owner", "trust_weight": trust, "confidence": "high",
            "confidence_weight": confidence, "age_days": 3.2, "date_source": "git", "date": "2026-03-01T00:00:00+00:00",
            "recency": recency, "duplicate_penalty": penalty, **extra}


def result(f: dict) -> dict:
    score = f["similarity"] * f["trust_weight"] * f["confidence_weight"] * f["recency"] * f["duplicate_penalty"]
    return {"score": score, "factors": f}


def shown_score(arithmetic: str) -> str:
    return arithmetic.rsplit(" = ", 1)[1]


def test_arithmetic_equals_the_score_to_the_shown_precision():
    rng = random.Random(7)
    for _ in range(300):
        f = factors(rng.random(), rng.choice([1.0, 0.85, 0.5]), rng.choice([1.0, 0.8, 0.6]), rng.random(),
                    rng.choice([1.0, 1.0, 0.7, 0.49]))
        r = result(f)
        x = explain(r)
        assert shown_score(x["arithmetic"]) == f"{r['score']:.2f}"
        terms = [float(t) for t in x["arithmetic"].rsplit(" = ", 1)[0].split(" × ")]
        wanted = [f["similarity"], f["trust_weight"], f["confidence_weight"], f["recency"]]
        if f["duplicate_penalty"] < 1:
            wanted.append(f["duplicate_penalty"])
        assert terms == [round(t, 2) for t in wanted]
        # the factors as shown multiply to the shown score, give or take their rounding
        assert math.prod(terms) == pytest.approx(r["score"], abs=0.005 * len(terms) + 0.005)


def test_explanation_rows_and_formula():
    x = explain(result(factors(penalty=0.7)))
    assert [row["name"] for row in x["rows"]] == ["similarity", "trust", "confidence", "recency", "duplicate penalty"]
    assert x["formula"] == "similarity × trust × confidence × recency × duplicate penalty = score"
    assert x["rows"][3]["source"] == "2026-03-01, 3 days ago, from its last content commit"
    assert x["rows"][3]["title"].startswith("2026-03-01")
    assert x["rows"][4]["source"] == "a better passage from this file ranks above"
    first = explain(result(factors()))
    assert first["formula"] == "similarity × trust × confidence × recency = score"
    assert first["arithmetic"].count(" × ") == 3


def test_a_time_factor_is_its_own_row_and_term():
    f = factors(penalty=0.8)
    f.update(time=0.85, time_reason="time: 2026-02-10, asked 'in March', outside 2026-03")
    r = {"score": f["similarity"] * f["trust_weight"] * f["confidence_weight"] * f["recency"] * 0.85 * 0.8,
         "factors": f}
    x = explain(r)
    assert [row["name"] for row in x["rows"]] == ["similarity", "trust", "confidence", "recency", "time",
                                                  "duplicate penalty"]
    assert x["rows"][4]["source"] == "2026-02-10, asked 'in March', outside 2026-03"
    assert x["formula"] == "similarity × trust × confidence × recency × time × duplicate penalty = score"
    terms = [float(t) for t in x["arithmetic"].rsplit(" = ", 1)[0].split(" × ")]
    assert terms[4] == 0.85 and math.prod(terms) == pytest.approx(r["score"], abs=0.04)


@pytest.mark.parametrize("reason, rule, words", [
    ("evergreen", "default", "evergreen: its age never counts"),
    ("off", "off", "off for this search"),
    ("age", "seed", "2026-03-01, 3 days ago, from its last content commit; seed rule"),
    ("superseded", "default",
     "from its last content commit; superseded by b.md of 2026-04-01, which says much the same"),
])
def test_recency_row_says_why(reason, rule, words):
    f = factors()
    f.update(recency_reason=reason, recency_rule=rule, superseded_by={"path": "b.md", "date": "2026-04-01T00:00:00"})
    assert words in explain(result(f))["rows"][3]["source"]


def test_missing_tags_are_explained():
    f = factors()
    f.update(trust=None, confidence=None)
    rows = {row["name"]: row["source"] for row in explain(result(f))["rows"]}
    assert rows["trust"] == "not set or invalid"
    assert rows["confidence"] == "not set or invalid"


def test_hybrid_similarity_shows_meaning_and_keywords():
    f = factors(similarity=0.46, vector_similarity=0.3, keyword_score=0.7,
                fusion={"method": "convex", "keyword_weight": 0.4})
    rows = explain(result(f))["rows"]
    assert [row["name"] for row in rows[:3]] == ["similarity", "meaning", "keywords"]
    assert rows[0]["source"] == "0.60 × meaning 0.30 + 0.40 × keywords 0.70"
    assert rows[1]["source"] == "cosine of the query's and the passage's embeddings"
    assert rows[1]["sub"] and rows[2]["sub"]
    rrf = fusion_text({"vector_similarity": 0.3, "keyword_score": 0.7,
                       "fusion": {"method": "rrf", "keyword_weight": 0.5, "rrf_k": 60}})
    assert rrf == "reciprocal rank fusion of meaning (0.30) and keywords (0.70), keyword weight 0.5, k = 60"


# --------------------------------------------------------------------------- dates and numbers


@pytest.mark.parametrize("days,text", [
    (None, "never"), (0.0, "just now"), (1.5 / 1440, "1 minute ago"), (30 / 1440, "30 minutes ago"),
    (1 / 24, "1 hour ago"), (5.5 / 24, "5 hours ago"), (1.0, "1 day ago"), (12.9, "12 days ago"),
])
def test_ago(days, text):
    assert ago(days) == text


@pytest.mark.parametrize("age, days", [(0.2, "today"), (1.2, "1 day"), (216.4, "216 days")])
def test_recency_says_1_day(age, days):
    """The recency reason of every face: "1 day ago", not "1 days ago"."""
    factors = {"age_days": age, "date": "2026-12-02T10:00:00+00:00", "date_source": "git"}
    suffix = "" if days == "today" else " ago"
    assert recency_why(factors) == f"2026-12-02, {days}{suffix}, from its last content commit"


def test_when_reads_seconds_and_iso_text():
    assert when(None) == {"text": "never", "ago": "never", "iso": ""}
    now = time.time()
    assert when(now - 7200)["ago"] == "2 hours ago"
    assert when(str(now - 7200))["ago"] == "2 hours ago"
    moment = datetime.now(timezone.utc) - timedelta(days=3, minutes=1)
    shown = when(moment.isoformat().replace("+00:00", "Z"))
    assert shown["ago"] == "3 days ago"
    assert shown["iso"] == moment.isoformat(timespec="seconds")
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", shown["text"])
    assert when("2026-01-01T00:00:00")["iso"] == "2026-01-01T00:00:00+00:00"  # naive means UTC
    assert when("not a date") == {"text": "not a date", "ago": "", "iso": "not a date"}
    assert when(now + 3600)["ago"] == "just now"  # a clock ahead is not "in the future"


def test_numbers():
    assert pct(66.666) == "66.7%" and pct(50.0) == "50%" and pct(0) == "0%" and pct(None) == "–"
    assert fraction(1, 3) == pytest.approx(33.333, abs=1e-3) and fraction(3, 0) == 0.0
    assert plural(1, "file") == "1 file" and plural(0, "file") == "0 files" and plural(2, "warning") == "2 warnings"


# --------------------------------------------------------------------------- sanitising markdown


HOSTILE = """# Note <script>alert('title')</script>

<script>alert('body')</script>
<img src="x.png" onerror="alert('img')">
<svg onload="alert('svg')"><circle r="4"/></svg>
<a href="javascript:alert('a')">a link</a> and [md link](javascript:alert('md'))
[data link](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==) <a href="DATA:text/html,x">upper</a>
<a href=" JaVaScRiPt:alert(1)">spaced</a> <a href="vbscript:msgbox(1)">vb</a>
<div onclick="alert('div')" style="color:red" onmouseover="x()">styled</div>
<iframe src="https://example.org"></iframe> <object data="x"></object>
<form action="javascript:alert('form')"><button>go</button></form>
"""


def rendered(text: str, rel: str = "notes/hostile.md") -> str:
    return "".join(str(b.html) for b in render_markdown(text, 1, rel, None, file_link))


def test_sanitising_strips_scripts_handlers_and_dangerous_links():
    html = rendered(HOSTILE)
    lowered = html.lower()
    assert "<script" not in lowered and "alert('body')" not in html
    assert not re.search(r"\son[a-z]+\s*=", html)
    assert "javascript:" not in lowered and "vbscript:" not in lowered and "data:" not in lowered
    for tag in ("<iframe", "<object", "<form", "<svg", "style="):
        assert tag not in lowered
    assert "a link" in html and "md link" in html and "styled" in html  # the text stays, inert


def test_sanitising_keeps_safe_markdown():
    text = ("# Title\n\nSome *emphasis*, **strong** and `code`.\n\n- one\n- two\n\n"
            "```python\nprint('<hi>')\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
            "[site](https://example.org/x) and <mailto:someone@example.org>\n\n> quoted\n")
    html = rendered(text)
    for kept in ("<h2>Title</h2>", "<em>emphasis</em>", "<strong>strong</strong>", "<code>code</code>",
                 "<li>one</li>", "<table>", "<td>1</td>", "<blockquote>", "&lt;hi&gt;"):
        assert kept in html, kept
    assert '<a href="https://example.org/x" rel="noopener noreferrer nofollow">site</a>' in html
    assert 'href="mailto:' in html


def test_a_note_s_headings_are_a_level_below_its_page_s_title():
    """The file page's title is its h1; a note's own `# Title` was a second one. Every heading goes a level down (an h6
    stays h6), attributes kept; a heading written as text is still text."""
    html = rendered("# One\n\n## Two\n\n###### Six\n\n##### Five {#five}\n\nSay `<h1>` or <h1>raw</h1>.\n")
    assert "<h1" not in html.replace("&lt;h1&gt;", "")
    assert "<h2>One</h2>" in html and "<h3>Two</h3>" in html and "<h6>Six</h6>" in html
    assert "<code>&lt;h1&gt;</code>" in html and "<h2>raw</h2>" in html  # raw HTML, sanitised, goes down too


def test_sanitise_is_markup():
    assert isinstance(sanitise("<p>x</p>", "a.md", file_link), Markup)


# --------------------------------------------------------------------------- links between memory files


def test_relative_links_point_at_the_file_page():
    html = rendered("[sibling](other.md) [down](sub/x.md#part) [up](../top.md?x=1) ![pic](img/a.png)",
                    rel="notes/a.md")
    assert 'href="/file/notes/other.md"' in html
    assert 'href="/file/notes/sub/x.md"' in html
    assert 'href="/file/top.md"' in html
    assert 'src="/file/notes/img/a.png"' not in html  # a file page is no image: it answered 404


def test_relative_images_point_at_the_image_route_and_only_images():
    """Issue 18: `![](diagram.png)` pointed at the file page and answered 404."""
    def image_link(rel: str) -> str:
        return f"/image/{rel}"

    text = "![pic](img/a.PNG) ![up](../b.svg) ![note](other.md) ![out](../../c.png) [see](img/a.PNG) [doc](x.md)"
    html = "".join(str(b.html) for b in render_markdown(text, 1, "notes/a.md", None, file_link, image_link))
    assert '<img alt="pic" src="/image/notes/img/a.PNG">' in html and '<img alt="up" src="/image/b.svg">' in html
    assert '<img alt="note">' in html and '<img alt="out">' in html  # not an image in the memory: no source
    assert 'href="/image/notes/img/a.PNG"' in html and 'href="/file/notes/x.md"' in html


def test_links_that_leave_the_memory_folder_are_dropped():
    html = rendered("[escape](../../etc/passwd) [far](../../../x.md) [dots](./../../y.md)", rel="notes/a.md")
    assert "passwd" not in html and "x.md" not in html and "y.md" not in html
    assert html.count("<a") == 3 and "href" not in html  # the link text stays, without a target


@pytest.mark.parametrize("base,link,target", [
    ("a.md", "b.md", "b.md"),
    ("notes/a.md", "../b.md", "b.md"),
    ("notes/a.md", "./sub/../c.md", "notes/c.md"),
    ("notes/deep/a.md", "../../b.md#x", "b.md"),
    ("a.md", "../b.md", None),
    ("notes/a.md", "../../b.md", None),
    ("notes/a.md", "sub/../../../b.md", None),
    ("a.md", "#", None),
])
def test_join_rel(base, link, target):
    assert join_rel(base, link) == target


def test_link_rewriting_never_points_outside_the_memory_root():
    rng = random.Random(3)
    parts = ["..", ".", "a", "b", "", "c.md"]
    for _ in range(2000):
        base = "/".join([rng.choice(["x", "y", "z"]) for _ in range(rng.randint(0, 3))] + ["note.md"])
        link = "/".join(rng.choice(parts) for _ in range(rng.randint(1, 6)))
        if not link:
            continue  # href="" is this page: left alone
        target = join_rel(base, link)
        html = str(sanitise(f'<a href="{link}">l</a>', base, file_link))
        href = re.search(r'href="([^"]*)"', html)
        if link.startswith("/"):
            assert href.group(1) == link  # a dashboard address, not a file: left alone
        elif target is None:
            assert href is None, (base, link)
        else:
            assert ".." not in target.split("/") and "." not in target.split("/") and not target.startswith("/")
            assert href.group(1) == "/file/" + target


# --------------------------------------------------------------------------- blocks and line numbers


def test_split_blocks_keeps_file_line_numbers_fences_and_loose_lists():
    text = "# Title\n\npara one\npara two\n\n```\ncode\n\nstill code\n```\n\n- a\n\n- b\n\n  more b\n\nend"
    blocks = split_blocks(text, 10)
    assert [(b.start, b.end) for b in blocks] == [(10, 10), (12, 13), (15, 19), (21, 25), (27, 27)]
    assert blocks[2].lines[-1] == "```" and "" in blocks[2].lines
    assert blocks[3].lines == ["- a", "", "- b", "", "  more b"]


def test_render_markdown_marks_the_blocks_of_a_line_range():
    text = "# Title\n\nfirst\n\nsecond\n\nthird\n\n[ref]: https://example.org/r\n\nsee [it][ref]"
    blocks = render_markdown(text, 5, "a.md", (9, 11), file_link)
    assert [b.start for b in blocks if b.hit] == [9, 11]
    assert mark_first([b for b in blocks if b.hit]) is True
    assert [b.first for b in blocks] == [False, False, True, False, False]
    assert 'href="https://example.org/r"' in str(blocks[-1].html)  # reference links work in any block
    assert all(str(b.html).strip() for b in blocks)  # the definition alone renders nothing and is left out


@pytest.mark.parametrize("value,lines", [
    ("12-16", (12, 16)), ("16-12", (12, 16)), (" 3 ", (3, 3)), ("3–7", (3, 7)), ("3:7", (3, 7)),
    ("", None), (None, None), ("a-b", None), ("1-2-3", None), ("1234567890", None),
])
def test_parse_lines(value, lines):
    assert parse_lines(value) == lines


# --------------------------------------------------------------------------- transcripts


def test_transcript_turns_mark_hits_and_the_first():
    turns = [Turn("user", "hi", 1), Turn("assistant", "hello", 2), Turn("user", "bye", 3)]
    views = transcript_turns(turns, (2, 3))
    assert [v.hit for v in views] == [False, True, True]
    assert mark_first([v for v in views if v.hit]) is True
    assert [v.first for v in views] == [False, True, False]
    assert not any(v.hit for v in transcript_turns(turns, None))
    assert mark_first([]) is False


@pytest.mark.parametrize("speaker,cls", [("User", "user"), (" assistant ", "assistant"), ("tool", "tool"),
                                         ("Martin", "other"), ("", "other"), (None, "other")])
def test_speaker_class(speaker, cls):
    assert speaker_class(speaker) == cls


def test_transcript_passages_lose_their_context_and_date_lines():
    """A session hit's snippet starts with what was said, not with the chunk's context and date lines
    (the result shows the file and date above it)."""
    from tachikoma.chunking import date_context
    from tachikoma.transcripts.common import context_line
    from tachikoma.transcripts import without_context as passage

    context = context_line("Claude Code", {"session": "3f2a9c1d5e", "cwd": "/home/al/shop", "branch": "main",
                                           "model": "claude-sonnet-4-5"})
    sub = context_line("Codex", {"subagent": "a1b2c3d4e5", "subagent_name": "Explore", "session": "3f2a9c1d5e"})
    turns = [Turn(speaker="user", text="x", line=1, timestamp=datetime(2026, 3, 22, 9, tzinfo=timezone.utc)),
             Turn(speaker="user", text="y", line=2, timestamp=datetime(2026, 3, 24, 9, tzinfo=timezone.utc))]
    dates = date_context(turns)
    body = "user: Can you check when the samples arrive?\nassistant: Friday."
    assert passage(f"{context}\n{dates}\n{body}", "transcript") == body
    assert passage(f"{sub}\n{body}", "transcript") == body
    assert passage(f"{dates}\n{body}", "transcript") == body
    assert passage(f"{context}\n{dates}\n{body}", "markdown").startswith("Claude Code session")  # notes keep theirs
    said = "Claude Code is great\nuser: agreed"  # a line that only starts like a context line stays
    assert passage(said, "transcript") == said


@pytest.fixture
def zone(monkeypatch):
    """Set the machine's time zone for one test (and put it back)."""
    def use(name: str) -> None:
        monkeypatch.setenv("TZ", name)
        time.tzset()

    yield use
    monkeypatch.undo()
    time.tzset()


def _searched(factors_at: str, date: str, source: str) -> dict:
    """Factors as search makes them: `age_days` measured from `date` to the moment of the search."""
    moment = datetime.fromisoformat(date)
    age = (datetime.fromisoformat(factors_at) - moment).total_seconds() / 86400
    return {"date": moment.isoformat(timespec="seconds"), "age_days": age, "date_source": source}


@pytest.mark.parametrize("where", ["America/Los_Angeles", "Europe/Berlin", "Asia/Tokyo", "UTC"])
def test_days_are_calendar_days_in_the_users_zone_on_every_face(zone, where):
    """Issue 18: for 2026-11-25 the CLI said "9 days" and the dashboard "8 days ago" (round vs floor of
    24-hour periods); a note and a transcript of 2026-11-30 were "4 days" and "3 days". Days are now
    calendar days in the user's time zone, the same number on the CLI/MCP and the dashboard (which also
    say it in the same words, `search.explain`)."""
    from tachikoma.web.render import dated

    zone(where)
    at = datetime(2026, 12, 4, 18, 0).astimezone()  # 6 pm on 2026-12-04 where the user is
    cases = [
        (_searched(at.isoformat(), "2026-11-25T00:00:00+00:00", "path"), "2026-11-25", 9),
        (_searched(at.isoformat(), "2026-11-30T00:00:00+00:00", "frontmatter"), "2026-11-30", 4),
        # a turn at noon on 2026-11-30 in the user's zone
        (_searched(at.isoformat(), datetime(2026, 11, 30, 12, 0).astimezone().isoformat(), "transcript"),
         "2026-11-30", 4),
        (_searched(at.isoformat(), datetime(2026, 12, 4, 0, 5).astimezone().isoformat(), "git"), "2026-12-04", 0),
    ]
    for factors, day, days in cases:
        factors.update(recency_reason="age", recency_rule="default")
        words = "today" if days == 0 else f"{days} day{'s' if days != 1 else ''}"
        assert recency_why(factors).startswith(f"{day}, {'today' if days == 0 else words + ' ago'}, from ")
        assert dated(factors).startswith(f"{day}, from ")


def test_when_counts_a_day_or_more_in_calendar_days(zone):
    """"Index updated 2 days ago" for a time two calendar days back, even under 48 hours ago
    (24-hour periods said "1 day ago" then); under a day it stays hours and minutes."""
    zone("Europe/Berlin")
    now = datetime.now().astimezone()
    late = (now - timedelta(days=2)).replace(hour=23, minute=0, second=0, microsecond=0)
    assert when(late.isoformat())["ago"] == "2 days ago"
    assert when((now - timedelta(hours=5)).isoformat())["ago"] == "5 hours ago"
