"""Git for tests: one way to run git with a fixed identity, and isolation from the user's config."""

import os
import subprocess
import sys
from pathlib import Path

#: The checkout the code under test comes from (a subprocess imports it from here).
CHECKOUT = Path(__file__).resolve().parent.parent

IDENTITY = ("-c", "user.name=Test", "-c", "user.email=test@example.com")
ENV_VARS = ("GIT_CONFIG_GLOBAL", "GIT_DIR", "GIT_WORK_TREE", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL",
            "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL", "GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE")


def git(cwd: Path, *args: str, date: str | None = None) -> str:
    """Run git in `cwd` as "Test", optionally with a fixed author and committer date; return stdout."""
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}
    if date:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = date
    return subprocess.run(["git", *IDENTITY, *args], cwd=cwd, check=True, capture_output=True, text=True,
                          env=env).stdout


def isolate(monkeypatch, home: Path) -> None:
    """No global or system git config for the code under test: no identity configured anywhere."""
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for name in ENV_VARS:
        monkeypatch.delenv(name, raising=False)


def run_python(*args: str, fault: str | None = None, **options) -> subprocess.CompletedProcess:
    """`python *args` in a subprocess that imports tachikoma from this checkout, with no system git config
    and no fault injected unless `fault` (a `tachikoma.faults` point); `options` go to subprocess.run."""
    env = {**os.environ, "PYTHONPATH": str(CHECKOUT), "GIT_CONFIG_NOSYSTEM": "1"}
    env.pop("TACHIKOMA_FAULT", None)
    if fault:
        env["TACHIKOMA_FAULT"] = fault
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, timeout=120, **options)


def tachikoma_cli(root: Path, *args: str, fault: str | None = None, **options) -> subprocess.CompletedProcess:
    """`tachikoma --memory root *args` in a subprocess (see `run_python`)."""
    return run_python("-m", "tachikoma", "--memory", str(root), *args, fault=fault, **options)


def hook(root: Path, name: str, script: str) -> None:
    """Install `script` (shell) as the repository's `name` hook."""
    path = root / ".git" / "hooks" / name
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(0o755)


def tag(root: Path, pattern: str, value: str, commit: bool = True):
    """Set trust `value` on the files `pattern` selects, overwriting, through the package's plan and apply."""
    from tachikoma.tagging import applying, model, planning

    planned = planning.plan(root, {"trust": value}, model.Selector(pattern=pattern), overwrite=True)
    return applying.apply(root, planned, commit=commit)
