"""The snapshot of an index that ranking reads: one row per chunk, one per file, as numpy arrays.

`Snapshot.load` reads the index in one read transaction; the vectors come
through a memory-mapped cache beside the index (`load_vectors`), which is
what makes a cold search from the command line fast. `Filters` (kind, trust,
untagged, source, folders and globs) are masks over a snapshot; tiers say which vectors each chunk has
while an index run is still embedding.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ..reading import dates
from ..reading.documents import TRANSCRIPT
from ..embedders.names import E5_SMALL
from ..globs import name_or_path_mask, path_matcher
from ..language.segment import dominant_script
from ..store.sqlite import Store
from . import ranking, voice

#: The cache files of an index's vectors (`load_vectors`), per index identity and generation.
VECTOR_CACHE = "vectors-{key}.{part}.npy"
#: How much of a chunk's text tells its script (`chunk_scripts`).
SCRIPT_SAMPLE = 1000
#: Which vectors a chunk has (`Snapshot.tier`) and the name each tier goes by in explanations.
NO_VECTORS, QUICK, FULL = np.int8(0), np.int8(1), np.int8(2)
TIER_NAMES = {0: "none", 1: "quick", 2: "full"}


@dataclass
class Filters:
    kind: str | None = None  # "markdown" | "transcript"
    trust: str | None = None  # a trust value, or "missing"
    untagged: bool = False  # only files without any valid trust or confidence
    #: only files under these folders or matching these globs, as `tag --path` reads them (`globs.pattern_matches`):
    #: a file matching any
    paths: tuple[str, ...] = ()
    source: str | None = None  # only files with this source tag (in any case), or "missing"

    def mask(self, snap: "Snapshot") -> np.ndarray | None:
        keep = np.ones(len(snap.paths), dtype=bool)
        if self.kind:
            keep &= snap.kinds == self.kind
        if self.trust == "missing":
            keep &= np.array([t is None for t in snap.trust])
        elif self.trust:
            keep &= snap.trust == self.trust
        if self.source == "missing":
            keep &= np.array([s is None for s in snap.sources])
        elif self.source:  # as written, whatever its case ("Martin" finds source: martin)
            wanted = self.source.casefold()
            keep &= np.array([s is not None and s.casefold() == wanted for s in snap.sources], dtype=bool)
        if self.paths:
            keep &= snap.files_under(self.paths)
        if self.untagged:
            keep &= np.array([t is None and c is None for t, c in zip(snap.trust, snap.confidence)])
        return None if keep.all() else keep[snap.chunk_file]


@dataclass
class Snapshot:
    """Everything ranking needs, as arrays: one row per chunk, one per file."""

    generation: int
    chunk_ids: np.ndarray  # (N,) chunk row ids, ascending
    chunk_file: np.ndarray  # (N,) position into the file arrays
    matrix: np.ndarray  # (N, dim) float32 unit vectors (may be a read-only memory map)
    paths: np.ndarray  # (F,) object
    kinds: np.ndarray
    trust: np.ndarray
    confidence: np.ndarray
    sources: np.ndarray
    date: np.ndarray  # (N,) unix seconds used for recency, per chunk (`dates.choose`)
    date_source: np.ndarray  # (N,) index into dates.SOURCES
    evergreen: np.ndarray  # (F,) bool: front matter (or tag file) says evergreen
    #: (N,) the chunk's file's last modification (its last content commit, else its file time) and that
    #: date's source: the age of the seed's rule (`config.Recency.modified`).
    modified: np.ndarray | None = None
    modified_source: np.ndarray | None = None
    #: (N,) int8 which vectors each chunk has (`TIERS`: 2 full, 1 quick only, 0 none yet); None: all full.
    tier: np.ndarray | None = None
    #: (N, quick dim) float32 quick-tier vectors (zeros where a chunk has none); None when no chunk has one.
    quick: np.ndarray | None = None
    _weights: dict = field(default_factory=dict, repr=False)
    #: Approximate candidates (`vector_index.BinaryIndex`) for a large index; None: exact scan only.
    vector_index: object = field(default=None, repr=False)
    #: Chunks in the whole index when this snapshot holds only some of them (`rows`); 0: it holds all.
    indexed_chunks: int = 0
    #: The embedder the index's vectors come from (its scale: `scoring.similarity_scale`); "": not known.
    embedder: str = ""
    #: (N,) str, each chunk's script (`segment.dominant_script`), read only for an embedder whose meaning the
    #: floor measures from its script's background (`scoring.SCRIPT_BACKGROUND`, `chunk_scripts`); None: not read.
    scripts: np.ndarray | None = None
    #: (N,) int8: whose turns each chunk holds (`chunk_voices`, read for a question about its asker); None: not read.
    voices: np.ndarray | None = None
    #: The chunks read again by the multilingual embedder in an index whose embedder reads English only (those
    #: not in English; every one when the index reads every passage, `indexer.pipeline.embed_multilingual`):
    #: (M,) their positions, ascending, (M,) their languages ("German", …, "" English) and (M, dim) that
    #: embedder's vectors (`scoring.multilingual_similarity`); None: no such chunk.
    multi_rows: np.ndarray | None = None
    multi_language: np.ndarray | None = None
    multi_matrix: np.ndarray | None = None
    #: The name of the multilingual embedder that read them (`scoring.MULTILINGUAL_READINGS`).
    multi_embedder: str = ""

    @property
    def chunk_count(self) -> int:
        """How many chunks the index holds (word rarities count over all of them)."""
        return self.indexed_chunks or len(self.chunk_ids)

    def rows(self, positions: np.ndarray) -> "Snapshot":
        """The same snapshot restricted to some chunks (ascending `positions`): the files stay whole,
        and so do the per-file weights it has computed."""
        multi = {}
        if self.multi_rows is not None:
            keep = np.isin(self.multi_rows, positions)
            multi = {"multi_rows": np.searchsorted(positions, self.multi_rows[keep]),
                     "multi_language": self.multi_language[keep], "multi_matrix": self.multi_matrix[keep]}
        return replace(self, **multi, chunk_ids=self.chunk_ids[positions], chunk_file=self.chunk_file[positions],
                       matrix=np.asarray(self.matrix[positions]), date=self.date[positions],
                       date_source=self.date_source[positions], vector_index=None,
                       modified=None if self.modified is None else self.modified[positions],
                       modified_source=None if self.modified is None else self.modified_source[positions],
                       indexed_chunks=self.chunk_count,
                       tier=None if self.tier is None else self.tier[positions],
                       quick=None if self.quick is None else np.asarray(self.quick[positions]),
                       scripts=None if self.scripts is None else self.scripts[positions],
                       voices=None if self.voices is None else self.voices[positions])

    @classmethod
    def load(cls, store: Store, dim: int) -> "Snapshot":
        """Read the index in one consistent read transaction (WAL snapshot isolation)."""
        with store.reading():
            generation = store.generation
            rows = store.ranking_files()
            ids, file_ids, chunk_date, matrix, tier, quick = load_vectors(store, dim, generation)
            embedder = (store.embedder or ("", 0))[0]
            multi = multilingual_vectors(store, generation, ids)
        file_row_ids = np.array([r[0] for r in rows], dtype=np.int64)
        chunk_file = np.searchsorted(file_row_ids, file_ids)

        def per_chunk(i: int, scale: float = 1.0) -> np.ndarray:
            values = np.array([np.nan if r[i] is None else r[i] / scale for r in rows], dtype=np.float64)
            return values[chunk_file]

        imported = np.array([bool(r[12]) for r in rows], dtype=bool)[chunk_file]
        date, source = dates.choose(chunk_date, per_chunk(6), per_chunk(7), per_chunk(8), per_chunk(9),
                                    per_chunk(10, 1e9), imported)
        none = np.full(len(ids), np.nan)
        modified, modified_source = dates.choose(none, none, none, none, per_chunk(9), per_chunk(10, 1e9), imported)
        column = lambda i: np.array([r[i] for r in rows], dtype=object)  # noqa: E731 (a one-line closure handed on)
        return cls(generation, ids, chunk_file, matrix, column(1), column(2), column(3), column(4),
                   column(5), date, source, np.array([bool(r[11]) for r in rows], dtype=bool),
                   modified, modified_source, tier=_tiers(tier, quick), quick=quick, embedder=embedder, **multi)

    def multi_read(self, language: str) -> np.ndarray:
        """(M,) bool: which of the `multi_rows` a query in `language` ("" English) reads with the multilingual
        embedder: those not in English, or every one for a query in another language."""
        return self.multi_language != "" if not language else np.ones(len(self.multi_rows), dtype=bool)

    def evergreen_files(self, globs: tuple[str, ...]) -> np.ndarray:
        """(F,) bool: evergreen by the file itself or by a `globs` pattern, computed once per list."""
        def make() -> np.ndarray:
            by_glob = np.array(name_or_path_mask(globs, self.paths), dtype=bool)
            return self.evergreen | by_glob if len(self.paths) else self.evergreen
        return self._per_file(("evergreen", globs), make)

    def files_under(self, patterns: tuple[str, ...]) -> np.ndarray:
        """(F,) bool: in a folder or matching a glob of `patterns` (`Filters.paths`), computed once per list."""
        def make() -> np.ndarray:
            matches = path_matcher(patterns)  # one expression for all the globs, as [index] exclude reads them
            return np.fromiter(map(matches, self.paths), dtype=bool, count=len(self.paths))
        return self._per_file(("under", patterns), make)

    def files_left_out(self, exclude) -> np.ndarray:
        """(F,) bool: the files ``[index] exclude`` (`exclude`, a `memory.Exclusion`) leaves out by their paths,
        computed once per setting. An index made before the setting holds them until its next run (searches count
        them in ``changed_since`` meanwhile); they are no memory from the moment it is set."""
        def make() -> np.ndarray:
            return np.fromiter((exclude.file(path) is not None for path in self.paths), dtype=bool,
                               count=len(self.paths))
        return self._per_file(("left out", exclude.patterns), make)

    def tag_weights(self, cfg) -> tuple[np.ndarray, np.ndarray]:
        """Per-file trust and confidence weights for a ranking config, computed once per config."""
        key = (tuple(sorted(cfg.trust.items())), tuple(sorted(cfg.confidence.items())))
        return self._per_file(key, lambda: (ranking.tag_weights(self.trust, cfg.trust),
                                            ranking.tag_weights(self.confidence, cfg.confidence)))

    def _per_file(self, key, make):
        """`make()`'s per-file arrays, kept under `key` while this snapshot lives (`rows` keeps the files whole, and
        these with them); at most nine kinds kept, all dropped for the tenth."""
        if key not in self._weights:
            if len(self._weights) > 8:
                self._weights.clear()
            self._weights[key] = make()
        return self._weights[key]

def chunk_scripts(store: Store, chunk_ids: np.ndarray, generation: int) -> np.ndarray:
    """(N,) str: the script of each chunk's text (`segment.dominant_script`, from its first
    `SCRIPT_SAMPLE` characters), read from the index once per generation and kept beside the vector cache
    (`load_vectors`; a cold search from the command line reads no text). Call inside a read transaction."""
    return _per_chunk(store, chunk_ids, generation, "scripts", "U16",
                      lambda text: dominant_script(text[:SCRIPT_SAMPLE]))


def chunk_voices(store: Store, snap: "Snapshot") -> np.ndarray:
    """(N,) int8: whose turns each chunk holds (`voice.voice_of`: `voice.AGENT_ONLY` for a transcript passage
    with the agent's turns only, else 0), read once per generation and kept beside the vector cache as
    `chunk_scripts` is; only transcripts' chunks are read. Call inside a read transaction."""
    return _per_chunk(store, snap.chunk_ids, snap.generation, "voices", np.int8, voice.voice_of, TRANSCRIPT)


def _per_chunk(store: Store, chunk_ids: np.ndarray, generation: int, part: str, dtype, of_text,
               kind: str | None = None) -> np.ndarray:
    """(N,) `of_text` of each chunk's text (of the files of `kind`; the others keep the dtype's zero), read in
    one pass over the index and cached as the vector cache's `part` for this generation."""
    target = store.cache_folder / VECTOR_CACHE.format(key=store.cache_key(generation), part=part)
    want = np.dtype(dtype)
    try:
        cached = np.load(target)
        if cached.shape == (len(chunk_ids),) and cached.dtype.kind == want.kind:
            return cached
    except (OSError, ValueError):
        pass
    values = store.map_chunk_texts(of_text, kind)
    out = np.zeros(len(chunk_ids), dtype=want)
    for position, chunk in enumerate(chunk_ids.tolist()):
        if chunk in values:
            out[position] = values[chunk]
    _write_vector_cache(store.cache_folder, store.cache_key(generation), {part: out}, {part: target})
    return out


def multilingual_vectors(store: Store, generation: int, chunk_ids: np.ndarray) -> dict:
    """The `Snapshot` fields of the chunks the multilingual embedder read too (`multi_rows`, …), through the
    vector cache (`load_vectors`); empty when the index has none. Call inside a read transaction."""
    dim = store.get_meta("multilingual_dim") if getattr(store, "multilingual", False) else None
    if not dim or not dim.isdigit():
        return {}
    key = store.cache_key(generation)
    files = {part: store.cache_folder / VECTOR_CACHE.format(key=key, part=part) for part in ("mids", "mlang", "m32")}
    try:
        ids, languages, matrix = (np.load(files["mids"]), np.load(files["mlang"]), np.load(files["m32"]))
        if not (ids.shape == languages.shape == matrix.shape[:1] and matrix.shape[1:] == (int(dim),)):
            raise ValueError("multilingual vectors of another index state")
    except (OSError, ValueError):
        ids, languages, matrix = store.load_multilingual(int(dim))
        _write_vector_cache(store.cache_folder, key, {"mids": ids, "mlang": languages, "m32": matrix}, files)
    if not len(ids):
        return {}
    pos, known = positions(chunk_ids, ids)
    if not known.any():
        return {}
    return {"multi_rows": pos[known], "multi_language": languages[known], "multi_matrix": matrix[known],
            "multi_embedder": store.get_meta("multilingual_embedder") or E5_SMALL}


def quick_rows(quick: np.ndarray) -> np.ndarray:
    """(N,) bool: which rows of a quick matrix hold a vector (a chunk without one has zeros)."""
    return np.any(quick != 0, axis=1)


def _tiers(full: np.ndarray, quick: np.ndarray | None) -> np.ndarray | None:
    """(N,) int8 tier per chunk from which have full vectors and the quick matrix; None when all are full."""
    if full.all():
        return None
    partial = np.where(quick_rows(quick), QUICK, NO_VECTORS) if quick is not None else NO_VECTORS
    return np.where(full, FULL, partial).astype(np.int8)


def positions(chunk_ids: np.ndarray, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions of chunk `ids` among the ascending `chunk_ids`, and which of them are there."""
    if not len(chunk_ids):
        return np.zeros(len(ids), dtype=np.int64), np.zeros(len(ids), dtype=bool)
    pos = np.minimum(np.searchsorted(chunk_ids, ids), len(chunk_ids) - 1)
    return pos, chunk_ids[pos] == ids


def chunk_dates(store: Store, ids: np.ndarray) -> np.ndarray:
    """(N,) each chunk's own date (transcript chunks: their last timed turn), NaN where it has none."""
    dated = store.chunk_dates()
    chunk_date = np.full(len(ids), np.nan)
    if dated and len(ids):
        pos, known = positions(ids, np.array([r[0] for r in dated], dtype=np.int64))
        chunk_date[pos[known]] = np.array([r[1] for r in dated], dtype=np.float64)[known]
    return chunk_date


def load_vectors(store: Store, dim: int, generation: int):
    """Chunk ids, their file ids, their own dates (`chunk_dates`), the (N, dim) matrix, (N,) bool which
    chunks have a full vector, and the quick-tier matrix (None when no chunk has a quick vector only),
    through a cache beside the index.

    Reading 100,000 vector BLOBs out of SQLite takes seconds (and the dates,
    stored after each BLOB, a read of the whole table); a memory-mapped
    ``.npy`` copy of the same index and generation opens at once, which is
    what makes a cold search from the command line fast. The cache is derived
    like the index: written atomically, named by the index's identity and
    generation (`Store.cache_key`), replaced when the index changes, and
    rebuilt whenever it is missing or unreadable. Call inside the read
    transaction that read `generation`.
    """
    folder = store.cache_folder
    key = store.cache_key(generation)
    files = {part: folder / VECTOR_CACHE.format(key=key, part=part) for part in ("f32", "ids", "dates", "q32")}
    try:
        ids = np.load(files["ids"])
        dates = np.load(files["dates"])
        matrix = np.load(files["f32"], mmap_mode="r")
        n = matrix.shape[0]
        if (ids.shape == (3, n) and dates.shape == (n,) and matrix.shape[1:] == (dim,)
                and matrix.dtype == np.float32 and dates.dtype == np.float64):
            full = ids[2].astype(bool)
            quick = None
            if not full.all() and files["q32"].exists():
                quick = np.load(files["q32"], mmap_mode="r")
                if quick.shape[0] != n:
                    raise ValueError("quick vectors of another index state")
            return ids[0], ids[1], dates, matrix, full, quick
    except (OSError, ValueError):
        pass
    chunk_ids, file_ids, matrix = store.load_matrix(dim)
    # A store without tiers (`Store.tiers`) holds only chunks with their full vectors.
    full = store.has_vectors("vector") if store.tiers else np.ones(len(chunk_ids), dtype=bool)
    quick = None
    quick_dim = store.get_meta("quick_dim")
    if not full.all() and quick_dim and quick_dim.isdigit() and store.has_vectors("quick").any():
        quick = store.load_matrix(int(quick_dim), "quick")[2]
    dates = chunk_dates(store, chunk_ids)
    arrays = {"f32": matrix, "ids": np.stack([chunk_ids, file_ids, full.astype(np.int64)]), "dates": dates}
    if quick is not None:
        arrays["q32"] = quick
    _write_vector_cache(folder, key, arrays, files)
    return chunk_ids, file_ids, dates, matrix, full, quick


def _write_vector_cache(folder: Path, key: str, arrays: dict, files: dict) -> None:
    """Best effort: a read-only or full disk only costs speed, never a search. The matrix goes last,
    so a reader that finds it finds the rest of its generation; other generations' files go."""
    temp = None
    try:
        for part in sorted(arrays, key=lambda part: part == "f32"):
            target = files[part]
            temp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
            with open(temp, "wb") as out:
                np.save(out, arrays[part])
            os.replace(temp, target)
            temp = None
        for old in folder.glob(VECTOR_CACHE.format(key="*", part="*")):
            if not old.name.startswith(f"vectors-{key}."):
                old.unlink(missing_ok=True)
    except OSError:
        if temp is not None:  # a full disk: leave no half-written copy to fill it further
            try:
                temp.unlink(missing_ok=True)
            except OSError:
                pass
