"""Approximate vector candidates for a large index: one bit per dimension, re-scored exactly.

Above `ANN_MIN_CHUNKS` chunks the exact scan (every float32 vector times the
query) is what a search costs, and it grows with the memory: ~0.24 s idle at
a million 768-d chunks. This index keeps, per chunk, the signs of its vector
after centring and a fixed random rotation (96 bytes for 768 dimensions, a
32nd of the floats). A search counts differing bits against the query's
signs (Hamming distance, `numpy.bitwise_count`) over all chunks, keeps the
`SHORTLIST` nearest, and the caller scores those again from the float
vectors: every cosine it ranks and explains is the exact one, the index only
chooses which chunks are scored. The rotation spreads the variance evenly
over the bits (embeddings put most of it in a few directions, which plain
signs would waste); without it recall@10 of the raw neighbours stopped near
0.9 at 200,000 chunks, with it it is 1.0 (bench/bench_million.py).

The codes are derived from the vector cache of one index generation, stored
beside it under the same key (``ann-<index id>-<generation>.<build>.codes.npy``
and ``.meta.npz``), and checked against that generation's chunk ids before
use: a stale, damaged or half-written file is never read, it is rebuilt.
Building reuses the codes of the previous generation's chunks whose id and
vector are unchanged (a fixed random projection of each vector tells a
reused row id), so a re-index of one file encodes that file's chunks only;
the previous generation's files are removed once the new ones are written.

Nothing here knows about ranking; `candidates` returns row positions.
"""

from __future__ import annotations

import hashlib
import math
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: Below this many chunks the exact scan is used. Measured (bench/bench_million.py --crossover, the
#: whole ranking, CPU time): the index costs 1.45x the exact search at 5,000 chunks of 768
#: dimensions, 0.58x at 10,000, 0.32x at 20,000, 0.16x at 50,000 and 0.10x at 100,000; the crossover
#: is near 7,000. Below 20,000 the exact scan costs a few milliseconds and needs no recall check.
ANN_MIN_CHUNKS = 20_000
#: How many nearest chunks by code are re-scored exactly (the search adds the keyword matches): at least
#: `SHORTLIST`, and a share of the index (`shortlist_size`) that grows as the codes get shorter, since fewer
#: bits tell close neighbours apart less well. Measured (bench/bench_million.py, 1M synthetic clustered
#: vectors, recall@10 of the final ranking): 768 dimensions 0.983 / 0.993 / 1.0 with 1,000 / 2,000 / 4,000
#: (0.4% of the index); 384 dimensions (MiniLM's) 0.977 / 0.990 / 0.997 with 4,000 / 8,000 / 16,000
#: (54 ms p50 at 16,000 against 41 ms at 4,000; the exact ranking 677 ms).
SHORTLIST = 4_000
SHORTLIST_SHARE_768 = 0.004
#: The rotation is fixed (seeded): codes built by any process compare with any query.
ROTATION_SEED = 20_261_203
ROWS_PER_BLOCK = 32_768
#: Codes compared per block in a search (1.5 MB of 768-bit codes).
SCAN_ROWS = 16_384
FORMAT = 1


def shortlist_size(chunks: int, dim: int) -> int:
    """How many chunks a search of an index of `chunks` vectors of `dim` dimensions re-scores exactly."""
    return max(SHORTLIST, math.ceil(SHORTLIST_SHARE_768 * (768 / dim) ** 2 * chunks))


def rotation(dim: int) -> np.ndarray:
    """A (dim, dim) random orthogonal matrix, the same for every process (QR of a seeded Gaussian)."""
    q, r = np.linalg.qr(np.random.default_rng(ROTATION_SEED).standard_normal((dim, dim)))
    return (q * np.sign(np.diag(r))).astype(np.float32)


def fingerprint(ids: np.ndarray) -> str:
    """What ties codes to one set of chunk rows, in order."""
    return hashlib.blake2b(np.ascontiguousarray(ids, dtype=np.int64).tobytes(), digest_size=16).hexdigest()


def encode(vectors: np.ndarray, centre: np.ndarray, rot: np.ndarray) -> np.ndarray:
    """(n, dim/64) uint64: the sign bits of (vectors − centre) @ rot, block by block (bounded memory)."""
    n, dim = vectors.shape
    words = -(-dim // 64)
    out = np.zeros((n, words), dtype=np.uint64)
    for start in range(0, n, ROWS_PER_BLOCK):
        block = (np.asarray(vectors[start:start + ROWS_PER_BLOCK], dtype=np.float32) - centre) @ rot
        bits = np.packbits(block > 0, axis=1)
        padded = np.zeros((bits.shape[0], words * 8), dtype=np.uint8)
        padded[:, :bits.shape[1]] = bits
        out[start:start + bits.shape[0]] = padded.view(np.uint64)
    return out


@dataclass
class BinaryIndex:
    """Sign codes of one snapshot's vectors, row-aligned with its matrix."""

    centre: np.ndarray  # (dim,) float32
    rot: np.ndarray  # (dim, dim) float32
    codes: np.ndarray  # (N, words) uint64, possibly a read-only memory map
    ids: np.ndarray  # (N,) chunk ids the codes belong to (kept for the next generation's reuse)
    probe: np.ndarray  # (N,) float32 each vector · a fixed random direction: tells a reused id's new vector

    def query_code(self, qvec: np.ndarray) -> np.ndarray:
        return encode(np.asarray(qvec, dtype=np.float32)[None, :], self.centre, self.rot)[0]

    def distances(self, qvec: np.ndarray) -> np.ndarray:
        """(N,) Hamming distance of every chunk's code to the query's, block by block (the XOR of a
        block stays in cache, and memory stays bounded at any size)."""
        code = self.query_code(qvec)
        out = np.empty(self.codes.shape[0], dtype=np.uint16)
        for start in range(0, self.codes.shape[0], SCAN_ROWS):
            block = self.codes[start:start + SCAN_ROWS]
            np.sum(np.bitwise_count(block ^ code), axis=1, dtype=np.uint16, out=out[start:start + block.shape[0]])
        return out

    def candidates(self, qvec: np.ndarray, count: int = SHORTLIST, allowed: np.ndarray | None = None,
                   dist: np.ndarray | None = None) -> np.ndarray:
        """Sorted row positions of the `count` chunks nearest the query by code (among `allowed`, (N,)
        bool, when given; `dist`: its `distances`, when the caller has them). Their exact cosines are the
        caller's to compute."""
        dist = self.distances(qvec) if dist is None else dist
        if allowed is not None:
            dist = np.where(allowed, dist, np.iinfo(np.uint16).max)
            count = min(count, int(np.count_nonzero(allowed)))
        n = dist.shape[0]
        if count >= n:
            return np.arange(n) if allowed is None else np.flatnonzero(allowed)
        if count <= 0:
            return np.empty(0, dtype=np.int64)
        return np.sort(np.argpartition(dist, count - 1)[:count])


def probe_values(matrix: np.ndarray) -> np.ndarray:
    """(N,) float32: each row · a fixed random direction (a mat-vec: the cost of one exact scan)."""
    direction = np.random.default_rng(ROTATION_SEED + 1).standard_normal(matrix.shape[1]).astype(np.float32)
    return np.asarray(matrix @ direction, dtype=np.float32)


def build(matrix: np.ndarray, ids: np.ndarray, previous: BinaryIndex | None = None) -> tuple[BinaryIndex, int]:
    """Codes for `matrix` (rows = chunks `ids`, ascending), and how many rows were encoded.

    Rows whose id `previous` holds with the same vector (same `probe_values`: an id can come back
    for another chunk, since SQLite reuses the highest rowid after a delete) keep its code, under
    its centre and rotation; only the rest are encoded. Without a usable `previous` the centre is
    the matrix's mean and every row is encoded."""
    ids = np.asarray(ids, dtype=np.int64)
    dim = matrix.shape[1]
    probe = probe_values(matrix)
    if previous is not None and previous.centre.shape == (dim,) and previous.codes.shape[0]:
        centre, rot = previous.centre, previous.rot
        codes = np.empty((matrix.shape[0], previous.codes.shape[1]), dtype=np.uint64)
        pos = np.minimum(np.searchsorted(previous.ids, ids), previous.ids.shape[0] - 1)
        same = (previous.ids[pos] == ids) & (previous.probe[pos] == probe)
        reuse = np.flatnonzero(same)
        codes[reuse] = previous.codes[pos[reuse]]
        fresh = np.flatnonzero(~same)
        if fresh.shape[0]:
            codes[fresh] = encode(matrix[fresh], centre, rot)
        return BinaryIndex(centre, rot, codes, ids, probe), int(fresh.shape[0])
    centre = np.zeros(dim, dtype=np.float64)
    for start in range(0, matrix.shape[0], ROWS_PER_BLOCK):
        centre += np.asarray(matrix[start:start + ROWS_PER_BLOCK], dtype=np.float64).sum(axis=0)
    centre = (centre / max(matrix.shape[0], 1)).astype(np.float32)
    rot = rotation(dim)
    return BinaryIndex(centre, rot, encode(matrix, centre, rot), ids, probe), int(matrix.shape[0])


#: Files beside the index: the codes (memory-mapped) and the rest (centre, rotation, ids, probe). The
#: codes file carries a token of its build, which the meta names: two processes building at once can
#: never pair one's codes with the other's centre.
CODES_FILE = "ann-{key}.{token}.codes.npy"
META_FILE = "ann-{key}.meta.npz"


def _read(folder: Path, key: str, ids: np.ndarray | None = None, dim: int | None = None) -> BinaryIndex | None:
    """The index stored under `key`, or None when it is missing, unreadable or not for `ids`."""
    try:
        with np.load(folder / META_FILE.format(key=key)) as meta:
            fmt, stored_ids, probe = int(meta["format"]), meta["ids"], meta["probe"]
            centre, rot, print_ = meta["centre"], meta["rot"], str(meta["fingerprint"])
            token = str(meta["token"])
        if not token.isalnum():
            return None
        codes = np.load(folder / CODES_FILE.format(key=key, token=token), mmap_mode="r")
    except (OSError, ValueError, KeyError, EOFError):
        return None
    n = stored_ids.shape[0]
    if (fmt != FORMAT or codes.dtype != np.uint64 or codes.ndim != 2 or codes.shape[0] != n
            or probe.shape != (n,) or centre.ndim != 1 or rot.shape != (centre.shape[0],) * 2
            or codes.shape[1] != -(-centre.shape[0] // 64) or print_ != fingerprint(stored_ids)):
        return None
    if dim is not None and centre.shape[0] != dim:
        return None
    if ids is not None and (stored_ids.shape != ids.shape or not np.array_equal(stored_ids, ids)):
        return None
    return BinaryIndex(centre, rot, codes, stored_ids, probe)


def _write(folder: Path, key: str, index: BinaryIndex) -> None:
    """Atomically, meta last (a reader checks the codes against it). Best effort: a read-only or
    full disk costs the next search a rebuild, never an answer."""
    temps = []
    token = secrets.token_hex(6)
    try:
        for name, save in ((CODES_FILE, lambda out: np.save(out, np.ascontiguousarray(index.codes))),
                           (META_FILE, lambda out: np.savez(out, format=FORMAT, ids=index.ids, probe=index.probe,
                                                             centre=index.centre, rot=index.rot, token=token,
                                                             fingerprint=fingerprint(index.ids)))):
            target = folder / name.format(key=key, token=token)
            temp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
            temps.append(temp)
            with open(temp, "wb") as out:
                save(out)
            os.replace(temp, target)
    except OSError:
        for temp in temps:
            try:
                temp.unlink(missing_ok=True)
            except OSError:
                pass


def _others(folder: Path, key: str) -> list[str]:
    """Keys of other stored indexes, newest file first."""
    found = []
    for path in folder.glob(META_FILE.format(key="*")):
        other = path.name[len("ann-"):-len(".meta.npz")]
        if other != key:
            try:
                found.append((path.stat().st_mtime, other))
            except OSError:
                pass
    return [k for _, k in sorted(found, reverse=True)]


def open_or_build(folder: Path, key: str, matrix: np.ndarray, ids: np.ndarray) -> tuple[BinaryIndex, int]:
    """The codes of this index generation (`key`, as the vector cache's), and how many rows had to
    be encoded (0: read as stored). A stored index for other rows is never used as is; the newest
    one of the same index (same id before the generation) lends the codes of its unchanged rows.
    Other generations' files are removed once the new one is written."""
    ids = np.asarray(ids, dtype=np.int64)
    found = _read(folder, key, ids, matrix.shape[1])
    if found is not None:
        return found, 0
    index_id = key.rsplit("-", 1)[0] if "-" in key else None
    previous = None
    for other in _others(folder, key):
        if index_id is not None and other.rsplit("-", 1)[0] == index_id:
            previous = _read(folder, other, dim=matrix.shape[1])
            if previous is not None:
                break
    built, encoded = build(matrix, ids, previous)
    _write(folder, key, built)
    for old in folder.glob("ann-*"):  # other generations, and codes no meta names (a lost race)
        if old.name.startswith(f"ann-{key}.") and (old.name == META_FILE.format(key=key) or
                                                   _read_token(folder, key) in old.name):
            continue
        if old.name.endswith((".codes.npy", ".meta.npz")):
            try:
                old.unlink(missing_ok=True)
            except OSError:
                pass
    return built, encoded


def _read_token(folder: Path, key: str) -> str:
    try:
        with np.load(folder / META_FILE.format(key=key)) as meta:
            return "." + str(meta["token"]) + "."
    except (OSError, ValueError, KeyError, EOFError):
        return "\0"  # matches no file name
