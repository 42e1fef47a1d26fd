"""Session 45: the time-reading leftovers of session 44. Each test of a break failed before its fix; those saying
"still" or "as before" guard what must not move with it."""

from datetime import datetime

import pytest

from tachikoma.when import timeq
from tachikoma.language.function_words import question_language
from tachikoma.search.keywords import STOPWORDS, query_terms
from time_reading import windows_at

TENTH = datetime.fromisoformat("2026-12-10T21:00:00+09:00")  # a Thursday

windows = windows_at(TENTH)


# 1. A Japanese day of the month in kanji numerals was not read ("二十九日", as "29日" is): it is, by the rules of a day
# in digits (a count, a thing that lasts, a rate are none), unless a kanji stands right before it ("同一日").
@pytest.mark.parametrize("query, expected", [
    ("二十九日に何をした？", [("二十九日", "2026-11-29", False)]),
    ("二十九日の会議は？", [("二十九日", "2026-12-29", True)]),
    ("十日は何の日？", [("十日", "2026-12-10", False)]),
    ("三日に何を決めた？", [("三日", "2026-12-03", False)]),
    ("二十九日から三十日まで何がある？", [("二十九日から三十日", "2026-12-29..2026-12-30", True)]),
    ("一日から何がある？", [("一日", "2027-01-01", True)]),  # "1日" only before に, まで, から, as in digits
])
def test_a_japanese_day_in_kanji_numerals(query, expected):
    assert windows(query) == expected


@pytest.mark.parametrize("query", [
    "一日中何をした？",  # all day
    "一日の流れは？",  # a day's
    "一日に何回コーヒーを飲む？",  # a rate
    "三日間の旅行はどうだった？",  # three days long
    "三日の旅行はどうだった？",  # a trip of three days
    "二日酔いはいつ？",  # a hangover
    "三日月はいつ見た？",  # a crescent moon
    "三日坊主の話は？",
    "四日市で何を食べた？",  # a city
    "同一日に何回？",  # a kanji before it: a word's ("the same day")
    "ここ三日、何をした？",  # these three days
])
def test_a_kanji_count_of_days_or_a_word_is_still_no_day(query):
    assert windows(query) == []


# 2. A month in Chinese numerals was not read ("十二月二十九号"; "12月29号" was): with its day, it is a date, in Chinese
# and Japanese, after a year too. A month alone in numerals stays unread ("十二月有什么安排？").
@pytest.mark.parametrize("query, expected", [
    ("十二月二十九号做了什么？", [("十二月二十九号", "2025-12-29", False)]),
    ("十二月二十九日有什么安排？", [("十二月二十九日", "2026-12-29", True)]),
    ("三月二十九号有什么安排？", [("三月二十九号", "2027-03-29", True)]),
    ("12月二十九号做了什么？", [("12月二十九号", "2025-12-29", False)]),
    ("十二月二十九日に何をした？", [("十二月二十九日", "2025-12-29", False)]),
    ("三月三日に何をした？", [("三月三日", "2026-03-03", False)]),
    ("2025年十二月二十九日に何をした？", [("2025年十二月二十九日", "2025-12-29", False)]),
])
def test_a_month_and_day_in_chinese_numerals(query, expected):
    assert windows(query) == expected


@pytest.mark.parametrize("query", [
    "十二月有什么安排？",  # a month alone in numerals: not read
    "一月一次开会吗？",  # once a month
    "二十二月三号有什么？",  # no month
    "十二月十十号做了什么？",  # no day
])
def test_a_month_in_numerals_without_a_day_is_still_none(query):
    assert windows(query) == []


# 3. "15日の旅行" read the trip on the 15th: a trip of fifteen days is said so as often. The round counts of a long
# stay (15, 20, 30 days) before a thing that lasts are counts too, as those up to 14 are; "29日の旅行" is still the 29th.
@pytest.mark.parametrize("query, expected", [
    ("15日の旅行はどうだった？", []),
    ("20日の休みは何をした？", []),
    ("30日の旅行は？", []),
    ("15일 휴가 어디 갔어?", []),
    ("29日の旅行はどうだった？", [("29日", "2026-11-29", False)]),  # still
    ("21日の旅行はどうだった？", [("21日", "2026-11-21", False)]),  # still
    ("15日の会議は？", [("15日", "2026-12-15", True)]),  # still: no thing that lasts
])
def test_a_round_count_of_days_before_a_trip_is_a_count(query, expected):
    assert windows(query) == expected


# 4. "29号做了什么？" and "三号之前" read no day: "做" (do) and "之前", "以后" (before, after: the day itself, as "29日まで"
# is) after 号 make it one; "三号之前" is no past tense ("三日之前" is three days ago, no day).
@pytest.mark.parametrize("query, expected", [
    ("29号做了什么？", [("29号", "2026-11-29", False)]),
    ("三号之前要交什么？", [("三号", "2027-01-03", True)]),
    ("三号之前做了什么？", [("三号", "2026-12-03", False)]),
    ("三号以后有什么安排？", [("三号", "2027-01-03", True)]),
    ("3号干什么？", [("3号", "2027-01-03", True)]),
    ("三日之前做了什么？", []),  # still
    ("3号后门在哪？", []),  # still: a back door
])
def test_a_chinese_day_before_do_or_before(query, expected):
    assert windows(query) == expected


# 5. Korean "1일" before a word was never the 1st ("1일 회의 어땠어?"): it is, unless the word says "per day".
@pytest.mark.parametrize("query, expected", [
    ("1일 회의 어땠어?", [("1일", "2026-12-01", False)]),
    ("1일 회의 몇 시야?", [("1일", "2027-01-01", True)]),
    ("1일 한도는?", []),  # still: a daily limit
    ("1일 권장량은?", []),
    ("1일 한 번 먹어?", []),  # once a day
    ("1일 체험 어땠어?", []),  # a one-day trial
    ("1일 섭취량은?", []),
    ("1일은 24시간이야?", []),  # still: a day's
])
def test_korean_first_before_a_word(query, expected):
    assert windows(query) == expected


# 6. A day of the week said whole after a day of the month, without brackets ("29일 월요일", "29日 月曜日", "29号周一"),
# picks its month as "29日(月)" does.
@pytest.mark.parametrize("query, expected", [
    ("29일 월요일에 뭐 해?", [("29일 월요일", "2027-03-29", True)]),
    ("29日 月曜日の会議は？", [("29日 月曜日", "2027-03-29", True)]),
    ("29日月曜日の会議は？", [("29日月曜日", "2027-03-29", True)]),
    ("29号周一开会吗？", [("29号周一", "2027-03-29", True)]),
    ("29号星期一开会吗？", [("29号星期一", "2027-03-29", True)]),
    ("3일 월요일에 뭐 했어?", [("3일 월요일", "2026-08-03", False)]),
    ("3日 月曜日に何をした？", [("3日 月曜日", "2026-08-03", False)]),
    ("29일 일요일에 뭐 해?", [("29일 일요일", "2026-11-29", False)]),  # the Sunday just gone, as "29일(일)" reads
    ("29日(火)の会議は？", [("29日(火)", "2026-12-29", True)]),  # as before
    ("내일 일요일에 뭐 해?", [("내일 일요일", "2026-12-11", True)]),  # as before: no day's number
    ("29日(月末)の会議は？", []),  # as before: no day of the week
])
def test_a_day_of_the_week_after_a_day_picks_its_month(query, expected):
    assert windows(query) == expected


# 7. Korean: "3일 놀았어?" read the 3rd (three days of fun), "29일 쉬어?" nothing (off on the 29th), "휴가가 3일이야?" the
# 3rd (the holiday is three days); "왔어", "나왔어", "어땠어" were no past tense.
@pytest.mark.parametrize("query, expected", [
    ("3일 놀았어?", []),
    ("29일 쉬어?", [("29일", "2026-12-29", True)]),
    ("29일도 쉬어?", [("29일", "2026-12-29", True)]),
    ("29일 놀았어?", [("29일", "2026-11-29", False)]),
    ("휴가가 3일이야?", []),
    ("3일에 왔어?", [("3일", "2026-12-03", False)]),
    ("29일에 나왔어?", [("29일", "2026-11-29", False)]),
    ("3일 쉬었어?", []),  # still
    ("20일 쉬었어?", []),  # a round count
    ("회의가 29일이야?", [("29일", "2026-12-29", True)]),  # still
    ("휴가가 29일이야?", [("29일", "2026-12-29", True)]),  # no holiday of 29 days
    ("29일에 뭐 있어?", [("29일", "2026-12-29", True)]),  # 있어 is no past
    ("29일에 뭐 하겠어?", [("29일", "2026-12-29", True)]),  # nor 겠
])
def test_korean_days_spent_and_the_past(query, expected):
    assert windows(query) == expected


DECEMBER = datetime.fromisoformat("2026-12-05T10:00:00+01:00")  # a Saturday
JULY = datetime.fromisoformat("2027-07-15T10:00:00+02:00")  # in summer


# 9. "last summer in July" read this July beside last summer: a season and one of its months side by side are that
# month of that season (`timespan._month_of_season`).
@pytest.mark.parametrize("query, expected", [
    ("What did we do last summer in July?", [("last summer in July", "2026-07", False)]),
    ("What did we do in July last summer?", [("in July last summer", "2026-07", False)]),
    ("What did we do last summer, in July?", [("last summer, in July", "2026-07", False)]),
    ("Was haben wir letzten Sommer im Juli gemacht?", [("letzten Sommer im Juli", "2026-07", False)]),
    ("What did we do in the summer of 2024 in July?", [("in the summer of 2024 in July", "2024-07", False)]),
    ("What did we do last winter in December?", [("last winter in December", "2026-12", False)]),
    # still two times: a month not the season's, one with its year, one after "since"
    ("What did we do last summer in October?", [("last summer", "2026-06-01..2026-08-31", False),
                                                ("in October", "2026-10", False)]),
    ("What did we do in July 2026 last summer?", [("July 2026", "2026-07", False),
                                                  ("last summer", "2026-06-01..2026-08-31", False)]),
    ("What did we do since last summer in July?", [("since last summer", "2026-06-01..2027-07-15", False),
                                                   ("in July", "2027-07", False)]),
])
def test_a_month_of_a_season(query, expected):
    assert windows(query, JULY) == expected


# 10. German "seit letztem Sommer" was not read, "seit dem letzten Sommer" read last summer alone: both are since the
# latest summer that has ended, as "since last summer" is.
@pytest.mark.parametrize("query, expected", [
    ("Was haben wir seit letztem Sommer gemacht?", [("seit letztem Sommer", "2026-06-01..2026-12-05", False)]),
    ("Was haben wir seit dem letzten Sommer gemacht?", [("seit dem letzten Sommer", "2026-06-01..2026-12-05", False)]),
    ("Was hat sich seit vorigem Winter geändert?", [("seit vorigem Winter", "2025-12-01..2026-12-05", False)]),
    ("Was hat sich seit letztem Frühjahr geändert?", [("seit letztem Frühjahr", "2026-03-01..2026-12-05", False)]),
    ("What did we change since last winter?", [("since last winter", "2025-12-01..2026-12-05", False)]),  # as before
    ("Was haben wir letzten Sommer gemacht?", [("letzten Sommer", "2026-06-01..2026-08-31", False)]),  # as before
])
def test_german_since_last_season(query, expected):
    assert windows(query, DECEMBER) == expected


# 11, 12. "Is this Summer's laptop?" read this summer (Summer's, a name); "What did we plant the last fall?" read no
# autumn (a fall, as "What caused the last fall?" is).
@pytest.mark.parametrize("query, expected", [
    ("Is this Summer's laptop?", []),
    ("Is last Winter's bike here?", []),
    ("What did we plant the last fall?", [("last fall", "2026-09-01..2026-11-30", False)]),
    ("Which bulbs did you plant the last fall?", [("last fall", "2026-09-01..2026-11-30", False)]),
    # as before
    ("Is this summer's plan ready?", [("this summer", "2026-06-01..2026-08-31", False)]),
    ("What did we do this Summer?", [("this Summer", "2026-06-01..2026-08-31", False)]),
    ("How do this fall's numbers look?", [("this fall", "2026-09-01..2026-11-30", False)]),
    ("What caused the last fall?", []),
    ("When did she have the last fall?", []),
    ("When was Grandma's last fall?", []),
])
def test_summers_name_and_the_last_fall(query, expected):
    assert windows(query, DECEMBER) == expected


# 13. French "ce dimanche-là" read last Sunday: "-là" names a time said before ("that Sunday"), no window of its own;
# so do "cette semaine-là", "ce mois-là", "cet été-là".
@pytest.mark.parametrize("query, expected", [
    ("Qu'avons-nous fait ce dimanche-là ?", []),
    ("Qu'avons-nous fait cette semaine-là ?", []),
    ("Cet été-là, qu'avons-nous fait ?", []),
    ("Qu'avons-nous fait ce dimanche ?", [("ce dimanche", "2026-11-29", False)]),  # as before
    ("Qu'avons-nous fait cette semaine ?", [("cette semaine", "2026-11-30..2026-12-05", False)]),
])
def test_french_that_sunday_is_no_window(query, expected):
    assert windows(query, DECEMBER) == expected


# 14. Turkish "Bu akşam ne var?" is read as today, and its keyword query kept "ne" and "var": blanked out of the time
# phrase, they are homographs alone, no evidence of Turkish. The language the whole question was told as counts them.
@pytest.mark.parametrize("query, expected", [
    ("Bu akşam ne var?", []),
    ("Bu akşam sinemada ne var?", ["sinemada"]),
    ("Bu sabah kim geldi?", ["kim", "geldi"]),  # still: one function word is no evidence of a language
    ("What is ne var?", ["ne", "var"]),  # as before: English, no Turkish told
])
def test_turkish_function_words_after_the_time_is_read(query, expected):
    language = question_language(query)
    spans = timeq.read_spans(query, DECEMBER)
    assert query_terms(timeq.without_time(query, spans), skip=STOPWORDS, language=language) == expected
