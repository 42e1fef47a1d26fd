"""A stand-in Ollama server for tests.

No Ollama server with models can run on the machines these tests run on, so
this module serves a small local HTTP server that speaks Ollama's wire
protocol closely enough for the real ``ollama`` Python client to talk to it
over real HTTP:

* ``GET /api/tags`` lists the installed models, ``{"models": [{"name":
  "nomic-embed-text:latest", "model": "nomic-embed-text:latest", ...}]}``;
* ``POST /api/embed`` takes ``{"model": ..., "input": str | [str, ...]}`` and
  answers ``{"model": ..., "embeddings": [[...], ...], "total_duration": ...,
  "load_duration": ..., "prompt_eval_count": ...}``;
* ``GET /api/version`` answers ``{"version": ...}``;
* an unknown model gets a 404 with ``{"error": "model \\"X\\" not found, try
  pulling it first"}``, as Ollama answers; an unknown path gets Go's plain
  ``404 page not found``.

It is not a model. Its vectors are a hashed bag of lower-cased words, so they
are deterministic and texts that share words are close, which is enough for
end-to-end search tests to rank. The ``search_document: `` / ``search_query:
`` task prefixes are stripped before hashing (so a query and a document with
the same words match), but every input is recorded verbatim in
``.requests`` so tests can assert which prefixes were sent.

Usage::

    with StandinOllama() as server:
        client = ollama.Client(host=server.url)
        ...
        server.requests        # [(path, json body or None), ...]
        server.models.clear()  # now every model is "not pulled"
        server.fail_next()     # the next request gets a 500
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import sys
import threading
import time
from collections import deque
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

VERSION = "0.0.0-standin"

#: Prefixes nomic-embed-text is trained with; removed before hashing.
TASK_PREFIXES = ("search_document: ", "search_query: ", "clustering: ", "classification: ")

_WORD = re.compile(r"\w+", re.UNICODE)


def canonical_model(name: str) -> str:
    """``nomic-embed-text`` and ``nomic-embed-text:latest`` name the same model."""
    name = name.strip().lower()
    last = name.rsplit("/", 1)[-1]
    return name if ":" in last else name + ":latest"


def strip_task_prefix(text: str) -> str:
    for prefix in TASK_PREFIXES:
        if text.startswith(prefix):
            return text[len(prefix):]
    return text


def hashed_bag_of_words(text: str, dim: int) -> list[float]:
    """Word counts hashed into ``dim`` buckets (signed, to spread collisions).

    Not normalised. Empty text gets a fixed bucket so no vector is all zeros
    (a real model never returns a zero vector either).
    """
    vector = [0.0] * dim
    words = _WORD.findall(strip_task_prefix(text).lower()) or ["\x00empty"]
    for word in words:
        digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
        value = int.from_bytes(digest, "little")
        sign = 1.0 if value & 1 else -1.0
        vector[(value >> 1) % dim] += sign
    return vector


class StandinOllama:
    """A local HTTP server speaking Ollama's API; use as a context manager.

    Attributes tests may read or change while it runs:

    ``url``        base URL, e.g. ``http://127.0.0.1:40123``
    ``requests``   every request received, as ``(path, json body or None)``
    ``models``     installed model names (mutable set; ``:latest`` optional)
    ``dims``       vector size per model (base name, no tag); others use ``dim``
    ``normalise``  L2-normalise vectors as Ollama's ``/api/embed`` does
                   (set False to get raw counts and prove the client normalises)
    ``delay``      seconds to sleep before answering ``/api/embed``
    """

    def __init__(
        self,
        models: set[str] | None = None,
        dim: int = 768,
        dims: dict[str, int] | None = None,
        normalise: bool = True,
    ) -> None:
        self.models: set[str] = set(models) if models is not None else {"nomic-embed-text:latest"}
        self.dim = dim
        self.dims: dict[str, int] = dict(dims or {})
        self.normalise = normalise
        self.delay = 0.0
        self.requests: list[tuple[str, Any]] = []
        self._faults: deque[tuple[int, str]] = deque()
        self._mangles: deque[Callable[[dict], dict]] = deque()
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------

    def start(self) -> "StandinOllama":
        standin = self

        class Handler(_Handler):
            server_state = standin

        self._server = _QuietServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},  # quick shutdown()
            name="standin-ollama",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> "StandinOllama":
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("stand-in Ollama is not running")
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    # -- fault injection ---------------------------------------------------

    def fail_next(self, status: int = 500, error: str = "llama runner process has terminated") -> None:
        """Answer the next request (any path) with ``status`` and ``{"error": error}``."""
        with self._lock:
            self._faults.append((status, error))

    def mangle_next(self, fn: Callable[[dict], dict]) -> None:
        """Pass the next ``/api/embed`` reply body through ``fn`` before sending it."""
        with self._lock:
            self._mangles.append(fn)

    # -- helpers for tests -------------------------------------------------

    def embed_requests(self) -> list[dict]:
        """JSON bodies of the ``/api/embed`` requests received, in order."""
        with self._lock:
            return [body for path, body in self.requests if path == "/api/embed"]

    def embedded_inputs(self) -> list[str]:
        """Every input string received by ``/api/embed``, verbatim, in order."""
        inputs: list[str] = []
        for body in self.embed_requests():
            value = body.get("input", [])
            inputs.extend([value] if isinstance(value, str) else value)
        return inputs

    def has_model(self, name: str) -> bool:
        wanted = canonical_model(name)
        return any(canonical_model(m) == wanted for m in set(self.models))

    def dim_for(self, name: str) -> int:
        base = canonical_model(name).rsplit(":", 1)[0]
        return self.dims.get(base, self.dim)

    def vector(self, model: str, text: str) -> list[float]:
        vector = hashed_bag_of_words(text, self.dim_for(model))
        if self.normalise:
            norm = math.sqrt(sum(v * v for v in vector)) or 1.0
            vector = [v / norm for v in vector]
        return vector

    def _record(self, path: str, body: Any) -> tuple[int, str] | None:
        with self._lock:
            self.requests.append((path, body))
            return self._faults.popleft() if self._faults else None

    def _take_mangle(self) -> Callable[[dict], dict] | None:
        with self._lock:
            return self._mangles.popleft() if self._mangles else None


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that gave up (timeout tests) leaves a broken pipe: expected.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    server_state: StandinOllama
    protocol_version = "HTTP/1.1"
    server_version = "standin-ollama"

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    # -- plumbing ----------------------------------------------------------

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, payload: Any) -> None:
        self._send(status, json.dumps(payload).encode("utf-8"), "application/json; charset=utf-8")

    def _not_found(self) -> None:
        self._send(404, b"404 page not found", "text/plain; charset=utf-8")

    def _read_json(self) -> tuple[Any, str | None]:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw or b"null"), None
        except ValueError as exc:
            return None, str(exc)

    # -- routes ------------------------------------------------------------

    def do_GET(self) -> None:
        state = self.server_state
        fault = state._record(self.path, None)
        if fault:
            self._json(fault[0], {"error": fault[1]})
        elif self.path == "/api/version":
            self._json(200, {"version": VERSION})
        elif self.path == "/api/tags":
            self._json(200, {"models": [_tag_entry(name) for name in sorted(state.models)]})
        else:
            self._not_found()

    def do_HEAD(self) -> None:
        self._send(200 if self.path == "/" else 404, b"", "text/plain; charset=utf-8")

    def do_POST(self) -> None:
        state = self.server_state
        body, error = self._read_json()
        fault = state._record(self.path, body)
        if fault:
            self._json(fault[0], {"error": fault[1]})
            return
        if self.path != "/api/embed":
            self._not_found()
            return
        if error is not None or not isinstance(body, dict):
            self._json(400, {"error": f"invalid request body: {error or 'expected an object'}"})
            return
        model = body.get("model") or ""
        if not model:
            self._json(400, {"error": "model is required"})
            return
        if not state.has_model(model):
            self._json(404, {"error": f'model "{model}" not found, try pulling it first'})
            return
        inputs = body.get("input", [])
        if isinstance(inputs, str):
            inputs = [inputs]
        if not isinstance(inputs, list) or not all(isinstance(t, str) for t in inputs):
            self._json(400, {"error": "invalid input type"})
            return
        started = time.perf_counter_ns()
        if state.delay:
            time.sleep(state.delay)
        reply = {
            "model": model,
            "embeddings": [state.vector(model, text) for text in inputs],
            "total_duration": time.perf_counter_ns() - started,
            "load_duration": 0,
            "prompt_eval_count": sum(len(_WORD.findall(t)) + 2 for t in inputs),
        }
        mangle = state._take_mangle()
        if mangle is not None:
            reply = mangle(reply)
        self._json(200, reply)


def _tag_entry(name: str) -> dict:
    tagged = name if ":" in name.rsplit("/", 1)[-1] else name + ":latest"
    digest = hashlib.sha256(tagged.encode("utf-8")).hexdigest()
    return {
        "name": tagged,
        "model": tagged,
        "modified_at": datetime(2025, 1, 1, tzinfo=timezone.utc).isoformat(),
        "size": 274302450,
        "digest": digest,
        "details": {
            "parent_model": "",
            "format": "gguf",
            "family": "standin",
            "families": ["standin"],
            "parameter_size": "0M",
            "quantization_level": "F16",
        },
    }
