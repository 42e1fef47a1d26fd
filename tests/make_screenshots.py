"""Write screenshots of the dashboard to docs/screenshots/ (desktop and phone width).

    python tests/make_screenshots.py [--embedder minilm|hash] [--out docs/screenshots]

Serves a temporary copy of the example memory (indexed with the offline
MiniLM model by default, so the results are the real ones) and photographs
the search page with an explanation open, the coverage page and a bulk
tagging preview, in headless Debian Chromium. Not collected by pytest.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

from tachikoma_dashboard.app import create_app  # noqa: E402 (imported after sys.path points at this checkout)
from web_helpers import CHROMIUM, LiveServer, build_index, copy_memory, launch_chromium  # noqa: E402 (imported after sys.path points at this checkout)

QUERY = "/?q=when+does+Martin+like+meetings"
TAG_PREVIEW = "/tag?preview=1&defaults=1"  # the "Use the defaults" link
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument("--out", type=Path, default=HERE.parent / "docs" / "screenshots")
    args = parser.parse_args(argv)
    if not CHROMIUM.exists():
        print(f"needs Chromium at {CHROMIUM}: apt-get install -y chromium", file=sys.stderr)
        return 1
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        root = copy_memory(Path(tmp) / "memory")
        build_index(root, args.embedder)
        app = create_app(memory=root)
        with LiveServer(app) as live, sync_playwright() as p:
            browser = launch_chromium(p)
            urllib.request.urlopen(live.url + "/api/search?q=warm+up").read()  # load the model first
            shots = [
                ("search", QUERY, open_first_explanation),
                ("coverage", "/coverage", None),
                ("tagging", TAG_PREVIEW, None),
                ("file", "/file/martin.md?lines=12-16#hit", None),
            ]
            for scheme in ("light", "dark"):
                for name, url, action in shots:
                    if scheme == "dark" and name not in ("search", "coverage"):
                        continue
                    for label, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
                        if scheme == "dark" and label == "phone":
                            continue
                        context = browser.new_context(viewport=viewport, color_scheme=scheme,
                                                      device_scale_factor=2 if label == "phone" else 1)
                        page = context.new_page()
                        page.goto(live.url + url)
                        if action:
                            action(page)
                        page.evaluate("window.scrollTo(0, 0)")
                        suffix = f"-{scheme}" if scheme == "dark" else ""
                        target = args.out / f"{name}-{label}{suffix}.png"
                        height = page.evaluate("document.documentElement.scrollHeight")
                        limit = (1500 if label == "desktop" else 1700) if name == "search" else 2600
                        clip = {"x": 0, "y": 0, "width": viewport["width"], "height": min(height, limit)}
                        page.screenshot(path=str(target), full_page=True, clip=clip)
                        print(target)
                        context.close()
            browser.close()
    return 0


def open_first_explanation(page) -> None:
    page.locator("li.result details.why summary").first.click()
    page.locator("li.result table.factors").first.wait_for()


if __name__ == "__main__":
    sys.exit(main())
