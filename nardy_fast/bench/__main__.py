"""``python -m nardy_fast.bench``: the same program as ``python -m nardy_fast bench`` (its parser, its one-line
errors)."""

import sys

from ..cli import main

# the guard keeps the worker processes the bench spawns, which import this module again, from running it
if __name__ == "__main__":
    sys.exit(main(["bench", *sys.argv[1:]]))
