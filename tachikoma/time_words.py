"""The time words of other languages that `timeq`'s patterns read (issue 29): German, French, Spanish,
Portuguese, Italian, Dutch, Japanese, Chinese and Korean "last week", "yesterday", month names, the words
that lead a month, numbers and units. Data only; `timeq` makes its patterns from them."""

from __future__ import annotations

#: Other languages' "this/last week|weekend|month|year": (this or last, the unit).
FOREIGN_THIS_LAST = {
    # German
    "letzte woche": ("last", "week"), "vorige woche": ("last", "week"), "vergangene woche": ("last", "week"),
    "diese woche": ("this", "week"), "letzten monat": ("last", "month"), "vorigen monat": ("last", "month"),
    "vergangenen monat": ("last", "month"), "diesen monat": ("this", "month"), "letztes jahr": ("last", "year"),
    "voriges jahr": ("last", "year"), "vergangenes jahr": ("last", "year"), "dieses jahr": ("this", "year"),
    "letztes wochenende": ("last", "weekend"), "dieses wochenende": ("this", "weekend"),
    # French
    "la semaine dernière": ("last", "week"), "la semaine passée": ("last", "week"), "cette semaine": ("this", "week"),
    "le mois dernier": ("last", "month"), "ce mois-ci": ("this", "month"), "l'année dernière": ("last", "year"),
    "l'an dernier": ("last", "year"), "cette année": ("this", "year"), "le week-end dernier": ("last", "weekend"),
    "ce week-end": ("this", "weekend"),
    # Spanish
    "la semana pasada": ("last", "week"), "esta semana": ("this", "week"), "el mes pasado": ("last", "month"),
    "este mes": ("this", "month"), "el año pasado": ("last", "year"), "este año": ("this", "year"),
    "el fin de semana pasado": ("last", "weekend"), "este fin de semana": ("this", "weekend"),
    # Japanese
    "先週末": ("last", "weekend"), "今週末": ("this", "weekend"), "先週": ("last", "week"), "今週": ("this", "week"),
    "先月": ("last", "month"), "今月": ("this", "month"), "去年": ("last", "year"), "昨年": ("last", "year"),
    "今年": ("this", "year"),
    # Portuguese
    "semana passada": ("last", "week"), "nesta semana": ("this", "week"),  # "esta semana": Spanish
    "mês passado": ("last", "month"), "este mês": ("this", "month"), "neste mês": ("this", "month"),
    "ano passado": ("last", "year"), "este ano": ("this", "year"), "neste ano": ("this", "year"),
    "fim de semana passado": ("last", "weekend"), "este fim de semana": ("this", "weekend"),
    "neste fim de semana": ("this", "weekend"),
    # Italian
    "settimana scorsa": ("last", "week"), "scorsa settimana": ("last", "week"), "questa settimana": ("this", "week"),
    "mese scorso": ("last", "month"), "scorso mese": ("last", "month"), "questo mese": ("this", "month"),
    "anno scorso": ("last", "year"), "scorso anno": ("last", "year"), "quest'anno": ("this", "year"),
    "fine settimana scorso": ("last", "weekend"), "scorso fine settimana": ("last", "weekend"),
    "questo fine settimana": ("this", "weekend"),
    # Dutch
    "vorige week": ("last", "week"), "afgelopen week": ("last", "week"), "deze week": ("this", "week"),
    "vorige maand": ("last", "month"), "afgelopen maand": ("last", "month"), "deze maand": ("this", "month"),
    "vorig jaar": ("last", "year"), "afgelopen jaar": ("last", "year"), "dit jaar": ("this", "year"),
    "vorig weekend": ("last", "weekend"), "afgelopen weekend": ("last", "weekend"), "dit weekend": ("this", "weekend"),
    # Korean
    "지난 주말": ("last", "weekend"), "이번 주말": ("this", "weekend"), "지난주말": ("last", "weekend"),
    "이번주말": ("this", "weekend"), "지난주": ("last", "week"), "지난 주": ("last", "week"), "이번 주": ("this", "week"),
    "이번주": ("this", "week"), "지난달": ("last", "month"), "지난 달": ("last", "month"), "이번 달": ("this", "month"),
    "이번달": ("this", "month"), "작년": ("last", "year"), "지난해": ("last", "year"), "올해": ("this", "year"),
    # Chinese (去年 and 今年 as in Japanese)
    "上周末": ("last", "weekend"), "上周": ("last", "week"), "上週": ("last", "week"), "上个星期": ("last", "week"),
    "上星期": ("last", "week"), "这周": ("this", "week"), "這週": ("this", "week"), "本周": ("this", "week"),
    "这个星期": ("this", "week"), "上个月": ("last", "month"), "上個月": ("last", "month"), "这个月": ("this", "month"),
    "這個月": ("this", "month"), "本月": ("this", "month"),
}
#: Other languages' days: how many days back. (French "hier" is left out: in German it is "here".)
FOREIGN_DAYS = {"heute": 0, "gestern": 1, "vorgestern": 2, "aujourd'hui": 0, "avant-hier": 2, "hoy": 0, "ayer": 1,
                "anteayer": 2, "antes de ayer": 2, "hoje": 0, "ontem": 1, "anteontem": 2, "oggi": 0, "ieri": 1,
                "l'altro ieri": 2, "altroieri": 2, "vandaag": 0, "gisteren": 1, "eergisteren": 2,
                "今日": 0, "昨日": 1, "一昨日": 2, "今天": 0, "昨天": 1, "前天": 2, "오늘": 0, "어제": 1, "그저께": 2, "그제": 2}
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
#: The words before a month that make it one ("im Oktober", "en octubre", "depuis mars"); "since" words
#: read from the month's start up to as_of.
FOREIGN_MONTH_LEADS = {"im": "", "in": "", "seit": "since", "en": "", "depuis": "since", "desde": "since",
                       "au mois de": "", "en el mes de": "", "el mes de": "", "em": "", "no mês de": "",
                       "a": "", "da": "since", "sinds": "since"}
#: Italian's leads take Italian months only ("a maggio", "da marzo"): before another language's month they
#: are English ("a Mars rover", "order a mai tai", "a Mayo Clinic visit") or slang.
ITALIAN_LEADS = frozenset({"a", "da"})
#: "in" leads a German or Dutch month ("in Mai", "in maart"); before another language's month it is English:
#: "in Mayo Clinic", "in Julio's team" (a Spanish month only follows "en"; French "en"; Portuguese "em").
IN_MONTHS = frozenset({"januar", "jänner", "februar", "märz", "maerz", "mai", "juni", "juli", "oktober", "dezember",
                       "april", "august", "september", "november", "januari", "februari", "maart", "mei", "augustus",
                       "december"})
ITALIAN_MONTHS = frozenset({"gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto",
                            "settembre", "ottobre", "novembre", "dicembre"})
FOREIGN_NUMBERS = {"ein": 1, "eine": 1, "einem": 1, "einer": 1, "zwei": 2, "drei": 3, "vier": 4, "fünf": 5,
                   "sechs": 6, "sieben": 7, "acht": 8, "neun": 9, "zehn": 10, "un": 1, "une": 1, "deux": 2,
                   "trois": 3, "quatre": 4, "cinq": 5, "six": 6, "sept": 7, "huit": 8, "neuf": 9, "dix": 10,
                   "uno": 1, "una": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7,
                   "ocho": 8, "nueve": 9, "diez": 10, "um": 1, "dois": 2, "duas": 2, "três": 3, "quatro": 4,
                   "sete": 7, "oito": 8, "nove": 9, "dez": 10, "due": 2, "tre": 3, "quattro": 4, "cinque": 5,
                   "sei": 6, "sette": 7, "otto": 8, "dieci": 10, "een": 1, "één": 1, "twee": 2, "drie": 3,
                   "vijf": 5, "zes": 6, "zeven": 7, "negen": 9, "tien": 10, "한": 1, "두": 2, "세": 3, "네": 4,
                   "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4,
                   "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
FOREIGN_UNITS = {
    "day": ("tag", "tage", "tagen", "jour", "jours", "día", "días", "dia", "dias", "giorno", "giorni", "dag", "dagen",
            "日", "天", "일"),
    "week": ("woche", "wochen", "semaine", "semaines", "semana", "semanas", "settimana", "settimane", "week",
             "weken", "週間", "週", "周", "星期", "个星期", "주", "주일"),
    "month": ("monat", "monate", "monaten", "mois", "mes", "meses", "mês", "mese", "mesi", "maand", "maanden",
              "ヶ月", "か月", "カ月", "ヵ月", "个月", "個月", "개월", "달"),
    "year": ("jahr", "jahre", "jahren", "an", "ans", "année", "années", "año", "años", "ano", "anos", "anno", "anni",
             "jaar", "jaren", "年", "년"),
}
FOREIGN_UNIT_OF = {word: unit for unit, words in FOREIGN_UNITS.items() for word in words}
