"""Cube decisions of positions (``Position.cube_decision``, ``nardy_fast.cube_decisions``, the cubeful
``Position.hint``; docs/rules.md, The doubling cube and Cubeful search): the implementations agree; the 0-ply
decision is the cube facts' applied to the evaluator's outputs and the efficiency of the position's class; the
1-ply search equals a brute force written here from the public positions and the cube facts alone; the batch
is the positions one by one; bad input is a NardyError naming the field, the same in both implementations.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

import nardy_fast
from nardy_fast import Cube, Match, NardyError
from nardy_fast.analysis import AnalysedPosition
from nardy_fast.bearoff.semantics import ROLL_ORDER, ROLL_WEIGHTS
from nardy_fast.cube import CubeDecision, cube_decision, cube_efficiency
from nardy_fast.cube.janowski import EFFICIENCIES, GNUBG
from nardy_fast.cube.met import match_equity_table
from nardy_fast.cubeful import MatchHint, MoneyHint

IMPLEMENTATIONS: list[type[AnalysedPosition]] = [nardy_fast.reference.Position, nardy_fast.Position]
AnyPosition = AnalysedPosition
STATES = [
    (Cube(), Match()),
    (Cube(2, "white"), Match()),
    (Cube(2, "black"), Match(jacoby=True, beavers=True)),
    (Cube(), Match(7, (2, 4))),
    (Cube(2, "black"), Match(5, (1, 0))),
    (Cube(), Match(5, (3, 4), crawford=True)),
    (Cube(), Match(5, (4, 2))),
]


def positions(variant: str, count: int, seed: int, every: int = 5) -> list[AnalysedPosition]:
    """Positions of seeded random games of ``variant``, one in ``every`` turns, with no pending list."""
    chooser = random.Random(seed)
    found: list[AnalysedPosition] = []
    game_seed = seed
    while len(found) < count:
        game = nardy_fast.Game(variant, seed=game_seed)
        game_seed += 1
        turn = 0
        while not game.is_over() and len(found) < count:
            if turn % every == every - 1 and not game.position.pending:
                found.append(nardy_fast.Position.from_array(game.position.to_array()))
            game.play(chooser.choice(game.legal_moves()))
            turn += 1
    return found


def class_of(position: AnyPosition) -> str:
    """The efficiency class of a position from its public judgement (docs/rules.md, The doubling cube)."""
    if position.is_over():
        return "over"
    if position.is_race():
        return "bearoff" if position.is_bearoff() and not position.pending else "race"
    return "contact"


def pips(position: AnyPosition) -> int:
    return position.pips()[0 if position.turn == "white" else 1]


def static(position: AnyPosition, cube: Cube, match: Match, plies: int) -> CubeDecision:
    """The 0-ply decision of ``position``'s side to move by the cube facts."""
    x = cube_efficiency(class_of(position), pips(position), plies, position.variant)
    return cube_decision(position.evaluate("net"), x, cube=cube, match=match, side=position.turn,
                         variant=position.variant)


def leaf_value(position: AnyPosition, cube: Cube, match: Match) -> float:
    """The 0-ply value of a position (not the root) for its side to move, which doubles where that is worth
    more: GNU Backgammon's ``GetECF3`` at a leaf."""
    found = static(position, cube, match, 1)
    may = cube.value * 2 <= 4096 and match.may_double(cube, position.turn)
    if may and found.double_take >= found.no_double and found.double_pass >= found.no_double:
        return min(float(found.double_take), float(found.double_pass))
    return float(found.no_double)


def flip(value: float, match: Match) -> float:
    """A value seen by the other side: money points negated, match winning chances their complement."""
    return -value if match.length is None else 1.0 - value


def brute_one_ply(position: AnyPosition, cube: Cube, match: Match) -> tuple[float, float]:
    """No double and double-take of ``position`` at 1 ply, by brute force: for each roll the move whose
    0-ply cubeful value (the opponent's, under the cube as it is) is the lowest, then its values under the
    cube as it is and as doubled and taken, averaged and seen by the side on roll (short nardy: the turn
    always passes)."""
    me = position.turn
    other = "black" if me == "white" else "white"
    doubled = Cube(cube.value * 2, other)
    nd = dt = 0.0
    for roll, weight in zip(ROLL_ORDER, ROLL_WEIGHTS):
        results: list[AnalysedPosition] = [move.result for move in position.legal_moves(tuple(roll))]  # type: ignore[misc]
        mine = [flip(leaf_value(child, cube, match), match) for child in results]
        best = results[int(np.argmax(mine))]
        nd += weight * flip(leaf_value(best, cube, match), match)
        dt += weight * flip(leaf_value(best, doubled, match), match)
    scale = 2.0 if match.length is None else 1.0
    return nd / 36.0, scale * dt / 36.0


# --- the implementations agree, at 0 ply the facts --------------------------------------------------------------


@pytest.mark.parametrize("variant", nardy_fast.VARIANTS)
def test_implementations_agree_and_zero_ply_is_the_facts(variant: str) -> None:
    for i, position in enumerate(positions(variant, 6, seed=11)):
        cube, match = STATES[i % len(STATES)]
        if cube.owner is not None and match.length is None and i % 2:
            cube = Cube(cube.value, position.turn)
        for plies in (0, 1):
            found = [Position.from_array(position.to_array()).cube_decision(plies=plies, cube=cube, match=match)
                     for Position in IMPLEMENTATIONS]
            assert np.allclose(found[0].equities, found[1].equities, atol=1e-9, rtol=0), (variant, plies)
            assert found[0].action == found[1].action
            assert np.allclose(found[0].outputs, found[1].outputs, atol=1e-9, rtol=0)
        expected = static(position, cube, match, 0)
        ours = position.cube_decision(cube=cube, match=match)
        assert np.allclose(ours.equities, expected.equities, atol=1e-12, rtol=0), (variant, i)
        assert ours.action == expected.action
        assert ours.take_point == pytest.approx(float(expected.take_point), abs=1e-12)
        assert ours.cash_point == pytest.approx(float(expected.cash_point), abs=1e-12)


# --- 1 ply against a brute force ---------------------------------------------------------------------------------


@pytest.mark.parametrize("state", range(len(STATES)))
def test_one_ply_is_the_brute_force(state: int) -> None:
    cube, match = STATES[state]
    for position in positions("short", 2, seed=20 + state, every=7):
        if cube.owner is not None and match.length is None:
            cube = Cube(cube.value, position.turn)  # the side on roll owns it: it may redouble
        nd, dt = brute_one_ply(position, cube, match)
        found = position.cube_decision(plies=1, cube=cube, match=match)
        assert found.no_double == pytest.approx(nd, abs=1e-9), (state, position.to_text())
        assert found.double_take == pytest.approx(dt, abs=1e-9), (state, position.to_text())


def test_one_ply_is_the_brute_force_in_long_nardy() -> None:
    # long nardy's measured efficiencies and its own match equity table; the search is short nardy's
    for position in positions("long", 2, seed=5, every=9):
        for cube, match in (STATES[0], STATES[3]):
            nd, dt = brute_one_ply(position, cube, match)
            found = nardy_fast.reference.Position.from_array(position.to_array()).cube_decision(
                plies=1, cube=cube, match=match)
            assert (found.no_double, found.double_take) == pytest.approx((nd, dt), abs=1e-9)


def test_one_ply_outputs_are_the_chosen_replies_average() -> None:
    # in the Crawford game the cube is dead, so every value is the cubeless match winning chances, linear in
    # the outputs: the 1-ply no-double value is those chances of the 1-ply outputs (the chosen replies'
    # average), after the match's table
    from nardy_fast.cube.matchplay import Score, dead_mwc

    match = Match(5, (4, 1), crawford=True)
    for position in positions("short", 3, seed=3):
        found = position.cube_decision(plies=1, match=match)
        assert found.action == "Never double, take (dead cube)"
        me = position.turn
        them = "black" if me == "white" else "white"
        score = Score(match_equity_table("kazaross-xg2"), match.away(me), match.away(them), True)
        assert found.no_double == pytest.approx(float(dead_mwc(found.outputs, score, 1)), abs=1e-12)
        assert found.outputs.sum() > 0 and 0 < found.outputs[0] < 1


# --- the batch ---------------------------------------------------------------------------------------------------


def test_batch_is_the_positions_one_by_one() -> None:
    found_positions = positions("short", 12, seed=2, every=3) + positions("gulbar", 8, seed=2, every=3)
    rows = np.stack([p.to_array() for p in found_positions])
    assert len({int(r[nardy_fast.layout.TURN]) for r in rows}) == 2  # both sides on roll
    for cube, match in (STATES[0], STATES[4]):
        batch = nardy_fast.cube_decisions(rows, cube=cube, match=match)
        assert isinstance(batch.action, tuple) and len(batch.action) == len(rows)
        for i, position in enumerate(found_positions):
            one = position.cube_decision(cube=cube, match=match)
            assert np.allclose(batch.equities[i], one.equities, atol=1e-12, rtol=0)
            assert batch.action[i] == one.action
            assert float(np.asarray(batch.no_double)[i]) == pytest.approx(one.no_double, abs=1e-12)
        single = nardy_fast.cube_decisions(rows[0], cube=cube, match=match)
        assert isinstance(single.action, str) and isinstance(single.no_double, float)


def test_batch_of_the_reference_agrees() -> None:
    rows = np.stack([p.to_array() for p in positions("long", 10, seed=4, every=3)])
    ours = nardy_fast.cube_decisions(rows, match=Match(7, (2, 4)))
    theirs = nardy_fast.reference.IMPLEMENTATION_RECORD.cube_decisions(rows, match=Match(7, (2, 4)))
    assert np.allclose(ours.equities, theirs.equities, atol=1e-9, rtol=0)
    assert ours.action == theirs.action


def test_another_table() -> None:
    position = positions("short", 1, seed=9)[0]
    table = match_equity_table("kazaross-xg2")
    match = Match(5, (1, 2))
    assert position.cube_decision(match=match, table=table).equities == pytest.approx(
        position.cube_decision(match=match).equities)


def test_a_match_reads_its_variants_table() -> None:
    # short nardy is played at the table as backgammon is: the published table; every other variant its own
    match = Match(7, (2, 4))
    for variant in nardy_fast.VARIANTS:
        own = match_equity_table("kazaross-xg2" if variant == "short" else variant)
        other = match_equity_table("long" if variant == "short" else "kazaross-xg2")
        position = positions(variant, 1, seed=9)[0]
        found = position.cube_decision(match=match)
        assert np.array_equal(found.equities, position.cube_decision(match=match, table=own).equities), variant
        assert not np.allclose(found.equities, position.cube_decision(match=match, table=other).equities), variant
    # a batch of mixed variants reads each row's table, the same as one by one
    mixed = positions("short", 3, seed=3) + positions("sixone", 3, seed=3) + positions("short", 2, seed=8)
    batch = nardy_fast.cube_decisions(np.stack([p.to_array() for p in mixed]), match=match)
    for i, position in enumerate(mixed):
        assert np.array_equal(batch.equities[i], position.cube_decision(match=match).equities)
    with pytest.raises(NardyError, match="variant"):
        cube_decision([0.5, 0.1, 0.0, 0.1, 0.0], 0.7, match=match, variant="chess")


# --- the cubeful hint --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("Position", IMPLEMENTATIONS)
def test_cubeful_hint_ranks_by_the_opponents_decision(Position: type[AnyPosition]) -> None:
    position = Position.from_array(positions("short", 1, seed=14)[0].to_array())
    for cube, match, kind in ((Cube(), Match(), MoneyHint), (Cube(), Match(7, (5, 2)), MatchHint)):
        ranked = position.hint((4, 2), cube=cube, match=match)
        assert all(type(entry) is kind for entry in ranked)
        expected = sorted(((flip(leaf_value(m.result, cube, match), match), i) for i, m in  # type: ignore[arg-type]
                           enumerate(position.legal_moves((4, 2)))), key=lambda pair: (-pair[0], pair[1]))
        moves = position.legal_moves((4, 2))
        assert [str(entry[0]) for entry in ranked] == [str(moves[i]) for _, i in expected]
        assert [entry[1] for entry in ranked] == pytest.approx([value for value, _ in expected], abs=1e-12)
    # no cube and no match: the cubeless hint, unchanged
    assert position.hint((4, 2)) == position.hint((4, 2), evaluator="net", plies=0)


def test_cubeful_hint_implementations_agree_at_one_ply() -> None:
    rows = positions("sixone", 1, seed=8)[0].to_array()
    found = [Position.from_array(rows).hint((6, 5), plies=1, match=Match(3, (0, 1))) for Position in IMPLEMENTATIONS]
    assert [str(m) for m, _ in found[0]] == [str(m) for m, _ in found[1]]
    assert [v for _, v in found[0]] == pytest.approx([v for _, v in found[1]], abs=1e-9)


# --- cube efficiency per variant ---------------------------------------------------------------------------------


def test_efficiencies_per_variant_short_nardys_are_gnu_backgammons() -> None:
    assert EFFICIENCIES["short"] is GNUBG and GNUBG.measured
    # the long family's were measured (tests/test_cube_efficiency.py): one figure per class at every depth
    for variant in ("long", "sixone", "gulbar", "crazy"):
        assert EFFICIENCIES[variant].measured
        for kind in ("contact", "race", "bearoff"):
            assert len({cube_efficiency(kind, count, plies, variant) for count in (30, 77) for plies in (0, 2)}) == 1
    # GNU Backgammon's race rule: 0.60 + 0.0025 x 77 = 0.7925 at 0 ply; deeper 0.55 + 0.00125 x 77 = 0.64625,
    # and 0.55 + 0.00125 x 200 = 0.80 held to 0.70
    assert cube_efficiency("race", 77, 0, "short") == pytest.approx(0.7925, abs=1e-7)
    assert cube_efficiency("race", 77, 2, "short") == pytest.approx(0.64625, abs=1e-7)
    assert cube_efficiency("race", 200, 2, "short") == 0.70
    with pytest.raises(NardyError, match="variant"):
        cube_efficiency("race", 77, 0, "backgammon")


# --- bad input ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"cube": 2}, "cube"),
        ({"cube": "centred"}, "cube"),
        ({"match": 7}, "match"),
        ({"match": (7, 0, 0)}, "match"),
        ({"plies": -1}, "plies"),
        ({"plies": 3}, "plies"),
        ({"plies": "1"}, "plies"),
        ({"plies": 1.0}, "plies"),
        ({"evaluator": "oracle"}, "evaluator"),
        ({"table": "kazaross-xg2", "match": Match(7)}, "table"),
        ({"match": Match(33)}, "match.length"),
    ],
)
@pytest.mark.parametrize("Position", IMPLEMENTATIONS)
def test_bad_input_names_the_field(Position: type[AnyPosition], options: dict[str, object], field: str) -> None:
    position = Position.start("short")
    with pytest.raises(NardyError) as error:
        position.cube_decision(**options)  # type: ignore[arg-type]
    assert str(error.value).startswith(f"{field}:"), str(error.value)
    record = nardy_fast.reference.IMPLEMENTATION_RECORD if Position is nardy_fast.reference.Position else None
    batch = nardy_fast.cube_decisions if record is None else record.cube_decisions
    with pytest.raises(NardyError) as again:
        batch(position.to_array()[None, :], **options)  # type: ignore[arg-type]
    assert str(again.value) == str(error.value)
    if "plies" not in options and "table" not in options:
        with pytest.raises(NardyError) as hinted:
            position.hint((3, 1), **{"cube": Cube(), **options})  # type: ignore[arg-type]
        assert str(hinted.value) == str(error.value)


@pytest.mark.parametrize("Position", IMPLEMENTATIONS)
def test_bad_rows_name_the_row(Position: type[AnyPosition]) -> None:
    rows = np.stack([Position.start("short").to_array()] * 2)
    rows[1, 0] = 9  # too many checkers
    record = nardy_fast.reference.IMPLEMENTATION_RECORD if Position is nardy_fast.reference.Position else None
    batch = nardy_fast.cube_decisions if record is None else record.cube_decisions
    with pytest.raises(NardyError, match=r"^rows\[1\]"):
        batch(rows)



# --- the command line --------------------------------------------------------------------------------------------

RACE = "short w 2:2,3:3,4:3,5:3,6:4,18:-1,19:-3,20:-4,21:-3,22:-4 first=-"


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    from nardy_fast.__main__ import main

    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize(
    ("options", "match"),
    [([], Match()), (["--match", "5", "--score", "2-0"], Match(5, (2, 0))),
     (["--match", "7", "--score", "5-6", "--crawford", "--plies", "1"], Match(7, (5, 6), crawford=True))],
)
def test_cli_prints_the_decision(options: list[str], match: Match, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run_cli(["cube", RACE, *options], capsys)
    assert (status, err) == (0, "")
    plies = int(options[options.index("--plies") + 1]) if "--plies" in options else 0
    found = nardy_fast.Position.from_text(RACE).cube_decision(match=match, plies=plies)
    printed = {line[:16].strip(): line[16:].split() for line in out.splitlines() if line.startswith(("no ", "double"))}
    assert printed["no double"][0] == f"{found.no_double:+.5f}"
    assert printed["double, take"][0] == f"{found.double_take:+.5f}"
    assert printed["double, pass"][0] == f"{found.double_pass:+.5f}"
    assert f"proper action: {found.action}\n" in out
    assert f"take point: {found.take_point:.4f}   cash point: {found.cash_point:.4f}" in out
    assert f"win {found.outputs[0]:.4f}" in out


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (["cube", RACE, "--score", "2-4"], "--score"),
        (["cube", RACE, "--match", "7", "--score", "2-7"], "--score"),
        (["cube", RACE, "--match", "7", "--score", "2-4", "--crawford"], "--crawford"),
        (["cube", RACE, "--cube", "3"], "--cube"),
        (["cube", RACE, "--owner", "white"], "--owner"),
        (["cube", RACE, "--plies", "3"], "--plies"),
        (["cube", RACE, "--variant", "long"], "--variant"),
        (["cube"], "POSITION"),
        (["cube", "short w 13:-15 off=15/0"], "POSITION"),
    ],
)
def test_cli_bad_input_names_the_option(argv: list[str], option: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run_cli(argv, capsys)
    assert (status, out) == (2, ""), (status, out, err)
    assert err.startswith(f"nardy-fast: error: {option}: ") and err.count("\n") == 1, err
