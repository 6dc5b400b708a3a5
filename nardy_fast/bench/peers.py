"""GNU Backgammon (``gnubg-nn``, an optional peer) in the bench: short-nardy positions as its boards, its
move generator on the corpus positions, and whole games played by the loop a Python program writes around it."""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Sequence
from typing import NamedTuple, Optional

from .._dispatch import implementations
from ..position import Position
from .harness import SEED, Count, Rows, Work

__all__ = [
    "GNUBG_INSTALL",
    "gnubg_installed",
    "Board",
    "gnubg_board", "gnubg_boards",
    "gnubg_work",
    "GnubgGame",
    "gnubg_game",
    "gnubg_games",
    "gnubg_greedy_game",
    "gnubg_greedy_games",
]

#: How to add GNU Backgammon to the bench: an optional peer (the package's only run-time dependency is
#: NumPy), whose wheels do not cover every platform and Python the package's do.
GNUBG_INSTALL = (
    "pip install gnubg-nn (wheels for CPython 3.10 to 3.13 on Linux x86-64, macOS arm64 and Windows x86-64)"
)


def gnubg_installed() -> bool:
    """Whether GNU Backgammon's ``gnubg_nn`` can be imported."""
    try:
        import gnubg_nn  # noqa: F401 - only whether it is there
    except ImportError:
        return False
    return True

#: A GNU Backgammon board: ``[opponent, player]`` from the side to move's view, 25 counts each (points 1..24
#: in that side's own numbering, its home first, then the bar).
Board = Sequence[Sequence[int]]


def gnubg_board(position: Position) -> list[list[int]]:
    """A short-nardy position as a GNU Backgammon board (``[opponent, player]``, 25 counts each, bar last)
    from the view of its side to move."""
    player, opponent = [0] * 25, [0] * 25
    for index, count in enumerate(position.board):
        point = index + 1 if position.turn == "white" else 24 - index
        mine = count > 0 if position.turn == "white" else count < 0
        if mine:
            player[point - 1] = abs(count)
        elif count:
            opponent[24 - point] = abs(count)
    me = 0 if position.turn == "white" else 1
    player[24], opponent[24] = position.bar[me], position.bar[1 - me]
    return [opponent, player]


def gnubg_boards(rows: Rows, rolls: Rows) -> list[tuple[list[list[int]], int, int]]:
    """Short-nardy rows as GNU Backgammon boards (:func:`gnubg_board`) with their rolls."""
    position_class = implementations()["python"].Position
    return [
        (gnubg_board(position_class.from_array(row)), int(roll[0]), int(roll[1]))
        for row, roll in zip(rows, rolls)
    ]


def gnubg_work(rows: Rows, rolls: Rows) -> Optional[Work]:
    """GNU Backgammon's ``moves()`` through ``gnubg_nn`` on the same positions, if it is installed."""
    try:
        import gnubg_nn
    except ImportError:
        return None
    boards = gnubg_boards(rows, rolls)
    moves = gnubg_nn.moves
    return Work(
        "gnubg_nn.moves",
        lambda: Count(len(boards), sum(len(moves(b, d1, d2)) for b, d1, d2 in boards)),
        len(boards),
    )


class GnubgGame(NamedTuple):
    """A game played by :func:`gnubg_game`: the winner (0 White, 1 Black), the points (1 single, 2 mars,
    3 koks), the plies (rolls, a roll that cannot be played included) and the last board (``[loser,
    winner]`` from the winner's view, the winner's 25 counts all 0)."""

    winner: int
    points: int
    plies: int
    final: Board


def _gnubg_points(loser: Sequence[int]) -> int:
    """The points of a game whose loser has ``loser`` left (its own numbering, bar last)."""
    if sum(loser) < 15:
        return 1
    # the winner's home, 1..6 in its numbering, is the loser's 19..24
    return 3 if loser[24] or any(loser[18:24]) else 2


@functools.lru_cache(maxsize=1)
def _gnubg_start() -> Board:
    return gnubg_board(implementations()["python"].Position.start("short"))


#: One move of a loop around GNU Backgammon: the board to move and the roll give the next board, ``[the mover,
#: the side now on roll]`` (the mover's 25 counts all 0 once it has won), or ``None`` when the roll cannot be
#: played.
Mover = Callable[[Board, int, int], Optional[Board]]


def _gnubg_loop(rng: random.Random, move: Mover, trace: Optional[list[tuple[Board, int, int]]]) -> GnubgGame:
    """One game of short nardy of ``move`` for both sides, ``rng``'s dice: who starts is rolled (one die each,
    equal dice again), then the starter rolls two fresh dice, as ``playout``'s default opening; the game ends
    when a side has no checkers left. ``trace`` receives each board to move (that side's view) and its roll."""
    randint = rng.randint
    white, black = randint(1, 6), randint(1, 6)
    while white == black:
        white, black = randint(1, 6), randint(1, 6)
    side = 0 if white > black else 1
    board: Board = _gnubg_start()
    plies = 0
    while True:
        d1, d2 = randint(1, 6), randint(1, 6)
        if trace is not None:
            trace.append((board, d1, d2))
        after = move(board, d1, d2)
        plies += 1
        if after is None:
            board = (board[1], board[0])
        else:
            player, opponent = after
            if not any(player):
                return GnubgGame(side, _gnubg_points(opponent), plies, (opponent, player))
            board = (player, opponent)  # the opponent's turn, from its view
        side ^= 1


def gnubg_game(rng: random.Random, trace: Optional[list[tuple[Board, int, int]]] = None) -> GnubgGame:
    """One game of short nardy (backgammon without the cube) played by GNU Backgammon's move generator and a
    uniform random choice among its distinct results: the loop a Python program would write around
    ``gnubg_nn.moves`` and ``gnubg_nn.board_from_position_key`` (:func:`_gnubg_loop`)."""
    import gnubg_nn

    moves, board_of, choice = gnubg_nn.moves, gnubg_nn.board_from_position_key, rng.choice

    def move(board: Board, d1: int, d2: int) -> Optional[Board]:
        keys = moves(board, d1, d2)
        if not keys:
            return None
        opponent, player = board_of(choice(keys))
        return player, opponent

    return _gnubg_loop(rng, move, trace)


def gnubg_games(games: int, seed: int = SEED) -> Callable[[], Count]:
    """``games`` games of :func:`gnubg_game`, the dice of ``random.Random(seed)``."""

    def work() -> Count:
        rng = random.Random(seed)
        played = [gnubg_game(rng) for _ in range(games)]
        return Count(len(played), sum(game.plies for game in played))

    return work


def gnubg_greedy_game(rng: random.Random) -> GnubgGame:
    """One game of short nardy played by GNU Backgammon's 0-ply neural net for both sides: the self-play loop
    a Python program would write around ``gnubg_nn.best_move(board, d1, d2, n=0)`` (:func:`_gnubg_loop`)."""
    import gnubg_nn

    best, board_of = gnubg_nn.best_move, gnubg_nn.board_from_position_key

    def move(board: Board, d1: int, d2: int) -> Optional[Board]:
        steps, key = best(board, d1, d2, n=0, b=1)
        if not steps:
            return None
        player, opponent = board_of(key)  # its key is the next board, [the mover, the side now on roll]
        return player, opponent

    return _gnubg_loop(rng, move, None)


def gnubg_greedy_games(games: int, seed: int = SEED) -> Callable[[], Count]:
    """``games`` games of :func:`gnubg_greedy_game`, the dice of ``random.Random(seed)``."""

    def work() -> Count:
        rng = random.Random(seed)
        played = [gnubg_greedy_game(rng) for _ in range(games)]
        return Count(len(played), sum(game.plies for game in played))

    return work
