"""Questions in Polish and Turkish are told as their language and read as the other ten are: their function words
leave the keywords ("co", "jak", "w", "się"; "ne", "ve", "bu", "için"), their time words are times ("wczoraj", "w
zeszłym tygodniu", "w przyszły czwartek"; "dün", "geçen hafta", "Salı günkü"), and the kind they ask for is read
("numer telefonu", "saat kaçta"). Passages are read as before: a Polish or Turkish note is not told as its language
(`embedders.auto.passage_language`), nor read for its days of the week (`mentions`: "pazar" is a market too)."""

from datetime import date

import pytest

from tachikoma.search import answer_kind
from tachikoma.when import mentions
from tachikoma.embedders.auto import passage_language
from tachikoma.language.function_words import question_language
from tachikoma.search.keywords import STOPWORDS, gathers_in, query_terms
from test_ahead import assert_read_linear
from test_foreign_weekdays import THURSDAY, read


@pytest.mark.parametrize("question, language", [
    ("Kiedy jest druga wizyta u dentystki w Szczecinie?", "Polish"),
    ("Jak zrobić zakwas na barszcz?", "Polish"),
    ("Co mówiła Babcia przez telefon w zeszłą niedzielę?", "Polish"),
    ("Selin'in düğünü ne zaman ve nerede?", "Turkish"),
    ("Bu cumartesi Wedding'de pazar kaçta kuruluyor?", "Turkish"),
    # not told: one function word ("ile"), English homographs alone ("ten", "mam"; "ben", "kim"), other languages
    ("Ile kosztuje opiekunka Babci miesięcznie?", None),
    ("Ten mam cards for Kim", None),
    ("Did Ben ask Kim about the var?", None),
    ("O que tenho na segunda-feira?", "Portuguese"),
    ("Qu'est-ce que je fais ce week-end ?", "French"),
    ("Wo ist die Mappe mit den Unterlagen?", "German"),
])
def test_the_language_of_a_question(question, language):
    assert question_language(question) == language


def test_their_function_words_are_no_keywords():
    assert query_terms("Co robię w przyszły czwartek wieczorem?", skip=STOPWORDS) == [
        "robię", "przyszły", "czwartek", "wieczorem"]
    # (ü's spelling "ue" is German's, asked beside it as for any word holding an umlaut)
    assert query_terms("Selin'in düğünü ne zaman ve nerede?", skip=STOPWORDS) == ["Selin", "düğünü", "dueğuenue"]
    assert "bu" not in query_terms("Bu hafta için ne var ve kim gelecek?", skip=STOPWORDS)
    assert query_terms("Ten mam cards", skip=STOPWORDS) == ["Ten", "mam", "cards"]  # English: kept


@pytest.mark.parametrize("question, windows", [
    # THURSDAY is 21 January 2027
    ("Co robiłam wczoraj?", [("2027-01-20", False)]),
    ("Co było przedwczoraj?", [("2027-01-19", False)]),
    ("Co mam jutro?", [("2027-01-22", True)]),
    ("Co było w zeszłym tygodniu?", [("2027-01-11..2027-01-17", False)]),
    ("Co mam w przyszłym tygodniu?", [("2027-01-25..2027-01-31", True)]),
    ("Co robię w przyszły czwartek wieczorem?", [("2027-01-28", True)]),
    ("Co mówiła Babcia przez telefon w zeszłą niedzielę?", [("2027-01-17", False)]),
    ("Co mam w sobotę za trzy tygodnie w Szczecinie?", [("2027-02-13", True)]),
    ("Co się stało dwa dni temu?", [("2027-01-18..2027-01-20", False)]),
    ("Co było tydzień temu?", [("2027-01-10..2027-01-18", False)]),
    ("Co mam za dwa tygodnie?", [("2027-01-31..2027-02-08", True)]),
    ("Co robiliśmy w grudniu?", [("2026-12", False)]),
    ("Co się działo od marca?", [("2026-03-01..2027-01-21", False)]),
    ("Co było 15 grudnia?", [("2026-12-15", False)]),
    ("Dün ne yaptım?", [("2027-01-20", False)]),
    ("Yarın ne var?", [("2027-01-22", True)]),
    ("Geçen hafta ne oldu?", [("2027-01-11..2027-01-17", False)]),
    ("Gelecek hafta ne var?", [("2027-01-25..2027-01-31", True)]),
    ("Geçen hafta sonu ne yaptık?", [("2027-01-16..2027-01-17", False)]),
    ("Geçen pazar ne yaptık?", [("2027-01-17", False)]),
    ("Üç gün önce ne oldu?", [("2027-01-17..2027-01-19", False)]),
    ("İki hafta sonra ne var?", [("2027-01-31..2027-02-08", True)]),
    ("iki hafta sonra ne var?", [("2027-01-31..2027-02-08", True)]),
    ("Dwa dni temu co było?", [("2027-01-18..2027-01-20", False)]),
    ("Wczoraj co robiłam?", [("2027-01-20", False)]),
    ("W zeszły piątek co było?", [("2027-01-15", False)]),
    ("haftaya salı ne var?", [("2027-01-26", True)]),
    # asked about a plan ("gidiyor": who is going; "kuruluyor": is set up), the coming one
    ("Salı günkü ameliyat öncesi görüşmeye Ayşe Anne'yle kim gidiyor, saat kaçta?", [("2027-01-26", True)]),
    ("Bu cumartesi Wedding'de pazar kaçta kuruluyor?", [("2027-01-23", True)]),
    # too short to tell its language ("ne" alone): read by the day's own words, the future's "-acak" and the past's
    ("Cuma günü ne yapacağız?", [("2027-01-22", True)]),
    ("Salı günü kim gidiyordu?", [("2027-01-19", False)]),
    ("Ekimde ne oldu?", [("2026-10", False)]),
    ("Ocak ayında ne var?", [("2027-01", False)]),
    ("Aralık 2026'da ne oldu?", [("2026-12", False)]),
    # no time: a market, a stove, a habit, a Polish "in" before another language's month
    ("Wedding'de pazar kaçta kuruluyor?", []),
    ("Ocakta ne pişirdin?", []),
    ("Co robię w każdą sobotę?", []),
    ("Co mam co sobotę?", []),
    ("Gdzie jest w mars bar?", []),
])
def test_their_time_words(question, windows):
    assert read(question, THURSDAY) == windows


def test_a_question_that_gathers():
    assert gathers_in("Ile razy w tym roku była Kasia u dentystki?", "Polish")
    assert gathers_in("Bu yıl toplam kaç kez İzmir'e gittik?", "Turkish")
    assert not gathers_in("Co mówiła Babcia w sumie?", "Polish")


def test_the_past_rules_their_windows_ahead_out():
    assert read("Co mówiła Babcia o przyszłym tygodniu?", THURSDAY) == []  # "mówiła": the past
    assert read("Kim geçen hafta gelecek haftayı konuştu?", THURSDAY) == [("2027-01-11..2027-01-17", False)]


@pytest.mark.parametrize("question, kind", [
    ("Jaki jest numer telefonu Kasi?", "a phone or account number"),
    ("Emre'nin telefon numarası ne?", "a phone or account number"),
    ("Jak zmienić numer telefonu?", None),  # how to change it: about the number, not for it
    ("O której jest wizyta u dentystki?", "a time of day"),
    ("Salı günkü görüşmeye kim gidiyor, saat kaçta?", "a time of day"),
    ("Kiedy są urodziny mamy Kasi?", "a day"),
    ("Emre'nin doğum günü ne zaman?", "a day"),
    ("Emre'nin doğum günü partisi nerede?", None),
    ("Jaka będzie jutro pogoda w Gdańsku?", "a weather report"),
    ("Yarın İzmir'de hava durumu nasıl?", "a weather report"),
    ("Kim's phone number?", "a phone or account number"),  # "Kim" opens no Turkish "who"
])
def test_what_they_ask_for(question, kind):
    asked = answer_kind.asked(question)
    assert (asked and asked.name) == kind


def test_what_a_passage_holds_in_them():
    today = date(2027, 1, 21)
    assert answer_kind.CLOCK.held("Wizyta o godzinie 18 w Szczecinie.", today)
    assert answer_kind.CLOCK.held("Görüşme saat 14'te.", today)
    assert answer_kind.WEATHER.held("Yarın İzmir'de yağmur bekleniyor.", today)


def test_passages_are_read_as_before():
    assert passage_language("Babcia mówi, że w niedzielę jest obiad u nas i że to jest ważne dla niej.") is None
    written = date(2027, 1, 18)
    assert mentions.weekdays("Pazar günü pazar kuruluyor, çarşamba da.", written, date(2027, 1, 21)) == []


@pytest.mark.parametrize("phrase", ["w zeszłą niedzielę ", "dwa dni temu ", "za tydzień ", "geçen pazar günü ",
                                    "mart ayında ", "iki hafta sonra ", "w ", "Cuma günü "])
def test_reading_their_phrases_many_times_is_linear(phrase):
    assert_read_linear(phrase, 300)
