"""Adversarial tests of session 35: a question in another language that gathers (`keywords.gathers_in`,
`keywords.counts_in`)."""

import pytest

from tachikoma.language.function_words import question_language
from tachikoma.search.keywords import counts_in, gathers_in


def no_gathering(query):
    language = question_language(query)
    assert language is not None, query  # told: read by its own language's words
    assert not gathers_in(query, language) and not counts_in(query, language), query


@pytest.mark.parametrize("query", [
    # French "en tout cas" (in any case), "en tout début" (at the very start): no "en tout" (in all)
    "En tout cas, quand est-ce que Marie revient ?",
    "Qu'est-ce que Marc a dit en tout début de réunion ?",
    # "combien de temps", "hoeveel tijd": how long, one amount, as English "how long" (another language's
    # "how much" is not read: docs/languages.md)
    "Combien de temps dure le vol pour Tokyo ?",
    "Hoeveel tijd heb ik nodig voor de reis naar Gent?",
    "Combien d'argent ai-je dépensé ?",  # how much money
    "¿Cuántos años tiene Lucía?",  # an age is one fact, as "how old" is
    "先週いくつか本を買ったけど、どれが一番よかった？",  # いくつか: some
    "我们唯一共同的朋友是谁？",  # 唯一共同: the only … in common
    "2호선 몇 번 출구로 나가?",  # which exit
])
def test_a_phrase_that_only_looks_like_in_total_or_how_many(query):
    no_gathering(query)


@pytest.mark.parametrize("query", [
    # too short for their language to be told: every language's words are read
    "Hoeveel verdient Sanne?",  # Dutch "hoeveel" asks "how much" as often as "how many": not read
    "Quanti anni ha Marco?", "Quantos anos tem a Inês?",
])
def test_a_question_not_told_reads_no_such_phrase_either(query):
    assert question_language(query) is None
    assert not gathers_in(query, None) and not counts_in(query, None), query


@pytest.mark.parametrize("query", [
    # 计划 / 計画 / 計畫 (plan) after 合 or 总: 总计划 (the overall plan), 総合計画 (a comprehensive plan)
    "项目的总计划是什么时候定的？",
    "學校的總計畫是誰寫的？",
    "今年的综合计划是什么？",
    "市の総合計画の締め切りはいつ？",
])
def test_a_plan_is_no_total(query):
    no_gathering(query)


@pytest.mark.parametrize("query", [
    # Korean 총 inside a word: 총장 (a university's president), 총리 (prime minister), 총회 (general meeting),
    # 권총 (a pistol); 종합계획 (a comprehensive plan) holds 합계
    "대학교 총장님 이름이 뭐였지?",
    "작년 총회에서 누가 발표했어?",
    "권총 이야기를 누가 했지?",
    "시의 종합계획 마감일이 언제야?",
    # 몇 번지: the house number of an address
    "할머니 집 주소가 몇 번지였지?",
])
def test_korean_total_inside_another_word(query):
    no_gathering(query)


@pytest.mark.parametrize("query", [
    "Combien de livres ai-je lus en tout ?",
    "En tout, combien de fois suis-je allé à la piscine ?",
    "Combien de fois suis-je allé à la piscine ?",
    "Combien de temps ai-je passé au total sur le projet ?",
    "Hoeveel boeken heb ik in totaal gelezen?",
    "项目一共花了多少钱？",
    "这个月的开销合计是多少？",
    "今月の出費は合計でいくら？",
    "총 몇 번 갔어?",
    "이번 달 지출 합계가 얼마야?",
    "총액이 얼마였지?",
    "이번 달 총지출이 얼마야?",
    "몇 번 갔어?",
])
def test_a_question_that_gathers_still_does(query):
    language = question_language(query)
    assert gathers_in(query, language) and counts_in(query, language), query


@pytest.mark.parametrize("query, gathers", [
    # English, a name: another language's "how many" capitalised after the first word ("Quantas", Qantas misspelt)
    ("When did I book my Quantas flight to Sydney?", False),
    ("Who runs Quanti Studio?", False),
    ("Which street is Cuantos Tacos on?", False),
    # not told, the question's own word: it gathers
    ("Was kostet die Krone insgesamt?", True),
    ("Quantos livros?", True),
    ("¿Cuántos libros?", True),
    ("How many Quantas flights did I take?", True),
])
def test_a_question_not_told_reads_another_language_s_word_as_a_name_when_capitalised(query, gathers):
    assert question_language(query) is None
    assert gathers_in(query, None) is gathers and counts_in(query, None) is gathers
