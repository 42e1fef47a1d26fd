"""The command line's usage papercuts (issue 12): each mistake gets a message that says what is
wrong and how to fix it, with the usage of the command that was mistyped."""

import argparse
import json
from datetime import datetime

import pytest

from tachikoma import cli
from tachikoma.cli.parser import build_parser
from tachikoma.errors import TachikomaError
from tachikoma.indexer import runner
from tachikoma.vocabulary import MAX_LIMIT
from tachikoma.web.forms import SearchForm


def usage_error(capsys, *argv: str) -> str:
    """stderr of a command line that argparse refuses (exit 2)."""
    with pytest.raises(SystemExit) as exit_:
        cli.main(list(argv))
    assert exit_.value.code == 2
    return capsys.readouterr().err


def test_a_memory_path_that_is_a_file_is_called_a_file(memory, capsys):
    assert cli.main(["--memory", str(memory / "martin.md"), "stats"]) == 1
    err = capsys.readouterr().err
    assert "is a file, not a folder" in err and f"--memory {str(memory)!r}" in err
    assert cli.main(["--memory", str(memory / "nope"), "stats"]) == 1
    assert "does not exist" in capsys.readouterr().err


@pytest.mark.parametrize("value, reason", [
    ("2026-13-01", " (month must be in 1..12)"),
    ("2026-02-30", " (day is out of range for month)"),
    ("yesterday", ""),
])
def test_a_wrong_date_is_named_with_the_expected_format(capsys, value, reason):
    err = usage_error(capsys, "tag", "--since", value, "--trust", "self")
    assert err.startswith("usage: tachikoma tag")
    assert f"argument --since: {value!r} is not a date{reason}: expected YYYY-MM-DD" in err


def test_a_mistyped_option_shows_the_usage_of_its_command_and_the_closest_option(capsys):
    err = usage_error(capsys, "search", "--limt", "3", "hello")
    assert err.startswith("usage: tachikoma search") and "--limit N" in err
    assert "unrecognized arguments: --limt (did you mean --limit?)" in err
    err = usage_error(capsys, "eval", "locomo", "x.json", "--sweeep")
    assert err.startswith("usage: tachikoma eval locomo") and "(did you mean --sweep?)" in err
    assert "did you mean" not in usage_error(capsys, "stats", "--xyzzy")


def test_an_invalid_tag_value_is_reported_before_the_missing_selector(capsys):
    err = usage_error(capsys, "tag", "--trust", "maybe")
    assert "argument --trust: invalid trust 'maybe': use one of owner, self, external, untrusted" in err
    assert "say which files" not in err
    assert "invalid confidence 'sure'" in usage_error(capsys, "tag", "--all", "--confidence", "sure")
    args = build_parser().parse_args(["tag", "--trust", " Owner ", "--confidence", "HIGH"])
    assert (args.trust, args.confidence) == ("owner", "high")  # case-insensitive, as in front matter


@pytest.mark.parametrize("limit", ["0", "1", "10", str(MAX_LIMIT), str(MAX_LIMIT + 1), "1000000", "-3", "ten"])
def test_limit_is_checked_like_on_the_web(capsys, limit):
    web_accepts = "limit" not in SearchForm.read({"q": "x", "limit": limit}).errors
    if web_accepts:
        assert build_parser().parse_args(["search", "x", "--limit", limit]).limit == int(limit)
    else:
        assert f"is not a whole number from 1 to {MAX_LIMIT}" in usage_error(capsys, "search", "x", "--limit", limit)


def _parsers(parser: argparse.ArgumentParser):
    """`parser` and the parsers of all its commands, at any depth (eval locomo)."""
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _parsers(sub)


def test_a_short_flag_means_the_same_option_in_every_command():
    meaning: dict[str, set[str]] = {}
    for parser in _parsers(build_parser()):
        for action in parser._actions:
            shorts = [o for o in action.option_strings if not o.startswith("--")]
            longs = tuple(o for o in action.option_strings if o.startswith("--"))
            for short in shorts:
                meaning.setdefault(short, set()).add(longs)
    assert meaning["-n"] == {("--limit",)}
    assert {short: longs for short, longs in meaning.items() if len(longs) > 1} == {}


def test_stats_text_speaks_english_and_json_keeps_iso(tmp_path, capsys):
    root = tmp_path / "memory"
    root.mkdir()
    (root / "note.md").write_text("# One note\n\nA single short note.\n")
    runner.run(root, embedder_name="hash")

    assert cli.main(["--memory", str(root), "stats"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("1 file: 0 tagged") and "1 files" not in text and "file(s)" not in text
    assert "\n  (top level)  1 file: 0 tagged" in text  # as on the coverage page, not "."
    index_line = next(line for line in text.splitlines() if line.startswith("index:"))
    assert " (just now), 1 file, 1 chunk (hash:512); 0 files changed since" in index_line
    stamp = index_line.removeprefix("index: updated ").split(" (")[0]
    assert datetime.strptime(stamp, "%Y-%m-%d %H:%M")  # a local date and time, no "T" or offset

    assert cli.main(["--memory", str(root), "stats", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert datetime.fromisoformat(report["index"]["last_indexed_at"]).tzinfo is not None


def test_a_query_starting_with_a_dash_is_told_to_come_after_double_dash(capsys):
    hint = "(a query that starts with '-' goes after '--': tachikoma search -- -5V ...)"
    assert usage_error(capsys, "search", "-5V", "rail").endswith(f"unrecognized arguments: -5V {hint}\n")
    assert usage_error(capsys, "search", "-5V").endswith(f"the following arguments are required: query {hint}\n")
    assert "did you mean --limit?" in usage_error(capsys, "search", "--limt", "3", "x")
    assert build_parser().parse_args(["search", "--", "-5V", "rail"]).query == ["-5V", "rail"]


def test_an_invalid_search_trust_is_a_usage_error_naming_the_value(capsys):
    err = usage_error(capsys, "search", "--trust", "maybe", "x")
    assert err.startswith("usage: tachikoma search")
    assert "argument --trust: invalid trust 'maybe': use one of owner, self, external, untrusted or missing" in err
    assert build_parser().parse_args(["search", "--trust", " Owner ", "x"]).trust == "owner"
    assert build_parser().parse_args(["search", "--trust", "MISSING", "x"]).trust == "missing"


@pytest.mark.parametrize("argv, words", [
    (["search", "coffee", "--min-score", "2"], "argument --min-score: '2' is not a number from 0 to 1"),
    (["search", "coffee", "--min-score", "nan"], "argument --min-score: 'nan' is not a number from 0 to 1"),
    (["search", ""], "the query is empty: say what to look for"),
    (["search", " ", "  "], "the query is empty: say what to look for"),
    (["tag", "--trust", "owner"], "say which files"),
    (["tag", "--all"], "say what to set"),
    (["eval", "locomo", "x.json", "--limit-conversations", "0"], "is not a whole number of 1 or more"),
    (["eval", "locomo", "x.json", "--max-words", "1"], "is not a whole number of 2 or more"),
    (["eval", "locomo", "x.json", "--recency-cases", "-1"], "is not a whole number of 0 or more"),
    (["eval", "recency", "--cases", "0"], "is not a whole number from 1 to"),
    (["eval", "abstention", "x.json", "--work", "w", "--max-cost", "1"], "is not a number of at least 0 and below 1"),
])
def test_every_mistyped_command_line_is_exit_2_with_the_commands_usage(memory, capsys, argv, words):
    """Issue 18: `search coffee --min-score 2` and `search ""` exited 1 without the usage, while
    `--limit 0` exited 2 with it; so did `tag` without a selector or values, and eval's numbers."""
    command = " ".join(a for a in argv[:2] if not a.startswith("-") and a not in ("", " ", "x.json", "coffee"))
    err = usage_error(capsys, "--memory", str(memory), *argv)
    assert err.startswith(f"usage: tachikoma {command}"), err
    assert words in err
    assert not (memory / ".cache").exists()  # refused before anything was done


def test_the_command_line_imports_only_the_command_it_runs():
    """tachikoma/cli/ is one module per command group, imported when its command runs: starting the
    command line (and parsing every command's options) costs the parser and the dispatcher, and
    running a command adds its own module, not the others'."""
    import subprocess
    import sys

    probe = ("import sys\n"
             "from tachikoma.cli import dispatch\n"
             "dispatch.build_parser().parse_args(['stats'])\n"
             "print(sorted(m for m in sys.modules if m.startswith('tachikoma')))\n"
             "dispatch.command('stats')\n"
             "print(sorted(m for m in sys.modules if m.startswith('tachikoma.cli')))\n")
    started, ran = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                                  check=True).stdout.splitlines()
    assert started == str(sorted(["tachikoma", "tachikoma.cli", "tachikoma.cli.common", "tachikoma.cli.dispatch",
                                  "tachikoma.cli.parser", "tachikoma.errors", "tachikoma.humanize",
                                  "tachikoma.vocabulary"]))
    assert ran == str(sorted(["tachikoma.cli", "tachikoma.cli.common", "tachikoma.cli.dispatch",
                              "tachikoma.cli.indexing", "tachikoma.cli.parser"]))


def test_every_command_the_parser_knows_is_dispatched():
    """A command added to the parser but not to `dispatch.command` would be refused after parsing."""
    from tachikoma.cli import dispatch

    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    assert sorted(commands) == ["eval", "index", "mcp", "remember", "search", "serve", "stats", "tag"]
    assert {name: dispatch.command(name).__name__ for name in commands} == {name: f"cmd_{name}" for name in commands}
    with pytest.raises(TachikomaError, match="no command 'nope'"):
        dispatch.command("nope")


def test_search_help_names_every_factor_of_the_score():
    """`tachikoma search --help` gives the score's formula: every factor docs/ranking.md's formula multiplies
    (it left out `asked` and `agents_words`, which explanations show)."""
    import re
    from pathlib import Path

    ranking = (Path(__file__).resolve().parent.parent / "docs" / "ranking.md").read_text(encoding="utf-8")
    formula = re.search(r"^score = (.*)$", ranking, re.MULTILINE).group(1)
    factors = [f.strip() for f in formula.split("×")]
    assert "asked" in factors and "agents_words" in factors
    search = next(p for p in _parsers(build_parser()) if p.prog.endswith(" search"))
    help_formula = re.search(r"score = ([^(]*)", " ".join(search.description.split())).group(1)
    assert [f.strip() for f in help_formula.split("×")] == factors
