"""Function words of German, French, Spanish, Italian, Portuguese, Dutch, Polish and Turkish, and the commonest
English words: short lists written for tachikoma (not taken from any published stop-word list).

Two readers: the keyword side leaves a question's function words out of its keywords and of the share
of its words a note holds (`search.keywords.query_terms`; English's are `search.keywords.STOPWORDS`), so
"Wann hat Martin den nächsten Termin?" asks for Martin, nächsten and Termin, not for "hat" and "den";
and the automatic choice of an embedder (`embedders.auto`) counts how much of a memory's Latin text is
English by `ENGLISH_COMMON`.

A language's list applies to a query only when the query holds at least `LANGUAGE_EVIDENCE` of its words
that are not English function words too, and more of them than English function words that are not
that language's: "What hat did Ben wear?" keeps "hat", "Wer hat die Schlüssel?" drops it
(`other_function_words`); the same count tells a question's language (`language_of`).
"""

from __future__ import annotations

import re

from .segment import dominant_script, korean_stem, query_words


def _spellings(text: str) -> frozenset[str]:
    """The words of `text` and, for a word with an umlaut, its spelling without it ("für", "fuer"), as
    the keyword side reads a query (`segment.query_words`)."""
    return frozenset(variant.casefold() for word in text.split() for variant in query_words(word))


#: Words that say what a question asks, not about what, as English's second list in
#: `search.keywords.STOPWORDS` does ("what happened", "what did I note", "what is X called"), in German,
#: French and Spanish: "Was war vorgestern los?" and "Was hab ich gestern aufgeschrieben?" ask about a time
#: alone, and "passiert", "los" or "aufgeschrieben" as keywords made them "no good match".
QUESTION_WORDS_DE = _spellings("""
passiert passierte passieren geschehen geschah los sagen sagt sagte gesagt erzählen erzählt erzählte
wissen weiß wusste erinnern erinnere erinnert notiert notierte notieren aufgeschrieben aufschreiben
meint meinte gemeint bedeutet heißt gemacht getan erledigt etwas jemand irgendwas steht ansteht anstehen
""")
QUESTION_WORDS_FR = _spellings("passé dit raconté noté appelle quelqu quelque")
QUESTION_WORDS_ES = _spellings("pasó dijo dicho contó anoté apunté llama alguien hice hecho")
#: The same in Italian, Portuguese and Dutch: "Cosa ho fatto ieri?", "O que aconteceu ontem?", "Wat heb ik gisteren
#: gedaan?" ask about a time alone, as "What did I do yesterday?" does.
QUESTION_WORDS_IT = _spellings("""
successo succede accaduto fatto fatta fare faccio detto scritto annotato segnato appuntato chiama chiamato
qualcosa qualcuno
""")
QUESTION_WORDS_PT = _spellings("aconteceu acontece feito fiz fez fizemos disse dito anotei escrevi chama alguém algo")
QUESTION_WORDS_NL = _spellings("gebeurd gebeurt gebeurde gedaan deed doen gezegd zei genoteerd opgeschreven heet iets iemand")

#: Lower case, each with its spelling without umlauts (`_spellings`).
GERMAN = _spellings("""
der die das den dem des ein eine einen einem einer eines kein keine keinen und oder aber doch denn sondern
ist sind war waren bin bist hat haben hatte hatten habe wird werden wurde wurden worden sein gewesen
kann können konnte muss müssen musste soll sollen sollte will wollen darf mag möchte
im in am an auf aus bei beim mit nach von vom zu zum zur für über unter vor hinter neben zwischen durch
gegen ohne um bis seit ab
wie was wer wen wem wessen wann wo woher wohin warum weshalb welche welcher welches welchen welchem
ich du er sie es wir ihr mich mir dich dir ihn ihm uns euch sich man
mein meine meinen meinem meiner dein deine sein seine seinen seinem seiner ihre ihren ihrem ihrer
unser unsere unseren unserem unserer euer eure
nicht noch schon auch nur sehr dass ob wenn als dann da hier dort so jetzt immer wieder viel viele
hab heute gestern vorgestern morgen übermorgen
""") | QUESTION_WORDS_DE

FRENCH = _spellings("""
le la les l un une des du de d au aux et ou mais donc ni car
est sont était étaient été être a ai as avons avez ont avait avaient eu fait faut peut doit va
qui que qu quoi quand où comment pourquoi combien quel quelle quels quelles lequel laquelle
ce cet cette ces c ça cela il elle ils elles on nous vous je j tu me m te t se s lui leur leurs y en
mon ma mes ton ta tes son sa ses notre nos votre vos
dans sur sous pour par avec sans chez entre vers depuis pendant avant après
ne n pas plus très aussi déjà encore toujours aujourd hui demain
""") | QUESTION_WORDS_FR

SPANISH = _spellings("""
el la los las lo un una unos unas y e o u pero ni
es son era eran fue fueron ser está están estaba estar ha han he hay había hace hizo tiene tienen tenía
puede pueden debe
de del al a en con sin por para sobre entre hasta desde hacia según
que qué quien quién quienes cuándo cuando dónde donde cómo como cuál cual cuáles cuánto cuánta cuántos
cuántas
mi mis tu tus su sus nuestro nuestra nuestros nuestras vuestro vuestra
yo tú él ella ellos ellas nosotros nosotras usted ustedes me te se le les nos os
no muy más también ya todavía aún hoy ayer mañana tengo tenemos tienes
""") | QUESTION_WORDS_ES

ITALIAN = _spellings("""
il lo la i gli le un uno una di del dello della dei degli delle da dal dalla dai in nel nella nei con
su sul sulla per tra fra e ed o ma anche che chi cui non è sono era erano ha hanno ho abbiamo essere
questo questa quello quella come dove quando perché più molto già ancora sempre mio mia tuo tua suo sua
nostro nostra oggi ieri domani dopodomani cosa
""") | QUESTION_WORDS_IT

PORTUGUESE = _spellings("""
o a os as um uma uns umas de do da dos das em no na nos nas por pelo pela pelos pelas para com sem
e ou mas que quem qual quando onde como porque não é são era eram foi foram ser está estão estava tem
têm tinha há meu minha seu sua nosso nossa você vocês ele ela eles elas eu muito mais também já ainda
hoje ontem amanhã tenho temos
""") | QUESTION_WORDS_PT

DUTCH = _spellings("""
de het een en of maar want dus van in op aan met voor door bij naar uit over onder tussen tot zonder
is zijn was waren ben bent heeft hebben had hadden wordt worden werd kan kunnen moet moeten zal zullen
wil willen ik jij je hij zij ze wij we jullie u mijn jouw zijn haar ons onze hun niet geen ook nog al
wel er hier daar dat dit deze die wie wat waar wanneer hoe waarom
vandaag gisteren eergisteren morgen overmorgen heb hebt
""") | QUESTION_WORDS_NL

#: Polish: its prepositions, pronouns, "to be", "to have" and question words, in the forms a question says them
#: ("Co mam w sobotę?", "Kiedy są urodziny mamy Kasi?", "Jak zrobić zakwas?"). Not the ones that are English words
#: too ("ten", "mam" is "I have" and "mum", "by", "go", "ale", "po", "tam", "tu": `HOMOGRAPHS`).
POLISH = _spellings("""
w we z ze na do od po za przez przy dla bez pod nad przed o u ku między i a lub albo ale czy że bo więc też
jest są był była było byli były będzie będą być jestem jesteś mam masz ma mamy mają miał miała
co czego czym kto kogo komu kiedy gdzie jak jaki jaka jakie jakiego ile dlaczego czemu który która które
ja ty on ona ono my wy oni one mnie mi mną cię ci go jego jej ich im nas nam was wam się sobie
mój moja moje mojego mojej moim twój twoja twoje swój swoja swoje nasz nasza nasze
nie już jeszcze tylko bardzo tak to ten ta te tego tej tym tam tu dziś dzisiaj wczoraj jutro pojutrze
""")
#: Turkish: its question words and particles ("ne", "mi", "ne zaman", "nerede"), conjunctions and pronouns
#: ("ve", "bu", "için", "ile"). Turkish joins its case endings to the word ("Ayşe Anne'yle", "hastaneden"), so
#: its words here are the ones said apart, and the suffixes a name takes after an apostrophe, as English's "'s"
#: ("Emre'nin": of Emre, "Anne'yle": with Anne). Not "de"/"da" (also; "Wedding'de": in; French, Spanish) nor "en".
TURKISH = _spellings("""
ne mi mı mu mü ve veya ile için gibi kadar bu şu o bir ben sen biz siz onlar beni bana benim seni sana senin
onu ona onun bizim sizin onların kim kimi kime kimin nerede nereye nereden neden niye nasıl hangi kaç kaçta
zaman var yok değil ama çok daha hem da de en ya bugün dün yarın
nin nın nun nün yle yla ye yı yi
""") - frozenset({"da", "de", "en", "ya", "o"})
#: Function words of those languages that are English words too or common names ("ten", "mam", "ale", "ben",
#: "kim", "var"): as `ENGLISH_HOMOGRAPHS`, they count only beside one of the language's words that is not one.
HOMOGRAPHS = {"pl": frozenset("ten mam ma by go ale po tam tu to ta te tak co on ona im mi pod nad".split()),
              "tr": frozenset("ne mi bu ben sen kim var ama gibi ile bir yok hem ye".split())}

#: The languages whose function words tell a query's or a passage's language (`language_of`,
#: `embedders.auto.passage_language`: not Polish and Turkish, `QUESTION_ONLY`), and which a query can drop.
#: Polish and Turkish last: a question as many of whose words are another language's too is told as that one.
LANGUAGES = {"de": GERMAN, "fr": FRENCH, "es": SPANISH, "it": ITALIAN, "pt": PORTUGUESE, "nl": DUTCH,
             "pl": POLISH, "tr": TURKISH}
#: Words that tell a question's language as its function words do, but ask about something, so stay keywords: the
#: Turkish parts of the day, "later" and "now" ("Bu akşam ne var?": its other words, "bu", "ne", "var", are English
#: ones too, `HOMOGRAPHS`, and told as no language it kept them as keywords and read no Turkish tense).
TELLING = {"tr": _spellings("akşam sabah gece öğlen sonra şimdi")}
#: The languages told in questions only: a passage in them is read as before (English, to the embedder's choice).
QUESTION_ONLY = frozenset({"pl", "tr"})
#: Every function word of those languages.
ANY_FUNCTION_WORD = frozenset().union(*LANGUAGES.values())
#: The languages' names, as a message names them.
LANGUAGE_NAMES = {"de": "German", "fr": "French", "es": "Spanish", "it": "Italian", "pt": "Portuguese",
                  "nl": "Dutch", "pl": "Polish", "tr": "Turkish"}
#: English words that ask about a time without saying what about ("What am I doing tomorrow?", "What are my plans
#: for next week?", "What's going on in two weeks?"): no keyword is dropped for them, only the time-alone check reads them.
ENGLISH_ASKING = frozenset("am doing going plans plan up".split())
#: The words of a question in Japanese, Chinese or Korean that ask, not say what about ("什么", "뭐", "あります").
CJK_QUESTION_WORDS = ("ありますか", "あります", "があった", "がある", "あった", "ある", "してた", "した", "する", "やった",
                      "何時", "ですか", "です", "なに", "何", "什么", "什麼", "几点", "幾點",
                      "我们", "我們", "有", "吗", "嗎", "呢", "是", "我", "뭐가", "뭐야", "뭐", "무엇", "있어요", "있나요",
                      "있어", "있나", "있니", "몇 시", "나")
#: The Korean ones of `CJK_FUNCTION_CHARACTERS`, function words of `KOREAN` too.
KOREAN_FUNCTION_CHARACTERS = "은는이가을를에도와과의로해돼나내뭘좀다또꼭할있없어요"
#: The single characters of a Chinese or Korean question that say nothing of what it is about: particles, "to
#: have", "to do", "to come" ("明天有什么事？", "내일 뭐 해?", "내일은"). Any other character alone is a word of
#: its own that is asked about: "明天有雨吗？" (rain), "明天冷吗？" (cold), "내일 비 와?" (rain). (A kana alone is a
#: Japanese particle: "の", "は".)
CJK_FUNCTION_CHARACTERS = frozenset("的了吗嗎呢吧啊呀在有是我你要会會去来來都还還就么麼和跟得着著"
                                    "过過个個那这這哪几幾点點做干幹嘛啥事" + KOREAN_FUNCTION_CHARACTERS)
#: Korean words that ask, or say nothing of what a question is about: question words ("언제", "어디", "누구",
#: "어떻게", "며칠"), "to be", "to have", "to do" ("있어", "하는", "했지"), "tell me" ("알려줘"), pronouns and
#: "this" ("우리", "이번"), "when", "while" ("때", "동안"), and the characters above. A question's word is read without
#: its particle (`segment.korean_stem`: "언제까지야" is "언제"); `search.keywords.query_terms` leaves these out of
#: its keywords, as English's `STOPWORDS`.
KOREAN = frozenset(korean_stem(word) for word in """
언제 어디 어디서 누구 누가 무엇 뭐 뭐가 뭘 무슨 어느 어떤 어떻게 얼마 얼마나 몇 왜 며칠 어때 어땠어 뭐야 뭐였어 뭐였지 뭐로
있어 있는 있나 있니 있을 있었어 있었지 없어 없는 하는 하면 하기 했어 했지 했더라 했었지 해야 돼 됐어 되는 될 할 한 맞지 맞아
알려 알려줘 알려주세요 줘 주세요 해줘 나 내 제 저 우리 저희 이번 그 이 좀 또 꼭 다 때 동안 만한 것 거
""".split()) | frozenset(KOREAN_FUNCTION_CHARACTERS)

#: Japanese words that ask, or say nothing of what a question is about, once the question is cut into its words
#: (`segment.japanese_parts`: "病気は何" -> 病気, 何): what, who, now, when, where, how, which, how much.
#: `search.keywords.query_terms` leaves these out of its keywords, as English's `STOPWORDS`.
JAPANESE = frozenset("何 誰 今 いつ どこ だれ なに なん どう どれ いくら".split())
#: The one kanji of a Japanese question, once cut into its words, that says nothing of what it is about: 事 (a
#: thing, "明日の事は？"). Not `CJK_FUNCTION_CHARACTERS`: 会, 点, 都, 和, 着, 要 say nothing in Chinese but are
#: words in Japanese ("来週の会はどこ？": a gathering).
JAPANESE_FUNCTION_CHARACTERS = frozenset("事")


def function_words_of(language: str | None) -> frozenset[str]:
    """The function words of the language `question_language` names ("German"); empty for English or any other."""
    return LANGUAGES.get(next((code for code, name in LANGUAGE_NAMES.items() if name == language), ""), frozenset())


#: What a text written mostly in a script other than Latin is read as (`segment.dominant_script`); another
#: script is "a <script>-script language".
SCRIPT_LANGUAGES = {"Han": "Chinese", "Japanese": "Japanese", "Hangul": "Korean", "Greek": "Greek",
                    "Arabic": "Arabic", "Hebrew": "Hebrew", "Thai": "Thai"}

#: A language's function words count as such in a query holding at least this many of them (English's aside).
LANGUAGE_EVIDENCE = 2

#: The commonest English words, for telling English text from other Latin-script text (`embedders.auto`):
#: in English prose about one word in four or five is one of these; in German, French or Spanish
#: prose almost none ("a", "in", "die", "was" aside, which are left out).
ENGLISH_COMMON = frozenset("""
the of and to is that for it with as on be at by this are from or have an they which you were her his
she he we there been has would their not but what all when can said if will about one so more who them
its our my your do did does than then these those into
""".split())


#: English function words, for telling a passage's language (`embedders.auto.passage_language`): the
#: commonest words and the short ones German, French or Spanish share ("a", "in", "was", "an", "die").
ENGLISH_FUNCTION = ENGLISH_COMMON | frozenset("""
a an in on at to was be had how why who where me him us i no so also here just very since before after
""".split())


def other_function_words(words: list[str], english: frozenset[str], told: str | None = None) -> frozenset[str]:
    """The function words of each language (`LANGUAGES`) that at least `LANGUAGE_EVIDENCE` of `words`
    (a query's, as written) belong to, counting neither English function words (`english`) nor a
    capitalised word after the first (a name: "Del Rey", "Des Moines"); empty for an English query. `told`:
    the language the whole question was told as (`question_language`), whose words count though all are
    homographs (`_languages`)."""
    out: frozenset[str] = frozenset()
    for code in _languages(words, english, told):
        out |= LANGUAGES[code]
    return out


#: Function words of those languages that are English words too, in lower case ("van", "door", "car",
#: "son", "man", "hat", "era", "non"): a keyword query such as "van door repair" or "my son's car
#: insurance" holds two of them and no English function word. They count for a language only beside
#: one of its function words that is not English ("Wer hat die Schlüssel?": "wer").
ENGLISH_HOMOGRAPHS = frozenset("""
am bin hat man mag war den car son plus par pour ton sans ma pas al con era sin hay ya yo come dove ha
non uno su ed com sem van door over want bent op tot met hoe fare deed fez algo
""".split())


#: English clitics that split off a word as words of their own: "Ben's" is "Ben", "we'll" is "we". Read
#: as words, two of them made "When is Melanie's daughter's birthday?" French (its "s", as in "s'il").
ENGLISH_CLITIC = re.compile(r"(?<=\w)['\u2019](?:s|re|ve|ll|d|m)\b", re.I)


def _languages(words: list[str], english: frozenset[str], told: str | None = None) -> list[str]:
    """The languages (`LANGUAGES` keys) whose function words `other_function_words` finds in `words`, the
    one with most of them first: at least `LANGUAGE_EVIDENCE` distinct ones, not all single letters ("vitamin
    c and d" is no French), and more than the query's English function words (`english`) that are not that
    language's too, so that "Does she want to come over?" is not Dutch for its "want" and "over". Not all
    homographs (`ENGLISH_HOMOGRAPHS`, `HOMOGRAPHS`), unless the language is the one the whole question was `told`
    as: "Bu akşam ne var?" is Turkish by "akşam", so its "ne var" are function words once "Bu akşam" is read as a
    time."""
    keys = [w.casefold() for n, w in enumerate(words) if n == 0 or not w[:1].isupper()]
    found = {}
    for code, table in LANGUAGES.items():
        telling = TELLING.get(code, frozenset())
        theirs = {k for k in keys if (k in table or k in telling) and k not in english}  # distinct: "la la land" is one
        if len(theirs) >= max(LANGUAGE_EVIDENCE, sum(1 for k in keys if k in english and k not in table) + 1) \
                and (LANGUAGE_NAMES[code] == told
                     or not (ENGLISH_HOMOGRAPHS | HOMOGRAPHS.get(code, frozenset())).issuperset(theirs)) \
                and max(map(len, theirs)) > 1:
            found[code] = len(theirs)
    return sorted(found, key=lambda code: -found[code])


def language_of(text: str, english: frozenset[str]) -> str | None:
    """The language a short text such as a question is written in when it is not English, as a message
    names it after "in" ("German", "Japanese", "a Cyrillic-script language"); None for English, or when
    its words do not tell. A Latin-script text is in the language (`LANGUAGES`) with most function words
    as `other_function_words` reads it (with `english`, the English function words); another script tells
    by its letters."""
    script = dominant_script(text)
    if script and script != "Latin":
        return SCRIPT_LANGUAGES.get(script, f"a {script}-script language")
    found = _languages(re.findall(r"[^\W\d_]+", ENGLISH_CLITIC.sub("", text)), english)
    return LANGUAGE_NAMES[found[0]] if found else None


def question_language(text: str) -> str | None:
    """A question's language as `language_of` tells it with `ENGLISH_FUNCTION`: the one reading that the
    search (its English-only rules, the multilingual reader) and `tense` (its words for what is coming)
    both take."""
    return language_of(text, ENGLISH_FUNCTION)
