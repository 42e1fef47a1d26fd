"""One fence tracker for the chunker and the file page: both see the same code blocks."""

from tachikoma.chunking import _sections
from tachikoma.fences import FenceTracker
from tachikoma.web.memory_file import split_blocks

NOTE = """# Title

```python
# not a heading

still code
``` not a closing fence (text after it)
# still not a heading
````

## Real heading

```info`with`a`backtick is no fence
# heading after it

~~~
# tilde code

~~~~~
after
"""


def code_lines(text):
    tracker = FenceTracker()
    return [n for n, line in enumerate(text.split("\n"), 1) if tracker.code(line)]


def test_tracker_follows_commonmark_fences():
    # Lines 3-9: ``` opens, "``` not a closing…" (line 7) does not close, the longer ```` does.
    # Line 13 opens nothing (a backtick in a backtick fence's info string); 16-19 a tilde fence closed by ~~~~~.
    assert code_lines(NOTE) == [3, 4, 5, 6, 7, 8, 9, 16, 17, 18, 19]


def test_an_unclosed_fence_runs_to_the_end():
    assert code_lines("text\n```\n# code\n\nmore") == [2, 3, 4, 5]


def test_chunker_headings_and_page_blocks_agree_on_the_code():
    headings = [s.path for s in _sections(NOTE, 1) if s.heading]
    assert headings == [("Title",), ("Title", "Real heading"), ("heading after it",)]
    blocks = split_blocks(NOTE, 1)
    code = set(code_lines(NOTE))
    # No page block starts or ends inside a fenced block: the blank lines in the code did not split it.
    for block in blocks:
        assert not (block.start in code and block.start - 1 in code)
        assert not (block.end in code and block.end + 1 in code)
    fenced = [b for b in blocks if b.start == 3]
    assert fenced and fenced[0].end == 9


# A Logseq page: every block a bullet, nested by tabs, a code block opened on its bullet's line.
LOGSEQ = """- Deploy notes
\t- ```bash
\t  # restart the service
\t  systemctl restart quokka
\t  ```
\t- ## Checks
- after
"""

# Markdown: a code block inside a list item, a blank line in it, then a heading after the list.
LIST_ITEM = """# Setup

- Install it:
- ```sh
  # not a heading

  pip install tachikoma
  ```
- Then run it.

## Next
"""


def test_a_fence_inside_a_list_item_is_code():
    """`- ```bash` opened nothing, so its indented `# comment` was a heading, and its closing `  ```` (two spaces)
    opened a fence that made the rest of the note code (`## Next` no heading). Failed before."""
    assert code_lines(LOGSEQ) == [2, 3, 4, 5]
    assert code_lines(LIST_ITEM) == [4, 5, 6, 7, 8]
    assert code_lines("1. ```python\n   # code\n   ```\n2. # heading") == [1, 2, 3]
    assert [s.path for s in _sections(LOGSEQ, 1) if s.heading] == [("Checks",)]
    assert [s.path for s in _sections(LIST_ITEM, 1) if s.heading] == [("Setup",), ("Setup", "Next")]


def test_a_list_items_fence_ends_with_its_item():
    """A line indented less than the item's text ends the item and its code block (CommonMark), and is read as any
    line: a heading, or a fence of its own. A closing fence indented less still closes it."""
    assert code_lines("- ```\n  code\n# Heading\ntext") == [1, 2]
    assert [s.path for s in _sections("- ```\n  code\n# Heading\ntext", 1) if s.heading] == [("Heading",)]
    assert code_lines("- ```\n  code\n```\n# Heading") == [1, 2, 3]
    assert code_lines("\t- ```\n\t  code\n- ~~~\n  more\n  ~~~\nafter") == [1, 2, 3, 4, 5]
    assert code_lines("- ```\n  code\n\n  more\n  ```\nafter") == [1, 2, 3, 4, 5]  # a blank line does not end it
    assert code_lines("- ``` not `a` fence\n  # heading") == []
