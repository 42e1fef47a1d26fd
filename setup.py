"""Packaging that pyproject.toml cannot say on its own.

The dashboard's `templates/` and `static/` stay at the top of the repository
beside `app.py` (the layout the project is designed around). A wheel ships
copies of them inside `tachikoma_dashboard/`, where the installed
`tachikoma_dashboard.app` finds them; in a checkout (or an editable install)
it uses the folders at the top. MANIFEST.in puts them in the sdist.

The long description (PyPI's project page) is README.md with its links into
the repository (docs/*.md, the screenshot) made plain text: relative to PyPI's
page they would lead nowhere, and the project names no public address to make
them absolute against.
"""

import re
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ASSETS = ("templates", "static")


class BuildWithAssets(build_py):
    """build_py that also copies templates/ and static/ into tachikoma_dashboard/ in the build."""

    def run(self):
        super().run()
        if self.editable_mode:  # an editable install reads them from the checkout
            return
        for folder in ASSETS:
            self.copy_tree(folder, str(Path(self.build_lib, "tachikoma_dashboard", folder)))


#: A markdown link or image: (!, text, target).
LINK = re.compile(r"(!?)\[([^\]]*)\]\(([^)\s]+)\)")


def pypi_readme(text: str) -> str:
    """`text` (markdown) with every link that is not a web address replaced by its text, as code when the
    text is the path itself (`docs/ranking.md`), and every such image left out."""
    def plain(match: re.Match) -> str:
        image, label, target = match.groups()
        if target.startswith(("https://", "http://", "mailto:")):
            return match.group(0)
        if image:
            return ""
        return f"`{label}`" if label == target.partition("#")[0] else label
    return LINK.sub(plain, text)


setup(cmdclass={"build_py": BuildWithAssets},
      long_description=pypi_readme(Path(__file__).with_name("README.md").read_text(encoding="utf-8")),
      long_description_content_type="text/markdown")
