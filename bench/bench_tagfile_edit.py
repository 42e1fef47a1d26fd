"""Benchmark: the tag file edited in place (`tagfile.render` with the file's text) against written whole.

    python bench/bench_tagfile_edit.py

Two large files, as the session 46 fuzzing found them slow (10 s and 8 s before its fixes):

- 10,000 entries, each with a comment, every one given a new tag;
- 2,000 new entries placed under a header of 10,000 comment lines.

Each case prints the in-place edit's best time of three beside the whole rewrite of the same entries
(`render` without the text: no comments kept), measured in the same run.
"""

from __future__ import annotations

import time

from tachikoma.reading import tagfile


def best(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


def cases():
    paths = [f"2026-{i % 12 + 1:02d}/session-{i:05d}.jsonl" for i in range(10_000)]
    text = "# mine\n" + "".join(f"# about {p}\n{p}:\n  trust: self  # c{i}\n" for i, p in enumerate(paths))
    yield "10,000 entries, a tag added to each", text, {p: {"trust": "self", "source": "web"} for p in paths}
    text = "# a comment line\n" * 10_000 + "b.jsonl:\n  trust: self\n"
    yield ("2,000 new entries under 10,000 comment lines", text,
           {"b.jsonl": {"trust": "self"}, **{f"a{i:05d}.jsonl": {"trust": "self"} for i in range(2_000)}})


def main() -> None:
    print("case | in place (s) | written whole (s) | ratio")
    for name, text, entries in cases():
        in_place = best(lambda: tagfile.render(entries, text))
        whole = best(lambda: tagfile.render(entries))
        assert not tagfile.render(entries, text).startswith(tagfile.HEADER), "fell back to the whole rewrite"
        print(f"{name} | {in_place:.2f} | {whole:.2f} | {in_place / whole:.1f}×")


if __name__ == "__main__":
    main()
