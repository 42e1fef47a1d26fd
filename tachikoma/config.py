"""Settings read at query time from ``tachikoma.toml`` in the memory root.

Every ranking weight lives here, so tuning never needs a re-index. A missing
file means the defaults below; a malformed file or an unknown value is a
clear error naming the file.

Example ``tachikoma.toml``::

    [ranking]
    half_life_days = 30          # recency = 1 / (1 + days / half_life_days)
    per_file = 2                 # at most this many chunks of one file
    repeat_penalty = 0.8         # the 2nd chunk of a file scores × 0.8

    [ranking.trust]
    owner = 1.0
    self = 0.9
    external = 0.7
    untrusted = 0.5
    missing = 0.6

    [ranking.confidence]
    high = 1.0
    medium = 0.9
    low = 0.7
    speculative = 0.5
    missing = 0.7

    [embedder]
    name = "auto"                # auto, minilm, ollama, ollama:<model>, hash
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from .errors import TachikomaError
from .memory import CONFIG_FILE
from .tags import CONFIDENCE_VALUES, TRUST_VALUES


def _trust_defaults() -> dict[str, float]:
    return {"owner": 1.0, "self": 0.9, "external": 0.7, "untrusted": 0.5, "missing": 0.6}


def _confidence_defaults() -> dict[str, float]:
    return {"high": 1.0, "medium": 0.9, "low": 0.7, "speculative": 0.5, "missing": 0.7}


@dataclass(frozen=True)
class RankingConfig:
    trust: dict[str, float] = field(default_factory=_trust_defaults)
    confidence: dict[str, float] = field(default_factory=_confidence_defaults)
    half_life_days: float = 30.0
    per_file: int = 2
    repeat_penalty: float = 0.8


@dataclass(frozen=True)
class Config:
    ranking: RankingConfig = field(default_factory=RankingConfig)
    embedder: str = "auto"
    max_file_bytes: int = 5_000_000
    path: Path | None = None  # the file it was read from, if any


def load_config(root: Path, path: str | os.PathLike | None = None) -> Config:
    """Read `path`, else $TACHIKOMA_CONFIG, else `<root>/tachikoma.toml` if present."""
    chosen = path or os.environ.get("TACHIKOMA_CONFIG")
    file = Path(chosen) if chosen else root / CONFIG_FILE
    if not file.exists():
        if chosen:
            raise TachikomaError(f"config file {str(file)!r} does not exist")
        return Config()
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise TachikomaError(f"{file}: not valid TOML: {exc}") from exc
    try:
        return _from_dict(data, file)
    except (TypeError, ValueError) as exc:
        raise TachikomaError(f"{file}: {exc}") from exc


def _from_dict(data: dict, file: Path) -> Config:
    known = {"ranking", "embedder", "index"}
    unknown = set(data) - known
    if unknown:
        raise ValueError(f"unknown section(s) {', '.join(sorted(unknown))}; known: {', '.join(sorted(known))}")
    ranking = RankingConfig()
    r = dict(data.get("ranking", {}))
    trust = {**ranking.trust, **_weights(r.pop("trust", {}), TRUST_VALUES, "ranking.trust")}
    confidence = {**ranking.confidence, **_weights(r.pop("confidence", {}), CONFIDENCE_VALUES, "ranking.confidence")}
    scalar_names = {f.name for f in fields(RankingConfig)} - {"trust", "confidence"}
    for key in r:
        if key not in scalar_names:
            raise ValueError(f"unknown key ranking.{key}")
    ranking = replace(ranking, trust=trust, confidence=confidence, **r)
    if ranking.half_life_days <= 0:
        raise ValueError("ranking.half_life_days must be positive")
    if not (isinstance(ranking.per_file, int) and ranking.per_file >= 1):
        raise ValueError("ranking.per_file must be a whole number ≥ 1")
    if not 0 <= ranking.repeat_penalty <= 1:
        raise ValueError("ranking.repeat_penalty must be between 0 and 1")
    embedder = data.get("embedder", {}).get("name", "auto")
    max_bytes = data.get("index", {}).get("max_file_bytes", Config.max_file_bytes)
    return Config(ranking=ranking, embedder=str(embedder), max_file_bytes=int(max_bytes), path=file)


def _weights(table: dict, allowed: tuple[str, ...], name: str) -> dict[str, float]:
    out = {}
    for key, value in table.items():
        if key not in (*allowed, "missing"):
            raise ValueError(f"unknown key {name}.{key}; known: {', '.join((*allowed, 'missing'))}")
        if not isinstance(value, (int, float)) or not 0 <= value <= 1:
            raise ValueError(f"{name}.{key} must be a number between 0 and 1")
        out[key] = float(value)
    return out
