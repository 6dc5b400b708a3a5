"""Short nardy against GNU Backgammon: its move generator is an independent implementation of the same rules.

Short nardy is backgammon without the cube (docs/rules.md, The five games): entering from the bar, hits,
bearing off and the maximal-use and higher-die rules (docs/rules.md, Maximal use of the dice; Higher die) are
backgammon's. ``gnubg_nn.moves`` (the ``gnubg-nn`` package,
which the ``test`` extra installs where it has wheels) returns the distinct positions a roll can reach, so for
every position and roll both implementations here must reach exactly the boards GNU Backgammon reaches: on the
whole short corpus, and on hypothesis positions with checkers on the bar, bear-offs and blocked entries.

The boards are compared as GNU Backgammon writes them: ``(opponent, player)`` from the side on roll, each side's
24 points counted from its own home (its point 1 first) and its bar last. The mapping below is derived from
docs/rules.md, The mover's numbering (Black's point m is White's point 25 - m in short nardy), not taken from
the package.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Optional

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from strategies import Roll, Spec, rolls, specs

import nardy_fast
from nardy_fast import corpus
from nardy_fast.perft import perft_cases
from nardy_fast.position import Position

gnubg_nn = pytest.importorskip(
    "gnubg_nn",
    reason="GNU Backgammon's move generator (gnubg-nn, in the test extra on Linux x86-64) is absent",
)

GnubgBoard = tuple[tuple[int, ...], tuple[int, ...]]
Rows = npt.NDArray[np.int8]


def gnubg_board(board: Sequence[int], bar: Sequence[int], on_roll: str) -> GnubgBoard:
    """A short-nardy board (White's numbering, Black negative; bars White, Black) as GNU Backgammon's
    ``(opponent, player)`` with ``on_roll`` as the player."""
    white = (*(max(count, 0) for count in board), bar[0])
    black = (*(max(-count, 0) for count in reversed(board)), bar[1])
    return (black, white) if on_roll == "white" else (white, black)


def gnubg_results(position: Position, roll: Roll) -> list[GnubgBoard]:
    """The boards GNU Backgammon reaches from ``position`` with ``roll``, sorted (none when no move is legal)."""
    opponent, player = gnubg_board(position.board, position.bar, position.turn)
    keys = gnubg_nn.moves([list(opponent), list(player)], roll[0], roll[1])
    return sorted(gnubg_nn.boardfromkey(key) for key in keys)


def assert_moves_match_gnubg(position: Position, roll: Roll) -> None:
    """``legal_moves`` reaches GNU Backgammon's boards: one each, or a single pass when it has none."""
    moves = position.legal_moves(roll)
    expected = gnubg_results(position, roll)
    if not expected:
        assert [m.steps for m in moves] == [()], (position, roll)
        assert moves[0].result.board == position.board and moves[0].result.bar == position.bar
        return
    reached = sorted(gnubg_board(m.result.board, m.result.bar, position.turn) for m in moves)
    assert reached == expected, (position, roll)


@pytest.mark.slow  # the whole short corpus, position by position, in both implementations
def test_corpus_matches_gnubg(Position: type[Position]) -> None:
    """All 10,000 (position, roll) pairs of the short corpus, through ``legal_moves`` of the implementation under
    test. None of them is decided by the higher-die rule (D): ``primed_stragglers`` below are."""
    rows, rolls = corpus.load("short")
    for row, roll in zip(rows, rolls):
        assert_moves_match_gnubg(Position.from_array(row), (int(roll[0]), int(roll[1])))


def gnubg_rows(children: Rows, on_roll: npt.NDArray[np.bool_]) -> npt.NDArray[np.int16]:
    """``gnubg_board`` of many rows at once (``on_roll``: True where White is the player), as rows of 50."""
    board = children[:, :24].astype(np.int16)
    white = np.concatenate([np.clip(board, 0, None), children[:, 24:25]], axis=1)
    black = np.concatenate([np.clip(-board, 0, None)[:, ::-1], children[:, 25:26]], axis=1)
    white_on_roll = on_roll[:, None]
    return np.concatenate(
        [np.where(white_on_roll, black, white), np.where(white_on_roll, white, black)], axis=1
    )


@pytest.mark.skipif(
    nardy_fast.IMPLEMENTATION != "cython", reason="the batch API is not served by the core here"
)
def test_whole_corpus_batch_matches_gnubg() -> None:
    """All 10,000 (position, roll) pairs of the short corpus, through ``batch_children``."""
    rows, rolls = corpus.load("short")
    children, offsets, _keys = nardy_fast.batch_children(rows, rolls)
    on_roll = np.repeat(rows[:, 28] == 0, np.diff(offsets))
    reached = gnubg_rows(children, on_roll)
    mismatches: list[int] = []
    for i, (row, roll) in enumerate(zip(rows, rolls)):
        position = nardy_fast.Position.from_array(row)
        expected = gnubg_results(position, (int(roll[0]), int(roll[1])))
        opponent, player = gnubg_board(position.board, position.bar, position.turn)
        ours = sorted(tuple(map(int, board)) for board in reached[offsets[i] : offsets[i + 1]])
        # no legal move: one child, the same board with the other side to move
        flat = [(*opponent, *player) for opponent, player in expected] or [(*opponent, *player)]
        if ours != flat:
            mismatches.append(i)
    assert mismatches == [], (
        f"{len(mismatches)} rows differ from GNU Backgammon, the first ones: {mismatches[:5]}"
    )


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(specs(variants=["short"]))
def test_hypothesis_positions_match_gnubg(
    Position: type[Position], spec_roll: tuple[Spec, Optional[Roll]]
) -> None:
    """Positions drawn for the corners (bars, hits, bear-offs, blocked entries), in both colours."""
    spec, roll = spec_roll
    position = spec.build(Position)
    assume(roll is not None and not position.is_over())
    assert roll is not None
    assert_moves_match_gnubg(position, roll)


@st.composite
def primed_stragglers(draw: st.DrawFn) -> tuple[Spec, Roll]:
    """One to three checkers of the side on roll (the rest borne off) before a scatter of the opponent's
    points: where one die can be played but not both, so that the higher-die rule (D) decides, which random
    positions seldom reach. Drawn in the mover's numbering and mapped by docs/rules.md, The mover's numbering."""
    turn = draw(st.sampled_from(["white", "black"]))
    mine = draw(st.lists(st.integers(7, 24), min_size=1, max_size=3))
    blocks = draw(
        st.lists(st.integers(1, 24).filter(lambda p: p not in mine), min_size=4, max_size=7, unique=True)
    )
    board = [0] * 24
    sign = 1 if turn == "white" else -1
    for point in mine:
        board[(point if turn == "white" else 25 - point) - 1] += sign
    for i, point in enumerate(blocks):
        board[(point if turn == "white" else 25 - point) - 1] = -sign * (
            2 if i else 15 - 2 * (len(blocks) - 1)
        )
    off = (15 - len(mine), 0) if turn == "white" else (0, 15 - len(mine))
    spec = Spec("short", tuple(board), turn, (0, 0), off, (False, False), (), {})
    return spec, draw(rolls())


@settings(deadline=None)
@given(primed_stragglers())
def test_primed_stragglers_match_gnubg(Position: type[Position], spec_roll: tuple[Spec, Roll]) -> None:
    spec, roll = spec_roll
    assert_moves_match_gnubg(spec.build(Position), roll)


def gnubg_perft(board: GnubgBoard, depth: int) -> int:
    """perft (``nardy_fast.perft``'s definition) by GNU Backgammon alone: the 21 rolls at each ply, one pass
    where it finds no move, then the other side on roll; a side with no checker left has won (no moves)."""
    if depth == 0:
        return 1
    if not any(board[0]) or not any(board[1]):
        return 0
    total = 0
    for d1 in range(1, 7):
        for d2 in range(1, d1 + 1):
            keys = gnubg_nn.moves([list(board[0]), list(board[1])], d1, d2)
            if depth == 1:
                total += max(1, len(keys))
                continue
            results = [gnubg_nn.boardfromkey(key) for key in keys] or [board]
            total += sum(gnubg_perft((player, opponent), depth - 1) for opponent, player in results)
    return total


def test_shipped_short_perft_counts_match_gnubg() -> None:
    """The short-nardy counts in ``nardy_fast/data/perft.txt`` (which tests/test_perft.py holds both
    implementations to) up to two plies, recounted by GNU Backgammon: the start's are derived that way."""
    cases = [c for c in perft_cases() if c.text.startswith("short ") and c.depth <= 2]
    assert len(cases) >= 3
    for case in cases:
        position = nardy_fast.reference.Position.from_text(case.text)
        board = gnubg_board(position.board, position.bar, position.turn)
        assert gnubg_perft(board, case.depth) == case.count, case
