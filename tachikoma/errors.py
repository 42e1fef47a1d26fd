"""Exceptions that carry a one-line, user-facing reason."""


class TachikomaError(Exception):
    """A failure the user can act on; its message is one line that says how."""


class EmbedderError(TachikomaError):
    """The embedder cannot run (server unreachable, model missing, weights corrupt)."""


class EmbedderMismatch(TachikomaError):
    """The index was built with a different embedder than the one requested."""


class IndexDamaged(TachikomaError):
    """The index file cannot be read as an index; deleting ``.cache`` and indexing again fixes it."""


class NoIndexYet(TachikomaError):
    """The memory folder has not been indexed yet."""


class BadQuery(TachikomaError):
    """The query or one of its options cannot be searched (refused before the index is read)."""


class StoreUnreachable(TachikomaError):
    """The shared store's server cannot be reached, or was lost during a run: nothing is wrong with the
    memory, and nothing was lost (the dashboard answers 503 in one line)."""
