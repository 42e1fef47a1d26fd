"""Throughput of the numpy MiniLM embedder: chunks/s and query latency.

    python bench/bench_minilm.py [--chunks 200] [--queries 50] [--max-words N]

Chunks are 2/3 to all of max_words words of varied English prose (about
the size the chunker produces); queries are short questions. Model loading
is timed separately and excluded from both numbers. Words/s is the figure
to compare across chunk sizes: a memory costs its words, not its chunks.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tachikoma.embedders.minilm import MiniLMEmbedder  # noqa: E402

VOCAB = (
    "memory index note agent file search chunk vector embed query result "
    "project decision meeting backup schedule server database sqlite cosine "
    "paragraph heading markdown summary yesterday tomorrow release bug fix "
    "deploy dashboard latency token window model weights user assistant "
    "the a of to and in is was for on with that this it be as at by from"
).split()


def make_chunk(rng: random.Random, words: int) -> str:
    sentences, count = [], 0
    while count < words:
        n = rng.randint(6, 18)
        sentence = " ".join(rng.choice(VOCAB) for _ in range(n))
        sentences.append(sentence.capitalize() + rng.choice([".", ".", ",", "?", ";"]))
        count += n
    return " ".join(sentences)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=200)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--max-words", type=int, help="chunk size in words (default: the embedder's, 80)")
    args = parser.parse_args()

    rng = random.Random(0)
    embedder = MiniLMEmbedder(batch_size=args.batch_size)
    max_words = args.max_words or embedder.max_words
    chunks = [
        make_chunk(rng, rng.randint(max_words * 2 // 3, max_words))
        for _ in range(args.chunks)
    ]
    queries = [" ".join(rng.choice(VOCAB) for _ in range(rng.randint(3, 10))) + "?" for _ in range(args.queries)]

    start = time.perf_counter()
    embedder.load()
    load_s = time.perf_counter() - start

    tokens = [len(e.ids) for e in embedder._tokenizer.encode_batch(chunks)]  # type: ignore[union-attr]
    words = sum(len(c.split()) for c in chunks)
    start = time.perf_counter()
    embedder.embed_documents(chunks)
    docs_s = time.perf_counter() - start

    embedder.embed_query("warm up")
    latencies = []
    for q in queries:
        start = time.perf_counter()
        embedder.embed_query(q)
        latencies.append((time.perf_counter() - start) * 1000)

    print(f"load (sha256 + weights + tokenizer): {load_s:.2f} s")
    print(
        f"documents: {args.chunks} chunks, mean {statistics.mean(tokens):.0f} tokens "
        f"(max {max(tokens)}), {docs_s:.2f} s -> {args.chunks / docs_s:.1f} chunks/s, {words / docs_s:.0f} words/s"
    )
    print(
        f"queries: p50 {statistics.median(latencies):.1f} ms, "
        f"p95 {sorted(latencies)[int(0.95 * (len(latencies) - 1))]:.1f} ms over {len(latencies)}"
    )


if __name__ == "__main__":
    main()
