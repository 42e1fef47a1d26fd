"""Adversarial inputs for what a question asks for (`answer_kind`): questions wrongly read as asking a phone
number, a time of day or a birthday's day, passages holding one unrecognised, and text that made a pattern slow."""

import time
from datetime import date

import pytest

from tachikoma import answer_kind

TODAY = date(2026, 12, 6)


@pytest.mark.parametrize("text", ["1" * 10_000, "一" * 10_000, "7" * 5_000 + "月"])
def test_a_long_run_of_numerals_is_read_quickly(text):
    """An hour or a month before 時/点/月 was any run of numerals, tried from each of its characters: 10,000
    digits took about 3 seconds a pattern."""
    started = time.perf_counter()
    for kind in answer_kind.KINDS:
        kind.held(text, TODAY)
    assert time.perf_counter() - started < 0.5
