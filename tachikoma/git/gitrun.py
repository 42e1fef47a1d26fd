"""Running git for `gitutil`: one command (`run`), the errors it raises, and the repository's commit
hooks (`hooked_message`, `hook`), which run as ``git commit`` runs them but never for ever.

Hooks run without a terminal, on every face alike: each runs in a session of its own, with no
controlling terminal and stdin from /dev/null, so a hook that asks a question on /dev/tty cannot open
it and fails at once (its refusal says why: `NO_TERMINAL`) rather than wait, holding the writers'
lock, for an answer nobody may be there to give (the dashboard, MCP, an agent's shell).

A hook that has not finished after `HOOK_TIMEOUT` seconds (or the memory's ``[git] hook_timeout``,
`gitutil.hook_timeout`: a ``sleep``, a scanner waiting on the network) is stopped with everything it
started, and the commit is not made: `GitError` says which hook it was, so the writing run keeps its
change in the journal and the next run tries again, instead of holding the writers' lock and waiting
for ever.
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

from ..errors import TachikomaError

#: Seconds a commit hook (or a signing ``git commit-tree``) may take before it is stopped, unless the memory's
#: settings say otherwise (``[git] hook_timeout``).
HOOK_TIMEOUT = 300.0
#: How much of a refusing hook's output its error repeats (the end, where the reason usually is).
_HOOK_OUTPUT_CHARS = 400


class GitError(TachikomaError):
    """A git command failed."""


class HookRefused(GitError):
    """A commit hook of the repository (pre-commit, prepare-commit-msg, commit-msg) refused the commit."""


class DetachedHead(GitError):
    """HEAD is not on a branch: tachikoma does not commit there."""


class NotCommitted(GitError):
    """A path git will not commit as asked (ignored by git, in a submodule, in an unresolved merge conflict):
    trying again changes nothing until someone changes the repository."""


class GitTimeout(GitError):
    """A git command (a hook it ran) did not finish in time and was stopped."""


def run(root: Path, args: list[str], check: bool = True, literal: bool = True, input: bytes | None = None,
        env: dict[str, str] | None = None, timeout: float | None = None) -> subprocess.CompletedProcess:
    """Run git in `root` (with `input` on stdin and `env` added to the environment).

    With `timeout`, git runs in a session of its own and is stopped, with
    every process it started (a hook's), once that many seconds have
    passed: raises GitTimeout. Raises GitError when git is missing or (with
    check) fails.
    """
    command = ["git"]
    if literal:
        # A file named "*.md" or ":x" must mean that file, not a pattern.
        command.append("--literal-pathspecs")
    command += args
    environment = dict(os.environ)
    environment.setdefault("LC_ALL", "C")  # stable error messages
    environment["GIT_TERMINAL_PROMPT"] = "0"
    environment.update(env or {})
    try:
        proc = subprocess.Popen(command, cwd=root, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
                                start_new_session=timeout is not None)
    except FileNotFoundError as exc:
        raise GitError("git is not installed (or not on PATH)") from exc
    except OSError as exc:
        raise GitError(f"cannot run git: {exc}") from exc
    try:
        out, err = proc.communicate(input, timeout=timeout)
    except subprocess.TimeoutExpired:
        _stop(proc)
        raise GitTimeout(f"git {args[0]} did not finish within {timeout:g} s in {root}: stopped") from None
    except BaseException:  # Ctrl-C: nothing git started is left running
        _stop(proc)
        raise
    done = subprocess.CompletedProcess(command, proc.returncode, out, err)
    if check and done.returncode != 0:
        message = err.decode("utf-8", "replace").strip().splitlines()
        reason = "; ".join(line for line in message if line.strip())[:500] or f"exit status {done.returncode}"
        raise GitError(f"git {args[0]} failed in {root}: {reason}")
    return done


def _stop(proc: subprocess.Popen) -> None:
    """Kill `proc` and, when it leads a session of its own, every process in its group."""
    try:
        if os.getpgid(proc.pid) == proc.pid:
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.communicate(timeout=5)
    except subprocess.TimeoutExpired:  # a grandchild of another session still holds the pipes
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
        proc.wait()


def hook(top: Path, name: str, args: list[str], env: dict[str, str] | None = None,
         timeout: float | None = None) -> None:
    """Run the repository's `name` hook as ``git commit`` would; raise HookRefused when it exits non-zero
    (except post-commit, whose status git ignores too), GitTimeout when it does not finish within
    `timeout` seconds (None: `HOOK_TIMEOUT`). A missing hook is no refusal."""
    timeout = HOOK_TIMEOUT if timeout is None else timeout
    try:
        proc = run(top, ["hook", "run", "--ignore-missing", name, "--", *args], check=False, literal=False, env=env,
                   timeout=timeout)
    except GitTimeout:
        if name == "post-commit":  # the commit is made; git would not wait on its result either
            return
        raise GitTimeout(f"the {name} hook did not finish within {timeout:g} s ([git] hook_timeout): stopped it, "
                         "nothing committed") from None
    if proc.returncode == 0 or name == "post-commit":
        return
    said = (proc.stderr + proc.stdout).decode("utf-8", "replace").strip()
    if proc.returncode == 129 and "usage" in said and "hook" in said:  # git < 2.36 has no `git hook run`
        raise GitError(f"git {_git_version(top)} cannot run the repository's commit hooks (git 2.36 or newer "
                       "can): not committed rather than committed without them")
    tail = " ".join(said.split())
    tail = tail if len(tail) <= _HOOK_OUTPUT_CHARS else "…" + tail[-_HOOK_OUTPUT_CHARS:]
    raise HookRefused(f"the {name} hook refused the commit (exit status {proc.returncode})"
                      + (f": {tail}" if tail else "") + (NO_TERMINAL if _wanted_a_terminal(said) else ""))


#: What a refusal adds when the hook tried to open the terminal: hooks run without one (see the module docstring).
NO_TERMINAL = (" (tachikoma runs commit hooks without a terminal, so a hook cannot ask a question there: let the "
               "hook go on without asking when /dev/tty cannot be opened, or commit the tagged files yourself "
               "with `git commit`)")


def _wanted_a_terminal(said: str) -> bool:
    """Whether a hook's output says it failed to open the terminal (ENXIO: no controlling terminal)."""
    return "/dev/tty" in said or "No such device or address" in said


def _git_version(top: Path) -> str:
    return run(top, ["version"], check=False, literal=False).stdout.decode("utf-8", "replace").strip()


def hooked_message(top: Path, folder: str, message: str, env: dict[str, str], timeout: float | None = None) -> str:
    """Run pre-commit, prepare-commit-msg and commit-msg (in `git commit`'s order) with the private
    index `env` names, each stopped after `timeout` seconds (see `hook`); return the message as the hooks
    left it."""
    hook(top, "pre-commit", [], env, timeout)
    path = os.path.join(folder, "COMMIT_EDITMSG")
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write(message)
    hook(top, "prepare-commit-msg", [path, "message"], env, timeout)
    hook(top, "commit-msg", [path], env, timeout)
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as handle:
        edited = handle.read()
    if not edited.strip():
        raise HookRefused("a commit hook emptied the commit message: not committed")
    return edited
