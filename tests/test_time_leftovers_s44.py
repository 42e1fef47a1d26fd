"""Session 44: the time-reading leftovers of sessions 42 and 43. Each test of a break failed before its fix; those
saying "still" or "as before" guard what must not move with it."""

from datetime import date, datetime, timezone

import pytest
from linear import assert_linear

from tachikoma.search import answer_kind
from tachikoma.when import mentions, timeq
from tachikoma.language.function_words import question_language
from tachikoma.search.keywords import STOPWORDS, asks_besides_time, query_terms
from time_reading import windows_at

DECEMBER = datetime.fromisoformat("2026-12-05T10:00:00+01:00")  # a Saturday, in winter's first month
JANUARY = datetime.fromisoformat("2027-01-10T10:00:00+01:00")  # winter's second month
TODAY = date(2026, 12, 5)


windows = windows_at(DECEMBER)


# 1. "since the winter" asked on 5 December read 1 to 5 December, the winter just begun; "during / over the winter"
# asked then means the one that ended (session 43), and so do "since" and "after" now, in every language read.
@pytest.mark.parametrize("query, expected", [
    ("What did we change since the winter?", [("since the winter", "2025-12-01..2026-12-05", False)]),
    ("What did we do after the winter?", [("after the winter", "2026-03-01..", False)]),
    ("Was hat sich seit dem Winter geändert?", [("seit dem Winter", "2025-12-01..2026-12-05", False)]),
    ("Qu'est-ce qui a changé depuis l'hiver ?", [("depuis l'hiver", "2025-12-01..2026-12-05", False)]),
    ("¿Qué cambió desde el invierno?", [("desde el invierno", "2025-12-01..2026-12-05", False)]),
    ("Wat is er sinds de winter veranderd?", [("sinds de winter", "2025-12-01..2026-12-05", False)]),
])
def test_since_a_season_in_its_first_month_is_since_the_last_one(query, expected):
    assert windows(query) == expected


@pytest.mark.parametrize("query, now, expected", [
    ("What did we change since the winter?", JANUARY, [("since the winter", "2026-12-01..2027-01-10", False)]),
    ("What did we do after the winter?", JANUARY, []),  # one under way past its first month: nothing after it yet
    ("What did we change since this winter?", DECEMBER, [("since this winter", "2026-12-01..2026-12-05", False)]),
    ("Was hat sich seit diesem Winter geändert?", DECEMBER, [("seit diesem Winter", "2026-12-01..2026-12-05", False)]),
    ("What did we change since the summer?", DECEMBER, [("since the summer", "2026-06-01..2026-12-05", False)]),
    ("What did we do this winter?", DECEMBER, [("this winter", "2026-12-01..2026-12-05", False)]),
    ("What did we change since last winter?", DECEMBER, [("since last winter", "2025-12-01..2026-12-05", False)]),
])
def test_since_a_season_otherwise_is_read_as_before(query, now, expected):
    assert windows(query, now) == expected


# 2. "on the 21st in may" read a bare day (the next 21st), "on the 21st in July" 21 July: a month that is also a word
# ("may", "march", "august") counts in lower case right after "the 21st in" or an ordinal and "of".
@pytest.mark.parametrize("query, expected", [
    ("What is on the 21st in may?", [("on the 21st in may", "2026-05-21", False)]),
    ("What did we decide on the 21st in march?", [("on the 21st in march", "2026-03-21", False)]),
    ("What did we do on the 21st of may?", [("21st of may", "2026-05-21", False)]),
    ("Who came to the party on the 1st of august?", [("1st of august", "2026-08-01", False)]),
])
def test_a_lowercase_month_after_an_ordinal_day_is_one(query, expected):
    assert windows(query) == expected


@pytest.mark.parametrize("query, expected", [
    ("What is on the 21st in July?", [("on the 21st in July", "2026-07-21", False)]),  # as before
    ("I may go in may", []),  # "in may" alone, lower case: as ambiguous as before
    ("What did I say I may do in may?", []),
    ("The 21st may be too late, what else?", []),  # no "in" or "of": the verb
    ("Who was 1st in may?", []),  # a rank, no "the": not a day's
    ("What's on the 21st, may I ask?", [("on the 21st", "2026-12-21", True)]),
])
def test_a_lowercase_month_word_is_still_no_month_alone(query, expected):
    assert windows(query) == expected


def test_a_passage_names_the_21st_of_may_in_lower_case_too():
    assert mentions.days("party on the 21st of may", None, TODAY) == [date(2027, 5, 21)]
    assert mentions.days("the 21st may be late", None, TODAY) == []  # as before
    assert mentions.days("we 2 may go", None, TODAY) == []


# 3. Turkish "bu akşam" (this evening) was told as Turkish but read as no time: it is today, as "tonight" is, and so
# are "bu sabah", "bu gece", "bu öğleden sonra" (this morning, tonight, this afternoon); "yarın akşam" is tomorrow.
@pytest.mark.parametrize("query, expected", [
    ("Bu akşam ne var?", [("Bu akşam", "2026-12-05", False)]),
    ("Bu sabah ne yaptık?", [("Bu sabah", "2026-12-05", False)]),
    ("Bu gece kim geliyor?", [("Bu gece", "2026-12-05", False)]),
    ("Bu akşamki toplantı nerede?", [("Bu akşamki", "2026-12-05", False)]),
    ("bu öğleden sonra kim aradı?", [("bu öğleden sonra", "2026-12-05", False)]),
    ("Yarın akşam ne var?", [("Yarın", "2026-12-06", True)]),  # as before: by its day
    ("Dün akşam ne yedik?", [("Dün", "2026-12-04", False)]),
])
def test_turkish_this_evening_is_today(query, expected):
    assert windows(query) == expected


def test_bu_aksam_ne_var_asks_about_the_time_alone_as_whats_on_tonight():
    for query in ("Bu akşam ne var?", "What is on tonight?"):
        spans = timeq.read_spans(query, DECEMBER)
        assert [w.relative for _, _, w in spans] == [True]
        assert not asks_besides_time(timeq.without_time(query, spans, every=True), question_language(query))
    spans = timeq.read_spans("Bu akşam sinemada ne var?", DECEMBER)  # a cinema: asked about besides the time
    assert asks_besides_time(timeq.without_time("Bu akşam sinemada ne var?", spans, every=True), "Turkish")


# 4. A score was read as a time of day in a passage when words stood between it and the word saying it ("won the
# match 3:10"), after it ("3:10 gewonnen") or in Polish ("Wygraliśmy 3:10"); "won 3:10" was none already.
@pytest.mark.parametrize("passage", [
    "We won the match 3:10",
    "They beat us 3:10 in the cup",
    "beat Hamburg 3:10",
    "lost to Hamburg 2:15",
    "The result was 3:10.",
    "It was a draw, 2:20",
    "Wir haben 3:10 gewonnen",
    "Wir haben das Spiel 3:10 verloren",
    "Wygraliśmy 3:10",
    "Przegrali 2:15",
    "Wygraliśmy mecz 3:10",
    "Maçı 3:10 kazandık",
    "a 3:10 win over Leeds",
])
def test_a_score_is_no_time_of_day(passage):
    assert not answer_kind.CLOCK.held(passage, TODAY)


@pytest.mark.parametrize("passage", [
    "won 3:10, then dinner at 19:30",  # the dinner's time
    "Meeting at 3:10",
    "we won the raffle, pick-up at 3:10",
    "We lost the keys at 3:10",
    "We lost power 14:30",
    "lost my wallet around 14:30",
    "beat the traffic home 17:30",
    "14:30 loss of power",
    "the 14:30 won't work",
    "The 3:10 train to Yuma",
    "we lost 2:1 and met at 18:00",
])
def test_a_time_near_a_word_of_winning_is_still_one(passage):
    assert answer_kind.CLOCK.held(passage, TODAY)


def test_we_lost_2_1_was_and_is_no_time():
    assert not answer_kind.CLOCK.held("we lost 2:1", TODAY)


# 5 (the keyword side): an emoji's variation selector was a keyword of its own ("☎️": U+260E U+FE0F).
@pytest.mark.parametrize("with_selector, without", [
    ("☎️ number of the GP", "☎ number of the GP"),
    ("❤️Anna's birthday", "❤Anna's birthday"),
    ("call 1️⃣ now", "call 1 now"),
    ("text\ufe0e style", "text style"),
    ("👨\u200d👩\u200d👧 family photos", "👨👩👧 family photos"),
])
def test_a_variation_selector_makes_no_keyword(with_selector, without):
    assert query_terms(with_selector, skip=STOPWORDS) == query_terms(without, skip=STOPWORDS)
    assert not any(ch in word for word in query_terms(with_selector) for ch in "\ufe0e\ufe0f\u20e3\u200d")


def test_a_kanji_variation_selector_splits_as_the_index_does():
    # FTS5 reads U+E0100 as a space, and the index's runs do not cross it: the query asks 葛 and 飾区, both held
    assert query_terms("葛\U000e0100飾区") == ["葛", "飾区"]


def test_reading_scores_and_months_stays_linear_on_long_input():
    assert_linear(lambda passage: answer_kind.CLOCK.held(passage, TODAY),
                  lambda n: "We won the match 3:10 and " * n + "lost to them 2:15", 500)
    assert_linear(lambda question: timeq.read_spans(question, DECEMBER), lambda n: "What is on the 21st in may? " * n, 50)


# 7. "What's on the 21st in July?" asked on 2 July read last year's 21 July, where "What is on 21 July?" reads the coming
# one: a day said "the 21st in July" is a day without its year too (`timeq.names_day_ahead`).
@pytest.mark.parametrize("query, asked, expected", [
    ("What's on the 21st in July?", datetime(2026, 7, 2, 12, tzinfo=timezone.utc), "2026-07-21"),
    ("In July, on the 21st, what is on?", datetime(2026, 7, 2, 12, tzinfo=timezone.utc), "2026-07-21"),
    ("What's on the 21st in July?", datetime(2026, 7, 25, 12, tzinfo=timezone.utc), "2026-07-21"),  # just gone
    ("What did we do on the 21st in July?", datetime(2026, 7, 2, 12, tzinfo=timezone.utc), "2025-07-21"),  # past tense
    ("What is on the 21st in March 2027?", datetime(2026, 7, 2, 12, tzinfo=timezone.utc), "2027-03-21"),  # its year
])
def test_the_21st_in_july_asked_before_it_is_the_coming_one(query, asked, expected):
    read = windows(query, asked, ahead=timeq.names_day_ahead(query, asked) or None)
    assert [label for _, label, _ in read] == [expected]
