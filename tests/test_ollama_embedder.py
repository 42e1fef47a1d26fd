"""OllamaEmbedder against a stand-in Ollama server, through the real ``ollama``
client over real HTTP (no Ollama server with models runs on these machines;
see tests/ollama_standin.py)."""

from __future__ import annotations

import socket
import time

import numpy as np
import pytest

from tachikoma.embedders.ollama import OllamaEmbedder, probe, resolve_host
from tachikoma.errors import EmbedderError

try:
    from tests.ollama_standin import StandinOllama
except ImportError:  # tests/ is on sys.path itself (rootdir-less pytest run)
    from ollama_standin import StandinOllama


@pytest.fixture
def server():
    with StandinOllama() as standin:
        yield standin


@pytest.fixture
def embedder(server):
    with OllamaEmbedder(host=server.url) as emb:
        yield emb


def closed_port_url() -> str:
    """A URL on which nothing listens (port was free a moment ago)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def assert_one_line(message: str) -> None:
    assert message and "\n" not in message and "\r" not in message


# -- identity ---------------------------------------------------------------


def test_identity_for_nomic_needs_no_request(server, embedder):
    assert embedder.name == "ollama:nomic-embed-text"
    assert embedder.dim == 768
    assert 200 <= embedder.max_words <= 400
    assert embedder.url == server.url
    assert server.requests == []  # the known-dim table answered, not the server


def test_latest_tag_names_the_same_index(server):
    with OllamaEmbedder("nomic-embed-text:latest", host=server.url) as emb:
        assert emb.name == "ollama:nomic-embed-text"
        assert emb.dim == 768
        emb.embed_query("hello")
    assert server.embed_requests()[0]["model"] == "nomic-embed-text:latest"


def test_unknown_model_dim_is_discovered_once_with_one_probe(server):
    server.models.add("custom-embed")
    server.dims["custom-embed"] = 256
    with OllamaEmbedder("custom-embed", host=server.url) as emb:
        assert emb.name == "ollama:custom-embed"
        assert emb.max_words < 350
        assert server.requests == []
        assert emb.dim == 256
        assert emb.dim == 256
        assert len(server.embed_requests()) == 1
        vectors = emb.embed_documents(["a b", "c d"])
    assert vectors.shape == (2, 256)
    assert len(server.embed_requests()) == 2


# -- batching, prefixes, output --------------------------------------------


def test_batches_of_32_preserve_order_and_report_progress(server):
    texts = [f"note {i} about topic{i}" for i in range(70)]
    progress: list[tuple[int, int]] = []
    with OllamaEmbedder(host=server.url, batch_size=32) as emb:
        vectors = emb.embed_documents(texts, progress=lambda done, total: progress.append((done, total)))
        singles = np.stack([emb.embed_documents([t])[0] for t in (texts[0], texts[40], texts[69])])

    requests = server.embed_requests()[:3]
    assert [len(body["input"]) for body in requests] == [32, 32, 6]
    assert all(body["model"] == "nomic-embed-text" for body in requests)
    assert server.embedded_inputs()[:70] == ["search_document: " + t for t in texts]
    assert progress == [(32, 70), (64, 70), (70, 70)]
    assert vectors.shape == (70, 768)
    np.testing.assert_allclose(vectors[[0, 40, 69]], singles, atol=1e-6)
    assert not np.allclose(vectors[0], vectors[1])


def test_documents_and_queries_carry_nomic_task_prefixes(server, embedder):
    embedder.embed_documents(["the cat sat on the mat"])
    embedder.embed_query("where did the cat sit?")
    assert server.embedded_inputs() == [
        "search_document: the cat sat on the mat",
        "search_query: where did the cat sit?",
    ]


def test_mxbai_gets_query_instruction_and_unknown_models_no_prefix(server):
    server.models.update({"mxbai-embed-large", "custom-embed"})
    server.dims["mxbai-embed-large"] = 1024
    with OllamaEmbedder("mxbai-embed-large", host=server.url) as mxbai:
        mxbai.embed_documents(["doc"])
        mxbai.embed_query("q")
        assert mxbai.dim == 1024
    with OllamaEmbedder("custom-embed", host=server.url) as custom:
        custom.embed_documents(["doc"])
        custom.embed_query("q")
    assert server.embedded_inputs() == [
        "doc",
        "Represent this sentence for searching relevant passages: q",
        "doc",
        "q",
    ]


def test_output_is_unit_float32_even_when_server_does_not_normalise():
    with StandinOllama(normalise=False) as server, OllamaEmbedder(host=server.url) as emb:
        docs = emb.embed_documents(["alpha beta beta gamma", "one two three four five six", ""])
        query = emb.embed_query("alpha")
        raw = np.asarray(server.vector("nomic-embed-text", "alpha beta beta gamma"))
    assert np.linalg.norm(raw) > 1.5  # the stand-in really sent un-normalised counts
    assert docs.dtype == np.float32 and docs.shape == (3, 768)
    np.testing.assert_allclose(np.linalg.norm(docs, axis=1), 1.0, rtol=1e-5)
    assert query.dtype == np.float32 and query.shape == (768,)
    assert np.linalg.norm(query) == pytest.approx(1.0, rel=1e-5)


def test_empty_document_list_gives_empty_matrix_without_a_request(server, embedder):
    out = embedder.embed_documents([])
    assert out.shape == (0, 768) and out.dtype == np.float32
    assert server.requests == []


def test_vectors_rank_relevant_notes_first(server, embedder):
    notes = [
        "The user prefers dark roast coffee brewed in a french press",
        "Deploy the staging cluster with terraform apply on fridays",
        "Birthday of the user's sister is in March; she likes orchids",
        "Python virtualenv lives at work main venv; activate before tests",
    ]
    docs = embedder.embed_documents(notes)
    for query, expected in [
        ("what coffee does the user like?", 0),
        ("how do I deploy staging with terraform", 1),
        ("sister birthday", 2),
    ]:
        scores = docs @ embedder.embed_query(query)
        assert int(np.argmax(scores)) == expected, (query, scores)


# -- host resolution --------------------------------------------------------


def test_ollama_host_env_is_honoured(server, monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", f"127.0.0.1:{server.port}")  # no scheme, like users write it
    with OllamaEmbedder() as emb:
        assert emb.url == server.url
        emb.embed_query("hello")
    assert server.embedded_inputs() == ["search_query: hello"]
    assert probe() is True


def test_explicit_host_beats_ollama_host(server, monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", closed_port_url())
    with OllamaEmbedder(host=server.url) as emb:
        emb.embed_query("hello")
    assert len(server.embed_requests()) == 1


def test_resolve_host_matches_client_conventions(monkeypatch):
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    assert resolve_host() == "http://127.0.0.1:11434"
    assert resolve_host("example.com") == "http://example.com:11434"
    assert resolve_host("10.0.0.5:9999") == "http://10.0.0.5:9999"
    assert resolve_host("https://example.com") == "https://example.com:443"
    assert resolve_host("http://[::1]:8080/") == "http://[::1]:8080"
    monkeypatch.setenv("OLLAMA_HOST", "0.0.0.0")
    assert resolve_host() == "http://0.0.0.0:11434"
    with pytest.raises(EmbedderError, match="OLLAMA_HOST"):
        resolve_host("host:notaport")


# -- failures ---------------------------------------------------------------


def test_model_not_pulled_says_how_to_pull_it(server, embedder):
    server.models.clear()
    with pytest.raises(EmbedderError) as info:
        embedder.embed_documents(["x"])
    message = str(info.value)
    assert_one_line(message)
    assert "ollama pull nomic-embed-text" in message
    assert server.url in message
    # the stand-in answered exactly as Ollama does, with a 404
    assert server.requests[-1][0] == "/api/embed"


def test_unreachable_server_says_ollama_serve_quickly():
    url = closed_port_url()
    with OllamaEmbedder(host=url) as emb:
        started = time.monotonic()
        with pytest.raises(EmbedderError) as info:
            emb.embed_query("hello")
        elapsed = time.monotonic() - started
    message = str(info.value)
    assert_one_line(message)
    assert "ollama serve" in message and url in message
    assert elapsed < 2.0


def test_server_500_surfaces_as_embedder_error_once(server, embedder):
    server.fail_next(500, "llama runner process has terminated: signal: killed")
    with pytest.raises(EmbedderError) as info:
        embedder.embed_documents(["x"])
    message = str(info.value)
    assert_one_line(message)
    assert "llama runner process has terminated" in message and "500" in message
    assert embedder.embed_documents(["x"]).shape == (1, 768)  # only one failure was injected


def test_wrong_number_of_embeddings_is_an_error(server, embedder):
    server.mangle_next(lambda reply: {**reply, "embeddings": reply["embeddings"][:-1]})
    with pytest.raises(EmbedderError, match="returned 2 embeddings for 3 texts"):
        embedder.embed_documents(["a", "b", "c"])


def test_wrong_dimension_is_an_error(server, embedder):
    server.dims["nomic-embed-text"] = 512
    with pytest.raises(EmbedderError, match="512-dimensional vectors, expected 768"):
        embedder.embed_query("a")


def test_slow_server_times_out_with_a_hint(server):
    server.delay = 1.0
    with OllamaEmbedder(host=server.url, timeout=0.2) as emb:
        started = time.monotonic()
        with pytest.raises(EmbedderError, match="did not answer within 0.2s") as info:
            emb.embed_query("a")
    assert time.monotonic() - started < 0.9
    assert_one_line(str(info.value))


def test_non_ollama_endpoint_is_not_mistaken_for_missing_model(server):
    # Same server, wrong base path: the router answers Go's "404 page not found".
    with OllamaEmbedder(host=server.url + "/not-ollama") as emb:
        with pytest.raises(EmbedderError) as info:
            emb.embed_query("a")
    message = str(info.value)
    assert_one_line(message)
    assert "ollama pull" not in message and "/api/embed" in message
    assert server.requests[-1][0] == "/not-ollama/api/embed"


def test_garbage_reply_is_an_embedder_error(server, embedder):
    server.mangle_next(lambda reply: {"model": reply["model"], "embeddings": "nope"})
    with pytest.raises(EmbedderError, match="not an Ollama embedding"):
        embedder.embed_query("a")


# -- probe ------------------------------------------------------------------


def test_probe_true_when_model_is_listed(server):
    assert probe(server.url) is True
    assert probe(server.url, model="nomic-embed-text:latest") is True
    assert server.requests[-1] == ("/api/tags", None)


def test_probe_false_when_model_is_missing(server):
    assert probe(server.url, model="mxbai-embed-large") is False
    server.models.clear()
    assert probe(server.url) is False
    server.models.add("nomic-embed-text:v1.5")  # another tag is not the default one
    assert probe(server.url) is False
    server.models.add("nomic-embed-text")
    assert probe(server.url) is True


def test_probe_false_and_fast_when_nothing_listens():
    started = time.monotonic()
    assert probe(closed_port_url()) is False
    assert time.monotonic() - started < 1.0


def test_probe_false_on_server_error_or_bad_address(server):
    server.fail_next(500)
    assert probe(server.url) is False
    assert probe("host:notaport") is False
    assert probe(server.url) is True
