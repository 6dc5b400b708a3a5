"""The turn contract (nardy_fast.game: who starts, the opening roll, when the next roll comes) and the pieces
every implementation shares around a playout: its options as one value, its ranges of games, its trajectories
joined, the implementation record.

Expected values are the rules' (docs/rules.md, Who starts; What follows a move), the dice module's, or the
same games played another way (whole, or split into ranges; through ``Game`` or ``playout``).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import nardy_fast
from nardy_fast import dice, layout
from nardy_fast.game import Game, opening_roll, rolls_next, who_starts
from nardy_fast.implementation import Implementation
from nardy_fast.playouts import PlayoutOptions, Trajectories, split_range

IMPLEMENTATIONS = sorted(nardy_fast._dispatch.implementations().items())


@pytest.mark.parametrize("game", range(40))
def test_who_starts_is_the_first_pair_of_different_single_dice(game: int) -> None:
    k = 0
    while dice.single_dice(9, game, k)[0] == dice.single_dice(9, game, k)[1]:
        k += 1
    assert who_starts(9, game) == dice.single_dice(9, game, k)


def test_the_opening_roll() -> None:
    assert opening_roll((2, 5), "use_single_dice") == (5, 2)
    assert opening_roll((6, 1), "use_single_dice") == (6, 1)
    assert opening_roll((6, 1), "fresh_roll") is None


def test_who_rolls_next() -> None:
    start = nardy_fast.Position.start("gulbar")
    pending = nardy_fast.Position.from_text("gulbar b 1:3,5:-2,13:12,17:-13 first=w pending=6,5")
    over = nardy_fast.Position.from_text("long w 13:-1 off=15/14 first=-")
    rows = np.stack([start.to_array(), pending.to_array(), over.to_array()])
    assert rolls_next(rows).tolist() == [True, False, False]
    assert rolls_next(start.to_array()).tolist() == [True]


@pytest.mark.parametrize("variant", nardy_fast.VARIANTS)
@pytest.mark.parametrize("opening", ["fresh_roll", "use_single_dice"])
def test_a_game_from_a_start_made_beforehand_is_the_variants_game(variant: str, opening: str) -> None:
    for number in range(8):
        made = Game(variant, seed=4, game=number, opening=opening)
        given = Game.from_start(nardy_fast.Position.start(variant), seed=4, game=number, opening=opening)
        for _ in range(30):
            if made.is_over():
                break
            moves = made.legal_moves()
            made.play(moves[-1])
            given.play(given.legal_moves()[-1])
        assert given.record() == made.record()


def test_a_game_from_a_start_needs_a_start() -> None:
    moved = nardy_fast.Position.start("long").play("24/18 18/13", (6, 5))
    with pytest.raises(nardy_fast.NardyError, match=r"^position: must be a starting position"):
        Game.from_start(moved)
    with pytest.raises(nardy_fast.NardyError, match=r"^position: must be a Position"):
        Game.from_start("long")  # type: ignore[arg-type]


@pytest.mark.parametrize(("first", "count", "parts"), [(0, 10, 3), (5, 7, 7), (3, 2, 5), (0, 1, 1), (100, 1000, 64)])
def test_ranges_cover_the_games_in_order(first: int, count: int, parts: int) -> None:
    ranges = split_range(first, count, parts)
    assert len(ranges) == parts and ranges[0][0] == first and ranges[-1][1] == first + count
    assert all(a[1] == b[0] for a, b in itertools.pairwise(ranges))
    sizes = [end - begin for begin, end in ranges]
    assert max(sizes) - min(sizes) <= 1


def test_options_are_the_keywords_of_playout() -> None:
    keywords = {"policy": "first", "threads": 2, "opening": "use_single_dice", "first_game": 3,
                "stratify": True, "batch": 7, "trajectories": False, "truncate": "bearoff",
                "max_results": 500, "truncate_plies": 5, "ladder_per_value": 4}  # fmt: skip
    options = PlayoutOptions.of(**keywords)
    assert options.flags == {"ladder_per_value": 4} and options.keywords() == keywords
    assert PlayoutOptions().keywords() == {"policy": "random", "threads": 1, "opening": "fresh_roll",
                                           "first_game": 0, "stratify": False, "batch": 1000,
                                           "trajectories": False, "truncate": None,
                                           "max_results": None, "truncate_plies": None}  # fmt: skip


@pytest.mark.parametrize(("name", "module"), IMPLEMENTATIONS)
def test_the_record_plays_options_as_playout_plays_keywords(name: str, module: object) -> None:
    record: Implementation = module.IMPLEMENTATION_RECORD  # type: ignore[attr-defined]
    assert record.name == name and record.Position is module.Position  # type: ignore[attr-defined]
    options = PlayoutOptions(policy="first", opening="use_single_dice", flags={"block_check": "per_step"})
    expected = module.playout("long", 6, seed=2, **options.keywords())  # type: ignore[attr-defined]
    assert record.play("long", 6, 2, options).tobytes() == expected.tobytes()  # type: ignore[union-attr]
    start = module.Position.start("short")  # type: ignore[attr-defined]
    rolled = record.roll_out(start, 36, 5, PlayoutOptions(stratify=False))
    assert rolled == module.rollout(start, 36, seed=5, stratify=False)  # type: ignore[attr-defined]


@pytest.mark.parametrize(("name", "module"), IMPLEMENTATIONS)
def test_trajectories_of_ranges_join_into_the_whole(name: str, module: object) -> None:
    play = module.playout  # type: ignore[attr-defined]
    whole = play("gulbar", 9, seed=6, trajectories=True)
    parts = [play("gulbar", end - begin, seed=6, first_game=begin, trajectories=True) for begin, end in split_range(0, 9, 4)]
    joined = Trajectories.concatenate([paths for _, paths in parts])
    paths: Trajectories = whole[1]
    assert np.array_equal(joined.rows, paths.rows) and np.array_equal(joined.rolls, paths.rolls)
    assert np.array_equal(joined.offsets, paths.offsets)
    assert joined.rows.shape[1] == layout.WIDTH


# --- issue 21's arguments: seeds by default, positions to encode, stratified rollouts that warn --------------


@pytest.mark.parametrize(("name", "module"), IMPLEMENTATIONS)
def test_seed_is_zero_unless_given(name: str, module: object) -> None:
    play, roll = module.playout, module.rollout  # type: ignore[attr-defined]
    assert play("short", 3).tobytes() == play("short", 3, seed=0).tobytes()
    start = module.Position.start("gulbar")  # type: ignore[attr-defined]
    assert roll(start, 20, stratify=False) == roll(start, 20, seed=0, stratify=False)
    assert Game("short").record() == Game("short", seed=0).record()


@pytest.mark.parametrize(("name", "module"), IMPLEMENTATIONS)
def test_a_position_is_encoded_as_its_row(name: str, module: object) -> None:
    position = module.Position.start("long").play("24/18 18/13", (6, 5))  # type: ignore[attr-defined]
    found = module.encode(position, "nardy")  # type: ignore[attr-defined]
    assert found.shape == (224,) and np.array_equal(found, module.encode(position.to_array(), "nardy"))  # type: ignore[attr-defined]


@pytest.mark.parametrize("games", [1, 36, 1295, 1297, 2000])
def test_unbalanced_stratified_rollouts_warn(games: int) -> None:
    start = nardy_fast.Position.start("short")
    with pytest.warns(nardy_fast.NardyWarning, match=rf"^games: {games:,} stratified games are not a multiple of 1,296"):
        nardy_fast.rollout(start, games, seed=1)


@pytest.mark.parametrize(("games", "stratify"), [(1296, True), (2592, True), (100, False)])
def test_balanced_or_unstratified_rollouts_do_not_warn(games: int, stratify: bool) -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nardy_fast.rollout(nardy_fast.Position.start("short"), games, seed=1, stratify=stratify, threads=2)


@pytest.mark.parametrize(("name", "module"), IMPLEMENTATIONS)
def test_trajectory_rows_know_their_game_and_its_outcome(name: str, module: object) -> None:
    records, paths = module.playout("short", 6, seed=2, trajectories=True)  # type: ignore[attr-defined]
    index, outcome = paths.game_index(), paths.outcome()
    assert np.array_equal(np.bincount(index, minlength=6), records["plies"] + 1)
    for i, record in enumerate(records):
        rows = paths.rows[index == i]
        to_move = layout.turn(rows)
        signed = np.where(to_move == record["winner"], 1, -1) * record["points"]
        assert np.array_equal(outcome[index == i], signed)
