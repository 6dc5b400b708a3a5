"""Make a rolled-out benchmark database of a variant (docs/benchmarks.md, Rolled-out benchmark databases).

    python tools/make_benchmark_db.py VARIANT --positions N --trials T --candidates K --seed S --out FILE

Every finished position is appended at once to a checkpoint beside the output, ``FILE.partial.jsonl`` (a first
line of the settings, then one JSON line per position, floats written exactly), so that a run stopped at any
moment (Ctrl-C, a killed job, ``--stop-after``) resumes where it stopped when run again with the same options:
the database is bit-identical to that of one uninterrupted run (its ``meta`` apart from ``made`` and
``seconds``). A torn last line is dropped and that position made again. When all N positions are made, the
database is written to FILE (``nardy_fast.benchdb``) and the checkpoint removed. A run holds a lock beside it
(``FILE.partial.jsonl.lock``, where the system has ``fcntl``): a second run of the same database stops at once
instead of appending among the first one's lines. The rollouts play in the implementation chosen by
NARDY_FAST_IMPLEMENTATION; both make the same database.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import multiprocessing
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

import numpy as np

import nardy_fast
from nardy_fast.benchdb import write_database
from nardy_fast.benchmake import Entry, Job, Made, Settings, assemble, draw, roll_out_job
from nardy_fast.evaluation.search import MAX_PLIES
from nardy_fast.turns import MAX_PLIES as MAX_GAME_PLIES

SUFFIX = ".partial.jsonl"


def _count(low: int, high: int) -> Any:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = low - 1
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be an integer {low}..{high} (got {text!r})")
        return value

    return parse


def parse(argv: Optional[list[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="make_benchmark_db.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("variant", choices=nardy_fast.VARIANTS)
    parser.add_argument("--positions", type=_count(1, 100_000), required=True)
    parser.add_argument("--trials", type=_count(1, 1 << 20), required=True,
                        help="games per candidate (stratified when a multiple of 1296)")
    parser.add_argument("--candidates", type=_count(1, 1000), required=True,
                        help="all legal moves when at most this many, else this many best by the filter's search")
    parser.add_argument("--seed", type=_count(0, (1 << 63) - 1), required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--player", default="net", help="the evaluator of both sides' Greedy in the rollouts")
    parser.add_argument("--player-plies", type=_count(0, MAX_PLIES), default=0)
    parser.add_argument("--filter", default="net", help="the evaluator that ranks the candidates")
    parser.add_argument("--filter-plies", type=_count(0, MAX_PLIES), default=2)
    parser.add_argument("--truncate", choices=("bearoff", "none"), default="bearoff")
    parser.add_argument("--truncate-plies", type=_count(1, MAX_GAME_PLIES - 1), default=None,
                        help="stop each rollout game after this many plies, scored by the player's evaluator")
    parser.add_argument("--held-out-every", type=_count(1, 1_000_000), default=10)
    parser.add_argument("--stop-after", type=_count(0, 100_000), default=None,
                        help="make at most this many new positions in this run, then stop (the checkpoint stays)")
    parser.add_argument("--workers", type=_count(1, 1024), default=1,
                        help="processes rolling out positions side by side (the database is the same for any)")
    return parser.parse_args(argv)


def settings_of(args: argparse.Namespace) -> Settings:
    return Settings(args.variant, args.positions, args.trials, args.candidates, args.seed, args.player,
                    args.player_plies, args.filter, args.filter_plies,
                    None if args.truncate == "none" else args.truncate, args.held_out_every, args.truncate_plies)


def command_of(settings: Settings, out: Path) -> str:
    """The command, written the same way whatever options were defaulted or in which order."""
    return (f"python tools/make_benchmark_db.py {settings.variant} --positions {settings.positions} "
            f"--trials {settings.trials} --candidates {settings.candidates} --seed {settings.seed} "
            f"--out {out.name} --player {settings.player} --player-plies {settings.player_plies} "
            f"--filter {settings.filter_evaluator} --filter-plies {settings.filter_plies} "
            f"--truncate {settings.truncate or 'none'} --held-out-every {settings.held_out_every}"
            + ("" if settings.truncate_plies is None else f" --truncate-plies {settings.truncate_plies}"))


def _entry_of(line: dict[str, Any]) -> Entry:
    return Entry(int(line["source"]), np.array(line["row"], dtype=np.int8), tuple(line["roll"]),
                 bool(line["held_out"]), np.array(line["children"], dtype=np.int8).reshape(-1, 64),
                 np.array(line["equities"], dtype=np.float64), np.array(line["stderrs"], dtype=np.float64))


def load_checkpoint(path: Path, header: dict[str, Any]) -> tuple[list[Entry], float]:
    """The entries already made and their seconds; a checkpoint of other settings stops the run."""
    if not path.exists():
        path.write_text(json.dumps(header) + "\n")
        return [], 0.0
    entries: list[Entry] = []
    seconds, good = 0.0, 0
    with path.open("rb") as handle:
        lines = handle.read().split(b"\n")
    for number, raw in enumerate(lines):
        try:
            line = json.loads(raw)
        except ValueError:
            break  # a torn last line (the run was killed while writing it): made again
        if number == 0:
            if line != header:
                sys.exit(f"{path}: a checkpoint of other settings ({line}); remove it or use them")
        else:
            entries.append(_entry_of(line))
            seconds += float(line["seconds"])
        good += len(raw) + 1
    with path.open("r+b") as handle:
        handle.truncate(min(good, path.stat().st_size))
    return entries, seconds


def pending(settings: Settings, entries: list[Entry], checkpoint: Path, stop_after: Optional[int]) -> list[Job]:
    """The positions still to make in this run, in order; those the checkpoint holds must be the same rows."""
    jobs: list[Job] = []
    for index, (source, position, roll) in enumerate(draw(nardy_fast.Position, settings)):
        if index >= settings.positions or (stop_after is not None and len(jobs) >= stop_after):
            break
        if index < len(entries):
            if entries[index].source != source:
                sys.exit(f"{checkpoint}: position {index} is corpus row {entries[index].source}, not {source}")
            continue
        jobs.append(Job(index, source, position, roll, settings))
    return jobs


@contextlib.contextmanager
def exclusive(checkpoint: Path) -> Iterator[Path]:
    """An advisory lock held beside ``checkpoint`` while a run makes its database (``FILE.partial.jsonl.lock``):
    a second run of the same command, which would append its lines among this one's, stops at once. The system
    releases it when the process ends, however it ends, so a killed run never keeps the next one out. Yields the
    lock's path (removed by the caller once the database is written). Where there is no ``fcntl`` (Windows),
    no lock: one run at a time is the user's to keep."""
    lock = checkpoint.with_name(checkpoint.name + ".lock")
    try:
        import fcntl
    except ImportError:
        yield lock
        return
    with lock.open("a") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            sys.exit(f"{checkpoint}: another run is making this database (it holds {lock.name})")
        yield lock


def main(argv: Optional[list[str]] = None) -> int:
    args = parse(argv)
    checkpoint = args.out.with_name(args.out.name + SUFFIX)
    with exclusive(checkpoint) as lock:
        status = _run(args, checkpoint)
        if not checkpoint.exists():  # the database is written
            lock.unlink(missing_ok=True)
    return status


def _run(args: argparse.Namespace, checkpoint: Path) -> int:
    settings = settings_of(args)
    command = command_of(settings, args.out)
    header = {"settings": dataclasses.asdict(settings)}
    entries, seconds = load_checkpoint(checkpoint, header)
    jobs = pending(settings, entries, checkpoint, args.stop_after)
    with contextlib.ExitStack() as stack:
        if args.workers > 1 and len(jobs) > 1:
            # each position's rollouts are seeded by its index alone, so any worker makes the same entry;
            # imap hands the results back in order, and they are checkpointed in order
            pool = stack.enter_context(multiprocessing.Pool(min(args.workers, len(jobs))))
            results: Iterator[Made] = pool.imap(roll_out_job, jobs, chunksize=1)
        else:
            results = map(roll_out_job, jobs)
        for job, made in zip(jobs, results):
            seconds += made.took
            _append(checkpoint, entries, job, made)
    if len(entries) < settings.positions and (args.stop_after is None or len(jobs) < args.stop_after):
        # the corpus ran out before the positions asked for
        sys.exit(f"the corpus of {settings.variant} holds only {len(entries)} positions of more than one legal move")
    if len(entries) < settings.positions:
        print(f"stopped at {len(entries)}/{settings.positions} positions; run again to resume", file=sys.stderr)
        return 0
    meta = {**dataclasses.asdict(settings), "command": command, "seconds": round(seconds, 3),
            "made": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "package": nardy_fast.__version__}
    write_database(args.out, assemble(entries, meta))
    checkpoint.unlink()
    print(f"wrote {args.out}: {len(entries)} positions, {seconds:.1f} s; {command}")
    return 0


def _append(checkpoint: Path, entries: list[Entry], job: Job, made: Made) -> None:
    """Write one made position to the checkpoint (synced: a killed run loses at most the line it was writing)."""
    index, source, position, roll, settings = job
    children, equities, stderrs, took = made
    entry = Entry(source, position.to_array(), roll, index % settings.held_out_every
                  == settings.held_out_every - 1, children, equities, stderrs)
    line = {"index": index, "source": source, "row": entry.row.tolist(), "roll": list(roll),
            "held_out": entry.held_out, "children": children.tolist(), "equities": equities.tolist(),
            "stderrs": stderrs.tolist(), "seconds": took}
    with checkpoint.open("a") as handle:
        handle.write(json.dumps(line) + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    entries.append(entry)
    print(f"{len(entries)}/{settings.positions} positions, {len(children)} candidates, {took:.1f} s",
          file=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())
