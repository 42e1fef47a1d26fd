"""What every command of the command line uses: the memory folder and settings it names, its
warnings and errors on stderr, its usage errors."""

from __future__ import annotations

import sys
from pathlib import Path

from ..errors import TachikomaError
from ..humanize import printable


def error(message: str) -> None:
    print(f"tachikoma: {printable(message)}", file=sys.stderr)


def root(args) -> Path:
    from ..memory_root import resolve_root

    return resolve_root(args.memory)


def config(args, root: Path):
    from ..config import load_config

    return load_config(root, args.config)


def usage_error(args, message: str) -> None:
    """A mistyped command line: the command's usage and `message` on stderr, exit 2 (SystemExit)."""
    report = getattr(args, "usage_error", None)
    if report is None:  # args not made by build_parser
        raise TachikomaError(message)
    report(message)


def print_json(payload) -> None:
    """`payload` as a command's `--json` prints it (`reply.dumps`): compact for a program reading a pipe or file,
    indented for a person at a terminal."""
    from ..replies.reply import dumps

    print(dumps(payload, pretty=sys.stdout.isatty()))


def warn(message: str) -> None:
    print(f"warning: {printable(message)}", file=sys.stderr)

