"""The reference plays the same games as the core: identical records, game by game, for every variant and flag
setting, and ``Game`` and ``playout`` side by side under choices Hypothesis makes.

The reference's rules are slow on crazy ladders, so how many games each setting plays depends on
``NARDY_FAST_FULL_DIFFERENTIAL`` (see ``games_for``): unset, a sample of each setting; ``1`` (CI's suite, on
both cores), a thousand random games of every setting but crazy's; ``all`` (the scheduled workflow
``.github/workflows/differential.yml``), a thousand random games of every setting, crazy's included.
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from test_games import SETTING_IDS, SETTINGS

import nardy_fast
from nardy_fast import Game
from nardy_fast._dispatch import implementations

IMPLS = implementations()
CORE = IMPLS.get("cython")
LEVEL = os.environ.get("NARDY_FAST_FULL_DIFFERENTIAL", "")
FULL = LEVEL in ("1", "all")
#: ``NARDY_FAST_FULL_DIFFERENTIAL=all``: a thousand random games of every setting, crazy's too (40 minutes on two
#: cores, docs/benchmarks.md).
EVERYTHING = LEVEL == "all"
#: Worker processes for the reference's games: two, the cores of the machines CI runs on. The largest game, a
#: crazy one with ladder_per_value=4, takes a worker 15 minutes and 1.2 GB (see games_for).
WORKERS = 2
pytestmark = pytest.mark.skipif(CORE is None, reason="the core is not built")


def reference_records(variant: str, flags: dict[str, object], first: int, games: int, policy: str) -> bytes:
    """The reference's records of a range of games (run in a worker process)."""
    records = IMPLS["python"].playout(variant, games, seed=20261201, first_game=first, policy=policy, **flags)
    return bytes(records.tobytes())


def games_for(variant: str, flags: dict[str, object], policy: str) -> int:
    """Games per setting and policy.

    Crazy ladders are where the reference is slow. A thousand random crazy games take it five to six minutes
    on two cores, and with ladder_per_value=4 twenty-three: one of those games has a 2-2 ladder of 3.4 million
    results, which alone takes the reference 15 minutes and 1.2 GB (the core four seconds). Under "first",
    which keeps taking the same kind of move into long ladders, a crazy game takes seconds to minutes. So in CI
    crazy plays a hundred random games per setting (five with ladder_per_value=4), and the scheduled
    differential a thousand. The core's loop is also checked on up to a thousand crazy games per setting
    against the Python game loop over the core's positions in test_games.py, and the core's moves against
    the reference's position by position in test_differential.py.
    """
    ladder4 = flags.get("ladder_per_value") == 4
    if policy == "random":
        if EVERYTHING or (FULL and variant != "crazy"):
            return 1000
        if variant == "crazy":
            return (5 if ladder4 else 100) if FULL else (1 if ladder4 else 4)
        return 20
    if variant != "crazy":
        return 200 if FULL else 20
    if EVERYTHING:
        return 2 if ladder4 else 20
    return (2 if ladder4 else 3) if FULL else 0


@pytest.mark.slow  # the reference plays the core's games: half a minute for all the settings
@pytest.mark.parametrize(("variant", "flags"), SETTINGS, ids=SETTING_IDS)
@pytest.mark.parametrize("policy", ["random", "first"])
def test_the_reference_plays_the_cores_games(variant: str, flags: dict[str, object], policy: str) -> None:
    games = games_for(variant, flags, policy)
    if not games:
        pytest.skip("played in the full differential only (NARDY_FAST_FULL_DIFFERENTIAL=1)")
    assert CORE is not None
    expected = CORE.playout(variant, games, seed=20261201, policy=policy, **flags)
    chunk = max(1, min(20, games // 8))  # small chunks: a few games take most of crazy's time
    with ProcessPoolExecutor(WORKERS, mp_context=get_context("spawn")) as pool:
        parts = [
            pool.submit(reference_records, variant, flags, first, min(chunk, games - first), policy)
            for first in range(0, games, chunk)
        ]
        found = np.frombuffer(b"".join(part.result() for part in parts), dtype=expected.dtype)
    assert len(found) == games
    mismatched = np.flatnonzero(found != expected)
    assert not mismatched.size, (
        f"games {mismatched[:10].tolist()} differ: {found[mismatched[:3]]} vs {expected[mismatched[:3]]}"
    )


class GameBesidePlayout(RuleBasedStateMachine):
    """A game played move by move (``Game``, choices made by Hypothesis) and the same game played by
    ``playout`` with a policy that replays those choices: the same positions, rolls and record."""

    @initialize(
        variant=st.sampled_from(["long", "sixone", "short", "gulbar", "crazy"]),
        seed=st.integers(0, 2**64 - 1),
        number=st.integers(0, 2**40),
        opening=st.sampled_from(["fresh_roll", "use_single_dice"]),
        stratify=st.booleans(),
    )
    def start(self, variant: str, seed: int, number: int, opening: str, stratify: bool) -> None:
        assert CORE is not None
        self.args = (variant, seed, number, opening, stratify)
        self.game = Game(
            variant, seed=seed, game=number, opening=opening, stratify=stratify, position_class=CORE.Position
        )
        self.choices: list[int] = []

    @rule(pick=st.integers(0, 10**6))
    def play(self, pick: int) -> None:
        if self.game.is_over():
            return
        moves = self.game.legal_moves()
        self.choices.append(pick % len(moves))
        self.game.play(moves[self.choices[-1]])

    @invariant()
    def rolls_follow_the_position(self) -> None:
        position = self.game.position
        assert (self.game.roll is None) == (position.is_over() or bool(position.pending))
        assert self.game.turns == sum(roll is not None for roll, _ in self.game.history)

    def teardown(self) -> None:
        if not hasattr(self, "game"):
            return
        game = self.game
        for _ in range(40):  # the rest of the game by the first move, for a while
            if game.is_over():
                break
            game.play(game.legal_moves()[0])
            self.choices.append(0)
        replay = iter(self.choices)

        def policy(children: np.ndarray, offsets: np.ndarray) -> list[int]:
            return [next(replay, 0)]

        variant, seed, number, opening, stratify = self.args
        records, (rows, rolls, offsets) = nardy_fast.playout(
            variant,
            1,
            seed=seed,
            first_game=number,
            opening=opening,
            stratify=stratify,
            policy=policy,
            trajectories=True,
        )
        positions = [game.start] + [move.result for _, move in game.history]
        played = rows[: len(positions)]
        assert [p.to_array().tobytes() for p in positions] == [r.tobytes() for r in played]
        assert [roll or (0, 0) for roll, _ in game.history] == [tuple(r) for r in rolls[: len(game.history)]]
        if game.is_over():
            record = records[0]
            assert len(rows) == len(positions) == offsets[1]
            assert ("white", "black")[record["winner"]] == game.winner()
            assert (record["points"], record["plies"], record["turns"]) == (
                game.points(),
                game.plies,
                game.turns,
            )


GameBesidePlayout.TestCase.settings = settings(max_examples=25, stateful_step_count=60, deadline=None)
test_game_beside_playout = GameBesidePlayout.TestCase
