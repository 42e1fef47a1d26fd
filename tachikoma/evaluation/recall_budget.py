"""Recall within a token budget, measured on LongMemEval: how many answer turns the returned text holds.

LongMemEval labels the turns that hold a question's answer (``has_answer``). Each answerable
question is asked of its own memory (built and indexed as `longmemeval` does, through the same
vector cache) with tachikoma's defaults, 30 results, and the answer is given to an agent two ways
at each budget (500, 1,000 and 2,000 tokens by default):

- ``budget``: `recall.within_budget` (passages trimmed around what matched, never twice,
  duplicates once, the adaptive cut), its `agent_text` block;
- ``naive``: the top chunks in rank order, each with a heading line (``path:lines``) as the
  passages have, the last one cut so the whole fits the budget.

An answer turn is *inside* the returned text when the text holds a run of 20 consecutive words of
the turn (the whole turn when it is shorter), compared lowercased, word by word: a passage cut
off before the answering words does not count, a turn split over two chunks does when one holds
enough of it. Reported per budget and system: the share of all answer turns inside, the share of
questions with at least one answer turn inside, and the tokens used (`tokens.count`, mean and
largest), on the answerable questions that have labelled turns; the shares with 95% bootstrap
intervals, on each half too (`metrics.split_of`), and each system's difference from the naive cut.
"""

from __future__ import annotations

import gzip
import json
import os
import time
from contextlib import closing
from dataclasses import replace
from pathlib import Path

from ..replies import recall, tokens
from ..replies.budget import FALLOFF, words
from ..config import Config
from ..embedders import choose, offline_default
from ..errors import BadQuery, TachikomaError
from ..search.searcher import Searcher
from . import longmemeval, metrics

BUDGETS = (500, 1000, 2000)
RESULTS = recall.RESULTS
RUN_WORDS = 20


def answer_turns(path: Path) -> dict[str, dict[str, list[int]]]:
    """question id → session id → the positions (from 0) of its turns labelled ``has_answer``."""
    raw = Path(path).read_bytes()
    data = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
    out: dict[str, dict[str, list[int]]] = {}
    for item in data:
        found = {str(sid): [i for i, t in enumerate(turns) if t.get("has_answer")]
                 for sid, turns in zip(item["haystack_session_ids"], item["haystack_sessions"])}
        out[str(item["question_id"])] = {sid: idx for sid, idx in found.items() if idx}
    return out


def inside(turn_text: str, returned: str) -> bool:
    """The returned text holds `RUN_WORDS` consecutive words of the turn (all of a shorter turn)."""
    turn = words(turn_text)
    if not turn:
        return False
    haystack = " " + " ".join(words(returned)) + " "
    n = min(RUN_WORDS, len(turn))
    return any(" " + " ".join(turn[i:i + n]) + " " in haystack for i in range(len(turn) - n + 1))


def naive_text(results: list[dict], budget: int) -> str:
    """The top chunks in rank order, each after a ``path:first-last`` line, cut to `budget` tokens."""
    parts, used = [], 0
    for r in results:
        piece = f"{r['path']}:{r['lines'][0]}-{r['lines'][1]}\n{r['text']}\n"
        cost = tokens.count(piece)
        if used + cost > budget:
            rest = tokens.cut(piece, budget - used)
            if rest:
                parts.append(rest)
            break
        parts.append(piece)
        used += cost
    return "\n".join(parts)


def evaluate(path: Path, embedder_name: str | None = None, limit: int | None = None, base: Config | None = None,
             work: Path | None = None, cache: Path | None = None, budgets=BUDGETS, falloffs=(FALLOFF,),
             progress: bool = True, argv: list[str] | None = None) -> dict:
    """Run the measurement; `falloffs`: the adaptive cut's share of the best score, one system each
    (``budget`` for the default `FALLOFF`, ``budget-falloff-X`` for the others)."""
    started = time.perf_counter()
    labels = answer_turns(path)
    questions = [q for q in longmemeval.stratified(longmemeval.load(path), limit)
                 if not q.abstention and labels.get(q.ident)]
    if not questions:
        raise TachikomaError(f"{path}: no answerable questions with labelled answer turns")
    base = base or Config()
    base = replace(base, search=replace(base.search, min_score=0.0))  # every question has its answer
    embedder = longmemeval.VectorCache(choose(embedder_name or offline_default(), None),
                                       Path(cache) if cache else longmemeval.default_cache())
    rows = []
    with closing(longmemeval.indexed_haystacks(questions, embedder, base, work, progress, "budget")) as haystacks:
        for q, root, _, _, _ in haystacks:
            rows.append(_ask(q, root, labels[q.ident], embedder, base, budgets, falloffs))
    return {"meta": {"command": "tachikoma " + " ".join(argv) if argv is not None else None,
                     "data": str(path), "questions": len(rows), "embedder": embedder.name,
                     "falloffs": list(falloffs), "results_asked": RESULTS, "run_words": RUN_WORDS,
                     "seconds": round(time.perf_counter() - started, 1), "cpus": os.cpu_count()},
            "results": aggregate(rows, budgets, systems(falloffs)),
            "differences": differences(rows, budgets, systems(falloffs)), "per_question": rows}


def systems(falloffs) -> list[str]:
    return [system_name(f) for f in falloffs] + ["naive"]


def system_name(falloff: float) -> str:
    return "budget" if falloff == FALLOFF else f"budget-falloff-{falloff:g}"


def _ask(q, root: Path, labelled: dict[str, list[int]], embedder, config: Config, budgets, falloffs) -> dict:
    by_ident = {s.ident: s for s in q.sessions}
    gold = [by_ident[sid].turns[i]["content"] for sid, idx in labelled.items() if sid in by_ident for i in idx]
    searcher = Searcher(root, config, embedder=embedder)
    try:
        answer = searcher.search(q.text, RESULTS, now=q.date, config=config, widen=False)  # as `--budget` asks
    finally:
        searcher.close()
    row = {"question_id": q.ident, "type": q.kind, "split": metrics.split_of(q.ident), "answer_turns": len(gold),
           "budgets": {}}
    for b in budgets:
        cells = {}
        for falloff in falloffs:
            try:
                got = recall.within_budget(answer, b, root, falloff=falloff)
            except BadQuery:  # too small for one passage: the faces refuse it, so the agent gets nothing
                cells[system_name(falloff)] = {"inside": 0, "tokens": 0, "passages": 0, "left_out": {}, "refused": True}
                continue
            text = got["agent_text"]
            cells[system_name(falloff)] = {"inside": sum(inside(t, text) for t in gold), "tokens": tokens.count(text),
                                           "passages": len(got["budget"]["passages"]),
                                           "left_out": got["budget"]["left_out"]}
        text = naive_text(answer["results"], b)
        cells["naive"] = {"inside": sum(inside(t, text) for t in gold), "tokens": tokens.count(text)}
        row["budgets"][str(b)] = cells
    return row


SPLITS = ("dev", "held")


def _cell(rows: list[dict], b: str, name: str) -> dict:
    cells = [r["budgets"][b][name] for r in rows]
    turns = sum(r["answer_turns"] for r in rows)
    return {"turn_share": round(sum(c["inside"] for c in cells) / turns, 4) if turns else None,
            "question_share": round(sum(c["inside"] > 0 for c in cells) / len(rows), 4) if rows else None,
            "tokens_mean": round(sum(c["tokens"] for c in cells) / len(rows), 1) if rows else None,
            "tokens_max": max((c["tokens"] for c in cells), default=None),
            "refused": sum(bool(c.get("refused")) for c in cells)}


def _interval(found: dict) -> list[float] | None:
    return None if found["low"] is None else [round(found["low"], 4), round(found["high"], 4)]


def aggregate(rows: list[dict], budgets, names) -> dict:
    """budget → system → {"turn_share", "question_share", "tokens_mean", "tokens_max", their 95% bootstrap
    intervals ("turn_share_ci", "question_share_ci"), and "by_split": the same shares on each half
    (`metrics.split_of`: "dev" to choose rules on, "held" to report them)}."""
    out = {}
    for b in budgets:
        out[str(b)] = {}
        for name in names:
            cell = _cell(rows, str(b), name)
            inside = [r["budgets"][str(b)][name]["inside"] for r in rows]
            cell["turn_share_ci"] = _interval(metrics.bootstrap_share(inside, [r["answer_turns"] for r in rows]))
            cell["question_share_ci"] = _interval(metrics.bootstrap_share([x > 0 for x in inside], [1] * len(rows)))
            halves = {s: [r for r in rows if r.get("split", metrics.split_of(r["question_id"])) == s] for s in SPLITS}
            cell["by_split"] = {s: {k: v for k, v in _cell(half, str(b), name).items() if k.endswith("share")}
                                | {"questions": len(half)} for s, half in halves.items()}
            out[str(b)][name] = cell
    return out


def differences(rows: list[dict], budgets, names) -> dict:
    """budget → system → {"turn_share", "question_share"} → group ("overall", "dev", "held") → the
    system's share minus the naive cut's, paired by question, with its 95% bootstrap interval."""
    out: dict = {}
    for b in budgets:
        out[str(b)] = {}
        for name in (n for n in names if n != "naive"):
            out[str(b)][name] = {"turn_share": {}, "question_share": {}}
            for group in ("overall", *SPLITS):
                part = [r for r in rows if group == "overall" or r.get("split", metrics.split_of(r["question_id"])) == group]
                mine = [r["budgets"][str(b)][name]["inside"] for r in part]
                naive = [r["budgets"][str(b)]["naive"]["inside"] for r in part]
                out[str(b)][name]["turn_share"][group] = metrics.bootstrap_share(
                    mine, [r["answer_turns"] for r in part], naive)
                out[str(b)][name]["question_share"][group] = metrics.bootstrap_share(
                    [x > 0 for x in mine], [1] * len(part), [x > 0 for x in naive])
    return out


def _share(x: float | None) -> str:
    return "–" if x is None else f"{x:.3f}"


def _ci(cell: dict, key: str) -> str:
    low_high = cell.get(key + "_ci")
    return f"{cell[key]:.3f} [{low_high[0]:.3f}, {low_high[1]:.3f}]" if low_high else f"{cell[key]:.3f}"


def markdown(report: dict) -> str:
    meta, res = report["meta"], report["results"]
    lines = ["# Recall within a token budget (LongMemEval)", "",
             f"Command: `{meta['command']}`" if meta.get("command") else "",
             (f"{meta['questions']} answerable questions with labelled answer turns, {meta['embedder']}, "
             f"{meta['results_asked']} results asked; {meta['seconds']} s. In brackets: 95% bootstrap "
             "intervals (questions resampled)."), "",
             "| budget | system | answer turns inside | questions with one inside | tokens used, mean | max |",
             "|---:|---|---:|---:|---:|---:|"]
    for b, systems in res.items():
        for name, cell in systems.items():
            refused = f" ({cell['refused']} refused: too small for one passage)" if cell.get("refused") else ""
            lines.append(f"| {int(b):,} | {name} | {_ci(cell, 'turn_share')} | {_ci(cell, 'question_share')} | "
                         f"{cell['tokens_mean']:.0f} | {cell['tokens_max']}{refused} |")
    first = next(iter(next(iter(res.values())).values()), {})
    if first.get("by_split"):
        halves = first["by_split"]
        lines += ["", "By half (`metrics.split_of`; " + ", ".join(f"{s}: {halves[s]['questions']} questions"
                                                                  for s in SPLITS) + "):", "",
                  "| budget | system | turns inside, dev | held | questions with one, dev | held |",
                  "|---:|---|---:|---:|---:|---:|"]
        for b, systems in res.items():
            for name, cell in systems.items():
                d, h = cell["by_split"]["dev"], cell["by_split"]["held"]
                lines.append(f"| {int(b):,} | {name} | {_share(d['turn_share'])} | {_share(h['turn_share'])} | "
                             f"{_share(d['question_share'])} | {_share(h['question_share'])} |")
    diffs = report.get("differences") or {}
    if diffs:
        lines += ["", "Against the naive cut (difference of shares, paired by question, 95% bootstrap interval):", "",
                  "| budget | system | turns inside, all | dev | held | questions with one, all |",
                  "|---:|---|---:|---:|---:|---:|"]

        def fmt(x: dict) -> str:
            return "–" if x["difference"] is None else f"{x['difference']:+.3f} [{x['low']:+.3f}, {x['high']:+.3f}]"

        for b, systems in diffs.items():
            for name, d in systems.items():
                t, q = d["turn_share"], d["question_share"]
                lines.append(f"| {int(b):,} | {name} | {fmt(t['overall'])} | {fmt(t['dev'])} | {fmt(t['held'])} | "
                             f"{fmt(q['overall'])} |")
    return "\n".join(lines) + "\n"


def write_report(report: dict, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    md, js = out / "budget.md", out / "budget.json"
    md.write_text(markdown(report), encoding="utf-8")
    js.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return [md, js]
