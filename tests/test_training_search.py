"""Search targets of the self-play training (``train(..., targets="search", target_plies=N)``): each position
learns the network's own value of it searched N plies deep.

The targets are checked against the search worked out independently here, position by position (a plain
recursion over ``legal_moves`` and the network's 0-ply values, with the INNER move filter of docs/rules.md,
Evaluation and search), and at 1 ply against ``Position.hint(..., plies=0)`` (the core's C search for the
compiled implementation), in both implementations; the trainer is checked to learn exactly those targets,
to record the options, to resume bit for bit and to refuse a checkpoint made with other targets.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

import numpy as np
import numpy.typing as npt
import pytest
from writers import flippable, for_a_while, writer

import nardy_fast
from nardy_fast import _dispatch, layout
from nardy_fast.bearoff.semantics import ROLL_ORDER, ROLL_WEIGHTS
from nardy_fast.errors import InvalidPositionError, NardyError, field_error
from nardy_fast.evaluation.constants import INNER_FILTER
from nardy_fast.evaluation.evaluators import evaluate
from nardy_fast.evaluation.network import INPUTS, Network
from nardy_fast.evaluation.outcomes import flipped
from nardy_fast.training import check_config, model, train
from nardy_fast.training import trainer as trainer_module
from nardy_fast.training.targets import search_values
from nardy_fast.training.trainer import checkpoint_path

#: A tiny search training: 2 iterations of 2 games, 4 hidden units.
TINY: dict[str, Any] = {"seed": 5, "hidden": 4, "batch": 2, "eval_every": 0, "targets": "search"}
GAMES = 4

Floats = npt.NDArray[np.float64]

#: The trainings with search targets: minutes on the reference's pure-Python move search (its targets are
#: checked against the hand-worked search below, the same as the core's), a second on the core.
core_trainings = pytest.mark.skipif(
    nardy_fast.IMPLEMENTATION == "python", reason="search trainings on the reference take minutes"
)
#: What compares the core with the reference, or reads rows without the GIL, needs the core in use.
compiled_core = pytest.mark.skipif(nardy_fast.IMPLEMENTATION == "python", reason="the compiled core is not in use")


def small_network(variant: str, seed: int) -> Network:
    rng = np.random.default_rng(seed)
    return Network(
        variant,
        rng.normal(0, 0.2, (INPUTS, 4)).astype(np.float32),
        rng.normal(0, 0.2, 4).astype(np.float32),
        rng.normal(0, 0.5, (5, 4)).astype(np.float32),
        rng.normal(0, 0.2, 5).astype(np.float32),
    )


def equity(v: Floats) -> float:
    return float(2.0 * v[0] - 1.0 + v[1] + v[2] - v[3] - v[4])


class Independent:
    """value(position, depth) and choose(position, roll, depth) of docs/rules.md, Evaluation and search,
    worked one position at a time over ``legal_moves``."""

    def __init__(self, position_class: Any, network: Network) -> None:
        self.kernels = position_class.kernels
        self.position_class = position_class
        self.network = network

    def seen(self, parent: npt.NDArray[np.int8], child: npt.NDArray[np.int8], v: Floats) -> Floats:
        return v if child[layout.TURN] == parent[layout.TURN] else flipped(v[None, :])[0]

    def value(self, row: npt.NDArray[np.int8], depth: int) -> Floats:
        position = self.position_class.from_array(row)
        if depth == 0 or position.is_over():
            found: Floats = evaluate(self.kernels, row[None, :], self.network)[0]
            return found
        if position.pending:
            return self.choose(row, None, depth)
        total = np.zeros(5)
        for roll, weight in zip(ROLL_ORDER, ROLL_WEIGHTS):
            total += weight * self.choose(row, roll, depth - 1)
        return total / 36.0

    def choose(self, row: npt.NDArray[np.int8], roll: Optional[tuple[int, int]], depth: int) -> Floats:
        moves = self.position_class.from_array(row).legal_moves(roll)
        children = np.stack([move.result.to_array() for move in moves])
        first = evaluate(self.kernels, children, self.network)
        seen = [self.seen(row, c, v) for c, v in zip(children, first)]
        equities = [equity(v) for v in seen]
        order = sorted(range(len(moves)), key=lambda i: (-equities[i], i))
        if depth == 0:
            return seen[order[0]]
        kept = [i for i in order[: INNER_FILTER.keep] if equities[order[0]] - equities[i] <= INNER_FILTER.width]
        deeper = {i: self.seen(row, children[i], self.value(children[i], depth)) for i in kept}
        best = max(kept, key=lambda i: (equity(deeper[i]), -i))
        return deeper[best]


def played_rows(variant: str, games: int, seed: int) -> npt.NDArray[np.int8]:
    _, trajectories = _dispatch.playout(variant, games, seed=seed, trajectories=True)
    return trajectories.rows


@pytest.mark.parametrize(("variant", "seed"), [("short", 1), ("long", 2), ("gulbar", 3)])
def test_one_ply_targets_are_the_search_worked_by_hand(Position: Any, variant: str, seed: int) -> None:
    network = small_network(variant, seed)
    rows = played_rows(variant, 1, seed)
    pick = np.unique(np.r_[np.linspace(0, len(rows) - 1, 5).astype(int), np.flatnonzero(rows[:, layout.NPENDING])[:2]])
    targets = search_values(Position.kernels, rows[pick], network, 1)
    independent = Independent(Position, network)
    for row, target in zip(rows[pick], targets):
        np.testing.assert_allclose(target, independent.value(row, 1), rtol=0, atol=1e-12)
        position = Position.from_array(row)
        if position.is_over() or position.pending:
            continue
        # the 1-ply value's equity is the mean of the best 0-ply move's over the rolls: the hint's first
        best = [position.hint(roll, evaluator=network, plies=0)[0][1] for roll in ROLL_ORDER]
        assert equity(target) == pytest.approx(float(np.dot(ROLL_WEIGHTS, best)) / 36.0, abs=1e-12)
    if variant == "gulbar":
        assert rows[pick, layout.NPENDING].any()  # a pending list's target was checked too
    last = len(rows) - 1  # a finished game keeps its outcome
    assert np.array_equal(targets[-1], evaluate(Position.kernels, rows[last:], "heuristic")[0])


def test_two_ply_targets_are_the_search_worked_by_hand(Position: Any) -> None:
    network = small_network("short", 4)
    rows = played_rows("short", 1, 4)[[52]]  # a position of few moves: the hand-worked search is slow
    target = search_values(Position.kernels, rows, network, 2)[0]
    np.testing.assert_allclose(target, Independent(Position, network).value(rows[0], 2), rtol=0, atol=1e-12)
    assert not np.allclose(target, search_values(Position.kernels, rows, network, 1)[0], atol=1e-6)


def test_no_rows_and_rows_of_another_variant(Position: Any) -> None:
    network = small_network("short", 7)
    assert search_values(Position.kernels, np.zeros((0, 64), dtype=np.int8), network, 1).shape == (0, 5)
    long_rows = np.stack([Position.start("long").to_array()])
    with pytest.raises(NardyError) as error:
        search_values(Position.kernels, long_rows, network, 1)
    assert str(error.value).startswith("evaluator: evaluates short nardy only (rows[0] is long) (got <Network")


@compiled_core
def test_both_implementations_give_the_same_targets() -> None:
    network = small_network("long", 6)
    rows = played_rows("long", 1, 6)[::2]
    ours = search_values(nardy_fast.Position.kernels, rows, network, 1, threads=3)
    reference = search_values(nardy_fast.reference.Position.kernels, rows, network, 1)
    assert np.array_equal(ours, reference)  # the same floats, added in the same order
    broken = rows[:3].copy()
    broken[1, :] = 0  # no checkers: not a position
    with pytest.raises(InvalidPositionError, match=r"^rows\[1\]: is not a valid position"):
        search_values(nardy_fast.Position.kernels, broken, network, 1, threads=2)


@core_trainings
def test_the_trainer_learns_the_search_values_of_its_positions(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    seen: list[tuple[Any, Network]] = []
    learned: list[npt.NDArray[np.float32]] = []
    real_learn, real_gradients = trainer_module._learn, model.gradients

    def learn(state: Any, config: Any, trajectories: Any, network: Network, iteration: int) -> float:
        seen.append((trajectories, network))
        return real_learn(state, config, trajectories, network, iteration)

    def gradients(params: Any, x: Any, y: npt.NDArray[np.float32]) -> Any:
        learned.append(y.copy())
        return real_gradients(params, x, y)

    monkeypatch.setattr(trainer_module, "_learn", learn)
    monkeypatch.setattr(trainer_module, "gradients", gradients)
    train("short", 2, out=tmp_path / "w.npz", **{**TINY, "target_plies": 1})
    (trajectories, network), = seen
    live = ~layout.is_over(trajectories.rows)
    expected = search_values(_dispatch.RECORD.kernels, trajectories.rows[live], network, 1).astype(np.float32)
    got = np.concatenate(learned)
    assert got.shape == expected.shape
    assert np.array_equal(np.unique(got, axis=0), np.unique(expected, axis=0))


def meta_config(out: Path) -> dict[str, Any]:
    with np.load(checkpoint_path(out), allow_pickle=False) as archive:
        config: dict[str, Any] = json.loads(str(archive["meta"]))["config"]
    return config


class Interrupt:
    def __init__(self, at: int) -> None:
        self.at = at

    def __call__(self, done: int, games: int) -> None:
        if done == self.at:
            raise KeyboardInterrupt


@core_trainings
def test_a_search_training_records_its_options_and_resumes_to_the_same_weights(tmp_path: Path) -> None:
    whole = train("short", GAMES, out=tmp_path / "whole.npz", **TINY)
    assert (whole.training["targets"], whole.training["target_plies"]) == ("search", 1)
    out = tmp_path / "w.npz"
    with pytest.raises(KeyboardInterrupt):
        train("short", GAMES, out=out, progress=Interrupt(2), **TINY)
    assert (meta_config(out)["targets"], meta_config(out)["target_plies"]) == ("search", 1)
    assert train("short", GAMES, out=out, **TINY).sha256 == whole.sha256 == Network.load(out).sha256
    td = train("short", GAMES, out=tmp_path / "td.npz", **{**TINY, "targets": "td"})
    assert td.sha256 != whole.sha256 and td.training["targets"] == "td"


@core_trainings
@pytest.mark.parametrize(
    ("first", "then", "words"),
    [
        ({"targets": "td"}, {}, "made with another targets (targets 'td', not 'search')"),
        ({}, {"targets": "td"}, "made with another targets (targets 'search', not 'td')"),
        ({}, {"target_plies": 2}, "made with another target_plies (target_plies 1, not 2)"),
    ],
)
def test_a_checkpoint_of_other_targets_is_refused(
    tmp_path: Path, first: dict[str, Any], then: dict[str, Any], words: str
) -> None:
    out = tmp_path / "w.npz"
    train("short", 2, out=out, **{**TINY, **first})
    with pytest.raises(NardyError) as error:
        train("short", GAMES, out=out, **{**TINY, **then})
    assert str(error.value) == f"checkpoint: {words} (got {str(checkpoint_path(out))!r})"


def test_a_checkpoint_from_before_the_options_is_a_td_one(tmp_path: Path) -> None:
    """A checkpoint written before ``targets`` and ``target_plies`` existed was made with TD targets."""
    td = {**TINY, "targets": "td"}
    whole = train("short", GAMES, out=tmp_path / "whole.npz", **td)
    out = tmp_path / "w.npz"
    train("short", 2, out=out, **td)
    check = checkpoint_path(out)
    with np.load(check, allow_pickle=False) as archive:
        arrays = {key: archive[key] for key in archive.files}
    meta = json.loads(str(arrays["meta"]))
    for key in ("targets", "target_plies"):
        del meta["config"][key]
    np.savez(check, **{**arrays, "meta": np.array(json.dumps(meta))})
    with pytest.raises(NardyError, match="targets 'td', not 'search'"):
        train("short", GAMES, out=out, **TINY)
    assert train("short", GAMES, out=out, **td).sha256 == whole.sha256


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"targets": "rollout"}, "targets: must be one of ('td', 'search') (got 'rollout')"),
        ({"targets": None}, "targets: must be one of ('td', 'search') (got None)"),
        ({"targets": 1}, "targets: must be one of ('td', 'search') (got 1)"),
        ({"target_plies": 0}, "target_plies: must be an integer 1..2 (got 0)"),
        ({"target_plies": 3}, "target_plies: must be an integer 1..2 (got 3)"),
        ({"target_plies": True}, "target_plies: must be an integer 1..2 (got True)"),
        ({"target_plies": 1.0}, "target_plies: must be an integer 1..2 (got 1.0)"),
    ],
)
def test_bad_target_options_name_themselves(tmp_path: Path, bad: dict[str, Any], message: str) -> None:
    with pytest.raises(NardyError) as checked:
        check_config("short", 2, **bad)
    assert str(checked.value) == message
    with pytest.raises(NardyError) as trained:
        train("short", 2, out=tmp_path / "w.npz", **{**TINY, **bad})
    assert str(trained.value) == message and list(tmp_path.iterdir()) == []


@compiled_core
def test_rows_changed_by_another_thread() -> None:
    """The core's search reads its rows without the GIL, on two threads: while another thread flips the side
    to move of every row back and forth, each row's target is that of one of its two states, never of a mix
    (were the caller's row read in place, its moves, its children and the network's inputs could each see
    another state)."""
    kernels = nardy_fast.Position.kernels
    network = small_network("long", 8)
    live = flippable(played_rows("long", 1, 8), every=6)
    flipped_rows = live.copy()
    flipped_rows[:, layout.TURN] ^= 1
    either = [search_values(kernels, state, network, 1) for state in (live, flipped_rows)]
    assert not (either[0] == either[1]).all(axis=1).any()  # the two states differ in every row: a mix would show
    shared = live.copy()
    seen = [False, False]

    def flip() -> None:
        shared[:, layout.TURN] ^= 1

    with writer(flip):
        for _ in for_a_while(10, 60, lambda: all(seen)):
            found = search_values(kernels, shared, network, 1, threads=2)
            match = [(found == state).all(axis=1) for state in either]
            assert (match[0] | match[1]).all()
            seen[0] |= bool(match[0].any())
            seen[1] |= bool(match[1].any())
    assert all(seen), seen  # the writer was seen by the search


@compiled_core
def test_a_row_made_invalid_by_another_thread_is_quoted_as_searched() -> None:
    """While another thread turns one row into a board without checkers and back, the search values every
    row as it was, or refuses the one it read without checkers and quotes that very board: the rows are read
    once (a copy), so the error never quotes what the search did not see."""
    kernels = nardy_fast.Position.kernels
    network = small_network("long", 9)
    live = flippable(played_rows("long", 1, 9), every=8)
    valid = search_values(kernels, live, network, 1)
    shared = live.copy()
    refusal = str(field_error(InvalidPositionError, "rows[1]", "is not a valid position", bytes(64)))
    outcomes = {"valued": False, "refused": False}

    def toggle() -> None:
        shared[1] = 0 if shared[1].any() else live[1]

    with writer(toggle):
        for _ in for_a_while(10, 60, lambda: all(outcomes.values())):
            try:
                found = search_values(kernels, shared, network, 1, threads=2)
            except InvalidPositionError as error:
                assert str(error) == refusal
                outcomes["refused"] = True
            else:
                assert np.array_equal(found, valid)
                outcomes["valued"] = True
    assert all(outcomes.values()), outcomes  # the writer was seen both ways
