"""Measure the built-in evaluator "heuristic": a greedy 0-ply player against a random one, and its speed.

    python tools/heuristic_duel.py [--variant long ...] [--games 2000] [--seed 1] [--implementation c|python]
                                   [--opponent random|greedy] [--set [VARIANT.]FIELD=VALUE ...] [--rate]

Games come in pairs on duplicate dice: both games of pair k roll ``nardy_fast.dice.roll(seed, k, i)`` as
their i-th roll (a pending list takes none), the greedy player is White in the first and Black in the second,
and every game starts from ``Position.start(variant)``. The greedy player plays the child whose evaluation,
seen from the mover (flipped where the child's side to move is the other side, exact for a finished game),
has the highest equity, the first one on ties; the random player a uniform child (NumPy, seeded). The result
is the greedy player's points per game with a standard error over the pairs, and the outcome counts.
Games are played ``--batch`` at a time (crazy gulbar's ladders have many children).
``--opponent self`` plays the evaluator against itself: exactly 0 on duplicate dice; ``--opponent
greedy`` against the heuristic with the coefficients of the package (the measured player has those of
``--set``). ``--fit`` plays the evaluator against itself and fits the coefficients to the outcomes of
those games (logistic regressions of the module's formula) and prints them.

``--set`` changes a coefficient of ``nardy_fast.evaluation.heuristic.COEFFICIENTS`` (of every variant, or
of one: ``short.shot=0.08``) for this run; the compiled core reads its coefficients at import, so a private
copy of it is loaded after the change. ``--rate`` times ``evaluate_rows`` over each variant's corpus on one
thread (best of five).
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import shutil
import sys
import tempfile
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any, Optional

import numpy as np
import numpy.typing as npt

import nardy_fast
from nardy_fast import corpus, dice, layout
from nardy_fast.evaluation import heuristic
from nardy_fast.evaluation.outcomes import EVALUATORS
from nardy_fast.reference.heuristic import heuristic_evaluate
from nardy_fast.variants import VARIANTS

Evaluate = Callable[[npt.NDArray[np.int8]], npt.NDArray[np.float64]]
KIND = EVALUATORS.index("heuristic")


def private_core() -> Any:
    """A fresh copy of the compiled core, which reads the (changed) coefficients as it is imported."""
    import nardy_fast._core as core

    folder = Path(tempfile.mkdtemp(prefix="heuristic_duel_"))
    copy = folder / Path(str(core.__file__)).name
    shutil.copy(str(core.__file__), copy)
    package = types.ModuleType("heuristic_duel_core")
    package.__path__ = []
    sys.modules["heuristic_duel_core"] = package
    spec = importlib.util.spec_from_file_location("heuristic_duel_core._core", copy)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {copy}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def apply(settings: list[str]) -> None:
    """Change the coefficients as ``--set`` asks."""
    table: dict[str, heuristic.Coefficients] = heuristic.COEFFICIENTS  # type: ignore[assignment]
    for setting in settings:
        name, _, text = setting.partition("=")
        variants, _, field = name.rpartition(".")
        for variant in [variants] if variants else VARIANTS:
            row = table[variant]
            fields: dict[str, Any] = row._asdict()
            fields[field] = int(text) if type(fields[field]) is int else float(text)
            table[variant] = heuristic.Coefficients(**fields)


def evaluator(implementation: str, core: Any) -> Evaluate:
    """The heuristic's values of unfinished rows (N, 64)."""

    def compiled(rows: npt.NDArray[np.int8]) -> npt.NDArray[np.float64]:
        out = np.zeros((len(rows), 5))
        bad = core.evaluate_rows(np.ascontiguousarray(rows, dtype=np.int8), KIND, None, out)
        if bad >= 0:
            raise SystemExit(f"evaluate_rows refused row {rows[bad].tolist()}")
        return out

    def reference(rows: npt.NDArray[np.int8]) -> npt.NDArray[np.float64]:
        return np.array([heuristic_evaluate(row, None) for row in rows]).reshape(len(rows), 5)

    return compiled if implementation == "c" else reference


def greedy_choices(
    parents: npt.NDArray[np.int8], children: npt.NDArray[np.int8], offsets: npt.NDArray[np.int64], evaluate: Evaluate
) -> npt.NDArray[np.int64]:
    """The index of the best child within each parent's children."""
    counts = np.diff(offsets)
    mover = np.repeat(parents[:, layout.TURN], counts)
    value = np.zeros(len(children))
    over = layout.is_over(children)
    if over.any():
        won = layout.winner(children[over]) == mover[over]
        value[over] = np.where(won, 1.0, -1.0) * layout.points(children[over])
    live = ~over
    if live.any():
        p = evaluate(children[live])
        equity = 2.0 * p[:, 0] - 1.0 + p[:, 1] + p[:, 2] - p[:, 3] - p[:, 4]
        same = children[live, layout.TURN] == mover[live]
        value[live] = np.where(same, equity, -equity)
    # the first maximum of each segment: sort by (segment, -value, index)
    segment = np.repeat(np.arange(len(counts)), counts)
    order = np.lexsort((np.arange(len(value)), -value, segment))
    return order[offsets[:-1]] - offsets[:-1]


def play(
    variant: str,
    first_pair: int,
    pairs: int,
    seed: int,
    players: tuple[Evaluate, Optional[Evaluate]],
    max_plies: int,
    record: Optional[list[tuple[npt.NDArray[np.int8], npt.NDArray[np.int64]]]] = None,
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int8]]:
    """Pairs ``first_pair ..`` in lock-step, player 0 White in the first game of a pair and Black in the
    second (a player None plays at random): the final rows of the games, and the colour player 0 had.
    ``record`` gets, once a ply, the positions to move and their games."""
    count = 2 * pairs
    rows = np.tile(nardy_fast.Position.start(variant).to_array(), (count, 1)).astype(np.int8)
    pair = first_pair + np.arange(count) // 2
    colour = (np.arange(count) % 2).astype(np.int8)
    counter = np.zeros(count, dtype=np.int64)
    done = np.zeros(count, dtype=bool)
    rng = np.random.default_rng([seed, first_pair])
    for _ in range(max_plies):
        active = np.flatnonzero(~done)
        if not len(active):
            break
        parents = rows[active]
        if record is not None:
            record.append((parents.copy(), active + 2 * first_pair))
        rolls = np.zeros((len(active), 2), dtype=np.int8)
        for j, g in enumerate(active.tolist()):
            if parents[j, layout.NPENDING] == 0:
                rolls[j] = dice.roll(seed, int(pair[g]), int(counter[g]))
                counter[g] += 1
        children, offsets, _ = nardy_fast.batch_children(parents, rolls)
        counts = np.diff(offsets)
        choice = rng.integers(0, counts)
        first = parents[:, layout.TURN] == colour[active]
        for player, turn in zip(players, (first, ~first)):
            if player is None or not turn.any():
                continue
            index = np.flatnonzero(turn)
            take = np.concatenate([np.arange(offsets[i], offsets[i + 1]) for i in index])
            sub_offsets = np.concatenate([[0], np.cumsum(counts[index])])
            choice[index] = greedy_choices(parents[index], children[take], sub_offsets, player)
        rows[active] = children[offsets[:-1] + choice]
        done[active] = layout.is_over(rows[active])
    return rows, colour


def duel(
    variant: str, games: int, seed: int, players: tuple[Evaluate, Optional[Evaluate]], max_plies: int, batch: int
) -> dict[str, Any]:
    """Player 0 against player 1 on duplicate dice, ``batch`` games at a time."""
    pairs = games // 2
    step = max(1, batch // 2)
    played = [play(variant, k, min(step, pairs - k), seed, players, max_plies) for k in range(0, pairs, step)]
    rows = np.concatenate([r for r, _ in played])
    colour = np.concatenate([c for _, c in played])
    done = layout.is_over(rows)
    points = np.where(layout.winner(rows) == colour, 1, -1) * layout.points(rows).astype(np.int64)
    per_pair = points[0::2] + points[1::2]
    outcome = {f"{'+' if s > 0 else '-'}{abs(s)}": int((points == s).sum()) for s in (3, 2, 1, -1, -2, -3)}
    return {
        "ppg": float(points.mean()),
        "stderr": float(per_pair.std(ddof=1) / 2 / math.sqrt(pairs)) if pairs > 1 else 0.0,
        "win_rate": float((points > 0).mean()),
        "outcomes": outcome,
        "unfinished": int((~done).sum()),
    }


def rate(evaluate_rows: Any) -> dict[str, float]:
    """Rows per second of ``evaluate_rows`` over each variant's unfinished corpus rows, best of five."""
    rates = {}
    for variant in VARIANTS:
        rows = corpus.load(variant)[0]
        rows = np.ascontiguousarray(rows[~layout.is_over(rows)])
        out = np.zeros((len(rows), 5))
        best = math.inf
        for _ in range(5):
            start = time.perf_counter()
            evaluate_rows(rows, KIND, None, out)
            best = min(best, time.perf_counter() - start)
        rates[variant] = len(rows) / best
    return rates


def self_play_data(
    variant: str, games: int, seed: int, player: Evaluate, max_plies: int, batch: int
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float64]]:
    """Every position to move of ``games`` games of ``player`` against itself, and its outcome for its side
    to move as the evaluator's five columns (0 or 1); games that did not end are left out."""
    positions, labels = [], []
    step = max(1, batch // 2)
    for k in range(0, games // 2, step):
        record: list[tuple[npt.NDArray[np.int8], npt.NDArray[np.int64]]] = []
        final, _ = play(variant, k, min(step, games // 2 - k), seed, (player, player), max_plies, record)
        rows = np.concatenate([r for r, _ in record])
        game = np.concatenate([g for _, g in record]) - 2 * k
        end = final[game]
        keep = layout.is_over(end)
        rows, end = rows[keep], end[keep]
        won = layout.winner(end) == rows[:, layout.TURN]
        points = layout.points(end)
        labels.append(
            np.stack([won, won & (points >= 2), won & (points >= 3), ~won & (points >= 2), ~won & (points >= 3)], axis=1)
        )
        positions.append(rows)
    return np.concatenate(positions), np.concatenate(labels).astype(np.float64)


def logistic_fit(columns: npt.NDArray[np.float64], labels: npt.NDArray[np.float64], ridge: float = 1e-3) -> Any:
    """Logistic regression without intercept by Newton's method (a small ridge keeps rare columns finite)."""
    beta = np.zeros(columns.shape[1])
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-np.clip(columns @ beta, -50, 50)))
        gradient = columns.T @ (labels - p) - ridge * len(labels) * beta
        hessian = (columns * (p * (1 - p))[:, None]).T @ columns + ridge * len(labels) * np.eye(len(beta))
        change = np.linalg.solve(hessian, gradient)
        beta += change
        if np.abs(change).max() < 1e-9:
            break
    return beta


def log_loss(p: npt.NDArray[np.float64], labels: npt.NDArray[np.float64]) -> float:
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return float(-(labels * np.log(p) + (1 - labels) * np.log(1 - p)).mean())


def fit(
    variant: str, rows: npt.NDArray[np.int8], labels: npt.NDArray[np.float64], structure_too: bool
) -> heuristic.Coefficients:
    """Coefficients for ``variant`` fitted to outcomes: the win logit, then mars and koks, each a logistic
    regression in the module docstring's terms (race_base, mars_base, koks_base and hit_base kept). Unless
    ``structure_too``, the structure's weights keep their ratios and only their scale is fitted: outcomes
    reward what goes with winning, not what makes a good move, so the ratios are tuned by duels."""
    from nardy_fast.reference.heuristic import features, structure

    k = heuristic.COEFFICIENTS[variant]
    live = ~layout.is_over(rows)
    rows, labels = rows[live], labels[live]
    fs = [features(row) for row in rows]
    px = np.array([f.x.pips for f in fs], dtype=float)
    py = np.array([f.y.pips for f in fs], dtype=float)
    nx = np.array([f.x.need for f in fs], dtype=float)
    ny = np.array([f.y.need for f in fs], dtype=float)
    bx = np.array([f.x.back for f in fs], dtype=float)
    by = np.array([f.y.back for f in fs], dtype=float)
    pend = np.array([f.pending for f in fs], dtype=float)
    xoff = np.array([f.xoff for f in fs])
    yoff = np.array([f.yoff for f in fs])
    values = [structure(f) for f in fs]
    long_family = heuristic.COEFFICIENTS[variant].head != 0.0 or variant != "short"
    names = [n for n in heuristic.FEATURES if (n == "head") == long_family or n.startswith("run")]
    struct = np.array([[v[n] for n in names] for v in values])
    s = np.sqrt(px + py + k.race_base)
    fitted = dict(k._asdict())
    if structure_too:
        columns = np.column_stack([(py - px) / s, 1.0 / s, pend / s, struct])
        beta = logistic_fit(columns, labels[:, 0])
        weights = beta[3:]
    else:
        # the structure's weights kept, as one term scaled
        hand = struct @ np.array([getattr(k, n) for n in names])
        beta = logistic_fit(np.column_stack([(py - px) / s, 1.0 / s, pend / s, hand]), labels[:, 0])
        weights = beta[3] * np.array([getattr(k, n) for n in names])
    race_weight = beta[0]
    fitted.update(race_weight=race_weight, tempo=beta[1] / race_weight)
    if pend.any():
        fitted.update(pending=beta[2] / race_weight)
    for n, w in zip(names, weights):
        fitted[n] = w
    t = struct @ weights
    # mars: both sides' chances, X on roll (+1) and Y (-1)
    sx, sy = np.sqrt(px + ny + k.mars_base), np.sqrt(py + nx + k.mars_base)
    mx, my = yoff == 0, xoff == 0
    mars_columns = np.concatenate([
        np.column_stack([(ny - px) / sx, 1.0 / sx, 1.0 / sx, t])[mx],
        np.column_stack([(nx - py) / sy, 1.0 / sy, -1.0 / sy, -t])[my],
    ])
    mars_labels = np.concatenate([labels[mx, 1], labels[my, 3]])
    gamma = logistic_fit(mars_columns, mars_labels)
    fitted.update(mars_weight=gamma[0], mars_offset=gamma[1] / gamma[0], mars_tempo=gamma[2] / gamma[0],
                  mars_struct=gamma[3])
    if variant == "short":
        kx, ky = mx & (by > 0), my & (bx > 0)
        sx, sy = np.sqrt(px + by + k.koks_base), np.sqrt(py + bx + k.koks_base)
        koks_columns = np.concatenate([
            np.column_stack([by / sx, -px / sx, 1.0 / sx, t])[kx],
            np.column_stack([bx / sy, -py / sy, 1.0 / sy, -t])[ky],
        ])
        koks_labels = np.concatenate([labels[kx, 2], labels[ky, 4]])
        delta = logistic_fit(koks_columns, koks_labels)
        fitted.update(koks_weight=delta[1], koks_scale=delta[0] / delta[1], koks_offset=delta[2] / delta[1],
                      koks_struct=delta[3])
    rounded: dict[str, Any] = {n: (int(v) if n == "hit_base" else round(float(v), 4)) for n, v in fitted.items()}
    new = heuristic.Coefficients(**rounded)
    before = referenced_values(rows, k)
    after = referenced_values(rows, new)
    for i, name in enumerate(("win", "win_mars", "win_koks", "lose_mars", "lose_koks")):
        print(f"  {name:9s} mean {labels[:, i].mean():.4f}  predicted {before[:, i].mean():.4f} -> {after[:, i].mean():.4f}"
              f"  log-loss {log_loss(before[:, i], labels[:, i]):.4f} -> {log_loss(after[:, i], labels[:, i]):.4f}")
    return new


def referenced_values(rows: npt.NDArray[np.int8], k: heuristic.Coefficients) -> npt.NDArray[np.float64]:
    """The reference's values of rows with the coefficients ``k`` for their variant."""
    table: dict[str, heuristic.Coefficients] = heuristic.COEFFICIENTS  # type: ignore[assignment]
    variant = VARIANTS[rows[0, layout.VARIANT]]
    saved = table[variant]
    table[variant] = k
    try:
        return np.array([heuristic_evaluate(row, None) for row in rows])
    finally:
        table[variant] = saved


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", action="append", choices=VARIANTS)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--implementation", choices=("c", "python"), default="c")
    parser.add_argument("--opponent", choices=("random", "greedy", "self"), default="random")
    parser.add_argument("--set", action="append", default=[], metavar="[VARIANT.]FIELD=VALUE")
    parser.add_argument("--max-plies", type=int, default=5000)
    parser.add_argument("--batch", type=int, default=200, help="games played in lock-step at a time")
    parser.add_argument("--rate", action="store_true")
    parser.add_argument("--fit", action="store_true", help="fit the coefficients to self-play outcomes")
    parser.add_argument("--fit-structure", action="store_true", help="with --fit: each structure weight too")
    args = parser.parse_args(argv)
    import nardy_fast._core as standard

    apply(args.set)
    core = private_core() if args.set else standard
    if args.rate:
        for variant, value in rate(core.evaluate_rows).items():
            print(f"{variant:7s} {value:12,.0f} rows/s")
    evaluate = evaluator(args.implementation, core)
    opponent = {"random": None, "greedy": evaluator("c", standard), "self": evaluate}[args.opponent]
    for variant in args.variant or ([] if args.rate else list(VARIANTS)):
        start = time.perf_counter()
        if args.fit:
            rows, labels = self_play_data(variant, args.games, args.seed, evaluate, args.max_plies, args.batch)
            print(f"{variant}: {len(rows)} positions of {args.games} games")
            print(f"  {fit(variant, rows, labels, args.fit_structure)}", flush=True)
            continue
        result = duel(variant, args.games, args.seed, (evaluate, opponent), args.max_plies, args.batch)
        print(
            f"{variant:7s} ppg {result['ppg']:+.3f} ± {result['stderr']:.3f}  win {result['win_rate']:.3f}"
            f"  {result['outcomes']}  unfinished {result['unfinished']}  ({time.perf_counter() - start:.0f} s)",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
