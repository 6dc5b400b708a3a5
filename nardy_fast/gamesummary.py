"""The rows and summaries of a game analysis (docs/rules.md, Game analysis): each decision judged, each
player's totals, rates, rating words, luck and luck-adjusted result (GNU Backgammon's ``statcontext``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Optional

from .cube.met import MatchEquityTable
from .cube.state import SIDES, other
from .gamebatch import rating_of
from .records import GameRecord, MatchRecord

__all__ = ["Decision", "PlayerSummary", "Analysis", "summarise"]

@dataclass(frozen=True)
class Decision:
    """One decision: game number, move number (the turn of the game, 1 for the first), side, roll (``None``
    for a cube decision or a transfer segment), kind ("move" or "cube"), the choice played and the best one
    (move texts, or "no double", "double", "take", "drop", "beaver"), their equities (normalised money
    equity per unit of the cube, seen by ``side``), the equity lost, the match winning chances lost (``None``
    at money play), the mark, the luck of the roll (``None`` where no roll was thrown), whether the
    decision counts in the error rates (an unforced move; a close or actual cube decision), the cube's value
    and the position before it (its text)."""

    game: int
    move: int
    side: str
    roll: Optional[tuple[int, int]]
    kind: str
    played: str
    best: str
    equity: float
    best_equity: float
    loss: float
    mwc_loss: Optional[float]
    mark: str
    luck: Optional[float]
    counted: bool
    cube: int
    position: str


@dataclass(frozen=True)
class PlayerSummary:
    """A player's summary: the equity lost in moves and in cube decisions (normalised), the decisions
    counted in each, the error rates ×1000 (mEMG: per unforced move, per cube decision, per decision), the
    performance rating (500 × equity lost ÷ decisions counted), GNU Backgammon's rating words, the luck
    (normalised equity: in total and per game, by game number), the result (points at money play, match
    winning chances gained in a match) and the result adjusted for luck, in the same unit."""

    name: str
    side: str
    move_loss: float
    cube_loss: float
    moves: int
    cube_decisions: int
    move_error_rate: float
    cube_error_rate: float
    error_rate: float
    performance_rating: float
    rating: str
    luck: float
    luck_per_game: tuple[float, ...]
    result: float
    luck_adjusted_result: float


@dataclass(frozen=True)
class Analysis:
    """The analysis of a match record: its decisions in order and the players' summaries (White's,
    Black's); ``marked`` the decisions with a mark."""

    decisions: tuple[Decision, ...]
    players: tuple[PlayerSummary, PlayerSummary]
    plies: int

    @property
    def marked(self) -> tuple[Decision, ...]:
        """The decisions with a mark, in order."""
        return tuple(d for d in self.decisions if d.mark)

    def to_dict(self) -> dict[str, object]:
        """The analysis as plain values (for JSON)."""
        from dataclasses import asdict

        return {"plies": self.plies, "players": [asdict(p) for p in self.players],
                "decisions": [asdict(d) for d in self.decisions]}


def summarise(record: MatchRecord, decisions: Sequence[Decision],
              table: Optional[MatchEquityTable]) -> tuple[PlayerSummary, PlayerSummary]:
    """The players' summaries of ``decisions`` of ``record``."""
    out = []
    for name, side in zip(record.players, SIDES):
        mine = [d for d in decisions if d.side == side and d.counted]
        moves = [d for d in mine if d.kind == "move"]
        cubes = [d for d in mine if d.kind == "cube"]
        move_loss = sum(d.loss for d in moves)
        cube_loss = sum(d.loss for d in cubes)
        total = len(moves) + len(cubes)
        per_game = tuple(sum(d.luck or 0.0 for d in decisions if d.side == side and d.game == g.number)
                         for g in record.games)
        result = sum(_result(g, side, record, table) for g in record.games)
        luck = sum(per_game)
        out.append(PlayerSummary(
            name, side, move_loss, cube_loss, len(moves), len(cubes), _rate(move_loss, len(moves)),
            _rate(cube_loss, len(cubes)), _rate(move_loss + cube_loss, total),
            500.0 * (move_loss + cube_loss) / total if total else 0.0,
            rating_of((move_loss + cube_loss) / total) if total else "n/a", luck, per_game, result,
            result - _luck_in_result(record, decisions, side, table)))
    return out[0], out[1]


def _rate(loss: float, count: int) -> float:
    return 1000.0 * loss / count if count else 0.0


def _result(game: GameRecord, side: str, record: MatchRecord, table: Optional[MatchEquityTable]) -> float:
    """What ``game`` brought ``side``: points at money play, match winning chances gained in a match."""
    if game.winner is None:
        return 0.0
    sign = 1.0 if game.winner == side else -1.0
    if table is None or game.match is None or record.length is None:
        return sign * game.points
    match = game.match
    winner = game.winner
    a, b = match.away(winner), match.away(other(winner))
    before = table.mwc(a, b, match.crawford)  # GNU Backgammon's getMEAtScore: the Crawford game's is pre-Crawford
    return sign * (table.after(a, b, match.crawford, won=game.points) - before)


def _luck_in_result(record: MatchRecord, decisions: Sequence[Decision], side: str,
                    table: Optional[MatchEquityTable]) -> float:
    """``side``'s luck in the result's unit (GNU Backgammon: ×cube at money play, in match winning chances
    by ``eq2mwc`` in a match), the other side's luck counted against it."""
    games = {g.number: g for g in record.games}
    total = 0.0
    for d in decisions:
        if d.luck is None:
            continue
        sign = 1.0 if d.side == side else -1.0
        match = games[d.game].match
        if table is None or match is None or match.money:
            total += sign * d.luck * d.cube
        else:
            away, theirs = match.away(d.side), match.away(other(d.side))
            total += sign * float(table.eq2mwc(d.luck, away, theirs, d.cube, match.crawford)
                                  - table.eq2mwc(0.0, away, theirs, d.cube, match.crawford))
    return total
