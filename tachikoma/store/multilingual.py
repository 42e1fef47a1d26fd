"""The passages read again by the multilingual embedder, as both engines return them
(`protocol.MultilingualStore.load_multilingual`; the tables: `sqlite_schema.MULTILINGUAL`,
`postgres_schema.MULTILINGUAL`)."""

from __future__ import annotations

import numpy as np


def arrays(rows: list[tuple], dim: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(chunk id, language or None, vector bytes) rows, by chunk id: (M,) chunk ids, (M,) languages ("" for
    English) and the (M, dim) float32 matrix; ValueError for vectors of another size or not finite."""
    blob = b"".join(bytes(r[2]) for r in rows)
    if len(blob) != len(rows) * dim * 4:
        raise ValueError(f"{len(blob):,} bytes of multilingual vectors for {len(rows):,} chunks of {dim} dimensions")
    matrix = np.frombuffer(blob, dtype=np.float32).reshape(len(rows), dim)
    if not np.isfinite(matrix).all():
        raise ValueError("a multilingual vector holds NaN or infinity")
    return (np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows)),
            np.array([r[1] or "" for r in rows], dtype="U40"), matrix)
