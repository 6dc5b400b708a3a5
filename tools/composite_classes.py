"""Which position class the composite default ``"net"`` gains or loses in against the bare network
(docs/benchmarks.md, The composite default against the bare network): duels at 0 ply,
``nardy_fast.duel(Greedy(C), Greedy("network"), variant, games, seed=S)`` over several seeds, for composites
``C`` that use the race evaluator in one class only and the network elsewhere:

* ``net``: the default (the race evaluator in races and in bear-offs);
* ``bearoff``: the race evaluator in the two-sided bear-offs only (``Composite(race="network")``);
* ``race``: in the race class only (``Composite(bearoff="network")``);
* ``race_tables``: the two-sided bear-offs and the race class's bear-offs, which the race evaluator values
  from the one-sided tables; the network in the other races;
* ``race_formula``: the two-sided bear-offs and the races that are no bear-off (the race evaluator's
  formula); the network in the race class's bear-offs;
* ``formula_win``: as ``net``, but in the races that are no bear-off ``win`` is the network's and only the
  gammon (mars) columns are the formula's;
* ``formula_mars``: the other way round (the formula's ``win``, the network's mars columns).

Printed per composite: the ppg of each seed and their mean with its standard error (the seeds' standard
errors combined: the seeds are independent). The last three run a Python evaluator for the race class, so
they are slower (seconds a seed, still).

    python tools/composite_classes.py [--variant sixone] [--games 2000] [--seeds 2042,7,8,1,2,3,4,5,6,9]
        [--composites net,bearoff,race,race_tables,race_formula,formula_win,formula_mars]
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from typing import Union

import numpy as np
import numpy.typing as npt

import nardy_fast
from nardy_fast import Greedy
from nardy_fast.evaluation import Composite

Rows = npt.NDArray[np.int8]


def nested(values: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """The outputs made nested again after columns from two evaluators were mixed."""
    values[:, 1] = np.minimum(values[:, 1], values[:, 0])
    values[:, 2] = np.minimum(values[:, 2], values[:, 1])
    values[:, 3] = np.minimum(values[:, 3], 1.0 - values[:, 0])
    values[:, 4] = np.minimum(values[:, 4], values[:, 3])
    return values


class RaceClass:
    """An evaluator of the race class: the race evaluator in its bear-offs when ``tables``, else the network;
    in its other races ``win`` from ``win`` and the mars columns from ``mars`` (built-in names)."""

    def __init__(self, tables: bool, win: str, mars: str) -> None:
        self.tables, self.win, self.mars = tables, win, mars

    def evaluate(self, rows: Rows) -> npt.NDArray[np.float64]:
        bearoff = nardy_fast.layout.is_bearoff(rows)
        out = np.empty((len(rows), 5))
        if bearoff.any():
            out[bearoff] = nardy_fast.evaluate(rows[bearoff], "race" if self.tables else "network")
        other = ~bearoff
        if other.any():
            mars = nardy_fast.evaluate(rows[other], self.mars)
            if self.win != self.mars:
                mars[:, 0] = nardy_fast.evaluate(rows[other], self.win)[:, 0]
            out[other] = nested(mars)
        return out


COMPOSITES: dict[str, Callable[[], Union[str, Composite]]] = {
    "net": lambda: "net",
    "bearoff": lambda: Composite(race="network"),
    "race": lambda: Composite(bearoff="network"),
    "race_tables": lambda: Composite(race=RaceClass(True, "network", "network")),
    "race_formula": lambda: Composite(race=RaceClass(False, "race", "race")),
    "formula_win": lambda: Composite(race=RaceClass(True, "network", "race")),
    "formula_mars": lambda: Composite(race=RaceClass(True, "race", "network")),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="sixone")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seeds", default="2042,7,8,1,2,3,4,5,6,9")
    parser.add_argument("--composites", default=",".join(COMPOSITES))
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    print(f"implementation {nardy_fast.IMPLEMENTATION}, {args.variant}, {args.games} games a seed, seeds {seeds}")
    for name in args.composites.split(","):
        began = time.perf_counter()
        ppg, stderr = [], []
        for seed in seeds:
            result = nardy_fast.duel(Greedy(COMPOSITES[name]()), Greedy("network"), args.variant, args.games, seed=seed)
            ppg.append(result.ppg)
            stderr.append(result.stderr)
        mean = sum(ppg) / len(ppg)
        error = math.sqrt(sum(e * e for e in stderr)) / len(stderr)
        print(f"{name}: {' '.join(f'{p:+.4f}' for p in ppg)}; mean {mean:+.4f} +- {error:.4f} "
              f"({time.perf_counter() - began:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
