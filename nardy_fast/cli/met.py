"""``nardy-fast met``: print a shipped match equity table, the pre-Crawford square and the post-Crawford row."""

from __future__ import annotations

import argparse

from ..cube.met import TABLES, MatchEquityTable, match_equity_table, table_header
from ..errors import quote
from .parser import Parser, UsageError, integer

__all__ = ["DESCRIPTION", "add_arguments", "met_report", "run"]

DESCRIPTION = (
    "Print a match equity table: the chances of winning a match, in percent, from each score, written as\n"
    "the points each side still needs (away). The pre-Crawford square has a row for the side's away and a\n"
    "column for its opponent's, at the start of a game (a row or column 1 away: the Crawford game); the\n"
    "post-Crawford row has the chances of the side that many away against a 1-away leader after the\n"
    "Crawford game. TABLE is a variant's name (long, sixone, short, gulbar, crazy: the table computed\n"
    "from the mars and koks rates of the variant's shipped network playing itself, by tools/make_met.py)\n"
    "or kazaross-xg2 (the published table of backgammon, which short nardy's matches read; the other\n"
    "variants' matches read their own). The file's header, printed first, names how the table was made; docs/rules.md\n"
    "(Match play) describes the tables."
)

#: How many scores the table shows unless --size says.
DEFAULT_SIZE = 15


def add_arguments(parser: Parser) -> None:
    """The options of ``met``."""
    parser.add_argument("table", metavar="TABLE", help=f"the table: one of {', '.join(TABLES)}")
    parser.add_argument(
        "--size",
        type=integer(1, 64),
        default=DEFAULT_SIZE,
        metavar="N",
        help="show the scores 1 to N away (default: %(default)s, at most the table's size)",
    )


def _row(label: str, values: list[float]) -> str:
    return f"{label:>5} " + "".join(f"{100 * value:>6.1f}" for value in values)


def met_report(table: MatchEquityTable, size: int) -> list[str]:
    """The lines of ``table`` shown from 1 to ``size`` away: the pre-Crawford square, then the post-Crawford row."""
    aways = range(1, size + 1)
    heading = _row("away", []) + "".join(f"{away:>6}" for away in aways)
    lines = ["pre-Crawford (row: the side's away; column: its opponent's)", heading]
    for away in aways:
        lines.append(_row(str(away), [float(table.pre[away - 1, other - 1]) for other in aways]))
    lines += ["", "post-Crawford (the side's away, against a 1-away leader)", heading]
    lines.append(_row("", [table.post_crawford(away) for away in aways]))
    return lines


def run(args: argparse.Namespace) -> int:
    """Run ``met`` with the options of :func:`add_arguments`."""
    name = args.table.strip().lower()
    if name not in TABLES:
        raise UsageError(f"TABLE: must be one of {', '.join(TABLES)} (got {quote(args.table)})")
    table = match_equity_table(name)
    if args.size > table.size:
        raise UsageError(f"--size: must be at most {table.size}, the size of table {name} (got {args.size})")
    print(f"match equity table {name}: matches up to {table.size} points, shown up to {args.size} away")
    print("\n".join(f"  {line}" for line in table_header(name)))
    print()
    print("\n".join(met_report(table, args.size)))
    return 0
