"""Counting tokens offline: an estimate of what a model's tokenizer would count, with nothing loaded.

An agent pays for its context in its model's tokens, and tachikoma cannot know that model's
tokenizer, nor download one. So a text is cut into the pieces BPE tokenizers cut it into (runs of
letters, runs of digits, single symbols, characters of scripts written without spaces) and each
piece is given the tokens such a tokenizer typically spends on it:

- a word of letters: one token up to `WORD_CHARS` characters, then one more per
  `WORD_CHARS_MORE` characters (common words are one token, long and rare ones are split);
  a word with letters outside ASCII (German umlauts, accents) one more;
- digits: one token per three (cl100k and o200k split numbers into groups of three);
- a character of Han, kana, Hangul, Thai and similar scripts: `CJK_TOKENS` tokens;
- a run of other visible characters (punctuation, brackets, operators): one token per `SYMBOLS`, or per
  `QUOTED_SYMBOLS` when the run holds a double quote (JSON's ``":"``, ``","``, ``":[``, ``"},{"`` are one
  token each in cl100k and o200k); an escape (``\\n``, ``\\t``, ``\\r``: JSON's line break) one token;
  runs of white space are free (a tokenizer joins a space to the word after it), a run holding a line break
  is one.

The estimate is calibrated to lie at or somewhat above OpenAI's cl100k_base and o200k_base counts
on memory text (notes, transcripts, code, German, Japanese) and on compact JSON replies, so a budget
counted with it is seldom exceeded by a real tokenizer; `bench/calibrate_tokens.py` measures how far it is (the figures are
in docs/agents.md). It is pure Python, about 5 MB of text a second.
"""

from __future__ import annotations

import functools
import re

#: A word of letters up to this many characters counts one token.
WORD_CHARS = 7
#: Past `WORD_CHARS`, one more token per this many characters.
WORD_CHARS_MORE = 4
#: A run of symbols ("==", "),", "**") counts one token per this many characters.
SYMBOLS = 2
#: ... and one that holds a double quote (JSON's '":"', '","', '":[', a quoted string's '."') per this many: a
#: tokenizer learnt JSON's punctuation as single tokens (per `SYMBOLS`, compact JSON counted 20% over cl100k).
QUOTED_SYMBOLS = 3
#: Tokens per character of scripts written without spaces (Han, kana, Hangul, Thai...).
CJK_TOKENS = 1.0

_CJK = "\u0e00-\u0e7f\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f"
_PIECES = re.compile(rf"([{_CJK}])|(\\[nrt])|([^\W\d_{_CJK}]+)|(\d+)|(\n\s*)|(\s+)|([^\w\s]+|_+)", re.DOTALL)


def count(text: str) -> int:
    """The estimated number of tokens of `text` (0 for ""; at least 1 for any other text). A text counted again (a
    budgeted reply is counted as it is held to its budget, then as a face sends it) is remembered, up to a size."""
    if not text:
        return 0
    return _remembered(text) if len(text) <= REMEMBERED_CHARS else _count(text)


#: The longest text whose count is remembered (`count`): a reply's JSON, not a whole session read back.
REMEMBERED_CHARS = 100_000


@functools.lru_cache(maxsize=64)  # at most a few MB held
def _remembered(text: str) -> int:
    return _count(text)


def _count(text: str) -> int:
    total = 0.0
    for cjk, escape, word, digits, newline, _space, other in _PIECES.findall(text):
        if word:
            n = len(word)
            total += 1 + (-(-(n - WORD_CHARS) // WORD_CHARS_MORE) if n > WORD_CHARS else 0)
            if not word.isascii():
                total += sum(ord(c) > 127 for c in word)
        elif cjk:
            total += CJK_TOKENS
        elif escape:
            total += 1
        elif digits:
            total += -(-len(digits) // 3)
        elif newline:
            total += 1
        elif other:
            total += -(-len(other) // (QUOTED_SYMBOLS if '"' in other else SYMBOLS))
    return max(1, round(total))


def cut(text: str, budget: int) -> str:
    """The longest prefix of `text` whose `count` is at most `budget`, cut at a word boundary where
    there is one ("" when `budget` < 1)."""
    if budget < 1 or not text:
        return ""
    if count(text) <= budget:
        return text
    low, high = 0, len(text)
    while low < high:  # the longest prefix that fits (count is monotone in the prefix, up to rounding)
        mid = (low + high + 1) // 2
        if _count(text[:mid]) <= budget:
            low = mid
        else:
            high = mid - 1
    head = text[:low]
    space = max(head.rfind(" "), head.rfind("\n"))
    return head[:space].rstrip() if space > low // 2 else head.rstrip()
