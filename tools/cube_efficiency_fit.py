"""Measure a variant's cube efficiency ``x`` per position class from cubeful rollouts of the package itself
(docs/rules.md, The doubling cube): Janowski's cubeful equity is ``dead x (1 - x) + live x x``, so for positions
whose cubeful equity ``E`` and cubeless outputs are both rolled out, ``x`` is the least-squares slope of
``E - dead`` on ``live - dead`` over the positions of a class.

For each position (a start of a turn from the variant's shipped corpus, in contact or a race; one-sided
bear-offs count as races here): a cubeless rollout by the default greedy player gives the five outputs, hence
the dead-cube equity (cubeless) and the fully live one (Janowski's, centred cube, money play); a cubeful
rollout on the same dice by the same player with its Janowski cube decisions gives ``E``, the no-double line
with the cube in the middle. The two rollouts share their dice and their moves (the player moves by cubeless
values), so their difference comes from the cube alone and is far less noisy than either. The players decide
their own cube actions with the efficiencies in force when the tool runs, so a measurement can be repeated
with the figures it found (a fixed point).

Results are appended one position a line to ``--out`` (JSON lines), so a run resumes where it stopped:

    python tools/cube_efficiency_fit.py long --positions 150 --trials 144 --seed 1 --out long-x.jsonl

prints, per class, the positions used, ``x`` and its standard error (a bootstrap over the positions).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any, Optional

import numpy as np

import nardy_fast
from nardy_fast import Cube, Position, layout
from nardy_fast.corpus import load
from nardy_fast.cube import average_values, money_cubeful, money_points
from nardy_fast.cube.janowski import EFFICIENCIES, measured
from nardy_fast.cuberollouts import CubefulRollout
from nardy_fast.evaluation.classes import CLASSES, classify
from nardy_fast.policies import Greedy

#: One rolled-out position: its corpus index, class, and rolled-out values.
Record = dict[str, Any]

#: The classes measured: contact, and races (one-sided bear-offs with them; two-sided ones have exact values).
MEASURED = ("contact", "race")


def outputs_of(result: nardy_fast.rollouts.Rollout) -> list[float]:
    """The five outputs (GNU Backgammon's order) of a cubeless rollout, for its side on roll."""
    p = result.probabilities
    me, them = (("white", "black") if result.turn == "white" else ("black", "white"))
    win = p[f"{me}_single"] + p[f"{me}_mars"] + p[f"{me}_koks"]
    lose_mars = p[f"{them}_mars"] + p[f"{them}_koks"]
    return [win, p[f"{me}_mars"] + p[f"{me}_koks"], p[f"{me}_koks"], lose_mars, p[f"{them}_koks"]]


def measure(row: np.ndarray, trials: int, seed: int) -> Record:
    """The rolled-out dead, live and cubeful equities of the position ``row`` (money play, centred cube)."""
    position = Position.from_array(row)
    player = Greedy()
    cubeless = nardy_fast.rollout(position, trials, seed=seed, policy=player, stratify=False)
    outputs = outputs_of(cubeless)
    cubeful = nardy_fast.rollout(position, trials, seed=seed, policy=player, stratify=False, cube=Cube())
    assert isinstance(cubeful, CubefulRollout)
    return {
        "dead": float(money_cubeful(outputs, 0.0)),
        "live": float(money_cubeful(outputs, 1.0)),
        "cubeful": float(cubeful.no_double),
        "win": outputs[0],
        "W": float(average_values(outputs)[0]),
        "L": float(average_values(outputs)[1]),
    }


def in_window(record: Record) -> bool:
    """Whether the side on roll's chances lie between its live-cube take point and cash point: there, and
    only there, Janowski's live equity is the value of playing on with the cube in the middle (beyond the
    cash point it is the cash, which the no-double line does not take)."""
    points = money_points(record["W"], record["L"])
    return bool(points["take"][1] < record["win"] < points["cash"][1])


def fit(records: list[Record], rng: np.random.Generator) -> tuple[float, float]:
    """The least-squares ``x`` of ``cubeful - dead = x (live - dead)`` and its bootstrap standard error."""
    gain = np.array([r["live"] - r["dead"] for r in records])
    seen = np.array([r["cubeful"] - r["dead"] for r in records])

    def slope(index: np.ndarray) -> float:
        return float((gain[index] * seen[index]).sum() / max((gain[index] ** 2).sum(), 1e-12))

    everything = np.arange(len(records))
    boot = [slope(rng.integers(0, len(records), len(records))) for _ in range(1000)]
    return slope(everything), float(np.std(boot, ddof=1))


#: The figures a variant's efficiencies hold (nardy_fast.cube.janowski.EFFICIENCIES): contact, races with a
#: checker still to bring home, and bear-offs (every checker of both sides home).
FIGURES = ("contact", "race", "bearoff")


def figure_of(rows: np.ndarray, record: Record) -> str:
    """Which figure a rolled-out position measures."""
    if record["class"] == "contact":
        return "contact"
    index = int(record["index"])
    return "bearoff" if bool(layout.is_bearoff(rows[index : index + 1])[0]) else "race"


def figures(variant: str, records: list[Record]) -> dict[str, tuple[int, int, float, float]]:
    """Per figure: the positions rolled out, those between the take and cash points, ``x`` and its standard
    error (``nan`` for fewer than three positions in the window)."""
    rows, _ = load(variant)
    rng = np.random.default_rng(0)
    out = {}
    for name in FIGURES:
        rolled = [record for record in records if figure_of(rows, record) == name]
        window = [record for record in rolled if in_window(record)]
        x, error = fit(window, rng) if len(window) > 2 else (float("nan"), float("nan"))
        out[name] = (len(rolled), len(window), x, error)
    return out


def deciding_figures(variant: str) -> Optional[list[float]]:
    """The figures (contact, race, bear-off) the players decide with, ``None`` for short nardy's."""
    table = EFFICIENCIES[variant]
    if not table.measured or table.race_factor[0] != 0.0:
        return None
    return [table.contact[0], table.race_coefficient[0], table.bearoff]


def exact_bearoff_fit(variant: str) -> tuple[int, float]:
    """The positions used and the ``x`` of the exact two-sided bear-offs (``bearoff.two_sided_cubeful``,
    every pair with checkers on both sides): the least-squares slope of ``exact - dead`` on ``live - dead``
    over the pairs between the live take point and cash point, as the rollouts' fit. In these tables no
    side can lose a mars (or gammon), so ``W = L = 1`` and the window is 0.25 < p < 0.75."""
    from nardy_fast import bearoff
    from nardy_fast.bearoff.layouts import all_layouts

    cubeless, cubeful = bearoff.two_sided(variant), bearoff.two_sided_cubeful(variant)
    p = np.asarray(cubeless.win, dtype=np.float64).ravel()
    exact = np.asarray(cubeful.values[0]).ravel()
    counts = all_layouts(cubeless.checkers).sum(axis=1)
    both = np.outer(counts > 0, counts > 0).ravel()
    window = both & (p > 0.25) & (p < 0.75)
    outputs = np.zeros((int(window.sum()), 5))
    outputs[:, 0] = p[window]
    dead = 2.0 * p[window] - 1.0
    gain = np.asarray(money_cubeful(outputs, 1.0)) - dead
    seen = exact[window] - dead
    return int(window.sum()), float((gain * seen).sum() / (gain**2).sum())


def read_records(paths: list[Path]) -> list[Record]:
    """The records of the files ``paths`` (JSON lines), in order."""
    return [json.loads(line) for path in paths if path.exists() for line in path.read_text().splitlines()]


def main() -> None:
    """Parse the arguments, roll out what the output file lacks, and print the fit per class."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("variant")
    parser.add_argument("--positions", type=int, default=150, help="positions per class")
    parser.add_argument("--trials", type=int, default=144, help="games per rollout")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--classes", default=",".join(MEASURED), help="the classes to roll out (default: all)")
    parser.add_argument("--fit", type=Path, nargs="*", default=[],
                        help="other files of records (other seeds) to fit with --out's")
    parser.add_argument("--efficiencies", default=None, metavar="CONTACT,RACE,BEAROFF",
                        help="the figures the players decide with (default: the variant's in force), "
                             "to repeat a measurement with the figures it found")
    args = parser.parse_args()
    deciding = ""
    if args.efficiencies is not None:
        contact, race, bearoff = (float(figure) for figure in args.efficiencies.split(","))
        EFFICIENCIES[args.variant] = measured(contact, race, bearoff)
        deciding = f" --efficiencies {args.efficiencies}"
    rows, _ = load(args.variant)
    kinds = classify(rows)
    # starts of turns only (no pending extra roll or transfer), one order for every run of the seed
    start = rows[:, layout.NPENDING] == 0
    order = np.random.default_rng(args.seed).permutation(len(rows))
    wanted = [name for name in MEASURED if name in args.classes.split(",")]
    chosen = {name: [int(i) for i in order if start[i] and CLASSES[kinds[i]] == name][: args.positions]
              for name in wanted}
    done = {}
    if args.out.exists():
        for line in args.out.read_text().splitlines():
            record = json.loads(line)
            done[record["index"]] = record
    began = time.time()
    with args.out.open("a") as out:
        for name in wanted:
            for index in chosen[name]:
                if index in done:
                    continue
                record = {"index": index, "class": name, "deciding": deciding_figures(args.variant),
                          **measure(rows[index], args.trials, args.seed)}
                out.write(json.dumps(record) + "\n")
                out.flush()
                done[index] = record
    print(f"# python tools/cube_efficiency_fit.py {args.variant} --positions {args.positions} "
          f"--trials {args.trials} --seed {args.seed}{deciding}  ({time.time() - began:.0f} s this run)")
    for name, (rolled, window, x, error) in figures(args.variant, read_records([args.out, *args.fit])).items():
        print(f"{args.variant} {name}: {rolled} positions rolled out, {window} between the take and cash points, "
              f"x = {x:.3f} +- {error:.3f}")

if __name__ == "__main__":
    main()
