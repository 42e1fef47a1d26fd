"""Who may use a shared dashboard or MCP over HTTP, and who each request comes from.

Served on 127.0.0.1 with nothing configured, nobody is asked (as always).
Beyond localhost `tachikoma serve` refuses to start unless one of these is
configured (``[serve]`` in tachikoma.toml, or the command line):

- tokens: ``$TACHIKOMA_TOKEN`` (one holder, named "owner") and/or a
  tokens file of ``name role token`` lines. A role is ``owner`` (a person:
  the dashboard and MCP) or ``agent`` (MCP only). The file must lie outside
  the memory: the memory is shared by git and read by agents. Tokens are
  kept as SHA-256 digests and compared with `hmac.compare_digest`, every
  holder each time, so the time taken says nothing about a near miss. The
  file is read again whenever it changes (checked at every request), so a
  token added or revoked counts at the next request, without a restart; a
  file that cannot be read or parsed any more lets none of its tokens in.
- a trusted reverse proxy: its user header (X-Forwarded-User) is believed
  only on a connection from one of the configured proxy addresses; from any
  other address the header is ignored.

Nothing here imports Flask: the dashboard (`tachikoma_dashboard.login`) and the
MCP endpoint (`Authenticated`, ASGI) share it.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import logging
import os
import re
import secrets
import threading
import time
import unicodedata
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from tachikoma.config import ServeConfig
from tachikoma.errors import TachikomaError

ROLES = ("owner", "agent")
MIN_TOKEN_CHARS = 16
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$")
#: The one holder of $TACHIKOMA_TOKEN.
ENV_HOLDER = "owner"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


class AccessError(TachikomaError):
    """The access settings cannot be used (a bad tokens file, a bad proxy address)."""


@dataclass(frozen=True)
class Identity:
    """Who a request comes from: a token's holder or the proxy's user; `role` owner or agent."""

    name: str
    role: str
    how: str  # "token", "session" or "proxy"

    def changed_by(self, face: str) -> str:
        """The value of a commit's Tachikoma-Changed-By trailer for a change made through `face`."""
        if face == "mcp":  # whoever holds the token, what MCP says is an agent's say-so
            return f"an agent authenticated as {self.name} (MCP)"
        return f"{self.name} ({face})"


@dataclass
class Access:
    """The configured ways in. `tokens`: SHA-256 digest of a token -> (name, role)."""

    tokens: dict[bytes, tuple[str, str]] = field(default_factory=dict)
    proxies: tuple = ()
    user_header: str = "X-Forwarded-User"
    public_url: str | None = None
    #: The tokens file (None: none) and the memory it must lie outside; read again when it changes.
    tokens_file: Path | None = None
    root: Path | None = None
    #: The tokens of $TACHIKOMA_TOKEN (fixed for the process); `tokens` is these and the file's.
    fixed: dict[bytes, tuple[str, str]] = field(default_factory=dict)
    #: Why the tokens file's current version is not used (its tokens are then refused), or None.
    file_error: str | None = None
    _stamp: tuple | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def _file_stamp(self) -> tuple | None:
        try:
            st = os.stat(self.tokens_file)
        except OSError as exc:
            return ("missing", exc.errno)
        return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)

    def refresh(self) -> None:
        """Read the tokens file again if it changed since it was last read: a token added or removed
        counts from the next request on. A file that became unreadable or invalid lets none of its
        tokens in (its error is logged and kept in `file_error`) until it is fixed."""
        if self.tokens_file is None:
            return
        stamp = self._file_stamp()
        if stamp == self._stamp:
            return
        with self._lock:
            if stamp == self._stamp:
                return
            fresh = Access(tokens=dict(self.fixed))
            try:
                _read_tokens(fresh, self.tokens_file, self.root or Path("/nonexistent"))
            except AccessError as exc:
                self.tokens, self.file_error = dict(self.fixed), str(exc)
                logging.getLogger("tachikoma.access").error("%s; none of its tokens is accepted until it "
                                                            "is fixed", exc)
            else:
                self.tokens, self.file_error = fresh.tokens, None
            self._stamp = stamp

    def by_token(self, token: str) -> Identity | None:
        """The holder of `token`, or None; every stored digest is compared, in constant time each."""
        self.refresh()
        given = hashlib.sha256(token.encode("utf-8", "surrogateescape")).digest()
        found = None
        for digest, holder in self.tokens.items():
            if hmac.compare_digest(given, digest):
                found = holder
        return Identity(found[0], found[1], "token") if found else None

    def by_token_id(self, token_id: str, name: str) -> Identity | None:
        """The holder a login session names, while its token is still configured (a removed token ends it)."""
        self.refresh()
        for digest, holder in self.tokens.items():
            if hmac.compare_digest(token_id, token_id_of(digest)) and holder[0] == name:
                return Identity(holder[0], holder[1], "session")
        return None

    def token_id(self, token: str) -> str:
        return token_id_of(hashlib.sha256(token.encode("utf-8", "surrogateescape")).digest())

    def trusts_proxy(self, address: str | None) -> bool:
        try:
            ip = ipaddress.ip_address((address or "").split("%")[0])
        except ValueError:
            return False
        return any(ip in network for network in self.proxies)

    def by_proxy(self, address: str | None, user: str | None) -> Identity | None:
        """The proxy's user when the connection comes from a trusted proxy, else None (header ignored)."""
        if not user or not self.trusts_proxy(address):
            return None
        user = user.strip()
        if not user or len(user) > 200 or any(unicodedata.category(ch).startswith("C") for ch in user):
            return None
        return Identity(user, "owner", "proxy")

    def identify(self, address: str | None, authorization: str | None, proxy_user: str | None) -> Identity | None:
        """Who a request is from: its bearer token, else its trusted proxy's user header. Raises
        WrongToken for a bearer token that is not configured (401, whatever else the request says)."""
        token = bearer(authorization)
        if token is not None:
            who = self.by_token(token)
            if who is None:
                raise WrongToken()
            return who
        return self.by_proxy(address, proxy_user)

    def public_host(self) -> str | None:
        """The host name people use (from `public_url`), lower case, or None."""
        if not self.public_url:
            return None
        return (urlsplit(self.public_url).hostname or "").lower() or None

    def public_origin(self) -> str | None:
        if not self.public_url:
            return None
        parts = urlsplit(self.public_url)
        return f"{parts.scheme}://{parts.netloc}".lower()

    @property
    def secure_cookies(self) -> bool:
        return bool(self.public_url) and self.public_url.lower().startswith("https://")


class WrongToken(Exception):
    """A bearer token that no holder has."""


class Sessions:
    """The dashboard's signed-in sessions, kept by the server: a session cookie names one by a random id,
    and is honoured only while that id is here. Signing out removes it, so a copy of the cookie taken
    before is worth nothing after; a restart ends every session. Ids are kept as SHA-256 digests; at
    most `MAX` sessions (the oldest go first), each for at most `MAX_AGE` seconds."""

    MAX = 10_000
    MAX_AGE = 14 * 86400.0

    def __init__(self):
        self._live: OrderedDict[bytes, tuple[str, str, float]] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def _key(session_id: str) -> bytes:
        return hashlib.sha256(session_id.encode("utf-8", "surrogateescape")).digest()

    def start(self, name: str, token_id: str) -> str:
        """A new session of `name` signed in with the token of `token_id`; its id for the cookie."""
        session_id = secrets.token_urlsafe(32)
        with self._lock:
            self._live[self._key(session_id)] = (name, token_id, time.time())
            while len(self._live) > self.MAX:
                self._live.popitem(last=False)
        return session_id

    def holder(self, session_id: str | None) -> tuple[str, str] | None:
        """(name, token id) of a live session, or None (unknown, signed out, too old)."""
        if not session_id or not isinstance(session_id, str):
            return None
        key = self._key(session_id)
        with self._lock:
            found = self._live.get(key)
            if found and time.time() - found[2] > self.MAX_AGE:
                del self._live[key]
                found = None
        return found[:2] if found else None

    def end(self, session_id: str | None) -> None:
        if session_id and isinstance(session_id, str):
            with self._lock:
                self._live.pop(self._key(session_id), None)


def token_id_of(digest: bytes) -> str:
    """A short id of a token for a login session: names it, cannot be turned back into it."""
    return hashlib.sha256(b"tachikoma-session:" + digest).hexdigest()[:24]


def bearer(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header ("" for a malformed one), or None."""
    if not header:
        return None
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "bearer":
        return ""
    return token.strip()


def load_access(root: Path, settings: ServeConfig, tokens_file: str | None = None,
                trusted_proxies: tuple[str, ...] = (), public_url: str | None = None,
                environ=os.environ) -> Access | None:
    """The access settings from `settings` ([serve]), overridden by the command line's options, plus
    $TACHIKOMA_TOKEN; None when none is configured (then only localhost may be served)."""
    access = Access(user_header=settings.user_header, public_url=public_url or settings.public_url)
    if access.public_url:
        parts = urlsplit(access.public_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise AccessError(f"public_url {access.public_url!r} must be an address such as "
                              "https://memory.example.org")
    env_token = environ.get("TACHIKOMA_TOKEN", "")
    if env_token:
        _add(access, ENV_HOLDER, "owner", env_token.strip(), "$TACHIKOMA_TOKEN")
    access.fixed = dict(access.tokens)
    file = tokens_file or settings.tokens_file
    if file:
        access.tokens_file, access.root = Path(file).expanduser(), Path(root)
        access._stamp = access._file_stamp()
        _read_tokens(access, access.tokens_file, root)
    networks = []
    for value in (*settings.trusted_proxies, *trusted_proxies):
        try:
            networks.append(ipaddress.ip_network(value.strip(), strict=False))
        except ValueError:
            raise AccessError(f"trusted proxy {value!r} is not an address or network (such as 10.0.0.5 or "
                              "10.0.0.0/24)") from None
    access.proxies = tuple(networks)
    if not access.tokens and not access.proxies:
        return None
    return access


def _add(access: Access, name: str, role: str, token: str, where: str) -> None:
    if len(token) < MIN_TOKEN_CHARS:
        raise AccessError(f"{where}: a token must be at least {MIN_TOKEN_CHARS} characters (make one with "
                          "`python3 -c 'import secrets; print(secrets.token_urlsafe(32))'`)")
    digest = hashlib.sha256(token.encode("utf-8", "surrogateescape")).digest()
    if digest in access.tokens:
        raise AccessError(f"{where}: the same token is given twice; each holder needs a token of their own")
    access.tokens[digest] = (name, role)


def _read_tokens(access: Access, file: Path, root: Path) -> None:
    """Lines ``name role token`` (``#`` comments, blank lines); the file must lie outside the memory."""
    try:
        inside = file.resolve().is_relative_to(Path(root).resolve())
    except OSError:
        inside = False
    if inside:
        raise AccessError(f"tokens file {file} lies inside the memory folder, which git shares and agents read: "
                          "keep it outside (e.g. /etc/tachikoma/tokens)")
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise AccessError(f"tokens file {file}: cannot read ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise AccessError(f"tokens file {file}: not UTF-8 text") from None
    for number, line in enumerate(text.splitlines(), 1):
        words = line.split("#", 1)[0].split() if not line.lstrip().startswith("#") else []
        if not words:
            continue
        where = f"tokens file {file} line {number}"
        if len(words) != 3:
            raise AccessError(f"{where}: expected `name role token` (role owner or agent)")
        name, role, token = words
        if not _NAME.match(name):
            raise AccessError(f"{where}: a name is letters, digits and . _ @ + - (at most 64)")
        if role not in ROLES:
            raise AccessError(f"{where}: role must be owner (a person: dashboard and MCP) or agent (MCP only)")
        _add(access, name, role, token, where)


def is_loopback(host: str) -> bool:
    """Whether `host` is one of the names `tachikoma serve` binds to without asking for authentication."""
    return host.strip("[]").lower() in LOOPBACK_HOSTS


class Authenticated:
    """ASGI middleware for MCP over HTTP: requests under `prefix` need a bearer token or a trusted
    proxy's user header; the identity is put in the scope (``tachikoma.identity``) for the tools.
    Other paths (the dashboard, which checks for itself) pass through untouched."""

    SCOPE_KEY = "tachikoma.identity"

    def __init__(self, app, access: Access, prefix: str = "/mcp"):
        self.app = app
        self.access = access
        self.prefix = prefix

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or not (scope["path"] == self.prefix or scope["path"].startswith(self.prefix + "/")):
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or []}
        client = scope.get("client")
        try:
            who = self.access.identify(client[0] if client else None, headers.get("authorization"),
                                       headers.get(self.access.user_header.lower()))
        except WrongToken:
            who = None
        if who is None:
            return await _unauthorized(send)
        scope = {**scope, self.SCOPE_KEY: who}
        return await self.app(scope, receive, send)


UNAUTHORIZED = ("authentication required: send `Authorization: Bearer <token>` with a token the operator "
                "configured for this server")


async def _unauthorized(send) -> None:
    body = (UNAUTHORIZED + "\n").encode()
    await send({"type": "http.response.start", "status": 401,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"www-authenticate", b'Bearer realm="tachikoma"'),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
