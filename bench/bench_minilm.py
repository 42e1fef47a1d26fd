"""Throughput of each MiniLM path side by side: numpy, onnxruntime fp32, onnxruntime int8.

    python bench/bench_minilm.py [--chunks 256] [--rounds 2] [--queries 30] [--max-words N]
                                 [--paths numpy,onnx,int8]

All paths embed the same chunks in the same run, in the batches the indexer
forms (32, longest first). Batches are paired: each batch is embedded by
every path in turn, the order rotating from batch to batch, so a machine
whose load changes during the run slows every path alike. Figures are
chunks/s and the ratio to the numpy path (the reference), the process CPU
seconds per chunk (less sensitive to other processes, but it counts threads
that spin), query latency, and how far each path's vectors are from numpy's
(minimum and mean cosine). The load average is printed before and after:
on a shared machine read the ratios, not the absolute figures.

Chunks are 2/3 to all of max_words words of varied English prose (about
the size the chunker produces); queries are short questions. Model loading
(and building the ONNX graphs on first use) is timed separately and
excluded.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tachikoma.embedders.minilm import MiniLMEmbedder, MiniLMInt8Embedder  # noqa: E402 (imported after sys.path points at this checkout)

VOCAB = (
    "memory index note agent file search chunk vector embed query result "
    "project decision meeting backup schedule server database sqlite cosine "
    "paragraph heading markdown summary yesterday tomorrow release bug fix "
    "deploy dashboard latency token window model weights user assistant "
    "the a of to and in is was for on with that this it be as at by from"
).split()

PATHS = {
    "numpy": lambda batch: MiniLMEmbedder(batch_size=batch, runtime="numpy"),
    "onnx": lambda batch: MiniLMEmbedder(batch_size=batch, runtime="onnx"),
    "int8": lambda batch: MiniLMInt8Embedder(),  # one text per run, by design
}


def make_chunk(rng: random.Random, words: int) -> str:
    sentences, count = [], 0
    while count < words:
        n = rng.randint(6, 18)
        sentence = " ".join(rng.choice(VOCAB) for _ in range(n))
        sentences.append(sentence.capitalize() + rng.choice([".", ".", ",", "?", ";"]))
        count += n
    return " ".join(sentences)


def load_average() -> str:
    try:
        return " ".join(f"{x:.1f}" for x in os.getloadavg()) + f" on {os.cpu_count()} cores"
    except OSError:
        return "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=2, help="passes over all batches (default 2)")
    parser.add_argument("--queries", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--max-words", type=int, help="chunk size in words (default: the embedder's, 80)")
    parser.add_argument("--paths", default="numpy,onnx,int8", help="comma-separated, numpy first (the reference)")
    args = parser.parse_args()
    names = [n.strip() for n in args.paths.split(",") if n.strip()]
    unknown = [n for n in names if n not in PATHS]
    if unknown or not names:
        parser.error(f"unknown path(s) {unknown}: choose from {', '.join(PATHS)}")

    rng = random.Random(0)
    embedders = {n: PATHS[n](args.batch_size) for n in names}
    reference = names[0]
    max_words = args.max_words or embedders[reference].max_words
    chunks = [make_chunk(rng, rng.randint(max_words * 2 // 3, max_words)) for _ in range(args.chunks)]
    queries = [" ".join(rng.choice(VOCAB) for _ in range(rng.randint(3, 10))) + "?" for _ in range(args.queries)]

    print(f"load average before: {load_average()}")
    for name, e in embedders.items():
        start = time.perf_counter()
        e.load()
        print(f"  load {name} ({e.runtime}): {time.perf_counter() - start:.2f} s")
    tokenizer = embedders[reference]._tokenizer
    tokens = [len(t.ids) for t in tokenizer.encode_batch(chunks)]  # type: ignore[union-attr]
    order = sorted(range(len(chunks)), key=lambda i: tokens[i], reverse=True)
    batches = [[chunks[i] for i in order[s : s + args.batch_size]] for s in range(0, len(order), args.batch_size)]

    wall = {n: 0.0 for n in names}
    cpu = {n: 0.0 for n in names}
    vectors: dict[str, list[np.ndarray]] = {n: [] for n in names}
    for e in embedders.values():
        e.embed_documents(batches[-1])  # warm up (first-run allocations)
    step = 0
    for round_ in range(args.rounds):
        for batch in batches:
            turn = names[step % len(names):] + names[: step % len(names)]
            step += 1
            for name in turn:
                c0, t0 = time.process_time(), time.perf_counter()
                out = embedders[name].embed_documents(batch)
                wall[name] += time.perf_counter() - t0
                cpu[name] += time.process_time() - c0
                if round_ == 0:
                    vectors[name].append(out)

    latencies = {n: [] for n in names}
    for i, q in enumerate(queries):
        turn = names[i % len(names):] + names[: i % len(names)]
        for name in turn:
            t0 = time.perf_counter()
            embedders[name].embed_query(q)
            latencies[name].append((time.perf_counter() - t0) * 1000)

    done = args.chunks * args.rounds
    ref_rate = done / wall[reference]
    ref_cpu = cpu[reference] / done
    ref_query = statistics.median(latencies[reference])
    ref_vectors = np.concatenate(vectors[reference])
    print(f"load average after: {load_average()}")
    print(f"{args.chunks} chunks x {args.rounds} rounds, mean {statistics.mean(tokens):.0f} tokens "
          f"(max {max(tokens)}), batches of {args.batch_size}, paired and rotated; reference: {reference}")
    print(f"{'path':<8}{'runtime':<20}{'chunks/s':>9}{'vs ref':>8}{'cpu ms/chunk':>14}{'vs ref':>8}"
          f"{'query p50 ms':>14}{'vs ref':>8}{'min cos':>10}{'mean cos':>10}")
    for name in names:
        rate = done / wall[name]
        cpu_per = cpu[name] / done
        query = statistics.median(latencies[name])
        cos = np.sum(np.concatenate(vectors[name]).astype(np.float64) * ref_vectors, axis=1)
        print(f"{name:<8}{embedders[name].runtime:<20}{rate:>9.1f}{rate / ref_rate:>7.2f}x"
              f"{cpu_per * 1000:>14.1f}{ref_cpu / cpu_per:>7.2f}x{query:>14.1f}{ref_query / query:>7.2f}x"
              f"{cos.min():>10.6f}{cos.mean():>10.6f}")


if __name__ == "__main__":
    main()
