"""The other languages' time words as `timeq` reads them: its patterns for German, French, Spanish, Portuguese,
Italian, Dutch, Polish, Turkish, Japanese, Chinese and Korean (issue 29), compiled from the tables of `time_words`. `timeq`
resolves what they match, through the English phrases' helpers."""

from __future__ import annotations

import re

from .time_words import (CASED, CHINESE_NUMBERS, DAY_MONTH_LEADS, FOREIGN_DAYS, FOREIGN_MONTH_LEADS, FOREIGN_NEXT,
                         FOREIGN_NEXT_UNITS, FOREIGN_NUMBERS, FOREIGN_SEASONS, FOREIGN_THIS_LAST, FOREIGN_TOMORROW,
                         FOREIGN_UNIT_OF, IN_WORD_LANGUAGE, NEXT_WORD_LANGUAGE, NOT_A_DAY_AFTER, QUESTION_MONTHS,
                         QUESTION_WEEKDAYS, TURKISH_IN_MONTHS, TURKISH_MONTHS, TURKISH_NUMBERS, WEEKDAY_LEADS,
                         WEEKDAY_TRAILS, WEEKDAYS_BY_LANGUAGE)


def alternatives(words) -> str:
    """A regex alternation of `words` (longest first; spaces match any run of spaces)."""
    return "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in sorted(words, key=len, reverse=True))


def _capitals(word: str) -> set[str]:
    """`word` as written and with a capital first letter (Turkish "iki": "İki" too)."""
    return {word, word[:1].upper() + word[1:]} | ({"İ" + word[1:]} if word[:1] == "i" else set())


def either(words) -> str:
    """A regex alternation of `words` (`alternatives`), the Polish and Turkish ones (`time_words.CASED`) as written
    or capitalised, read without ignoring case (`(?-i:…)`: cheaper)."""
    words = list(words)
    plain = alternatives(w for w in words if w not in CASED)
    cased = alternatives({variant for w in words if w in CASED for variant in _capitals(w)})
    return "|".join(part for part in (plain, cased and f"(?-i:{cased})") if part)


def _latin(word: str) -> bool:
    """A word of a script written with spaces (Latin: "środę", "çarşamba", "übermorgen"), read as a whole word."""
    return word[:1] < "\u2e80"


#: French "-là" after a time ("ce dimanche-là", "cette semaine-là", "cet été-là"): that one, named before, no time of its
#: own (not this Sunday, this week).
_NOT_THAT = r"(?![-\u2010\u2011]l[àa](?!\w))"


def _words(words) -> re.Pattern:
    """One group matching any of `words`: whole words of Latin letters (not before "-là": `_NOT_THAT`), CJK words
    anywhere (no spaces)."""
    latin = [w for w in words if _latin(w)]
    cjk = [w for w in words if not _latin(w)]
    return re.compile(r"((?<!\w)(?:" + either(latin) + r")(?!\w)" + _NOT_THAT + "|" + alternatives(cjk) + ")",
                      re.IGNORECASE)


#: A count of units in one Chinese numeral ("三天前", "两周后"; `time_words.CHINESE_NUMBERS`).
_CHINESE_COUNT = "[" + "".join(CHINESE_NUMBERS) + "]"
_FOREIGN_NUMBER = r"(\d{1,3}|" + either(n for n in FOREIGN_NUMBERS if _latin(n)) + ")"
_LATIN_UNITS = [w for w in FOREIGN_UNIT_OF if _latin(w)]
#: Polish says "a week ago" and "in a week" without a number ("tydzień temu", "za miesiąc"): its singular units.
_POLISH_ONE = r"(?:tydzień|miesiąc|rok)\b"
#: A Turkish month said "in" ("mart ayında", "ekimde") or with its year ("ekim 2026"): read without a word before it.
_TURKISH_MONTH = (r"(?=(?:" + either(TURKISH_MONTHS) + r")(?:\s+ay(?:ında|ı)\b|,?\s+\d{4}\b)|(?:"
                  + either(TURKISH_IN_MONTHS) + r")\b)")
#: French says the number before "prochains" ("les trois prochains jours"), the other languages after.
_FRENCH_NUMBER = r"(\d{1,3}|une|un|deux|trois|quatre|cinq|six|sept|huit|neuf|dix)"
#: Korean "ago": 전 as a word of its own, alone or with a particle ("3일 전", "3일 전에", "2주 전쯤"), not
#: the first syllable of another word ("5일 전화": the call on the 5th, "1년 전체": the whole year).
_KOREAN_AGO = r"전(?![\uac00-\ud7a3])|전(?=에|엔|부터|까지|쯤|의|인|만|도|이었|이야)"
#: A Korean word is one when no syllable but a particle follows ("다음 주에", "내일은"; "다음 주소" is the next address).
_KOREAN_WORD_END = r"(?=[^\uac00-\ud7a3]|$|에|엔|은|는|의|까지|부터|도|쯤|내|중)"
#: The Chinese words for last, next and this week that a day's number follows ("上周三", "下周五"; not "上周一起").
CHINESE_WEEK_LEADS = tuple(w for w, said in WEEKDAY_LEADS.items() if "week" in said and w[:1] in "上下这這本")
CHINESE_DAY_NUMBERS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
#: What follows a day of the week that makes it one day of a week, no habit: "le mardi de la semaine prochaine",
#: "il lunedì della settimana scorsa" (`timeq`).
OF_A_WEEK = re.compile(r"\s+(?:de\s+la|della|de|del)\s+(?:[^\W\d_]+\s+)?(?:semaine|settimana|semana)\b", re.I)
_NOT_A_DAY = "(?!" + alternatives(NOT_A_DAY_AFTER) + r"|天(?![气氣]))"  # "下周三天假", not "下周三天气"
#: A number before 周 counts weeks ("两周一次"), unless it ends another day ("周一周二": Monday, Tuesday).
_NO_COUNT = r"(?<!(?<![周期])[一二两兩三四五六七八九十几幾\d])"
#: A count after "1日に", "3日に", "1일에" makes the day a rate, no day of the month: "1日に何回", "3日に一度", "1일에 몇 번".
_JA_COUNT = r"\s*[\d一二三四五六七八九十百数何]+\s*(?:回|度|杯|時間|分|個|本|枚|人|件|錠|食|歩|冊|キロ|km|ページ)"
_KO_COUNT = r"\s*(?:\d+|한|두|세|네|몇)\s*(?:번|회|잔|시간|분|개|명|건|끼|알|병|권|장|킬로|km)"
_CJK_END = r"\s*(?:[?？。.!！,，、]|$)"
#: The Chinese numerals of a day's number ("二十九号", `chinese_number`): the digits one to nine (not 两, "two of"),
#: ten, and 廿, 卅 (twenty, thirty: "廿九号").
_CHINESE_DIGITS = {w: n for w, n in CHINESE_NUMBERS.items() if n < 10 and w not in "两兩"}
_CHINESE_TENS = {"十": 1, "廿": 2, "卅": 3}
_DAY_NUMBER = r"(?:\d{1,2}|[" + "".join(_CHINESE_DIGITS) + "".join(_CHINESE_TENS) + "]{1,3})"
CJK_DAY_NUMBER = _DAY_NUMBER  # (`mentions` reads a passage's dates by it too)
#: Before a month or day in Chinese numerals: not within a longer number ("二十二月", "百二十号").
_NOT_IN_A_NUMBER = r"(?<![" + "".join(_CHINESE_DIGITS) + "".join(_CHINESE_TENS) + "两兩百千万萬零〇几幾第])"
#: After a month alone in Chinese numerals ("十二月的会议", "十一月做了什么", "三月份", "十二月に何をした"), what makes it the
#: month: a word of the month's ("的", "份", "底", "上旬"), a particle, another month joined ("十一月到十二月"), a word of
#: what is done then, the end; not a count ("一月一次", "一月に一回": once a month), nor "前", "后" ("一月后": a month on).
_MONTH_ALONE = (r"(?:的|份|里|裡|初|底|末|中|上旬|下旬|[とや和跟与與或到至〜~～]|に(?!" + _JA_COUNT + r")|は|の|まで|から|頃|"
                r"ごろ|有(?![几幾多])|要|会|能|还|還|就|都|也|去|来|來|做|干|幹|开|開|我|你|您|他|她|咱|大家|发生|發生|"
                + _CJK_END + ")")
#: A month's number in Chinese numerals, not within a longer number ("二十二月") nor a word holding 一 ("同一月").
CHINESE_MONTH = _NOT_IN_A_NUMBER + r"(?<![同统統唯单單])[" + "".join(_CHINESE_DIGITS) + r"十]{1,2}"
#: A month's number in a date ("12月", "十二月"; `cjk_number`): in Chinese numerals with its day after it ("十二月二十九号",
#: "三月三日") or before what makes it the month (`_MONTH_ALONE`).
_MONTH_NUMBER = (r"(?:\d{1,2}|" + CHINESE_MONTH + r"(?=\s*月\s*(?:" + _DAY_NUMBER + r"\s*[日号號]|" + _MONTH_ALONE + ")))")


def cjk_number(said: str) -> int:
    """The number of a date's month or day in digits or Chinese numerals ("12", "十二", "二十九"); 0 for none."""
    return int(said) if said.isdigit() else chinese_number(said) or 0


def chinese_number(said: str) -> int | None:
    """The value of a number below 100 in Chinese numerals: "九" 9, "十" 10, "十五" 15, "二十九" 29, "三十一" 31, "廿九" 29;
    None for one that is none ("一二", "十十", "两十")."""
    if said in _CHINESE_DIGITS:
        return _CHINESE_DIGITS[said]
    at = next((i for i, c in enumerate(said) if c in _CHINESE_TENS), None)
    if at is None:
        return None
    head, tens_word, tail = said[:at], said[at], said[at + 1:]
    tens = _CHINESE_TENS[tens_word] if not head else _CHINESE_DIGITS.get(head) if tens_word == "十" else None
    units = _CHINESE_DIGITS.get(tail) if tail else 0
    return None if tens is None or units is None else tens * 10 + units


#: A day of the week after a day of the month, in brackets ("29日(月)", "29일(월)", "29号（周一）") or said whole ("29日
#: 月曜日", "29일 일요일", "29号周一"; not "29号周一起"): which (Monday 0).
CJK_BRACKET_WEEKDAYS = {names[n][0]: n for language in ("Japanese", "Korean")
                        for names in [WEEKDAYS_BY_LANGUAGE[language]] for n in range(7)} | CHINESE_DAY_NUMBERS
_BRACKET = (r"\s*(?:(?P<open>[(（])|(?=(?:周|週|星期|礼拜|禮拜)[一二三四五六日天]" + _NOT_A_DAY + r"|[月火水木金土日]曜|"
            r"[월화수목금토일]요일))(?:周|週|星期|礼拜|禮拜)?(?P<weekday>[" + "".join(CJK_BRACKET_WEEKDAYS)
            + r"])(?:曜日|曜|요일)?(?(open)[)）])")
#: Before a day of the week after a day of the month ("29号（周一）", "29日(月曜日)", "29일 월요일"): it is read with the
#: day ("cjk_nth_day"), not alone as "foreign_weekday".
_AFTER_A_DAY = (r"(?<![日号號일][(（])(?<![日号號일]\s[(（])(?<![\d一二三四五六七八九十廿卅][日号號일])"
                r"(?<![\d一二三四五六七八九十廿卅][日号號일]\s)")
_BRACKET_AFTER = _BRACKET.replace("?P<weekday>", "")
#: "之间" (between) after a day: read only after two ("二十九号到三十号之间", "29号和30号之间"; `CJK_BETWEEN_BEFORE`
#: just before the second), never after one ("一日之间": within a day, "三日之间").
CJK_BETWEEN = re.compile(r"\s*(?:之间|之間)")
CJK_BETWEEN_BEFORE = re.compile(r"[日号號]\s*(?:和|跟|与|與|或)\s*$")
#: What follows a day of the month said without its month ("29日に", "29号", "29일에": `periods.cjk_nth_day_window`)
#: for it to be one, by the question's language: a particle, a time of the day, a word saying what is done then, or the
#: question's end. Not a count of days ("29日間", "3日で", "3日目", "29일간", "3일 동안"), an issue, a line or a room
#: ("3号线", "3号楼", "3号会议室", "3号是谁"), a rate ("1日に3回", "1일에 몇 번") nor a daily amount ("1일 권장량").
#: A day of the week in brackets ("29日(月)") says it is a day too.
CJK_DAY_AFTER = {
    "Japanese": re.compile(r"に(?!" + _JA_COUNT + r"|\s*(?:わた|渡))|は(?!かか)|の|まで|から|頃|ごろ|ころ|午前|午後|朝|昼|"
                           r"夜|夕方|晩|\s*\d{1,2}\s*時(?!間)|[とや](?=\s*\d{1,2}\s*日)|" + _BRACKET_AFTER + "|" + _CJK_END),
    "Chinese": re.compile(r"的|那天|当天|當天|这天|這天|上午|下午|晚上|早上|中午|傍晚|凌晨|左右|开会|開會|开始|開始|见|見|"
                          r"出发|出發|到期|截止|要|有(?![几幾多])|会(?![议議员員所馆館场場客计計长長])|能|可以|还|還|就|都|"
                          r"也|去|来|來|回|交|做|干(?=[了什嘛啥吗嗎])|幹(?=[了什嘛啥嗎])|(?<=[号號])(?:之前|以前|之后|之後|以后|以後)|"
                          r"我|你|您|他|她|咱|大家|谁|誰|发生|發生|\s*\d{1,2}\s*[点點时時](?![间間])|"
                          r"(?:和|跟|与|與|或)(?=\s*" + _DAY_NUMBER + r"\s*[日号號])|" + _BRACKET_AFTER + "|"
                          + _CJK_END),
    "Korean": re.compile(r"에(?!" + _KO_COUNT + r"|\s*걸[쳐친쳤치])|엔|까지|부터|쯤|경|날(?![짜씨])|\s*(?:오전|오후|저녁|아침|"
                         r"새벽|점심|밤(?!낮))|\s*\d{1,2}\s*시(?!간)|(?:과|와|하고|이랑|랑)(?=\s*\d{1,2}\s*일)|" + _BRACKET_AFTER
                         + "|" + _CJK_END),
}
#: The words a day of the month is said with in each language: "29日" (Japanese), "29号", "29日" (Chinese), "29일".
CJK_DAY_SUFFIXES = {"Japanese": "日", "Chinese": "日号號", "Korean": "일"}
#: After a Korean day other than "1일" (a day as often as the 1st: "1일은 24시간"; before a word, `KOREAN_PER_DAY`), more
#: that makes it one (`periods.cjk_nth_day_window`): a particle ("29일은", "29일도", "29일의", "29일로", "29일이 무슨
#: 요일", "29일이야", "29일자") or another word after a space ("29일 회의", "29일 뭐 해?"), but not a word saying the days
#: are counted or spent: "3일은 걸려", "3일도 안 걸려", "3일로 줄였어", "3일 만에", "3일 정도", "3일 연속", "3일 내내",
#: "3일 이상", "3일 안에", "3일 걸렸어", "3일 남았어", "3일 쉬었어", "3일 기다렸어", "3일 더", "30일 무료 체험",
#: "3일 소요돼" (it takes), "3일 필요해", "3일 밤낮으로", "3일 연기했어" (put off by three days) (`_KO_SPENT`; "소요" and
#: "필요" as verbs or at the end: "29일 소요 예산" is the 29th's).
#: Of those, the verbs of spending days ("3일 쉬었어", "3일 놀았어": `KOREAN_SPENDING`), said of a count up to
#: `CJK_COUNT_MAX`: "29일 쉬어?" is off on the 29th.
_KO_SPENDING = r"쉬|일했|일해|일하|머물|머무|묵었|묵어|보냈|보내|지냈|지내|잤|굶|앓|아팠|아파|기다|놀았|놀아(?![가-힣])|놀고|놀면"
_KO_SPENT = (r"동안|만에|밤낮|소요(?=[되돼됐될됩된]|\s*(?:[?？.。!！]|$))|필요(?=[해했하합]|\s*(?:[?？.。!！]|$))|"
             r"만(?![가-힣])|간(?![가-힣])|째|내내|내(?![가-힣])|내로|내에|안에|안으로|연속|이상|이하|이내|"
             r"미만|정도|넘게|넘는|넘어|넘었|가량|이후|이전|뒤|후|전(?![화체])|씩|마다|치(?![가-힣])|짜리|밖에|만큼|"
             r"더(?![가-힣])|꼬박|내리|걸려|걸렸|걸린|걸리|걸쳐|걸친|남았|남아|남은|지나|지났|지난|" + _KO_SPENDING + "|"
             r"연장|늦어|늦었|늦춰|늦췄|미뤄|미뤘|당겨|당겼|연기(?=[했해됐돼된할하])|"
             r"무료|체험|챌린지|환불|보장|유효|한정|기준|단위|평균|이용권|패스")
KOREAN_SPENDING = re.compile(r"\s*(?:도\s*)?(?:" + _KO_SPENDING + ")")
#: A Korean copula after a day ("29일이야?", "29일인가"): a day, but after a thing that lasts ("휴가가 3일이야?": the
#: holiday is three days, `KOREAN_LASTS_BEFORE`) a count up to `CJK_COUNT_MAX`.
_KO_COPULA = r"이(?:야|지|에요|었|였|죠|잖|니|냐|래|던)|인(?:데|가|지|거)|입니"
KOREAN_COPULA = re.compile(_KO_COPULA)
#: "차" after a day and a space: the day's number counts the days of something ("3일 차에": on its third day; "100일
#: 차"), as "3일째" does, or their difference ("3일 차이"); no day of the month.
_KO_NTH = r"차(?=[에엔는은도의야이인였가]|\s|[?？.。!！,]|$)"
KOREAN_DAY_AFTER = re.compile(
    r"은(?!\s*(?:" + _KO_SPENT + r"|있어야|필요|족히|최소|적어도))|도(?!\s*(?:안\s*)?(?:" + _KO_SPENT + "))|의|"
    r"로(?!\s*(?:줄|늘|연장|단축))|" + _KO_COPULA + "|"
    r"이(?=\s*(?:뭐|무슨|언제|몇|어떤|어느|맞|아니))|자(?![가-힣])|\s+(?!" + _KO_SPENT + "|" + _KO_NTH + r")(?=[가-힣])")
#: After "1일" and a space, a word that makes it "per day" ("1일 한도", "1일 권장량", "1일 한 번"; `_KO_SPENT`: "1일 체험"):
#: before any other word it is the 1st ("1일 회의 어땠어?", `periods._day_follows`).
KOREAN_PER_DAY = re.compile(r"\s+(?:" + _KO_SPENT + "|" + _KO_NTH + "|" + _KO_COUNT.removeprefix(r"\s*")
                            + r"|한도|권장|섭취|최대|최소|사용량|소비량|판매량|생산량|매출|방문|제한|요금|이용료|입장|칼로리|"
                            r"용량|복용|급여|목표|횟수|한\s*끼|\d)")
KOREAN_WORD_AFTER = re.compile(r"\s+(?=[가-힣])")
#: After "1일에", what makes it one day, not the 1st: "1일에 다 했어" (all done in a day), "1일에 끝냈어"; not "다 같이"
#: (all together), "다들" (everyone), "다음" (next).
KOREAN_ONE_DAY = re.compile(r"에\s*(?:다(?!\s*같이|같이|들|음)|끝|모두|전부|몽땅|한꺼번에|한\s*번에)")
#: The most days a trip, a stay or a holiday said "3日の旅行", "3일 휴가" is taken to last (`CJK_DAY_COUNTED`):
#: a longer one is said in weeks, so "29日の旅行" is the trip on the 29th.
CJK_COUNT_MAX = 14
#: Counts above it said of a long stay in days as often as a day is ("15日の旅行", "20일 휴가", "30日の休み": half a month,
#: twenty days, a month), read as counts too; "29日の旅行" is the trip on the 29th.
CJK_ROUND_COUNTS = frozenset({15, 20, 30})
_KO_LASTING = (r"여행|휴가|출장|입원|연휴|캠프|코스|과정|교육|연수|체류|단식|기간|일정|투어|워크숍|합숙|방학|병가|휴무|여정|"
               r"휴식|금식|격리|훈련|숙박|알바|아르바이트|공사|축제|파업|세일")
#: A thing that lasts, said before a Korean day and its copula ("휴가가 3일이야?", "여행은 3일인가"): a count.
KOREAN_LASTS_BEFORE = re.compile(r"(?:" + _KO_LASTING + r")(?:이|가|은|는|도)?\s*(?:총|전부|모두|딱|한)?\s*$")
#: After a day's number, a thing that lasts some days: "3日の旅行" (a trip of three days, as often as the trip on the
#: 3rd), "3日の休み", "3일 휴가", "3일의 여행", read as a count up to `CJK_COUNT_MAX` (a day read wrongly weighs every
#: memory not from it down; a count unread only leaves the question's words to search).
CJK_DAY_COUNTED = {
    "Japanese": re.compile(r"の\s*(?:旅行|旅|休み|休暇|出張|入院|滞在|研修|合宿|連休|期間|間|猶予|日程|ツアー|コース|講習|講座|"
                           r"遠征|帰省|キャンプ|断食|療養|隔離|有給|宿泊|セミナー|ワークショップ)"),
    "Korean": re.compile(r"(?:의)?\s*(?:" + _KO_LASTING + ")"),
}
#: Words saying a thing was moved to a day ("29일로 미뤘어?", "29日に延期した？", "推迟到29号了吗？"): after the day in Japanese
#: and Korean, before it in Chinese. The day is the coming one, whatever the tense (`periods.cjk_nth_day_window`).
CJK_MOVED_TO = {
    "Japanese": re.compile(r"[にへ]\s*(?:延期|変更|移動|ずら|ずれ|延び|延ば|繰り下|繰り上|繰下|繰上|前倒し|リスケ)"),
    "Korean": re.compile(r"(?:으)?로\s*(?:다시\s*)?(?:미뤄|미뤘|미루|미룬|연기|옮겨|옮겼|옮기|옮긴|바꿔|바꿨|바꾸|바꾼|바뀌|바뀐|"
                         r"바뀠|변경|늦춰|늦췄|늦추|늦춘|당겨|당겼|당기|당긴|앞당|조정|잡혔|잡았|잡아|정했|정해|정한|예약)"),
}
CHINESE_MOVED_BEFORE = re.compile(r"(?:推迟|推遲|推|延期|延迟|延遲|延后|延後|延|改|挪|提前|调|調)(?:到|至|在)\s*$")
#: The words between the two days of a range ("29日から30日まで", "29号到30号", "29일부터 30일까지"); a mark ("29日〜30日",
#: "29〜30日", "29~30일") in every language (`periods.cjk_nth_day_window`).
CJK_DAY_RANGE_WORDS = {"Japanese": ("から",), "Chinese": ("到", "至"), "Korean": ("부터",)}
CJK_DAY_RANGE_MARKS = "〜~～-–—"
#: Two days listed before one day's word ("29、30日", "29，30号", "29, 30일"; not "29日、30日", two days said whole): a
#: range from the first to the second to `periods.cjk_nth_day_window` ("2、3日" as "2〜3日": two or three days).
CJK_DAY_LIST_MARKS = "、，,"
_DAY_JOIN = (r"(?:\s*(?:[" + re.escape(CJK_DAY_RANGE_MARKS) + r"]|"
             + alternatives(w for words in CJK_DAY_RANGE_WORDS.values() for w in words) + r")\s*|(?<=[\d"
             + "".join(_CHINESE_DIGITS) + "".join(_CHINESE_TENS) + "])[" + CJK_DAY_LIST_MARKS + r"]\s*)")
_DAY_WORD = "[" + "".join(sorted(set("".join(CJK_DAY_SUFFIXES.values())))) + "]"
FOREIGN_PATTERNS = {
    # A day of the week, in a question (`timeq`): a word before it ("letzten Dienstag", "el próximo martes",
    # "先週の金曜日", "다음 주 수요일") or after it ("mardi dernier", "el martes que viene"), or none. Groups: the
    # word before, the day, the word after (Latin letters); the week, the day (CJK); the week, the day's number.
    "foreign_weekday": re.compile(
        r"(?:\b(" + either(w for w in WEEKDAY_LEADS if _latin(w)) + r")\s+)?\b("
        + either(w for w in QUESTION_WEEKDAYS if _latin(w)) + r")\b" + _NOT_THAT + r"(?:\s+(" + either(WEEKDAY_TRAILS)
        + r")\b)?|(?:(" + alternatives(w for w in WEEKDAY_LEADS if not _latin(w)) + r")\s*)?" + _NO_COUNT + _AFTER_A_DAY + "("
        + alternatives(w for w in QUESTION_WEEKDAYS if not _latin(w)) + ")" + _NOT_A_DAY + "|("
        + alternatives(CHINESE_WEEK_LEADS) + r")([一二三四五六日天])" + _NOT_A_DAY, re.IGNORECASE),
    "foreign_ago": re.compile(
        r"\b(?:vor|il\s+y\s+a|hace|há)\s+" + _FOREIGN_NUMBER + r"\s+(" + alternatives(_LATIN_UNITS) + r")\b"
        + r"|\b" + _FOREIGN_NUMBER + r"\s+(" + alternatives(_LATIN_UNITS) + r")\s+(?:fa|geleden|temu|önce)\b"
        + r"|(\d{1,3}|" + _CHINESE_COUNT + r"|[한두세네](?=\s*[달주]))\s*("
        + alternatives(w for w in FOREIGN_UNIT_OF if not _latin(w)) + r")\s*(?:前|" + _KOREAN_AGO + ")"
        # Polish "tydzień temu" (a week ago: no number, group 7 empty)
        + r"|\b()(?-i:(" + alternatives(w for one in ("tydzień", "miesiąc", "rok") for w in _capitals(one))
        + r"))\s+temu\b",
        re.IGNORECASE),
    "foreign_this_last": _words(FOREIGN_THIS_LAST),
    "foreign_season": _words(FOREIGN_SEASONS),  # "letzten Sommer", "l'été dernier", "去年の夏", "지난 여름"
    "foreign_day": _words(FOREIGN_DAYS),
    "foreign_ahead": re.compile(_words(FOREIGN_NEXT).pattern + _KOREAN_WORD_END, re.IGNORECASE),
    # (a number: French) next (a number) units; CJK: next, a number, a unit. Groups: 1-4 and 5-7.
    "foreign_next_n": re.compile(
        r"\b(?:" + _FRENCH_NUMBER + r"\s+)?(" + alternatives(w for w in NEXT_WORD_LANGUAGE if _latin(w)) + r")\s+(?:"
        + _FOREIGN_NUMBER + r"\s+)?(" + alternatives(FOREIGN_NEXT_UNITS) + r")\b|("
        + alternatives(w for w in NEXT_WORD_LANGUAGE if not _latin(w)) + r")\s*(\d{1,3}|" + _CHINESE_COUNT + r"|[한두세네])"
        + r"\s*(" + alternatives(w for w in FOREIGN_UNIT_OF if not _latin(w)) + ")", re.IGNORECASE),
    "foreign_tomorrow": re.compile(_words(FOREIGN_TOMORROW).pattern + _KOREAN_WORD_END, re.IGNORECASE),
    # in (a number) units ("in zwei Wochen"); CJK: a number, a unit, after ("2週間後", "两周后", "2주 후"). Groups
    # 1-3 and 4-5.
    "foreign_in_n": re.compile(
        r"\b(" + alternatives(IN_WORD_LANGUAGE) + r")\s+(?:(?:etwa|ungefähr|circa|environ|unos|unas|cerca\s+de|"
        r"ongeveer|około|jakieś)\s+)?(?:" + _FOREIGN_NUMBER + r"\s+|(?<=\bza\s)(?=" + _POLISH_ONE + "))("
        + alternatives(_LATIN_UNITS) + r")\b|(?<![\d月월年년])(\d{1,3}|" + _CHINESE_COUNT + r"|[한두세네]|일(?=주일))\s*("
        + alternatives(w for w in FOREIGN_UNIT_OF if not _latin(w)) + r")\s*(?:以後|以后|之後|之后|後|后|후|뒤)"
        + _KOREAN_WORD_END + r"|\b(\d{1,3}|" + either(TURKISH_NUMBERS) + r")\s+(" + alternatives(_LATIN_UNITS)
        + r")\s+sonra\b",
        re.IGNORECASE),  # Turkish "iki hafta sonra" (groups 6-7)
    # A day and month ("am 15. Dezember", "le 3 mars", "el 15 de diciembre", "il 2 maggio", "1er avril"; a year
    # may follow). Groups: the word before, the day, what follows it, "de"/"di", the month, the year.
    "foreign_day_month": re.compile(
        r"(?:\b(" + alternatives(DAY_MONTH_LEADS) + r")\s+)?\b(\d{1,2})(\.|er|º|°)?\s+(de\s+|di\s+)?("
        + either(QUESTION_MONTHS) + r")\b(?!['\u2019]s\b)(?:,?\s+(?:de\s+)?(\d{4})\b)?", re.IGNORECASE),
    # A day of the month without its month ("29日", "29号", "二十九号", "29일"): its number ("day"), its word ("word",
    # `CJK_DAY_SUFFIXES`), a day of the week in brackets ("weekday": "29日(月)"), and a range's other end ("29日から30日",
    # "29〜30日", "29日〜30日(火)": "join", "until", "until_word", "until_bracket" with "until_weekday"); not within a
    # longer number ("129日", "百二十号").
    "cjk_nth_day": re.compile(
        r"(?<![\dA-Za-z第/.\-:" + "".join(_CHINESE_DIGITS) + "".join(_CHINESE_TENS) + "两兩百千万萬零〇几幾])(?P<day>"
        + _DAY_NUMBER + ")(?=" + _DAY_WORD + "|" + _DAY_JOIN + _DAY_NUMBER + _DAY_WORD + ")(?P<word>" + _DAY_WORD
        + ")?(?P<bracket>(?<=" + _DAY_WORD + ")" + _BRACKET + ")?(?:(?P<join>" + _DAY_JOIN + ")(?P<until>" + _DAY_NUMBER
        + ")(?P<until_word>" + _DAY_WORD + ")(?P<until_bracket>" + _BRACKET.replace("?P<weekday>", "?P<until_weekday>")
        .replace("?P<open>", "?P<until_open>").replace("(?(open)", "(?(until_open)") + ")?)?"),
    # A year, month and day ("2025年10月3日", "2025年十二月二十九日"; `cjk_number`) and a month and day ("10月3日",
    # "十二月二十九号", "10월 3일"; a month alone: "10月", "十月の", `_MONTH_ALONE`), a day of the week after the day in
    # their phrase ("12月29日 月曜日", "12月29日(月)": the date says which day).
    "cjk_ymd": re.compile(r"(\d{4})\s*[年년](?:\s*(\d{1,2}|[" + "".join(_CHINESE_DIGITS) + r"十]{1,2})\s*[月월](?:\s*("
                          + _DAY_NUMBER + r")\s*[日号號일](?:" + _BRACKET_AFTER + ")?)?)?"),
    "cjk_md": re.compile(r"(?<![\d年년])(" + _MONTH_NUMBER + r")\s*[月월](?:\s*(" + _DAY_NUMBER + r")\s*[日号號일](?:"
                         + _BRACKET_AFTER + ")?)?"),
    # A month word with an English possessive is a name ("in Mei's office", "in Julio's house"). A Turkish one needs
    # no word before it (`_TURKISH_MONTH`).
    "foreign_month": re.compile(r"\b(?:(" + alternatives(w for w in FOREIGN_MONTH_LEADS if w) + r")\s+|"
                                + _TURKISH_MONTH + ")(" + either(QUESTION_MONTHS)
                                + r")\b(?:\s+ay(?:ında|ı)\b)?(?!['\u2019]s\b)(?:,?\s+(\d{4})\b)?", re.IGNORECASE),
}
