"""What a question asks for, when it is a thing a passage visibly holds or lacks: a phone or account number, a
time of day, the day of a birthday or a birth, the weather.

"What's Marta's phone number?" over a memory with notes on Marta but no number in them finds those notes by
meaning and by words, and neither tells that the number is not there. A passage that answers it holds digits
in a run; one that answers "What time is the call?" holds a time of day. The search reads the kind asked
(`asked`) and, when none of its best passages holds one (`Kind.held`), says "no good match" and why
(`search.searcher`, docs/evaluation.md "What the question asks for"). Read in every language the question
reader tells (English, German, French, Spanish, Portuguese, Italian, Dutch, Polish, Turkish, Japanese, Chinese, Korean): the
patterns are few and tried on the question's text alone, so all are tried.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from ..when import mentions
from ..reorder import reorder
from ..when.time_words import CHINESE_NUMBERS
from ..transcripts import without_context

#: How many of the best passages are read for the kind asked: one holding it answers.
READ = 5
#: How many of the best passages are weighed by it (`weigh`), and what one lacking it is weighed by: a passage
#: holding the kind asked is likelier the answer than one as close that lacks it ("What time does the coach
#: leave?": the note with "8:15" above the one on the offsite's agenda). Chosen on the everyday sets' dev half
#: (0.5-0.9; 10, 20 and 30 passages ranked the same): the least weight that found the most
#: (docs/evaluation.md, "A passage holding what is asked").
CANDIDATES, LACKING = 10, 0.7


@dataclass(frozen=True)
class Kind:
    name: str  # what the explanation says is asked for: "a phone or account number"
    question: re.Pattern
    passages: tuple[re.Pattern | _Unless, ...]  # one holding any of them holds it: each read alone, see `_DIGIT_DAY`
    dates: bool = False  # a day `mentions.days` reads holds it too
    not_dates: bool = False  # a day written in digits is none ("2027-02-03" is no phone number)

    def held(self, text: str, today: date) -> bool:
        """Whether `text` holds something of this kind."""
        read = _DIGIT_DAY.sub(" ", text) if self.not_dates and _DATE_LIKE.search(text) else text
        if any(pattern.search(read) for pattern in self.passages):
            return True
        return self.dates and bool(mentions.days(text, None, today))


def _words(*patterns: str) -> re.Pattern:
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.I)


def _unless_opening(words: str, pattern: re.Pattern) -> re.Pattern:
    """`pattern`, in a question not opening with one of `words`."""
    return re.compile(rf"^(?!\W*(?:{words})\b)[\s\S]*?(?:{pattern.pattern})", re.I)


# a day in digits, not one inside a longer run of groups with its separator: "06.12.34.56.78" (a French phone
# number) holds the shape of one. Read from its first digit, what is before it checked once that is read
# ("\d(?<=\b\d)" is "\b\d", "\d(?<!\d\.\d)" is "(?<!\d\.)\d"): sre tries a pattern opening with a character set
# only where one of its characters is, one opening with "\b", a look-behind or a word ignoring case at every
# character (this one took 0.3 ms on a note of 1,000 characters). The kinds' passage patterns are written so
# too, each read alone, those opening with a word last (`Kind.passages`).
_DIGIT_DAY = re.compile(r"\d(?<=\b\d)(?:\d{3}-\d{1,2}-\d{1,2}\b(?!-\d)|(?<!\d\.\d)\d?\.\d{1,2}\.\d{2,4}\b(?!\.\d)|"
                        # a day and month without a year, each closed by its dot ("bis 14.12.", "21.12.–02.01."): not
                        # 10:10 or 14:12, nor after "at" ("We meet at 10.10.": a time)
                        r"(?<!\d\.\d)(?<!\b[Aa][Tt]\s\d)\d?\.(?:0[1-9]|1[0-2])\.(?!\d)|"
                        r"(?<!\d/\d)\d?/\d{1,2}/\d{2,4}\b(?!/\d)|\d{3}/\d{1,2}/\d{1,2}\b(?!/\d))")
_DATE_LIKE = re.compile(r"\d[-./]\d")  # what every `_DIGIT_DAY` holds: a text without it has no such day to take out
_NUMBER_NAMED = r"(?:phone|mobile|cell|telephone|landline|fax|account)\s+(?:number|no\.?|#)"
_AFTER_BIRTHDAY = (r"(?!\s*(?:party|parties|lunch|dinner|present|presents|gift|gifts|cake|celebration|drinks|trip|card|plans?|"
                   r"celebrations|brunch|breakfast|bash|surprise|picnic|barbecue|bbq|weekend|dinners|cakes|cards)\b)")
_CJK_NUMERAL = "".join(CHINESE_NUMBERS)  # "一二两兩三…十"
_WHY_WHO_WHEN = (r"why|who|whom|when|where|how|warum|wieso|weshalb|wer|wen|wem|wann|wo|pourquoi|qui|quand|où|comment|"
                 r"por\s*qu[ée]|porque|qui[ée]n(?:es)?|cu[áa]ndo|d[óo]nde|c[óo]mo|quem|quando|onde|perch[ée]|chi|dove|"
                 r"come|waarom|wanneer|waar|hoe|dlaczego|czemu|kto|kiedy|gdzie|jak|neden|niye|niçin|nerede|nasıl")
# what follows an amount or a measure, not a time of day: a share, a degree, a currency, a unit
_MEASURE = (r"%|°|[$€£¥]|(?:min|minutes?|minuten|km|kg|cm|mm|m|mg|ml|mph|mi|miles?|lbs?|percent|prozent|"
            r"pour\s*cent|por\s*ciento|euros?|eur|usd|dollars?|pounds?|gbp|chf|stars?)\b")
_ENGLISH_HOUR = r"(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"  # not "one": "at one point"
_GERMAN_HOUR = r"(?:eins|zwei|drei|vier|fünf|sechs|sieben|acht|neun|zehn|elf|zwölf)"

# What a number shaped as a time of day is not, read on what is round it (`_Unless`): a version after a program's
# name or "version" ("upgraded to Python 3.12", "Node 18.04") or with a part after it ("v2.10.1"), a number glued to
# a word ("v2.10", "Python3.12", but "2026-12-06T10:30" is one), a signed one ("-2.75"), one of a list of numbers
# written without spaces ("8.00,26.00"), seconds ("1.44s"); a verse ("John 3:16"), whose book is as often a name
# ("Lunch with John 12:30"): so only a verse off the five minutes most times are on
_PROGRAMS = (r"version|versions|ver|release|rel|build|python|node|nodejs|node\.js|npm|ubuntu|debian|fedora|ios|ipados|"
             r"macos|android|windows|java|jdk|php|ruby|rails|django|flask|go|golang|rust|kotlin|swift|perl|lua|postgres|"
             r"postgresql|mysql|redis|kernel|linux|chrome|firefox|safari|react|vue|angular|typescript|gcc|clang|llvm|"
             r"cuda|numpy|pandas|torch|pytorch|tensorflow|qt|gtk|gnome|kde|sdk|firmware|v")
_BOOKS = (r"genesis|exodus|leviticus|deuteronomy|joshua|judges|ruth|samuel|chronicles|ezra|nehemiah|esther|psalms?|"
          r"proverbs|ecclesiastes|isaiah|jeremiah|lamentations|ezekiel|daniel|hosea|joel|amos|obadiah|jonah|micah|nahum|"
          r"habakkuk|zephaniah|haggai|zechariah|malachi|matthew|mark|luke|john|romans|corinthians|galatians|ephesians|"
          r"philippians|colossians|thessalonians|timothy|titus|philemon|hebrews|james|peter|jude|revelation|johannes|"
          r"matthäus|markus|lukas|römer|mose|offenbarung|jesaja|sprüche|korinther")
# a program's name and the versions after it ("Python 3.11 and 3.12"), a word's last letter, a sign, a number and its comma
_VERSION_BEFORE = re.compile(rf"(?:\b(?:{_PROGRAMS})\.?\s?(?:(?:install|use|pin|upgrade|update)\s)?"
                             r"(?:\d+(?:\.\d+)*\s*(?:,|/|&|and|or|und|oder|to|bis)?\s)*|"
                             r"(?<!\d)[a-z]|(?:^|[^\w.,])[-+−±]|\d,)$", re.I)
_VERSION_AFTER = re.compile(r"[.:,]\d|s\b(?!['’])", re.I)
_VERSE_BEFORE = re.compile(rf"\b(?:{_BOOKS})\s$", re.I)
# a measure or a ratio ("line height 1.25", "line-height: 1.25", "aspect ratio 16:10", "scale 1:25") or a score
# ("won 3:10", "lost 2:15", "Endstand 3:10") said right before it
_MEASURE_OR_SCORE_BEFORE = re.compile(
    r"\b(?:height|width|size|spacing|ratio|scale|factor|multiplier|zoom|opacity|weight|coefficient|gpa|"
    r"won|lost|beat|beaten|drew|drawn|tied|scored?|final\s+score|endstand|gewonnen|verloren|gewann|verlor|"
    r"unentschieden)\s?[:=]?\s?$", re.I)
# a score said a few words before it ("won the match 3:10", "beat Hamburg 3:10", "lost to them 2:15", "Wygraliśmy
# mecz 3:10"): a word saying one, then up to three words each a name (capitalised) or one of a match (`_SCORE_BETWEEN`):
# "lost power 14:30", "beat the traffic, home 17:30", "won the raffle, pick-up at 3:10" are times; or "the result was
# 3:10", "a draw, 2:20"; or after it ("3:10 gewonnen", "das Spiel 3:10 verloren", "a 3:10 win", "Maçı 3:10 kazandık")
_SCORE_VERB_BEFORE = re.compile(r"\b(?:won|lost|beat|beaten|defeated|drew|tied|gewannen|verloren|schlugen|wygra\w*|"
                                r"przegra\w*|zremisowa\w*|pokona\w*)((?:\s+[^\W\d_][\w'’-]*){0,3})\s?$", re.I)
_SCORE_BETWEEN = frozenset("""the a an our their us them him her you it to against again home away match game final
semifinal semi-final quarterfinal derby cup tie league tournament friendly set round leg das den die der dem unser unsere
spiel finale partie gegen mecz meczu finał z ze przeciwko maçı maç""".split())
_SCORE_SAID_BEFORE = re.compile(r"(?:\b(?:result|score|scoreline|ergebnis|spielstand|wynik|skor|sonuç)(?:\s+(?:was|is|"
                                r"were|war|ist|lautete|był|wyniósł))?\s?[:=]?|\b(?:draw|remis|berabere)\s?[,:]?)\s?$", re.I)
_SCORE_AFTER = re.compile(r"\)?\s?(?:gewonnen|verloren|sieg|niederlage|wygran\w*|przegran\w*|zwycięstw\w*|porażk\w*|"
                          r"kazand\w*|kaybett\w*|yend\w*|yenild\w*)\b(?!['’])", re.I)
# English says it after the score as a noun after "a" ("a 3:10 win", "a 2:15 defeat"; "14:30 loss of power" is a time)
_A_SCORE = (re.compile(r"\ban?\s$", re.I), re.compile(r"\s(?:win|victory|defeat|loss|draw)\b(?!['’])", re.I))
_GLUED = re.compile(r"(?<!\d)[a-z]$", re.I)  # a letter right before it: "v2:10", "x12:30"
_SEPARATED = re.compile(r"\d+([:.h：])(\d+)", re.I)


def _not_a_time(text: str, match: re.Match) -> bool:
    """Whether `match`, a number shaped as a time of day in `text`, is something else: a version, a verse …"""
    start, end = match.start(), match.end()
    separator, minutes = _SEPARATED.match(match.group()).groups()
    before = text[max(0, start - 40):start]
    if int(minutes) > 59 or _MEASURE_OR_SCORE_BEFORE.search(before):  # "1.75 m", "line height 1.25", "won 3:10"
        return True
    if separator == ":" and (_score_before(before) or _SCORE_AFTER.match(text, end)
                             or _A_SCORE[0].search(before) and _A_SCORE[1].match(text, end)):
        return True  # "won the match 3:10", "3:10 gewonnen": a score
    if separator == ".":
        return bool(_VERSION_BEFORE.search(before) or _VERSION_AFTER.match(text, end))
    if _GLUED.search(before):
        return True
    return separator == ":" and int(minutes) % 5 != 0 and bool(_VERSE_BEFORE.search(before))


def _score_before(before: str) -> bool:
    """Whether `before`, the text right before a number shaped as a time of day, says a score (`_SCORE_VERB_BEFORE`)."""
    if _SCORE_SAID_BEFORE.search(before):
        return True
    said = _SCORE_VERB_BEFORE.search(before)
    return bool(said) and all(w[:1].isupper() or w.lower() in _SCORE_BETWEEN for w in said.group(1).split())


@dataclass(frozen=True)
class _Unless:
    """`pattern`, where a match `unless` says is none is not read: searched as a pattern is (`Kind.held`)."""
    pattern: re.Pattern
    unless: Callable[[str, re.Match], bool]

    def search(self, text: str) -> re.Match | None:
        return next((match for match in self.pattern.finditer(text) if not self.unless(text, match)), None)


# A question in Japanese, Chinese, Korean or Turkish puts its why, who, when or where anywhere ("为什么换了手机号？",
# "Telefon numaramı kim değiştirdi?"): anywhere it is, it asks about the number, not for it. Not Korean 어떻게, which
# asks for it ("전화번호가 어떻게 되세요?"), nor Japanese いつも ("always")
_WHY_WHO_WHEN_ANYWHERE = (r"为什么|為什麼|为啥|谁|誰|什么时候|什麼時候|哪里|哪裡|哪儿|怎么|怎麼|なぜ|どうして|いつ(?!も)|どこ|"
                          r"왜|누가|누구|언제|어디|\b(?:neden|niye|niçin|kim\w*|ne\s+zaman|nerede|nasıl)\b")
# the English number named is asked when no noun follows it, which it would qualify ("What's the account number
# format for UK banks?", "the phone number's check digit"): nothing does, or a word that is none (a preposition, a
# pronoun, a verb), or a name ("the phone number Marta gave me")
_NUMBER_ASKED = (r"(?=\s*(?:[^\w\s'’-]|$)|\s+(?-i:[A-Z])|\s+(?:of|for|at|in|on|from|to|with|by|under|again|please|now|"
                 r"that|which|who|when|where|if|i|we|you|he|she|they|it|my|his|her|our|their|the|a|an|did|does|do|is|was|"
                 r"were|are|has|have|had|will|would|should|can|could|written|saved|stored|listed|given|used|ending|"
                 r"starting|here|there|and|or|so|then|exactly|still|"
                 # an IBAN is asked in every language: the words after it in German, French, Spanish, Italian, Dutch
                 r"der|die|das|des|dem|den|von|vom|für|bei|zum|zur|ist|war|du|de|la|le|les|pour|est|del|el|para|es|"
                 r"di|della|per|è|van|voor)\b)")
NUMBER = Kind(
    "a phone or account number",
    # English: asked for ("What's Marta's phone number?", "phone number of the GP"), not a number only named
    # ("What is James planning to do after receiving Samantha's phone number?", "Whose phone number …?")
    # Elsewhere the word alone, but not in a question opening why, who, when, where or how, which asks about the
    # number, not for it ("Warum hat Tim seine Handynummer geändert?", "How do I change my IBAN?"); German "wie"
    # opens "Wie lautet die IBAN?"
    re.compile(_unless_opening(_WHY_WHO_WHEN, _words(
           r"^\W*(?:(?:what|which)(?:['’]s|\s+is|\s+was|\s+are|\s+were)|tell\s+me|give\s+me|do\s+(?:i|we|you)\s+have)"
           rf"\s+(?:[\w’'.-]+\s+){{0,4}}?{_NUMBER_NAMED}{_NUMBER_ASKED}",
           rf"^\W*(?:the\s+)?(?:\w[\w.-]*['’]s\s+)?{_NUMBER_NAMED}{_NUMBER_ASKED}",
           r"^\W*(?:what|which)(?:['’]s|\s+is|\s+was)\s+(?:[\w’'.-]+\s+){0,4}?[\w.-]+['’]s\s+number\W*$",
           rf"\biban(?:-nummer)?{_NUMBER_ASKED}", rf"\bsort\s+code{_NUMBER_ASKED}",
           r"telefonnummer|handynummer|rufnummer|mobilnummer|festnetznummer|kontonummer",
           r"\bnum[ée]ro\s+de\s+(?:t[ée]l[ée]phone|portable|mobile|t[ée]l\b|compte)",
           r"\bn[úu]mero\s+de\s+(?:tel[ée]fono|celular|m[óo]vil|cuenta|telefone|telem[óo]vel|conta)",
           r"\bnumero\s+di\s+(?:telefono|cellulare|conto)", r"telefoonnummer|rekeningnummer|\bmobiele?\s+nummer",
           r"\bnumer(?:u|em)?\s+(?:telefonu|komórki|komorki|konta)\b")).pattern
               + rf"|^(?![\s\S]*?(?:{_WHY_WHO_WHEN_ANYWHERE}))[\s\S]*?(?:"
           # 账号 alone is an account one logs into ("我的账号被盗了"): a bank's, or its number asked
           r"電話番号|携帯番号|口座番号|电话号码|電話號碼|手机号|手機號|(?:银行|銀行)(?:账|帳)(?:号|號)|(?:账|帳)(?:号|號)是多少|"
           r"전화\s*번호|휴대폰\s*번호|핸드폰\s*번호|계좌\s*번호|\b(?:telefon|cep|hesap)\s+numara\w*)", re.I),
    # six digits or more in a run, single spaces, dashes, dots, slashes or brackets between ("+49 89 1234 567",
    # "(0)30-123456", an IBAN's digits); a Japanese note's full-width ones too ("０３－１２３４－５６７８": `\d` reads
    # its digits)
    (re.compile(r"\d(?:[\s\-./()－．／（）]?\d){5,}"),),
    not_dates=True,
)

CLOCK = Kind(
    "a time of day",
    # "what time" before a noun asks for a kind of time, not a time of day ("what time-zone", "what time difference");
    # joined to the word after it, a compound always does ("what time-consuming chores", "what time-tracking app")
    _words(r"\bwhat\s+time\b(?!-[^\W\d_])(?!\s+(?:management|zones?|frames?|periods?|lines?|tables?|slots?|travel|"
           r"of\s+(?:the\s+)?(?:year|day|month|week|life)|differences?|limits?|commitments?|savings?|signatures?|"
           r"horizons?|spans?|budgets?|estimates?|stamps?|units?|off|track(?:ing|ers?)|sheets?|blocks?|box(?:ing|es)|"
           r"constraints?|allocations?|consuming|sensitive|critical|entries|logs?|windows?)\b)",
           r"\bum\s+wie\s*viel\s+uhr\b", r"\bwie\s+spät\b",
           r"\bquelle\s+heure\b", r"\bqu[ée]\s+hora\b", r"\bque\s+horas\b",
           # a Dutch question opening "Hoe laat ik/je …" asks how to let ("Hoe laat ik de huisarts weten …?"); one asking
           # the time puts its verb second ("Hoe laat begint …?")
           r"^(?!\W*hoe\s+laat\s+(?:ik|je|jij|u|we|wij|ze|zij|hij|men)\b)[\s\S]*?\bhoe\s+laat\b",
           # Italian "ora" is "now" too ("Mi ha detto che ora lavora a Milano"): "che ora" asks only after "a", "per" …,
           # or before "è"
           r"\bche\s+ore\b", r"\b(?:a|per|verso|da|entro)\s+che\s+ora\b|^\W*che\s+ora\b|\bche\s+ora\s+[èeé]\b",
           # 何時も is いつも ("always"); 几点 is "a few points" too (几点建议, "a few suggestions"); 몇 시즌 is "how
           # many seasons"
           r"何時(?!間|も)",
           r"(?:几|幾)(?:点|點)(?!建议|建議|意见|意見|看法|想法|注意|要求|原因|理由|好处|好處|区别|區別|不同|要点|要點|"
           r"问题|問題|事项|事項|内容|內容)", r"몇\s*시(?!간|즌|리즈|험|집|절)",
           r"\bo\s+kt[óo]rej\b|\bo\s+jakiej\s+godzinie\b", r"\bsaat\s+ka[çc](?:ta)?\b|\bka[çc]ta\b"),
    # digits round it, not a word's edge: "会议10:00开始" has none ("议" and "1" are both word characters); "１９：３０" too
    # (each read from its first digit: see `_DIGIT_DAY`); not an amount or a measure ("4.25%", "€12.50", "2.50 kg",
    # "0.75 FTE")
    (_Unless(_words(rf"\d(?<![\d.$€£¥]\d)(?<![$€£¥]\s\d)(?!(?<=0)\.)\d?[:.h：]\d{{2}}(?!\d|\s*(?:{_MEASURE}))"),
             _not_a_time),
     _words(r"\d(?<=\b\d)\d?\s*(?:am|pm|a\.m\.|p\.m\.|uhr|h|hrs|o['’]clock|heures?|horas?|ore|uur)\b"),
     # an hour is at most three numerals ("二十三点"): a long run of them is tried from each of its
     # characters, and unbounded that takes seconds on a passage of 10,000 digits
     _words(rf"[\d{_CJK_NUMERAL}][\d{_CJK_NUMERAL}]{{0,2}}\s*(?:時|时|点|點|시)(?!間|间|간)"),
     _words(r"(?:한|두|세|네|다섯|여섯|일곱|여덟|아홉|열|열한|열두)\s*시(?!간)"), _words(r"正午|中午|零時|정오|자정"),
     _words(
           # an hour after the word for "at" alone ("dinner at 8", "um 8", "a las 8", "às 8", "alle 8", "at seven"):
           # not a measure ("at 19 °C", "at 60%", "à 5 minutes", "à 71 800 km"); "at 25 weeks" is read as one, which keeps
           # a passage, as without this check
           rf"\b(?:at|um|gegen|à|vers|a\s+las?|às|alle|om)\s+\d{{1,2}}\b(?![.,]?\d|\s*(?:\d|{_MEASURE}))",
           # "at seven" said alone, not "at two vendors"
           rf"\bat\s+{_ENGLISH_HOUR}(?=\s*(?:[^\w\s]|$)|\s+(?:sharp|tonight|today|tomorrow|this|in\s+the|thirty)\b)",
           rf"\b{_ENGLISH_HOUR}\s+o['’]clock\b",
           rf"\bum\s+{_GERMAN_HOUR}\b|\b{_GERMAN_HOUR}\s+uhr\b",
           r"\b(?:noon|midday|midnight|mittags?|mitternacht|midi|minuit|mediod[íi]a|medianoche|meio-dia|"
           r"meia-noite|mezzogiorno|mezzanotte|middag|middernacht)\b",
           r"\b(?:half|quarter|five|ten|twenty|twenty-five)\s+(?:past|to)\b", r"\bhalb\s+\w+",
           r"\b(?:godz\.|godzinie|saat)\s*\d{1,2}\b")),  # Polish "o godzinie 18", Turkish "saat 14'te"
    not_dates=True,
)

BIRTHDAY = Kind(
    "a day",
    # "When's Ana's birthday?": "'s" right after "when"
    _words(rf"\bwhen(?:\s+is|\s+was|['’]s)\s+.{{0,40}}?\bbirthday\b{_AFTER_BIRTHDAY}",
           r"\b(?:date\s+of\s+birth|birth\s*date|birthdate)\b",
           r"\bwann\s+(?:hat|ist)\s+.{0,40}?geburtstag\b(?!s?(?:feier|party|essen|geschenk))", r"\bgeburtsdatum\b",
           r"\bdate\s+d['’]anniversaire\b", r"\bquand\s+est\s+l['’]anniversaire\b", r"\bdate\s+de\s+naissance\b",
           r"\bcu[áa]ndo\s+(?:es\s+el\s+cumplea[ñn]os|cumple)\b", r"\bfecha\s+de\s+nacimiento\b",
           r"\bquando\s+(?:é|faz)\s+(?:o\s+)?anivers[áa]rio\b", r"\bdata\s+de\s+nascimento\b",
           r"\bquando\s+è\s+il\s+compleanno\b", r"\bdata\s+di\s+nascita\b",
           r"\bwanneer\s+is\s+.{0,30}?verjaardag\b", r"\bgeboortedatum\b",
           r"誕生日は(?:いつ|何月何日)|生年月日", r"生日是(?:哪一?天|几月几[号日]|什么时候)|出生日期",
           r"생일(?:이|은)?\s*(?:언제|며칠)",
           r"\bkiedy\s+(?:s[ąa]|ma|obchodzi)\s+.{0,40}?urodzin", r"\bdat[aęy]\s+urodzenia\b",
           r"\bdoğum\s+günü\w*\s+(?:ne\s+zaman|hangi\s+gün)|\bdoğum\s+tarih"),
    # a day in digits or Chinese numerals ("3월 2일", "八月十五"), or one the passage's own date gives ("It's my
    # daughter's birthday today", in a conversation of 20 May)
    # (bounded: see CLOCK's hours)
    (_words(rf"[\d{_CJK_NUMERAL}正腊冬][\d{_CJK_NUMERAL}正腊冬]{{0,2}}\s*[月월]\s*[\d{_CJK_NUMERAL}廿初]"),
     _words(r"今日|明日|昨日|今天|明天|昨天|오늘|내일|어제"),
     # a day and month without a year ("bday 12/25", "生日：5/3"), a day of the month alone ("on the 14th")
     _words(r"\d(?<![\d/.]\d)\d?/\d{1,2}(?![\d/])"),
     _words(r"\b(?:today|tonight|tomorrow|yesterday|heute|gestern|aujourd['’]hui|demain|hier|hoy|mañana|ayer|hoje|"
            r"amanhã|ontem|oggi|domani|ieri|vandaag|gisteren)\b", r"\bthe\s+\d{1,2}(?:st|nd|rd|th)\b")),
    dates=True,
)

# "When was Lukas born?", "When were the twins born?": a day, or the year one was born in ("born 1989", "geb. 1941"),
# which a birthday is not ("When is Martin's birthday?" is no more answered by "Lena, Martin's daughter, was born in
# 2019"). Not an idea, a plan or a band "born" as a figure of speech ("When was the idea born?", "Wann wurde die Idee
# geboren?"): asked, it said "no good match" for want of a day of birth in the note that says when the idea came up
_FIGURATIVE_BIRTH = (r"(?:the|this|that|our|your|my|his|her|their|its|an?|die|der|das|diese|dieser|dieses|unsere?)\s+"
                     r"(?:[\w-]+\s+)?(?:idea|ideas|concept|notion|plan|project|company|business|startup|start-up|band|"
                     r"brand|movement|tradition|name|nickname|term|phrase|word|habit|dream|vision|initiative|product|"
                     r"app|podcast|blog|series|show|festival|friendship|relationship|partnership|passion|interest|hobby|"
                     r"joke|thought|theory|genre|style|trend|rumou?r|idee|konzept|projekt|firma)"
                     # the head of what is born: "born" or "of", "for" … follows ("the company founder" is a person)
                     r"\s+(?:born|geboren|of|for|behind|to|von|für|zu)\b")
BORN = Kind(
    "a day or year of birth",
    _words(rf"\bwhen\s+(?:was|is|were|are)\s+(?!{_FIGURATIVE_BIRTH}).{{0,40}}?\bborn\b",
           rf"\bwann\s+(?:wurden?|ist|sind)\s+(?!{_FIGURATIVE_BIRTH}).{{0,40}}?\bgeboren\b",
           r"\bkiedy\s+.{0,40}?urodził", r"\bne\s+zaman\s+doğ(?:du|muş)\b"),
    # what holds a birthday's day, a year in CJK, and the words of a birth in BIRTHDAY's last pattern, its words
    (*BIRTHDAY.passages[:-1], _words(r"\d\d{3}\s*(?:年\s*(?:生まれ|出生|生)|년\s*생|년에\s*태어)"),
     _words(BIRTHDAY.passages[-1].pattern,
            r"\b(?:born|b\.|geb\.|geboren|née?|nacid[oa]|nat[oa]|nascid[oa])\s+(?:in\s+|im\s+jahr\s+|en\s+|em\s+|nel\s+)?"
            r"\d{4}\b")),
    dates=True,
)

# "What's the weather in Hamburg tomorrow?", "明天北京天气怎么样？": a memory holds tomorrow's weather only if a note says
# it; one about Hamburg that says nothing of rain or sun is no answer. A "forecast" alone is a business's too ("the
# Halloween forecast"). Polish and Turkish too: the everyday sets ask "Jaka będzie jutro pogoda?"
# The weather a question names only to say which other thing it asks of is not asked: "What's the weather station's
# IP?", "the weather app password", "Wetter-App", "l'appli météo", "天气站的IP", "天気アプリ", "날씨 앱", "aplikacja
# pogodowa", "hava durumu uygulaması". English puts the weather before the noun it qualifies: it is asked when a word
# that is no noun follows it (a preposition, a verb, a day) or nothing does; German and Japanese, Chinese, Korean join it
# to the noun (a hyphen, katakana, Latin letters, a word for a station, an app, data); French puts the noun first
# ("la météo" asks, "l'appli météo" does not); Polish makes an adjective of it ("pogodowej").
_WEATHER_ASKED = (r"(?:\s+(?:forecast|report|outlook))?(?=\s*(?:[^\w\s'’-]|$)|\s+(?:like|in|at|on|for|around|near|over|"
                  r"during|today|tonight|tomorrow|this|next|going|gonna|supposed|expected|be|been|looking|look|there|outside|"
                  r"then|now|yesterday|last|when|while|the|of|will|was|is|be)\b)")
_CJK_WEATHER_NOUN = (r"(?!(?:预报|預報|予報)?(?:\s*[A-Za-z]|[ァ-ヺー]|站|台|网|網|软件|軟體|应用|應用|程序|插件|接口|"
                     r"数据|數據|图标|圖標|器|卡|服务|服務|\s*(?:앱|어플|위젯|사이트|데이터|센서)))")
WEATHER = Kind(
    "a weather report",
    # asked for, not named ("What did Audrey do as the weather cooled down?")
    _words(rf"\b(?:what|how)(?:['’]s|\s+is|\s+will|\s+was)\s+(?:the\s+)?weather{_WEATHER_ASKED}",
           r"\bweather(?:\s+(?:forecast|report|outlook))?\s+(?:like|in|for)\b", rf"\bweather\s+forecast{_WEATHER_ASKED}",
           r"\b(?:going\s+to|will\s+it|gonna)\s+(?:rain|snow|storm)\b",
           r"\bwie\s+(?:wird|ist|war)\s+das\s+wetter\b(?!-)|\bwetter(?:bericht|vorhersage)\b(?!-)|\bwetter\s+(?:in|für|morgen|am)\b",
           r"\b(?:regnet|schneit)\s+es\b", r"\b(?:la|quelle)\s+m[ée]t[ée]o\b(?!-)|^\W*m[ée]t[ée]o\b(?!-)",
           r"\bva-t-il\s+(?:pleuvoir|neiger)\b|\bpleuvra\b",
           # "¿Qué tiempo hace falta …?" asks how long it takes
           r"\bqu[ée]\s+tiempo\s+(?:hace(?!\s+(?:falta|que))|har[áa]|va\s+a\s+hacer)\b",
           r"\bva\s+a\s+(?:llover|nevar)\b|\b(?:llover|nevar)[áa]\b",
           r"\bprevis[ãa]o\s+do\s+tempo\b|\bvai\s+(?:chover|nevar)\b", r"\bche\s+tempo\s+fa\b|\bpiover[àa]\b",
           r"\bweerbericht\b|\bgaat\s+het\s+(?:regenen|sneeuwen)\b",
           # the weather's own cases, not "pogodowy" (its adjective) or "pogodzić się" (to make up)
           r"\bpogod(?:a|y|ę|zie|ą)\b",
           rf"(?:天气|天氣|天気){_CJK_WEATHER_NOUN}|下雨|下雪|雨が降|雪が降",
           r"\bhava\s+durumu(?=\s*(?:[^\w\s]|$)|\s+(?:nasıl|ne|nedir|yarın|bugün|için)\b)|\bhava\s+nasıl\b|"
           r"\b(?:yağmur|kar)\s+yağ",
           rf"날씨{_CJK_WEATHER_NOUN}|비가\s*(?:와|오|올)|눈이\s*(?:와|오|올)"),
    (_words(r"°\s*[CF]\b"),
     # words, not 雨 or 雪 alone, which are in names too (雨桐); "Pogodnie" is a part of Szczecin
     _words(r"天气|天氣|天気|下雨|下雪|有雨|有雪|大雨|小雨|阵雨|陣雨|雷雨|暴雨|雨天|雨が|雪が|大雪|晴れ|晴天|曇り|阴天|多云|気温|气温"),
     _words(r"날씨|맑|흐림|기온|비가|눈이"),
     _words(r"\b(?:weather|forecast|rain\w*|snow\w*|sunny|sunshine|cloud(?:s|y)?|storms?|stormy|thunder\w*|windy|fog(?:gy)?|"
            r"frost\w*|drizzle|hail|showers?|degrees|wetter\w*|regen\w*|schnee\w*|sonnig|sonne|bewölkt|gewitter\w*|sturm|"
            r"nebel|glatteis|m[ée]t[ée]o|pluie|pluvieux|neige\w*|soleil|nuageux|orage\w*|lluvia\w*|llover|llueve|nieve|"
            r"nevad\w*|soleado|nublado|tormenta\w*|chuva\w*|chover|ensolarado|pioggia|piove\w*|nuvoloso|temporale|"
            r"sneeuw\w*|zonnig|bewolkt|onweer|pogod(?:a|y|ę|zie)|deszcz\w*|śnieg\w*|yağmur\w*|güneşli|bulutlu|"
           r"sağanak\w*|hava\s+durumu)\b")),
)

KINDS = (NUMBER, CLOCK, BIRTHDAY, BORN, WEATHER)


def asked(question: str) -> Kind | None:
    """The kind of thing `question` asks for (the first of `KINDS` it asks), or None."""
    return next((kind for kind in KINDS if kind.question.search(question)), None)


def holds(kind: Kind, result: dict, today: date) -> bool:
    """Whether a search's `result` holds something of `kind` in what it says: a transcript passage's context lines
    (its session, the day it was said on: `transcripts.without_context`) are none of it, or every dated passage
    would hold a day and every session whose id is digits a number."""
    return kind.held(without_context(result["text"], result.get("kind", "")), today)


def weigh(results: list[dict], kind: Kind, held: list[bool]) -> list[dict]:
    """`results` (a search's, best first) for a question asking for `kind`, each one's score × 1 when it
    holds one (`held`, in order) and × `LACKING` when it does not (factor ``asked``, its reason
    ``asked_reason``), ranked again (`reorder`)."""
    for result, holds in zip(results, held):
        weight = 1.0 if holds else LACKING
        result["score"] *= weight
        result["factors"].update(asked=weight, asked_reason=f"the question asks for {kind.name}: "
                                                            + ("this passage holds one" if holds else "this passage holds none"))
    return reorder(results)
