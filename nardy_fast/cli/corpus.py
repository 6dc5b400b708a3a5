"""``nardy-fast corpus``: rebuild the embedded benchmark corpus by seeded self-play."""

from __future__ import annotations

import argparse
from pathlib import Path

from .. import Position, corpus
from ..errors import NardyError, field_error
from ..files import write_npz
from .parser import Parser, UsageError, errors_of, integer

__all__ = ["DESCRIPTION", "add_arguments", "run"]

DESCRIPTION = (
    "Rebuild the embedded benchmark corpus by seeded self-play (the same file on every machine), write\n"
    "it over nardy_fast/data/corpus.npz and print the path written."
)

_CORPUS_SIZE = integer(1, corpus.MAX_SIZE, f"1..{corpus.MAX_SIZE:,}")


def add_arguments(parser: Parser) -> None:
    """The options of ``corpus``."""
    parser.add_argument(
        "--size",
        type=_CORPUS_SIZE,
        default=corpus.SIZE,
        metavar="N",
        help=f"positions per variant, at most {corpus.MAX_SIZE:,} (default: %(default)s)",
    )


def run(args: argparse.Namespace) -> int:
    """Run ``corpus`` with the options of :func:`add_arguments`."""
    with errors_of("--size"):
        arrays = corpus.build(Position, args.size)
    target = Path(__file__).parent.parent / "data" / "corpus.npz"
    try:
        write_npz(target, arrays, compressed=True, field="corpus")
    except OSError as error:  # the package's directory read-only, say: one line, not a traceback
        problem = f"cannot be written ({error.strerror})"
        raise UsageError(str(field_error(NardyError, "corpus", problem, str(target)))) from None
    except NardyError as error:
        raise UsageError(str(error)) from None
    print(f"wrote {target} ({args.size} positions per variant)")
    return 0
