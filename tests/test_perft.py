"""perft against the counts shipped in ``nardy_fast/data/perft.txt`` (derived by hand, one by GNU Backgammon),
and the short-nardy opening table of issue 2 (the distinct results of every opening roll, as every public
backgammon engine agrees)."""

from __future__ import annotations

import pytest

import nardy_fast
from nardy_fast.perft import PerftCase, perft_cases

#: The most nodes a shipped count may have for each implementation to run it here. The reference runs the
#: counts someone else verified (the core's own regression counts are checked at depth 2 against it in
#: tests/test_differential.py); the core runs every count within its budget.
BUDGETS = {"python": 250_000, "cython": 5_000_000}
CASES = perft_cases(max(BUDGETS.values()))

# Distinct results from the standard backgammon start, roll by roll (447 in all).
SHORT_OPENING = {
    (1, 1): 42, (2, 1): 15, (2, 2): 75, (3, 1): 16, (3, 2): 17, (3, 3): 73, (4, 1): 14, (4, 2): 18,
    (4, 3): 17, (4, 4): 52, (5, 1): 8, (5, 2): 8, (5, 3): 9, (5, 4): 9, (5, 5): 4, (6, 1): 10, (6, 2): 14,
    (6, 3): 14, (6, 4): 14, (6, 5): 7, (6, 6): 11,
}  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.text}@{c.depth}")
def test_perft_matches_shipped_count(Position: type[nardy_fast.reference.Position], case: PerftCase) -> None:
    implementation = "python" if Position is nardy_fast.reference.Position else "cython"
    if case.count > BUDGETS[implementation] or (implementation == "python" and not case.verified):
        pytest.skip(f"beyond the {implementation} implementation's budget")
    position = Position.from_text(case.text)
    found = nardy_fast.perft(position, case.depth)
    if found != case.count and case.depth > 0:
        split = nardy_fast.divide(position, case.depth)
        pytest.fail(f"perft {found} != {case.count}; divide:\n" + "\n".join(f"{k}: {v}" for k, v in split.items()))


def test_short_opening_table(Position: type[nardy_fast.reference.Position]) -> None:
    start = Position.start("short")
    assert sum(SHORT_OPENING.values()) == 447
    found = {roll: len(start.legal_moves(roll)) for roll in SHORT_OPENING}
    assert found == SHORT_OPENING


def test_roll_order_does_not_matter(Position: type[nardy_fast.reference.Position]) -> None:
    start = Position.start("short")
    assert {m.result for m in start.legal_moves((1, 3))} == {m.result for m in start.legal_moves((3, 1))}


def test_perft_depth_zero_and_finished_game(Position: type[nardy_fast.reference.Position]) -> None:
    over = Position.from_text("long b 13:-1 off=15/14 first=-")
    assert over.is_over()
    assert nardy_fast.perft(over, 0) == 1
    assert nardy_fast.perft(over, 1) == 0
    assert over.legal_moves((6, 5)) == []


@pytest.mark.parametrize("depth", [-1, 1.5, "2", None])
def test_perft_rejects_bad_depth(Position: type[nardy_fast.reference.Position], depth: object) -> None:
    with pytest.raises(nardy_fast.NardyError, match=r"^depth: must be a non-negative integer \(got "):
        nardy_fast.perft(Position.start("long"), depth)  # type: ignore[arg-type]


def test_divide_sums_to_perft(Position: type[nardy_fast.reference.Position]) -> None:
    start = Position.start("gulbar")
    split = nardy_fast.divide(start, 2)
    assert sum(split.values()) == nardy_fast.perft(start, 2)
    assert len(split) == nardy_fast.perft(start, 1)
