"""Where an evaluation's report goes: one writer for every benchmark that answers question by question."""

from __future__ import annotations

import json
from pathlib import Path


def write_files(report: dict, out: Path, markdown: str) -> list[Path]:
    """report.md (`markdown`), report.json (the report without its per-question rows) and
    per_question.jsonl (one row a line) in `out`, made if missing."""
    out.mkdir(parents=True, exist_ok=True)
    md, js, pq = out / "report.md", out / "report.json", out / "per_question.jsonl"
    md.write_text(markdown, encoding="utf-8")
    js.write_text(json.dumps({k: v for k, v in report.items() if k != "per_question"}, indent=2,
                             ensure_ascii=False) + "\n", encoding="utf-8")
    with open(pq, "w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in report["per_question"])
    return [md, js, pq]
