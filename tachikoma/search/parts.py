"""A question that names several things asks about each: "Which came first: Elena's talk in Vienna, the
climbing refresher at Kosmos, or the Porto trip?".

Read as one, such a question's meaning is the mean of its things and its keywords are spread over them, so no
memory holds most of it: each of the memories that hold one thing matches a third of it, and the question gets
"no good match" or the one thing nearest the mean. So its things are searched too, each on its own
(`named`), and the answers are put together (`merged`): each answer's results by their score relative to that
answer's best, so the best memory for each thing ranks near the top beside the question's own best.

Pure: no index, no embedder (`Searcher.search` asks and gives the answers).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .keywords import STOPWORDS

#: At most this many things are searched on their own (a longer list is read as one question).
MAX_PARTS = 5
#: A thing is at most this many words ("I signed up for the rewards program at ShopRite" is one).
MAX_PART_WORDS = 12
#: Words that lead into the list and belong to no thing: "Which came first:", "what shipped first -", "order these".
_LEAD = re.compile(r"^.*?(?::|\b(?:first|earlier|sooner|later|last)\s*[,:\-–—]|\border\s+these\b)\s*", re.I)
#: A part that asks a question of its own or says what someone did: the list is of questions or clauses, not things.
_ASKS = re.compile(r"(?:what|when|where|who|whom|whose|why|how|which|did|do|does|is|are|was|were|i|we|you)\b|"
                   r".*\b(?:what|when|where|why|how)\b", re.I)
#: A sentence's phrase set off by commas, not a thing: one that opens with a preposition ("at the office", "in the
#: end") or a lone adverb or interjection ("Honestly", "However", "Yesterday"). Searched alone, "in the end" matches
#: every note holding "end": "Honestly, in the end, nobody knew X" would be answered though no memory holds X.
_PHRASE = re.compile(r"(?:about|across|after|against|along|among|around|at|before|behind|between|beyond|by|despite|"
                     r"during|for|from|in|inside|into|near|of|on|onto|over|since|through|throughout|till|to|toward|"
                     r"towards|under|until|upon|via|with|within|without)\s|"
                     r"(?:actually|again|also|anyhow|anyway|apparently|basically|besides|clearly|finally|first|"
                     r"fortunately|frankly|furthermore|hello|hey|hi|honestly|hopefully|however|ideally|instead|"
                     r"interestingly|lately|later|luckily|meanwhile|moreover|now|obviously|oh|ok|okay|otherwise|"
                     r"personally|please|recently|sadly|secondly|seriously|so|sorry|still|surprisingly|thanks|then|"
                     r"though|today|tomorrow|tonight|unfortunately|well|yeah|yes|yesterday)$", re.I)
#: The small words a title leaves in lower case: "Pride and Prejudice", "A Tale of Two Cities".
_TITLE_SMALL = frozenset("a an and as at but by for from in into nor of on or over the to up with".split())
#: "and" or "or" inside a thing before the last: the commas do not set off things ("first, second and third among
#: Emma, Rachel and Alex" is one question about three people, not "second and third among Emma", "Rachel", "Alex").
_JOINED = re.compile(r"\s(?:and|or)\s", re.I)
#: A dash after the last thing starts what is asked of them all: "A, B and C - what does each cost?".
_ASKED_AFTER = re.compile(r"\s+[-–—]\s+.*$")
_WORD = re.compile(r"\w{2,}")
#: A list of three or more: "A, B(,) and/or C" or "A, B, C".
_SEPARATOR = re.compile(r"\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+(?=[^,]*$)", re.I)
#: Commas alone between things, and a list whose last thing follows ", or"/", and" and holds "and" or "or" itself
#: ("…, Crime and Punishment, or Pride and Prejudice": a list of titles, where the last is one title).
_COMMAS = re.compile(r"\s*,\s*(?:(?:and|or)\s+)?", re.I)
_OXFORD = re.compile(r",\s*(?:and|or)\s+[^,]*\s(?:and|or)\s[^,]*$", re.I)
#: What ends a list and belongs to no thing: "in date order", "from earliest to latest", "in order".
_TAIL = re.compile(r"\s+(?:in\s+(?:date\s+|chronological\s+|the\s+right\s+)?order|from\s+\w+\s+to\s+\w+|"
                   r"oldest\s+to\s+newest|newest\s+to\s+oldest|for\s+me|please)\b.*$", re.I)


def named(query: str) -> list[str]:
    """The things `query` names in a list of three to `MAX_PARTS`, separated by commas ("the Christmas market,
    Mum's 70th and Theo's nativity"), after what leads into it ("Which came first:") and before what it ends in
    ("in date order", "- what does each cost"). Each is at most `MAX_PART_WORDS` words and holds a word to look
    for, and is given once (three distinct at least); otherwise [] (the question is read as one). Two things
    ("which came first, A or B") are read as one question: it holds each of them half, and searching them apart
    lowered first places on LongMemEval and LoCoMo while gaining nothing (docs/evaluation.md). English only."""
    text = query.strip().rstrip("?.!").strip()
    lead = _LEAD.match(text)
    body = _TAIL.sub("", text[lead.end():] if lead else text)
    parts = _cleaned(_SEPARATOR.split(body)) if "," in body else []
    if _OXFORD.search(body):  # "…, or Pride and Prejudice": in a list of titles the last keeps its "and"
        commas = _cleaned(_COMMAS.split(body))
        parts = commas if all(_title(p, 1) for p in commas) else parts
    if len(parts) < 3:
        return []
    # A list of titles (each part one, a lone word capitalised too): a title names a thing even when it opens with a
    # preposition or a question word or holds "and". Not a title among other parts: "Did Alice, Bob and Carol meet?"
    titled = [_title(p) for p in parts] if all(_title(p, 1) for p in parts) else [False] * len(parts)
    if len(parts) > MAX_PARTS or any(_JOINED.search(p) and not t for p, t in zip(parts[:-1], titled)) or any(
            len(p.split()) > MAX_PART_WORDS or (_ASKS.match(p) or _PHRASE.match(p)) and not t
            or not any(w.lower() not in STOPWORDS for w in _WORD.findall(p)) for p, t in zip(parts, titled)):
        return []  # not a list of things: a list of questions ("when it started, what she said"), a clause,
        # a sentence's phrases ("Honestly, in the end, ..."), commas inside a longer sentence
    distinct = [p for i, p in enumerate(parts) if p.casefold() not in {q.casefold() for q in parts[:i]}]
    return distinct if len(distinct) >= 3 else []


def _cleaned(parts: list[str]) -> list[str]:
    """The things of a list as `_SEPARATOR` or `_COMMAS` cut it: what is asked after the last left out, and the
    punctuation around each."""
    parts = [*parts[:-1], _ASKED_AFTER.sub("", parts[-1])] if parts else parts
    return [p.strip(" :-–—\"'“”‘’") for p in parts]


def _title(part: str, least: int = 2) -> bool:
    """`part` is written as a title, of `least` words or more, each capitalised but a title's small words: "Before
    Sunrise", "When Harry Met Sally", "Pride and Prejudice" name things, where "in the end" or "when it broke" does
    not."""
    words = part.split()
    return len(words) >= least and words[0][:1].isupper() and all(
        w[:1].isupper() or not w[:1].isalpha() or w in _TITLE_SMALL for w in words[1:])


def merged(whole: dict, parts: list[str], answers: list[dict], limit: int) -> dict:
    """`whole` (the question's answer) with the results of `answers` (each part's, in `parts`' order) put
    together: every answer with a good match gives its results, each scored relative to that answer's best
    (its best 1.0), and they are ranked by that (ties: the question's own first, then the parts in order); a
    chunk given by several keeps its best; at most two passages a file (`ranking.rank`'s rule). A result found
    for a part says which (``found_for``), and the parts it ranks as high for, a tie it was not given for
    (``also_found_for``: a thing's best that is the question's own best too); the answer names the parts and how
    many results each gave (``named_parts``), those ties counted. With no good match for the question nor any part,
    `whole` as it is."""
    sources = [(None, whole)] + list(zip(parts, answers))
    good = [(part, answer) for part, answer in sources if not answer["no_good_match"] and answer["results"]]
    if not any(part is not None for part, _ in good):
        return whole
    best: dict[tuple, tuple] = {}
    tied: dict[tuple, list[str]] = {}  # the things a result ranks as high for as for the search it is given to
    for order, (part, answer) in enumerate(good):
        top = max(float(r["score"]) for r in answer["results"]) or 1.0
        for rank, result in enumerate(answer["results"]):
            key = (result.get("memory"), result["path"], result["chunk"])
            relative = float(result["score"]) / top
            if key not in best or relative > best[key][0]:
                best[key] = (relative, order, rank, part, result)
                tied[key] = []
            elif relative == best[key][0] and part is not None:
                tied[key].append(part)
    results, per_file = [], {}
    for relative, order, rank, part, result in sorted(best.values(), key=lambda b: (-b[0], b[1], b[2])):
        file = (result.get("memory"), result["path"])
        if per_file.get(file, 0) >= 2:
            continue
        per_file[file] = per_file.get(file, 0) + 1
        if part is not None:
            result = {**result, "found_for": part}
        also = tied[(result.get("memory"), result["path"], result["chunk"])]
        if also:  # (a tie goes to the question's own, then the first thing: it is found for these all the same)
            result = {**result, "also_found_for": also}
        results.append(result)
        if len(results) == limit:
            break
    keywords = list(whole["keywords"])
    for answer in answers:
        keywords += [k for k in answer["keywords"] if k not in keywords]
    match = dict(whole["match"])  # the best evidence of any of the searches, as several memories' answers give it
    for key in ("best_vector_similarity", "best_keyword_coverage", "best_pair_coverage"):
        found = [a["match"][key] for a in [whole, *answers] if a["match"].get(key) is not None]
        if found:
            match[key] = max(found)
    if whole["no_good_match"]:
        match["answered_by"] = next(a["match"]["answered_by"] for p, a in good if p is not None)
    return recounted({**whole, "results": results, "keywords": keywords, "no_good_match": False, "match": match,
                      "named_parts": [{"part": part, "results": 0, "no_good_match": answer["no_good_match"]}
                                      for part, answer in zip(parts, answers)]})


def best_scores(results: list[dict], value: Callable[[dict], float] | None = None) -> dict[str | None, float]:
    """The best score of each search `results` came from: the question's (None) and each thing's it names
    (``found_for``, `merged`); `value` reads a result's score (default: its ``score``). What a result's score is
    measured against: its rank (`ranking`), a budget's falloff (`replies.budget.select`)."""
    value = value or (lambda r: float(r.get("score") or 0))
    best: dict[str | None, float] = {}
    for r in results:
        best[r.get("found_for")] = max(best.get(r.get("found_for"), 0.0), value(r))
    return best


def ranking(results: list[dict]):
    """A sort key that ranks `results` again as `merged` ranked them: each by its score relative to the best of its
    own search (`best_scores`); for an answer that names nothing, by score. For what ranks results after a search:
    a stale result's score cut (`staleness.mark`, which asks for the key before it cuts any), several memories'
    answers merged (`pool.merge_answers`)."""
    best = best_scores(results)
    return lambda r: -float(r["score"]) / (best.get(r.get("found_for")) or 1.0)


def recounted(answer: dict) -> dict:
    """`answer` with each thing's count (``named_parts``) of the results it holds now: after stale results were
    left out (`fresh_only`), a cut to the limit, or several memories' answers merged."""
    if answer.get("named_parts"):
        given: dict[str, int] = {}
        for r in answer.get("results") or []:
            for part in [r.get("found_for"), *(r.get("also_found_for") or [])]:
                if part:
                    given[part] = given.get(part, 0) + 1
        answer["named_parts"] = [{**p, "results": given.get(p["part"], 0)} for p in answer["named_parts"]]
    return answer
