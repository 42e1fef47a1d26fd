"""Build the MiniLM encoder as an ONNX graph from the installed safetensors weights.

No torch and no exported file: the graph is written node by node with the
``onnx`` package's helper API from the same tensors the numpy path reads
(`minilm.load_tensors`), so it is rebuilt the same way on any machine from
the weights package. It uses onnxruntime's fused transformer operators (the
``com.microsoft`` domain: EmbedLayerNormalization, Attention,
SkipLayerNormalization, BiasGelu), which is what onnxruntime's own BERT
optimizer turns an exported BERT into; writing them directly needs no
pattern matching and runs the exact (erf) GELU the model was trained with.

The graph ends with the mean pooling over real tokens, so it returns one
(un-normalised) sentence vector per row: inputs ``input_ids`` and
``attention_mask`` (int32, batch x seq, right-padded), output ``pooled``
(float32, batch x hidden).

`quantize_int8` derives the int8 variant with onnxruntime's dynamic
quantizer, weights per output channel (per-tensor scales lose too much on
this model: minimum cosine 0.88 against the exact vectors).

`cached_model` builds a variant once and keeps it in `cache_dir` (about
90 MB fp32, 23 MB int8), named by the weights' sha256, the graph version and
(for int8) the quantizer's onnxruntime version, so a changed input makes a
new file. `minilm.build_graphs` builds both ahead of time, e.g. at install:
``python -m tachikoma.embedders.minilm``.
"""

from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path

import numpy as np

#: Bumped whenever the graph written here changes, so a cached build is made again.
GRAPH_VERSION = "1"
VARIANTS = ("fp32", "int8")
#: Environment variable naming the folder that keeps the built graphs.
ENV_CACHE = "TACHIKOMA_MODEL_CACHE"
OPSET = 17
MS_DOMAIN = "com.microsoft"


def build(tensors: dict[str, np.ndarray], config: dict):
    """The fp32 ONNX model (an ``onnx.ModelProto``) for BERT weights and config."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    hidden = int(config["hidden_size"])
    heads = int(config["num_attention_heads"])
    eps = float(config.get("layer_norm_eps", 1e-12))
    layers = int(config["num_hidden_layers"])
    initializers: list = []
    nodes: list = []

    def weight(name: str, value: np.ndarray) -> str:
        initializers.append(numpy_helper.from_array(np.ascontiguousarray(value, dtype=np.float32), name))
        return name

    def get(name: str) -> np.ndarray:
        return np.asarray(tensors[name], dtype=np.float32)

    def linear(prefix: str) -> tuple[np.ndarray, np.ndarray]:
        """(in, out) weight and bias of a torch Linear stored as (out, in)."""
        return get(prefix + ".weight").T, get(prefix + ".bias")

    def node(op: str, inputs: list[str], outputs: list[str], domain: str | None = None, **attrs) -> None:
        nodes.append(helper.make_node(op, inputs, outputs, name=f"{op}_{len(nodes)}", domain=domain, **attrs))

    # Every token is of segment 0, so its token-type row is a constant: folded into the position table.
    position = get("embeddings.position_embeddings.weight") + get("embeddings.token_type_embeddings.weight")[0]
    node("EmbedLayerNormalization",
         ["input_ids", "", weight("word", get("embeddings.word_embeddings.weight")), weight("position", position),
          "", weight("emb_ln_w", get("embeddings.LayerNorm.weight")),
          weight("emb_ln_b", get("embeddings.LayerNorm.bias")), "attention_mask"],
         ["h0", "mask_index"], domain=MS_DOMAIN, epsilon=eps)

    x = "h0"
    for i in range(layers):
        p = f"encoder.layer.{i}."
        qkv = [linear(p + f"attention.self.{part}") for part in ("query", "key", "value")]
        node("Attention",
             [x, weight(f"l{i}_qkv_w", np.concatenate([w for w, _ in qkv], axis=1)),
              weight(f"l{i}_qkv_b", np.concatenate([b for _, b in qkv])), "mask_index"],
             [f"l{i}_ctx"], domain=MS_DOMAIN, num_heads=heads)
        out_w, out_b = linear(p + "attention.output.dense")
        node("MatMul", [f"l{i}_ctx", weight(f"l{i}_out_w", out_w)], [f"l{i}_proj"])
        node("SkipLayerNormalization",
             [f"l{i}_proj", x, weight(f"l{i}_ln1_w", get(p + "attention.output.LayerNorm.weight")),
              weight(f"l{i}_ln1_b", get(p + "attention.output.LayerNorm.bias")), weight(f"l{i}_out_b", out_b)],
             [f"l{i}_a"], domain=MS_DOMAIN, epsilon=eps)
        in_w, in_b = linear(p + "intermediate.dense")
        node("MatMul", [f"l{i}_a", weight(f"l{i}_ffn_in_w", in_w)], [f"l{i}_ffn_mm"])
        node("BiasGelu", [f"l{i}_ffn_mm", weight(f"l{i}_ffn_in_b", in_b)], [f"l{i}_gelu"], domain=MS_DOMAIN)
        ffn_w, ffn_b = linear(p + "output.dense")
        node("MatMul", [f"l{i}_gelu", weight(f"l{i}_ffn_out_w", ffn_w)], [f"l{i}_ffn"])
        node("SkipLayerNormalization",
             [f"l{i}_ffn", f"l{i}_a", weight(f"l{i}_ln2_w", get(p + "output.LayerNorm.weight")),
              weight(f"l{i}_ln2_b", get(p + "output.LayerNorm.bias")), weight(f"l{i}_ffn_b", ffn_b)],
             [f"h{i + 1}"], domain=MS_DOMAIN, epsilon=eps)
        x = f"h{i + 1}"

    # Mean over real tokens: sum(hidden * mask) / max(sum(mask), 1e-9), as sentence-transformers pools.
    node("Cast", ["attention_mask"], ["mask_f"], to=TensorProto.FLOAT)
    initializers.append(numpy_helper.from_array(np.array([-1], dtype=np.int64), "last_axis"))
    initializers.append(numpy_helper.from_array(np.array([1], dtype=np.int64), "seq_axis"))
    initializers.append(numpy_helper.from_array(np.array(1e-9, dtype=np.float32), "tiny"))
    node("Unsqueeze", ["mask_f", "last_axis"], ["mask_3d"])
    node("Mul", [x, "mask_3d"], ["masked"])
    node("ReduceSum", ["masked", "seq_axis"], ["summed"], keepdims=0)
    node("ReduceSum", ["mask_3d", "seq_axis"], ["counts"], keepdims=0)
    node("Max", ["counts", "tiny"], ["counts_safe"])
    node("Div", ["summed", "counts_safe"], ["pooled"])

    graph = helper.make_graph(
        nodes, "minilm",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT32, ["batch", "seq"]),
         helper.make_tensor_value_info("attention_mask", TensorProto.INT32, ["batch", "seq"])],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["batch", hidden])],
        initializers)
    model = helper.make_model(
        graph, producer_name="tachikoma", producer_version=GRAPH_VERSION,
        opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid(MS_DOMAIN, 1)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def quantize_int8(model, destination: Path) -> None:
    """Write the int8 variant of `model` to `destination`: dynamic quantization, weights per channel."""
    from onnx import TensorProto
    from onnxruntime.quantization import QuantType, quantize_dynamic

    # The quantizer's advice to pre-process (shape inference for models it cannot read) does not
    # apply: DefaultTensorType says what it could not infer. Hidden so a first `index` prints nothing.
    hint = _DropMessage("Please consider to run pre-processing")
    logging.getLogger().addFilter(hint)
    try:
        # Shape inference cannot see through the com.microsoft operators: their outputs are float32.
        quantize_dynamic(model, destination, op_types_to_quantize=["MatMul", "Attention"],
                         per_channel=True, weight_type=QuantType.QInt8,
                         extra_options={"DefaultTensorType": TensorProto.FLOAT})
    finally:
        logging.getLogger().removeFilter(hint)


class _DropMessage(logging.Filter):
    def __init__(self, start: str) -> None:
        super().__init__()
        self.start = start

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith(self.start)


def cache_dir() -> Path:
    """Where built graphs are kept: $TACHIKOMA_MODEL_CACHE, else $XDG_CACHE_HOME/tachikoma, else ~/.cache/tachikoma."""
    if os.environ.get(ENV_CACHE):
        return Path(os.environ[ENV_CACHE])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "tachikoma"


def model_file(weights_sha256: str, variant: str) -> Path:
    """The cache file of a variant built from the weights with this sha256."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown graph variant {variant!r}")
    suffix = variant
    if variant == "int8":
        import onnxruntime  # the quantizer's version decides the int8 weights

        suffix += f"-ort{onnxruntime.__version__}"
    return cache_dir() / f"minilm-{weights_sha256[:16]}-g{GRAPH_VERSION}-{suffix}.onnx"


def cached_model(folder: Path, config: dict, weights_sha256: str, variant: str) -> Path:
    """The path of the built `variant`, building it from the weights in `folder` if it is not cached.

    The file appears whole or not at all (written beside, then renamed), so
    two processes building at once each leave a complete file. Raises
    ImportError when the onnx package (needed to build) is missing.
    """
    path = model_file(weights_sha256, variant)
    if path.is_file():
        return path
    from safetensors.numpy import load_file

    model = build(load_file(str(Path(folder) / "model.safetensors")), config)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".part")
    os.close(handle)
    try:
        if variant == "int8":
            quantize_int8(model, Path(temporary))
        else:
            Path(temporary).write_bytes(model.SerializeToString())
        os.replace(temporary, path)
    finally:
        Path(temporary).unlink(missing_ok=True)
    return path
