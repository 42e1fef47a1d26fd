"""Packaging that pyproject.toml cannot say on its own.

The dashboard's `templates/` and `static/` stay at the top of the repository
beside `app.py` (the layout the project is designed around). A wheel ships
copies of them inside `tachikoma_dashboard/`, where the installed
`tachikoma_dashboard.app` finds them; in a checkout (or an editable install)
it uses the folders at the top. MANIFEST.in puts them in the sdist.
"""

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


setup(cmdclass={"build_py": BuildWithAssets})
