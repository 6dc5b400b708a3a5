"""The work whose instructions ``valgrind --tool=callgrind`` counts when two builds of the core are compared
(docs/benchmarks.md, Restructuring checks): ``batch`` (batch_children on 2,000 corpus rows each of long, short
and gulbar) or ``playout`` (200 games each of long, short, six-one and gulbar).

    PYTHONPATH=<tree> valgrind --tool=callgrind --callgrind-out-file=cg.out python tools/callgrind_paths.py batch
    callgrind_annotate --inclusive=no cg.out | grep _core.cpython    # then sum the first column
"""

from __future__ import annotations

import sys

import nardy_fast
from nardy_fast.corpus import load


def main(what: str) -> None:
    """Run one of the two paths."""
    if what == "batch":
        for variant in ("long", "short", "gulbar"):
            rows, rolls = load(variant)
            nardy_fast.batch_children(rows[:2000], rolls[:2000])
    elif what == "playout":
        for variant in ("long", "short", "sixone", "gulbar"):
            nardy_fast.playout(variant, 200, seed=3)
    else:
        raise SystemExit("usage: callgrind_paths.py batch|playout")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "")
