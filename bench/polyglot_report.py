"""Per language and direction (same language / across languages / off-topic) from `tachikoma eval everyday`
runs of the polyglot set, with bootstrap 95% intervals: the tables of docs/evaluation.md, "Memory in
other languages".

    .venv/bin/tachikoma eval everyday bench/everyday/polyglot --vector-cache /tmp/e5.sqlite --out /tmp/auto
    .venv/bin/tachikoma eval everyday bench/everyday/polyglot --embedder minilm-int8 --out /tmp/minilm
    PYTHONPATH=. .venv/bin/python bench/polyglot_report.py auto=/tmp/auto minilm=/tmp/minilm
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

QUESTIONS = Path(__file__).parent / "everyday" / "polyglot" / "questions.jsonl"
LANGS = ("de", "fr", "es", "ja", "zh", "en")


def interval(values: list[bool], n: int = 2000, seed: int = 27) -> tuple[float, float, float]:
    data = np.asarray(values, dtype=float)
    means = data[np.random.default_rng(seed).integers(0, len(data), size=(n, len(data)))].mean(axis=1)
    return float(data.mean()), float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def cell(values: list[bool], ci: bool = True) -> str:
    if not values:
        return "–"
    mean, low, high = interval(values)
    return f"{100 * mean:.0f}%" + (f" ({100 * low:.0f}–{100 * high:.0f})" if ci else "") + f" of {len(values)}"


def rows_of(folder: Path) -> list[dict]:
    meta = {}
    for line in QUESTIONS.read_text(encoding="utf-8").splitlines():
        if line.strip():
            item = json.loads(line)
            meta[item["id"]] = item
    rows = [json.loads(line) for line in (folder / "per_question.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()]
    for r in rows:
        r["direction"] = meta[r["id"]].get("direction") or "off-topic"
    return rows


def figures(rows: list[dict]) -> dict[str, list[bool]]:
    out = {}
    for d in ("same", "cross"):
        these = [r for r in rows if r["direction"] == d]
        out[f"{d} top-1"], out[f"{d} top-5"] = [r["top1"] for r in these], [r["top5"] for r in these]
    out["off-topic: no good match"] = [r["no_good_match"] for r in rows if r["kind"] == "offtopic"]
    out["nonsense: no good match"] = [r["no_good_match"] for r in rows if r["kind"] == "nonsense"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", metavar="NAME=FOLDER")
    args = parser.parse_args()
    runs = {name: rows_of(Path(folder)) for name, folder in (r.split("=", 1) for r in args.runs)}
    for name, rows in runs.items():
        print(f"\n### {name} ({rows[0]['set']})\n")
        keys = list(figures(rows))
        print("| split | " + " | ".join(keys) + " |")
        print("|---|" + "---:|" * len(keys))
        for split in ("dev", "held", "all"):
            part = [r for r in rows if split == "all" or r["split"] == split]
            f = figures(part)
            print(f"| {split} | " + " | ".join(cell(f[k]) for k in keys) + " |")
        print("\n| question language | same top-1 | same top-5 | across top-1 | across top-5 | off-topic: no good match |")
        print("|---|---:|---:|---:|---:|---:|")
        for lang in LANGS:
            f = figures([r for r in rows if r["lang"] == lang])
            print(f"| {lang} | " + " | ".join(cell(f[k], ci=False) for k in
                                              ("same top-1", "same top-5", "cross top-1", "cross top-5",
                                               "off-topic: no good match")) + " |")


if __name__ == "__main__":
    main()
