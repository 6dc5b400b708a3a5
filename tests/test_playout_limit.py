"""``playout(..., max_results=N)``: a game whose ply would need a search of more than ``N`` positions after one
number of steps is given up there (winner ``LIMITED``, points 0, its trajectory ending at that position), the
same in both implementations and on every policy path: the core's C loop, its lock-step loop for callable
policies, the greedy policies, and the reference's :class:`~nardy_fast.Game` loop."""

from __future__ import annotations

import numpy as np
import pytest

import nardy_fast
from nardy_fast import Game, Greedy, NardyError, SearchLimitError
from nardy_fast._dispatch import implementations
from nardy_fast.cli import main
from nardy_fast.game import LIMITED

IMPLS = implementations()
CORE = IMPLS.get("cython")
pytestmark = pytest.mark.skipif(CORE is None, reason="the core is not built")

#: Crazy games under ladder_per_value=4, where midgame ladders of 1-1, 2-2 and 3-3 hold thousands of positions.
FLAGS = {"ladder_per_value": 4}
LIMIT = 2000


def _first(children: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """A callable policy that takes the first child, as the built-in "first" does."""
    return np.zeros(len(offsets) - 1, dtype=np.int64)


@pytest.mark.parametrize("policy", ["random", "first"])
def test_both_implementations_give_up_the_same_games(policy: str) -> None:
    """The same records and trajectories from both implementations, some games given up; each given-up game
    ends at a position whose search is over the bound, and no earlier position of it is."""
    assert CORE is not None
    core = CORE.playout("crazy", 16, seed=4, policy=policy, trajectories=True, max_results=LIMIT, **FLAGS)
    ref = IMPLS["python"].playout(
        "crazy", 16, seed=4, policy=policy, trajectories=True, max_results=LIMIT, **FLAGS
    )
    records, (rows, _, offsets) = core
    assert records.tobytes() == ref[0].tobytes()
    assert all(np.array_equal(a, b) for a, b in zip(core[1], ref[1]))
    given_up = np.flatnonzero(records["winner"] == LIMITED)
    assert given_up.size and (records["points"][given_up] == 0).all()
    start = CORE.Position.start("crazy", **FLAGS)
    for number in given_up:
        played = rows[offsets[number] : offsets[number + 1]]
        assert len(played) == records["plies"][number] + 1
        # the game again, move by move, through Game and the seeded dice: every ply within the bound but the last
        game = Game.from_start(start, seed=4, game=int(number))
        for row in played[1:]:
            game.position.legal_moves(game.roll, max_results=LIMIT)
            game.play(next(m for m in game.legal_moves() if np.array_equal(m.result.to_array(), row)))
        with pytest.raises(SearchLimitError):
            game.position.legal_moves(game.roll, max_results=LIMIT)


def test_a_callable_policy_gives_up_the_same_games() -> None:
    """The lock-step loop of callable policies against the C loop of "first": the same records, in both
    implementations."""
    assert CORE is not None
    want = CORE.playout("crazy", 10, seed=9, policy="first", max_results=LIMIT, **FLAGS)
    assert (want["winner"] == LIMITED).any()
    for impl in (CORE, IMPLS["python"]):
        got = impl.playout("crazy", 10, seed=9, policy=_first, batch=4, max_results=LIMIT, **FLAGS)
        assert got.tobytes() == want.tobytes()


def test_a_greedy_policy_gives_up_the_same_games() -> None:
    """A greedy policy's games: the same records in both implementations (the ply's own search bounded)."""
    assert CORE is not None
    greedy = Greedy("heuristic")
    core = CORE.playout("crazy", 4, seed=2, policy=greedy, max_results=LIMIT, **FLAGS)
    ref = IMPLS["python"].playout("crazy", 4, seed=2, policy=greedy, max_results=LIMIT, **FLAGS)
    assert core.tobytes() == ref.tobytes() and (core["winner"] == LIMITED).any()


def test_no_bound_by_default() -> None:
    """``max_results=None`` is the default: the records of a playout without it."""
    assert CORE is not None
    assert (
        CORE.playout("crazy", 6, seed=4, max_results=None, **FLAGS).tobytes()
        == CORE.playout("crazy", 6, seed=4, **FLAGS).tobytes()
    )
    assert not (nardy_fast.playout("long", 20, seed=1, max_results=LIMIT)["winner"] == LIMITED).any()


@pytest.mark.parametrize("bad", [0, -5, 2.5, "10", True])
def test_a_bad_bound_is_refused_in_both(bad: object) -> None:
    """The same error, naming ``max_results`` and quoting it, from both implementations."""
    messages = set()
    for impl in IMPLS.values():
        with pytest.raises(NardyError, match=r"^max_results: ") as error:
            impl.playout("crazy", 2, seed=1, max_results=bad)
        messages.add(str(error.value))
    assert len(messages) == 1 and repr(bad) in messages.pop()


def test_the_command_line_gives_up_games_over_its_bound(capsys: pytest.CaptureFixture[str]) -> None:
    """``nardy-fast playout --max-results N``: the records of ``playout(..., max_results=N)``, and a summary
    line for the games given up so."""
    start = nardy_fast.Position.start("crazy", **FLAGS)
    want = nardy_fast.playout(start, 12, seed=4, max_results=LIMIT)
    text = start.to_text()
    assert main(["playout", "--position", text, "--games", "12", "--seed", "4", "--max-results", str(LIMIT)]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("too large ")]
    limited = int(np.count_nonzero(want["winner"] == LIMITED))
    assert limited and rows and int(rows[0].split()[2].replace(",", "")) == limited
    assert main(["playout", "--variant", "crazy", "--games", "1", "--max-results", "0"]) == 2
    assert "--max-results: must be an integer >= 1 (got '0')" in capsys.readouterr().err
