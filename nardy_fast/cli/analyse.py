"""``nardy-fast analyse``: the analysis of a match file (docs/rules.md, Game analysis)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from html import escape
from pathlib import Path

from .. import Position, analyse, read_match
from ..errors import NardyError
from ..evaluation.constants import ANALYSIS_FILTER
from ..evaluation.search import MAX_PLIES
from ..files import write_bytes
from ..gameanalysis import Analysis, Decision, rating_of
from .parser import Parser, UsageError, integer, one_line
from .progress import Progress, progress_option, progress_stream

__all__ = ["DESCRIPTION", "add_arguments", "report", "html_report", "run"]

DESCRIPTION = (
    "Analyse a match file (Jellyfish .mat, or the package's nardy dialect of it): every checker play ranked\n"
    "by the network searched --plies deep with the game's cube and score, every cube decision (doubles,\n"
    "takes, drops, and the turns where the side to move could have doubled and did not), the luck of every\n"
    "roll. Prints per player the error rates (mEMG: equity lost x1000 per unforced decision), eXtreme\n"
    "Gammon's performance rating, GNU Backgammon's rating words, the luck and the luck-adjusted result, then\n"
    "every decision marked doubtful, bad or very bad. --json writes every decision and the summaries;\n"
    "--html a report with each marked decision's board (the move played drawn on it) and the best move."
)


def add_arguments(parser: Parser) -> None:
    """The options of ``analyse``."""
    parser.add_argument("file", metavar="FILE", help="the match file")
    parser.add_argument("--plies", type=integer(0, MAX_PLIES), default=0, help="search depth (default 0)")
    parser.add_argument("--threads", type=integer(1, 256), default=1, help="games analysed at once (default 1)")
    parser.add_argument("--all-moves", action="store_true",
                        help="deeper than 0 plies, search every move (default: the best 16 within 0.32 at 0 ply "
                             "and the move played, as GNU Backgammon's analysis)")
    parser.add_argument("--json", metavar="OUT", default=None, help="write the decisions and summaries as JSON")
    parser.add_argument("--html", metavar="OUT", default=None,
                        help="write an HTML report: the summaries, and each marked decision's board picture")
    progress_option(parser)


def _decision_line(d: Decision) -> str:
    roll = "" if d.roll is None else f"{d.roll[0]}{d.roll[1]} "
    who = d.side[0].upper()
    line = f"g{d.game} m{d.move:<3} {who} {roll}{d.played}  best {d.best}  -{d.loss:.3f} {d.mark}"
    return line if d.mwc_loss is None else f"{line} ({100 * d.mwc_loss:.2f}% mwc)"


def report(analysis: Analysis) -> str:
    """The text report: per player summary, then the marked decisions."""
    lines = [f"Analysis at {analysis.plies} plies (equity: normalised, per unit of the cube)"]
    for p in analysis.players:
        # GNU Backgammon rates checker play and cube decisions apart too ("n/a" where there were none)
        words = [rating_of(rate / 1000) if count else "n/a" for rate, count in
                 ((p.move_error_rate, p.moves), (p.cube_error_rate, p.cube_decisions))]
        lines += [
            f"{p.side} ({p.name}): error rate {p.error_rate:.1f} mEMG ({p.rating}); PR {p.performance_rating:.1f}",
            f"  moves {p.move_error_rate:.1f} mEMG over {p.moves} ({words[0]}); cube {p.cube_error_rate:.1f} mEMG "
            f"over {p.cube_decisions} ({words[1]})",
            f"  luck {p.luck:+.3f}; result {p.result:+.3f}, luck-adjusted {p.luck_adjusted_result:+.3f}",
        ]
    marked = analysis.marked
    lines.append(f"{len(marked)} marked decisions:")
    lines += [_decision_line(d) for d in marked]
    return "\n".join(lines)


def _board(d: Decision) -> str:
    """The SVG picture of the position before ``d``, the move played drawn on it (a checker play's)."""
    position = Position.from_text(d.position)
    move = None
    if d.kind == "move":
        move = next((m for m in position.legal_moves(d.roll) if (str(m) or "pass") == d.played), None)
    return position.to_svg(move=move, size=420)


def html_report(analysis: Analysis) -> str:
    """The HTML report: a table of the players' summaries, then each marked decision with its board."""
    rows = "".join(
        f"<tr><td>{escape(p.name)} ({p.side})</td><td>{p.error_rate:.1f}</td><td>{p.move_error_rate:.1f}</td>"
        f"<td>{p.cube_error_rate:.1f}</td><td>{p.performance_rating:.1f}</td><td>{escape(p.rating)}</td>"
        f"<td>{p.luck:+.3f}</td><td>{p.result:+.3f}</td><td>{p.luck_adjusted_result:+.3f}</td></tr>"
        for p in analysis.players)
    parts = [
        "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>nardy-fast analysis</title>"
        "<style>body{font-family:sans-serif}td,th{padding:2px 8px;text-align:right}</style></head><body>",
        f"<h1>Analysis at {analysis.plies} plies</h1><table><tr><th>player</th><th>error rate (mEMG)</th>"
        "<th>moves</th><th>cube</th><th>PR</th><th>rating</th><th>luck</th><th>result</th>"
        f"<th>luck-adjusted</th></tr>{rows}</table>",
        f"<h2>{len(analysis.marked)} marked decisions</h2>",
    ]
    for d in analysis.marked:
        roll = "" if d.roll is None else f" rolls {d.roll[0]}{d.roll[1]}"
        mwc = "" if d.mwc_loss is None else f" ({100 * d.mwc_loss:.2f}% match winning chances)"
        parts.append(
            f"<h3>Game {d.game}, move {d.move}: {d.side}{roll}, {escape(d.mark)}</h3>{_board(d)}"
            f"<p>played <b>{escape(d.played)}</b> ({d.equity:+.3f}), best <b>{escape(d.best)}</b> "
            f"({d.best_equity:+.3f}): lost {d.loss:.3f}{mwc}</p>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


def run(args: argparse.Namespace) -> int:
    """Run ``analyse`` with the options of :func:`add_arguments`."""
    try:
        record = read_match(args.file)
    except NardyError as error:
        raise UsageError(f"FILE: {one_line(str(error))}") from None
    except OSError as error:
        raise UsageError(f"FILE: {error.strerror or error}") from None
    total = sum(len(g.plies) + len(g.cube_actions) for g in record.games) or 1
    with Progress(total, progress_stream(args.progress), unit="decisions") as bar:
        found = analyse(record, plies=args.plies, threads=args.threads,
                        progress=lambda done: bar.update(min(done, total)),
                        move_filter=None if args.all_moves else ANALYSIS_FILTER)
    print(report(found))
    writers: dict[str, Callable[[], str]] = {"--json": lambda: json.dumps(found.to_dict(), indent=1) + "\n",
                                             "--html": lambda: html_report(found)}
    outputs = [("--json", args.json, writers["--json"]), ("--html", args.html, writers["--html"])]
    for option, target, text in outputs:
        if target is not None:
            try:
                write_bytes(Path(target), text().encode(), option)
            except OSError as error:
                raise UsageError(f"{option}: {error.strerror or error}") from None
    return 0
