"""The composite evaluator (nardy_fast.evaluation.composite; docs/rules.md, Evaluation, Position classes): the
default ``"net"`` values a finished game by its outcome, a bear-off inside the two-sided tables by their exact
chance, a race by the race evaluator and contact by the shipped network alone (``"network"``); the core's C
composite and the reference's twin give the same floats on positions of every class and variant; at 0 ply it
plays every two-sided bear-off of up to three checkers a side with the best exact winning chance, derived here
from the reference's own two-sided tables; a user's ``Composite`` of any parts is an evaluator everywhere
(``evaluate``, ``hint``, ``Greedy``, ``duel``), the built-in one in C; bad parts and bad tables are refused alike."""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import nardy_fast
from nardy_fast import Greedy, NardyError, implementations, layout
from nardy_fast.bearoff.layouts import all_layouts, layout_ids
from nardy_fast.board import mover_point
from nardy_fast.evaluation import Composite
from nardy_fast.evaluation.builtin import Builtin
from nardy_fast.evaluation.classes import BEAROFF, CONTACT, OVER, RACE, classify
from nardy_fast.evaluation.composite import CompositeBuiltin
from nardy_fast.evaluation.evaluators import resolve_evaluator, tables_for, terminal_probabilities
from nardy_fast.evaluation.outcomes import EVALUATORS, equity

IMPLS = implementations()
CORE: Any = IMPLS.get("cython")
REFERENCE = IMPLS["python"]
needs_core = pytest.mark.skipif(CORE is None, reason="the core is not built")
NET = EVALUATORS.index("net")
Rows = npt.NDArray[np.int8]
CASES = [("long", {}), ("sixone", {}), ("short", {}), ("gulbar", {}), ("crazy", {}), ("crazy", {"ladder_per_value": 4})]
IDS = [f"{v}{'-ladder4' if f else ''}" for v, f in CASES]


@cache
def played(variant: str, ladder4: bool = False) -> Rows:
    """Every position of 30 games, random and greedy heuristic ones: every class in each variant."""
    flags: dict[str, Any] = {"ladder_per_value": 4} if ladder4 else {}
    _, a = nardy_fast.playout(variant, 20, seed=5, trajectories=True, **flags)
    _, b = nardy_fast.playout(variant, 10, seed=6, trajectories=True, policy=Greedy("heuristic"), **flags)
    return np.ascontiguousarray(np.concatenate([a.rows, b.rows]))


def kernel_values(module: Any, rows: Rows, tables: object) -> npt.NDArray[np.float64]:
    out = np.full((len(rows), 5), np.nan)
    evaluate = module.IMPLEMENTATION_RECORD.kernels.evaluate if module is not CORE else CORE._core.evaluate_rows
    assert evaluate(rows, NET, tables, out) == -1
    return out


# --- (a) the twins, and what each class is valued by -------------------------------------------------------------


@needs_core
@pytest.mark.parametrize(("variant", "flags"), CASES, ids=IDS)
@pytest.mark.parametrize("contact", ["network", "heuristic", "pubeval"])
def test_the_twins_give_the_same_floats(variant: str, flags: dict[str, object], contact: str) -> None:
    """With the same (full) tables, the C composite and the reference's give the same floats, row by row."""
    if contact == "pubeval" and variant != "short":
        pytest.skip("pubeval serves short nardy only")
    rows = played(variant, bool(flags))
    evaluator = resolve_evaluator(Composite(contact=contact))
    kernels = CORE.Position.kernels
    assert isinstance(evaluator, Builtin)
    tables: Any = tables_for(kernels, evaluator, rows[:1])  # a search's: the full tables of the variant
    assert tables[0] is not None and tables[0][0].shape[0] == 54264 and tables[0][2].shape == (924, 924)
    np.testing.assert_array_equal(kernel_values(REFERENCE, rows, tables), kernel_values(CORE, rows, tables))


@needs_core
@pytest.mark.parametrize(("variant", "flags"), CASES, ids=IDS)
def test_each_class_is_valued_by_its_own_evaluator(variant: str, flags: dict[str, object]) -> None:
    rows = played(variant, bool(flags))
    found = classify(rows)
    values = CORE.evaluate(rows, "net")
    np.testing.assert_array_equal(values[found == OVER], terminal_probabilities(rows[found == OVER]))
    np.testing.assert_array_equal(values[found == CONTACT], CORE.evaluate(rows[found == CONTACT], "network"))
    races = (found == RACE) | (found == BEAROFF)
    np.testing.assert_array_equal(values[races], CORE.evaluate(rows[races], "race"))
    bearoff = values[found == BEAROFF]
    assert len(bearoff) and (bearoff[:, 1:] == 0).all()  # no mars with six checkers or fewer left
    # the hint's search values a position as evaluate does
    assert not np.array_equal(values[races], CORE.evaluate(rows[races], "network"))


@pytest.mark.parametrize(("variant", "flags"), CASES, ids=IDS)
def test_both_implementations_alike_through_evaluate(variant: str, flags: dict[str, object]) -> None:
    """Through ``evaluate``, each implementation with tables of its own: the positions whose tables the
    reference builds quickly (bear-offs of at most four checkers a side), every other class."""
    rows = played(variant, bool(flags))
    left = 15 - rows[:, layout.OFF : layout.OFF + 2].astype(int)
    quick = ~layout.is_bearoff(rows) | layout.is_over(rows) | (left.max(axis=1) <= 4)
    part = rows[quick & (layout.is_race(rows) | (np.arange(len(rows)) % 3 == 0))]
    assert set(classify(part).tolist()) == {OVER, BEAROFF, RACE, CONTACT}
    values = [module.evaluate(part, "net") for module in IMPLS.values()]
    for other in values[1:]:
        np.testing.assert_array_equal(other, values[0])


# --- (b) two-sided bear-offs: the best exact winning chance at 0 ply --------------------------------------------------


CHECKERS = 3
ROLLS = np.array(nardy_fast.ROLLS, dtype=np.int8)


def bearoff_rows(variant: str, flags: dict[str, Any]) -> Rows:
    """Every bear-off of one to three checkers a side, White to move."""
    ids = np.arange(1, len(all_layouts(CHECKERS)))
    x, y = np.repeat(ids, len(ids)), np.tile(ids, len(ids))
    counts = all_layouts(CHECKERS).astype(np.int8)
    template = nardy_fast.Position.from_board(
        variant, [1] + [0] * 11 + [-1] + [0] * 11, turn="white", off=(14, 14), first_roll=(False, False), **flags
    ).to_array()
    rows = np.tile(template, (len(x), 1))
    rows[:, layout.BOARD : layout.BOARD + 24] = 0
    rows[:, layout.BOARD : layout.BOARD + 6] = counts[x]
    black = [mover_point(variant, m) - 1 for m in range(1, 7)]
    rows[:, [layout.BOARD + c for c in black]] = -counts[y]
    rows[:, layout.OFF] = 15 - counts[x].sum(axis=1)
    rows[:, layout.OFF + 1] = 15 - counts[y].sum(axis=1)
    assert (classify(rows) == BEAROFF).all()
    return np.ascontiguousarray(rows)


def home_counts(rows: Rows, side: npt.NDArray[np.int64], variant: str) -> npt.NDArray[np.int64]:
    """The counts (n, 6) of ``side``'s checkers on its own points 1..6."""
    white = rows[:, layout.BOARD : layout.BOARD + 6].astype(np.int64)
    columns = [layout.BOARD + mover_point(variant, m) - 1 for m in range(1, 7)]
    black = -rows[:, columns].astype(np.int64)
    return np.where(side[:, None] == 0, white, black)


def exact_win(children: Rows, movers: npt.NDArray[np.int64], variant: str, win: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Each child's exact chance for the side that moved (``movers``), from a two-sided table ``win`` of up to
    three checkers a side: 1 when it bore off its last checker; else the table's chance of the side to move,
    turned round when the turn passed."""
    over = layout.is_over(children)
    to_move = children[:, layout.TURN].astype(np.int64)
    x = layout_ids(home_counts(children, to_move, variant))
    y = layout_ids(home_counts(children, 1 - to_move, variant))
    chance = win[np.minimum(x, len(win) - 1), np.minimum(y, len(win) - 1)]
    out = np.where(to_move == movers, chance, 1.0 - chance)
    return np.where(over, (layout.winner(children) == movers).astype(np.float64), out)


@cache
def exact_table(variant: str, ladder4: bool) -> npt.NDArray[np.float64]:
    flags = {"ladder_per_value": 4} if ladder4 else {}
    return np.asarray(nardy_fast.reference.two_sided(variant, checkers=CHECKERS, **flags).win)


def chosen_by(values: npt.NDArray[np.float64], rows: Rows, children: Rows, offsets: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The child a 0-ply Greedy picks: the best equity for the side that moved (the first of equal ones)."""
    owners = np.repeat(np.arange(len(rows)), np.diff(offsets))
    passed = children[:, layout.TURN] != rows[owners, layout.TURN]
    seen = equity(values)
    seen = np.where(passed, -seen, seen)
    best = np.asarray(REFERENCE.segment_argmax(seen, offsets), dtype=np.int64)  # the first of the best
    return offsets[:-1] + best


@pytest.mark.parametrize(("variant", "flags"), CASES, ids=IDS)
def test_the_default_plays_every_small_bearoff_best(variant: str, flags: dict[str, object]) -> None:
    """Every bear-off of up to three checkers a side and every roll: the move ``"net"`` picks at 0 ply (through
    ``evaluate`` as Greedy's batch does, and, in the core, its C hint) has the best exact winning chance of
    all the moves, by the reference's two-sided table; the bare network misses it in some."""
    win = exact_table(variant, bool(flags))
    positions = bearoff_rows(variant, flags)
    rows = np.repeat(positions, len(ROLLS), axis=0)
    rolls = np.tile(ROLLS, (len(positions), 1))
    module = CORE or REFERENCE
    children, offsets, _ = module.batch_children(rows, rolls)
    owners = np.repeat(np.arange(len(rows)), np.diff(offsets))
    exact = exact_win(children, rows[owners, layout.TURN].astype(np.int64), variant, win)
    best = np.maximum.reduceat(exact, offsets[:-1])
    choice = np.diff(offsets) > 1
    for name in ("net", "network"):
        picked = chosen_by(module.evaluate(children, name), rows, children, offsets)
        missed = (exact[picked] < best - 1e-12) & choice
        if name == "net":
            assert not missed.any(), rows[np.flatnonzero(missed)[:3]]
        else:
            assert missed.sum() > 0.01 * choice.sum()  # what the composite is for
    if CORE is not None:
        kernels = CORE.Position.kernels
        tables = tables_for(kernels, Builtin("net"), positions[:1])
        tops = []
        for i in range(len(rows)):
            found, values, _ = CORE._core.hint_values(rows[i], int(rolls[i, 0]), int(rolls[i, 1]), 0, NET, tables)
            tops.append(found[int(np.argmax(equity(values)))])
        hinted = exact_win(np.array(tops), rows[:, layout.TURN].astype(np.int64), variant, win)
        assert (hinted >= best - 1e-12).all()


def test_the_reference_plays_small_bearoffs_as_the_core() -> None:
    """The reference's Greedy("net") picks the same moves on a sample of those bear-offs (every 23rd)."""
    positions = bearoff_rows("short", {})[::23]
    rows = np.repeat(positions, len(ROLLS), axis=0)
    rolls = np.tile(ROLLS, (len(positions), 1))
    picks = []
    for module in IMPLS.values():
        children, offsets, _ = module.batch_children(rows, rolls)
        picks.append(children[chosen_by(module.evaluate(children, "net"), rows, children, offsets)])
    for other in picks[1:]:
        np.testing.assert_array_equal(other, picks[0])


# --- (c) a user's composite ------------------------------------------------------------------------------------------


class Wrapped:
    """A Python evaluator that asks the given implementation's built-in one: its values are the built-in's, but
    the composite holding it is dispatched in Python, class by class."""

    def __init__(self, module: Any, name: str) -> None:
        self.module, self.name, self.calls = module, name, 0

    def evaluate(self, rows: Rows) -> npt.NDArray[np.float64]:
        self.calls += 1
        values: npt.NDArray[np.float64] = self.module.evaluate(np.array(rows), self.name)
        return values


def test_a_composite_of_built_in_parts_is_the_built_in_composite() -> None:
    assert resolve_evaluator(Composite()) == Builtin("net")
    heuristic = resolve_evaluator(Composite(contact="heuristic"))
    assert isinstance(heuristic, CompositeBuiltin) and heuristic.kind == NET and heuristic.contact == Builtin("heuristic")
    assert repr(heuristic) == "Composite(contact='heuristic')"
    python = Composite(contact=Wrapped(REFERENCE, "heuristic"))
    assert resolve_evaluator(python) is python and python.builtin is None
    assert Composite(race="heuristic").builtin is None  # not composed as "net" composes its parts


@pytest.mark.parametrize("name", sorted(IMPLS))
def test_a_python_composite_is_the_built_in_one(name: str) -> None:
    """The same parts, dispatched in Python class by class or in one built-in evaluator: the same values,
    hints and greedy games."""
    module = IMPLS[name]
    rows = played("short")[::4]
    left = (15 - rows[:, layout.OFF : layout.OFF + 2].astype(int)).max(axis=1)
    rows = rows[(left <= 4) | ~layout.is_bearoff(rows)]  # tables the reference builds quickly
    wrapped = Wrapped(module, "heuristic")
    python = Composite(contact=wrapped)
    np.testing.assert_array_equal(module.evaluate(rows, python), module.evaluate(rows, Composite(contact="heuristic")))
    assert wrapped.calls == 1  # one call for all the rows in contact
    position = module.Position.from_array(rows[len(rows) // 2])
    if not position.is_over() and not position.pending:
        assert position.hint((5, 2), evaluator=python) == position.hint((5, 2), evaluator=Composite(contact="heuristic"))
    if name == "cython":  # the reference's games reach bear-offs of 15 checkers, whose tables it builds slowly
        a = module.duel(Greedy(python), Greedy(Composite(contact="heuristic")), "short", 4, seed=3)
        assert a.ppg == 0.0 and len(a.points) == 4


def test_a_composite_of_python_parts_evaluates_itself() -> None:
    rows = played("long")[::5]
    rows = rows[~layout.is_over(rows)]
    python = Composite(contact=Wrapped(REFERENCE, "heuristic"), race=Wrapped(REFERENCE, "heuristic"),
                       bearoff=Wrapped(REFERENCE, "heuristic"))
    np.testing.assert_array_equal(python.evaluate(rows), REFERENCE.evaluate(rows, "heuristic"))
    with pytest.raises(NardyError, match=r"^evaluator: has built-in parts: value rows with nardy_fast\.evaluate"):
        Composite().evaluate(rows)


# --- (d) bad input, refused alike ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("field", "value"), [("contact", "nope"), ("race", 42), ("bearoff", None), ("contact", np.zeros(3))])
def test_bad_parts(field: str, value: object) -> None:
    with pytest.raises(NardyError, match=rf"^{field}: must be one of \('race', 'pubeval', 'heuristic', 'net', 'network'\)"):
        Composite(**{field: value})


def test_bad_built_in_composites() -> None:
    with pytest.raises(NardyError, match=r"^contact: must be one of \('pubeval', 'heuristic', 'network'\) or a Network"):
        CompositeBuiltin("net", Builtin("race"))
    with pytest.raises(NardyError, match=r"^contact: "):
        CompositeBuiltin("heuristic", Builtin("heuristic"))


def same_error(call: Any) -> str:
    found = []
    for module in IMPLS.values():
        with pytest.raises(NardyError) as caught:
            call(module)
        found.append((type(caught.value), str(caught.value)))
    assert all(f == found[0] for f in found), found
    return found[0][1]


def test_a_composite_serves_the_variants_of_its_contact_part() -> None:
    long_rows = played("long")[:5]
    message = same_error(lambda m: m.evaluate(long_rows, Composite(contact="pubeval")))
    assert message.startswith("evaluator: evaluates short nardy only (rows[0] is long)")
    message = same_error(lambda m: m.Position.start("long").hint((3, 1), evaluator=Composite(contact="pubeval")))
    assert message.startswith("evaluator: evaluates short nardy only")
    spoiled = played("short")[:3].copy()
    spoiled[1, 0] += 1
    message = same_error(lambda m: m.evaluate(spoiled, Composite(contact=Wrapped(m, "heuristic"))))
    assert message.startswith("rows[1]: board: ")


@needs_core
def test_the_kernel_refuses_bad_tables() -> None:
    rows = played("short")[:4]
    kernels = CORE.Position.kernels
    good: Any = tables_for(kernels, Builtin("net"), rows)
    out = np.zeros((len(rows), 5))
    for bad, problem in [
        (None, "tables: are not the composite's tables"),
        (good[:2], "tables: are not the composite's tables"),
        ((good[0], EVALUATORS.index("race"), None), "tables: name no evaluator a composite values contact with"),
        ((good[0], NET, good[2]), "tables: name no evaluator a composite values contact with"),
        ((good[0], EVALUATORS.index("network"), None), "tables: are not a network's tables"),
    ]:
        with pytest.raises(NardyError) as caught:
            CORE._core.evaluate_rows(rows, NET, bad, out)
        assert str(caught.value).startswith(problem), caught.value
