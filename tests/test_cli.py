"""The command line as a user runs it: real processes, exit codes, JSON on stdout."""

import json
import os
import subprocess
import sys
from pathlib import Path

from terminal import drained


ROOT = Path(__file__).resolve().parent.parent


def tachikoma(*args, cwd=None, env=None):
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([sys.executable, "-m", "tachikoma", *args], capture_output=True, text=True,
                          cwd=cwd, env=full_env, timeout=120)


def test_help_lists_every_command():
    out = tachikoma("--help")
    assert out.returncode == 0
    for command in ("index", "search", "tag", "stats", "serve"):
        assert command in out.stdout


def test_python_m_tachikoma_cli_is_the_same_command_line():
    done = subprocess.run([sys.executable, "-m", "tachikoma.cli", "--help"], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == tachikoma("--help").stdout


def test_index_search_json_round_trip(git_memory):
    assert tachikoma("--memory", str(git_memory), "index", "--embedder", "hash", "-q").returncode == 0
    out = tachikoma("--memory", str(git_memory), "search", "DRV8353 samples", "--json", "--limit", "3")
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    assert answer["query"] == "DRV8353 samples" and 1 <= len(answer["results"]) <= 3
    first = answer["results"][0]
    assert not Path(first["path"]).is_absolute()
    assert (git_memory / first["path"]).exists()


def test_memory_from_environment_variable(memory):
    out = tachikoma("index", "--embedder", "hash", "--json", env={"TACHIKOMA_MEMORY": str(memory)})
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["added"] == 11


def test_default_memory_folder_is_dot_memory(memory):
    out = tachikoma("stats", "--json", cwd=memory.parent)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["files"] == 11


def test_failures_exit_non_zero_with_one_line(tmp_path, memory):
    missing = tachikoma("--memory", str(tmp_path / "nope"), "stats")
    assert missing.returncode == 1 and missing.stderr.count("\n") == 1 and "does not exist" in missing.stderr
    no_index = tachikoma("--memory", str(memory), "search", "hello")
    assert no_index.returncode == 1 and "tachikoma index" in no_index.stderr
    bad_value = tachikoma("--memory", str(memory), "tag", "--all", "--trust", "bogus")
    assert bad_value.returncode == 2 and "invalid trust 'bogus'" in bad_value.stderr  # a usage error


def test_stats_json_shape(memory):
    out = tachikoma("--memory", str(memory), "stats", "--json")
    stats = json.loads(out.stdout)
    for key in ("files", "tagged", "partial", "untagged", "invalid"):
        assert isinstance(stats[key], int)
    assert stats["files"] == stats["tagged"] + stats["partial"] + stats["untagged"] + stats["invalid"]
    assert set(stats["by_kind"]) == {"markdown", "transcript"}
    assert stats["by_kind"]["transcript"]["files"] == 3
    assert stats["index"]["last_indexed_at"] is None


def test_tag_defaults_dry_run_then_apply_and_commit(git_memory):
    before = {p: p.read_bytes() for p in git_memory.rglob("*") if p.is_file() and ".git" not in p.parts}
    dry = tachikoma("--memory", str(git_memory), "tag", "--dry-run", "--json")
    plan = json.loads(dry.stdout)
    assert {c["path"] for c in plan["changes"]} == {"2026-03-22/session-abc.jsonl", "2026-05-10/design-chat.jsonl"}
    assert {c["path"]: c["after"]["source"] for c in plan["changes"]} == {
        "2026-03-22/session-abc.jsonl": "claude-code", "2026-05-10/design-chat.jsonl": "tachikoma"}
    assert all(c["after"]["trust"] == "self" and c["after"]["confidence"] == "medium" for c in plan["changes"])
    assert {p: p.read_bytes() for p in before} == before, "a dry run writes nothing"
    applied = tachikoma("--memory", str(git_memory), "tag")
    assert applied.returncode == 0 and "tagged 2 files, committed" in applied.stdout
    log = subprocess.run(["git", "log", "-1", "--format=%s"], cwd=git_memory, capture_output=True, text=True).stdout
    assert "tag 2 files" in log
    stats = json.loads(tachikoma("--memory", str(git_memory), "stats", "--json").stdout)
    assert stats["by_kind"]["transcript"]["untagged"] == 0


def test_tag_markdown_by_path_keeps_body_bytes(git_memory):
    note = git_memory / "2026-03-22" / "meeting-notes.md"
    body = note.read_bytes()
    out = tachikoma("--memory", str(git_memory), "tag", "--path", "2026-03-22/*.md", "--trust", "OWNER",
                    "--confidence", "high", "--no-commit")
    assert out.returncode == 0, out.stderr
    text = note.read_bytes()
    assert text.startswith(b"---\n") and b"trust: owner\n" in text and text.endswith(body)
    status = subprocess.run(["git", "status", "--porcelain"], cwd=git_memory, capture_output=True, text=True).stdout
    assert "meeting-notes.md" in status, "--no-commit leaves the change uncommitted"


def test_tag_path_may_be_the_absolute_path_of_a_memory_file(memory):
    """A path as the shell completes it (absolute, inside the memory) selects that file or folder; it
    matched nothing, since patterns are relative to the memory folder."""
    note = (memory / "2026-03-22" / "meeting-notes.md").resolve()
    one = tachikoma("--memory", str(memory), "tag", "--path", str(note), "--trust", "owner", "--dry-run", "--json")
    assert [c["path"] for c in json.loads(one.stdout)["changes"]] == ["2026-03-22/meeting-notes.md"]
    folder = tachikoma("--memory", str(memory), "tag", "--path", f"{note.parent}/", "--trust", "owner",
                       "--dry-run", "--json")
    assert "2026-03-22/meeting-notes.md" in [c["path"] for c in json.loads(folder.stdout)["changes"]]


def test_tag_path_may_be_given_several_times(memory):
    """`--path people/ --path notes/` selects the files of both (a file matching any); the last one
    silently won."""
    for folder in ("people", "notes"):
        (memory / folder).mkdir()
        (memory / folder / "a.md").write_text(f"# {folder}\n\nPlain text.\n")
    out = tachikoma("--memory", str(memory), "tag", "--path", "people/", "--path", "notes/", "--untagged",
                    "--trust", "owner", "--confidence", "high", "--dry-run", "--json")
    assert out.returncode == 0, out.stderr
    assert sorted(c["path"] for c in json.loads(out.stdout)["changes"]) == ["notes/a.md", "people/a.md"]
    absolute = tachikoma("--memory", str(memory), "tag", "--path", str((memory / "people").resolve()),
                         "--path", "/rumours.md", "--trust", "owner", "--overwrite", "--dry-run", "--json")
    assert sorted(c["path"] for c in json.loads(absolute.stdout)["changes"]) == ["people/a.md", "rumours.md"]


def test_nothing_to_tag_says_why(memory):
    """No match and "already had the values" are told apart; both exit 0 (the files have the values)."""
    none = tachikoma("--memory", str(memory), "tag", "--path", "no-such-folder/", "--trust", "owner")
    assert none.returncode == 0 and none.stdout.strip() == "nothing to tag: no file matched the selection"
    again = ("--memory", str(memory), "tag", "--kind", "transcript", "--trust", "self", "--no-commit")
    assert "tagged" in tachikoma(*again).stdout
    out = tachikoma(*again)
    assert out.returncode == 0
    assert out.stdout.strip() == "nothing to tag: 3 files matched; 3 already had these values"
    data = json.loads(tachikoma(*again, "--dry-run", "--json").stdout)
    assert (data["matched"], data["unchanged"], data["changes"], data["kept"]) == (3, 3, [], [])


def test_tag_exits_1_when_a_selected_note_is_skipped(memory):
    """A binary note or one with malformed front matter is skipped, not tagged: the run exits 1 (as
    docs/tagging.md says), the dry run too; a .jsonl data file, never tagged, does not count."""
    inbox = memory / "inbox"
    (inbox / "blob.md").write_bytes(b"\x00\x01 binary" * 10)
    (inbox / "broken.md").write_text("---\ntags: [a, b\n---\n# Broken\n")
    args = ("--memory", str(memory), "tag", "--path", "inbox/", "--trust", "self", "--overwrite", "--no-commit")
    dry = tachikoma(*args, "--dry-run")
    assert dry.returncode == 1 and "skipped inbox/blob.md" in dry.stderr and "skipped inbox/broken.md" in dry.stderr
    out = tachikoma(*args, "--json")
    assert out.returncode == 1, out.stderr
    data = json.loads(out.stdout)
    assert {s["path"] for s in data["skipped"]} == {"inbox/blob.md", "inbox/broken.md"} and data["changes"]
    (memory / "data").mkdir()
    (memory / "data" / "prices.jsonl").write_text('{"sku": 1, "price": 2}\n' * 3)
    (memory / "data" / "note.md").write_text("# Note\n")
    data_file = tachikoma("--memory", str(memory), "tag", "--path", "data/", "--trust", "self", "--no-commit")
    assert data_file.returncode == 0 and "skipped data/prices.jsonl" in data_file.stderr, data_file.stderr


def test_a_file_holding_another_value_is_said_to_keep_it(memory):
    """Issue 18: `--confidence medium` on a note with `confidence: low` said "1 already had these
    values", which was false: it kept its own value. Say so, and how to overwrite."""
    note = memory / "people" / "anna.md"
    note.parent.mkdir()
    note.write_text("---\nconfidence: low\n---\n# Anna\nAnna likes tea.\n")
    (memory / "people" / "ben.md").write_text("---\nconfidence: medium\n---\n# Ben\n")
    args = ("--memory", str(memory), "tag", "--path", "people/", "--confidence", "medium", "--dry-run")
    out = tachikoma(*args)
    assert out.returncode == 0
    assert out.stdout.splitlines() == [
        "people/anna.md: confidence=low kept, not medium (--overwrite replaces it)",
        "nothing to tag: 2 files matched; 1 already had these values, "
        "1 kept its own value (--overwrite replaces existing values)"]
    data = json.loads(tachikoma(*args, "--json").stdout)
    assert data["kept"] == [{"path": "people/anna.md", "kept": {"confidence": "low"}, "asked": {"confidence": "medium"}}]
    both = tachikoma(*args[:-1], "--trust", "self", "--dry-run").stdout.splitlines()
    assert both[-1] == ("dry run: 2 files would change; 1 file kept its own value (--overwrite replaces it); "
                        "nothing written")
    assert "confidence=low" in tachikoma(*args, "--overwrite").stdout  # replaced: low → medium


def test_values_need_a_selector(memory):
    out = tachikoma("--memory", str(memory), "tag", "--trust", "owner")
    assert out.returncode == 2 and "say which files" in out.stderr and out.stderr.startswith("usage: tachikoma tag")


def one_line(out):
    """The command failed with exactly one line on stderr and no traceback."""
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr
    return out.stderr


def test_memory_and_config_are_accepted_after_the_command(memory, tmp_path):
    settings = tmp_path / "settings.toml"
    settings.write_text("[index]\nmax_file_bytes = 50\n")
    out = tachikoma("index", "--memory", str(memory), "--embedder", "hash", "--json", "--config", str(settings))
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["skipped"] > 0, "the --config after the command was read"
    out = tachikoma("--memory", str(tmp_path / "elsewhere"), "stats", "--json", "--memory", str(memory))
    assert out.returncode == 0 and json.loads(out.stdout)["files"] == 11, "the later --memory wins"


def test_usage_errors_exit_2_with_one_error_line(memory):
    for args in (("serve", "--port", "70000"), ("serve", "--port", "0"), ("serve", "--port", "http")):
        out = tachikoma("--memory", str(memory), *args)
        assert out.returncode == 2 and "Traceback" not in out.stderr
        errors = [line for line in out.stderr.splitlines() if "error:" in line]
        assert len(errors) == 1 and "is not a port number (1-65535)" in errors[0], out.stderr


def test_closed_pipe_ends_quietly(memory):
    assert tachikoma("--memory", str(memory), "index", "--embedder", "hash", "-q").returncode == 0
    for args in (("search", "DRV8353 samples"), ("stats",)):
        read, write = os.pipe()
        os.close(read)  # nobody will read what tachikoma prints
        out = subprocess.run([sys.executable, "-m", "tachikoma", "--memory", str(memory), *args], stdout=write,
                             stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
                             timeout=120)
        os.close(write)
        assert out.returncode == 141 and out.stderr == "", out.stderr


def test_damaged_index_is_one_line_and_stats_still_counts_the_files(memory):
    assert tachikoma("--memory", str(memory), "index", "--embedder", "hash", "-q").returncode == 0
    index = memory / ".cache" / "index.db"
    with open(index, "r+b") as handle:  # what the QA found: random bytes over pages 4 to 7
        handle.seek(4096 * 3)
        handle.write(bytes((i * 7919 + 13) % 251 for i in range(4096 * 4)))
    for args in (("search", "martin"), ("index",)):
        out = tachikoma("--memory", str(memory), *args)
        assert out.returncode == 1 and "is damaged" in one_line(out), out.stderr
        assert f"delete {memory / '.cache'} and run `tachikoma index`" in out.stderr
    stats = tachikoma("--memory", str(memory), "stats")
    # the files are still counted, and the command fails with the advice (it exited 0: issue 16 leftover)
    assert stats.returncode == 1 and stats.stdout.startswith("11 files:"), stats.stderr
    assert "index: none yet" not in stats.stdout
    assert stats.stdout.rstrip().splitlines()[-1].startswith(f"index: the index {index} is damaged")
    assert one_line(stats).startswith(f"tachikoma: the index {index} is damaged")
    assert f"delete {memory / '.cache'} and run `tachikoma index`" in stats.stderr
    as_json = tachikoma("--memory", str(memory), "stats", "--json")
    report = json.loads(as_json.stdout)
    assert as_json.returncode == 1 and report["files"] == 11 and report["index"]["state"] == "damaged"


def test_cache_that_is_a_file_is_one_line_for_every_command(memory):
    (memory / ".cache").write_text("not a folder\n")
    for args in (("index", "--embedder", "hash"), ("tag",), ("search", "martin")):
        out = tachikoma("--memory", str(memory), *args)
        assert out.returncode == 1, (args, out.stderr)
        one_line(out)
    assert (memory / ".cache").read_text() == "not a folder\n"


def test_failed_reembed_keeps_the_index(memory):
    assert tachikoma("--memory", str(memory), "index", "--embedder", "hash", "-q").returncode == 0
    out = tachikoma("--memory", str(memory), "index", "--reembed", "--embedder", "ollama",
                    env={"OLLAMA_HOST": "http://127.0.0.1:9"})
    assert out.returncode == 1 and "the index was not changed" in one_line(out)
    search = tachikoma("--memory", str(memory), "search", "DRV8353 samples", "--json")
    assert search.returncode == 0 and json.loads(search.stdout)["results"], search.stderr


def test_interrupted_index_shows_as_incomplete_in_stats(memory):
    from tachikoma.indexer import runner
    from tachikoma.embedders.hashing import HashingEmbedder

    class Interrupted(HashingEmbedder):
        calls = 0

        def embed_documents(self, texts, progress=None):
            Interrupted.calls += 1
            if Interrupted.calls > 1:
                raise KeyboardInterrupt
            return super().embed_documents(texts, progress)

    for i in range(20):
        (memory / f"bulk-{i:02}.md").write_text(f"# Note {i}\n\n" + " ".join(f"t{i}w{j}" for j in range(500)))
    try:
        runner.run(memory, embedder=Interrupted(512))
    except KeyboardInterrupt:
        pass
    stats = tachikoma("--memory", str(memory), "stats")
    assert "index: none yet" not in stats.stdout and "index: updated" in stats.stdout
    assert "run `tachikoma index` to finish it" in stats.stdout
    assert tachikoma("--memory", str(memory), "index", "-q").returncode == 0
    assert "to finish it" not in tachikoma("--memory", str(memory), "stats").stdout


def test_file_names_with_control_characters_are_escaped(memory):
    (memory / "new\nline.md").write_text("# odd name\n")
    (memory / "bin\x1b[2Jary.md").write_bytes(b"\x00\x01\x02" * 50)
    out = tachikoma("--memory", str(memory), "index", "--embedder", "hash")
    assert out.returncode == 0
    warnings = out.stderr.splitlines()
    assert warnings and all(line.startswith("warning: ") for line in warnings), out.stderr
    assert any("bin\\x1b[2Jary.md" in line for line in warnings) and "\x1b" not in out.stderr
    tag = tachikoma("--memory", str(memory), "tag", "--path", "*.md", "--trust", "self", "--dry-run")
    assert "new\\nline.md: no quality tags" in tag.stdout
    search = tachikoma("--memory", str(memory), "search", "odd name")
    assert "new\\nline.md:1-1" in search.stdout


def _index_on_a_terminal(memory, *extra):
    """`tachikoma index` with stderr on a pseudo-terminal (as a person runs it); returns stderr's text."""
    import fcntl
    import pty
    import struct
    import termios

    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 160, 0, 0))  # a new pty is 0x0
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "tachikoma", "--memory", str(memory), "index", "--embedder",
                             "hash", *extra], stdout=subprocess.PIPE, stderr=follower, env=env)
    os.close(follower)
    seen = drained(leader, proc)
    assert proc.returncode == 0, seen
    return seen.decode("utf-8", "replace")


def test_index_on_a_terminal_shows_files_chunks_rate_and_time_left(memory):
    shown = _index_on_a_terminal(memory)
    assert "index" in shown and "files," in shown and "chunks/s" in shown, shown
    assert "11/11 files" in shown and "<" in shown  # tqdm's [elapsed<remaining]
    assert _index_on_a_terminal(memory, "--reembed", "-q").strip() == ""  # --quiet: nothing


def test_index_off_a_terminal_prints_no_bar(memory):
    out = tachikoma("--memory", str(memory), "index", "--embedder", "hash")
    assert out.returncode == 0
    assert "chunks/s" not in out.stderr and "\r" not in out.stderr
    assert all(line.startswith("warning: ") for line in out.stderr.splitlines()), out.stderr
