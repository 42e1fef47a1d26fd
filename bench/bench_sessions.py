"""Benchmark: indexing a folder of real-shaped agent sessions (Claude Code, OpenClaw, Codex).

    python bench/bench_sessions.py --mb 20 --embedder minilm
    python bench/bench_sessions.py --mb 5 --embedder minilm@numpy,minilm,minilm-int8

Writes a synthetic corpus shaped like real session folders: long Claude Code
sessions (thinking, tool calls with large tool results, file-history
snapshots, slash commands, system reminders, a compaction, subagent files),
OpenClaw sessions (toolCall/toolResult, model changes, custom entries) and
Codex rollouts (response items and the event messages that repeat them,
reasoning, function-call outputs). Most of the bytes are tool output, as in
real sessions. Then it reports:

* reading: MB/s of JSONL parsed and chunked (the transcript readers alone);
* indexing: the whole `tachikoma index` run, MB/s of JSONL and chunks/s
  embedded with the chosen embedder; with several (comma-separated, the
  first is the reference; ``minilm@numpy`` / ``minilm@onnx`` pick the exact
  MiniLM's runtime), the same corpus is indexed afresh by each in turn and
  the times are printed side by side, with the load average;
* what share of the raw bytes reaches the embedder (chunk text / file bytes);
* appending: new turns appended to some sessions, re-indexed: how many
  chunks are embedded again compared with the chunks those sessions hold;
* with ``--tool-text``: the cost of keeping tool calls' inputs and outputs
  for keyword search (``[transcripts] tool_text``): the corpus indexed afresh
  with it off and on, side by side (time, index size, tool text rows), and
  warm search times over both indexes.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import tempfile
import time
import tracemalloc
from pathlib import Path

from tachikoma.indexer import runner
from tachikoma.chunking import chunk_document
from tachikoma.memory import walk
from tachikoma.reading.reader import read_document

TOPICS = ("the rate limiter", "invoice rounding", "the search ranking", "the heat map legend", "backup rotation",
          "the login redirect", "flaky CI on arm64", "the thermostat order", "timezone handling in reports",
          "the migration to Postgres 16", "duplicate webhook deliveries", "the onboarding email")
VERBS = ("fix", "explain", "refactor", "test", "document", "profile", "review", "simplify")
FILES = ("src/app.py", "src/search.py", "src/money.py", "tests/test_api.py", "docs/setup.md", "web/main.ts",
         "migrations/0042_users.sql", "README.md", "config/settings.toml", "scripts/deploy.sh")
COMMANDS = ("pytest -q", "git status", "npm run build", "ruff check .", "git diff --stat", "make test",
            "python -m mypy src", "docker compose up -d db", "git log --oneline -5", "rg -n TODO src")
FILLER = ("the", "a", "function", "value", "returns", "when", "because", "request", "user", "cache", "index",
          "error", "config", "so", "then", "we", "should", "check", "page", "result", "date", "time", "file")


def sentence(rng: random.Random, n: int) -> str:
    words = [rng.choice(FILLER) for _ in range(n)]
    words[rng.randrange(n)] = rng.choice(TOPICS)
    return " ".join(words).capitalize() + "."


def prose(rng: random.Random, sentences: int) -> str:
    return " ".join(sentence(rng, rng.randint(8, 20)) for _ in range(sentences))


def code_output(rng: random.Random, lines: int) -> str:
    return "\n".join(f"{rng.choice(FILES)}:{rng.randint(1, 900)}:    {rng.choice(FILLER)} = "
                     f"{rng.choice(FILLER)}({rng.randint(0, 99)})  # {rng.choice(FILLER)}" for _ in range(lines))


def stamp(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t * 1000) % 1000:03d}Z"


# ---------------------------------------------------------------- Claude Code

def claude_session(rng: random.Random, sid: str, cwd: str, start: float, exchanges: int) -> tuple[list, list]:
    """Lines of one session and of one subagent file."""
    base = {"sessionId": sid, "cwd": cwd, "gitBranch": rng.choice(["main", "fix-search", "dev"]),
            "version": "2.0.31", "userType": "external", "isSidechain": False}
    lines: list = [{"type": "summary", "summary": f"{rng.choice(VERBS).capitalize()} {rng.choice(TOPICS)}",
                    "leafUuid": "x"}]
    t, n = start, 0
    parent = None

    def rec(kind, message, **extra):
        nonlocal t, n, parent
        t += rng.uniform(1, 40)
        n += 1
        row = {"parentUuid": parent, **base, "type": kind, "message": message, "uuid": f"{sid}-{n}",
               "timestamp": stamp(t), **extra}
        parent = row["uuid"]
        return row

    lines.append(rec("user", {"role": "user", "content": "<command-name>/init</command-name>\n"
                                                         "<command-message>init</command-message>"}))
    for i in range(exchanges):
        lines.append({"type": "file-history-snapshot", "messageId": f"m{i}", "isSnapshotUpdate": False,
                      "snapshot": {"trackedFileBackups": {f: {"backupFileName": f"{f}@v{i}", "version": i}
                                                          for f in rng.sample(FILES, 3)}}})
        ask = f"Please {rng.choice(VERBS)} {rng.choice(TOPICS)}. {prose(rng, rng.randint(1, 3))}"
        if rng.random() < 0.3:
            ask += "\n<system-reminder>" + prose(rng, 4) + "</system-reminder>"
        lines.append(rec("user", {"role": "user", "content": ask}))
        mid = f"msg_{sid[:6]}_{i}"
        model = "claude-sonnet-4-5-20250929"
        lines.append(rec("assistant", {"id": mid, "role": "assistant", "model": model, "content": [
            {"type": "thinking", "thinking": prose(rng, rng.randint(3, 10)), "signature": "c2ln" * 40}]}))
        lines.append(rec("assistant", {"id": mid, "role": "assistant", "model": model, "content": [
            {"type": "text", "text": prose(rng, rng.randint(1, 3))}]}))
        for k in range(rng.randint(1, 6)):
            tool = rng.choice(["Read", "Edit", "Bash", "Grep"])
            args = ({"file_path": f"{cwd}/{rng.choice(FILES)}"} if tool in ("Read", "Edit") else
                    {"command": rng.choice(COMMANDS)} if tool == "Bash" else {"pattern": rng.choice(FILLER)})
            if tool == "Edit":
                args.update(old_string=code_output(rng, 3), new_string=code_output(rng, 4))
            tid = f"toolu_{i}_{k}"
            lines.append(rec("assistant", {"id": mid, "role": "assistant", "model": model, "content": [
                {"type": "tool_use", "id": tid, "name": tool, "input": args}]}))
            failed = rng.random() < 0.1
            output = code_output(rng, rng.randint(10, 120)) if tool in ("Read", "Grep") else \
                ("Error: " + prose(rng, 1) + "\n" + code_output(rng, 15) if failed else code_output(rng, 8))
            lines.append(rec("user", {"role": "user", "content": [
                {"tool_use_id": tid, "type": "tool_result", "content": output, "is_error": failed}]},
                toolUseResult={"stdout": output, "stderr": "", "interrupted": False}))
        lines.append(rec("assistant", {"id": mid + "b", "role": "assistant", "model": model, "content": [
            {"type": "text", "text": prose(rng, rng.randint(2, 6))}]}))
        if i == exchanges // 2:
            lines.append({"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted",
                          **base, "uuid": f"{sid}-c", "timestamp": stamp(t), "level": "info"})
            lines.append(rec("user", {"role": "user", "content": "This session is being continued from a previous "
                                                                 "conversation. " + prose(rng, 40)},
                             isCompactSummary=True, isVisibleInTranscriptOnly=True))
    agent = f"a{sid[:6]}"
    sub_base = {**base, "isSidechain": True, "agentId": agent}
    sub = [{"parentUuid": None, **sub_base, "type": "user", "uuid": f"{agent}-1", "timestamp": stamp(start + 60),
            "message": {"role": "user", "content": f"Find where {rng.choice(TOPICS)} is handled."}}]
    for j in range(rng.randint(3, 10)):
        sub.append({"parentUuid": None, **sub_base, "type": "assistant", "uuid": f"{agent}-a{j}",
                    "timestamp": stamp(start + 61 + j), "message": {
                        "id": f"msg_{agent}_{j}", "role": "assistant", "model": "claude-haiku-4-5-20251001",
                        "content": [{"type": "text", "text": prose(rng, 1)},
                                    {"type": "tool_use", "id": f"s{j}", "name": "Grep",
                                     "input": {"pattern": rng.choice(FILLER)}}]}})
        sub.append({"parentUuid": None, **sub_base, "type": "user", "uuid": f"{agent}-r{j}",
                    "timestamp": stamp(start + 62 + j), "message": {"role": "user", "content": [
                        {"tool_use_id": f"s{j}", "type": "tool_result", "content": code_output(rng, 40)}]}})
    return lines, sub


# ---------------------------------------------------------------- OpenClaw and Codex

def openclaw_session(rng: random.Random, sid: str, start: float, exchanges: int) -> list:
    t = start
    out: list = [{"type": "session", "version": 3, "id": sid, "timestamp": stamp(t), "cwd": "/home/u/.openclaw/workspace"},
                 {"type": "model_change", "id": "e0", "parentId": None, "timestamp": stamp(t), "provider": "anthropic",
                  "modelId": "claude-sonnet-4-5"}]
    for i in range(exchanges):
        t += rng.uniform(30, 600)
        out.append({"type": "message", "id": f"u{i}", "parentId": None, "timestamp": stamp(t), "message": {
            "role": "user", "content": [{"type": "text", "text": prose(rng, rng.randint(1, 3))}]}})
        calls = [{"type": "toolCall", "id": f"c{i}_{k}", "name": rng.choice(["read", "exec", "memory_search"]),
                  "arguments": {"path": f"memory/2026-01-{k + 10}.md", "command": rng.choice(COMMANDS)}}
                 for k in range(rng.randint(0, 3))]
        out.append({"type": "message", "id": f"a{i}", "parentId": f"u{i}", "timestamp": stamp(t + 5), "message": {
            "role": "assistant", "model": "claude-sonnet-4-5", "content": [
                {"type": "thinking", "thinking": prose(rng, 4)}, {"type": "text", "text": prose(rng, 2)}, *calls]}})
        for call in calls:
            out.append({"type": "message", "id": f"r{call['id']}", "parentId": f"a{i}", "timestamp": stamp(t + 6),
                        "message": {"role": "toolResult", "toolCallId": call["id"], "toolName": call["name"],
                                    "content": [{"type": "text", "text": code_output(rng, 60)}], "isError": False}})
        out.append({"type": "custom", "customType": "cache-ttl", "data": {"ttl": 300}, "id": f"x{i}",
                    "timestamp": stamp(t + 7)})
    return out


def codex_rollout(rng: random.Random, sid: str, start: float, exchanges: int) -> list:
    t = start

    def row(kind, payload):
        nonlocal t
        t += rng.uniform(0.5, 20)
        return {"timestamp": stamp(t), "type": kind, "payload": payload}

    out = [row("session_meta", {"id": sid, "timestamp": stamp(t), "cwd": "/home/u/code/ledger", "originator": "codex_cli_rs",
                                "cli_version": "0.63.0", "git": {"branch": "main"}}),
           row("response_item", {"type": "message", "role": "user", "content": [
               {"type": "input_text", "text": "<environment_context>\n<cwd>/home/u/code/ledger</cwd>\n"
                                              "</environment_context>"}]})]
    for i in range(exchanges):
        ask = prose(rng, rng.randint(1, 3))
        out.append(row("response_item", {"type": "message", "role": "user",
                                         "content": [{"type": "input_text", "text": ask}]}))
        out.append(row("event_msg", {"type": "user_message", "message": ask, "kind": "plain"}))
        out.append(row("turn_context", {"cwd": "/home/u/code/ledger", "model": "gpt-5.1-codex", "effort": "medium"}))
        for k in range(rng.randint(1, 5)):
            out.append(row("response_item", {"type": "reasoning", "summary": [{"type": "summary_text",
                                                                                "text": prose(rng, 2)}],
                                             "encrypted_content": "gAAAA" + "x" * 800}))
            command = rng.choice(COMMANDS)
            out.append(row("response_item", {"type": "function_call", "name": "shell", "call_id": f"c{i}_{k}",
                                             "arguments": json.dumps({"command": ["bash", "-lc", command]})}))
            out.append(row("response_item", {"type": "function_call_output", "call_id": f"c{i}_{k}", "output":
                                             json.dumps({"output": code_output(rng, 80),
                                                         "metadata": {"exit_code": int(rng.random() < 0.1)}})}))
        answer = prose(rng, rng.randint(2, 5))
        out.append(row("response_item", {"type": "message", "role": "assistant",
                                         "content": [{"type": "output_text", "text": answer}]}))
        out.append(row("event_msg", {"type": "agent_message", "message": answer}))
        out.append(row("event_msg", {"type": "token_count", "info": {"total_token_usage": {"input_tokens": 1000}}}))
    return out


def write(path: Path, rows: list) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    path.write_text(data, encoding="utf-8")
    return len(data.encode("utf-8"))


def build_corpus(root: Path, megabytes: float, seed: int = 0) -> dict[str, int]:
    """Sessions of each format until `megabytes` are written; bytes per format."""
    rng = random.Random(seed)
    written = {"claude-code": 0, "openclaw": 0, "codex": 0}
    start = 1_767_000_000.0
    i = 0
    while sum(written.values()) < megabytes * 1e6:
        sid = f"{rng.getrandbits(32):08x}-{rng.getrandbits(16):04x}-4{rng.getrandbits(12):03x}-8{rng.getrandbits(12):03x}-" \
              f"{rng.getrandbits(48):012x}"
        start += rng.uniform(3600, 86400)
        kind = ("claude-code", "claude-code", "openclaw", "codex")[i % 4]
        if kind == "claude-code":
            project = f"-home-u-code-{rng.choice(['shop', 'ledger', 'tachikoma'])}"
            lines, sub = claude_session(rng, sid, "/home/u/code/" + project.rsplit("-", 1)[1], start,
                                        rng.randint(8, 40))
            written[kind] += write(root / "claude" / project / f"{sid}.jsonl", lines)
            written[kind] += write(root / "claude" / project / sid / "subagents" / f"agent-a{sid[:6]}.jsonl", sub)
        elif kind == "openclaw":
            written[kind] += write(root / "openclaw" / "agents" / "main" / "sessions" / f"{sid}.jsonl",
                                   openclaw_session(rng, sid, start, rng.randint(10, 80)))
        else:
            day = time.strftime("%Y/%m/%d", time.gmtime(start))
            written[kind] += write(root / "codex" / "sessions" / day / f"rollout-{sid}.jsonl",
                                   codex_rollout(rng, sid, start, rng.randint(5, 40)))
        i += 1
    return written


def measure_reading(root: Path, max_words: int) -> dict[str, dict]:
    """Per format: files, MB, turns, chunks, tool lines, chunk bytes, seconds to read and chunk."""
    out: dict[str, dict] = {}
    for f in walk(root):
        kind = f.path.split("/")[0]
        started = time.perf_counter()
        doc = read_document(root, f.path, f.kind, max_bytes=10**9)
        chunks = chunk_document(doc, max_words)
        seconds = time.perf_counter() - started
        row = out.setdefault(kind, {"files": 0, "bytes": 0, "turns": 0, "chunks": 0, "tool_lines": 0,
                                    "embedded_bytes": 0, "seconds": 0.0, "problems": 0})
        row["files"] += 1
        row["bytes"] += f.size
        row["turns"] += len(doc.turns)
        row["chunks"] += len(chunks)
        row["tool_lines"] += sum(len(t.actions) for t in doc.turns)
        row["embedded_bytes"] += sum(len(c.text.encode("utf-8")) for c in chunks)
        row["seconds"] += seconds
        row["problems"] += len(doc.warnings)
    return out


def append_turns(root: Path, sessions: list[Path], turns: int, rng: random.Random) -> None:
    for path in sessions:
        first = json.loads(path.read_text(encoding="utf-8").split("\n", 2)[1])
        with open(path, "a", encoding="utf-8") as handle:
            for k in range(turns):
                for kind in ("user", "assistant"):
                    message = {"role": kind, "content": prose(rng, 2)} if kind == "user" else \
                        {"id": f"msg_new_{k}", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
                         "content": [{"type": "text", "text": prose(rng, 3)}]}
                    handle.write(json.dumps({"type": kind, "sessionId": first.get("sessionId"), "cwd": first.get("cwd"),
                                             "timestamp": "2026-06-01T10:00:00.000Z", "message": message}) + "\n")


def make_embedder(name: str):
    """An embedder by name; ``minilm@numpy`` and ``minilm@onnx`` choose the exact MiniLM's runtime."""
    if name.startswith("minilm@"):
        from tachikoma.embedders.minilm import MiniLMEmbedder

        return MiniLMEmbedder(runtime=name.split("@", 1)[1])
    from tachikoma.embedders import choose

    return choose(name, None)


def load_average() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=20.0, help="size of the synthetic corpus in MB (default 20)")
    parser.add_argument("--embedder", default="minilm",
                        help="embedder(s) for the index run, comma-separated, the first the reference (minilm, "
                             "minilm@numpy, minilm-int8, hash, ...)")
    parser.add_argument("--append-sessions", type=int, default=10, help="sessions to append turns to")
    parser.add_argument("--append-turns", type=int, default=5, help="user+assistant exchanges appended to each")
    parser.add_argument("--keep", metavar="DIR", help="build the corpus in DIR and keep it")
    parser.add_argument("--tool-text", action="store_true",
                        help="only compare indexing and search with [transcripts] tool_text off and on")
    args = parser.parse_args()

    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="tachikoma-sessions-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        written = build_corpus(work, args.mb)
        total = sum(written.values())
        parts = ", ".join(f"{k} {v / 1e6:.1f} MB" for k, v in written.items())
        print(f"corpus: {total / 1e6:.1f} MB in {len(walk(work))} files ({parts})")

        embedders = [make_embedder(name.strip()) for name in args.embedder.split(",") if name.strip()]
        embedder = embedders[0]
        if args.tool_text:
            compare_tool_text(work, embedder, total)
            return
        reading = measure_reading(work, embedder.max_words)
        biggest = max(walk(work), key=lambda f: f.size)
        tracemalloc.start()
        chunk_document(read_document(work, biggest.path, biggest.kind, max_bytes=10**9), embedder.max_words)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"\nreading (parse + chunk, {embedder.max_words}-word windows); the largest file, "
              f"{biggest.size / 1e6:.1f} MB, peaks at {peak / 1e6:.0f} MB of Python memory:")
        print(f"{'format':<12} {'files':>6} {'MB':>7} {'MB/s':>7} {'turns':>7} {'tool lines':>10} {'chunks':>7} "
              f"{'to embedder':>11}")
        total_row = {key: sum(r[key] for r in reading.values()) for key in next(iter(reading.values()))}
        for kind, r in [*sorted(reading.items()), ("all", total_row)]:
            print(f"{kind:<12} {r['files']:>6} {r['bytes'] / 1e6:>7.1f} {r['bytes'] / 1e6 / r['seconds']:>7.1f} "
                  f"{r['turns']:>7} {r['tool_lines']:>10} {r['chunks']:>7} {100 * r['embedded_bytes'] / r['bytes']:>10.1f}%")
        all_bytes = total_row["bytes"]

        (work / "tachikoma.toml").write_text("[index]\nmax_file_bytes = 1000000000\n")
        times = {}
        print(f"\nindexing the whole corpus afresh (load average before: {load_average()}):")
        for other in reversed(embedders):  # the reference last, so its index is the one kept
            shutil.rmtree(work / ".cache", ignore_errors=True)
            load = getattr(other, "load", None)
            if load:
                load()  # model loading (and a first graph build) is not indexing
            started, cpu = time.perf_counter(), time.process_time()
            summary = runner.run(work, embedder=other)
            elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
            runtime = getattr(other, "runtime", None)
            print(f"  {other.name}{f' ({runtime})' if runtime else ''}: {elapsed:.1f} s ({cpu:.1f} s of CPU), "
                  f"{all_bytes / 1e6 / elapsed:.2f} MB/s of JSONL, {summary.chunks_embedded} chunks embedded "
                  f"({summary.chunks_embedded / elapsed:.1f} chunks/s), {summary.chunks_reused} reused; "
                  f"load average {load_average()}")
            times[other] = elapsed
        if len(embedders) > 1:
            reference = times[embedder]
            print("  speed vs " + embedder.name + ": " + ", ".join(
                f"{e.name}{'@' + e.runtime if getattr(e, 'runtime', None) else ''} {reference / t:.2f}x"
                for e, t in times.items()))

        rng = random.Random(1)
        claude = sorted(p for p in (work / "claude").rglob("*.jsonl") if "subagents" not in p.parts)
        chosen = claude[:args.append_sessions]
        held = sum(len(chunk_document(read_document(work, p.relative_to(work).as_posix(), "transcript",
                                                    max_bytes=10**9), embedder.max_words)) for p in chosen)
        append_turns(work, chosen, args.append_turns, rng)
        started = time.perf_counter()
        again = runner.run(work, embedder=embedder)
        elapsed = time.perf_counter() - started
        print(f"append: {args.append_turns} exchanges appended to {len(chosen)} sessions holding {held} chunks: "
              f"{again.changed} files re-read, {again.chunks_embedded} chunks embedded, {again.chunks_reused} reused, "
              f"{elapsed:.1f} s")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


#: Queries timed over both indexes by `compare_tool_text`: topics, file names, words of tool output.
TOOL_TEXT_QUERIES = ("the rate limiter", "flaky CI on arm64", "migrations 0042_users", "deploy.sh cache error",
                     "what did we decide about invoice rounding", "returns page result", "settings.toml config")


def index_bytes(root: Path) -> int:
    """The index's size on disk once its write-ahead log is folded in."""
    import sqlite3

    from tachikoma.memory import index_path

    path = index_path(root)
    db = sqlite3.connect(path)
    try:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        tool = db.execute("SELECT count(*), coalesce(sum(length(words)), 0) FROM tool_texts").fetchone()
    finally:
        db.close()
    return path.stat().st_size, tool


def warm_search_ms(root: Path, embedder, rounds: int = 5) -> tuple[float, float]:
    """Median and worst warm search time (ms) over `TOOL_TEXT_QUERIES`, each asked `rounds` times."""
    import statistics

    from tachikoma.search.searcher import Searcher

    searcher = Searcher(root, embedder=embedder)
    try:
        searcher.search(TOOL_TEXT_QUERIES[0])  # load the vectors
        times = []
        for _ in range(rounds):
            for query in TOOL_TEXT_QUERIES:
                started = time.perf_counter()
                searcher.search(query, min_score=0)
                times.append((time.perf_counter() - started) * 1000)
    finally:
        searcher.close()
    return statistics.median(times), max(times)


def compare_tool_text(work: Path, embedder, total: int) -> None:
    """Index the corpus afresh with ``[transcripts] tool_text`` off, then on; print both side by side."""
    rows = {}
    print(f"\ntool texts for keyword search, off vs on ({embedder.name}; load average before: {load_average()}):")
    for setting in ("false", "true"):
        (work / "tachikoma.toml").write_text(f"[index]\nmax_file_bytes = 1000000000\n[transcripts]\n"
                                             f"tool_text = {setting}\n")
        shutil.rmtree(work / ".cache", ignore_errors=True)
        load = getattr(embedder, "load", None)
        if load:
            load()
        started, cpu = time.perf_counter(), time.process_time()
        summary = runner.run(work, embedder=embedder)
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        size, (tool_rows, tool_words) = index_bytes(work)
        p50, worst = warm_search_ms(work, embedder)
        rows[setting] = (elapsed, cpu, size, p50)
        print(f"  tool_text = {setting:<5}: index {elapsed:.1f} s ({cpu:.1f} s of CPU), {summary.chunks_embedded} chunks "
              f"embedded; index file {size / 1e6:.1f} MB ({100 * size / total:.0f}% of the {total / 1e6:.1f} MB of "
              f"JSONL), {tool_rows} tool texts holding {tool_words / 1e6:.1f} MB of distinct words; warm search "
              f"p50 {p50:.1f} ms, worst {worst:.1f} ms; load average {load_average()}")
    (off_s, off_cpu, off_size, off_p50), (on_s, on_cpu, on_size, on_p50) = rows["false"], rows["true"]
    print(f"  on / off: indexing time {on_s / off_s:.2f}x (CPU {on_cpu / off_cpu:.2f}x), index size "
          f"{on_size / off_size:.2f}x, warm search p50 {on_p50 / off_p50:.2f}x")


if __name__ == "__main__":
    main()
