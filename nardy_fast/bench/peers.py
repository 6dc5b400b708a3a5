"""GNU Backgammon (``gnubg-nn``, an optional peer) in the bench: short-nardy positions as its boards, its
move generator on the corpus positions, and whole games played by the loop a Python program writes around it."""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Sequence
from typing import NamedTuple, Optional

import numpy as np
import numpy.typing as npt

from .. import implementations, layout
from ..errors import NardyError, field_error
from ..position import Position
from ..variants import VARIANTS
from .harness import SEED, Count, Rows, Work

__all__ = [
    "GNUBG_INSTALL",
    "gnubg_installed",
    "Board",
    "gnubg_board", "gnubg_boards", "gnubg_arrays",
    "gnubg_work",
    "GnubgGame",
    "gnubg_game",
    "gnubg_games",
    "gnubg_greedy_game",
    "gnubg_greedy_games",
    "gnubg_choice",
    "GnubgPlayer",
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


_SHORT = VARIANTS.index("short")


def gnubg_arrays(rows: Rows) -> npt.NDArray[np.int64]:
    """Short-nardy rows (n, 64) as GNU Backgammon boards (n, 2, 25), each as :func:`gnubg_board` (``[the side
    not on roll, the side on roll]`` from the view of the row's side to move), computed on the arrays."""
    rows = np.asarray(rows)
    board = rows[:, layout.BOARD : layout.BOARD + 24].astype(np.int64)
    white = (rows[:, layout.TURN] == 0)[:, None]
    ours, theirs = np.maximum(board, 0), np.maximum(-board, 0)  # White's, Black's, on White's points 1..24
    out = np.zeros((len(rows), 2, 25), dtype=np.int64)
    # each side counts its points from its own home: White's point p is Black's 25 - p
    out[:, 1, :24] = np.where(white, ours, theirs[:, ::-1])
    out[:, 0, :24] = np.where(white, theirs[:, ::-1], ours)
    me = rows[:, layout.TURN].astype(np.int64)
    out[:, 1, 24] = rows[np.arange(len(rows)), layout.BAR + me]
    out[:, 0, 24] = rows[np.arange(len(rows)), layout.BAR + 1 - me]
    return out


def _check_short(rows: Rows, name: str) -> None:
    """A :class:`~nardy_fast.NardyError` naming ``name`` for the first row that is not short nardy."""
    bad = np.flatnonzero(rows[:, layout.VARIANT] != _SHORT)
    if bad.size:
        i = int(bad[0])
        problem = f"GNU Backgammon plays short nardy only ({name}[{i}] is {VARIANTS[int(rows[i, layout.VARIANT])]})"
        raise field_error(NardyError, name, problem, rows[i].tolist())


def _gnubg_plies(plies: object) -> int:
    """``plies`` checked for GNU Backgammon's net: the int 0 or 1 (no bool, no float), else a NardyError."""
    if type(plies) is not int or plies not in (0, 1):
        raise field_error(NardyError, "plies", "must be 0 or 1", plies)
    return plies


def gnubg_choice(row: Rows, roll: Sequence[int], children: Rows, plies: int = 0) -> int:
    """The index of the child (of ``children`` (k, 64), the children of short-nardy ``row`` for ``roll``)
    that GNU Backgammon's net plays at ``plies`` (0 or 1): ``gnubg_nn.best_move(board, d1, d2, n=plies)``'s
    resulting board compared with each child's as a GNU Backgammon board. A roll that cannot be played has the
    one child the turn passes to. No matching child means the two rule books disagree: a
    :class:`~nardy_fast.NardyError` naming ``children``."""
    import gnubg_nn

    row, children = np.asarray(row).reshape(1, layout.WIDTH), np.asarray(children).reshape(-1, layout.WIDTH)
    _check_short(row, "row")
    _check_short(children, "children")
    _gnubg_plies(plies)
    board = gnubg_arrays(row)[0].tolist()
    steps, key = gnubg_nn.best_move(board, int(roll[0]), int(roll[1]), n=plies, b=1)
    # best_move's key is the board after the move, [the mover, the side now on roll]: a child's board
    if not steps:
        after = [board[1], board[0]]
    else:
        after = [list(side) for side in gnubg_nn.board_from_position_key(key)]
    boards = gnubg_arrays(children)
    found = np.flatnonzero((boards == np.array(after)).all(axis=(1, 2)))
    if found.size != 1:
        problem = (
            f"has no child equal to GNU Backgammon's move {steps} for this row and roll {tuple(roll)} "
            f"(the rule books disagree, or these are not that row's children): it plays to {after}"
        )
        raise field_error(NardyError, "children", problem, children.tolist())
    return int(found[0])


class GnubgPlayer:
    """GNU Backgammon's net at 0 ply (or, ``plies=1``, at 1 ply) as a callable policy (``policy(children,
    offsets) -> choices``, as :func:`nardy_fast.playout` and :func:`nardy_fast.duel` call one) for short nardy.

    A callable policy sees the children of each position, not the position or its roll, so it cannot call
    ``gnubg_nn.best_move``; it does what ``best_move(..., n=0)`` does with them instead: each child is valued
    for the side that moved to it by GNU Backgammon's 0-ply evaluation of the board after the move
    (``gnubg_nn.probabilities(board, 0)`` from the side now on roll, inverted; a finished game by its outcome),
    and the child of the highest cubeless equity (win - loss, marses and kokses counted twice and thrice) is
    played, the first on ties. ``gnubg_choice`` (best_move itself, given the roll) is the check of it
    (``tests/test_strength.py``): the two differ only where two moves have the same equity in float32, where
    ``best_move``'s order is that of its sort.

    At ``plies=1`` each child is valued by ``gnubg_nn.probabilities(board, 1)`` instead: GNU Backgammon's
    1-ply evaluation, the mean over the 21 rolls of the side now on roll of its best reply at 0 ply. Every
    child is searched so; GNU Backgammon's own 1-ply play (``best_move(..., n=1)``) searches only the children
    its move filter keeps, so this player is its 1-ply play without the filter."""

    def __init__(self, plies: int = 0) -> None:
        import gnubg_nn

        self._plies = _gnubg_plies(plies)
        self._probabilities = gnubg_nn.probabilities

    @property
    def plies(self) -> int:
        """0 or 1: the depth of GNU Backgammon's evaluation of each child."""
        return self._plies

    def __repr__(self) -> str:
        return f"'gnubg {self.plies}-ply'"

    def equities(self, children: Rows) -> npt.NDArray[np.float64]:
        """The equity of each short-nardy child (k, 64) for the side that moved to it, by GNU Backgammon's
        evaluation at the player's plies."""
        children = np.asarray(children).reshape(-1, layout.WIDTH)
        _check_short(children, "children")
        over = layout.is_over(children)
        points = layout.points(children).astype(np.float64)
        probabilities, plies = self._probabilities, self._plies
        out = np.zeros(len(children))
        for i, board in enumerate(gnubg_arrays(children).tolist()):
            if over[i]:
                out[i] = points[i]  # the mover has just won
                continue
            win, win_gammon, win_backgammon, lose_gammon, lose_backgammon = probabilities(board, plies)
            # the side on roll's equity, negated: the mover's
            out[i] = -(2.0 * win - 1.0 + win_gammon + win_backgammon - lose_gammon - lose_backgammon)
        return out

    def __call__(self, children: Rows, offsets: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """The chosen child of each position, ``children[offsets[i]:offsets[i+1]]`` its children."""
        children, offsets = np.asarray(children), np.asarray(offsets, dtype=np.int64)
        equities = self.equities(children)
        # a move of short nardy always passes the turn: every child's side on roll is the mover's opponent
        return np.array(
            [int(np.argmax(equities[offsets[i] : offsets[i + 1]])) for i in range(len(offsets) - 1)],
            dtype=np.int64,
        )
