"""The store protocol (`tachikoma.store.protocol`) and both engines agree, parameter for parameter.

Every method of `IndexStore` (and of `TieredStore`, for an engine with tiers
of vectors) must exist on `sqlite.Store` and `postgres.PostgresStore` with
the same parameters: names, order, kinds and defaults. An engine may take an
extra optional parameter only where `EXTRAS` names it, so a new difference
fails here instead of in a search on the other engine. Real stores are opened
too (a SQLite file, a database on the test PostgreSQL server) for the
attributes an instance sets.
"""

from __future__ import annotations

import inspect

import pytest

from tachikoma.store import locate
from tachikoma.store.postgres import PostgresStore
from tachikoma.store.protocol import IndexStore, MultilingualStore, TieredStore
from tachikoma.store.sqlite import Store as SQLiteStore

#: (engine class, method) → the engine's own optional parameters after the protocol's.
EXTRAS = {
    (PostgresStore, "vector_candidates"): ["ef_search"],  # bench/bench_store.py tunes HNSW with it
}


def _own(protocol) -> dict[str, object]:
    """The members `protocol` itself declares (methods, properties), without Protocol's machinery."""
    return {name: value for name, value in vars(protocol).items()
            if (not name.startswith("_") or name in ("__enter__", "__exit__"))
            and (inspect.isfunction(value) or isinstance(value, property))}


def _parameters(function) -> list[tuple[str, object, object]]:
    return [(p.name, p.kind, p.default) for p in inspect.signature(function).parameters.values()]


def _differences(protocol, engine) -> list[str]:
    found = []
    for name, declared in _own(protocol).items():
        actual = inspect.getattr_static(engine, name, None)
        if actual is None:
            found.append(f"{engine.__name__} has no {name}")
            continue
        if isinstance(declared, property):
            if not isinstance(actual, property):
                found.append(f"{engine.__name__}.{name} is not a property")
            continue
        if not callable(actual):
            found.append(f"{engine.__name__}.{name} is not a method")
            continue
        wanted, given = _parameters(declared), _parameters(actual)
        extra = given[len(wanted):]
        if given[:len(wanted)] != wanted:
            found.append(f"{engine.__name__}.{name}{inspect.signature(actual)} differs from the protocol's "
                         f"{name}{inspect.signature(declared)}")
        elif [p[0] for p in extra] != EXTRAS.get((engine, name), []):
            found.append(f"{engine.__name__}.{name} takes parameters the protocol does not: {[p[0] for p in extra]}")
        elif any(p[2] is inspect.Parameter.empty for p in extra):
            found.append(f"{engine.__name__}.{name}: its extra parameters must be optional")
    return found


def test_both_engines_take_every_protocol_method_with_the_same_parameters():
    assert _own(IndexStore), "the protocol declares no methods"
    assert _differences(IndexStore, SQLiteStore) == []
    assert _differences(IndexStore, PostgresStore) == []


def test_the_engine_with_tiers_has_the_tier_methods_and_the_other_says_it_has_none():
    assert SQLiteStore.tiers is True and _differences(TieredStore, SQLiteStore) == []
    assert PostgresStore.tiers is False
    assert {"pending", "fill"} & set(vars(PostgresStore)) == set()  # the indexer embeds before storing there


def test_both_engines_keep_the_passages_read_again_by_the_multilingual_embedder():
    assert SQLiteStore.multilingual is True and _differences(MultilingualStore, SQLiteStore) == []
    assert PostgresStore.multilingual is True and _differences(MultilingualStore, PostgresStore) == []


def test_the_comparison_sees_a_parameter_that_drifts():
    """A renamed parameter, a changed default and an unlisted extra one are each found (the test above
    cannot pass by comparing nothing)."""

    class Drifted(SQLiteStore):
        def tool_keyword_counts(self, terms: list[str], limit: int) -> list[int]:  # cap renamed
            return []

        def load_matrix(self, dim: int, column: str = "quick"):  # another default
            return None

        def chunks_holding(self, term: str, limit: int, among: list[int] | None = None) -> list[int]:  # extra
            return []

    found = "\n".join(_differences(IndexStore, Drifted))
    assert "Drifted.tool_keyword_counts" in found
    assert "Drifted.load_matrix" in found
    assert "Drifted.chunks_holding takes parameters the protocol does not: ['among']" in found


def _instance_attributes(store) -> None:
    for name in ("engine", "tiers", "path", "readonly"):
        assert hasattr(store, name), f"{type(store).__name__} has no {name}"
    assert store.engine in ("sqlite", "postgresql") and isinstance(store.tiers, bool)
    assert isinstance(store.label, str) and store.cache_folder is not None


def test_an_open_sqlite_store_has_the_protocols_attributes(tmp_path):
    with SQLiteStore(tmp_path / "index.db") as store:
        _instance_attributes(store)
        assert store.vectors_by_hash([]) == {} and store.counts() == (0, 0)


def test_an_open_postgres_store_has_them_and_refuses_a_tier_it_does_not_keep(tmp_path, url, monkeypatch):
    monkeypatch.setenv("TACHIKOMA_STORE", url)
    root = tmp_path / "memory"
    root.mkdir()
    with locate(root).open() as store:
        _instance_attributes(store)
        assert store.vectors_by_hash([]) == {}
        with pytest.raises(ValueError, match="full vectors only"):
            store.vectors_by_hash(["0" * 64], "quick")
        with pytest.raises(ValueError, match="full vectors only"):
            store.load_matrix(8, "quick")
