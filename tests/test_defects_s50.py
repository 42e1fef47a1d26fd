"""Session 50: defects left by session 49, each against real files (and, where it matters, a real git repository).

3. A tag line added to front matter whose lines end differently takes the ending the block's own lines use, or
   when it has none, the one most of the file uses, not the opening fence's.
4. A line break YAML 1.1 counts right after an opening fence with no comment (`---` U+2028 `trust: owner`) is told
   what it does there and to put a line break in its place, not that YAML 1.2 reads the rest as comment.
"""

from __future__ import annotations

import subprocess

import pytest

from gitrepo import git, tachikoma_cli

# --------------------------------------------------------------------------- 3. a new tag line's line ending

#: (note, what `tag --trust self --overwrite` makes of it), byte for byte.
ENDINGS = {
    # The fence ends CRLF, the closing fence LF, and the body ends with a carriage return alone: the block has no
    # line of its own and the file's lines tie; the line goes above the closing fence and ends as it does.
    "fence-crlf.md": (b"--- # tags\r\n---\nbody\r", b"--- # tags\r\ntrust: self\n---\nbody\r"),
    # The block's own line ends LF though both fences and the body end CRLF: the new line as the block's.
    "block-lf.md": (b"---\r\ntitle: Printer\n---\r\n# Printer\r\n\r\nFloor 3.\r\n",
                    b"---\r\ntitle: Printer\ntrust: self\n---\r\n# Printer\r\n\r\nFloor 3.\r\n"),
    # An empty block between LF fences, in a note of CRLF lines: the ending most of the file uses.
    "empty-block.md": (b"---\n---\n# Printer\r\nFloor 3.\r\nRoom 12.\r\n",
                       b"---\ntrust: self\r\n---\n# Printer\r\nFloor 3.\r\nRoom 12.\r\n"),
    # A line rewritten keeps its own ending (it took the block's CRLF); the key added takes the block's.
    "rewritten.md": (b"---\r\ntrust: owner\nsource: chat\r\ntitle: Printer\r\n---\r\nFloor 3.\n",
                     b"---\r\ntrust: self\nsource: chat\r\ntitle: Printer\r\nconfidence: low\r\n---\r\nFloor 3.\n"),
}


@pytest.mark.parametrize("name", sorted(ENDINGS))
def test_a_new_tag_line_ends_as_the_blocks_lines_or_the_files_do(git_memory, name):
    """``--- # tags`` CRLF, ``---`` LF: the line added between them took the opening fence's CRLF, one more line
    ending a file of LF lines had not used. Tagged on the command line in a git memory; the body byte for byte."""
    from tachikoma.reading.frontmatter import split

    before, after = ENDINGS[name]
    (git_memory / name).write_bytes(before)
    git(git_memory, "add", "-A")
    git(git_memory, "commit", "-q", "-m", "a note")
    values = ["--trust", "self"] + ["--confidence", "low"] * (name == "rewritten.md")
    done = tachikoma_cli(git_memory, "tag", "--path", name, *values, "--overwrite")
    assert done.returncode == 0, done.stderr
    written = (git_memory / name).read_bytes()
    assert written == after, written
    assert split(written.decode()).body == split(before.decode()).body
    committed = subprocess.run(["git", "show", f"HEAD:{name}"], cwd=git_memory, capture_output=True, check=True)
    assert committed.stdout == after  # committed as written (`git` reads text: its line endings would be lost)


# --------------------------------------------------------------------------- 4. a YAML line break after a bare fence

#: A line break YAML 1.1 counts right after an opening fence with no comment, then text: (note, the break's name).
BARE_FENCE = {
    "ls.md": ("---\u2028trust: owner\nconfidence: high\n---\n# Printer\n", "line separator (U+2028)"),
    "ls-after-spaces.md": ("--- \u2028trust: owner\r\n---\r\n# Printer\r\n", "line separator (U+2028)"),
    "nel.md": ("---\x85trust: owner\n---\n# Printer\n", "next line (U+0085)"),
    "cr.md": ("---\rtrust: owner\nconfidence: high\n---\n# Printer\n", "carriage return"),
}


@pytest.mark.parametrize("name", sorted(BARE_FENCE))
def test_a_yaml_break_after_a_bare_fence_says_what_happens_and_what_to_do(git_memory, name):
    """`---` U+2028 `trust: owner` was told "`trust: owner` would be read as YAML and not as comment (YAML 1.2 reads
    it as comment); remove that character, or start the text after it with #": there is no comment (to YAML 1.2 the
    --- line goes on and opens nothing), and removing the character leaves `---trust: owner`, no fence at all. Now it
    says so and to put a line break there, which makes the note's front matter read; on every face that reports."""
    from tachikoma.reading import reader
    from tachikoma.reading.frontmatter import read_front_matter, split

    text, brk = BARE_FENCE[name]
    fm = split(text)
    assert fm.meta == {} and fm.error.startswith(f"malformed front matter at line 1: the opening --- line holds a "
                                                 f"{brk}"), fm.error
    assert "comment" not in fm.error and "start the text after it with #" not in fm.error, fm.error
    assert fm.error.endswith("; put a line break in place of that character to make `trust: owner` a line of the "
                             "front matter, or remove that character and the text after it"), fm.error
    if brk != "carriage return":
        assert ("would be a line of YAML to YAML 1.1 but to YAML 1.2, which reads no line break there, part of the "
                "--- line, which then opens no front matter") in fm.error, fm.error
    (git_memory / name).write_bytes(text.encode())
    assert read_front_matter(git_memory / name).error == fm.error
    told = fm.error.removeprefix("malformed front matter at line 1: ")
    assert f"{name}:1: malformed front matter: {told}; the whole file is indexed as text" in \
        reader.read_document(git_memory, name, "markdown").warnings
    git(git_memory, "add", "-A")
    git(git_memory, "commit", "-q", "-m", "a note")
    done = tachikoma_cli(git_memory, "tag", "--path", name, "--trust", "self", "--overwrite")
    assert f"skipped {name}: {fm.error}" in done.stderr and (git_memory / name).read_bytes() == text.encode()
    # As told: a line break in place of the character, and the front matter is read.
    at = text.index("trust") - 1
    fixed = text[:at] + "\n" + text[at + 1:]
    assert split(fixed).meta["trust"] == "owner" and split(fixed).error is None, fixed


def test_a_yaml_break_inside_the_fences_comment_is_still_told_as_one():
    """In a comment (`--- # tags` U+2028 `see the wiki`) YAML 1.2 does read the rest as comment: said as before."""
    from tachikoma.reading.frontmatter import split

    error = split("--- # tags\u2028see the wiki\ntrust: owner\n---\nbody\n").error
    assert error.endswith("so `see the wiki` after it would be read as YAML and not as comment (YAML 1.2 reads it "
                          "as comment); remove that character, or start the text after it with #"), error
