"""The contract every embedder fulfils.

An embedder turns text into L2-normalised float32 vectors. Documents (chunks)
and queries are embedded through separate methods because some models are
trained with task prefixes (nomic-embed-text wants ``search_document: `` and
``search_query: ``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable, Protocol, Sequence

if TYPE_CHECKING:  # numpy is imported where vectors are made: `embedders.names`, which the command line's
    import numpy as np  # explanations use through this package, must not cost its import (docs/agents.md)

# Called after each batch with (texts done so far, total texts).
ProgressCallback = Callable[[int, int], None]


class Embedder(Protocol):
    #: Stable identifier recorded in the index, e.g. ``minilm:all-MiniLM-L6-v2``
    #: or ``ollama:nomic-embed-text``. Two indexes built with different names
    #: never mix vectors.
    name: str
    #: Vector dimension (384 for MiniLM, 768 for nomic-embed-text).
    dim: int
    #: How many words of text a chunk may hold so that it fits the model's
    #: input window (the chunker uses this budget).
    max_words: int

    def embed_documents(
        self, texts: Sequence[str], progress: ProgressCallback | None = None
    ) -> np.ndarray:
        """Return an (len(texts), dim) float32 array of unit vectors."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """Return a (dim,) float32 unit vector for a search query."""
        ...


def l2_normalise(vectors: np.ndarray) -> np.ndarray:
    """Scale each row to unit length (rows of zeros stay zero)."""
    import numpy as np

    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


def installed_package(name: str) -> Path | None:
    """The folder of an installed package that ships a model's weights, found without importing it
    (importing may load a native library); None when it is not installed."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))
