"""The README is a front door and docs/ the reference: links that reach, a map that is whole.

Every relative link in README.md and docs/*.md must name a file that exists and, when it has
a `#fragment`, a heading of that file (GitHub's anchors: lower case, punctuation dropped,
spaces as hyphens, a repeated heading numbered -1, -2). The README stays under 320 lines, keeps
the "## Quick start" block with the two commands `.ci/run` reads, and the module map in
docs/architecture.md names every module of tachikoma/ and tachikoma_dashboard/.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [README, *DOCS]

#: [text](target) and ![alt](target), not inside code; the target up to a space or ")".
LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def prose_lines(text: str):
    """(line number, line) of the lines outside fenced code blocks."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        if match := FENCE.match(line):
            if fence is None:
                fence = match.group(1)
            elif match.group(1) == fence:
                fence = None
            continue
        if fence is None:
            yield number, line


def anchors(path: Path) -> set[str]:
    """The anchors GitHub gives the headings of a markdown file."""
    seen: dict[str, int] = {}
    found = set()
    for _, line in prose_lines(path.read_text(encoding="utf-8")):
        heading = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not heading:
            continue
        text = re.sub(r"`|\*\*|\*|_(?=\W)|(?<=\W)_", "", heading.group(1))  # inline markup
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link's text
        slug = re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        found.add(slug if n == 0 else f"{slug}-{n}")
    return found


def links(path: Path):
    """(line number, target) of every relative link in `path`, code spans left out."""
    for number, line in prose_lines(path.read_text(encoding="utf-8")):
        for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
            if not re.match(r"[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):  # http:, https:, mailto: are not ours
                yield number, target


def test_there_are_links_to_check():
    """The check below cannot pass by finding nothing: the README links to every docs page."""
    targets = {target.split("#")[0] for _, target in links(README)}
    assert {f"docs/{page.name}" for page in DOCS} <= targets


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_reaches_a_file_and_heading(page: Path):
    broken = []
    for number, target in links(page):
        file_part, _, fragment = target.partition("#")
        file = (page.parent / file_part).resolve() if file_part else page
        where = f"{page.relative_to(ROOT)}:{number}: {target}"
        if not file.exists():
            broken.append(f"{where}: no such file")
        elif fragment and file.suffix == ".md" and fragment not in anchors(file):
            broken.append(f"{where}: no heading with that anchor in {file.name}")
    assert not broken, "\n".join(broken)


def test_the_anchor_rule_is_githubs():
    page = ROOT / "docs" / "evaluation.md"
    assert "longmemeval-and-time-in-the-question-issue-17" in anchors(page)
    assert "abstention-the-relevance-floor" in anchors(page)
    assert "postgresql--pgvector" in anchors(ROOT / "docs" / "scaling.md")


def test_the_readme_is_a_front_door():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) < 320, f"README.md has {len(lines)} lines: move reference material to docs/"


def test_the_quick_start_holds_the_two_commands_ci_runs():
    """What `.ci/run`'s awk reads: the first ```sh block under "## Quick start", comments dropped."""
    text = README.read_text(encoding="utf-8")
    section = re.search(r"^## Quick start\n(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL)
    assert section, "README.md has no '## Quick start' section"
    block = re.search(r"^```sh\n(.*?)^```", section.group(1), re.MULTILINE | re.DOTALL)
    assert block, "the Quick start section has no ```sh block"
    commands = [re.sub(r"[ \t]*#.*", "", line).strip() for line in block.group(1).splitlines()]
    assert [c for c in commands if c] == ["make demo", "make test"]


def test_the_module_map_names_every_module():
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = re.search(r"^## Module map\n+```\n(.*?)^```", text, re.MULTILINE | re.DOTALL)
    assert section, "docs/architecture.md has no module map"
    the_map = section.group(1)
    missing = []
    for entry in sorted(entry for package in ("tachikoma", "tachikoma_dashboard") for entry in (ROOT / package).iterdir()):
        if entry.name.startswith(("_", ".")) and entry.name != "__main__.py":
            continue
        if entry.is_dir() and (entry / "__init__.py").exists():
            if not re.search(rf"^\s*{entry.name}/", the_map, re.MULTILINE):
                missing.append(f"{entry.name}/")
            missing += [f"{entry.name}/{module.name}" for module in sorted(entry.glob("*.py"))
                        if module.name != "__init__.py" and not re.search(rf"\b{module.stem}\b", the_map)]
        elif entry.suffix == ".py" and not re.search(rf"^\s*{re.escape(entry.name)}\s", the_map, re.MULTILINE):
            missing.append(entry.name)
    assert not missing, f"docs/architecture.md's module map leaves out: {', '.join(missing)}"
