"""Searches answered by a tachikoma process that is already running for the same memory.

A command-line search is a new process: it imports numpy, reads the index,
walks the memory folder for its freshness and embeds the query before it
ranks (about a second at 100k chunks, see docs/scaling.md). A long-lived
process of the same memory (`tachikoma serve`, `tachikoma mcp`, `tachikoma
index --watch`) has all of that at hand, so it hosts a Unix socket and
`tachikoma search` asks it first: the answer is the one the host's own faces
give (the same `Searcher`, with its kept-open index), in a few milliseconds
plus the client's start.

The socket lives in a folder only this user can enter (``$XDG_RUNTIME_DIR/
tachikoma``, else ``/tmp/tachikoma-<uid>``, mode 0700, checked before every
use, as ssh-agent and tmux do) and the host answers only its own user (the
peer's credentials). It answers searches only: nothing sent over it changes
a file. A host answers only a client that would search the same index the
same way (same memory folder, settings file, store and tachikoma version,
and the same environment and time zone where they can change an answer:
`ANSWER_ENV`, ``TZ`` and the local offset); for anything else, and when no
host answers in time, the command line searches by itself: asking is an
optimisation, never a different answer.

A host says at once that it took a question (one line), then answers: a
client waits `ACK_SECONDS` for the first line, so a host that is stopped
(SIGSTOP, Ctrl-Z) yet whose socket still accepts costs it at most that; a
process in standby pings the host the same way and takes its place when the
ping goes unanswered.

This module is imported by every command-line search before anything heavy,
so it uses the standard library only.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import stat
import struct
import threading
import time
import zlib
from collections.abc import Callable
from pathlib import Path

from . import __version__

#: What a question and its answer hold; a host answers only a client of its own protocol (and version). 3: a
#: search's ``path`` and ``source`` filters (a host that ignored them would answer a kept search with the whole memory).
PROTOCOL = 3
#: How long a client waits for an answer before it searches by itself. A host that is loading a large
#: index for its first query is still faster than a cold start, so this is generous.
ANSWER_SECONDS = 15.0
#: How long a client waits for the host to say it took the question (and a standby process for a
#: ping's answer): a stopped host (SIGSTOP) whose socket still accepts costs a client at most this.
ACK_SECONDS = 1.0
#: How long a host waits for a client to send its question: a client that stalls holds only its own thread.
QUESTION_SECONDS = 5.0
MAX_QUESTION_BYTES = 1 << 16
#: How often a process whose memory another process answers for checks that it still does, to take its
#: place once it has stopped (several agents' MCP servers of one memory: the first to start may end first).
STANDBY_SECONDS = 5.0
#: The store the command line would use (`store.STORE_ENV`): a host answers only for the same one.
STORE_ENV = "TACHIKOMA_STORE"
#: The environment that can change an answer: the settings file, the store, the embedder's server,
#: model and cache, the time zone and the hemisphere (`periods.south`); and PostgreSQL's own ``PG*``
#: variables (`_environment`). A host answers only a client whose values are the same (compared as a
#: digest: no value travels over the socket).
ANSWER_ENV = ("TACHIKOMA_CONFIG", STORE_ENV, "TACHIKOMA_MEMORY", "OLLAMA_HOST", "TACHIKOMA_MODEL_CACHE",
              "TACHIKOMA_MINILM_DIR", "TACHIKOMA_MINILM_RUNTIME", "XDG_CACHE_HOME", "HOME", "TZ", "TACHIKOMA_HEMISPHERE")

Search = Callable[[dict], dict]


def runtime_dir(create: bool = False) -> Path | None:
    """This user's folder for sockets, or None when it is missing (and not `create`d) or anyone else
    could enter it (then nothing is hosted nor asked there)."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    folder = Path(base) / "tachikoma" if base else Path(os.environ.get("TMPDIR") or "/tmp") / f"tachikoma-{os.getuid()}"
    if create:
        try:
            folder.mkdir(mode=0o700, exist_ok=True)
        except OSError:
            return None
    try:
        info = os.lstat(folder)
    except OSError:
        return None
    private = stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o077
    return folder if private else None


def socket_name(root: Path) -> str:
    """The socket's file name for a memory folder: short (a socket path has ~100 bytes at most) and
    the same for every process; the host checks the folder itself, so a collision costs only speed."""
    data = str(root).encode("utf-8", "surrogateescape")
    return f"{zlib.crc32(data):08x}{zlib.crc32(data[::-1]):08x}.sock"


def identity(root: Path, config_path: str | os.PathLike | None) -> dict:
    """What makes two processes search the same index the same way (the environment and time zone as
    they are now: a host computes it again for every question)."""
    config_path = config_path or os.environ.get("TACHIKOMA_CONFIG")
    return {"root": str(root), "config": os.path.abspath(config_path) if config_path else None,
            "store": os.environ.get(STORE_ENV) or None, "version": __version__, "protocol": PROTOCOL,
            "environment": _environment(), "zone": _zone()}


def _environment() -> str:
    """A digest of the variables of `ANSWER_ENV` and every ``PG*`` one (PGHOST, PGPASSFILE…)."""
    names = sorted({*ANSWER_ENV, *(n for n in os.environ if n.startswith("PG"))})
    text = "\0".join(f"{n}={os.environ.get(n, '')}" for n in names if n in os.environ)
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def _zone() -> list:
    """The local time zone as this process resolves it: its names, offsets, and the offset now (what
    "yesterday" and a date without a zone mean)."""
    now = time.localtime()
    return [list(time.tzname), time.timezone, time.altzone, now.tm_gmtoff, now.tm_zone]


def ask(root: Path, config_path: str | os.PathLike | None, search: dict,
        timeout: float = ANSWER_SECONDS) -> dict | None:
    """The answer of the host of `root`'s memory to `search` (`Searcher.search`'s arguments by name,
    plus ``memories``), or None: no host, another way of searching, an error, or no answer in time."""
    folder = runtime_dir()
    if folder is None:
        return None
    path = folder / socket_name(root)
    question = json.dumps({**identity(root, config_path), "search": search}).encode() + b"\n"
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(min(timeout, ACK_SECONDS))
            conn.connect(str(path))
            conn.sendall(question)
            reader = _Lines(conn)
            if reader.line(MAX_QUESTION_BYTES) != ACK:  # a stopped or declining host: search here
                return None
            conn.settimeout(timeout)
            reply = reader.line(None)
    except (OSError, ValueError):  # no socket, a dead host's socket, a stopped one, a timeout
        return None
    try:
        answer = json.loads(reply)
    except ValueError:
        return None
    return answer.get("answer") if isinstance(answer, dict) and isinstance(answer.get("answer"), dict) else None


class Host:
    """Answers `ask` for one memory from a long-lived process, until `close`."""

    def __init__(self, root: Path, config_path: str | os.PathLike | None, search: Search, process: str):
        self.identity = identity(root, config_path)
        self.served_by = {"process": process, "pid": os.getpid()}
        self._search = search
        self._server = None  # a socketserver.ThreadingUnixStreamServer while listening
        self._inode: int | None = None
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self.path: Path | None = None

    @classmethod
    def start(cls, root: Path, config_path: str | os.PathLike | None, search: Search, process: str) -> "Host":
        """A host for `root`'s memory: listening at once, or in standby while another process answers
        for it (or while there is no private folder for its socket), listening once it can."""
        host = cls(root, config_path, search, process)
        if not host._listen(root):
            threading.Thread(target=host._standby, args=(root,), name="tachikoma-resident-standby",
                             daemon=True).start()
        return host

    @property
    def listening(self) -> bool:
        return self._server is not None

    def _standby(self, root: Path) -> None:
        while not self._closed.wait(STANDBY_SECONDS):
            if self._listen(root):
                return

    def _listen(self, root: Path) -> bool:
        with self._lock:
            return not self._closed.is_set() and self._bind(root)

    def _bind(self, root: Path) -> bool:
        import socketserver  # only a host needs it

        folder = runtime_dir(create=True)
        if folder is None:
            return False
        path = folder / socket_name(root)
        if _answers(path):
            return False
        temp = folder / f".{path.name}.{os.getpid()}"
        temp.unlink(missing_ok=True)
        host = self

        class Handler(socketserver.StreamRequestHandler):
            timeout = QUESTION_SECONDS

            def handle(self) -> None:
                host._handle(self.request, self.wfile)

        try:
            server = socketserver.ThreadingUnixStreamServer(str(temp), Handler)
        except OSError:  # e.g. a path longer than a socket's (~100 bytes): the command line searches itself
            return False
        server.daemon_threads = True
        try:
            os.chmod(temp, 0o600)
            os.replace(temp, path)  # atomically: a dead host's socket goes, a client never sees none
        except OSError:
            server.server_close()
            temp.unlink(missing_ok=True)
            return False
        self._server, self.path, self._inode = server, path, os.stat(path).st_ino
        threading.Thread(target=server.serve_forever, name="tachikoma-resident", daemon=True).start()
        return True

    def _handle(self, conn: socket.socket, out) -> None:
        if not _same_user(conn):
            return
        try:
            question = json.loads(_Lines(conn).line(MAX_QUESTION_BYTES))
        except (OSError, ValueError):
            return
        if isinstance(question, dict) and question.get("ping"):
            _send(out, PONG)
            return
        mine = {**self.identity, "environment": _environment(), "zone": _zone()}  # as they are now
        reply = {"declined": "another index, settings, environment, time zone or version"}
        if isinstance(question, dict) and all(question.get(k) == v for k, v in mine.items()) \
                and isinstance(question.get("search"), dict):
            if not _send(out, ACK):
                return
            try:
                reply = {"answer": dict(self._search(question["search"]), served_by=self.served_by)}
            except Exception as exc:  # noqa: BLE001 - the command line searches by itself and reports it
                reply = {"declined": f"{type(exc).__name__}: {exc}"}
        _send(out, json.dumps(reply, ensure_ascii=False).encode() + b"\n")

    def close(self) -> None:
        """Stop answering (or waiting to), and remove the socket unless another host has taken its place."""
        with self._lock:
            self._closed.set()
        if self._server is None:
            return
        self._server.shutdown()
        self._server.server_close()
        self._server = None
        try:
            if os.stat(self.path).st_ino == self._inode:
                os.unlink(self.path)
        except OSError:
            pass


ACK = b'{"accepted": true}\n'
PONG = b'{"pong": true}\n'


def _send(out, data: bytes) -> bool:
    try:
        out.write(data)
        out.flush()
    except OSError:
        return False  # the client went away
    return True


def _answers(path: Path) -> bool:
    """Whether a live host answers at `path`: a dead one's socket refuses the connection, and a stopped
    one (SIGSTOP) accepts it but leaves the ping unanswered for `ACK_SECONDS`."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(ACK_SECONDS)
        try:
            conn.connect(str(path))
            conn.sendall(b'{"ping": true}\n')
            return _Lines(conn).line(MAX_QUESTION_BYTES) == PONG
        except (OSError, ValueError):
            return False


def _same_user(conn: socket.socket) -> bool:
    """Whether the peer runs as this user (Linux's SO_PEERCRED; elsewhere the folder's mode decides)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return True
    _pid, uid, _gid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i")))
    return uid == os.getuid()


class _Lines:
    """Lines read from a socket, one at a time, the newline kept (the protocol is JSON lines)."""

    def __init__(self, conn: socket.socket):
        self.conn, self.rest = conn, b""

    def line(self, limit: int | None) -> bytes:
        """Bytes up to and with the next newline (what is left at the end); ValueError past `limit`."""
        chunks, size = [self.rest], len(self.rest)
        while b"\n" not in chunks[-1]:
            data = self.conn.recv(1 << 16)
            if not data:
                break
            chunks.append(data)
            size += len(data)
            if limit is not None and size > limit and b"\n" not in data:
                raise ValueError("line too long")
        data = b"".join(chunks)
        end = data.find(b"\n") + 1 or len(data)
        line, self.rest = data[:end], data[end:]
        return line
