"""The `tachikoma` command line: `dispatch` parses (`parser`) and runs one command, whose module
(`searching`, `indexing`, `tagging`, `serving`, `evaluating`) it imports only then. `main` is here
for the console script (`tachikoma.cli:main`) and `python -m tachikoma`."""

from .dispatch import main

__all__ = ["main"]
