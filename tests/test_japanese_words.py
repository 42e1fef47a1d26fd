"""A Japanese question asks for its words, not for character pairs across a word and its particle (session 43).

`segment.japanese_parts` cuts a run where the script says a word ends; `segment.query_words` then gives each
part's pairs (or its one kanji), and `search.keywords.query_terms` leaves out the words that ask
(`function_words.JAPANESE`). The index is unchanged, so both engines read it as before.
"""

import pytest

from tachikoma.search.keywords import STOPWORDS, query_terms
from tachikoma.language.segment import japanese_parts, query_words


@pytest.mark.parametrize("run, parts", [
    ("父の白内障の手術は", ["父", "の", "白内障", "の", "手術", "は"]),
    ("確定申告をスマホでやる手順は", ["確定申告", "を", "スマホ", "でやる", "手順", "は"]),
    ("今年の夏に登った山はどこ", ["今年", "の", "夏", "に", "登った", "山", "はどこ"]),
    ("あおば歯科の予約を変えたのはなんでだっけ", ["あおば", "歯科", "の", "予約", "を", "変えたのはなんでだっけ"]),
    ("电机驱动芯片的供应商", ["电机驱动芯片的供应商"]),      # no hiragana: Chinese, one part
    ("김해공항에", ["김해공항에"]),
    ("いつですか", ["いつですか"]),                          # hiragana only: one part
])
def test_a_run_is_cut_where_a_japanese_word_ends(run, parts):
    assert japanese_parts(run) == parts


def test_a_part_gives_its_pairs_or_its_one_kanji_and_its_kana_words_are_left_out():
    assert query_words("父の白内障の手術は") == ["父", "白内", "内障", "手術"]
    assert query_words("変えた") == ["変え"]                   # the kana of its word stay with the kanji
    assert query_words("いつですか") == ["いつ", "つで", "です", "すか"]  # nothing but hiragana: its pairs
    assert query_words("电机驱动芯片的供应商") == ["电机", "机驱", "驱动", "动芯", "芯片", "片的", "的供", "供应", "应商"]


@pytest.mark.parametrize("question, keywords", [
    ("3日前に陽菜がかかった病気は何？", ["3", "日前", "陽菜", "病気"]),   # not に陽, 菜が, 気は, は何; nor 何
    ("陽菜の担任の先生の名前は？", ["陽菜", "担任", "先生", "名前"]),
    ("Arjun が休みを取るのはいつ？", ["Arjun", "休み", "取る"]),
    ("今の住宅ローンの毎月の返済額は？", ["住宅", "宅ロ", "ロー", "ーン", "毎月", "返済", "済額"]),  # not 今
    ("日本の首相は誰ですか？", ["日本", "首相"]),
])
def test_a_japanese_question_asks_for_its_words(question, keywords):
    assert query_terms(question, skip=STOPWORDS) == keywords


def test_the_words_that_ask_are_only_left_out_of_a_keyword_query():
    assert "何" in query_terms("何")                       # without a skip list (highlighting): every word
    assert query_terms("何", skip=STOPWORDS) == []


@pytest.mark.parametrize("untimed, besides", [
    ("は何がある？", False),       # 来週は何がある？ (what's on next week?): the time alone
    ("何した？", False),           # 昨日何した？ (what did I do yesterday?)
    ("に何があった？", False),
    ("の予定は？", False),
    ("はおやつある？", True),      # a snack, written in kana, is asked about
    ("に話した内容は？", True),    # what was talked about
    ("に予約する？", True),
])
def test_a_japanese_verb_that_says_nothing_asks_nothing_besides_the_time(untimed, besides):
    from tachikoma.search.keywords import asks_besides_time

    assert asks_besides_time(untimed, "Japanese") is besides
