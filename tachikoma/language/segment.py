"""Words in every script, for the keyword index of both engines (issue 29).

The keyword index splits text into words at spaces and punctuation (FTS5's unicode61 tokenizer on
SQLite, the default parser on PostgreSQL). Scripts written without spaces between words (Chinese,
Japanese, Thai, Lao, Khmer, Myanmar) and Korean, whose particles stick to the word before them,
would then give one "word" per sentence. So the keyword index reads a *segmented* copy of each
text, never shown and never stored in a memory file:

- a run of those scripts becomes its characters and its overlapping character pairs (bigrams):
  "歯医者の予約" -> "歯 歯医 医 医者 者 者の …". A two-character word is a bigram of its own; a longer
  one is found through its bigrams, which BM25 weighs like any word; a one-character query is found
  through the unigrams. Combining marks inside such a run (Thai vowel and tone marks) are left out,
  as the unicode61 tokenizer splits words at them;
- a word with a German umlaut or ß is followed by its spelling without one ("München" ->
  "München Muenchen", "Straße" -> "Straße Strasse"), so "Muenchen" finds "München"; accents
  themselves are folded by the engine (FTS5's ``remove_diacritics``) or by `fold_accents`.

A query is cut the same way (`query_words`): a run's bigrams (a one-character run: the character),
each a keyword of its own, so a question phrased differently from the note still shares its words. A
Korean word is read without the particle or ending stuck to it (`korean_stem`: "김해공항에" asks for
김해 해공 공항, not for 항에), and a particle alone gives no keyword; the index keeps every bigram, so
both engines read the same index as before.
Text in other scripts (Latin, Cyrillic, Greek, Arabic, Hebrew, …) is left as it is: English
stemming and every English benchmark stay exactly as they were.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

#: Scripts segmented into characters and bigrams: CJK ideographs (with the iteration marks 々 〆 and
#: the compatibility and extension blocks), hiragana, katakana (with ー and the half-width forms),
#: Hangul syllables and jamo, Thai, Lao, Khmer and Myanmar.
_RUN_CHARS = ("\u3005\u3006\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
              "\U00020000-\U0002fa1f"
              "\uac00-\ud7af\u1100-\u11ff\u3130-\u318f"
              "\u0e00-\u0e7f\u0e80-\u0eff\u1780-\u17ff\u1000-\u109f")
_RUN = re.compile(f"[{_RUN_CHARS}]+")
_HIRAGANA = re.compile("[\u3040-\u309f]+")
#: The prolonged sound mark (ー, half-width ｰ): after hiragana, part of that hiragana word ("すごーい", "かわいーい").
_LONG_VOWEL = "\u30fc\uff70"
_HANGUL = re.compile("[\uac00-\ud7a3]+")
#: Korean particles that stick to the word before them (eojeol: "공항에" is 공항 and "에", at; "결혼식에서" 결혼식 and
#: "에서", in), with the copula and the quoting endings ("사람이야": is a person; "Gleis라는": called Gleis). Alone, or
#: after a word in another script ("Gleis에서"), such a particle is no word of its own (`query_words`).
#: Not 만 ("only", but also ten thousand: "삼천만"), 나 ("or", but "바나나"), 니 ("어머니").
KOREAN_PARTICLES = frozenset("""
에서 에게 한테 께서 께 으로 이랑 랑 부터 까지 처럼 보다 마다 하고 이나 이든 조차 마저 밖에 쯤
은 는 이 가 을 를 에 의 와 로 이야 이에요 예요 이요 이지 이래 이라는 라는 이라고 라고
""".split())
#: The particles and the endings of a word that `korean_stem` takes off, longest first: besides the particles, 도 and
#: 과 (also, and: alone they are words, "5도", a degree) and the endings of a question's verb ("도착해", "보내면",
#: "했지", "언제더라", "프로였지").
KOREAN_ENDINGS = tuple(sorted(KOREAN_PARTICLES | frozenset("도 과 야 요 지 래 더라 이더라 였 이었 해 면".split()),
                              key=lambda ending: (-len(ending), ending)))
#: The Japanese particles that follow a word (は, が, を, に, で, の, と, も, へ, や): after kanji or katakana, the end
#: of that word (`japanese_parts`). Not か, な, ね, よ: written after a kanji they are as often part of its word
#: ("確か", "静かな").
JAPANESE_PARTICLES = frozenset("はがをにでのともへや")
#: A word of Latin letters holding a German umlaut or ß.
_LATIN = "A-Za-z\u00c0-\u024f\u1e9e"
_UMLAUT_WORD = re.compile(f"(?<![{_LATIN}])[{_LATIN}]*[äöüÄÖÜßẞ][{_LATIN}]*")
_UMLAUT = re.compile("[äöüÄÖÜßẞ]")
_UMLAUTS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue", "ß": "ss", "ẞ": "SS"})
#: The combining marks inside runs (Thai, Lao, Khmer, Myanmar vowel and tone marks; the kana voicing
#: marks ゙ ゚ when written apart), left out of a run's characters.
_MARKS = re.compile("[" + "".join(
    re.escape(ch) for ch in map(chr, range(0x0E00, 0x3100)) if _RUN.fullmatch(ch) and unicodedata.category(ch)[0] == "M")
    + "]")


def _letters(run: str) -> str:
    """`run` without its combining marks (Thai vowel and tone marks: unicode61 splits words at them)."""
    return _MARKS.sub("", run)


def _run_tokens(run: str) -> str:
    """A run's characters and bigrams, in reading order: "abc" -> "a ab b bc c"."""
    chars = _letters(run)
    tokens = [None] * (2 * len(chars) - 1) if chars else []
    tokens[::2] = chars
    tokens[1::2] = [chars[i:i + 2] for i in range(len(chars) - 1)]
    return " ".join(tokens)


def _with_unumlauted(match: re.Match) -> str:
    word = match.group(0)
    return f"{word} {word.translate(_UMLAUTS)}"


def run_characters(text: str) -> int:
    """How many characters of `text` are in runs of a script written without spaces (see the module)."""
    return 0 if text.isascii() else sum(len(run) for run in _RUN.findall(text))


def has_runs(text: str) -> bool:
    """Whether `text` holds a run of a script written without spaces (see the module)."""
    return not text.isascii() and _RUN.search(text) is not None


def index_text(text: str) -> str:
    """What the keyword index reads for `text`: `text` itself when it is ASCII (so English is indexed
    exactly as before), else with its runs segmented and its umlaut words doubled (see the module)."""
    if text.isascii():
        return text
    if _UMLAUT.search(text):
        text = _UMLAUT_WORD.sub(_with_unumlauted, text)
    return _RUN.sub(lambda m: f" {_run_tokens(m.group(0))} ", text)


def korean_stem(word: str) -> str:
    """A word of Hangul syllables without the particles and endings that stick to it (`KOREAN_ENDINGS`), the longest
    first, while at least two syllables remain: "김해공항에" -> "김해공항", "지은이는" -> "지은", "결혼식에서" -> "결혼식";
    "집에" and "휴가" stay as they are. Another word is returned as it is."""
    if not _HANGUL.fullmatch(word):
        return word
    while (ending := next((e for e in KOREAN_ENDINGS if word.endswith(e)), None)) and len(word) - len(ending) >= 2:
        word = word[:-len(ending)]
    return word


def _kana_letters(run: str) -> list[bool]:
    """Whether each character of `run` is hiragana, or the prolonged sound mark after hiragana ("すごーい": a
    hiragana word, not "すご" and a katakana "ーい")."""
    kana: list[bool] = []
    last = False
    for ch in run:
        last = "\u3040" <= ch <= "\u309f" or last and ch in _LONG_VOWEL
        kana.append(last)
    return kana


def japanese_parts(run: str) -> list[str]:
    """A run cut where Japanese changes from one word to the next (a run without hiragana is one part): before a
    particle after kanji or katakana (`JAPANESE_PARTICLES`: "予約を", "東京に") and after hiragana before kanji or
    katakana ("を変える", "の予約"; a prolonged sound mark after hiragana is hiragana: "すごーい"). "父の白内障の手術は"
    -> 父 の 白内障 の 手術 は; the kana written after a kanji as part of its word stay with it ("変えた", "登った")."""
    if not _HIRAGANA.search(run):
        return [run]
    kana = _kana_letters(run)
    cuts = [i for i in range(1, len(run))
            if (kana[i - 1] and not kana[i]) or (run[i] in JAPANESE_PARTICLES and not kana[i - 1])]
    return [run[i:j] for i, j in zip([0, *cuts], [*cuts, len(run)])]


def query_words(word: str) -> list[str]:
    """The keywords a query word gives: the word itself (ASCII, most of the time); a run's bigrams
    (or its one character), the parts of the word outside its runs; an umlaut word and its spelling
    without the umlaut. Japanese bigrams of hiragana only (particles, endings: "です", "ました") are
    left out when the run has other characters, as they are in nearly every note. A Korean word gives the
    bigrams of its stem (`korean_stem`), a particle alone or after a word in another script none
    ("Gleis에서": Gleis; Japanese "Seiryu の NOC", "NOCの": NOC)."""
    if word.isascii():
        return [word]
    words: list[str] = []
    last = 0
    for match in _RUN.finditer(word):
        words += _plain(word[last:match.start()])
        run = match.group(0)
        # A particle alone, or after a word in another script ("Gleis에서", "Seiryu の NOC", "NOCの")
        if run in KOREAN_PARTICLES or run in JAPANESE_PARTICLES:
            last = match.end()
            continue
        chars = _letters(korean_stem(run))
        parts = [part for part in japanese_parts(chars) if not all(_kana_letters(part))]
        for part in parts or [chars]:
            if len(part) == 1:
                words.append(part)
            else:
                kana = _kana_letters(part)
                pairs = [part[i:i + 2] for i in range(len(part) - 1)]
                content = [p for i, p in enumerate(pairs) if not (kana[i] and kana[i + 1])]
                words += content or pairs
        last = match.end()
    words += _plain(word[last:])
    seen: set[str] = set()
    return [w for w in words if not (w in seen or seen.add(w))]


def _plain(part: str) -> list[str]:
    if not part:
        return []
    if _UMLAUT.search(part):
        return [part, part.translate(_UMLAUTS)]
    return [part]


def fold_accents(text: str) -> str:
    """`text` with the accents of Latin, Greek and Cyrillic letters taken off ("café" -> "cafe",
    "naïve" -> "naive"), as FTS5's ``remove_diacritics 2`` reads them; other scripts untouched (a
    Japanese voiced kana keeps its mark, a Hangul syllable stays whole). For PostgreSQL, whose text
    search keeps accents and whose ``unaccent`` is an extension not every server has."""
    if text.isascii():
        return text
    out = []
    for ch in text:
        if ch.isascii() or not ("\u00c0" <= ch <= "\u04ff" or "\u1e00" <= ch <= "\u1fff"):
            out.append(ch)
            continue
        base = unicodedata.normalize("NFD", ch)
        out.append("".join(c for c in base if not unicodedata.combining(c)) or ch)
    return "".join(out)


def script(ch: str) -> str:
    """"Latin" for a Latin letter, else the letter's script as its Unicode name begins ("CJK", "HIRAGANA",
    "HANGUL", "CYRILLIC", …; "other" without a name)."""
    if ord(ch) < 0x250 or 0x1E00 <= ord(ch) < 0x1F00:
        return "Latin"
    name = unicodedata.name(ch, "")
    return name.split(" ")[0] if name else "other"


#: The script groups of `dominant_script`: kana among CJK letters makes Japanese, Han alone Chinese.
_KANA = ("HIRAGANA", "KATAKANA", "KATAKANA-HIRAGANA", "HALFWIDTH")
_HAN = ("CJK",)


def dominant_script(text: str) -> str:
    """The script most of `text`'s letters are written in: "Latin", "Japanese" (CJK letters with kana among
    them, at least a tenth), "Han" (CJK without kana), "Hangul", "Cyrillic", … (`script`, title case), ""
    for a text without letters. Its language is not told apart within a script (German and English are
    both "Latin"): it is what a multilingual embedder's similarities are inflated by
    (`search.ranking.above_background`)."""
    counts: dict[str, int] = {}
    kana = 0
    for ch, n in Counter(text).items():  # each character once (a passage has a few dozen distinct ones)
        if not ch.isalpha():
            continue
        name = script(ch)
        if name in _KANA:
            kana += n
            group = "CJK"
        else:
            group = "CJK" if name in _HAN else name.title()
        counts[group] = counts.get(group, 0) + n
    if not counts:
        return ""
    best = max(counts, key=lambda g: (counts[g], g))
    if best == "CJK":
        return "Japanese" if kana * 10 >= counts["CJK"] else "Han"
    return best
