"""The names the embedders go by, as an index records them: the lowest module of `embedders`, so the
package (which chooses among them) and each embedder's own module can both import them."""

MINILM = "minilm:all-MiniLM-L6-v2"
MINILM_INT8 = "minilm-int8:all-MiniLM-L6-v2"
#: The quick tier: static token vectors distilled from MiniLM (`static`).
MINILM_STATIC = "minilm-static:all-MiniLM-L6-v2"
OLLAMA_DEFAULT_MODEL = "nomic-embed-text"
#: The multilingual offline model (`e5`; docs/embedders.md).
E5_SMALL = "e5-small:multilingual-e5-small-q4"
#: What an English memory reads its passages in other languages with (`muse`): Universal Sentence Encoder
#: multilingual v3, in numpy.
MUSE = "muse:universal-sentence-encoder-multilingual-3"
#: Embedders that read English only (all-MiniLM-L6-v2 was trained on English text): a question in another
#: language cannot reach a note by meaning (`humanize.language_hint`).
ENGLISH_ONLY = frozenset({MINILM, MINILM_INT8, MINILM_STATIC})


def reader_label(name: str) -> str:
    """An embedder as a person reads its name in an explanation or a summary: "the multilingual reader (muse)"
    for the Universal Sentence Encoder, "the multilingual e5-small" for e5; any other by its short name."""
    short = name.split(":")[0]
    return {MUSE.split(":")[0]: f"the multilingual reader ({short})",
            E5_SMALL.split(":")[0]: f"the multilingual {short}"}.get(short, short)
