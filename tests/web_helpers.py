"""Helpers for the dashboard's tests: a copy of the example memory, an index,
a live server in a thread, and a headless Chromium."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from pathlib import Path

from flask.testing import FlaskClient
from werkzeug.serving import WSGIRequestHandler, make_server

from example_memory import copy_example
from gitrepo import git

#: The address the dashboard's test clients talk to (the Host check answers it).
HOST = "127.0.0.1:5000"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def copy_memory(target: Path, git: bool = True) -> Path:
    """A fresh copy of examples/memory at `target` (committed to a new git repo when `git`)."""
    copy_example(target)
    if git:
        git_run(target, "init", "-q", "-b", "main")
        git_run(target, "add", "-A")
        git_run(target, "commit", "-q", "-m", "example memory")
    return target.resolve()


def git_run(root: Path, *args: str) -> str:
    return git(root, *args)


def build_index(root: Path, embedder: str = "hash"):
    from tachikoma.indexer import runner

    return runner.run(root, embedder_name=embedder)


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under `root` (but .git and .cache) and its bytes."""
    found = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if rel.parts[0] in (".git", ".cache") or not path.is_file():
            continue
        found[rel.as_posix()] = path.read_bytes()
    return found


class QuietHandler(WSGIRequestHandler):
    def log_request(self, *args, **kwargs) -> None:  # keep test output readable
        pass


class LiveServer:
    """The app served by werkzeug on 127.0.0.1 and a free port, in a thread."""

    def __init__(self, app):
        self.app = app
        self.server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=QuietHandler)
        self.port = self.server.server_port
        app.config["TACHIKOMA_PORT"] = self.port  # the Host check now wants exactly this port
        app.config["SESSION_COOKIE_NAME"] = f"tachikoma_{self.port}"
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "LiveServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.thread.join(5)


def launch_chromium(playwright):
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)


@contextmanager
def browser_page(viewport=(1280, 900)):
    """A Playwright page in headless Debian Chromium that fails on CSP violations and JS errors."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
            page = context.new_page()
            page.problems = []  # console errors (CSP violations show up here) and page errors
            page.on("console", lambda m: m.type == "error" and page.problems.append(m.text))
            page.on("pageerror", lambda e: page.problems.append(str(e)))
            yield page
        finally:
            browser.close()


class Client(FlaskClient):
    """A test client that talks to the served address (`HOST`) unless told otherwise."""

    def open(self, *args, **kwargs):
        kwargs.setdefault("base_url", f"http://{HOST}")
        return super().open(*args, **kwargs)
