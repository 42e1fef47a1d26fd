"""The production embedder: a local Ollama server (default model nomic-embed-text).

Talks to Ollama through the official ``ollama`` Python client
(``Client.embed`` for vectors, ``Client.list`` for :func:`probe`). Every failure
reaches the caller as an :class:`~tachikoma.errors.EmbedderError` whose message
is one line saying how to fix it.
"""

from __future__ import annotations

import os
import re
import urllib.parse
from typing import Sequence

import httpx
import numpy as np
import ollama
import pydantic

from tachikoma.embedders.names import OLLAMA_DEFAULT_MODEL
from tachikoma.embedders.base import ProgressCallback, l2_normalise
from tachikoma.errors import EmbedderError

DEFAULT_MODEL = OLLAMA_DEFAULT_MODEL
#: Where Ollama listens when neither ``host`` nor ``OLLAMA_HOST`` says otherwise
#: (the ``ollama`` client's own default).
DEFAULT_URL = "http://127.0.0.1:11434"
DEFAULT_PORT = 11434
#: Seconds to wait for a reply. Generous: the first request loads the model,
#: and a batch of long chunks on a CPU takes a while.
DEFAULT_TIMEOUT = 120.0
#: Seconds to wait for a TCP connection; a local server accepts at once.
CONNECT_TIMEOUT = 5.0

#: Vector size of common embedding models (keyed by name without tag). Models
#: not listed here are asked once, lazily, with a probe string.
KNOWN_DIMS = {
    "nomic-embed-text": 768,
    "mxbai-embed-large": 1024,
    "all-minilm": 384,
}

#: Words per chunk. nomic-embed-text has an 8192-token window but retrieves
#: best from modest chunks; mxbai-embed-large reads 512 tokens, all-minilm 256.
KNOWN_MAX_WORDS = {
    "nomic-embed-text": 350,
    "mxbai-embed-large": 300,
    "all-minilm": 180,
}
#: For models we know nothing about: small enough for a 256-token window.
DEFAULT_MAX_WORDS = 180

#: (document prefix, query prefix) the model was trained with. Unknown models
#: get none.
TASK_PREFIXES = {
    "nomic-embed-text": ("search_document: ", "search_query: "),
    "mxbai-embed-large": ("", "Represent this sentence for searching relevant passages: "),
}

#: Embedded once to learn the vector size of a model not in KNOWN_DIMS.
_DIM_PROBE_TEXT = "dimension probe"
_MAX_DETAIL = 200


def resolve_host(host: str | None = None) -> str:
    """The URL the ``ollama`` client will use for ``host``.

    Like the client: ``host`` wins, else ``OLLAMA_HOST``, else
    ``http://127.0.0.1:11434``; a bare ``host`` or ``host:port`` means plain
    HTTP and port 11434 is assumed when none is given (80/443 when the URL
    names ``http://``/``https://`` without a port).
    """
    raw = (host or os.environ.get("OLLAMA_HOST") or "").strip()
    if not raw:
        return DEFAULT_URL
    scheme, sep, rest = raw.partition("://")
    if sep:
        scheme = scheme.lower()
        default_port = {"http": 80, "https": 443}.get(scheme, DEFAULT_PORT)
    else:
        scheme, rest, default_port = "http", raw, DEFAULT_PORT
    try:
        parts = urllib.parse.urlsplit(f"{scheme}://{rest}")
        port = parts.port or default_port
    except ValueError:
        raise EmbedderError(
            f"Ollama address {raw!r} is not valid: give host:port, e.g. 127.0.0.1:11434 "
            "(check OLLAMA_HOST)"
        ) from None
    hostname = parts.hostname or "127.0.0.1"
    if ":" in hostname:  # IPv6 literal
        hostname = f"[{hostname}]"
    url = f"{scheme}://{hostname}:{port}"
    path = parts.path.strip("/")
    return f"{url}/{path}" if path else url


def _base_model(model: str) -> str:
    """``library/nomic-embed-text:v1.5`` -> ``nomic-embed-text`` (table key)."""
    return model.strip().lower().rsplit("/", 1)[-1].split(":", 1)[0]


def _canonical_model(model: str) -> str:
    """Ollama treats ``name`` and ``name:latest`` as one model."""
    model = model.strip().lower()
    return model if ":" in model.rsplit("/", 1)[-1] else f"{model}:latest"


def _one_line(text: object) -> str:
    line = re.sub(r"\s+", " ", str(text)).strip()
    return line if len(line) <= _MAX_DETAIL else line[: _MAX_DETAIL - 3] + "..."


def _check_text(text: object) -> None:
    if not isinstance(text, str):
        raise TypeError(f"texts to embed must be str, not {type(text).__name__}")


class OllamaEmbedder:
    """Embeds through an Ollama server with the official ``ollama`` client."""

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        host: str | None = None,
        batch_size: int = 32,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        if not model or not model.strip():
            raise ValueError("model must be a non-empty Ollama model name")
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        if timeout <= 0:
            raise ValueError("timeout must be positive")
        self.model = model.strip()
        self.url = resolve_host(host)
        self.batch_size = int(batch_size)
        self.timeout = float(timeout)

        base = _base_model(self.model)
        # "x" and "x:latest" are the same model in Ollama, so the same index.
        self.name = f"ollama:{self.model.removesuffix(':latest')}"
        self.max_words = KNOWN_MAX_WORDS.get(base, DEFAULT_MAX_WORDS)
        self.document_prefix, self.query_prefix = TASK_PREFIXES.get(base, ("", ""))
        self._dim: int | None = KNOWN_DIMS.get(base)

        self._client = ollama.Client(
            host=self.url,
            timeout=httpx.Timeout(self.timeout, connect=min(self.timeout, CONNECT_TIMEOUT)),
        )

    def __repr__(self) -> str:
        return f"OllamaEmbedder(model={self.model!r}, url={self.url!r})"

    # -- the Embedder contract -----------------------------------------------

    @property
    def dim(self) -> int:
        """Vector size; for a model not in KNOWN_DIMS, one probe request finds it."""
        if self._dim is None:
            self._embed([self.document_prefix + _DIM_PROBE_TEXT])
        assert self._dim is not None
        return self._dim

    def embed_documents(
        self, texts: Sequence[str], progress: ProgressCallback | None = None
    ) -> np.ndarray:
        texts = list(texts)
        for text in texts:
            _check_text(text)
        total = len(texts)
        if total == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        batches = []
        for start in range(0, total, self.batch_size):
            batch = texts[start : start + self.batch_size]
            batches.append(self._embed([self.document_prefix + text for text in batch]))
            if progress is not None:
                progress(start + len(batch), total)
        return np.concatenate(batches, axis=0)

    def embed_query(self, text: str) -> np.ndarray:
        _check_text(text)
        return self._embed([self.query_prefix + text])[0]

    # -- housekeeping ----------------------------------------------------------

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> "OllamaEmbedder":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- internals -------------------------------------------------------------

    def _embed(self, inputs: list[str]) -> np.ndarray:
        """One ``/api/embed`` call -> (len(inputs), dim) float32 unit rows."""
        try:
            response = self._client.embed(model=self.model, input=inputs)
            vectors = np.asarray(response.embeddings, dtype=np.float32)
        except (ollama.ResponseError, ConnectionError, httpx.HTTPError, httpx.InvalidURL,
                pydantic.ValidationError, ValueError, TypeError) as exc:
            raise self._explain(exc) from exc

        where = f"Ollama at {self.url} ({self.model})"
        if vectors.ndim != 2 or vectors.shape[0] != len(inputs):
            got = vectors.shape[0] if vectors.ndim >= 1 else 0
            raise EmbedderError(
                f"{where} returned {got} embeddings for {len(inputs)} texts: "
                "upgrade Ollama (`ollama --version`) and retry"
            )
        if vectors.shape[1] == 0 or not np.isfinite(vectors).all():
            raise EmbedderError(
                f"{where} returned empty or non-finite vectors: "
                f"re-pull the model with `ollama pull {self.model}` or upgrade Ollama"
            )
        if self._dim is None:
            self._dim = int(vectors.shape[1])
        elif vectors.shape[1] != self._dim:
            raise EmbedderError(
                f"{where} returned {vectors.shape[1]}-dimensional vectors, expected {self._dim}: "
                "check the model name (a different model or variant answers under it)"
            )
        return l2_normalise(vectors)

    def _explain(self, exc: BaseException) -> EmbedderError:
        """Turn whatever the client raised into a one-line, actionable EmbedderError."""
        url, model = self.url, self.model
        if isinstance(exc, ollama.ResponseError):
            detail = _one_line(exc.error)
            lowered = detail.lower()
            if "page not found" in lowered:
                # The router, not the model lookup, answered 404.
                return EmbedderError(
                    f"{url} has no Ollama /api/embed endpoint (HTTP 404): point OLLAMA_HOST "
                    "at an Ollama server, and upgrade Ollama if it predates /api/embed"
                )
            if exc.status_code == 404 or ("not found" in lowered and "model" in lowered):
                return EmbedderError(
                    f"Ollama at {url} has no model {model}: run `ollama pull {model}`"
                )
            status = f" (HTTP {exc.status_code})" if exc.status_code > 0 else ""
            return EmbedderError(f"Ollama at {url} failed to embed with {model}: {detail}{status}")
        if isinstance(exc, (ConnectionError, httpx.ConnectError, httpx.ConnectTimeout)):
            return EmbedderError(
                f"cannot reach Ollama at {url}: start it with `ollama serve` (or set OLLAMA_HOST)"
            )
        if isinstance(exc, httpx.TimeoutException):
            return EmbedderError(
                f"Ollama at {url} did not answer within {self.timeout:g}s: it may still be "
                f"loading {model} (see `ollama ps`); retry or raise the timeout"
            )
        if isinstance(exc, (httpx.HTTPError, httpx.InvalidURL)):
            return EmbedderError(
                f"cannot talk to Ollama at {url} ({type(exc).__name__}: {_one_line(exc)}): "
                "check it is running (`ollama serve`) and that OLLAMA_HOST is right"
            )
        return EmbedderError(
            f"{url} sent a reply that is not an Ollama embedding "
            f"({type(exc).__name__}): check that OLLAMA_HOST points at an Ollama server"
        )


def probe(host: str | None = None, model: str = DEFAULT_MODEL, timeout: float = 0.5) -> bool:
    """True when an Ollama server answers at ``host`` and has ``model`` pulled.

    Asks ``/api/tags`` (the client's ``list()``); ``model`` matches with or
    without a ``:latest`` tag. Never raises; returns within about ``timeout``
    seconds when nothing answers.
    """
    try:
        wanted = _canonical_model(model)
        with ollama.Client(host=resolve_host(host), timeout=timeout) as client:
            listing = client.list()
        return any(
            _canonical_model(entry.model or "") == wanted for entry in listing.models
        )
    except Exception:
        return False
