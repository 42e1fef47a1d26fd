"""A feature-hashing bag-of-words embedder: instant, dependency-free, keyword-only.

It has no notion of meaning (synonyms do not meet), so it is never chosen
automatically. It exists for benchmarks that measure the index and the
ranking rather than a model, and for trying tachikoma on a huge memory
before committing to a model.
"""

from __future__ import annotations

import hashlib
import re
from typing import Sequence

import numpy as np

from .base import ProgressCallback, l2_normalise

_WORD = re.compile(r"\w+", re.UNICODE)


class HashingEmbedder:
    max_words = 200

    def __init__(self, dim: int = 512):
        self.dim = dim
        self.name = f"hash:{dim}"

    def _vector(self, text: str) -> np.ndarray:
        vec = np.zeros(self.dim, dtype=np.float32)
        for word in _WORD.findall(text.lower()):
            digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
            value = int.from_bytes(digest, "little")
            vec[value % self.dim] += 1.0 if (value >> 63) & 1 else -1.0
        return vec

    def embed_documents(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            out[i] = self._vector(text)
        if progress:
            progress(len(texts), len(texts))
        return l2_normalise(out)

    def embed_query(self, text: str) -> np.ndarray:
        return l2_normalise(self._vector(text))
