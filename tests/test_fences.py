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
