"""Measure how quick-tier (static) cosines map onto MiniLM's, for `embedders.static.calibrate`.

Each LoCoMo conversation chosen becomes a memory indexed with the full
MiniLM; every question is compared with every chunk of its conversation by
both models. The knots printed are the two models' cosines at the same
quantiles of those (question, chunk) pairs, denser in the top tail where
the relevance floor (0.41) and the best matches live; a monotone map keeps
the quick tier's own order. Then, side by side: how often each says a
question has a chunk over the floor, raw and mapped.

    nice -n 10 .venv/bin/python bench/calibrate_static.py ../shared/eval/locomo/locomo10.json --conversations 2-4

Conversations 2-4 calibrate; 0-1 are where the tiers are compared (docs/evaluation.md).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tachikoma import memory  # noqa: E402 (imported after sys.path points at this checkout)
from tachikoma.indexer import runner
from tachikoma.embedders import create  # noqa: E402 (imported after sys.path points at this checkout)
from tachikoma.embedders.static import StaticEmbedder, calibrate  # noqa: E402 (imported after sys.path points at this checkout)
from tachikoma.evaluation import locomo  # noqa: E402 (imported after sys.path points at this checkout)
from tachikoma.search.scoring import MEASURED_FLOORS  # noqa: E402 (imported after sys.path points at this checkout)
from tachikoma.store import Store  # noqa: E402 (imported after sys.path points at this checkout)

#: Quantile levels of the knots: the bulk coarsely, the top tail finely.
LEVELS = (0.0, 0.25, 0.5, 0.75, 0.9, 0.95, 0.98, 0.99, 0.995, 0.998, 0.999, 0.9995, 0.9999, 1.0)


def pairs(path: Path, only: list[int]) -> tuple[np.ndarray, np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
    full, quick = create("minilm"), StaticEmbedder()
    all_full, all_quick, per_question = [], [], []
    conversations, _ = locomo.load(path, only=only)
    work = Path(tempfile.mkdtemp(prefix="tier-calibrate-"))
    try:
        for conv in conversations:
            root = work / conv.sample_id
            locomo.write_memory(conv, root)
            runner.run(root, embedder=full)
            with Store(memory.index_path(root), readonly=True) as store:
                rows = store.db.execute("SELECT text, vector FROM chunks ORDER BY id").fetchall()
            chunks_full = np.stack([np.frombuffer(v, dtype=np.float32) for _, v in rows])
            chunks_quick = quick.embed_documents([t for t, _ in rows])
            questions = [q.text for q in conv.questions]
            q_full = full.embed_documents(questions)
            q_quick = quick.embed_documents(questions)
            cos_full = np.clip(q_full @ chunks_full.T, 0, 1)
            cos_quick = np.clip(q_quick @ chunks_quick.T, 0, 1)
            all_full.append(cos_full.ravel())
            all_quick.append(cos_quick.ravel())
            per_question.extend(zip(cos_full, cos_quick))
            print(f"{conv.sample_id}: {len(questions)} questions x {len(rows)} chunks", file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return np.concatenate(all_full), np.concatenate(all_quick), per_question


def top_pairs(per_question, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Each model's own k best cosines per question: the part of the scale that decides answers."""
    full = np.concatenate([np.sort(f)[-k:] for f, _ in per_question])
    quick = np.concatenate([np.sort(q)[-k:] for _, q in per_question])
    return full, quick


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--conversations", default="2-4")
    parser.add_argument("--top", type=int, default=10, help="best chunks per question the knots are read from")
    parser.add_argument("--cache", type=Path, help="keep the cosines here (.npz) and reuse them")
    args = parser.parse_args()
    if args.cache and args.cache.exists():
        saved = np.load(args.cache, allow_pickle=True)
        cos_full, cos_quick, per_question = saved["full"], saved["quick"], list(saved["per_question"])
    else:
        cos_full, cos_quick, per_question = pairs(args.path, locomo.parse_selection(args.conversations))
        if args.cache:
            np.savez(args.cache, full=cos_full, quick=cos_quick,
                     per_question=np.array(per_question, dtype=object), allow_pickle=True)
    floor = MEASURED_FLOORS[next(iter(MEASURED_FLOORS))]
    best_full = np.array([f.max() for f, _ in per_question])
    best_quick = np.array([q.max() for _, q in per_question])
    print(f"{len(cos_full):,} (question, chunk) pairs, {len(per_question)} questions, conversations "
          f"{args.conversations}")
    maps = {}
    # (a) quantiles of all pairs: the bulk matches, but a question's best quick match sits less far out
    #     in the tail than its best full one, so mapped best matches come out too low.
    maps["all pairs"] = (np.quantile(cos_quick, LEVELS), np.quantile(cos_full, LEVELS))
    # (b) quantiles of each model's own top matches per question, anchored at the bottom by (a).
    top_full, top_quick = top_pairs(per_question, args.top)
    levels = (0.0, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 1.0)
    low_q, low_f = np.quantile(cos_quick, 0.5), np.quantile(cos_full, 0.5)
    knots_q = np.concatenate([[0.0, low_q], np.quantile(top_quick, levels)])
    knots_f = np.concatenate([[0.0, low_f], np.quantile(top_full, levels)])
    order = np.maximum.accumulate(knots_q) == knots_q
    maps[f"top {args.top} per question"] = (knots_q[order], np.maximum.accumulate(knots_f[order]))
    # (c) quantiles of each question's best match: the number the relevance floor decides on, so the
    #     share of questions with a match over the floor comes out as the full model's.
    levels = (0.0, 0.02, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 1.0)
    knots_q = np.concatenate([[0.0], np.quantile(best_quick, levels)])
    knots_f = np.concatenate([[0.0], np.quantile(best_full, levels)])
    maps["best per question"] = (knots_q, knots_f)
    print(f"\n{'map':<30} {'over floor ' + str(floor):>14} {'median best':>12}")
    print(f"{'full (reference)':<30} {np.mean(best_full >= floor):>14.3f} {np.median(best_full):>12.3f}")
    print(f"{'quick, raw':<30} {np.mean(best_quick >= floor):>14.3f} {np.median(best_quick):>12.3f}")
    for name, (kq, kf) in maps.items():
        mapped = np.interp(best_quick, kq, kf)
        print(f"{'quick, ' + name:<30} {np.mean(mapped >= floor):>14.3f} {np.median(mapped):>12.3f}")
    mapped = calibrate(best_quick)
    print(f"{'quick, shipped calibrate()':<30} {np.mean(mapped >= floor):>14.3f} {np.median(mapped):>12.3f}")
    for name, (kq, kf) in maps.items():
        print(f"\n{name}:")
        print("CALIBRATION_QUICK = (" + ", ".join(f"{v:.4f}" for v in kq) + ")")
        print("CALIBRATION_FULL = (" + ", ".join(f"{v:.4f}" for v in kf) + ")")


if __name__ == "__main__":
    main()
