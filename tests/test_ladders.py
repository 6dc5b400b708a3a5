"""Crazy gulbar's ladders through the core's level-by-level search: its batch path (which keeps three levels
and no steps) against the reference's rows, against its own ``legal_moves`` (which walks the steps back),
``max_results`` in both implementations, and the largest ladder met in the whole-game differential."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import nardy_fast
from nardy_fast import SearchLimitError
from nardy_fast._dispatch import implementations
from nardy_fast.corpus import load

IMPLS = implementations()
CORE = IMPLS.get("cython")
REFERENCE = IMPLS["python"]
pytestmark = pytest.mark.skipif(CORE is None, reason="the core is not built")

#: The 2-2 ladder under ladder_per_value=4 that game 726 of the whole-game differential (seed 20261201, random
#: policy) met: 20 steps, 3,382,462 results, counted by the core (the reference needs about 15 minutes).
LADDER = "crazy b 1:12,7:-4,8:-1,11:-1,12:-1,14:-1,16:-3,17:-2,20:-1,24:-1 off=3/0 first=- ladder_per_value=4"


def _ladder_rows(most: int, largest: int, flags: dict[str, object]) -> tuple[np.ndarray, np.ndarray]:
    """Up to ``most`` corpus crazy rows whose roll is a double, as positions with ``flags``, of at most
    ``largest`` results in the core (so that the reference is quick on them)."""
    rows, rolls = load("crazy")
    assert CORE is not None
    picked_rows, picked_rolls = [], []
    for row, roll in zip(rows, rolls):
        if roll[0] != roll[1] or roll[0] == 0:
            continue
        position = CORE.Position.from_array(row)
        if flags:
            position = CORE.Position.from_text(
                position.to_text() + "".join(f" {k}={v}" for k, v in flags.items())
            )
        count = len(position.legal_moves((int(roll[0]), int(roll[1])), max_results=largest + 1))
        if count <= largest:
            picked_rows.append(position.to_array())
            picked_rolls.append(roll)
        if len(picked_rows) == most:
            break
    return np.array(picked_rows, dtype=np.int8), np.array(picked_rolls, dtype=np.int8)


FLAG_SETS = [{}, {"ladder_per_value": 4}, {"block_check": "per_step"}]


@pytest.mark.parametrize(
    "flags", FLAG_SETS, ids=lambda f: ",".join(f"{k}={v}" for k, v in f.items()) or "default"
)
def test_batch_rows_equal_the_references(flags: dict[str, object]) -> None:
    """``batch_children`` on ladder rows: the core's arrays (results, offsets, keys) equal the reference's."""
    rows, rolls = _ladder_rows(40, 3000, flags)
    assert len(rows) == 40
    assert CORE is not None
    got = CORE.batch_children(rows, rolls)
    want = REFERENCE.batch_children(rows, rolls)
    for mine, theirs in zip(got, want):
        assert np.array_equal(mine, theirs)


@pytest.mark.parametrize(
    "flags", FLAG_SETS, ids=lambda f: ",".join(f"{k}={v}" for k, v in f.items()) or "default"
)
def test_batch_rows_equal_legal_moves(flags: dict[str, object]) -> None:
    """The core's batch path (no steps, three levels kept) and its ``legal_moves`` (every level kept, steps
    walked back) give the same results in the same order, on larger ladders than the reference's test."""
    rows, rolls = _ladder_rows(120, 60_000, flags)
    assert CORE is not None
    children, offsets, keys = CORE.batch_children(rows, rolls)
    for i, (row, roll) in enumerate(zip(rows, rolls)):
        moves = CORE.Position.from_array(row).legal_moves((int(roll[0]), int(roll[1])))
        mine = slice(offsets[i], offsets[i + 1])
        assert np.array_equal(children[mine], np.array([m.result.to_array() for m in moves]).reshape(-1, 64))
        assert keys[mine].tolist() == [m.result.zobrist for m in moves]
        assert len({len(m.steps) for m in moves}) == 1  # every legal move plays Umax steps


def test_max_results_stops_a_ladder_in_both_implementations() -> None:
    """The 3.4-million-result ladder under ``max_results=20000``: its eighth level holds 26,494 nodes, so both
    implementations stop there with the same error, long before the ladder's end."""
    messages = set()
    for impl in (CORE, REFERENCE):
        assert impl is not None
        position = impl.Position.from_text(LADDER)
        with pytest.raises(SearchLimitError) as error:
            position.legal_moves((2, 2), max_results=20_000)
        with pytest.raises(SearchLimitError):
            impl.children(position.to_array(), (2, 2), max_results=20_000)
        messages.add(str(error.value))
    assert len(messages) == 1 and "max_results" in messages.pop()


@pytest.mark.slow  # about five seconds and a gigabyte in the core
def test_the_largest_ladder_met() -> None:
    """The 2-2 ladder of 3,382,462 results (the count the core found before its ladder search was rebuilt, in
    35 s, and finds now): every result distinct, every key its row's."""
    assert CORE is not None
    position = CORE.Position.from_text(LADDER)
    children, offsets, keys = CORE.batch_children(position.to_array()[None, :], (2, 2))
    assert len(children) == 3_382_462 == offsets[-1]
    assert len(np.unique(keys)) == len(keys)
    sample = np.random.default_rng(5).choice(len(children), 200, replace=False)
    for i in sample:
        assert CORE.Position.from_array(children[i]).zobrist == int(keys[i])
    assert nardy_fast.SearchLimitError is SearchLimitError


def test_a_search_that_walks_steps_after_one_that_did_not() -> None:
    """A process's first level search kept no steps (a per-step crazy ladder, an ordered list), so its results'
    buffer grew without room for steps; the next (6-5 under the per-step check, an unordered list) walks its
    steps back and must make that room first. Run in a process of its own, whose workspace is fresh: a search
    earlier in the same process may have made the room, and the failure was a crash, not an error."""
    code = (
        "from nardy_fast._dispatch import implementations\n"
        "core = implementations()['cython']\n"
        "row = core.Position.from_text('crazy w 1:-15,24:15 first=- block_check=per_step').to_array()\n"
        "ladder = core.children(row, (1, 1))\n"
        "plain = core.children(row, (6, 5))\n"
        "print(len(ladder), len(plain))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    row = REFERENCE.Position.from_text("crazy w 1:-15,24:15 first=- block_check=per_step").to_array()
    expected = [len(REFERENCE.children(row, roll)) for roll in ((1, 1), (6, 5))]
    assert done.stdout.split() == [str(n) for n in expected]


#: Positions where the head rule (H) binds in a ladder: two checkers may leave the head on a first roll of 3-3
#: or 4-4, one otherwise; a head of three; an empty head that Y holds.
HEAD_POSITIONS = (
    "crazy w 12:-15,24:15",
    "crazy w 12:-15,24:12,6:3",
    "crazy w 12:-15,24:12,6:3 first=-",
    "crazy w 12:-15,24:3,6:4,5:4,4:4 first=-",
    "crazy w 12:-14,24:-1,6:5,5:5,4:5 first=-",
)


@pytest.mark.parametrize("flags", ["", " ladder_per_value=4"], ids=["default", "ladder_per_value=4"])
def test_the_head_rule_in_ladders_equals_the_references(flags: str) -> None:
    """The core reads the head's departures in a ladder from the board (the root's head count less the
    node's, since nothing lands on the head) and merges positions by board alone: every double from positions
    where the rule binds, the core's rows, offsets and keys against the reference's, which counts them."""
    assert CORE is not None
    rows = np.array(
        [REFERENCE.Position.from_text(text + flags).to_array() for text in HEAD_POSITIONS for _ in range(5)],
        dtype=np.int8,
    )
    rolls = np.array([(d, d) for _ in HEAD_POSITIONS for d in range(1, 6)], dtype=np.int8)
    got = CORE.batch_children(rows, rolls)
    want = REFERENCE.batch_children(rows, rolls)
    for mine, theirs in zip(got, want):
        assert np.array_equal(mine, theirs)
    # the rule binds: the first roll's 3-3 (row 7), which lets a second head checker go, moves otherwise than
    # the same roll later (row 12)
    counts = np.diff(got[1])
    assert counts[7] != counts[12] and counts[12] > 0
