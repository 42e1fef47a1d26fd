"""The hashing embedder that counts what it is asked to embed: the indexer, session and tool-text
tests check with it what reached the embedder (and stop a run part-way with `fail_after`)."""

from __future__ import annotations

from tachikoma.embedders.hashing import HashingEmbedder


class CountingEmbedder(HashingEmbedder):
    """`window`: the words per chunk (80 is MiniLM's, what session files are chunked for); None keeps
    the hashing embedder's. `fail_after`: stop the run (Ctrl-C) once that many texts were embedded."""

    def __init__(self, window: int | None = None, fail_after: int | None = None):
        super().__init__(512)
        if window is not None:
            self.max_words = window
        self.embedded: list[str] = []
        self.fail_after = fail_after

    def embed_documents(self, texts, progress=None):
        if self.fail_after is not None and len(self.embedded) >= self.fail_after:
            raise KeyboardInterrupt
        self.embedded.extend(texts)
        return super().embed_documents(texts, progress)


#: MiniLM's window, which session transcripts are chunked for.
MINILM_WINDOW = 80
