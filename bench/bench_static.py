"""Benchmark: the quick tier's inference, side by side with MiniLM and (when installed) model2vec's.

    nice -n 10 .venv/bin/python bench/bench_static.py --chunks 2048

Embeds the same realistic chunks (a synthetic session corpus of
bench/bench_sessions.py, chunked as the indexer does) with:

* tachikoma's static embedder (`embedders.static`: tokenizer + a numpy
  mean over the distilled table);
* model2vec's `StaticModel` over the same table and tokenizer, when the
  `model2vec` package can be imported (it is not a dependency: this is how
  the choice not to depend on it was measured);
* the full MiniLM on onnxruntime (fp32), on a slice of the chunks.

Prints chunks/s of each and its ratio to MiniLM in one run, and how far
model2vec's vectors are from tachikoma's (cosine).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_sessions import build_corpus  # noqa: E402 (imported after sys.path points at this checkout)

from tachikoma.chunking import chunk_document  # noqa: E402 (imported after sys.path points at this checkout)
from tachikoma.embedders import create  # noqa: E402 (imported after sys.path points at this checkout)
from tachikoma.embedders.static import StaticEmbedder  # noqa: E402 (imported after sys.path points at this checkout)
from tachikoma.memory import walk  # noqa: E402 (imported after sys.path points at this checkout)
from tachikoma.reading.reader import read_document  # noqa: E402 (imported after sys.path points at this checkout)


def corpus_chunks(n: int) -> list[str]:
    with tempfile.TemporaryDirectory(prefix="tier-static-") as work:
        root = Path(work)
        build_corpus(root, max(1.0, n / 150))
        texts = []
        for f in walk(root):
            texts += [c.text for c in chunk_document(read_document(root, f.path, f.kind, max_bytes=10**9), 80)]
            if len(texts) >= n:
                break
    return texts[:n]


def rate(embed, texts: list[str], rounds: int) -> tuple[float, np.ndarray]:
    best, out = float("inf"), None
    for _ in range(rounds):
        started = time.perf_counter()
        out = embed(texts)
        best = min(best, time.perf_counter() - started)
    return len(texts) / best, np.asarray(out, dtype=np.float32)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=2048)
    parser.add_argument("--minilm-chunks", type=int, default=256, help="MiniLM embeds this many of them")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    texts = corpus_chunks(args.chunks)
    print(f"{len(texts)} chunks; load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    static = StaticEmbedder()
    static.load()
    minilm = create("minilm")
    minilm.load()
    results = {}
    results["MiniLM fp32 (onnxruntime)"] = rate(minilm.embed_documents, texts[:args.minilm_chunks], 1)[0]
    ours, vectors = rate(static.embed_documents, texts, args.rounds)
    results["static, tachikoma (numpy)"] = ours
    try:
        from model2vec import StaticModel
    except ImportError:
        StaticModel = None
    if StaticModel is not None:
        model = StaticModel(vectors=np.asarray(static._table), tokenizer=static._tokenizer, normalize=True)
        theirs, other = rate(lambda t: model.encode(t, max_length=None, use_multiprocessing=False), texts,
                             args.rounds)
        results["static, model2vec StaticModel"] = theirs
        cosine = np.sum(vectors * other, axis=1)
        print(f"model2vec vs tachikoma vectors: min cosine {cosine.min():.6f}, mean {cosine.mean():.6f}")
    reference = results["MiniLM fp32 (onnxruntime)"]
    print(f"\n{'embedder':<32} {'chunks/s':>10} {'vs MiniLM':>10}")
    for name, value in results.items():
        print(f"{name:<32} {value:>10,.0f} {value / reference:>9.0f}x")
    print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
