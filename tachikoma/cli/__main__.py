"""`python -m tachikoma.cli`: the same command line as `python -m tachikoma` (it ran before the command
line became a package, and still does)."""

import sys

from .dispatch import main

sys.exit(main())
