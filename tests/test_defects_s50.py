"""Session 50: defects left by session 49, each against real files (and, where it matters, a real git repository).

3. A tag line added to front matter whose lines end differently takes the ending the block's own lines use, or
   when it has none, the one most of the file uses, not the opening fence's.
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
