"""The time words of other languages that `timeq`'s patterns read (issue 29): German, French, Spanish,
Portuguese, Italian, Dutch, Polish, Turkish, Japanese, Chinese and Korean "last week", "next week", "in the next three days",
"yesterday", month names, the words that lead a month, numbers and units. Data only; `timeq` makes its
patterns from them."""

from __future__ import annotations

import calendar

#: The English months by name, and their numbers (`timeq.MONTHS` adds their abbreviations).
MONTH_NAMES = {name.lower(): n for n, name in enumerate(calendar.month_name) if name}
#: The English month names that are ordinary words too ("may", "march", "august"): a month only when written as one.
MONTH_NAMES_ALSO_WORDS = frozenset({"may", "march", "august"})

#: Other languages' "this/last week|weekend|month|year", by language: (this or last, the unit). (去年 and 今年 are
#: Japanese and Chinese.)
FOREIGN_THIS_LAST_BY_LANGUAGE = {
    "German": {
        "letzte woche": ("last", "week"), "vorige woche": ("last", "week"), "vergangene woche": ("last", "week"),
        "diese woche": ("this", "week"), "letzten monat": ("last", "month"), "vorigen monat": ("last", "month"),
        "vergangenen monat": ("last", "month"), "diesen monat": ("this", "month"), "letztes jahr": ("last", "year"),
        "voriges jahr": ("last", "year"), "vergangenes jahr": ("last", "year"), "dieses jahr": ("this", "year"),
        "letztes wochenende": ("last", "weekend"), "dieses wochenende": ("this", "weekend"),
        "letzter woche": ("last", "week"), "vergangener woche": ("last", "week"), "voriger woche": ("last", "week"),
        "dieser woche": ("this", "week"),  # "am Dienstag letzter Woche"
    },
    "French": {
        "la semaine dernière": ("last", "week"), "la semaine passée": ("last", "week"), "cette semaine": ("this", "week"),
        "le mois dernier": ("last", "month"), "ce mois-ci": ("this", "month"), "l'année dernière": ("last", "year"),
        "l'an dernier": ("last", "year"), "cette année": ("this", "year"), "le week-end dernier": ("last", "weekend"),
        "ce week-end": ("this", "weekend"),
    },
    "Spanish": {
        "la semana pasada": ("last", "week"), "esta semana": ("this", "week"), "el mes pasado": ("last", "month"),
        "este mes": ("this", "month"), "el año pasado": ("last", "year"), "este año": ("this", "year"),
        "el fin de semana pasado": ("last", "weekend"), "este fin de semana": ("this", "weekend"),
    },
    "Japanese": {
        "先週末": ("last", "weekend"), "今週末": ("this", "weekend"), "先週": ("last", "week"), "今週": ("this", "week"),
        "先月": ("last", "month"), "今月": ("this", "month"), "去年": ("last", "year"), "昨年": ("last", "year"),
        "今年": ("this", "year"),
    },
    "Portuguese": {
        "semana passada": ("last", "week"), "nesta semana": ("this", "week"),  # "esta semana": Spanish
        "mês passado": ("last", "month"), "este mês": ("this", "month"), "neste mês": ("this", "month"),
        "ano passado": ("last", "year"), "este ano": ("this", "year"), "neste ano": ("this", "year"),
        "fim de semana passado": ("last", "weekend"), "este fim de semana": ("this", "weekend"),
        "neste fim de semana": ("this", "weekend"),
    },
    "Italian": {
        "settimana scorsa": ("last", "week"), "scorsa settimana": ("last", "week"), "questa settimana": ("this", "week"),
        "mese scorso": ("last", "month"), "scorso mese": ("last", "month"), "questo mese": ("this", "month"),
        "anno scorso": ("last", "year"), "scorso anno": ("last", "year"), "quest'anno": ("this", "year"),
        "fine settimana scorso": ("last", "weekend"), "scorso fine settimana": ("last", "weekend"),
        "questo fine settimana": ("this", "weekend"),
    },
    "Dutch": {
        "vorige week": ("last", "week"), "afgelopen week": ("last", "week"), "deze week": ("this", "week"),
        "vorige maand": ("last", "month"), "afgelopen maand": ("last", "month"), "deze maand": ("this", "month"),
        "vorig jaar": ("last", "year"), "afgelopen jaar": ("last", "year"), "dit jaar": ("this", "year"),
        "vorig weekend": ("last", "weekend"), "afgelopen weekend": ("last", "weekend"), "dit weekend": ("this", "weekend"),
    },
    "Korean": {
        "지난 주말": ("last", "weekend"), "이번 주말": ("this", "weekend"), "지난주말": ("last", "weekend"),
        "이번주말": ("this", "weekend"), "지난주": ("last", "week"), "지난 주": ("last", "week"), "이번 주": ("this", "week"),
        "이번주": ("this", "week"), "지난달": ("last", "month"), "지난 달": ("last", "month"), "이번 달": ("this", "month"),
        "이번달": ("this", "month"), "작년": ("last", "year"), "지난해": ("last", "year"), "올해": ("this", "year"),
    },
    "Chinese": {
        "上周末": ("last", "weekend"), "上周": ("last", "week"), "上週": ("last", "week"), "上个星期": ("last", "week"),
        "上星期": ("last", "week"), "这周": ("this", "week"), "這週": ("this", "week"), "本周": ("this", "week"),
        "这个星期": ("this", "week"), "上个月": ("last", "month"), "上個月": ("last", "month"), "这个月": ("this", "month"),
        "這個月": ("this", "month"), "本月": ("this", "month"),
    },
}
#: Polish says "last/next week" in the case its preposition asks ("w zeszłym tygodniu", "zeszły tydzień", "od zeszłego
#: tygodnia", "w przyszły weekend"): each unit's nominative, locative and genitive, after the adjective's.
_POLISH_UNITS = (("week", ("tydzień", "tygodniu", "tygodnia")), ("month", ("miesiąc", "miesiącu", "miesiąca")),
                 ("year", ("rok", "roku", "roku")), ("weekend", ("weekend", "weekendzie", "weekendu")))


def _polish(stems: tuple[str, ...], said: str, endings=("y", "ym", "ego")) -> dict[str, tuple[str, str]]:
    """Polish "last/next <unit>" in its three cases: "zeszły tydzień", "w zeszłym tygodniu", "zeszłego tygodnia"."""
    return {f"{stem}{ending} {form}": (said, unit) for stem in stems for unit, forms in _POLISH_UNITS
            for ending, form in zip(endings, forms)}


FOREIGN_THIS_LAST_BY_LANGUAGE["Polish"] = {
    **_polish(("zeszł", "ubiegł"), "last"), **_polish(("poprzedni",), "last", ("", "m", "ego")),
    "w tym tygodniu": ("this", "week"), "ten tydzień": ("this", "week"), "tego tygodnia": ("this", "week"),
    "w tym miesiącu": ("this", "month"), "ten miesiąc": ("this", "month"), "tego miesiąca": ("this", "month"),
    "w tym roku": ("this", "year"), "ten rok": ("this", "year"), "tego roku": ("this", "year"),
    "w ten weekend": ("this", "weekend"), "w tym weekendzie": ("this", "weekend")}
#: Turkish, with the suffix that makes it an adjective ("geçen haftaki toplantı") or "in" ("hafta sonunda").
FOREIGN_THIS_LAST_BY_LANGUAGE["Turkish"] = {
    f"{lead} {unit}{suffix}": (said, english) for lead, said in (("geçen", "last"), ("geçtiğimiz", "last"), ("bu", "this"))
    for unit, english, suffixes in (("hafta", "week", ("", "ki")), ("ay", "month", ("", "ki")), ("yıl", "year", ("", "ki")),
                                    ("sene", "year", ("",)), ("hafta sonu", "weekend", ("", "nda")))
    for suffix in suffixes}
FOREIGN_THIS_LAST = {phrase: said for words in FOREIGN_THIS_LAST_BY_LANGUAGE.values() for phrase, said in words.items()}
#: Other languages' seasons named as a time (`periods.season`), each phrase: (which, the season, a year counted from
#: this one or None). Which: "last" (the latest that has ended), "this", "next" (still to come), "since" (the one under
#: way or the latest, up to today; not one still in its first month), "since this" (the one under way); Japanese,
#: Chinese and Korean also say a season of a year ("去年の夏": the summer of last year, "which" ""). "Im Sommer", "en
#: été", "夏に" are habits, no time.
_GERMAN_SEASONS = {"frühling": "spring", "sommer": "summer", "herbst": "autumn", "winter": "winter"}
_DUTCH_SEASONS = {"lente": "spring", "zomer": "summer", "herfst": "autumn", "winter": "winter"}
#: German "since last summer" ("seit letztem Sommer", "seit dem letzten Sommer"): `periods.season`'s "since last".
_SINCE_LAST_DE = tuple(f"{seit} {word}" for seit in ("seit", "seit dem") for word in (
    ("letztem", "vergangenem", "vorigem") if seit == "seit" else ("letzten", "vergangenen", "vorigen")))
_SEASON_LEADS = {
    # German (der Frühling, Sommer, Herbst, Winter; das Frühjahr), Dutch (de zomer; het voorjaar, najaar)
    **{f"{lead} {word}": (which, season) for word, season in _GERMAN_SEASONS.items() for which, leads in (
        ("last", ("letzten", "vergangenen", "vorigen", "im letzten", "im vergangenen", "im vorigen")),
        ("this", ("diesen", "in diesem")), ("next", ("nächsten", "kommenden", "im nächsten", "im kommenden")),
        ("since", ("seit dem",)), ("since this", ("seit diesem",)), ("since last", _SINCE_LAST_DE)) for lead in leads},
    **{f"{lead} frühjahr": (which, "spring") for which, leads in (
        ("last", ("letztes", "vergangenes", "voriges", "im letzten", "im vergangenen")), ("this", ("dieses", "in diesem")),
        ("next", ("nächstes", "kommendes", "im nächsten")), ("since", ("seit dem",)), ("since last", _SINCE_LAST_DE))
       for lead in leads},
    **{f"{lead} {word}": (which, season) for word, season in _DUTCH_SEASONS.items() for which, leads in (
        ("last", ("vorige", "afgelopen")), ("this", ("deze",)), ("next", ("volgende", "komende")), ("since", ("sinds de",)))
       for lead in leads},
    **{f"{lead} {word}": (which, season) for word, season in (("voorjaar", "spring"), ("najaar", "autumn")) for which, leads in (
        ("last", ("vorig", "afgelopen")), ("this", ("dit",)), ("next", ("volgend", "komend")), ("since", ("sinds het",)))
       for lead in leads},
    # French, Spanish, Portuguese, Italian
    **{phrase.format(w=word): (which, season) for word, season in (("été", "summer"), ("automne", "autumn"), ("hiver", "winter"))
       for which, phrases in (("last", ("l'{w} dernier", "l'{w} passé")), ("this", ("cet {w}",)), ("next", ("l'{w} prochain",)),
                              ("since", ("depuis l'{w}",))) for phrase in phrases},
    "le printemps dernier": ("last", "spring"), "au printemps dernier": ("last", "spring"), "ce printemps": ("this", "spring"),
    "le printemps prochain": ("next", "spring"), "au printemps prochain": ("next", "spring"),
    "depuis le printemps": ("since", "spring"),
    **{phrase.format(w=word): (which, season)
       for word, season in (("verano", "summer"), ("otoño", "autumn"), ("invierno", "winter"))
       for which, phrases in (("last", ("el {w} pasado", "el pasado {w}")), ("this", ("este {w}",)),
                              ("next", ("el próximo {w}", "el {w} que viene")), ("since", ("desde el {w}",)))
       for phrase in phrases},
    **{phrase.format(w=word): (which, season)
       for word, season in (("verão", "summer"), ("outono", "autumn"), ("inverno", "winter"))
       for which, phrases in (("last", ("o {w} passado", "no {w} passado")), ("this", ("este {w}", "neste {w}")),
                              ("next", ("o próximo {w}", "no próximo {w}")), ("since", ("desde o {w}",)))
       for phrase in phrases},
    **{phrase: (which, "spring") for which, phrases in (
        ("last", ("la primavera pasada", "la pasada primavera", "a primavera passada", "na primavera passada",
                  "la primavera scorsa", "la scorsa primavera")),
        ("this", ("esta primavera", "nesta primavera", "questa primavera")),
        ("next", ("la próxima primavera", "la primavera que viene", "a próxima primavera", "na próxima primavera",
                  "la prossima primavera")),
        ("since", ("desde la primavera", "desde a primavera", "dalla primavera"))) for phrase in phrases},
    **{phrase.format(w=word): (which, season) for word, season in (("autunno", "autumn"), ("inverno", "winter"))
       for which, phrases in (("last", ("l'{w} scorso", "lo scorso {w}")), ("this", ("quest'{w}", "questo {w}")),
                              ("next", ("il prossimo {w}",)), ("since", ("dall'{w}",))) for phrase in phrases},
    "l'estate scorsa": ("last", "summer"), "la scorsa estate": ("last", "summer"), "quest'estate": ("this", "summer"),
    "questa estate": ("this", "summer"), "la prossima estate": ("next", "summer"), "dall'estate": ("since", "summer"),
}
_CJK_SEASONS = {"春": "spring", "夏": "summer", "秋": "autumn", "冬": "winter"}
_CHINESE_SEASONS = {f"{c}{tail}": season for c, season in _CJK_SEASONS.items() for tail in ("天", "季")}
_KOREAN_SEASONS = {"봄": "spring", "여름": "summer", "가을": "autumn", "겨울": "winter"}
#: What may follow a season said in Japanese ("去年の秋", "この春") or Korean ("지난 여름") for it to be a time when a
#: kanji, katakana or Hangul syllable follows: those make a word of it ("去年の秋田旅行": Akita, "この春巻き": a spring
#: roll, "秋葉原", "秋山さん", "이번 겨울왕국": Frozen), unless they begin one of these (a particle; "夏休み", "夏場",
#: "夏祭り", "여름방학", "겨울 휴가": the season's holiday, festival or time; "何", "誰" ask about it, the particle left out:
#: "去年の夏何した？").
SEASON_WORD_GOES_ON = ("休", "中", "頃", "場", "季", "期", "祭", "合", "何", "誰", "에", "엔", "은", "는", "의", "이", "을",
                       "까지", "부터", "도", "쯤", "만", "과", "와", "내내", "동안", "방학", "휴가", "철")
#: A season's word in each language read: a question holding none is not read for a season (a quick test first:
#: the patterns' alternations cost a question 0.1-0.2 ms).
SEASON_HINTS = ("spring", "summer", "autumn", "fall", "winter", *_GERMAN_SEASONS, "frühjahr", *_DUTCH_SEASONS,
                "voorjaar", "najaar", "été", "automne", "hiver", "printemps", "verano", "otoño", "invierno", "primavera",
                "verão", "outono", "inverno", "estate", "autunno", *_CJK_SEASONS, *_KOREAN_SEASONS)
FOREIGN_SEASONS = {
    **{phrase: (which, season, None) for phrase, (which, season) in _SEASON_LEADS.items()},
    **{phrase.replace("'", "\u2019"): (which, season, None)
       for phrase, (which, season) in _SEASON_LEADS.items() if "'" in phrase},
    **{f"{lead}{c}": (which, season, year) for c, season in _CJK_SEASONS.items() for lead, which, year in (
        ("この", "this", None), ("今年の", "", 0), ("去年の", "", -1), ("昨年の", "", -1), ("来年の", "", 1))},
    **{f"{lead}{word}": (which, season, year) for word, season in _CHINESE_SEASONS.items() for lead, which, year in (
        ("这个", "this", None), ("今年", "", 0), ("今年的", "", 0), ("去年", "", -1), ("去年的", "", -1), ("明年", "", 1))},
    **{f"{lead}{gap}{word}": (which, season, year) for word, season in _KOREAN_SEASONS.items() for gap in ("", " ")
       for lead, which, year in (("지난", "last", None), ("이번", "this", None), ("올", "this", None),
                                 ("다음", "next", None), ("작년", "", -1), ("올해", "", 0), ("내년", "", 1))},
}
#: Other languages' "next week|weekend|month|year" and "the week after next", by language: (next or after next,
#: the unit); a window still to come (`ahead.span`). Their "this week" is in `FOREIGN_THIS_LAST`: asked about what
#: is coming, the rest of it. The language says which past tense rules the window out (`tense.past_in`) when the
#: question's own language is not told ("Was steht nächste Woche an?": its "Was" is no English past).
FOREIGN_NEXT_BY_LANGUAGE = {
    # German, in the cases it is said in ("nächste Woche", "in der nächsten Woche", "am nächsten Wochenende")
    "German": {**{f"{word}{ending} {unit}": ("next", english)
                  for word in ("nächst", "naechst", "kommend") for unit, english, endings in (
                      ("woche", "week", ("e", "en", "er")), ("monat", "month", ("en", "er")),
                      ("jahr", "year", ("es", "en")), ("wochenende", "weekend", ("es", "en"))) for ending in endings},
               "übernächste woche": ("after next", "week"), "übernächsten woche": ("after next", "week")},
    "French": {"semaine prochaine": ("next", "week"), "prochaine semaine": ("next", "week"),
               "mois prochain": ("next", "month"), "prochain mois": ("next", "month"),
               "année prochaine": ("next", "year"), "an prochain": ("next", "year"),
               "prochaine année": ("next", "year"), "week-end prochain": ("next", "weekend"),
               "prochain week-end": ("next", "weekend"), "weekend prochain": ("next", "weekend")},
    # Spanish and Portuguese ("la próxima semana", "na próxima semana"): `tense` reads their words together
    "Spanish": {"próxima semana": ("next", "week"), "proxima semana": ("next", "week"),
                "semana que viene": ("next", "week"), "próximo mes": ("next", "month"),
                "proximo mes": ("next", "month"), "mes que viene": ("next", "month"), "próximo año": ("next", "year"),
                "año que viene": ("next", "year"), "próximo fin de semana": ("next", "weekend"),
                "fin de semana que viene": ("next", "weekend")},
    "Portuguese": {"semana que vem": ("next", "week"), "próximo mês": ("next", "month"),
                   "mês que vem": ("next", "month"), "próximo ano": ("next", "year"), "ano que vem": ("next", "year"),
                   "próximo fim de semana": ("next", "weekend"), "fim de semana que vem": ("next", "weekend")},
    "Italian": {"prossima settimana": ("next", "week"), "settimana prossima": ("next", "week"),
                "prossimo mese": ("next", "month"), "mese prossimo": ("next", "month"),
                "prossimo anno": ("next", "year"), "anno prossimo": ("next", "year"),
                "prossimo fine settimana": ("next", "weekend"), "fine settimana prossimo": ("next", "weekend"),
                "prossimo weekend": ("next", "weekend"), "weekend prossimo": ("next", "weekend")},
    "Dutch": {"volgende week": ("next", "week"), "komende week": ("next", "week"), "volgende maand": ("next", "month"),
              "komende maand": ("next", "month"), "volgend jaar": ("next", "year"), "komend jaar": ("next", "year"),
              "volgend weekend": ("next", "weekend"), "volgende weekend": ("next", "weekend"),
              "komend weekend": ("next", "weekend")},
    "Japanese": {"来週末": ("next", "weekend"), "来週": ("next", "week"), "再来週": ("after next", "week"),
                 "来月": ("next", "month"), "再来月": ("after next", "month"), "来年": ("next", "year"),
                 "再来年": ("after next", "year")},
    "Chinese": {"下周末": ("next", "weekend"), "下週末": ("next", "weekend"), "下周": ("next", "week"),
                "下週": ("next", "week"), "下个星期": ("next", "week"), "下個星期": ("next", "week"),
                "下星期": ("next", "week"), "下礼拜": ("next", "week"), "下下周": ("after next", "week"),
                "下下週": ("after next", "week"), "下个月": ("next", "month"), "下個月": ("next", "month"),
                "明年": ("next", "year")},  # 明年 in Japanese too
    "Korean": {"다음 주말": ("next", "weekend"), "다음주말": ("next", "weekend"), "다음 주": ("next", "week"),
               "다음주": ("next", "week"), "다다음 주": ("after next", "week"), "다다음주": ("after next", "week"),
               "다음 달": ("next", "month"), "다음달": ("next", "month"), "내년": ("next", "year")},
}
FOREIGN_NEXT_BY_LANGUAGE["Polish"] = _polish(("przyszł", "następn", "najbliższ"), "next")
FOREIGN_NEXT_BY_LANGUAGE["Turkish"] = {
    **{f"{lead} {unit}{suffix}": ("next", english) for lead in ("gelecek", "önümüzdeki")
       for unit, english, suffixes in (("hafta", "week", ("", "ki")), ("ay", "month", ("",)), ("yıl", "year", ("",)),
                                       ("sene", "year", ("",)), ("hafta sonu", "weekend", ("", "nda")))
       for suffix in suffixes},
    "haftaya": ("next", "week"), "seneye": ("next", "year")}
FOREIGN_NEXT = {phrase: said for words in FOREIGN_NEXT_BY_LANGUAGE.values() for phrase, said in words.items()}
#: "Tomorrow" and "the day after tomorrow" by language: how many days ahead. German "morgen" is Dutch's too;
#: it and Spanish "mañana" also mean "morning" after an article or "heute", "esta" (`MORNING_BEFORE`).
FOREIGN_TOMORROW_BY_LANGUAGE = {
    "German": {"morgen": 1, "übermorgen": 2, "uebermorgen": 2},
    "French": {"demain": 1, "après-demain": 2, "apres-demain": 2, "après demain": 2},
    "Spanish": {"mañana": 1, "pasado mañana": 2},
    "Portuguese": {"amanhã": 1, "depois de amanhã": 2},
    "Italian": {"domani": 1, "dopodomani": 2, "dopo domani": 2},
    "Dutch": {"overmorgen": 2},
    "Japanese": {"明日": 1, "あした": 1, "明後日": 2, "あさって": 2},
    "Chinese": {"明天": 1, "后天": 2, "後天": 2},
    "Korean": {"내일": 1, "모레": 2},
    "Polish": {"jutro": 1, "pojutrze": 2},
    "Turkish": {"yarın": 1, "yarınki": 1, "öbür gün": 2, "yarından sonra": 2},
}
FOREIGN_TOMORROW = {phrase: n for words in FOREIGN_TOMORROW_BY_LANGUAGE.values() for phrase, n in words.items()}
#: The word before "morgen" or "mañana" that makes it "morning", not "tomorrow" ("heute Morgen", "am Morgen",
#: "goedemorgen" is one word, "esta mañana", "por la mañana"; "mañana por la mañana" is tomorrow morning).
MORNING_BEFORE = frozenset({"heute", "gestern", "vorgestern", "guten", "am", "jeden", "diesen", "den", "dem", "der",
                            "einen", "eines", "vom", "zum", "de", "deze", "die", "goede", "elke", "iedere", "la",
                            "esta", "una", "cada", "toda", "buena", "buenas", "media", "misma",
                            # a day's morning ("Samstag Morgen", "zaterdag morgen"), "am frühen/nächsten Morgen",
                            # "morgen Morgen" (tomorrow morning), "el mañana" (the future). Not "mein": "wie sieht
                            # mein morgen aus?" is as often tomorrow.
                            "montag", "dienstag", "mittwoch", "donnerstag", "freitag", "samstag", "sonntag",
                            "sonnabend", "maandag", "dinsdag", "woensdag", "donderdag", "vrijdag", "zaterdag", "zondag",
                            "frühen", "fruehen", "nächsten", "naechsten", "folgenden", "ganzen", "schönen", "ein",
                            "einem", "diesem", "jenem", "morgen", "el", "un"})
#: "In two weeks" by language: the words before a number and its unit ("in zwei Wochen", "dans deux semaines",
#: "en dos semanas", "daqui a duas semanas", "tra due settimane", "over twee weken"); Japanese, Chinese and Korean
#: say it after them ("2週間後", "两周后", "2주 후").
IN_WORD_LANGUAGE = {"in": "German", "dans": "French", "en": "Spanish", "dentro de": "Spanish", "daqui a": "Portuguese",
                    "em": "Portuguese", "tra": "Italian", "fra": "Italian", "over": "Dutch", "za": "Polish"}
#: The language of each "this week", "next week" and "tomorrow" (`tense.past_in` reads the past by it).
PHRASE_LANGUAGE = {phrase: language
                   for table in (FOREIGN_THIS_LAST_BY_LANGUAGE, FOREIGN_NEXT_BY_LANGUAGE, FOREIGN_TOMORROW_BY_LANGUAGE)
                   for language, words in table.items() for phrase in words}
#: The words before "days|weeks|months|years" that make them a window still to come, by language ("in den
#: nächsten drei Tagen", "dans les trois prochains jours", "en los próximos seis meses", "nei prossimi giorni", "de
#: komende weken"; a number or none: a few), and the units said so (plural; "am nächsten Tag" is the day after
#: another); in Japanese, Chinese and Korean before a number and its unit ("今後3ヶ月", "未来三天", "앞으로 6개월").
NEXT_WORD_LANGUAGE = {
    "nächsten": "German", "naechsten": "German", "kommenden": "German", "prochains": "French", "prochaines": "French",
    "próximos": "Spanish", "próximas": "Spanish", "proximos": "Spanish", "proximas": "Spanish", "prossimi": "Italian",
    "prossime": "Italian", "komende": "Dutch", "volgende": "Dutch", "今後": "Japanese", "これから": "Japanese",
    "この先": "Japanese", "向こう": "Japanese", "未来": "Chinese", "接下来": "Chinese", "接下來": "Chinese",
    "今后": "Chinese", "往后": "Chinese", "앞으로": "Korean", "향후": "Korean"}
#: One of these is in every window still to come, in any language (lower case): a question holding none is not
#: read for one (four patterns fewer for nearly every question; `tests/test_ahead.py` checks the tables).
AHEAD_HINTS = ("next", "coming", "upcoming", "nächst", "naechst", "kommend", "prochain", "próxim", "proxim",
               "que vie", "que vem", "prossim", "volgend", "komend", "来", "下", "明年", "다음", "내년", "今後", "これから",
               "この先", "向こう", "未来", "接下", "今后", "往后", "앞으로", "향후", "tomorrow", "morgen", "demain",
               "mañana", "amanhã", "domani", "明日", "明後日", "あした", "あさって", "明天", "后天", "後天", "내일", "모레",
               "przyszł", "następn", "najbliższ", "jutro", "pojutrze", "gelecek", "önümüzdeki", "haftaya", "seneye",
               "yarın", "öbür gün")
FOREIGN_NEXT_UNITS = ("tage", "tagen", "wochen", "monate", "monaten", "jahre", "jahren", "jours", "semaines", "mois",
                      "ans", "années", "días", "dias", "semanas", "meses", "años", "anos", "giorni", "settimane",
                      "mesi", "anni", "dagen", "weken", "maanden", "jaren")
POLISH_TURKISH_DAYS = {"dzisiaj": 0, "dziś": 0, "wczoraj": 1, "przedwczoraj": 2, "bugün": 0, "bugünkü": 0, "dün": 1,
                       "dünkü": 1, "evvelsi gün": 2, "önceki gün": 2,
                       # Turkish "this evening", "this morning", "tonight", "this afternoon" (and "bu akşamki": this
                       # evening's), today as English "tonight" and "this morning" are ("dün akşam", "yarın sabah" are
                       # read by their day)
                       **{f"bu {part}{suffix}": 0 for part in ("akşam", "sabah", "gece", "öğleden sonra")
                          for suffix in ("", "ki")}}
#: Other languages' days: how many days back. (French "hier" is left out: in German it is "here".)
FOREIGN_DAYS = {"heute": 0, "gestern": 1, "vorgestern": 2, "aujourd'hui": 0, "avant-hier": 2, "hoy": 0, "ayer": 1,
                "anteayer": 2, "antes de ayer": 2, "hoje": 0, "ontem": 1, "anteontem": 2, "oggi": 0, "ieri": 1,
                "l'altro ieri": 2, "altroieri": 2, "vandaag": 0, "gisteren": 1, "eergisteren": 2,
                "今日": 0, "昨日": 1, "一昨日": 2, "今天": 0, "昨天": 1, "前天": 2, "오늘": 0, "어제": 1, "그저께": 2, "그제": 2,
                **POLISH_TURKISH_DAYS}
#: German, French, Spanish, Portuguese, Italian and Dutch month names (Korean's are numbers: `cjk_md`).
FOREIGN_MONTHS = {
    "januar": 1, "jänner": 1, "februar": 2, "märz": 3, "maerz": 3, "mai": 5, "juni": 6, "juli": 7, "oktober": 10,
    "dezember": 12, "janvier": 1, "février": 2, "fevrier": 2, "mars": 3, "avril": 4, "juin": 6, "juillet": 7,
    "août": 8, "aout": 8, "septembre": 9, "octobre": 10, "novembre": 11, "décembre": 12, "decembre": 12,
    "enero": 1, "febrero": 2, "marzo": 3, "abril": 4, "mayo": 5, "junio": 6, "julio": 7, "agosto": 8,
    "septiembre": 9, "setiembre": 9, "octubre": 10, "noviembre": 11, "diciembre": 12,
    "april": 4, "august": 8, "september": 9, "november": 11,
    "janeiro": 1, "fevereiro": 2, "março": 3, "maio": 5, "junho": 6, "julho": 7, "setembro": 9, "outubro": 10,
    "novembro": 11, "dezembro": 12, "gennaio": 1, "febbraio": 2, "aprile": 4, "maggio": 5, "giugno": 6,
    "luglio": 7, "settembre": 9, "ottobre": 10, "dicembre": 12, "januari": 1, "februari": 2, "maart": 3,
    "mei": 5, "augustus": 8, "december": 12,
}
#: Polish months: nominative, genitive ("15 grudnia", "od marca") and locative ("w grudniu"). (Not "maj", "maja",
#: "luty" alone: a day, "w" or "od" leads them: `LEAD_MONTHS`.)
POLISH_MONTHS = {form: n for n, forms in enumerate((
    ("styczeń", "stycznia", "styczniu"), ("luty", "lutego", "lutym"), ("marzec", "marca", "marcu"),
    ("kwiecień", "kwietnia", "kwietniu"), ("maj", "maja", "maju"), ("czerwiec", "czerwca", "czerwcu"),
    ("lipiec", "lipca", "lipcu"), ("sierpień", "sierpnia", "sierpniu"), ("wrzesień", "września", "wrześniu"),
    ("październik", "października", "październiku"), ("listopad", "listopada", "listopadzie"),
    ("grudzień", "grudnia", "grudniu")), 1) for form in forms}
#: Turkish months, and the ones said "in" by a suffix ("ekimde", "martta"). "ocak" (a stove), "aralık" (a gap),
#: "ekim" (sowing), "nisan", "kasım" (names) are months after a day or before "ayında" or a year; their suffixed
#: forms only where no other word is likelier ("ekimde", not "ocakta": on the stove, nor "aralıkta").
TURKISH_MONTHS = {name: n for n, name in enumerate(("ocak", "şubat", "mart", "nisan", "mayıs", "haziran", "temmuz",
                                                    "ağustos", "eylül", "ekim", "kasım", "aralık"), 1)}
TURKISH_IN_MONTHS = {"şubatta": 2, "martta": 3, "nisanda": 4, "mayısta": 5, "haziranda": 6, "temmuzda": 7,
                     "ağustosta": 8, "eylülde": 9, "ekimde": 10, "kasımda": 11}
#: The months a question is read for (`foreign_time`, `timeq`). A passage's days (`mentions`) are read in the
#: languages of `FOREIGN_MONTHS` only, as before: Polish and Turkish passages are not read for their days.
QUESTION_MONTHS = {**FOREIGN_MONTHS, **POLISH_MONTHS, **TURKISH_MONTHS, **TURKISH_IN_MONTHS}
#: The words before a day and month that say it is a date ("am 15. Dezember", "le 3 mars", "el 2 de mayo").
DAY_MONTH_LEADS = ("am", "vom", "zum", "bis zum", "ab dem", "le", "du", "au", "el", "del", "al", "il", "dal", "op",
                   "o", "no", "em")
#: Month words that are other words too ("mars", "mai", "mayo", "mei", English "august": "3 august visitors"): a
#: day before them is a date only with a lead word (`DAY_MONTH_LEADS`), a mark after the day ("3.", "1er") or
#: "de"/"di" ("am 3. august", typed in lower case). English reads "3 August" first (`timeq.PATTERNS`).
BARE_MONTH_WORDS = frozenset({"mars", "mai", "mayo", "mei", "august", "mart", "maj"})
#: The words before a month that make it one ("im Oktober", "en octubre", "depuis mars"); "since" words
#: read from the month's start up to as_of.
FOREIGN_MONTH_LEADS = {"im": "", "in": "", "seit": "since", "en": "", "depuis": "since", "desde": "since",
                       "au mois de": "", "en el mes de": "", "el mes de": "", "em": "", "no mês de": "",
                       "a": "", "da": "since", "sinds": "since", "w": "", "we": "", "od": "since",
                       "": ""}  # none: Turkish ("mart ayında", "ekimde": `foreign_time`)
#: "in" leads a German or Dutch month ("in Mai", "in maart"); before another language's month it is English:
#: "in Mayo Clinic", "in Julio's team" (a Spanish month only follows "en"; French "en"; Portuguese "em").
IN_MONTHS = frozenset({"januar", "jänner", "februar", "märz", "maerz", "mai", "juni", "juli", "oktober", "dezember",
                       "april", "august", "september", "november", "januari", "februari", "maart", "mei", "augustus",
                       "december"})
ITALIAN_MONTHS = frozenset({"gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto",
                            "settembre", "ottobre", "novembre", "dicembre"})
#: The leads that take one language's months only ("a maggio", "in maart", "w grudniu", "od marca"); none before a
#: Turkish month said "in" ("mart ayında", "ekimde"). Italian's "a" and "da" before another language's month are
#: English ("a Mars rover", "order a mai tai", "a Mayo Clinic visit") or slang.
LEAD_MONTHS = {"a": ITALIAN_MONTHS, "da": ITALIAN_MONTHS, "in": IN_MONTHS, "w": frozenset(POLISH_MONTHS),
               "we": frozenset(POLISH_MONTHS), "od": frozenset(POLISH_MONTHS),
               "": frozenset(TURKISH_MONTHS) | frozenset(TURKISH_IN_MONTHS)}
FOREIGN_NUMBERS = {"ein": 1, "eine": 1, "einem": 1, "einer": 1, "zwei": 2, "drei": 3, "vier": 4, "fünf": 5,
                   "sechs": 6, "sieben": 7, "acht": 8, "neun": 9, "zehn": 10, "un": 1, "une": 1, "deux": 2,
                   "trois": 3, "quatre": 4, "cinq": 5, "six": 6, "sept": 7, "huit": 8, "neuf": 9, "dix": 10,
                   "uno": 1, "una": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7,
                   "ocho": 8, "nueve": 9, "diez": 10, "um": 1, "dois": 2, "duas": 2, "três": 3, "quatro": 4,
                   "uma": 1, "sete": 7, "oito": 8, "nove": 9, "dez": 10, "due": 2, "tre": 3, "quattro": 4, "cinque": 5,
                   "sei": 6, "sette": 7, "otto": 8, "dieci": 10, "een": 1, "één": 1, "twee": 2, "drie": 3,
                   "vijf": 5, "zes": 6, "zeven": 7, "negen": 9, "tien": 10, "한": 1, "두": 2, "세": 3, "네": 4}
#: The Chinese numerals up to ten (Japanese writes them too): a count's ("三天前", "两周后"), an hour's ("二十三点"),
#: a day's ("二十九号", `foreign_time.chinese_number`). 两 and 兩 say "two of", never a day's or a ten's number.
CHINESE_NUMBERS = {"一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9,
                   "十": 10}
FOREIGN_NUMBERS.update(CHINESE_NUMBERS)
POLISH_NUMBERS = {"jeden": 1, "jedna": 1, "dwa": 2, "dwie": 2, "trzy": 3, "cztery": 4, "pięć": 5, "sześć": 6,
                  "siedem": 7, "osiem": 8, "dziewięć": 9, "dziesięć": 10, "kilka": 3}
TURKISH_NUMBERS = {"bir": 1, "iki": 2, "i̇ki": 2, "üç": 3, "dört": 4, "beş": 5, "altı": 6, "yedi": 7, "sekiz": 8,
                   "dokuz": 9, "birkaç": 3}  # "İki".lower() is "i̇ki"
FOREIGN_NUMBERS.update(POLISH_NUMBERS | TURKISH_NUMBERS)
FOREIGN_UNITS = {
    "day": ("tag", "tage", "tagen", "jour", "jours", "día", "días", "dia", "dias", "giorno", "giorni", "dag", "dagen",
            "dzień", "dni", "gün", "日", "天", "일"),
    "week": ("woche", "wochen", "semaine", "semaines", "semana", "semanas", "settimana", "settimane", "week",
             "weken", "tydzień", "tygodnie", "tygodni", "hafta", "週間", "週", "周", "星期", "个星期", "주", "주일"),
    "month": ("monat", "monate", "monaten", "mois", "mes", "meses", "mês", "mese", "mesi", "maand", "maanden",
              "miesiąc", "miesiące", "miesięcy", "ay",
              "ヶ月", "か月", "カ月", "ヵ月", "个月", "個月", "개월", "달"),
    "year": ("jahr", "jahre", "jahren", "an", "ans", "année", "années", "año", "años", "ano", "anos", "anno", "anni",
             "jaar", "jaren", "rok", "lata", "lat", "yıl", "sene", "年", "년"),
}
FOREIGN_UNIT_OF = {word: unit for unit, words in FOREIGN_UNITS.items() for word in words}
#: The days of the week in each language, Monday first. Portuguese only with "-feira" or sábado and domingo
#: ("segunda" is "second"; its short forms are days after a word that leads one: `WEEKDAY_LEADS`).
WEEKDAYS_BY_LANGUAGE = {
    "English": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
    "German": ("Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag"),
    "French": ("lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche"),
    "Spanish": ("lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo"),
    "Portuguese": ("segunda-feira", "terça-feira", "quarta-feira", "quinta-feira", "sexta-feira", "sábado", "domingo"),
    "Italian": ("lunedì", "martedì", "mercoledì", "giovedì", "venerdì", "sabato", "domenica"),
    "Dutch": ("maandag", "dinsdag", "woensdag", "donderdag", "vrijdag", "zaterdag", "zondag"),
    "Japanese": ("月曜日", "火曜日", "水曜日", "木曜日", "金曜日", "土曜日", "日曜日"),
    "Chinese": ("星期一", "星期二", "星期三", "星期四", "星期五", "星期六", "星期日"),
    "Korean": ("월요일", "화요일", "수요일", "목요일", "금요일", "토요일", "일요일"),
    "Polish": ("poniedziałek", "wtorek", "środa", "czwartek", "piątek", "sobota", "niedziela"),
    "Turkish": ("pazartesi", "salı", "çarşamba", "perşembe", "cuma", "cumartesi", "pazar"),
}
#: The days of the week as a passage names them, Monday 0 (`mentions`, in any case).
#: The short forms: Japanese without 日, Chinese 周 (`WEEKDAY_NAMES`, `QUESTION_WEEKDAYS`), Portuguese without
#: "-feira", a day only after a lead in a question (`WEEKDAY_SHORT`).
_YOUBI = ("月曜", "火曜", "水曜", "木曜", "金曜", "土曜", "日曜")
_ZHOU = ("周一", "周二", "周三", "周四", "周五", "周六", "周日")
_FEIRA = ("segunda", "terça", "quarta", "quinta", "sexta")
WEEKDAY_NAMES = {  # not Polish and Turkish: read in questions only (`QUESTION_WEEKDAYS`; "pazar" is a market too)
    **{name: n for language, names in WEEKDAYS_BY_LANGUAGE.items() if language not in ("Polish", "Turkish")
       for n, name in enumerate(names)}, "Sonnabend": 5,
    **{name: n for n, name in enumerate(_YOUBI)}, "星期天": 6, **{name: n for n, name in enumerate(_ZHOU)}, "周末": 5,
}
#: A day of the week in a question, in another language (`foreign_time`, `timeq`): the days, and the short
#: forms read only after a lead ("na segunda", "próxima sexta").
QUESTION_WEEKDAYS = {name.lower(): (n, language) for language, names in WEEKDAYS_BY_LANGUAGE.items()
                     if language != "English" for n, name in enumerate(names)} | {
    "sonnabend": (5, "German"), "星期天": (6, "Chinese"), "礼拜天": (6, "Chinese"), "禮拜天": (6, "Chinese"),
    **{name: (n, "Chinese") for n, name in enumerate(_ZHOU)},
    **{name: (n, "Chinese") for n, name in enumerate(("礼拜一", "礼拜二", "礼拜三", "礼拜四", "礼拜五", "礼拜六",
                                                      "礼拜日"))},
    **{name: (n, "Chinese") for n, name in enumerate(("週一", "週二", "週三", "週四", "週五", "週六", "週日"))},
    **{name: (n, "Chinese") for n, name in enumerate(("禮拜一", "禮拜二", "禮拜三", "禮拜四", "禮拜五", "禮拜六",
                                                      "禮拜日"))},
    **{name: (n, "Japanese") for n, name in enumerate(_YOUBI)},
    **{name: (n, "Portuguese") for n, name in enumerate(_FEIRA)},
    # Polish in the cases said: "w środę", "w zeszłą niedzielę", "od poniedziałku" (not the plurals "w soboty": a habit)
    **{name: (n, "Polish") for n, name in ((0, "poniedziałku"), (1, "wtorku"), (2, "środę"), (3, "czwartku"),
                                           (4, "piątku"), (5, "sobotę"), (6, "niedzielę"))}}
#: The days of the week read only with a word before or after them that says so: the Portuguese short forms
#: ("segunda" is "second") and Turkish "pazar", a market too ("geçen pazar", "pazar günü"; not "Wedding'de pazar
#: kaçta kuruluyor?").
NOT_A_DAY_ALONE = frozenset(_FEIRA) | {"pazar"}
WEEKDAY_SHORT = frozenset(_FEIRA)
#: The words after a Portuguese day's short form ("segunda") that keep it a day ("na segunda de manhã"; "na segunda
#: hora" is the second hour).
SHORT_DAY_FOLLOWERS = frozenset({"à", "às", "de", "da", "do", "pela", "ao", "no", "na", "e", "ou", "que"})
#: The words before a day of the week in a question, and how they say it: the latest one gone ("last"), the coming
#: one ("next"), this week's ("this"), or the day of last, next or this week ("先週の金曜日", "下周五", "다음 주
#: 수요일"); "on" as a bare day. After the day: `WEEKDAY_TRAILS` ("mardi dernier", "el martes que viene").
WEEKDAY_LEADS = {
    "letzten": "last", "letzte": "last", "vergangenen": "last", "vorigen": "last", "am letzten": "last",
    "am vergangenen": "last", "nächsten": "next", "naechsten": "next", "kommenden": "next", "am nächsten": "next",
    "am kommenden": "next", "diesen": "this", "am": "on",
    "el pasado": "last", "el último": "last", "el próximo": "next", "el proximo": "next", "este": "this", "el": "on",
    "na última": "last", "no último": "last", "na próxima": "next", "no próximo": "next", "próxima": "next",
    "nesta": "this", "neste": "this", "na": "on", "no": "on",
    "ce": "this",  # French: "ce dimanche" is this week's, as "this Sunday" is
    "lo scorso": "last", "scorso": "last", "il prossimo": "next", "prossimo": "next", "questo": "this",
    "afgelopen": "last", "vorige": "last", "volgende": "next", "komende": "next", "aanstaande": "next", "deze": "this",
    "op": "on",
    "先週の": "last week", "先週": "last week", "来週の": "next week", "来週": "next week", "今週の": "this week",
    "今週": "this week", "上周": "last week", "上星期": "last week", "上个星期": "last week", "上個星期": "last week",
    "上礼拜": "last week", "下周": "next week", "下星期": "next week", "下个星期": "next week", "下個星期": "next week",
    "下礼拜": "next week", "这周": "this week", "這週": "this week", "本周": "this week", "这个星期": "this week",
    "지난주": "last week", "지난 주": "last week", "다음 주": "next week", "다음주": "next week", "이번 주": "this week",
    "이번주": "this week", "上週": "last week", "上个礼拜": "last week", "上個禮拜": "last week", "上禮拜": "last week",
    "下週": "next week", "下个礼拜": "next week", "下個禮拜": "next week", "下禮拜": "next week", "本週": "this week",
    "这个礼拜": "this week", "這個禮拜": "this week", "這個星期": "this week",
    # the week before last, after next: "上上周五", "先々週の金曜日", "지지난주 금요일", "再来週の月曜日", "다다음 주"
    "上上周": "week before last", "上上週": "week before last", "上上个星期": "week before last",
    "上上礼拜": "week before last", "先々週の": "week before last", "先々週": "week before last",
    "지지난주": "week before last", "지지난 주": "week before last", "下下周": "week after next",
    "下下週": "week after next", "下下个星期": "week after next", "下下礼拜": "week after next",
    "再来週の": "week after next", "再来週": "week after next", "다다음 주": "week after next",
    "다다음주": "week after next",
}
POLISH_TURKISH_LEADS = {
    # Polish, in each gender ("w zeszły piątek", "w zeszłą niedzielę", "w przyszłą środę"; "w", "we": on)
    **{f"{on}{stem}{ending}": said for on in ("w ", "") for stems, said in (
        (("zeszł", "ubiegł", "ostatni", "poprzedni"), "last"), (("przyszł", "następn", "najbliższ"), "next"))
       for stem in stems for ending in (("", "ą") if stem.endswith("i") else ("y", "ą"))},
    "w ten": "this", "w tę": "this", "w tą": "this", "w": "on", "we": "on",
    # Turkish: "geçen salı", "gelecek cuma", "bu cumartesi"; "haftaya salı" is Tuesday next week
    "geçen": "last", "geçtiğimiz": "last", "gelecek": "next", "önümüzdeki": "next", "bu": "this",
    "haftaya": "next week", "geçen hafta": "last week", "gelecek hafta": "next week", "önümüzdeki hafta": "next week",
    "bu hafta": "this week",
}
WEEKDAY_LEADS.update(POLISH_TURKISH_LEADS)
#: How many weeks from this one each week before a day says (`WEEKDAY_LEADS`: "下周五" is Friday a week on).
WEEK_OF_LEAD = {"week before last": -2, "last week": -1, "this week": 0, "next week": 1, "week after next": 2}
WEEKDAY_TRAILS = {"dernier": "last", "prochain": "next", "pasado": "last", "que viene": "next", "passado": "last",
                  "passada": "last", "que vem": "next", "scorso": "last", "prossimo": "next",
                  "günü": "on", "günkü": "on"}  # Turkish "cumartesi günü", "Salı günkü" (a word before it says more)
#: A day of the week said as a habit ("every Sunday", "sonntags", "tous les dimanches", "los domingos", "毎週日曜",
#: "每周日", "매주 일요일"): every such day, not the next one. The words before the day, and the German and Dutch
#: adverbs ("sonntags", "zondags") as days of their own.
EVERY_BEFORE = ("every", "each", "jeden", "immer", "tous les", "chaque", "cada", "los", "todos los", "todas as",
                "todos os", "ogni", "tutti i", "tutte le", "elke", "iedere", "毎週", "每周", "每個", "每个", "每", "매주",
                "毎", "每逢")  # "毎月曜日", "每逢周一"
#: What follows a Chinese or Japanese day of the week that makes it no day: a count ("两周一次": every two weeks,
#: "下周三天假": three days off next week; "天气" is the weather), the hour ("下周六点": at six next week), a word of
#: its own ("下周日程": next week's schedule, "上周日本之行": last week's trip to Japan, "日记", "日语", "日曜大工").
NOT_A_DAY_AFTER = ("起", "样", "樣", "直", "些", "共", "次", "个", "個", "遍", "点", "點", "程", "本", "记", "記", "语", "語",
                   "历", "曆", "志", "誌", "报", "報", "元", "文", "常", "期", "大工")
#: The words after a CJK day of the week that say a habit: "월요일마다", "月曜日ごとに".
EVERY_AFTER = ("마다", "ごと")
#: The words before a day of the week in a question that say a habit, no one day: "jeden Montag", "tous les mardis",
#: "le mardi", "ao domingo", "il lunedì" (`timeq`).
HABIT_BEFORE = frozenset(EVERY_BEFORE) | {"le", "les", "ao", "aos", "il", "i", "każdy", "każdą", "co", "her"}
WEEKDAY_ADVERBS = {name: n for n, name in enumerate(("montags", "dienstags", "mittwochs", "donnerstags", "freitags",
                                                      "samstags", "sonntags"))} | {
    name: n for n, name in enumerate(("maandags", "dinsdags", "woensdags", "donderdags", "vrijdags", "zaterdags",
                                      "zondags"))}
#: The words before a day of the week that make it one gone ("last Saturday", "letzten Samstag").
LAST_BEFORE = ("last", "past", "letzten", "letzte", "vergangenen", "dernier", "pasado", "passado", "scorso", "vorige",
               "afgelopen", "先週", "上周", "上個", "上个", "지난")
#: The words around a day of the week that make it part of a name, no day to come: a holiday ("Black Friday",
#: "Good Friday", "Cyber Monday", "Ash Wednesday", "Mardi gras", "Viernes Santo", "giovedì grasso"), a person
#: ("Herr Freitag", "Frau Sonntag") or a paper ("the Sunday Times"). Lower case. (`mentions.weekdays`)
NAME_BEFORE_DAY = frozenset({"black", "good", "cyber", "easter", "whit", "super", "ash", "holy", "maundy", "blue",
                             "man", "girl", "palm", "giving", "shrove", "herr", "frau", "mr", "mrs", "ms", "dr"})
NAME_AFTER_DAY = frozenset({"gras", "grasso", "santo", "santa", "times", "telegraph"})
#: The days of the week that are names too, capitalised after a word: "Plácido Domingo", "Sabato De Sarno".
DAYS_ALSO_NAMES = frozenset({"domingo", "sábado", "sabato", "domenica"})
#: 明日 followed by one of these is a name or a plant: 明日香, 明日菜, 明日奈, 明日美 (Asuka, Asuna, Asumi), 明日葉.
NAME_AFTER_ASU = frozenset("香菜奈美葉")
#: 后天 followed by one of these is "acquired" (后天性 acquired, 后天形成 formed later, 后天培养 nurtured), no day.
ACQUIRED_AFTER = ("性", "形成", "培养", "培養", "习得", "習得", "养成", "養成", "因素", "环境", "環境")

#: The Polish and Turkish words of these tables. `foreign_time` reads them as written or with a capital first letter
#: ("Wczoraj", "Geçen hafta", "İki"), not ignoring case: an alternation ignoring case costs each word of every
#: question (it made `timeq.read` 1.6 times as slow).
CASED = frozenset(
    {phrase for table in (FOREIGN_THIS_LAST_BY_LANGUAGE, FOREIGN_NEXT_BY_LANGUAGE, FOREIGN_TOMORROW_BY_LANGUAGE)
     for language in ("Polish", "Turkish") for phrase in table[language]}
    | set(POLISH_TURKISH_DAYS) | set(POLISH_NUMBERS) | set(TURKISH_NUMBERS) | set(POLISH_TURKISH_LEADS)
    | {name for name, (_, language) in QUESTION_WEEKDAYS.items() if language in ("Polish", "Turkish")}
    | set(POLISH_MONTHS) | set(TURKISH_MONTHS) | set(TURKISH_IN_MONTHS) | {"günü", "günkü"})
