"""Words that say how a question asks, not what about (session 42): "apart from", "decide against", "exactly",
"altogether" are no keywords, and "total" is never a word the memory is missing, as "many" is not."""

from tachikoma.search.keywords import STOPWORDS, nowhere_weight, query_terms


def test_prepositions_and_adverbs_of_asking_are_no_keywords():
    assert query_terms("what's on next week, apart from the usual clubs", skip=STOPWORDS) == ["next", "week", "usual",
                                                                                              "clubs"]
    assert query_terms("Which tools did we decide against?", skip=STOPWORDS) == ["tools", "decide"]
    assert query_terms("When exactly is the talk in Turin, altogether?", skip=STOPWORDS) == ["talk", "Turin"]


def test_together_stays_a_keyword():  # conversations say it as the question does ("hike together")
    assert "together" in query_terms("How many times did they hike together?", skip=STOPWORDS)


def test_total_is_no_missing_word_but_a_rare_one_is():
    missing, weight = nowhere_weight({"interview": 3, "recorded": 2, "total": 0}, 40)
    assert missing == [] and weight == 0.0
    missing, weight = nowhere_weight({"interview": 3, "recorded": 2, "total": 0, "podcast": 0}, 40)
    assert missing == ["podcast"] and weight > 0
