"""What a new user's own memories showed (session 47): a best figure that rounds up to its floor."""

import pytest

from tachikoma.humanize import no_match_reason, short_of


def test_a_best_figure_under_its_floor_never_reads_as_high_as_it():
    # "what's the babysitter's phone number?" on a memory of its own: meaning 0.4399 under the floor of 0.44
    # read "best 0.44, floor 0.44", as if the floor had been reached.
    match = {"best_vector_similarity": 0.4399, "min_score": 0.44, "best_keyword_coverage": 0.4462, "keyword_floor": 0.45,
             "pair_floors": [0.30, 0.33], "best_pair_coverage": 0.3299, "across_gap": 0.1999,
             "across_floors": [0.30, 0.20]}
    reason = no_match_reason({"match": match, "min_score": 0.44})
    assert reason.startswith("nothing is close enough in meaning (best 0.4399, floor 0.44) and no passage holds most "
                             "of the query's words (best 44.6%, needs 45%) nor 33% in a passage of meaning 0.30 or "
                             "more (best 32.99%), and the best passage, in another language, stands 0.1999 above")
    assert "(best 0.4399, floor 0.44) or in words (best 44.6%, needs 45%)" in no_match_reason(
        {"match": match, "min_score": 0.44}, brief=True)


@pytest.mark.parametrize("value, floor, share, shown", [
    (0.32, 0.44, False, "0.32"),     # well under: two decimals, as before
    (0.4349, 0.44, False, "0.43"),
    (0.43999, 0.44, False, "0.4400"),  # two more decimals at most
    (0.27, 0.45, True, "27%"),
    (0.55, 0.44, False, "0.55"),     # over its floor (no match for another reason): as before
])
def test_short_of(value, floor, share, shown):
    assert short_of(value, floor, share) == shown
