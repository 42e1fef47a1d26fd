"""What a PostgreSQL store says when the server or the database fails: one line, never the password
(`redacted`, `scrub`)."""

from __future__ import annotations

from ..errors import IndexDamaged, StoreUnreachable, TachikomaError


def redacted(url: str) -> str:
    """`url` without its password: what messages may show."""
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    try:
        parts = conninfo_to_dict(url)
    except Exception:  # noqa: BLE001 (an unparsable URL: show only its scheme)
        return url.split(":", 1)[0] + "://…"
    parts.pop("password", None)
    user = parts.get("user", "")
    host = parts.get("host", "")
    port = f":{parts['port']}" if parts.get("port") else ""
    if url.startswith(("postgresql://", "postgres://")):
        return f"postgresql://{user + '@' if user else ''}{host if '/' not in host else ''}{port}/{parts.get('dbname', '')}" + \
            (f"?host={host}" if "/" in host else "")
    return make_conninfo(**parts)


def scrub(text: str, url: str) -> str:
    """A server or driver message on one line, with the password taken out if it appears."""
    from psycopg.conninfo import conninfo_to_dict

    line = " ".join(str(text).split())
    try:
        password = conninfo_to_dict(url).get("password")
    except Exception:  # noqa: BLE001 (a URL the driver cannot parse has no password to hide)
        password = None
    return line.replace(password, "***") if password else line


def connection_error(url: str, exc: Exception) -> TachikomaError:
    """One line for a failed connection: unreachable server, wrong credentials, missing database."""
    where = redacted(url)
    reason = scrub(exc, url)
    lowered = reason.lower()
    if "role" in lowered and "does not exist" in lowered:
        return TachikomaError(f"PostgreSQL at {where} has no such user ({reason}): create it as the server's "
                              "superuser (createuser NAME) and give it the database (createdb --owner NAME …); "
                              "see docs/team.md")
    if "password authentication failed" in lowered or "no password supplied" in lowered \
            or "authentication failed" in lowered:
        return TachikomaError(f"PostgreSQL at {where} refused the credentials ({reason}): check the user and "
                              "password (in the URL, PGPASSWORD or ~/.pgpass)")
    if "database" in lowered and "does not exist" in lowered:
        return TachikomaError(f"PostgreSQL at {where}: {reason}; create it (createdb) or name another")
    return StoreUnreachable(f"cannot reach the PostgreSQL server at {where} ({reason})")


def database_error(store, exc: Exception) -> Exception | None:
    """The one-line TachikomaError for a database error of `store` (password scrubbed), or None for an
    error that is not the database's. OperationalError is the whole family of a lost server: a
    connection closed, the server shut down (AdminShutdown) or crashed, a network failure."""
    import psycopg

    if isinstance(exc, psycopg.OperationalError):
        return StoreUnreachable(f"lost the PostgreSQL server at {redacted(store.url)} ({scrub(exc, store.url)})")
    if isinstance(exc, psycopg.errors.UndefinedTable):
        return IndexDamaged(f"the PostgreSQL index at {redacted(store.url)} is missing a table "
                            f"({scrub(exc, store.url)})")
    return None
