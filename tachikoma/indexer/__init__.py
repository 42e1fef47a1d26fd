"""Bring the index up to date with the memory folder.

files → read → chunk → embed → store. A file whose size and mtime are
unchanged is not even read; one whose content hash is unchanged is not
re-chunked; a chunk whose text hash is already in the index is not
re-embedded. Work is committed in small batches, so an interrupted run
leaves a usable index and the next run picks up where it stopped.

The index records how its chunks were cut (``chunking``: the chunker's
version and the embedder's window, `chunking.signature`). When that differs
from the current one, for example after an upgrade that makes chunks
smaller, every file is read and chunked again ("re-chunked"); chunks whose
text is unchanged keep their vectors. The signature is recorded when such a
run completes, so an interrupted one is resumed the same way. An index made
before per-chunk dates (``dates`` differs from `DATES_VERSION`) is upgraded
the same way: every file is read again to date its chunks, and nothing is
embedded again.

Progress is recorded as it is committed: ``last_indexed_at`` with every
batch, ``run_complete`` = "0" while a run is under way (or after it was
interrupted) and "1" with ``last_complete_at`` once it finished. Before each
batch the indexer checks that the index file it opened is still there, so
deleting ``.cache`` during a run stops it with an error instead of filling
an unlinked file.

Re-embedding (``--reembed``) first checks that the new embedder works on one
probe text, then replaces every vector in one transaction: until it commits,
searches keep using the old index, and a failure or Ctrl-C leaves the old
index exactly as it was.

The package, from the bottom up (each module imports only those above it):

- `reporting`: where a run is (`RunProgress`), for the dashboard's Index panel and the command line's bar.
- `status`: what the index holds and whether it is current (`freshness`, `not_indexed`,
  `transcript_problems`), read without running anything; `stats` imports it.
- `pipeline`: read → chunk → embed → store, for the files a run has to do, with the quick tier.
- `runner`: one run (`run`): the lock, the plan (`freshness.plan_run`), the tags and git dates, the
  batches and their transactions, and its `Summary`.
"""
