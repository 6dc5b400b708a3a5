"""Whole games: the seeded dice, ``Game`` (who starts, the opening, extra rolls, transfers, records that
replay), ``playout`` in both implementations, and the row helpers of ``nardy_fast.layout``.

The compiled core plays its games in C; the engine's one Python game loop (``lockstep.seats_playout``) plays
the same games over the core's ``batch_children``, quick enough for a thousand games per setting, which checks
the C loop's sequencing; the reference's playouts (that loop over the reference's moves) are checked against
the core's on a few games per variant (its rules are compared with the core's move by move in
tests/test_differential.py)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import nardy_fast
from nardy_fast import NardyError, corpus, dice, layout
from nardy_fast._dispatch import implementations
from nardy_fast.game import MAX_PLIES, RECORD, Game
from nardy_fast.kernels import Played, PlayoutArgs
from nardy_fast.lockstep import seats_playout
from nardy_fast.playouts import PlayoutOptions, bound, check_playout

IMPLS = implementations()
CORE = IMPLS.get("cython")
needs_core = pytest.mark.skipif(CORE is None, reason="the core is not built")


def python_loop(args: PlayoutArgs) -> Played:
    """The bound playout ``args`` in the engine's Python game loop over the core's kernels."""
    assert CORE is not None
    return seats_playout(CORE.Position.kernels, args)


#: Settings of the differential playouts: variant and flags.
SETTINGS: list[tuple[str, dict[str, object]]] = [
    ("long", {}),
    ("long", {"block_check": "per_step", "first_roll_exception_doubles": (6,)}),
    ("sixone", {}),
    ("sixone", {"sixone_extra_roll_requires_play": True}),
    ("short", {}),
    ("gulbar", {}),
    ("crazy", {}),
    ("crazy", {"normal_doubles_first_rolls": 3}),
    ("crazy", {"ladder_per_value": 4}),
    ("crazy", {"block_check": "per_step"}),
]
#: Test ids of SETTINGS: the variant and its flags, e.g. ``crazy-ladder_per_value=4``.
SETTING_IDS = ["-".join([v] + [f"{k}={x}" for k, x in f.items()]) for v, f in SETTINGS]


def test_dice_are_splitmix64_as_published() -> None:
    # SplitMix64's first output from state 0, as published with the algorithm
    assert dice.mix(0) == 0xE220A8397B1DCDAF
    # word() nests it as documented
    assert dice.word(3, 4, 5, dice.ROLL, 0) == dice.mix(dice.mix(dice.mix(3) ^ 4) ^ (5 << 8 | dice.ROLL << 4))


def test_dice_are_uniform_and_doubles_one_in_six() -> None:
    rolls = Counter(dice.roll(9, game, k) for game in range(120) for k in range(120))
    assert len(rolls) == 36
    total = sum(rolls.values())
    assert all(abs(n / total - 1 / 36) < 0.006 for n in rolls.values())
    doubles = sum(n for (a, b), n in rolls.items() if a == b) / total
    assert abs(doubles - 1 / 6) < 0.01
    choices = Counter(dice.choice(9, game, ply, 7) for game in range(50) for ply in range(140))
    assert sorted(choices) == list(range(7)) and max(choices.values()) - min(choices.values()) < 200


def test_dice_bytes_above_251_are_skipped() -> None:
    # Find a word with a rejected byte among its first two and check that the die after it is used instead.
    for counter in range(2000):
        w = dice.word(1, 2, counter, dice.ROLL, 0)
        values = [(w >> s) & 0xFF for s in range(0, 64, 8)]
        if any(v >= 252 for v in values[:2]):
            kept = [v % 6 + 1 for v in values if v < 252][:2]
            assert dice.roll(1, 2, counter) == tuple(kept)
            return
    pytest.fail("no word with a skipped byte found")


@pytest.mark.parametrize(("variant", "flags"), SETTINGS, ids=SETTING_IDS)
def test_games_replay_from_their_records(variant: str, flags: dict[str, object]) -> None:
    for number in range(3):
        game = Game(variant, seed=11, game=number, **flags)  # type: ignore[arg-type]
        while not game.is_over():
            moves = game.legal_moves()
            game.play(moves[dice.choice(11, number, game.plies, len(moves))])
        assert game.winner() in ("white", "black") and game.points() in (1, 2, 3)
        assert game.turns <= game.plies
        text = game.record()
        again = Game.from_record(text)
        assert again.record() == text and again.position == game.position


def test_who_starts_and_the_opening(Position: type[nardy_fast.reference.Position]) -> None:
    for number in range(40):
        white, black = dice.single_dice(5, number, 0)
        k = 0
        while white == black:
            k += 1
            white, black = dice.single_dice(5, number, k)
        fresh = Game("long", seed=5, game=number, position_class=Position)
        single = Game("long", seed=5, game=number, opening="use_single_dice", position_class=Position)
        starter = "white" if white > black else "black"
        assert fresh.position.turn == single.position.turn == starter
        assert single.roll == (max(white, black), min(white, black))
        assert fresh.roll == dice.roll(5, number, 0)


def test_extra_rolls_and_transfers_keep_the_side() -> None:
    # six-one: 6-1 rolls again (docs/rules.md, Six-one extra roll); gulbar: a transfer is played before the receiver's own roll
    game = Game(nardy_fast.Position.from_text("sixone w 12:-15,24:15"), seed=1)
    game.roll = (6, 1)
    move = game.legal_moves()[0]
    assert move.extra_roll
    game.play(move)
    assert game.position.turn == "white" and game.roll is not None
    transfer = Game(nardy_fast.Position.from_text("gulbar b 12:-15,18:1,24:14 first=b pending=6,6,6"), seed=1)
    assert transfer.roll is None
    transfer.play(transfer.legal_moves()[0])
    assert transfer.position.turn == "black" and transfer.roll is not None and transfer.turns == 0


@pytest.mark.slow
@needs_core
@pytest.mark.parametrize(("variant", "flags"), SETTINGS, ids=SETTING_IDS)
@pytest.mark.parametrize("policy", ["random", "first"])
def test_core_playout_equals_the_python_game_loop(
    variant: str, flags: dict[str, object], policy: str
) -> None:
    # crazy ladders reach hundreds of thousands of results (far more under ladder_per_value=4, and more often
    # when the first move is always taken), each a Python object in the loop compared with: fewer such games
    if variant == "crazy":
        ladder4 = flags.get("ladder_per_value") == 4
        many = (100 if ladder4 else 500) if policy == "random" else (2 if ladder4 else 10)
    else:
        many = 1000 if policy == "random" else 200
    for opening, games in (("fresh_roll", many), ("use_single_dice", min(many, 100))):
        found = nardy_fast.playout(variant, games, seed=20261130, policy=policy, opening=opening, **flags)  # type: ignore[call-overload]
        options = PlayoutOptions(policy=policy, opening=opening, flags=flags)
        args = bound(CORE.Position.kernels, check_playout(variant, games, 20261130, options))  # type: ignore[union-attr]
        expected = python_loop(args)
        assert found.dtype == RECORD
        assert np.array_equal(found, expected)
        assert (found["winner"] >= 0).all() and set(found["points"]) <= {1, 2, 3}


@pytest.mark.slow
@pytest.mark.parametrize("variant", nardy_fast.VARIANTS)
def test_the_reference_plays_the_same_games(variant: str) -> None:
    ref = IMPLS["python"].playout(variant, 4, seed=3)
    if CORE is not None:
        assert np.array_equal(ref, CORE.playout(variant, 4, seed=3))
    assert (ref["winner"] >= 0).all()


@needs_core
def test_playout_from_rows_and_positions() -> None:
    rows, _ = corpus.load("gulbar")
    starts = rows[:50][~layout.is_over(rows[:50])]
    found = nardy_fast.playout(starts, 300, seed=8)
    args = bound(CORE.Position.kernels, check_playout(starts, 300, 8, PlayoutOptions()))  # type: ignore[union-attr]
    assert np.array_equal(found, python_loop(args))
    assert list(found["start"][: len(starts) + 2]) == [*range(len(starts)), 0, 1]
    one = nardy_fast.Position.from_array(starts[3])
    assert CORE is not None
    assert np.array_equal(
        nardy_fast.playout(one, 5, seed=8)["winner"],
        python_loop(bound(CORE.Position.kernels, check_playout(one, 5, 8, PlayoutOptions())))["winner"],  # type: ignore[call-overload]
    )


@needs_core
def test_threads_do_not_change_the_games() -> None:
    one = nardy_fast.playout("short", 2000, seed=4)
    assert np.array_equal(one, nardy_fast.playout("short", 2000, seed=4, threads=2))
    assert np.array_equal(one, nardy_fast.playout("short", 2000, seed=4, threads=7))


def test_a_game_both_sides_stuck_in_is_given_up() -> None:
    # Two checkers of each side on the bar, and each side's home closed (six points of two or more): every roll
    # is a pass for both, for ever.
    stuck = "short w 1:2,2:2,3:2,4:2,5:2,6:3,19:-3,20:-2,21:-2,22:-2,23:-2,24:-2 bar=2/2"
    position = nardy_fast.Position.from_text(stuck)
    assert all(str(m) == "pass" for roll in nardy_fast.ROLLS for m in position.legal_moves(roll))
    for impl in IMPLS.values():
        record = impl.playout(impl.Position.from_text(stuck), 1, seed=1)[0]
        assert record["winner"] == -1 and record["points"] == 0 and record["plies"] == MAX_PLIES


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"start": "chess", "games": 1, "seed": 0}, "start"),
        ({"start": "long", "games": 0, "seed": 0}, "games"),
        ({"start": "long", "games": True, "seed": 0}, "games"),
        ({"start": "long", "games": 1, "seed": -1}, "seed"),
        ({"start": "long", "games": 1, "seed": 2**64}, "seed"),
        ({"start": "long", "games": 1, "seed": 0, "policy": "best"}, "policy"),
        ({"start": "long", "games": 1, "seed": 0, "threads": 0}, "threads"),
        ({"start": "long", "games": 1, "seed": 0, "opening": "odd"}, "opening"),
        ({"start": "long w 12:-15,24:15", "games": 1, "seed": 0}, "start"),
        ({"start": np.zeros((2, 3), dtype=np.int8), "games": 1, "seed": 0}, "start"),
        ({"start": np.zeros((1, 64), dtype=np.int8), "games": 1, "seed": 0}, "start[0]"),
        ({"start": "long", "games": 1, "seed": 0, "chess": 1}, "chess"),
    ],
)
def test_bad_playout_input(kwargs: dict[str, object], field: str) -> None:
    errors = []
    for impl in IMPLS.values():
        with pytest.raises(NardyError) as caught:
            impl.playout(**kwargs)
        errors.append((type(caught.value), str(caught.value)))
        assert str(caught.value).startswith(field)
    assert len(set(errors)) == 1


def test_finished_starts_are_refused() -> None:
    done = nardy_fast.Position.from_text("long w 13:-1 off=15/14 first=-").to_array()
    for impl in IMPLS.values():
        with pytest.raises(NardyError, match=r"^start\[0\]: is a finished game"):
            impl.playout(done[None, :], 1, seed=0)


def test_bad_game_input() -> None:
    with pytest.raises(NardyError, match=r"^opening"):
        Game("long", opening="odd")
    with pytest.raises(NardyError, match=r"^start"):
        Game(nardy_fast.Position.from_text("long w 13:-1 off=15/14 first=-"))
    with pytest.raises(NardyError, match=r"^record"):
        Game.from_record("1 w 6-5 24/18 18/13")
    game = Game("long", seed=2)
    with pytest.raises(nardy_fast.IllegalMoveError):
        game.play("1/off")
    text = game.record() + "1 b 6-6 24/18(4)\n"
    with pytest.raises(NardyError, match=r"^record"):
        Game.from_record(text)


def test_row_helpers_agree_with_positions() -> None:
    rows = []
    for variant in nardy_fast.VARIANTS:
        found = nardy_fast.playout(variant, 30, seed=6) if CORE is not None else None
        assert found is None or len(found) == 30
        game = Game(variant, seed=6)
        while not game.is_over():
            rows.append(game.position.to_array())
            game.play(game.legal_moves()[-1])
        rows.append(game.position.to_array())
    matrix = np.array(rows)
    positions = [nardy_fast.Position.from_array(row) for row in matrix]
    assert list(layout.turn(matrix)) == [("white", "black").index(p.turn) for p in positions]
    assert list(layout.winner(matrix)) == [{None: -1, "white": 0, "black": 1}[p.winner()] for p in positions]
    assert list(layout.is_over(matrix)) == [p.is_over() for p in positions]
    assert list(layout.points(matrix)) == [p.points() for p in positions]
    assert layout.is_over(matrix).sum() == len(nardy_fast.VARIANTS)
