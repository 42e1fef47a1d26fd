"""Everyday questions: small memories people write for their own work, asked as they would ask them.

A set is a folder (``bench/everyday/<name>/``) written by hand, not generated:

* ``memory/…``: the files, each in its final content;
* ``manifest.json``: ``{"name", "style", "languages", "as_of", "commits": [{"date", "message", "files"}],
  "versions": {file: earlier content}}``: the history the memory had. A file listed in several commits
  is committed each time; when ``versions`` names an earlier content for it, its first commit holds that
  and the later ones its final content;
* ``questions.jsonl``: ``{"id", "question", "expected", "kind", "lang", "split"}`` a line; ``expected``
  are the files a person expects (any of them counts), empty for ``offtopic`` and ``nonsense``; for
  ``gather`` (a question whose answer is spread over several files: "which vendors did we drop") every
  file that holds a part of the answer.

The evaluation builds a real git repository from the manifest in a temporary folder (each commit
back-dated with GIT_AUTHOR_DATE and GIT_COMMITTER_DATE), indexes it with the normal indexer, and asks
every question through the normal search with the defaults, as of the set's ``as_of``. Each question is
asked twice: with the relevance floor (the answer a person gets) and with ``min_score`` 0 (where the
expected file ranks when nothing is held back).

Per question: top-1 and top-5 (an expected file among the first 1 or 5 distinct files of the answer;
"no good match" is a miss), whether the answer was "no good match", and the expected file's rank
without the floor; for a question that gathers also whether all its files are in the top 5 and which
share of them is (``all5``, ``share5``). Reported per memory, per kind, per language and per split, with a bootstrap 95%
interval on the overall figures.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import numpy as np

from ..indexer import runner
from ..config import Config
from ..embedders import auto, canonical_name, choose, offline_default
from ..errors import TachikomaError
from ..search.searcher import Searcher
from . import metrics, reports
from .longmemeval import VectorCache

KINDS = ("time", "person", "definition", "procedure", "fact", "inflection", "possessive", "update", "gather",
         "offtopic", "nonsense")
UNANSWERABLE = ("offtopic", "nonsense")
SPLITS = ("dev", "held")
TOP = 5  # files kept per question in per_question.jsonl
DEEP = 50  # results asked for without the floor, to find where the expected file ranks
BOOTSTRAP = 2000
DEFAULT_SETS = Path(__file__).resolve().parents[2] / "bench" / "everyday"


# ------------------------------------------------------------------ data

@dataclass
class Question:
    ident: str
    text: str
    expected: list[str]
    kind: str
    lang: str
    split: str
    #: ``direction`` in the set: "same" (the note is in the question's language) or "cross"; "": not said.
    direction: str = ""

    @property
    def answerable(self) -> bool:
        return self.kind not in UNANSWERABLE

    @property
    def across(self) -> str:
        """The question's group by languages: "same language", "across, from English", "across, from another
        language"; "" when the set does not say."""
        if self.direction == "same":
            return "same language"
        if self.direction == "cross":
            return "across, from English" if self.lang == "en" else "across, from another language"
        return ""


@dataclass
class EverydaySet:
    name: str
    folder: Path
    style: str
    languages: list[str]
    as_of: datetime
    commits: list[dict]
    versions: dict[str, str]
    questions: list[Question] = field(default_factory=list)


def _fail(where: Path, message: str) -> TachikomaError:
    return TachikomaError(f"{where}: {message}")


def load_set(folder: Path) -> EverydaySet:
    """One set, checked: every listed file exists, every file is listed, every question is well formed."""
    folder = Path(folder)
    manifest_path, questions_path, memory_dir = folder / "manifest.json", folder / "questions.jsonl", folder / "memory"
    for needed in (manifest_path, questions_path, memory_dir):
        if not needed.exists():
            raise _fail(folder, f"not an everyday set: {needed.name} is missing")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        as_of = datetime.fromisoformat(manifest["as_of"])
        commits = [{"date": datetime.fromisoformat(c["date"]).isoformat(), "message": str(c["message"]),
                    "files": [str(f) for f in c["files"]]} for c in manifest["commits"]]
        versions = {str(k): str(v) for k, v in (manifest.get("versions") or {}).items()}
        name, style = str(manifest["name"]), str(manifest.get("style", ""))
        languages = [str(x) for x in manifest.get("languages") or []]
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _fail(manifest_path, f"cannot read it ({exc})") from exc
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise _fail(manifest_path, f"malformed manifest ({exc.__class__.__name__}: {exc})") from exc
    if as_of.tzinfo is None:
        raise _fail(manifest_path, "as_of needs a time zone (…+01:00)")
    on_disk = {p.relative_to(memory_dir).as_posix() for p in memory_dir.rglob("*") if p.is_file()}
    listed = {f for c in commits for f in c["files"]}
    if listed - on_disk:
        raise _fail(manifest_path, f"commits name files that are not in memory/: {sorted(listed - on_disk)}")
    if on_disk - listed:
        raise _fail(manifest_path, f"files in memory/ that no commit adds: {sorted(on_disk - listed)}")
    for target, source in versions.items():
        if target not in listed or not (folder / source).is_file():
            raise _fail(manifest_path, f"versions: {target} → {source}: no such file or not committed")
    s = EverydaySet(name, folder, style, languages, as_of, commits, versions)
    seen: set[str] = set()
    for number, line in enumerate(questions_path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            direction = item.get("direction")  # absent or null: not said
            q = Question(str(item["id"]), str(item["question"]), [str(e) for e in item["expected"]],
                         str(item["kind"]), str(item.get("lang", "en")), str(item["split"]),
                         "" if direction is None else direction if isinstance(direction, str) else repr(direction))
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise _fail(questions_path, f"line {number}: {exc.__class__.__name__}: {exc}") from exc
        problem = (f"duplicate id {q.ident}" if q.ident in seen else
                   f"unknown kind {q.kind!r}" if q.kind not in KINDS else
                   f"split must be dev or held, not {q.split!r}" if q.split not in SPLITS else
                   f"direction must be same or cross, not {q.direction!r}" if q.direction not in ("", "same", "cross")
                   else
                   "an offtopic or nonsense question expects no file" if not q.answerable and q.expected else
                   "an answerable question needs an expected file" if q.answerable and not q.expected else
                   f"expected file not in memory/: {sorted(set(q.expected) - on_disk)}"
                   if set(q.expected) - on_disk else "")
        if problem:
            raise _fail(questions_path, f"line {number} ({q.ident}): {problem}")
        seen.add(q.ident)
        s.questions.append(q)
    if not s.questions:
        raise _fail(questions_path, "no questions")
    return s


def find_sets(paths: list[Path] | None) -> list[Path]:
    """The set folders: those given (a folder of sets stands for each set in it), else every set
    under bench/everyday."""
    paths = [Path(p) for p in paths] if paths else [DEFAULT_SETS]
    out: list[Path] = []
    for path in paths:
        if (path / "manifest.json").exists():
            out.append(path)
        elif path.is_dir() and any((child / "manifest.json").exists() for child in path.iterdir()):
            out += sorted(child for child in path.iterdir() if (child / "manifest.json").exists())
        else:
            raise TachikomaError(f"{path}: no everyday set here (a folder with manifest.json, or a folder of them)")
    return out


# ------------------------------------------------------------------ git

def _git(cwd: Path, *args: str, date: str | None = None) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull)
    if date:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = date
    done = subprocess.run(["git", "-c", "user.name=Everyday", "-c", "user.email=everyday@example.org",
                           "-c", "commit.gpgsign=false", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          check=False)
    if done.returncode:
        raise TachikomaError(f"git {' '.join(args[:2])} failed in {cwd}: {done.stderr.strip()}")


def build_repo(s: EverydaySet, root: Path) -> int:
    """A git repository in `root` with the set's history, commit by commit, back-dated; returns the commits."""
    root.mkdir(parents=True, exist_ok=True)
    _git(root, "init", "-q", "-b", "main")
    committed: set[str] = set()
    for commit in s.commits:
        for name in commit["files"]:
            source = (s.folder / s.versions[name] if name in s.versions and name not in committed
                      else s.folder / "memory" / name)
            target = root / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())
            committed.add(name)
        _git(root, "add", "--", *commit["files"])
        _git(root, "commit", "-q", "--allow-empty", "-m", commit["message"], date=commit["date"])
    return len(s.commits)


# ------------------------------------------------------------------ asking

def _files(answer: dict) -> list[tuple[str, float]]:
    """(file, best score) of each distinct file of an answer, best first."""
    out: dict[str, float] = {}
    for r in answer["results"]:
        out.setdefault(r["path"], r["score"])
    return list(out.items())


def _shown(answer: dict) -> list[dict]:
    """The first `TOP` distinct files of an answer with what a failure is read by: score, meaning, keywords,
    the tags and their weight (trust × confidence), the date and its source, recency (and what superseded
    it) and the time factor."""
    out: dict[str, dict] = {}
    for r in answer["results"]:
        if r["path"] in out:
            continue
        f = r.get("factors") or {}
        out[r["path"]] = {"file": r["path"], "score": round(r["score"], 4),
                          "meaning": _round(f.get("vector_similarity")), "keywords": _round(f.get("keyword_score")),
                          "trust": f.get("trust"), "confidence": f.get("confidence"),
                          "tag_weight": _round(_product(f.get("trust_weight"), f.get("confidence_weight"))),
                          "date": f.get("date"), "date_source": f.get("date_source"),
                          "recency": _round(f.get("recency")), "recency_reason": f.get("recency_reason"),
                          "superseded_by": (f.get("superseded_by") or {}).get("path"), "time": _round(f.get("time"))}
        if len(out) == TOP:
            break
    return list(out.values())


def _product(a, b):
    return a * b if isinstance(a, (int, float)) and isinstance(b, (int, float)) else None


def _round(value):
    return round(value, 4) if isinstance(value, float) else value


def _rank(files: list[str], expected: list[str]) -> int | None:
    return next((n for n, f in enumerate(files, 1) if f in set(expected)), None)


def failure(row: dict) -> str | None:
    """What went wrong with one question, in words a to-do list can use (None: answered as a person expects)."""
    if not row["answerable"]:
        return None if row["no_good_match"] else "answered, though the memory holds no answer"
    if row.get("all5") is False and row["top1"]:
        return f"{row['share5']:.0%} of its files in the top 5"
    if row["top1"]:
        return None
    rank = row["rank_without_floor"]
    where = f"rank {rank} without the floor" if rank else f"not in the first {DEEP} files without the floor"
    if row["no_good_match"]:
        return "no good match, though first without the floor" if rank == 1 else f"no good match ({where})"
    return f"wrong file first (expected at {where})" if not row["top5"] else f"expected file at rank {rank}"


def ask(searcher: Searcher, s: EverydaySet, q: Question, config: Config) -> dict:
    answer = searcher.search(q.text, 10, as_of=s.as_of, config=config)
    open_answer = searcher.search(q.text, DEEP, as_of=s.as_of, config=config, min_score=0.0)
    names = [f for f, _ in _files(answer)]
    deep = [f for f, _ in _files(open_answer)]
    row = {"id": q.ident, "set": s.name, "question": q.text, "kind": q.kind, "lang": q.lang, "split": q.split,
           "direction": q.across,
           "expected": q.expected, "answerable": q.answerable, "as_of": s.as_of.isoformat(),
           "no_good_match": bool(answer["no_good_match"]), "keywords": answer.get("keywords"),
           "keywords_nowhere": answer.get("keywords_nowhere"), "time": answer.get("time"),
           "match": answer.get("match"), "min_score": answer.get("min_score"),
           "top": _shown(answer), "top_without_floor": _shown(open_answer)}
    if q.answerable:
        row.update(top1=bool(names[:1]) and names[0] in q.expected, top5=_rank(names[:5], q.expected) is not None,
                   rank_without_floor=_rank(deep, q.expected))
        if q.kind == "gather":  # every file holds a part of the answer
            share = len(set(names[:5]) & set(q.expected)) / len(set(q.expected))
            row.update(all5=share == 1.0, share5=round(share, 4))
    else:
        row.update(top1=None, top5=None, rank_without_floor=None)
    row["failure"] = failure(row)
    return row


# ------------------------------------------------------------------ figures

def _rate(values: list[bool]) -> float | None:
    return metrics.mean([float(v) for v in values])


def _found(row: dict) -> bool:
    """An answerable question whose figures are top-1 and top-5: not one that gathers (`all5`, `share5`)."""
    return row["answerable"] and row["kind"] != "gather"


def figures(rows: list[dict]) -> dict:
    """top-1, top-5, no good match and top-5 without the floor on the answerable questions (not those that
    gather: every file in the top 5 and their share there, apart); no good match on offtopic and on nonsense
    ones."""
    answerable = [r for r in rows if _found(r)]
    out = {"questions": len(rows), "answerable": len(answerable),
           "top1": _rate([r["top1"] for r in answerable]), "top5": _rate([r["top5"] for r in answerable]),
           "no_good_match_answerable": _rate([r["no_good_match"] for r in answerable]),
           "top5_without_floor": _rate([bool(r["rank_without_floor"]) and r["rank_without_floor"] <= 5
                                        for r in answerable])}
    for kind in UNANSWERABLE:
        these = [r for r in rows if r["kind"] == kind]
        out[kind] = len(these)
        out[f"no_good_match_{kind}"] = _rate([r["no_good_match"] for r in these])
    gathering = [r for r in rows if r["kind"] == "gather"]
    out.update(gather=len(gathering), all5_gather=_rate([r["all5"] for r in gathering]),
               share5_gather=metrics.mean([r["share5"] for r in gathering]))
    return out


INTERVAL_KEYS = ("top1", "top5", "no_good_match_answerable", "no_good_match_offtopic", "no_good_match_nonsense")


def bootstrap(rows: list[dict], n: int = BOOTSTRAP, seed: int = 27) -> dict[str, list[float] | None]:
    """A percentile bootstrap 95% interval for each overall figure, resampling the questions it is over."""
    rng = np.random.default_rng(seed)
    found = [r for r in rows if _found(r)]
    columns = {"top1": [r["top1"] for r in found], "top5": [r["top5"] for r in found],
               "no_good_match_answerable": [r["no_good_match"] for r in found],
               "no_good_match_offtopic": [r["no_good_match"] for r in rows if r["kind"] == "offtopic"],
               "no_good_match_nonsense": [r["no_good_match"] for r in rows if r["kind"] == "nonsense"]}
    out: dict[str, list[float] | None] = {}
    for key, values in columns.items():
        if not values:
            out[key] = None
            continue
        data = np.asarray(values, dtype=float)
        means = data[rng.integers(0, len(data), size=(n, len(data)))].mean(axis=1)
        out[key] = [round(float(np.percentile(means, 2.5)), 4), round(float(np.percentile(means, 97.5)), 4)]
    return out


def summarise(rows: list[dict]) -> dict:
    groups = {"overall": {"all": figures(rows)}}
    for key, label in (("set", "memory"), ("kind", "kind"), ("lang", "language"), ("split", "split")):
        values = sorted({r[key] for r in rows}, key=lambda v: KINDS.index(v) if key == "kind" else v)
        groups[label] = {v: figures([r for r in rows if r[key] == v]) for v in values}
    directions = sorted({r.get("direction") for r in rows if r.get("direction")})
    if directions:  # only the sets that say which language each note is in; their own "all" row
        groups["direction"] = {d: figures([r for r in rows if r.get("direction") == d]) for d in directions}
        groups["overall"]["direction"] = figures([r for r in rows if r.get("direction")])
    groups["overall"]["all"]["ci95"] = bootstrap(rows)
    return groups


# ------------------------------------------------------------------ running

class MemoryEmbedders:
    """The embedder of each memory an evaluation indexes: the one asked for (`asked`, unless None or "auto"),
    else the memory's own choice (`auto.choice`, as its first index makes it); one embedder per name, shared
    by the memories that take it, its document vectors kept in `cache` (`longmemeval.VectorCache`) when given."""

    def __init__(self, asked: str | None = None, cache: Path | str | None = None):
        self.asked, self.cache = asked, cache
        self.made: dict[str, object] = {}

    def for_memory(self, root: Path) -> tuple[object, str]:
        """The embedder for the memory at `root`, and why it is that one."""
        if self.asked and self.asked != "auto":
            name, reason = canonical_name(self.asked), "asked for (--embedder)"
        else:
            name, reason = auto.choice(root)
            name = name or offline_default()
        if name not in self.made:
            self.made[name] = choose(name, None)
            if self.cache is not None:
                self.made[name] = VectorCache(self.made[name], Path(self.cache))
        return self.made[name], reason

    def close(self) -> None:
        for embedder in self.made.values():
            close = getattr(embedder, "close", None)
            if close:
                close()


def evaluate(set_dirs: list[Path] | None = None, embedder_name: str | None = None, base: Config | None = None,
             split: str = "all", argv: list[str] | None = None, progress: bool = True,
             cache: Path | None = None) -> dict:
    """Build, index and ask every set; the report `write_report` writes out.

    Each set's index takes the embedder its memory would take as a new index (`embedders.auto`) unless
    `embedder_name` names one. `cache`: a file keeping the
    document vectors across runs (`longmemeval.VectorCache`)."""
    started = time.perf_counter()
    sets = [load_set(p) for p in find_sets(set_dirs)]
    if split not in ("all", *SPLITS):
        raise TachikomaError(f"--split must be dev, held or all, not {split!r}")
    base = base or Config()
    embedders = MemoryEmbedders(embedder_name, cache)
    rows: list[dict] = []
    built: list[dict] = []
    scratch = Path(tempfile.mkdtemp(prefix="tachikoma-everyday-"))
    try:
        for s in sets:
            root = scratch / s.name
            commits = build_repo(s, root)
            embedder, reason = embedders.for_memory(root)
            warnings: list[str] = []
            t = time.perf_counter()
            summary = runner.run(root, base, embedder=embedder, warn=warnings.append)
            index_seconds = time.perf_counter() - t
            questions = [q for q in s.questions if split == "all" or q.split == split]
            searcher = Searcher(root, base, embedder=embedder)
            t = time.perf_counter()
            try:
                for q in questions:
                    rows.append(ask(searcher, s, q, base))
            finally:
                searcher.close()
            built.append({"name": s.name, "embedder": embedder.name, "embedder_reason": reason,
                          "style": s.style, "languages": s.languages, "as_of": s.as_of.isoformat(),
                          "files": summary.files if hasattr(summary, "files") else None,
                          "chunks": summary.chunks, "commits": commits, "questions": len(questions),
                          "warnings": warnings, "index_seconds": round(index_seconds, 1),
                          "search_seconds": round(time.perf_counter() - t, 1)})
            if progress:
                print(f"everyday: {s.name}: {len(questions)} questions asked", file=sys.stderr)
    finally:
        embedders.close()
        shutil.rmtree(scratch, ignore_errors=True)
    names = list(dict.fromkeys(b["embedder"] for b in built))
    return {"meta": {"command": "tachikoma " + " ".join(argv) if argv is not None else None,
                     "embedder": ", ".join(names), "split": split, "sets": built,
                     "seconds": round(time.perf_counter() - started, 1)},
            "results": summarise(rows), "per_question": rows}


# ------------------------------------------------------------------ report

def _pct(value) -> str:
    return "–" if value is None else f"{100 * value:.0f}%"


def _of(figures_: dict, kind: str) -> str:
    """"72% of 18" for the offtopic or nonsense questions of a row, "–" when it has none."""
    n = figures_[kind]
    return f"{_pct(figures_[f'no_good_match_{kind}'])} of {n}" if n else "–"


def _ci(report: dict, key: str) -> str:
    ci = report["results"]["overall"]["all"]["ci95"].get(key)
    return f" ({100 * ci[0]:.0f}–{100 * ci[1]:.0f})" if ci else ""


def table(report: dict, group: str) -> str:
    """Markdown: one row per memory, kind, language or split, and an overall row with 95% intervals."""
    rows = report["results"][group]
    header = (f"| {group} | answerable | top-1 | top-5 | no good match | top-5 without the floor | offtopic: no "
              "good match | nonsense: no good match |")
    lines = [header, "|---|---:|---:|---:|---:|---:|---:|---:|"]

    def line(name: str, f: dict, ci: bool = False) -> str:
        c = (lambda key: _ci(report, key)) if ci else (lambda key: "")
        return (f"| {name} | {f['answerable']} | {_pct(f['top1'])}{c('top1')} | {_pct(f['top5'])}{c('top5')} | "
                f"{_pct(f['no_good_match_answerable'])}{c('no_good_match_answerable')} | "
                f"{_pct(f['top5_without_floor'])} | {_of(f, 'offtopic')}{c('no_good_match_offtopic')} | "
                f"{_of(f, 'nonsense')}{c('no_good_match_nonsense')} |")
    lines += [line(name, f) for name, f in rows.items()]
    if group in report["results"]["overall"]:  # a group over some of the questions (`summarise`)
        lines.append(line("**all of these**", report["results"]["overall"][group]))
    else:
        lines.append(line("**all**", report["results"]["overall"]["all"], ci=True))
    return "\n".join(lines) + "\n"


def gather_table(report: dict) -> str:
    """Markdown: per memory, the questions that gather and how many of their files the top 5 holds ("" if none)."""
    rows = {name: f for name, f in report["results"]["memory"].items() if f["gather"]}
    if not rows:
        return ""
    lines = ["| memory | questions that gather | all their files in the top 5 | share of their files in the top 5 |",
             "|---|---:|---:|---:|"]
    for name, f in [*rows.items(), ("**all**", report["results"]["overall"]["all"])]:
        lines.append(f"| {name} | {f['gather']} | {_pct(f['all5_gather'])} | {_pct(f['share5_gather'])} |")
    return "\n".join(lines) + "\n"


def failures(report: dict) -> str:
    lines = []
    for r in report["per_question"]:
        if r["failure"]:
            top = ", ".join(f"{t['file']} {t['score']:.2f}" for t in (r["top"] or r["top_without_floor"])[:3])
            m = r.get("match") or {}
            lines.append(f"- `{r['id']}` ({r['kind']}) “{r['question']}” → {r['failure']}; expected "
                         f"{', '.join(r['expected']) or 'no answer'}; got {top or 'nothing'} "
                         f"(best meaning {m.get('best_vector_similarity') or 0:.2f}, floor {r['min_score']}, "
                         f"keywords {r['keywords']})")
    return "\n".join(lines) + "\n"


def markdown(report: dict) -> str:
    meta = report["meta"]
    out = ["# Everyday questions", "", f"Command: `{meta['command']}`" if meta.get("command") else "",
           f"Embedder {meta['embedder']}, split {meta['split']}, {meta['seconds']} s.", ""]
    out += [f"- `{s['name']}` ({s['style']}): {s['commits']} commits, {s['chunks']} chunks, {s['questions']} "
            f"questions as of {s['as_of']}; {len(s['warnings'])} indexing warnings" for s in meta["sets"]]
    out.append("")
    out += [("Top-1 / top-5: an expected file first / among the first 5 files of the answer (“no good match” "
             "is a miss). The overall row gives a bootstrap 95% interval."), ""]
    for group in ("memory", "kind", "language", "split", "direction"):
        if group in report["results"]:
            out += [f"## Per {group}", "", table(report, group)]
    if gathered := gather_table(report):
        out += ["## Questions that gather", "", "Every file that holds a part of the answer, in the top 5.", "",
                gathered]
    out += ["## Failures", "", failures(report)]
    return "\n".join(out)


def terminal(report: dict) -> str:
    asked = sum(s["questions"] for s in report["meta"]["sets"])
    tables = [table(report, group) for group in ("memory", "kind", "direction") if group in report["results"]]
    tables += [t for t in (gather_table(report),) if t]
    return "\n".join([*tables, f"{asked} questions, {report['meta']['embedder']}, {report['meta']['seconds']} s"])


def write_report(report: dict, out: Path) -> list[Path]:
    """report.md, report.json and per_question.jsonl in `out`."""
    return reports.write_files(report, out, markdown(report))
