"""The offline token estimate: near real tokenizers' counts, and a cut that keeps to a budget."""

import sys
from pathlib import Path

import pytest

from tachikoma.replies import tokens

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from calibrate_tokens import GERMAN, JAPANESE

ENGLISH = ("The ten DRV8353 samples ship on 27 March, so they should arrive by the end of the month, in time for "
           "board revision C. Jonas worries the heat sink is too small at 48 V; Priya will measure the thermal "
           "profile on the bench next week.")
CODE = 'def cut(text: str, budget: int) -> str:\n    if budget < 1 or not text:\n        return ""\n' \
       '    return text[:budget]  # TODO(martin): words\n'


@pytest.mark.parametrize("text, cl100k", [(ENGLISH, 56), (CODE, 40), (GERMAN, 213), (JAPANESE, 268)])
def test_estimate_is_near_cl100k(text, cl100k):
    # cl100k_base counts measured with the bpe-openai wheel (bench/calibrate_tokens.py)
    assert 0.8 * cl100k <= tokens.count(text) <= 1.2 * cl100k


def test_pieces():
    assert tokens.count("") == 0
    assert tokens.count(" ") == 1  # any text is at least one token
    assert tokens.count("the cat sat") == 3
    assert tokens.count("東京都") == 3  # one per character of a script written without spaces
    assert tokens.count("1234567") == 3  # digits in groups of three
    assert tokens.count("internationalization") > tokens.count("nation") == 1
    assert tokens.count("Kühlkörper") > tokens.count("Kuhlkorper")


@pytest.mark.parametrize("budget", [1, 5, 17, 40, 1000])
def test_cut_keeps_to_the_budget_at_a_word(budget):
    out = tokens.cut(ENGLISH, budget)
    assert tokens.count(out) <= budget
    assert ENGLISH.startswith(out)
    if out != ENGLISH and len(out) > 20:
        assert ENGLISH[len(out)] in " ,;." and not out.endswith(" ")
    assert tokens.cut(ENGLISH, 0) == ""
    if budget >= tokens.count(ENGLISH):
        assert out == ENGLISH
