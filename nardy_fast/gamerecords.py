"""The bridge from played games to match records (docs/rules.md, Match records): ``nardy_fast.Game`` objects
played one after the other, replayed into a :class:`~nardy_fast.records.MatchRecord` (so that what a record
holds is checked by the same replay as a file's)."""

from __future__ import annotations

from collections.abc import Sequence

from .errors import NardyError, field_error
from .game import Game
from .records import GameRecord, MatchRecord, Replay, score_after
from .variants import is_default

__all__ = ["match_record", "game_record"]


def game_record(game: Game, number: int, score: tuple[int, int]) -> GameRecord:
    """The record of one ``Game`` (its plies and cube actions replayed in order), numbered ``number``, with
    the score before it."""
    match = game.match if game.cubeful else None
    replay = Replay(game.start.to_text(), match, type(game.start))
    actions = list(game.actions)
    where = f"game {number}"
    for index, (roll, move) in enumerate(game.history):
        while actions and actions[0][0] == index:
            _, side, action = actions.pop(0)
            replay.cube_action("white" if side == "w" else "black", "drop" if action == "pass" else action, where)
        replay.play(roll, [(step.src, step.dst) for step in move.steps], str(move), where)
    for _, side, action in actions:
        replay.cube_action("white" if side == "w" else "black", "drop" if action == "pass" else action, where)
    return replay.record(number, score, match)


def match_record(games: Sequence[object], players: tuple[str, str] = ("White", "Black")) -> MatchRecord:
    """The record of ``nardy_fast.Game`` objects played one after the other (all finished but the last): a
    match when the first has a match with a length, else a money session (or games without the cube)."""
    played = list(games) if isinstance(games, Sequence) and not isinstance(games, str) else None
    if not played or not all(isinstance(game, Game) for game in played):
        raise field_error(NardyError, "games", "must be a non-empty sequence of nardy_fast.Game", games)
    first: Game = played[0]  # type: ignore[assignment]
    length = first.match.length if first.cubeful else None
    score = (0, 0) if length is None else first.match.score
    records: list[GameRecord] = []
    crawford = True  # the Crawford rule, unless a game that would be the Crawford game is not
    for number, game in enumerate(played, 1):
        assert isinstance(game, Game)
        if length is not None and records:
            before = records[-1]
            assert before.match is not None and before.winner is not None
            expected = before.match.after(before.winner, before.points)
            if expected is None or game.match.length != length or game.match.score != expected.score:
                raise field_error(NardyError, "games", "must follow one another in one match", number)
            crawford = crawford and game.match.crawford == expected.crawford
        if game.start.variant != first.start.variant or game.start.flags != first.start.flags:
            raise field_error(NardyError, "games", "must all be of one variant and its rule flags", number)
        if number < len(played) and not game.is_over():
            raise field_error(NardyError, "games", "must all be finished but the last", number)
        record = game_record(game, number, score)
        records.append(record)
        score = score_after(score, record.winner, record.points, length)
    return MatchRecord(
        players=players,
        length=length,
        games=tuple(records),
        variant=first.start.variant,
        flags=tuple(sorted((n, v) for n, v in first.start.flags.items() if not is_default(n, v))),
        cube=first.cubeful,
        crawford=crawford,
        jacoby=first.match.jacoby,
        beavers=first.match.beavers,
    )
