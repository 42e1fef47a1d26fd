"""A German or Dutch compound asked that the memory holds only in parts: its parts, from the memory's own words.

"An welchen Samstagen sind die Zusatzproben?" asks for a word no note writes; the choir note says "Proben" and
"zusätzlich". The keyword index holds a compound as one word, so a compound asked whose parts a note writes apart
("Zahnarzttermin" against "Termin beim Zahnarzt") matched nothing. The packages that split compounds by a word list
are GPL-3 or CC BY-SA; the memory's own vocabulary is the word list here: a word found nowhere is split where its
last part is a word the memory holds and its first part is one too (as it is, without a linking "s", "es", "n",
"en", "e" or "er", or as the start of longer words: "Zusatz" begins "zusätzlich", accents folded). A word that is only
inflected otherwise ("Samstagen" against "Samstag") is read as the memory writes it, not split.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..store.fts import PREFIX, unstemmed

if TYPE_CHECKING:
    from ..store.protocol import Store

#: The languages whose questions are read for compounds (`function_words.question_language`), and whether
#: only a word written with a capital is one (German nouns; a question written all in lower case aside).
COMPOUNDING = {"German": True, "Dutch": False}
#: A compound is split only when it has at least this many letters, into a first part of at least
#: `HEAD_LETTERS` and a last part of at least `TAIL_LETTERS`: shorter parts are found in too many words by chance
#: ("Samstagen" is not "Sams" and "tagen").
COMPOUND_LETTERS, HEAD_LETTERS, TAIL_LETTERS = 8, 3, 4
#: A longer word is no compound but a string pasted in (each cut is a keyword count): it is not split.
LONGEST_COMPOUND = 64
#: The first part may be asked as the start of longer words when it has at least this many letters.
HEAD_PREFIX_LETTERS = 5
#: What joins a German or Dutch compound's parts, tried off the first part ("Samstags|proben", "Sonnen|brille"),
#: and the inflections' endings tried off a whole word ("Samstag|en", "Kind|er").
LINKS = ("es", "en", "er", "s", "n", "e")


def parts(store: Store, word: str, cap: int, skip: frozenset[str] = frozenset(),
          nouns: bool = False) -> list[tuple[str, int]]:
    """What the memory holds of `word`, a word it holds nowhere, as (term, chunk count up to `cap`): the word
    without an inflection's ending ("Samstagen": "samstag"), else the two parts of a compound (`split`); [] when
    it holds neither. No part is a function word of the question's language (`skip`). `nouns`: only a word
    written with a capital is a compound (German writes its nouns so; "eingereicht", a verb, is no "eing" and
    "reicht")."""
    letters = word.lower()
    if not COMPOUND_LETTERS <= len(letters) <= LONGEST_COMPOUND or not letters.isalpha():
        return []
    inflected = [letters[:-len(ending)] for ending in LINKS if letters.endswith(ending)]
    for stem, count in zip(inflected, store.keyword_counts(inflected, cap) if inflected else []):
        if count:
            return [(stem, count)]
    return split(store, letters, cap, skip) if word[:1].isupper() or not nouns else []


def split(store: Store, letters: str, cap: int, skip: frozenset[str] = frozenset()) -> list[tuple[str, int]]:
    """The (term, chunk count up to `cap`) of the first and last part of the compound `letters` (lower case),
    split where its longest last part the memory holds meets a first part it holds too (as written, without a
    linking letter, or as a prefix term); [] when there is no such split. One round trip for the last parts and
    one per last part found for the first."""
    cuts = [cut for cut in range(HEAD_LETTERS, len(letters) - TAIL_LETTERS + 1)  # first: the longest last part
            if letters[cut:] not in skip]
    tails = [letters[cut:] for cut in cuts]
    for cut, tail, count in zip(cuts, tails, store.keyword_counts(tails, cap) if tails else []):
        if not count:
            continue
        head = _head(store, letters[:cut], cap, skip)
        if head is not None:
            return [head, (tail, count)]
    return []


def _head(store: Store, head: str, cap: int, skip: frozenset[str]) -> tuple[str, int] | None:
    """The term for a compound's first part `head` and its count: as written, without a linking letter, or as
    the start of longer words; None when the memory holds none of them (or only a function word)."""
    asked = [head] + [head[:-len(link)] for link in LINKS
                      if head.endswith(link) and len(head) - len(link) >= HEAD_LETTERS]
    asked = [term for term in asked if term not in skip]
    if len(head) >= HEAD_PREFIX_LETTERS and head not in skip:  # "neben*" would hold the function word "neben"
        asked.append(head + PREFIX)
    for term, count in zip(asked, store.keyword_counts(asked, cap) if asked else []):
        # A prefix only unstemmed, as `keywords._prefixed` asks one ("arbeits*" would be "arbeit*", which begins
        # "arbeiten"; checked when found: a stemming costs as much as a count).
        if count and (not term.endswith(PREFIX) or unstemmed(head)):
            return term, count
    return None
