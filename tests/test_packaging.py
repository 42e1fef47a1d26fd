"""A non-editable install works (issue 12): the wheel that `pip install .` builds ships the packages
tachikoma and tachikoma_dashboard (the Flask application) with templates/ and static/ inside the
latter, nothing else at the top of site-packages (issue 31: no generic name such as `app`), and its
`tachikoma serve` answers with the dashboard, far from any checkout.

The wheel is built without build isolation (setuptools comes from requirements-dev.txt) and
installed with --no-deps into a fresh virtual environment; the dependencies (flask, numpy, ...)
are borrowed from the test environment through a .pth file, so nothing is downloaded.
"""

from __future__ import annotations

import os
import re
import shutil
import site
import socket
import subprocess
import sys
import tarfile
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pytest

from example_memory import copy_example

REPO = Path(__file__).resolve().parent.parent
NOT_SOURCE = shutil.ignore_patterns(".*", "__pycache__", "*.egg-info", "build", "dist", "out")
ASSETS = sorted(p.relative_to(REPO).as_posix() for folder in ("templates", "static")
                for p in (REPO / folder).rglob("*") if p.is_file())


def _env() -> dict[str, str]:
    """The environment every process the tests start runs in: without PYTHONPATH, which would put a checkout
    (`PYTHONPATH=. pytest`) before the installed copy, nor the user's TACHIKOMA_MEMORY."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TACHIKOMA_MEMORY")}


def _run(*args, **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, env=_env(), **kwargs)
    assert done.returncode == 0, f"{args} failed:\n{done.stdout}\n{done.stderr}"
    return done


def _build_wheel(source: Path, out: Path) -> Path:
    done = _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                "-w", out, source)
    assert "Warning" not in done.stdout + done.stderr  # e.g. setuptools' project.license deprecation
    (wheel,) = out.glob("tachikoma-*.whl")
    return wheel


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel `pip install .` builds, from a copy of the checkout (no build/ left in it)."""
    tmp = tmp_path_factory.mktemp("wheel")
    shutil.copytree(REPO, tmp / "src", ignore=NOT_SOURCE)
    return _build_wheel(tmp / "src", tmp / "dist")


def test_the_wheel_installs_no_top_level_name_but_the_projects_own(wheel):
    """Everything in the wheel lies under tachikoma/ or tachikoma_dashboard/ (or its .dist-info): no
    app.py, dashboard/, templates/ or static/ that could clash with another package's in site-packages."""
    archive = zipfile.ZipFile(wheel)
    (info,) = {n.split("/")[0] for n in archive.namelist() if n.split("/")[0].endswith(".dist-info")}
    assert {n.split("/")[0] for n in archive.namelist()} == {"tachikoma", "tachikoma_dashboard", info}
    assert archive.read(f"{info}/top_level.txt").decode().split() == ["tachikoma", "tachikoma_dashboard"]


def test_the_wheels_description_has_no_link_that_leads_nowhere_on_pypi(wheel):
    """PyPI shows the README without the repository beside it: a relative link (docs/…, the screenshot)
    would lead nowhere there, so the description names those files as text (setup.py)."""
    archive = zipfile.ZipFile(wheel)
    (metadata,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
    description = archive.read(metadata).decode().partition("\n\n")[2]
    assert description.startswith("# tachikoma") and "`docs/ranking.md`" in description
    links = re.findall(r"\]\(([^)\s]+)\)", description)
    assert [target for target in links if not target.startswith(("https://", "http://"))] == []
    assert "## Quick start" in description and "make demo" in description


def test_the_wheel_ships_every_template_and_static_file_inside_tachikoma_dashboard(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert all(f"tachikoma_dashboard/{p.name}" in names for p in (REPO / "tachikoma_dashboard").glob("*.py"))
    assert ASSETS and sorted(n.removeprefix("tachikoma_dashboard/") for n in names
                             if n.startswith(("tachikoma_dashboard/templates/", "tachikoma_dashboard/static/"))) == ASSETS
    assert not [n for n in names if n.startswith(("tachikoma/web/templates/", "tachikoma/web/static/"))]  # one copy


def test_a_wheel_built_from_the_sdist_ships_them_too(tmp_path):
    shutil.copytree(REPO, tmp_path / "src", ignore=NOT_SOURCE)
    _run(sys.executable, "-c", f"from setuptools import build_meta; build_meta.build_sdist({str(tmp_path)!r})",
         cwd=tmp_path / "src")
    (sdist,) = tmp_path.glob("tachikoma-*.tar.gz")
    with tarfile.open(sdist) as archive:
        archive.extractall(tmp_path / "unpacked", filter="data")
    (source,) = (tmp_path / "unpacked").iterdir()
    names = zipfile.ZipFile(_build_wheel(source, tmp_path / "dist")).namelist()
    assert all(f"tachikoma_dashboard/{asset}" in names for asset in ASSETS) and "tachikoma_dashboard/guards.py" in names
    assert {n.split("/")[0] for n in names if ".dist-info/" not in n} == {"tachikoma", "tachikoma_dashboard"}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _get(url: str, server: subprocess.Popen, deadline: float) -> bytes:
    """The body at `url`, waiting for the server to start listening (an HTTP error fails at once)."""
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                return response.read()
        except urllib.error.HTTPError:
            raise
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def test_tachikoma_serve_from_a_fresh_venv_serves_the_dashboard(wheel, tmp_path):
    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", "--without-pip", venv)
    python, tachikoma = venv / "bin" / "python", venv / "bin" / "tachikoma"
    _run(sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--no-deps", "--no-index", wheel)
    purelib = Path(_run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip())
    (purelib / "borrowed_dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")

    where = _run(python, "-c", "import tachikoma, tachikoma_dashboard.app as app; print(app.__file__); "
                 "print(tachikoma.__file__); print(app._folder('templates')); print(app._folder('static'))",
                 cwd=tmp_path).stdout.split()
    assert all(Path(p).is_relative_to(purelib) for p in where), where  # the installed copy, not the checkout
    assert {Path(p).name for p in where[2:]} == {"templates", "static"}
    refused = subprocess.run([python, "-c", "import app"], capture_output=True, text=True, cwd=tmp_path, env=_env())
    assert "No module named 'app'" in refused.stderr  # app.py is the checkout's entry, not installed

    memory = copy_example(tmp_path / "memory")
    _run(tachikoma, "--memory", memory, "index", "--embedder", "hash", "--quiet", cwd=tmp_path)
    port = _free_port()
    server = subprocess.Popen([tachikoma, "--memory", memory, "serve", "--port", str(port)], cwd=tmp_path,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=_env())
    try:
        page = _get(f"http://127.0.0.1:{port}/?q=Martin+meetings", server, time.monotonic() + 30).decode()
        css = _get(f"http://127.0.0.1:{port}/static/style.css", server, time.monotonic() + 5)
    finally:
        server.terminate()
        errors = server.communicate(timeout=10)[1]
    assert "martin.md" in page and "/static/style.css" in page, errors
    assert css == (REPO / "static" / "style.css").read_bytes()
