"""Duels and playouts return their games as match records (issue 44, item 7): the records are the games whose
results they report, whichever loop played them (the compiled core's in C, the Python loop for a Python
evaluator, the reference's), cubeless, at money play with the cube and in matches. Each record is checked
against what it claims independently of the code that made it: its games are replayed by
:class:`~nardy_fast.Game` on the seed's dice of the game number its tags name (every roll the seed's, every
move and cube action legal), and its results, read from its winners and points, are the duel's."""

from __future__ import annotations

import dataclasses
import importlib
from dataclasses import dataclass
from typing import Any, Optional, Union

import numpy as np
import numpy.typing as npt
import pytest

import nardy_fast
import nardy_fast.reference
from nardy_fast import Game, Greedy, Match, MatchRecord, NardyError
from nardy_fast.cubeduel import CubeDuelResult
from nardy_fast.duel import DuelResult
from nardy_fast.duelrecords import MAX_MATCH_RECORDS
from nardy_fast.position import Position as BasePosition
from nardy_fast.records import CubeAction, Ply, variant_starts


class Heuristic:
    """The heuristic evaluator as a Python evaluator: a Greedy over it plays in the Python loop, in the core too."""

    def __init__(self, module: Any) -> None:
        self.module = module

    def evaluate(self, rows: npt.NDArray[np.int8]) -> npt.NDArray[np.float64]:
        values: npt.NDArray[np.float64] = self.module.evaluate(rows, "heuristic")
        return values


def module_of(position: type[BasePosition]) -> Any:
    """The implementation whose ``Position`` is ``position``."""
    return importlib.import_module("nardy_fast.reference" if position is nardy_fast.reference.Position else
                                   "nardy_fast.core")


def replayed(record: MatchRecord, position: type[BasePosition], seed: int) -> list[Game]:
    """The record's games played again by :class:`~nardy_fast.Game` on the dice of the seed and game number
    its tags name: each roll must be the one the game draws, each move and cube action legal."""
    tags = dict(record.tags)
    assert tags["Seed"] == str(seed)
    number = int(tags["Dice game"])
    match: Optional[Match] = None
    if record.cube:
        match = Match(record.length, record.games[0].score) if record.length else Match(
            jacoby=record.jacoby, beavers=record.beavers)
    games = []
    for offset, played in enumerate(record.games):
        assert played.match == match
        cube = {} if match is None else {"match": match}
        start = position.from_text(played.start)
        if played.start in variant_starts(start):  # who starts and the opening are rolled
            game = Game(record.variant, seed=seed, game=number + offset, position_class=position,
                        **dict(record.flags), **cube)  # type: ignore[arg-type]
        else:
            game = Game(start, seed=seed, game=number + offset, **cube)  # type: ignore[arg-type]
        assert game.position.to_text() == played.start
        for event in played.events:
            if isinstance(event, Ply):
                assert event.side == game.position.turn and event.roll == game.roll
                game.play(event.text)
            else:
                assert isinstance(event, CubeAction) and event.side in ("white", "black")
                {"double": game.double, "take": game.take, "drop": game.drop, "beaver": game.beaver}[event.action]()
        assert game.winner() == played.winner
        games.append(game)
        if match is not None and game.winner() is not None:
            match = game.next_match()
    if record.length is not None:
        assert match is None or record.winner() is None  # a match ends where its record does
    return games


def result_for(record: MatchRecord, name: str) -> float:
    """What ``name`` scored in a duel's record: points won minus lost (money, cubeless), or 1, 0, 0.5 for a
    match won, lost, undecided."""
    mine = ("white", "black")[record.players.index(name)]
    if record.length is None:
        (game,) = record.games
        return 0.0 if game.winner is None else float(game.points if game.winner == mine else -game.points)
    winner = record.winner()
    return 0.5 if winner is None else float(winner == mine)


def check_duel(result: Union[DuelResult, CubeDuelResult], position: type[BasePosition], seed: int) -> None:
    """Every record of ``result`` replays on its dice and gives the result the duel reported for it."""
    reported = result.points if isinstance(result, DuelResult) else result.results
    assert len(result.match_records) == len(reported)
    for index, record in enumerate(result.match_records):
        assert record.players == ((result.a, result.b) if index % 2 == 0 else (result.b, result.a))
        assert int(dict(record.tags)["Dice game"]) == (index // 2) * (256 if record.length else 1)
        replayed(record, position, seed)
        list(record.positions(position))  # the record's own replay agrees
        assert result_for(record, result.a) == reported[index]


@pytest.mark.parametrize("loop", ["builtin", "python"])
def test_duel_records_are_the_duels_games(Position: type[BasePosition], loop: str) -> None:
    module = module_of(Position)
    if module is nardy_fast.reference and loop == "python":
        pytest.skip("the reference plays every duel in the Python loop")
    evaluator: Union[str, Heuristic] = "heuristic" if loop == "builtin" else Heuristic(module)
    a, money, fixed = Greedy(evaluator), Greedy(evaluator, cube="money"), Greedy(evaluator, cube="threshold")
    cubeless = module.duel(a, "random", "short", 4, seed=4, match_records=True)
    check_duel(cubeless, Position, 4)
    assert not any(record.cube for record in cubeless.match_records)
    session = module.duel(a, fixed, "short", 2, seed=7, cube=True, match_records=True)
    check_duel(session, Position, 7)
    matches = module.duel(a, money, "short", 2, seed=5, match=3, match_records=True)
    check_duel(matches, Position, 5)
    assert all(record.length == 3 and record.winner() for record in matches.match_records)
    actions = [g.cube_actions for r in session.match_records + matches.match_records for g in r.games]
    assert any(actions)  # the cube was turned: the records carry cube actions, not only moves
    # the records do not change the duel's results
    plain = module.duel(a, "random", "short", 4, seed=4)
    assert np.array_equal(plain.points, cubeless.points) and plain.match_records == ()


def test_a_pair_of_a_larger_duel_is_recorded_alone() -> None:
    whole = nardy_fast.duel("random", "first", "gulbar", 8, seed=6)
    pair = nardy_fast.duel("random", "first", "gulbar", 2, seed=6, first_game=3, match_records=True)
    assert pair.points.tolist() == whole.points[6:8].tolist()
    assert dict(pair.match_records[0].tags)["Dice game"] == "3"


@dataclass(frozen=True, eq=False, repr=False)
class Eager(Greedy):
    """A greedy player that doubles whenever it may: against Janowski's answers, doubles beavered."""

    def doubles(self, kernels: object, rows: npt.NDArray[np.int8], states: object) -> npt.NDArray[np.bool_]:
        return np.ones(len(rows), dtype=bool)

    def __repr__(self) -> str:
        return "Eager"


def test_beavers_and_redoubles_are_recorded() -> None:
    result = nardy_fast.duel(Eager("heuristic"), Greedy("heuristic"), "short", 6, seed=1, match=Match(beavers=True),
                             match_records=True)
    check_duel(result, nardy_fast.Position, 1)
    actions = [action.action for record in result.match_records for action in record.games[0].cube_actions]
    assert {"double", "take", "beaver", "drop"} <= set(actions)


@pytest.mark.parametrize("options", [{}, {"cube": True, "match": Match(jacoby=True)}, {"match": 3}])
def test_playout_records_are_the_playouts_games(Position: type[BasePosition], options: dict[str, object]) -> None:
    module = module_of(Position)
    policy = Greedy("heuristic", cube="money")
    arguments: dict[str, Any] = {"seed": 8, "policy": policy, "first_game": 5, **options}
    records = module.playout_match_records("short", 2, **arguments)
    found = module.playout("short", 2, **arguments)
    assert len(records) == len(found) == 2
    for index, (record, row) in enumerate(zip(records, found)):
        assert record.players == (repr(policy), repr(policy))
        games = replayed(record, Position, 8)
        plies = sum(len(game.plies) for game in record.games)
        assert plies == row["plies"] == sum(game.plies for game in games)
        if record.length is None:
            assert dict(record.tags)["Dice game"] == str(5 + index)
            (game,) = record.games
            assert (game.winner, game.points) == (("white", "black")[row["winner"]], row["points"])
        else:
            assert record.score == (row["white"], row["black"]) and len(record.games) == row["games"]


def test_playout_records_from_a_position() -> None:
    start = nardy_fast.reference.Position.start("long")
    later = start.play(start.legal_moves((6, 5))[0])
    records = nardy_fast.reference.playout_match_records(later, 2, seed=1, cube=True)
    found = nardy_fast.reference.playout(later, 2, seed=1, cube=True)
    for record, row in zip(records, found):
        assert record.games[0].start == later.to_text()
        assert len(record.games[0].plies) == row["plies"] and record.games[0].points == row["points"]
        replayed(record, nardy_fast.reference.Position, 1)


def test_the_match_records_option_is_checked() -> None:
    with pytest.raises(NardyError, match=r"^match_records: must be True or False"):
        nardy_fast.duel("first", "random", "short", 2, match_records="yes")  # type: ignore[call-overload]
    with pytest.raises(NardyError, match=rf"^match_records: records at most {MAX_MATCH_RECORDS} games"):
        nardy_fast.duel("first", "random", "short", MAX_MATCH_RECORDS + 2, match_records=True)
    with pytest.raises(NardyError, match=rf"^games: must be at most {MAX_MATCH_RECORDS}"):
        nardy_fast.playout_match_records("short", MAX_MATCH_RECORDS + 1)
    with pytest.raises(NardyError, match=r"^match_records: must be \(\) or 2 MatchRecord"):
        DuelResult("a", "b", "short", 0, np.zeros(2, dtype=np.int8), ("not a record",))  # type: ignore[arg-type]
    with pytest.raises(NardyError, match=r"^truncate: is a playout's option: match records are whole games"):
        nardy_fast.playout_match_records("short", 2, truncate="bearoff")
    with pytest.raises(NardyError, match=r"^match: must be None, a match length"):
        nardy_fast.playout_match_records("short", 2, match="seven")  # type: ignore[arg-type]
    with pytest.raises(NardyError, match=r"^match: a player deciding at the score needs a length up to 25"):
        nardy_fast.playout_match_records("short", 2, policy=Greedy("heuristic"), match=30)


def test_a_policy_that_chooses_otherwise_when_played_again_is_an_error() -> None:
    calls = [0, 1 << 30]  # the calls so far, and from which call on the policy plays its last moves

    def fickle(children: object, offsets: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        calls[0] += 1
        counts = np.diff(offsets)
        return np.zeros(len(counts), dtype=np.int64) if calls[0] <= calls[1] else counts - 1

    plain = nardy_fast.duel(fickle, "first", "short", 2, seed=1)
    calls[:] = [0, calls[0]]  # the duel again, then its games once more for the records: their moves differ
    with pytest.raises(NardyError, match=r"^match_records: game or match \d played again differs"):
        nardy_fast.duel(fickle, "first", "short", 2, seed=1, match_records=True)
    assert calls[0] > calls[1] and plain.games == 2


def test_records_round_trip_through_a_mat_file(tmp_path: Any) -> None:
    result = nardy_fast.duel(Greedy("heuristic"), Greedy("heuristic", cube="money"), "short", 2, seed=2, match=3,
                             match_records=True)
    # the players renamed: the .mat player line has room for names of up to 27 characters
    record = dataclasses.replace(result.match_records[0], players=("Ann", "Bob"))
    path = tmp_path / "match.mat"
    nardy_fast.write_match(record, path)
    back = nardy_fast.read_match(path)
    assert back.players == record.players and back.score == record.score and back.length == 3
    assert [g.events for g in back.games] == [g.events for g in record.games]
