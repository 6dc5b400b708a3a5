"""``python -m nardy_fast``: the command line, :mod:`nardy_fast.cli` (the same program as ``nardy-fast``)."""

import sys

from .cli import PROG, main

__all__ = ["PROG", "main"]

if __name__ == "__main__":
    sys.exit(main())
