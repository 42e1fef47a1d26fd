"""Words that say how a question asks, not what about (session 42): "apart from", "decide against", "exactly",
"altogether" and "in total" are never words the memory is missing, as "many" is not; where a note says them they
are keywords still ("Who did we play against?" and "We played against the Hornets")."""

from tachikoma.search.keywords import STOPWORDS, nowhere_weight, query_terms


def test_words_of_asking_found_nowhere_are_not_missing():
    counts = {"next": 3, "week": 5, "usual": 1, "clubs": 2, "apart": 0}
    assert nowhere_weight(counts, 40) == ([], 0.0)
    for word in ("against", "exactly", "altogether", "total", "Total"):
        assert nowhere_weight({"tools": 3, "decide": 2, word: 0}, 40) == ([], 0.0)


def test_a_rare_word_found_nowhere_is_still_missing():
    missing, weight = nowhere_weight({"interview": 3, "recorded": 2, "total": 0, "podcast": 0}, 40)
    assert missing == ["podcast"] and weight > 0


def test_they_stay_keywords_where_a_note_says_them():
    assert query_terms("Who did we play against?", skip=STOPWORDS) == ["play", "against"]
    assert "together" in query_terms("How many times did they hike together?", skip=STOPWORDS)
