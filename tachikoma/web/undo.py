"""Taggings the dashboard can undo, kept on disk so Undo survives a restart.

Each one is a JSON file in ``<root>/.cache/undo/``, named by a random key:
the changes (each file's tags before and after), the exact bytes to put back
(base64; for a note only its front matter head, see `tagging.model.Restore`) with
the hash of what was written, the commit and when. Beside it a small
``<key>.summary`` (what the page lists, so listing never parses the
originals), and once undone a ``<key>.undone`` note (when, which commit), so
a second Undo can say it was already done. An undo that left files as they
were (`tagging.undoing`) keeps the tagging under its key, holding only those
files, with its progress (which files were restored, which left and why), so
it is listed as partly undone and its Undo undoes the rest. Like the
rest of ``.cache`` it is derived and private: deleting the folder only loses
the Undo buttons (a tagging commit can still be reverted with git). Undo
stays exact: `tagging.applying.undo` gives a file its former bytes back only when it
still holds what the tagging wrote, and skips a file whose tags changed since.
"""

from __future__ import annotations

import json
import logging
import os
import re
import secrets
import time
from dataclasses import asdict
from pathlib import Path

from typing import NamedTuple

from tachikoma.tagging import model, undoing
from tachikoma.atomic import atomic_write_bytes
from tachikoma.memory import cache_dir

log = logging.getLogger("tachikoma.web")

FOLDER = "undo"
_KEY = re.compile(r"[A-Za-z0-9_-]{16,64}")
VERSION = 1


def encode(applied: model.Applied, created: float, progress: undoing.Progress | None = None) -> dict:
    """`applied` as a JSON-ready record (bytes as base64), with the `progress` of its undoing when an undo left
    some of it."""
    record = {
        "version": VERSION, "created": created, "message": applied.message, "commit": applied.commit,
        "changes": [asdict(c) for c in applied.changes],
        "restore": {path: r.as_json() for path, r in applied.restore.items()},
    }
    if progress is not None:
        record["progress"] = progress.as_json()
    return record


def decode(record: dict) -> model.Applied:
    """The Applied an `encode` record describes. Raises KeyError, TypeError or ValueError when it is damaged."""
    if record.get("version") != VERSION:
        raise ValueError(f"unknown undo record version {record.get('version')!r}")
    return model.Applied(
        changes=[model.Change(**c) for c in record["changes"]],
        commit=record.get("commit"), message=record.get("message", ""),
        restore={path: model.Restore.from_json(r) for path, r in record["restore"].items()},
    )


class Claim(NamedTuple):
    """A tagging taken from the store to be undone: what is left of it, when it was made, and where earlier undos
    of it left it (None: none did)."""

    applied: model.Applied
    created: float
    progress: undoing.Progress | None


class UndoStore:
    """The last `size` taggings of the memory folder `root` that can be undone, by random key."""

    def __init__(self, root: Path, size: int):
        self.root = Path(root)
        self.size = size

    def _folder(self) -> Path:
        folder = cache_dir(self.root) / FOLDER
        folder.mkdir(exist_ok=True)
        return folder

    def _path(self, key: str) -> Path | None:
        return self._folder() / f"{key}.json" if _KEY.fullmatch(key or "") else None

    def remember(self, applied: model.Applied, key: str | None = None, created: float | None = None,
                 progress: undoing.Progress | None = None) -> str:
        """Keep `applied` for undoing (`progress`: where earlier undos of it left it); its key. The oldest
        records beyond `size` are forgotten."""
        key = key or secrets.token_urlsafe(18)
        path = self._path(key)
        created = time.time() if created is None else created
        record = encode(applied, created, progress)
        atomic_write_bytes(path.with_suffix(".summary"), json.dumps(summary(record)).encode("utf-8"))
        atomic_write_bytes(path, json.dumps(record).encode("utf-8"))
        os.utime(path, (created, created))  # records are ordered by modification time
        for old in self._records()[self.size:]:
            old.unlink(missing_ok=True)
            old.with_suffix(".summary").unlink(missing_ok=True)
        return key

    def claim(self, key: str) -> Claim | None:
        """The tagging under `key`, removed from the store (None: unknown, already undone, or damaged).

        Taking renames the record first, so two Undo clicks at once (even
        from two dashboards) cannot both get it.
        """
        path = self._path(key)
        if path is None:
            return None
        claimed = path.with_suffix(f".taken-{secrets.token_hex(4)}")
        try:
            os.replace(path, claimed)
        except FileNotFoundError:
            return None
        path.with_suffix(".summary").unlink(missing_ok=True)
        try:
            record = json.loads(claimed.read_bytes())
            progress = record.get("progress")
            return Claim(decode(record), float(record["created"]),
                         undoing.Progress.from_json(progress) if progress else None)
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            log.warning("undo record %s is damaged: %s", path.name, exc)
            return None
        finally:
            claimed.unlink(missing_ok=True)

    def put_back(self, key: str, claim: Claim) -> None:
        """Make the tagging `claim`ed undoable again under `key`, as it was (its undo failed)."""
        self.remember(claim.applied, key=key, created=claim.created, progress=claim.progress)

    def settle(self, key: str, claim: Claim, outcome: undoing.Outcome) -> None:
        """Keep what `outcome`, the undo of the tagging `claim`ed under `key`, did: undone, or partly (what is left
        stays under its key, with its progress, to be undone once the reasons are fixed)."""
        if outcome.rest is None:
            self.mark_undone(key, outcome.done.commit, tagging=claim.applied.commit)
        else:
            self.remember(outcome.rest, key=key, created=claim.created, progress=outcome.progress)

    def mark_undone(self, key: str, commit: str | None, tagging: str | None = None) -> None:
        """Note that the tagging under `key` (whose commit is `tagging`) was undone (by `commit`), for a later Undo
        of it to say so, and the list of recent taggings to list it undone (`undone_taggings`)."""
        path = self._path(key)
        if path is None:
            return
        note = {"undone": time.time(), "commit": commit, "tagging": tagging}
        atomic_write_bytes(path.with_suffix(".undone"), json.dumps(note).encode())
        for old in _newest_first(self._folder().glob("*.undone"))[self.size:]:
            old.unlink(missing_ok=True)

    def undone(self, key: str) -> dict | None:
        """{"undone": time, "commit"} when the tagging under `key` was undone here, else None."""
        path = self._path(key)
        try:
            note = json.loads(path.with_suffix(".undone").read_bytes()) if path else None
            return {"undone": float(note["undone"]), "commit": note.get("commit")} if note else None
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def undone_taggings(self) -> dict[str, dict]:
        """The taggings undone here, by their commit: {"at": when, "commit": the undo's commit}. A note written
        before it named the tagging's commit is left out."""
        found = {}
        for path in self._folder().glob("*.undone"):
            try:
                note = json.loads(path.read_bytes())
                if note.get("tagging"):
                    found[str(note["tagging"])] = {"at": float(note["undone"]), "commit": note.get("commit")}
            except (OSError, ValueError, KeyError, TypeError, AttributeError):
                continue
        return found

    def recent(self, limit: int = 5, exclude: str | None = None) -> list[dict]:
        """The newest records for the page, but `exclude`: {"key", "created", "message", "commit", "paths"}, and
        "progress" for a partly undone one ({"state", "at", "text"}: `undoing.Progress`; "paths": the files left).

        Each is read from its small summary (a record written before summaries
        existed is read whole)."""
        found = []
        for path in self._records():
            if len(found) == limit:
                break
            if path.stem == exclude:
                continue
            try:
                try:
                    found.append({"key": path.stem, **json.loads(path.with_suffix(".summary").read_bytes())})
                except FileNotFoundError:
                    found.append({"key": path.stem, **summary(json.loads(path.read_bytes()))})
            except (OSError, ValueError, KeyError, TypeError):
                continue
        return found

    def _records(self) -> list[Path]:
        """Record files, newest first."""
        return _newest_first(p for p in self._folder().glob("*.json") if _KEY.fullmatch(p.stem))


def summary(record: dict) -> dict:
    """What the page lists of an `encode` record: {"created", "message", "commit", "paths"}, and "progress" when
    an undo left some of it ({"state", "at", "text"})."""
    listed = {"created": record["created"], "message": record["message"], "commit": record.get("commit"),
              "paths": [c["path"] for c in record["changes"]]}
    if record.get("progress"):
        progress = undoing.Progress.from_json(record["progress"])
        listed["progress"] = {"state": progress.state, "at": progress.at, "text": progress.describe()}
    return listed


def _newest_first(paths) -> list[Path]:
    def modified(path: Path) -> float:
        try:
            return path.stat().st_mtime
        except OSError:
            return 0.0
    return sorted(paths, key=modified, reverse=True)
