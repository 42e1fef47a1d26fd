"""Keyword search: the query's words, FTS5 matches over chunk texts and tool texts, and what they score.

The keyword part of hybrid relevance asks FTS5 only for its best
`keyword_candidates` matches, and the MATCH expression is built from the
query's words, each one quoted, so no user text is ever read as FTS5 query
syntax (`store.fts.keyword_expression`). Tool texts (the calls and results
of a transcript's tools) are searched by keyword only (`tool_search`). The
per-chunk scores (`keyword_scores`, `keyword_parts`) and the absolute
`keyword_coverage` behind "no good match" are computed here, from a
`snapshot.Snapshot`.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..when import tense
from ..language.function_words import (CJK_FUNCTION_CHARACTERS, CJK_QUESTION_WORDS, ENGLISH_ASKING, ENGLISH_CLITIC, JAPANESE,
                                       JAPANESE_FUNCTION_CHARACTERS, KOREAN, function_words_of, other_function_words)
from ..language.segment import has_runs, korean_stem, query_words
from ..store.fts import PREFIX, unstemmed
from ..store.sqlite import Store
from . import compounds, ranking
from .snapshot import positions

if TYPE_CHECKING:
    from .snapshot import Snapshot

#: At most this many distinct words of a query are looked up by keyword.
MAX_KEYWORD_TERMS = 32
#: Budget of matching rows (postings) one keyword query may rank. Words are
#: taken rarest first while their document frequencies fit; FTS5 scores every
#: row a word matches, so a word found in most of a large memory would cost
#: more than the whole vector search (its BM25 weight is small anyway).
KEYWORD_POSTINGS = 5_000
#: `words_held` reads every chunk holding a word found in at most this many chunks, and looks the
#: candidates up one by one for a commoner word (measured at 126k chunks: crossover near 20,000).
WORDS_HELD_SCAN = 5_000
_TOKEN_CATEGORIES = ("L", "N", "M")
#: A word found nowhere is looked for as the start of longer words when it has at least this many letters (Latin
#: script, no digit) and the keyword index stores it unstemmed: a German compound's first part ("Zahnarzt",
#: "Nebenkosten", "Winter" in "Winterreifen"). A stemmed word's prefix finds other words ("party" is stored
#: "parti": "partial", "partir").
PREFIX_LETTERS = 5
_LATIN_WORD = re.compile("[A-Za-z\u00c0-\u024f]+")
#: English function words left out of keyword queries. BM25's IDF already
#: discounts them in a large memory, but in a small one ("what", "did" in a
#: third of the chunks) they still add noise: on LoCoMo-10 dropping them lifts
#: keyword-only session R@5 from 0.863 to 0.876 (docs/evaluation.md). The
#: vector part always sees the whole query. The second list holds the words of a
#: question that say what is asked, not about what ("what happened", "what does
#: X mean", "is it still", "what does Okonjo argue", "how did the chat suggest"):
#: as keywords they gave score to any note that says "happened" or "still", and
#: as missing words they made a note about Okonjo's argument "no good match"
#: (the everyday sets, docs/evaluation.md). "whose", "each", "every" and "between" joined the first list in
#: session 33: "What did each interviewee agree to …" held "each" as a word most notes lack, and was refused.
STOPWORDS = frozenset("""
a an the is are was were be been being do does did done have has had what when where who whom whose which why
how to of in on at for with about from by as and or but not it its this that these those i you he she we they
me him her us them my your his our their there here will would can could should shall may might must also
just so than then very since before after between each every
""".split()) | frozenset("""
happen happened happens happening say said says tell told know knew remember recall think mean means meant called
get gets got still now ever much most any kind sort thing things something anything someone anyone
per note noted argue argues argued claim claims claimed suggest suggests suggested
""".split())


#: Words that say how a question asks rather than what about: kept as keywords (a haystack's chats say "many" as
#: the question does; "Who did we play against?" and the note "We played against the Hornets"), but never a word the
#: memory is missing (`nowhere_weight`): "How much interview time have I recorded in total?" asks for a sum no note
#: writes as "total", "what's on next week, apart from the usual clubs" for days no note calls "apart" (session
#: 42; not "together", a word LoCoMo's conversations say as the question does, and as missing it counts).
ASKING = frozenset({"many", "total", "against", "apart", "exactly", "altogether"})
#: What is left of an English negation once the keyword index splits it at its apostrophe ("didn't": "didn", "t"):
#: kept as keywords where the memory says them (LoCoMo's answers say "I won't …", and dropping them cost four
#: questions there), but never a word the memory is missing: "Why didn't we switch to Postgres?" in a memory that
#: never writes "didn't" lacks no subject. Lower case only ("Don" is a name); "won" and "can" are words of their own.
NEGATIONS = frozenset("didn doesn don isn wasn weren aren couldn shouldn wouldn hasn haven hadn mustn needn shan "
                      "mightn t".split())
#: A question that gathers from several memories ("how many", "in total", "all the"): read again with the
#: passages it matched best (`scoring.rank_snapshot`'s `gather`). "How much" is not one: it mostly asks one
#: price or amount ("how much is the school lunch fee"), which the passages around the best match lead away from.
GATHERING = re.compile(r"\bhow\s+many\b|\bin\s+total\b|\btotal\b|\ball\s+the\b", re.I)
#: A question that counts or totals: its answer is spread over several memories, each saying it its own way.
COUNTING = re.compile(GATHERING.pattern + r"|\bhow\s+much\b", re.I)
#: "How many" and "in total" in the other languages `function_words.question_language` tells. Their "how
#: much" ("wie viel", "quanto", "combien", 多少) is not read: it lowered the keyword weight of questions asking one
#: amount ("Quanto passou a ser a renda?") more often than it helped (measured, docs/evaluation.md).
_FOREIGN_GATHERING = {
    "German": r"\bwie\s*viele\b|\binsgesamt\b",
    # "combien de temps" (how long), "combien d'argent" (how much money): one amount; "en tout cas" (in any
    # case), "en tout début"; an age ("cuántos años tiene", "quanti anni ha") is one fact, as "how old" is
    "French": r"\bcombien\s+d(?:e\b(?!\s+temps\b)|'(?!argent\b))|\bau\s+total\b|\ben\s+tout\b(?!\s+(?:cas|début)\b)",
    "Spanish": r"\bcu[aá]nt[oa]s\b(?!\s+años\s+tienen?\b)|\ben\s+total\b",
    "Portuguese": r"\bquant[oa]s\b(?!\s+anos\s+t[eê]m\b)|\bno\s+total\b|\bao\s+todo\b|\bem\s+total\b",
    "Italian": r"\bquant[ie]\b(?!\s+anni\s+ha(?:nno)?\b)|\bin\s+totale\b",
    # "hoeveel" asks "how much" as often ("Hoeveel verdient Sanne?", "hoeveel tijd"): not read
    "Dutch": r"\bin\s+totaal\b",
    # Polish "łącznie", "ile razy" (not "w sumie": "after all" as often); Turkish "toplam", "kaç kez"
    "Polish": r"\błącznie\b|\bile\s+razy\b",
    "Turkish": r"\btoplam(?:da)?\b|\bkaç\s+(?:kez|kere|defa)\b",
    # not 计划, 計画 (a plan) after 合 or 总: "总计划" (the overall plan), "総合計画" (a comprehensive plan)
    # not いくつか (some), 唯一共同 (the only … in common)
    "Japanese": r"何人|何回|何件|何個|いくつ(?!か)|全部で|合計(?![划画劃畫])",
    "Chinese": r"(?<!唯)一共|总共|總共|[合总總][计計](?![划画劃畫])",
    # 총 starting a word ("총 몇 번", "총액", "총지출"), not 권총 (a pistol) nor 총장, 총리, 총회 (a university's
    # president, a prime minister, a general meeting); 몇 before a counter ("몇 번", "몇 명"), not "몇 시" (what
    # time) nor "몇 번지", "몇 번 출구", "몇 번 버스" (an address's, an exit's, a bus's number); not 종합계획 (a plan)
    "Korean": r"(?<!\w)총(?![장리회])|합계(?!획)|몇\s*(?:개|명|번(?!지|\s*(?:출구|버스|선))|군데|곳|가지|권|벌|마리)",
}
# Portuguese is told as Spanish at times by the words they share (as in `tense`): each reads the other's too.
_FOREIGN_GATHERING["Spanish"] = _FOREIGN_GATHERING["Portuguese"] = (
    f"{_FOREIGN_GATHERING['Spanish']}|{_FOREIGN_GATHERING['Portuguese']}")
#: A question whose language is not told (English, or too short to tell: "Was kostet die Krone insgesamt?")
#: reads every language's words; one that is told reads its own only (German "total" is "totally").
_GATHERS_IN = {language: re.compile(words, re.I) for language, words in _FOREIGN_GATHERING.items()}
_GATHERS_IN[None] = re.compile("|".join(_FOREIGN_GATHERING.values()), re.I)  # and English's, `GATHERING`


def gathers_in(query: str, language: str | None) -> bool:
    """Whether `query`, in `language` (`function_words.question_language`; None: English or not told),
    gathers from several memories (`GATHERING`, or its words in that language). Not told, another language's
    word capitalised after the question's first is a name, as `function_words` reads one: "When did I book
    my Quantas flight?", "Who runs Quanti Studio?"."""
    if language is None:
        return bool(GATHERING.search(query)) or any(
            not m[0][:1].isupper() or not re.search(r"\w", query[:m.start()])
            for m in _GATHERS_IN[None].finditer(query))
    pattern = _GATHERS_IN.get(language)
    return bool(pattern and pattern.search(query))


def counts_in(query: str, language: str | None) -> bool:
    """Whether `query` counts or totals: it gathers (`gathers_in`), or asks "how much" in English."""
    return gathers_in(query, language) or language is None and bool(COUNTING.search(query))


#: Phrases that frame a question without naming what it is about, left out of the keyword query as the
#: function words are. "Work on" says only that something was done, as "do" does: "what did I work on last
#: week" asks about a time alone, and a project note that says "work" is no better an answer than that
#: week's notes. "So far", "until now", "in the meantime" say "up to now", as "still" and "now" do: "What
#: has Rafael done for us so far?" held "far", a word no note has, as most of its keyword weight and got
#: "no good match"; but "so far from the station", "so far away" ask about a distance. "To date" is not
#: one of them: it is as often what something becomes ("convert a timestamp to date"). "What time" asks
#: "when" ("What time is the weekly call with Abuela?": the note says "Sundays 18:00", not "time"), but
#: not in "what time management techniques", "what time zone".
_FRAMING = re.compile(r"\bwork(?:s|ed|ing)?\s+on\b"
                      r"|\bwhat\s+time\b(?!\s+(?:management|zones?|frames?|slots?|periods?|lines?|tables?|sheets?)\b)"
                      r"|\b(?:so|thus)\s+far\b(?!\s+(?:from|away|off|apart|behind|ahead|beyond|out|back|into)\b)"
                      r"|\b(?:up\s+)?(?:to|until|till)\s+now\b|\bin\s+the\s+meantime\b|\bas\s+(?:of\s+)?yet\b", re.I)


def _unframed(m: re.Match) -> str:
    """A `_FRAMING` phrase blanked out, but kept when it is a name: every word capitalised after the first word
    of the question ("What did So Far Sounds play?"), as a capitalised function word is kept (`query_terms`)."""
    return m[0] if m.start() > 0 and all(w[:1].isupper() for w in m[0].split()) else " "


def query_terms(text: str, limit: int = MAX_KEYWORD_TERMS, skip: frozenset[str] = frozenset(),
                language: str | None = None) -> list[str]:
    """The distinct words of `text` (letters, digits, combining marks), first seen first; a word in a
    script written without spaces gives its character pairs instead (`segment.query_words`).

    Everything else (spaces, punctuation, quotes, operators such as ``*`` or
    ``^``, symbols, emoji, control characters) separates words. Case-folded
    duplicates and words whose case-folded form is in `skip` are dropped,
    except a capitalised word after the first one: there "May" is a month and
    "Will" a name, not a function word. With a `skip`, a query in German,
    French or Spanish also drops that language's function words
    (`function_words.other_function_words`: "hat", "den", "beim"; `language`, the whole question's, counts its
    homographs: "ne var" once "Bu akşam" is blanked out), and a Korean word whose stem
    (`segment.korean_stem`) is a Korean function word is dropped whatever its particle
    (`function_words.KOREAN`: "언제까지야", "어떻게", "있어"), as is a Japanese one (`function_words.JAPANESE`: "何").
    """
    if skip:  # a keyword query: "Ben's load test" looks for Ben, load and test, not for "s" (nor "work on")
        text = _FRAMING.sub(_unframed, ENGLISH_CLITIC.sub("", text))
    runs = _words(text)
    if skip:
        skip = skip | other_function_words(runs, skip, language)
    terms, seen = [], set()
    for position, run in enumerate(runs):
        # A Korean function word, whatever particle it holds ("언제까지야"); a Japanese one written alone ("いくら？": its
        # pairs, "いく" and "くら", would not be one)
        if skip and (korean_stem(run) in KOREAN or run in JAPANESE):
            continue
        # A run of CJK or Thai gives its bigrams, an umlaut word its other spelling (`segment`).
        for word in query_words(run):
            key = word.casefold()
            # A capitalised stop word after the first word is a name or a month ("in May", "Will said").
            skipped = (key in skip and (position == 0 or len(word) < 2 or not word[:1].isupper())
                       or bool(skip) and key in JAPANESE)
            if key not in seen and not skipped:
                seen.add(key)
                terms.append(word)
        if len(terms) >= limit:
            break
    return terms[:limit]


def _words(text: str) -> list[str]:
    """The runs of `text` that `query_terms` reads as words (letters, digits, combining marks but a variation selector
    or a keycap, `_EMOJI_MARKS`; private use), before any segmentation. An identifier stays one word: runs joined by
    "_" ("wait_healthy") or by "." before a letter or digit ("config.toml", "os.path", "2.1.5"; not "e.g"), which the
    keyword index then looks for as the phrase of its parts ("wait healthy" next to each other: never "wait" alone)."""
    words, current = [], []
    for position, ch in enumerate(text):
        category = unicodedata.category(ch)
        if category[0] in _TOKEN_CATEGORIES and not (category[0] == "M" and ch in _EMOJI_MARKS) or category == "Co":
            current.append(ch)
        elif current and ch in _JOINERS and _joins(text, position, current):
            current.append(ch)
        elif current:
            words.append("".join(current))
            current = []
    if current:
        words.append("".join(current))
    return words


#: What joins the parts of an identifier (`_words`).
_JOINERS = frozenset("_.")
#: The marks that say how the character before them is drawn, not what it is: the variation selectors (U+FE0E text,
#: U+FE0F emoji: "☎️", "❤️"; U+E0100-E01EF, a kanji's glyph) and the keycap (U+20E3: "1️⃣"). Marks by their category,
#: they separate words, as FTS5's tokenizer reads them (and PostgreSQL's parser after an emoji; a zero-width joiner
#: parts words on both sides already): "☎️ number of the GP" asks what "☎ number of the GP" asks, "❤️Anna" "Anna".
_EMOJI_MARKS = frozenset(map(chr, [*range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0), 0x20E3]))


def _joins(text: str, position: int, current: list[str]) -> bool:
    """Whether the "_" or "." at `position` joins the word before it (`current`) to the word after it: both
    written without spaces' scripts aside (`segment.has_runs`), a letter or digit next, and for a "." not a
    one-letter abbreviation ("e.g.", "U.S.")."""
    after = text[position + 1:position + 2]
    if not after or unicodedata.category(after)[0] not in ("L", "N") or has_runs(after) or has_runs(current[-1]):
        return False
    if text[position] == "_":
        return True
    before = len(current) - max((i for i, c in enumerate(current) if c in _JOINERS), default=-1) - 1
    return not (before == 1 and current[-1].isalpha() and after.isalpha()
                and not text[position + 2:position + 3].isalnum())


class WordRows:
    """Each query word's chunks in the keyword index, read at most once per search: the keyword terms
    count a word, and keyword coverage and knowledge updates ask which chunks hold it (three or four
    reads of the same rows before)."""

    def __init__(self, store: Store, limit: int = WORDS_HELD_SCAN):
        self.store, self.limit, self._rows = store, limit, {}
        #: a word found nowhere that begins longer words: its prefix term (`keyword_terms`), read in its place
        self.prefixes: dict[str, str] = {}

    def rows(self, term: str) -> list[int] | None:
        """The ids of the chunks holding `term` (as the keyword index reads it: a word found nowhere as the start
        of the words it begins, `prefixes`); None when more than `limit` do."""
        if term not in self._rows:
            found = self.store.chunks_holding(self.term(term), self.limit + 1)
            self._rows[term] = None if len(found) > self.limit else found
        return self._rows[term]

    def term(self, word: str) -> str:
        """The term the keyword index is asked for `word`: its prefix term when it has one."""
        return self.prefixes.get(word, word)

    def begins(self, word: str, prefix: str) -> None:
        """`word` is read as `prefix` from now on (its rows read again)."""
        self.prefixes[word] = prefix
        self._rows.pop(word, None)

    def rows_of(self, terms: list[str]) -> list[list[int] | None]:
        """`rows` of each of `terms`, those not read yet in one call (one round trip on PostgreSQL)."""
        unread = [term for term in dict.fromkeys(terms) if term not in self._rows]
        for term, found in zip(unread, self.store.chunks_holding_each(unread, self.limit + 1)):
            self._rows[term] = None if len(found) > self.limit else found
        return [self._rows[term] for term in terms]


_KANA = re.compile(r"[\u3040-\u30ff]")
_CJK_QUESTION = re.compile("|".join(re.escape(w).replace(r"\ ", r"\s*") for w in CJK_QUESTION_WORDS))


def asks_besides_time(untimed: str, language: str | None) -> bool:
    """Whether a question, its time phrases blanked out (`timeq.without_time`), asks about anything besides
    that time: a word that is no function word of its language, says no more than that something is still
    to come ("due", "planned", "予定": `tense.without_cues`), asks no question in Japanese, Chinese or Korean
    ("什么", "뭐") nor in English ("doing", "plans": `function_words.ENGLISH_ASKING`), and is no single CJK
    character that says nothing ("の", "有", "해": `CJK_FUNCTION_CHARACTERS`, any kana; in Japanese
    `JAPANESE_FUNCTION_CHARACTERS`, as "会" is a gathering). "What's due tomorrow?", "What am I doing tomorrow?",
    "Was steht morgen an?" and "明日の予定は？" ask about the time alone; "明天有雨吗？", "내일 비 와?" about rain,
    "来週の会はどこ？" about a gathering."""
    text = _CJK_QUESTION.sub(" ", tense.without_cues(untimed, language))
    nothing = JAPANESE_FUNCTION_CHARACTERS if language == "Japanese" else CJK_FUNCTION_CHARACTERS
    return any(len(term) > 1 or not has_runs(term) or term not in nothing and not _KANA.match(term)
               for term in query_terms(text, skip=STOPWORDS | ENGLISH_ASKING | function_words_of(language)))


def keyword_terms(store: Store, query: str, total_chunks: int,
                  postings: int = KEYWORD_POSTINGS, counts: dict[str, int] | None = None,
                  words: WordRows | None = None, language: str | None = None) -> list[str]:
    """The words of `query` that keyword search uses, rarest first.

    English function words (`STOPWORDS`) are left out. Each other word's
    document frequency is counted first (cheaply, capped). Words in more than
    half of the chunks are left out too (except in a memory of one chunk):
    FTS5 gives them no BM25 weight, so they would only add matches scored
    zero. The rest are used rarest first while their frequencies fit the
    `postings` budget. `counts`, when given, gets each word's count (capped past half of the chunks).
    `words` reads each word once for the whole search. A word found nowhere is asked as the start of
    longer words (`_prefixed`), or, in a German or Dutch question (`language`), as the memory's inflection of it
    or the parts of a compound the memory holds apart (`compounds.parts`: "Zusatzproben" as "zusatz*" and "proben").
    """
    terms = query_terms(query, skip=STOPWORDS, language=language)
    if not terms or total_chunks <= 0:
        if counts is not None:  # an empty memory holds none of them (`nowhere_weight`)
            counts.update(dict.fromkeys(terms, 0))
        return []
    ceiling = min(max(total_chunks // 2, 1), postings)  # a memory of one chunk still matches its words
    if words is not None and ceiling <= words.limit:
        found = words.rows_of(terms)
        known = [ceiling + 1 if rows is None else min(len(rows), ceiling + 1) for rows in found]
    else:
        known = store.keyword_counts(terms, ceiling + 1)  # one round trip for all the words
    # A word found nowhere may begin longer words (a German compound's first part): it is asked for as their start.
    prefixes = {}
    for term, prefix, count in _prefixed(store, terms, known, ceiling):
        known[terms.index(term)] = count
        prefixes[term] = prefix
        if words is not None:
            words.begins(term, prefix)
    # A word found nowhere that the memory holds otherwise inflected is read as that word; a compound is asked by
    # both its parts and read as the rarer one (whether a passage holds it, its weight).
    asked = {}
    for term, found in _compounds(store, terms, known, ceiling, language, tuple(_words(query)[:1])):
        rarer, count = min(found, key=lambda part: part[1])
        known[terms.index(term)] = count
        asked[term] = found
        if words is not None:
            words.begins(term, rarer)
    if counts is not None:
        counts.update(zip(terms, known))
    # Each part of a compound is kept as the word asked apart would be (the ceiling, the postings budget).
    spread: dict[str, int] = {}
    for term, count in zip(terms, known):
        for part, held in asked.get(term, [(prefixes.get(term, term), count)]):
            spread.setdefault(part, held)
    return rarest_within(list(spread), list(spread.values()), ceiling, postings)


def _prefixed(store: Store, terms: list[str], known: list[int], ceiling: int) -> list[tuple[str, str, int]]:
    """(word, prefix term, chunks holding a word it begins: up to `ceiling` + 1) of each of `terms` found nowhere
    (`known`: their counts) that begins words in the memory and is stored unstemmed (`PREFIX_LETTERS`)."""
    nowhere = [term for term, count in zip(terms, known)
               if count == 0 and len(term) >= PREFIX_LETTERS and _LATIN_WORD.fullmatch(term)]
    if not nowhere:
        return []
    asked = [term + PREFIX for term in nowhere]
    return [(term, prefix, count) for term, prefix, count in zip(nowhere, asked, store.keyword_counts(asked, ceiling + 1))
            if count and unstemmed(term)]


def _compounds(store: Store, terms: list[str], known: list[int], ceiling: int, language: str | None,
               first: tuple[str, ...] = ()) -> list[tuple[str, list[tuple[str, int]]]]:
    """(word, `compounds.parts` of it) of each of `terms` still found nowhere (`known`: their counts) in a German
    or Dutch question that the memory holds otherwise inflected or as the parts of a compound. The question's
    `first` word is capitalised as a sentence begins: it says nothing of whether the question writes its nouns
    so ("Zeig mir den zahnarzttermin")."""
    if language not in compounds.COMPOUNDING:
        return []
    skip = STOPWORDS | function_words_of(language)
    opening = {word for run in first for word in query_words(run)}
    nouns = compounds.COMPOUNDING[language] and any(term[:1].isupper() for term in terms if term not in opening)
    found = [(term, compounds.parts(store, term, ceiling + 1, skip, nouns))
             for term, count in zip(terms, known) if count == 0]
    return [(term, parts) for term, parts in found if parts]


def rarest_within(terms: list[str], known: list[int], ceiling: int, postings: int,
                  counts: dict[str, int] | None = None) -> list[str]:
    """The words found in 1 to `ceiling` places (`known`: each word's capped count), rarest first,
    while their counts fit the `postings` budget; `counts`, when given, gets every word's count."""
    frequencies = []
    for term, count in zip(terms, known):
        if counts is not None:
            counts[term] = count
        if 0 < count <= ceiling:
            frequencies.append((count, term))
    kept, used = [], 0
    for count, term in sorted(frequencies, key=lambda pair: pair[0]):
        if used + count > postings:
            break
        kept.append(term)
        used += count
    return kept


def nowhere_weight(counts: dict[str, int], total: int,
                   tools: tuple[dict[str, int], int] | None = None) -> tuple[list[str], float]:
    """The query's words found nowhere in a memory of `total` chunks (a count of 0 in `counts`, chunk
    texts and tool texts together) and their weight on BM25's scale: FTS5's idf of a word in no chunk,
    each, which is what a chunk holding the word once at the average length would add to its score.
    `ranking.keyword_relevance` counts them as missing from every match. A word and its other spelling
    (`segment.query_words`: "München", "Muenchen") are one word: found when either is, counted once.

    No words and no weight when every word the memory does hold is in at least half of its chunks, as in a memory of one or
    two notes, and of its tool texts where they hold it (`tools`: each word's count among the tool texts,
    also in `counts`, and how many there are): FTS5 gives such a word its floor idf (1e-6), so any word
    found nowhere would outweigh every match by a million and wipe out the keyword part; the match stays
    relative to the best, as it was. A word in fewer tool texts weighs, wherever its chunks are."""
    in_tools, tool_texts = tools or ({}, 0)
    held = [(count - in_tools.get(word, 0), in_tools.get(word, 0)) for word, count in counts.items() if count > 0]
    if held and all((not text or 2 * text >= total) and (not tool or 2 * tool >= tool_texts) for text, tool in held):
        return [], 0.0
    # Each word counted nowhere, with its other spellings (an umlaut word's without it), read once; "many"
    # asks how many of something (a keyword where memory says it, no missing subject where it does not).
    others = {word: query_words(word)[1:] for word, count in counts.items() if count == 0
              and word.casefold() not in ASKING and word not in NEGATIONS}  # "How Many cats": no name here
    missing = [word for word, spellings in others.items() if not any(counts.get(s) for s in spellings)]
    spellings = {spelling for word in missing for spelling in others[word]}
    missing = [word for word in missing if word not in spellings]
    return missing, len(missing) * float(np.log((total + 0.5) / 0.5)) if total > 0 else 0.0


def keyword_search(store: Store, query: str, total_chunks: int, limit: int | None,
                   postings: int = KEYWORD_POSTINGS, terms: list[str] | None = None) -> list[tuple[int, float]]:
    """(chunk id, bm25) of the best keyword matches for `query`, best first, using its
    `keyword_terms` (or `terms` when the caller already has them).
    `limit` None returns every match (the evaluation's BM25 baseline).
    """
    kept = keyword_terms(store, query, total_chunks, postings) if terms is None else terms
    if not kept:
        return []
    return store.keyword_matches(kept, limit)


# ---------------------------------------------------------------- tool texts (keyword only)

#: How many tool texts of one result its answer names (the best matches first).
TOOL_MATCHES_SHOWN = 3
#: A result shows an excerpt of its best tool text when tool texts gave at least this share of its keyword
#: score (reading it back costs a read of the transcript up to that line).
TOOL_EXCERPT_SHARE = 0.5


@dataclass(frozen=True)
class ToolMatch:
    """A tool text (`documents.ToolText`) holding query words, and the chunk whose turn made the call."""

    chunk_id: int
    bm25: float
    tool: str
    side: str  # "input" or "output"
    line: int  # the file line of the record holding the text

    def as_dict(self) -> dict:
        return {"tool": self.tool, "side": self.side, "line": self.line}


def tool_terms(store: Store, query: str, total: int, counts: dict[str, int] | None = None,
               postings: int = KEYWORD_POSTINGS) -> list[str]:
    """The words of `query` looked up in tool texts, rarest first: `keyword_terms`' rules, over the
    `total` tool texts (a word in more than half of them has no weight). `counts` gets each word's count."""
    terms = query_terms(query, skip=STOPWORDS)
    if not terms or total <= 0:
        return []
    ceiling = min(max(total // 2, 1), postings)
    known = store.tool_keyword_counts(terms, ceiling + 1)  # one round trip on PostgreSQL
    return rarest_within(terms, known, ceiling, postings, counts)


def tool_search(store: Store, terms: list[str], limit: int) -> list[ToolMatch]:
    """The best `limit` tool texts holding any of `terms` (`tool_terms`), best first."""
    if not terms:
        return []
    return [ToolMatch(int(r[0]), float(r[1]), r[2], r[3], int(r[4])) for r in store.tool_matches(terms, limit)]


def tool_words_held(store: Store, query: str, chunk_ids: np.ndarray) -> np.ndarray:
    """`words_held` for the chunks' tool texts: which query words each chunk's tool texts hold."""
    terms = query_terms(query, skip=STOPWORDS)
    ids = np.asarray(chunk_ids, dtype=np.int64)
    held = np.zeros((ids.shape[0], len(terms)), dtype=bool)
    if not terms or not ids.shape[0]:
        return held
    for column, term in enumerate(terms):
        rows = store.chunks_holding_in_tools(term, WORDS_HELD_SCAN + 1)
        if len(rows) > WORDS_HELD_SCAN:
            rows = store.chunks_holding_in_tools(term, WORDS_HELD_SCAN + 1, among=ids.tolist())
        held[:, column] = np.isin(ids, rows)
    return held


def words_held(store: Store, query: str, chunk_ids: np.ndarray, words: WordRows | None = None) -> np.ndarray:
    """(len(chunk_ids), query words) bool: which words of `query` (function words aside) each chunk
    holds, as the keyword index reads them (stemmed: "runs" holds "run"). One lookup per word,
    restricted to the given chunks (`ranking.supersessions` asks about a few dozen). `words`: the
    search's rows of each word, read once."""
    terms = query_terms(query, skip=STOPWORDS)
    ids = np.asarray(chunk_ids, dtype=np.int64)
    held = np.zeros((ids.shape[0], len(terms)), dtype=bool)
    if not terms or not ids.shape[0]:
        return held
    words = words if words is not None and words.limit == WORDS_HELD_SCAN else WordRows(store)
    for column, term in enumerate(terms):
        # A word in at most `WORDS_HELD_SCAN` chunks: read all of them (a fraction of a millisecond).
        rows = words.rows(term)
        if rows is None:
            # A common word: look each chunk up instead (for a rare word that was 15x slower on SQLite
            # than reading it all).
            rows = store.chunks_holding_among(words.term(term), ids.tolist())
        held[:, column] = np.isin(ids, rows)
    return held


#: Keyword coverage is read for the best keyword matches only (the same number as the search's own
#: `keyword_candidates` default): the chunk holding most of the query's rare words is among BM25's first.
COVERAGE_CANDIDATES = 200


def keyword_coverage(store: Store, query: str, snap: "Snapshot",
                     matches: list[tuple[int, float]], counts: dict[str, int] | None = None,
                     tool_matches: list[ToolMatch] = (), words=None) -> np.ndarray:
    """(N,) the share of the query's words (function words aside) each keyword match holds, each word
    weighted by its rarity in the memory (BM25's idf: a word found nowhere weighs most); 0 elsewhere.

    Unlike the keyword score, which is relative (the query's best match is 1
    however poor), this is absolute: a question about someone the memory never
    mentions leaves that name's weight out of every chunk, while an identifier
    or a date that a note holds covers the whole query. Read for the first
    `COVERAGE_CANDIDATES` matches (and of `tool_matches`, whose chunks hold
    the words of their tool texts as `words(chunk ids)` says; default
    `words_held`); `counts` are the word counts (each word is counted here otherwise)."""
    coverage = np.zeros(len(snap.chunk_ids))
    terms = query_terms(query, skip=STOPWORDS)
    total = snap.chunk_count
    if not terms or not (matches or tool_matches) or not len(snap.chunk_ids):
        return coverage
    ids = np.array(list(dict.fromkeys([m[0] for m in matches[:COVERAGE_CANDIDATES]]
                                      + [m.chunk_id for m in tool_matches[:COVERAGE_CANDIDATES]])), dtype=np.int64)
    cap = min(max(total // 2, 1), KEYWORD_POSTINGS)
    if counts is None:
        counts = dict(zip(terms, store.keyword_counts(terms, cap + 1)))
    df = np.array([counts.get(t, 0) for t in terms], dtype=np.float64)
    df = np.where(df > cap, np.maximum(df, total / 2), df)  # past the cap: a common word, weighed as one
    idf = np.log((total - df + 0.5) / (df + 0.5) + 1.0)
    # "many" (how many) the memory says nowhere is no word missing from a match (`nowhere_weight`)
    idf[[(t.casefold() in ASKING or t in NEGATIONS) and not counts.get(t, 0) for t in terms]] = 0.0
    if not idf.sum():
        return coverage
    held = words(ids) if words is not None else words_held(store, query, ids)
    share = held.astype(np.float64) @ idf / idf.sum()
    pos = np.minimum(np.searchsorted(snap.chunk_ids, ids), len(snap.chunk_ids) - 1)
    known = snap.chunk_ids[pos] == ids  # a chunk written after the snapshot is ignored
    coverage[pos[known]] = share[known]
    return coverage


def chunk_positions(snap: "Snapshot", ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions of chunk `ids` in the snapshot, and which are in it (one written after it is not)."""
    return positions(snap.chunk_ids, ids)


def keyword_parts(snap: "Snapshot", matches: list[tuple[int, float]],
                  tool_matches: list[ToolMatch], nowhere: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Per chunk: keyword relevance (0..1) from its own text's matches and its tool texts' best match
    (`ranking.keyword_relevance_with_tools`), and the share of it that its tool texts gave; `nowhere`:
    the weight of the query's words found nowhere (`nowhere_weight`)."""
    n = len(snap.chunk_ids)
    if not tool_matches or not n:
        return keyword_scores(snap, matches, nowhere), np.zeros(n)
    own, tool = np.full(n, np.nan), np.full(n, np.nan)
    if matches:
        pos, known = chunk_positions(snap, np.array([m[0] for m in matches], dtype=np.int64))
        own[pos[known]] = np.array([m[1] for m in matches], dtype=np.float64)[known]
    pos, known = chunk_positions(snap, np.array([m.chunk_id for m in tool_matches], dtype=np.int64))
    values = np.array([m.bm25 for m in tool_matches], dtype=np.float64)[known]
    best = np.zeros(n)
    np.minimum.at(best, pos[known], values)  # bm25 is negative: the lowest is a chunk's best tool text
    tool[pos[known]] = best[pos[known]]
    return ranking.keyword_relevance_with_tools(own, tool, nowhere=nowhere)


def keyword_scores(snap: "Snapshot", matches: list[tuple[int, float]], nowhere: float = 0.0) -> np.ndarray:
    """Per-chunk keyword relevance (0..1) from `keyword_search` matches; unmatched chunks 0 (`nowhere`:
    `keyword_parts`)."""
    relevance = np.zeros(len(snap.chunk_ids))
    if matches and len(snap.chunk_ids):
        ids = np.array([m[0] for m in matches], dtype=np.int64)
        values = np.array([m[1] for m in matches], dtype=np.float64)
        pos = np.minimum(np.searchsorted(snap.chunk_ids, ids), len(snap.chunk_ids) - 1)
        known = snap.chunk_ids[pos] == ids  # a chunk written after the snapshot was taken is ignored
        relevance[pos[known]] = ranking.keyword_relevance(values[known], nowhere)  # the rest: no match, 0
    return relevance
