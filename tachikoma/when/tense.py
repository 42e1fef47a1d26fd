"""Whether a question asks about what is coming, not what was (`ahead`): read by `timeq`, for which a month
or a day named without a year in such a question is its next occurrence, no time asked about. English by
its words (`_FUTURE`, `_PAST`); each other language that `function_words.question_language` tells by its own
(`_CUES`). And whether "in a week" says how long rather than when (`duration`: a rate, the English perfect)."""

from __future__ import annotations

import functools
import re

from ..language.function_words import question_language


#: A question about what is coming ("what's planned for January", "which deliveries are we waiting for in
#: December", "how much will the fee be from January"): a month or a day named without a year is its next
#: occurrence, which no memory is from yet, so it is no time asked about (as "next March" is not); the word
#: stays a keyword. Not when the question also speaks of the past ("what did we plan for January").
#: Not "due to" (because of), "next to", "next door" (beside) nor a will after "'s", "my", "the" … (the paper).
_FUTURE = re.compile(r"\b(?:(?<![’']s\s)(?<!\ba\s)(?<!\b(?:my|an)\s)(?<!\b(?:his|her|our|the|its)\s)(?<!\byour\s)"
                     r"(?<!\btheir\s)will|won't|shall|going\s+to|gonna|upcoming|coming\s+up|comes?\s+up|"
                     r"next(?!\s+(?:to|door)\b)|due(?!\s+to\b)|planned|scheduled|expected|waiting\s+for)\b|\w'll\b", re.I)
_PAST = re.compile(r"\b(?:did|didn't|was|wasn't|were|weren't|had|hadn't|happened|ago)\b", re.I)
#: English words that ask what is planned ("What's on Thursday?", "anything on Monday?", "What am I doing on
#: Monday?"): a day of the week said alone or after "on" in such a question is the coming one (`timeq`), as in "What
#: will I do on Monday?", where "What did I do on Monday?" is the one gone (session 51: three writers of blind sets
#: asked "anything on Sunday?" so). Read for that day alone: "What's on this Monday?" stays this week's, and a month
#: or a date keeps its own reading.
_PLANS = re.compile(r"\bwhat(?:['’]s|\s+is)\s+on\b|\banything\s+on\b|\b(?:am|are|is)\s+(?:i|we|you|he|she|they)\s+"
                    r"doing\b", re.I)
#: The same words in the other languages `function_words.question_language` tells ("Wer kommt im Dezember?",
#: "Qu'est-ce qui est prévu en janvier ?", "12月の予定は？"): (what is coming, what was). A question told as
#: one of them is read with its own words only (German "Was" is "what", not "was"). What was holds the past
#: as people say it, as English's "did" does: German "hat … gesagt", French "a dit", Spanish "dijo", "compré",
#: Dutch "heeft", "zei", Japanese "言った", "決めた", so "Was hat Anna im Dezember über das nächste Treffen
#: gesagt?" keeps its December, as "What did Anna say in December about the next meeting?" does.
_CUES = {
    "German": (r"\b(?:wird|werden|wirst|kommt|kommen|kommende[nrs]?|nächste[nmrs]?|naechste[nmrs]?|geplant|"
               r"ansteht|anstehen|anstehende[nmrs]?|bevorstehende[nmrs]?|fällig|vorgesehen|demnächst|bald|"
               r"(?:steht|stehen)\b[^?.!]{0,60}?\ban(?=\s*[?.!]*\s*$))\b",  # "Was steht am Freitag an?"
               r"\b(?:war|waren|warst|wart|hatte|hatten|hattest|hattet|wurde|wurden|gewesen|passiert|kam|kamen|gab|"
               r"gekommen|gegangen|gefahren|geflogen|geblieben|geworden)\b"),
    "French": (r"\b(?:prochaine?s?|vais|vas|va|vont|vient|viennent|planifiée?s?|sera|seront|aura|auront|"
               r"prévue?s?|à\s+venir|bientôt|doit|doivent)\b",
               r"\b(?:étais|était|étions|étiez|étaient|avais|avait|avions|aviez|avaient|été|fut|passée?s?|"
               r"il\s+y\s+a\s+(?:\d|un|une|deux|trois|quelques|"
               r"plusieurs|longtemps)|(?:ai|as|a|avons|avez|ont)(?:-t)?(?:-(?:il|elle|on|ils|elles|vous|nous|tu))?\s+"
               r"(?:(?:pas|plus|jamais|rien|déjà|bien|encore|tout|tous)\s+)*(?:\w+ée?s?|dit|fait|pris|mis|écrit|vu|eu|lu|"
               r"reçu|dû|pu|su|voulu|fini|choisi|perdu|vendu|attendu|entendu|répondu|ouvert|offert)|(?:suis|es|est|"
               r"sommes|êtes|sont)\s+(?:allé|venu|parti|arrivé|revenu|rentré|sorti|resté|né|mort|tombé|devenu)e?s?)\b"),
    "Spanish": (r"\b(?:próxim[oa]s?|voy\s+a|vas\s+a|va\s+a|van\s+a|vamos\s+a|será|serán|habrá|previst[oa]s?|planead[oa]s?|"
                r"pendientes?|viene|vienen)\b",
                r"\b(?:fue|fueron|era|eran|hubo|había(?:s|mos|n)?|pasó|hace|\w{2,}(?<!av)ó|\w{2,}(?:aron|ieron)|"
                r"\w{3,}(?<!qu)(?<!caf)(?<!comit)(?<!beb)(?<!jos)é|"
                r"\w{3,}(?<!aqu)(?<!all)í|dij(?:e|o|imos|eron)|hic(?:e|imos|ieron)|hizo|tuv(?:e|o|imos|ieron)|"
                r"estuv(?:e|o|imos|ieron)|fui|fuimos|pud(?:e|o)|quis(?:e|o)|vin(?:e|o|imos)|pus(?:e|o)|"
                r"(?:he|has|ha|hemos|habéis|han)\s+(?:\w+[ai]do|dicho|hecho|visto|puesto|escrito|vuelto|abierto))\b"),
    "Portuguese": (r"\b(?:próxim[oa]s?|vai|vão|será|serão|previst[oa]s?|marcad[oa]s?|agendad[oa]s?)\b",
                   r"\b(?:foi|foram|era|eram|houve|havia|aconteceu|\w{2,}(?<!est)ou|\w+iu|\w+(?:aram|eram|iram)|"
                   r"diss(?:e|emos|eram)|fez|fiz|fiz(?:emos|eram)|tiv(?:e|emos|eram)|teve|estiv(?:e|emos|eram)|esteve|"
                   r"veio|vieram|quis|soube)\b"),
    "Italian": (r"\b(?:prossim[oaie]|sarà|saranno|previst[oaie]|in\s+programma)\b",
                r"\b(?:era|erano|fu|stato|stata|c'era|(?:giorn[oi]|settiman[ae]|mes[ei]|ann[oi]|or[ae]|minut[oi]|tempo|poco|"
                r"molto|tanto)\s+fa|success[oa]|accadut[oa]|(?:ho|hai|ha|abbiamo|avete|hanno)\s+"
                r"(?:(?:già|non|mai|poi|ancora)\s+)*(?:\w+(?:at|ut|it)[oaie]|detto|fatto|scritto|preso|messo|deciso|"
                r"visto|chiesto|risposto|letto|speso|perso|scelto|aperto|discusso|rimasto)|(?:sono|sei|è|siamo|siete)\s+"
                r"(?:andat|venut|partit|arrivat|tornat|uscit|rimast)[oaie])\b"),
    "Dutch": (r"\b(?:volgende|komt|komen|wordt|worden|zal|zullen|gepland|binnenkort)\b",
              r"\b(?:was|waren|had|hadden|gebeurd|geleden|werd|werden|zei|zeiden|deed|deden|"
              r"ging|gingen|kwam|kwamen|kocht|kochten|vond|vonden|gaf|gaven|besloot|besloten|zag|zagen|gekomen|"
              r"gegaan|geweest|gebleven)\b"),
    # A verb's past ("言った", "決めた", "書いた"), not "したい" (want to), "いただく", "午前" (morning), "名前" (name)
    "Japanese": (r"予定|今度|これから|次の|次回",
                 r"(?:った|いた|えた|けた|せた|てた|べた|めた|れた|した)(?![いらりちだくし])|(?<=[\u4e00-\u9fff])んだ|"
                 r"でした|だった|(?<![午名])前(?!半)"),
    # (not "三号之前": before the 3rd, a deadline)
    "Chinese": (r"计划|計劃|安排|打算|即将|即將|将要|將要|预定|預定|下次", r"(?<![为為除])了|过|過|(?<![号號])(?:以前|之前)"),
    # Korean: a syllable ending in ㅆ says the past ("었", "했", "왔", "나왔", "미뤘", "어땠"), but 있 (is) and 겠 (will)
    "Korean": (r"예정|계획|다음|할\s*거|갈\s*거|올\s*거", "[" + "".join(
        chr(0xAC00 + 28 * n + 20) for n in range(19 * 21) if chr(0xAC00 + 28 * n + 20) not in "있겠") + "]|전에"),
    # Polish: "będzie", "w przyszły", "zaplanowane"; the past by its verbs' endings ("mówiła", "byłem", "zrobiliśmy"), not
    # nouns ending so ("materiał", "kanał", "szkoła", "mała", "cała"), and "temu" (ago), "zeszły", "wczoraj"
    "Polish": (r"\b(?:będzie|będą|będę|będziesz|będziemy|przyszł\w*|następn\w*|najbliższ\w*|zaplanowan\w*|"
               r"planowan\w*|jutro|pojutrze)\b",
               r"\b(?:był|była|było|byli|były|\w{2,}(?:łem|łam|łeś|łaś|liśmy|łyśmy|liście)|"
               r"\w{2,}(?<!materi)(?<!kan)(?<!kapit)(?<!ide)(?<!person)(?<!szko)(?<!sto)(?:ił|ał|ył|ęł)(?:a|o|i|y)?|"
               r"temu|zeszł\w*|ubiegł\w*|wczoraj|przedwczoraj)\b"),
    # Turkish: the future's suffix ("çıkacak", "gidecek"), the present continuous a plan is said in ("kim gidiyor",
    # as "who is going"), "önümüzdeki", "planlanan"; the past with a person's ending ("gittim", "konuştuk") or a
    # common verb's ("dedi", "oldu"), the past continuous ("gidiyordu"), "-mış", "önce" after a unit (ago)
    "Turkish": (r"\b(?:\w+(?:acak|ecek|acağ|eceğ)\w*|\w+[ıiuü]yor(?!d|m[uıiü]ş)\w*|önümüzdeki|haftaya|yarın\w*|"
                r"planlan\w*|öbür\s+gün)\b",
                r"\b(?:\w{2,}(?:dı|di|du|dü|tı|ti|tu|tü)(?:m|n|k|nız|niz|nuz|nüz)|\w+yordu\w*|oldu|dedi|söyledi|geldi|gitti|"
                r"yaptı|aldı|verdi|yazdı|konuştu|gördü|\w{2,}(?:mış|miş|muş|müş)\w*|geçen|geçtiğimiz|dün|dünkü|"
                r"(?:gün|hafta|ay|yıl|sene)\s+önce)\b"),
}
# Portuguese is told as Spanish at times by the words they share ("O que a Ana disse em dezembro…?"): each
# reads the other's words too.
_CUES["Spanish"] = _CUES["Portuguese"] = tuple(f"{es}|{pt}" for es, pt in zip(_CUES["Spanish"], _CUES["Portuguese"]))
_CUES = {language: (re.compile(ahead, re.I), re.compile(back, re.I)) for language, (ahead, back) in _CUES.items()}
#: German "haben" and Dutch "hebben" say the past only with a participle ("Was hat Anna gesagt?", "Wat heeft
#: Sam besloten?"); alone they are "to have": "Was habe ich morgen?", "Wat heb ik morgen?" ask what is coming.
_PERFECT = {
    "German": (re.compile(r"\b(?:habe|hab|hast|hat|haben|habt)\b", re.I),
               re.compile(r"\b(?:(?:auf|ein|an|ab|aus|mit|zu|vor|nach|weg|zurück|los|fest|um|durch)?ge\w{2,}(?:t|en)|\w{3,}iert|(?:be|er|ver|zer|ent|emp|miss)\w{2,}t|bekommen|vergessen|"
                          r"besprochen|entschieden|verloren|verstanden|beschlossen|erhalten|empfohlen)\b", re.I)),
    "Dutch": (re.compile(r"\b(?:heb|hebt|heeft|hebben)\b", re.I),
              re.compile(r"\b(?:ge\w{2,}(?:d|t|en)|(?:be|ver|ont|her|er)\w{2,}(?:d|t|en))\b", re.I)),
}


def ahead(text: str) -> bool:
    """Whether `text` asks about what is coming, not what was (`_FUTURE`, `_PAST`; in another language that
    `function_words.question_language` tells, its own `_CUES`)."""
    return ahead_in(text, question_language(text))


def ahead_in(text: str, language: str | None) -> bool:
    """`ahead` for a text whose language (`function_words.question_language`) the caller has told already."""
    return bool(_CUES.get(language, (_FUTURE, _PAST))[0].search(text)) and not past_in(text, language)


#: A word that puts a day of the week in the past though the question asks what is planned ("anything on Monday
#: last week?").
_GONE = re.compile(r"\b(?:last|previous|past)\b", re.I)


@functools.lru_cache(maxsize=16)
def plans_in(text: str) -> bool:
    """Whether an English `text` asks what is planned (`_PLANS`) and does not speak of the past (`past_in`,
    `_GONE`). Read once a text, not once each day of the week it names (linear time)."""
    return bool(_PLANS.search(text)) and not past_in(text, None) and not _GONE.search(text)


def past_in(text: str, language: str | None) -> bool:
    """Whether `text`, in `language` (told by the caller), speaks of the past ("did", "was", "hat … gesagt")."""
    if _CUES.get(language, (_FUTURE, _PAST))[1].search(text):
        return True
    have, participle = _PERFECT.get(language, (None, None))
    return have is not None and bool(have.search(text)) and bool(participle.search(text))


def without_cues(text: str, language: str | None) -> str:
    """`text` with the words that say only that something is still to come blanked out ("due", "planned",
    "geplant", "予定": `_FUTURE` and the language's own, `_CUES`)."""
    return _CUES.get(language, (_FUTURE, _PAST))[0].sub(" ", text)


#: "In a day" in a question asking how many or how much is a rate: "How many devices do I use in a day?".
_RATE = re.compile(r"\bhow\s+(?:many|much|often|long)\b|\bper\b|\baverage\b", re.I)
#: "In two weeks" after the English perfect is how long, not when: "What has changed in a week?", "Who haven't I
#: called in a month?", "What have I learned in 2 years?". Not "what do I have planned in two weeks" (a plan), nor
#: "have to get fixed" (an infinitive), nor "will have" (`_WILL`).
_ENGLISH_PERFECT = re.compile(
    r"\b(?:have|has|haven['\u2019]?t|hasn['\u2019]?t|['\u2019]ve|(?<=\w)['\u2019]s)\s+(?:(?!to\b)\w+\s+){0,3}?"
    r"(?!(?:planned|scheduled|booked|arranged|expected|needed|required|organi[sz]ed|supposed|lined|"
    r"reserved|confirmed|signed|speed|breed|hundred|indeed)\b)(?:\w{3,}ed|been|done|made|seen|gone|heard|written|"
    r"taken|given|met|spoken|eaten|run|won|lost|bought|paid|sent|spent|told|said|thought|found|grown|become|"
    r"learnt|read|slept|felt)\b", re.I)
_WILL = re.compile(r"\bwill\b|\w['\u2019]ll\b", re.I)


@functools.lru_cache(maxsize=16)
def duration(text: str) -> tuple[bool, bool]:
    """Whether `text` asks how many or how much (`_RATE`: "in a day" is a rate), and whether it is in the English
    perfect (`_ENGLISH_PERFECT`: "in a week" is how long). Read once a text, not once each "in N units" (linear
    time)."""
    return bool(_RATE.search(text)), bool(_ENGLISH_PERFECT.search(text)) and not _WILL.search(text)
