"""Adversarial review of session 43's Japanese words (`segment.japanese_parts`, `function_words.JAPANESE`).

Each test names whether it failed before its fix or pins behaviour that was right already.
"""

import pytest

from tachikoma.search.keywords import STOPWORDS, asks_besides_time, query_terms
from tachikoma.language.segment import index_text, japanese_parts, query_words


# --- fixed: a particle written alone, or between words in another script, asked itself ("の" is in nearly every
# Japanese note); as a Korean particle alone asks nothing ("Gleis에서"). Failed before.
@pytest.mark.parametrize("question, keywords", [
    ("Seiryu の NOC の電話番号は？", ["Seiryu", "NOC", "電話", "話番", "番号"]),
    ("SeiryuのNOCの電話番号は？", ["Seiryu", "NOC", "電話", "話番", "番号"]),
    ("Arjun は？", ["Arjun"]),
])
def test_a_particle_alone_asks_nothing(question, keywords):
    assert query_terms(question, skip=STOPWORDS) == keywords


def test_a_particle_alone_gives_no_query_word():
    assert query_words("の") == []
    assert query_words("NOCの") == ["NOC"]


# --- fixed: the prolonged sound mark after hiragana is part of that hiragana word: "すごーい" was cut into "すご" and
# "ーい", and "ーい" asked as a content word. Failed before.
def test_a_long_vowel_after_hiragana_stays_in_its_word():
    assert japanese_parts("すごーい店") == ["すごーい", "店"]
    assert query_words("すごーい店の名前は") == ["店", "名前"]
    assert query_words("かわいーいお店") == ["店"]
    assert query_words("すごーい") == ["すご", "ごー", "ーい"]  # nothing but kana: its pairs, as "いつですか"


def test_a_long_vowel_in_katakana_is_katakana():  # right already
    assert query_words("ラーメン屋の名前は") == ["ラー", "ーメ", "メン", "ン屋", "名前"]
    assert query_words("ﾗｰﾒﾝを食べた") == ["ﾗｰ", "ｰﾒ", "ﾒﾝ", "食べ"]


# --- fixed: a word that asks written alone. "いくら" is in `JAPANESE`, but a run gives pairs or one character, never
# a word of three: "いくら？" asked "いく", "くら". Failed before.
def test_a_japanese_word_that_asks_written_alone_asks_nothing():
    assert query_terms("いくら？", skip=STOPWORDS) == []
    assert query_terms("どう？", skip=STOPWORDS) == []
    assert query_terms("いくら丼の店", skip=STOPWORDS) == ["丼", "店"]  # not the word alone: a part of kana, left out


# --- fixed: cut into words, a Japanese question about a time now leaves one kanji, which `asks_besides_time` read
# with the Chinese and Korean characters that say nothing: 会 (Chinese "will") is a gathering in Japanese.
# "来週の会はどこ？" had been read as asking about next week alone. Failed before (the first four).
@pytest.mark.parametrize("untimed", [" の会はどこ？", " の会は？", " の点は？", " の和は？"])
def test_one_kanji_of_a_japanese_question_is_a_word(untimed):
    assert asks_besides_time(untimed, "Japanese")


@pytest.mark.parametrize("untimed, language", [
    (" の予定は？", "Japanese"),   # right already: 予定 says only that something is to come
    (" の事は？", "Japanese"),     # right already (with the cut; before it, "事は" was a word)
    ("有什么事？", "Chinese"),     # right already: the Chinese list still reads Chinese
    (" 뭐 해?", "Korean"),
])
def test_a_time_alone_is_still_read_so(untimed, language):
    assert not asks_besides_time(untimed, language)


# --- pinned, right already
def test_korean_and_chinese_are_not_cut():
    assert query_words("김해공항에서") == ["김해", "해공", "공항"]
    assert query_words("电机驱动芯片的供应商") == ["电机", "机驱", "驱动", "动芯", "芯片", "片的", "的供", "供应", "应商"]
    assert japanese_parts("电机驱动芯片") == ["电机驱动芯片"]


def test_iteration_mark_half_width_and_full_width():
    assert query_words("人々の意見は") == ["人々", "意見"]
    assert query_words("ｶﾀｶﾅの会議は") == ["ｶﾀ", "ﾀｶ", "ｶﾅ", "会議"]
    assert query_terms("ＡＢＣ社の担当は？", skip=STOPWORDS) == ["ＡＢＣ", "社", "担当"]
    assert query_terms("２９日の会議は？", skip=STOPWORDS) == ["２９", "日", "会議"]


def test_questions_of_function_words_only_ask_nothing():
    for question in ("何の？", "いつ？", "誰が何を？", "何？", "誰？", "どこ？"):
        assert query_terms(question, skip=STOPWORDS) == [], question


def test_the_index_is_unchanged():
    assert index_text("すごーい店") == " す すご ご ごー ー ーい い い店 店 "
