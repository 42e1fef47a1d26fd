"""An embedder that embeds each distinct query once, for evaluations that ask the same questions of
many systems (`locomo`, `recency`, `longmemeval`, `abstention`)."""

from __future__ import annotations

import numpy as np


class CachedQueries:
    """An embedder that embeds each distinct query once (every system asks the same questions).

    `max_words` replaces the embedder's own chunk window (for a study of chunk sizes)."""

    def __init__(self, inner, max_words: int | None = None):
        self.inner = inner
        self.name, self.dim, self.max_words = inner.name, inner.dim, max_words or inner.max_words
        self._queries: dict[str, np.ndarray] = {}

    def embed_documents(self, texts, progress=None):
        return self.inner.embed_documents(texts, progress)

    def embed_query(self, text: str) -> np.ndarray:
        if text not in self._queries:
            self._queries[text] = np.asarray(self.inner.embed_query(text), dtype=np.float32)
        return self._queries[text]
