"""`tachikoma COMMAND`: parse the command line, run the command's module (imported only when that
command runs, so a search answered by a running tachikoma (`resident`) costs argparse, a socket and
little else), and turn every failure into one line on stderr and an exit status."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ..errors import TachikomaError
from . import common
from .parser import build_parser


def command(name: str):
    """The function that runs command `name`; its module is imported now, not before."""
    if name == "search":
        from .searching import cmd_search as run
    elif name == "index":
        from .indexing import cmd_index as run
    elif name == "stats":
        from .indexing import cmd_stats as run
    elif name == "tag":
        from .tagging import cmd_tag as run
    elif name == "remember":
        from .tagging import cmd_remember as run
    elif name == "serve":
        from .serving import cmd_serve as run
    elif name == "mcp":
        from .serving import cmd_mcp as run
    elif name == "eval":
        from .evaluating import cmd_eval as run
    else:
        raise TachikomaError(f"no command {name!r}")
    return run


def main(argv: list[str] | None = None) -> int:
    """Run one command. Every failure is one line on stderr, never a traceback: exit 1 for an
    error, 2 for a usage error (argparse's), 130 for Ctrl-C, 141 when the reader of stdout went
    away (`tachikoma search x | head -1`). TACHIKOMA_DEBUG=1 shows the traceback of an
    unexpected error."""
    args = build_parser().parse_args(argv)
    for name in ("memory", "config", "store"):
        if not hasattr(args, name):
            setattr(args, name, None)
    if args.store:  # every command, and what it starts (watcher, dashboard, evaluations), uses this store
        from ..store import STORE_ENV

        os.environ[STORE_ENV] = args.store
    try:
        try:
            code = command(args.command)(args)
            sys.stdout.flush()  # a closed pipe shows here, inside the guard, not at exit
            return code
        except TachikomaError as exc:
            common.error(str(exc))
            return 1
        except KeyboardInterrupt:
            if getattr(args, "reembed", False):
                common.error("interrupted; the index was left as it was (re-embedding is all or nothing)")
            else:
                common.error("interrupted; the index stays usable and the next run finishes the work")
            return 130
        except BrokenPipeError:
            raise
        except Exception as exc:
            sqlite3 = sys.modules.get("sqlite3")  # not imported: not one of its errors
            if sqlite3 is not None and isinstance(exc, sqlite3.DatabaseError):  # a query outside the Store's own
                common.error(str(_index_error(args, exc)))
                return 1
            if os.environ.get("TACHIKOMA_DEBUG"):
                raise
            common.error(_unexpected(exc))
            return 1
    except BrokenPipeError:
        # The reader closed the pipe: stop quietly. Point stdout at devnull so that
        # flushing it at exit cannot fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 141


def _index_error(args, exc) -> TachikomaError:
    from ..memory import index_path
    from ..memory_root import resolve_root
    from ..store import index_error

    try:
        path = index_path(resolve_root(args.memory))
    except TachikomaError:
        path = Path("<memory>/.cache/index.db")
    return index_error(path, exc)


def _unexpected(exc: Exception) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        where = f": {exc.filename}" if exc.filename else ""
        return f"{exc.strerror}{where}"
    reason = " ".join(str(exc).split())
    return (f"unexpected error ({type(exc).__name__}{': ' + reason if reason else ''}); "
            "set TACHIKOMA_DEBUG=1 to see where, and please report it")

