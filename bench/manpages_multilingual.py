"""Cross-language retrieval on public parallel text: Debian's translated manual pages, read where they install.

The polyglot everyday set (bench/everyday/polyglot) is our own writing; this is a check on text nobody wrote
for us. Debian's `manpages-de` (GPL-3+), `manpages-ja` (JM project: each page under its original's licence,
DFSG-free) and `manpages-zh` (GFDL-1.2+ and the originals' licences) translate the same section-1 manual
pages that the English packages install; nothing of them is copied into this repository: this script reads
them from /usr/share/man at run time (`apt-get install manpages-de manpages-ja manpages-zh`).

For every command whose section-1 page exists in English, German, Japanese and Simplified Chinese:

* a **note** is the page's description (its prose before the option list, at most `NOTE_CHARS` characters)
  under the heading ``# <command>``, one memory folder per language (en, de, ja, zh);
* a **question** is the page's one-line summary from its NAME section without the command's name ("list
  directory contents", "Verzeichnisinhalte auflisten", "ディレクトリの内容をリスト表示する", "列出目录内容"):
  which note answers it is the note of the same command.

Each memory is indexed with the embedder its first index would take by itself (`embedders.auto`: e5-small for
the German, Japanese and Chinese memories, minilm-int8 for the English one) and searched through the
product's own `Searcher` with the defaults (relevance floor included). Directions: an English question for
the German, Japanese and Chinese notes and back, and each language for its own notes. Reported per direction:
top-1, top-5 ("no good match" counts as a miss), top-5 without the floor and how often the answer was "no
good match", with bootstrap 95% intervals for top-5.

    apt-get install -y manpages-de manpages-ja manpages-zh
    PYTHONPATH=. .venv/bin/python bench/manpages_multilingual.py --vector-cache /tmp/man-e5.sqlite --out /tmp/man.json
    PYTHONPATH=. .venv/bin/python bench/manpages_multilingual.py --embedder e5-small --vector-cache /tmp/man-e5.sqlite
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from tachikoma.config import Config
from tachikoma.evaluation.everyday import MemoryEmbedders
from tachikoma.indexer import runner
from tachikoma.search.searcher import Searcher

MAN = Path("/usr/share/man")
#: Memory language → the folder of its section-1 pages under /usr/share/man.
FOLDERS = {"en": MAN / "man1", "de": MAN / "de" / "man1", "ja": MAN / "ja" / "man1", "zh": MAN / "zh_CN" / "man1"}
#: The description section's heading in each language (the third section when none of these is found).
DESCRIPTION = {"DESCRIPTION", "BESCHREIBUNG", "説明", "描述", "说明"}
NOTE_CHARS = 400
DIRECTIONS = (("en", "de"), ("en", "ja"), ("en", "zh"), ("de", "en"), ("ja", "en"), ("zh", "en"),
              ("en", "en"), ("de", "de"), ("ja", "ja"), ("zh", "zh"))
_DASH = re.compile(r"\s+[-\u2013\u2014\uff0d]+\s*|\s*[\uff0d\u2014]\s*")


def render(page: Path) -> str:
    """A manual page as plain text, one paragraph a line (no wrapping, no hyphenation)."""
    env = dict(os.environ, MANWIDTH="5000", MAN_KEEP_FORMATTING="", LC_ALL="C.UTF-8")
    out = subprocess.run(["man", "-E", "UTF-8", "-l", str(page)], capture_output=True, env=env, timeout=60)
    return out.stdout.decode("utf-8", "replace")


def sections(text: str) -> list[tuple[str, list[str]]]:
    """(heading, its indented lines) in page order; the header and footer lines are left out."""
    out: list[tuple[str, list[str]]] = []
    lines = text.splitlines()[1:-1]
    for line in lines:
        if line and not line[0].isspace():
            out.append((line.strip(), []))
        elif out and line.strip():
            out[-1][1].append(line.strip())
    return out


def read_page(page: Path) -> tuple[str, str] | None:
    """(summary without the command's name, description prose) of a page, or None when either is missing."""
    parts = sections(render(page))
    if len(parts) < 2 or not parts[0][1]:
        return None
    name_line = " ".join(parts[0][1])
    pieces = _DASH.split(name_line, maxsplit=1)
    if len(pieces) != 2 or not pieces[1].strip():
        return None
    summary = pieces[1].strip()
    body = next((lines for heading, lines in parts if heading.upper() in DESCRIPTION),
                parts[2][1] if len(parts) > 2 else [])
    prose = []
    for line in body:
        if line.startswith("-"):  # the option list starts: the description's prose is over
            break
        prose.append(line)
    note = " ".join(prose)[:NOTE_CHARS].strip()
    return (summary, note) if note else None


def corpus() -> dict[str, dict[str, tuple[str, str]]]:
    """command → language → (summary, note), for the commands that every language has."""
    names = None
    for folder in FOLDERS.values():
        if not folder.is_dir():
            raise SystemExit(f"{folder} is missing: apt-get install -y manpages-de manpages-ja manpages-zh")
        here = {p.name for p in folder.iterdir() if p.name.endswith(".1.gz")}
        names = here if names is None else names & here
    out: dict[str, dict[str, tuple[str, str]]] = {}
    for name in sorted(names or ()):
        pages = {lang: read_page(folder / name) for lang, folder in FOLDERS.items()}
        if all(pages.values()):
            out[name.removesuffix(".1.gz")] = pages  # type: ignore[assignment]
    return out


def interval(values: list[bool], n: int = 2000, seed: int = 29) -> tuple[float, float]:
    data = np.asarray(values, dtype=float)
    means = data[np.random.default_rng(seed).integers(0, len(data), size=(n, len(data)))].mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--vector-cache", type=Path, help="keep document vectors in this SQLite file")
    parser.add_argument("--out", type=Path, help="write every question's answer and the figures here (JSON)")
    parser.add_argument("--embedder", help="this embedder for every memory (default: each memory's own choice)")
    args = parser.parse_args()
    pages = corpus()
    print(f"{len(pages)} commands with a page in en, de, ja and zh", file=sys.stderr)
    config = Config()
    scratch = Path(tempfile.mkdtemp(prefix="manpages-"))
    embedders = MemoryEmbedders(args.embedder, args.vector_cache)
    rows: list[dict] = []
    memories: dict[str, dict] = {}
    try:
        for lang in FOLDERS:
            root = scratch / lang
            root.mkdir()
            for command, by_lang in pages.items():
                (root / f"{command}.md").write_text(f"# {command}\n\n{by_lang[lang][1]}\n", encoding="utf-8")
            embedder, reason = embedders.for_memory(root)
            started = time.perf_counter()
            runner.run(root, config, embedder=embedder)
            memories[lang] = {"embedder": embedder.name, "reason": reason,
                              "index_seconds": round(time.perf_counter() - started, 1)}
            print(f"{lang}: {embedder.name} ({reason})", file=sys.stderr)
            searcher = Searcher(root, config, embedder=embedder)
            try:
                for asked, note in DIRECTIONS:
                    if note != lang:
                        continue
                    for command, by_lang in pages.items():
                        question = by_lang[asked][0]
                        answer = searcher.search(question, 10, config=config)
                        deep = searcher.search(question, 10, config=config, min_score=0.0)
                        files = [r["path"] for r in answer["results"]]
                        open_files = [r["path"] for r in deep["results"]]
                        want = f"{command}.md"
                        rows.append({"command": command, "question": question, "asked": asked, "note": note,
                                     "top1": files[:1] == [want], "top5": want in files[:5],
                                     "top5_without_floor": want in open_files[:5],
                                     "no_good_match": bool(answer["no_good_match"]),
                                     "best_meaning": deep["match"]["best_vector_similarity"]})
            finally:
                searcher.close()
    finally:
        embedders.close()
        shutil.rmtree(scratch, ignore_errors=True)
    figures = {}
    print("\n| question → notes | n | top-1 | top-5 (95% interval) | top-5 without the floor | no good match |")
    print("|---|---:|---:|---:|---:|---:|")
    for asked, note in DIRECTIONS:
        these = [r for r in rows if r["asked"] == asked and r["note"] == note]
        top5 = [r["top5"] for r in these]
        low, high = interval(top5)
        f = {"n": len(these), "top1": float(np.mean([r["top1"] for r in these])), "top5": float(np.mean(top5)),
             "top5_ci": [low, high], "top5_without_floor": float(np.mean([r["top5_without_floor"] for r in these])),
             "no_good_match": float(np.mean([r["no_good_match"] for r in these]))}
        figures[f"{asked}->{note}"] = f
        print(f"| {asked} → {note} ({memories[note]['embedder'].split(':')[0]}) | {f['n']} | {100 * f['top1']:.0f}% | "
              f"{100 * f['top5']:.0f}% ({100 * low:.0f}–{100 * high:.0f}) | {100 * f['top5_without_floor']:.0f}% | "
              f"{100 * f['no_good_match']:.0f}% |")
    if args.out:
        args.out.write_text(json.dumps({"memories": memories, "figures": figures, "rows": rows},
                                       ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
