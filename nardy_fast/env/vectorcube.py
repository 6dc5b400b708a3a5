"""The self-play vector environment with the doubling cube (``NardyVectorEnv(cube=True)``; :mod:`nardy_fast.env`,
"The cube"): ``num_envs`` money games or matches stepped together, the acting side of each giving one action a
step, a cube action in a cube phase, else a move.

The cube and the match of every slot, the rules on who may double and a match's games one after another are
:class:`nardy_fast.cubeloop.CubeLockstep`'s, the one Python game loop with the cube that cube duels and cubeful
rollouts play: here it is stepped from outside, as :class:`nardy_fast.Games` steps its
:class:`~nardy_fast.lockstep.Lockstep`. This module adds only what a step from outside needs and that loop
does within one call: the double awaiting its answer, the decision not to double this turn, and the episodes
(a money game, or a whole match) that start in a slot once the last one ends. Apart from
:mod:`nardy_fast.env.vector`, so that the environment without the cube reads none of it.

The cube (``cube=True``, ``match=``: :mod:`nardy_fast.env`, "The cube")
    The AEC environment's cube, in every sub-environment: the action space is ``max_actions`` plus the five
    :data:`~nardy_fast.env.ENV_CUBE_ACTIONS`, and each step every sub-environment's acting side gives one
    action, the one its mask allows: ``no_double`` or ``double`` where the side to move may double and has not
    decided, ``take``, ``pass`` (``beaver``) where a double awaits the other side's answer, else a move (no roll
    shown, ``info["roll"]`` (0, 0) and no children before it). An observation gains ``"cube"`` (num_envs,
    :data:`~nardy_fast.env.CUBE_FEATURES`). ``info["mover"]`` is the side that acted, ``info["acting"]`` the
    side that acts next (the side doubled while a double awaits its answer, else ``turn``). An episode is a
    money game or a whole match, numbered as the AEC environment numbers them: the sub-environments start
    episodes ``0 .. num_envs - 1`` of the seed, the ``k``-th episode to end makes way for episode
    ``num_envs + k``, and match ``k``'s game ``j`` has the dice of game number ``k * 256 + j`` (``info["game"]``).
    So every episode is that of the AEC environment reset to the same seed and episode number, played with
    the same actions: the same observations, rewards and end. The reward is the acting side's: at money play
    its points times the cube when the game ends (the side that passes a double: minus the cube's value before
    it), in a match +1 or -1 when the match ends, 0 between its games. A game given up after
    :data:`~nardy_fast.game.MAX_PLIES` plies truncates its episode (a match's too, as in the AEC environment),
    and so does a match still going after :data:`~nardy_fast.cubeloop.GAMES_PER_MATCH` games. ``final_info``
    adds ``cube``, the cube's value at the end; its ``points`` are no more than the winner needed in a match.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple, Optional

import numpy as np
import numpy.typing as npt

from .. import layout
from ..batch import explain
from ..cube import MAX_CUBE, Match
from ..cubeloop import GAMES_PER_MATCH, CubeLockstep
from ..errors import NardyError, field_error
from ..kernels import GameRolls, Kernels, PlayoutArgs
from ..lockstep import Lockstep
from ..playouts import PlayoutOptions, check_playout
from ..position import Position
from ..vector import LAST_NUMBER
from .checks import Observation
from .cubeful import BEAVER, CUBE_FEATURES, DOUBLE, ENV_CUBE_ACTIONS, NO_DOUBLE, PASS, TAKE

__all__ = ["CubeGames", "CubeStep"]

Ints = npt.NDArray[np.int64]
Mask = npt.NDArray[np.bool_]
Rows = npt.NDArray[np.int8]
Floats = npt.NDArray[np.float64]

#: The phases of a slot's turn (:data:`nardy_fast.env.cubeful.PHASES`, by index).
CUBE, ANSWER, MOVE = range(3)


class _Slots(CubeLockstep):
    """:class:`~nardy_fast.cubeloop.CubeLockstep` whose episodes start from ``args`` (a position, or the
    variant's start) while a match's later games start from the variant's start (``variant_args``), as the
    AEC environment's do; ``opened`` marks the slots whose game is an episode's first."""

    __slots__ = ("variant_args", "opened")

    def __init__(self, args: PlayoutArgs, variant_args: PlayoutArgs, episodes: Ints, game_rolls: GameRolls,
                 match: Match) -> None:
        super().__init__(args, episodes, game_rolls, np.zeros(len(episodes), dtype=bool), match)  # White: seat 0
        self.variant_args = variant_args
        self.opened = np.ones(len(episodes), dtype=bool)

    def may_double(self, slots: Ints) -> Mask:
        """As a game's; a match's later game, from the variant's start, has its opening roll thrown already
        (no double before its first move), even where the episode began from a position."""
        may = super().may_double(slots)
        if self.args.from_start:
            return may
        later: Mask = may & ~(~self.opened[slots] & (self.plies[slots] == 0))
        return later

    def restart(self, slots: Ints, numbers: Ints) -> None:
        """A match's next games (:meth:`CubeLockstep.finish` starts them): from the variant's start."""
        own, self.args = self.args, self.variant_args
        try:
            super().restart(slots, numbers)
        finally:
            self.args = own
        self.opened[slots] = False

    def begin(self, slots: Ints, episodes: Ints) -> None:
        """New episodes ``episodes`` in ``slots``: a money game numbered so, or match ``k``'s first game
        (number ``k * GAMES_PER_MATCH``), from the episode's start, at the session's cube and score."""
        self.base[slots] = episodes
        Lockstep.restart(self, slots, episodes if self.match.money else episodes * GAMES_PER_MATCH)
        self.opened[slots] = True
        self.value[slots], self.owner[slots], self.last[slots] = 1, -1, -1
        self.score[slots] = self.match.score
        self.crawford[slots] = self.match.crawford
        self.played[slots], self.done[slots], self.result[slots] = 0, False, 0.0


class CubeStep(NamedTuple):
    """What a step did: each slot's acting side (``mover``) and its reward, the episodes that ended
    (terminated: decided; truncated: given up, or a match left undecided), and for each slot whose episode
    ended its final observation and final info."""

    mover: npt.NDArray[np.int8]
    rewards: Floats
    terminated: Mask
    truncated: Mask
    finals: list[tuple[int, Observation, dict[str, int]]]


class CubeGames:
    """The slots' games with their cubes and matches, stepped from outside: ``reset`` makes one, ``step``
    plays one action per slot. Episode ``k`` is money game number ``k`` of ``seed``, or the match whose game
    ``j`` has the dice of game number ``k * GAMES_PER_MATCH + j`` (as the AEC environment numbers them); the
    slots start episodes ``first .. first + n - 1`` and each later episode takes the next number."""

    def __init__(self, kernels: Kernels, encode: Callable[[Rows], npt.NDArray[np.float32]], scheme: str,
                 max_actions: int, start: tuple[str, dict[str, Any], Optional[Position]], count: int, seed: int,
                 first: int, match: Match) -> None:
        variant, flags, position = start
        variant_args = check_playout(variant, count, seed, PlayoutOptions(flags=flags))
        args = variant_args if position is None else check_playout(position, count, seed, PlayoutOptions())
        self.kernels, self.encode, self.scheme, self.max_actions = kernels, encode, scheme, max_actions
        self.match = match
        self.seed = seed
        self._check_numbers(first + count)
        episodes = np.arange(count, dtype=np.int64) + first
        self.slots = _Slots(args, variant_args, episodes, kernels.game_rolls, match)
        #: The number the next episode to start takes.
        self.next_game = first + count
        self.offered = np.full(count, -1, dtype=np.int8)  # the side whose double awaits its answer, else -1
        self.decided = np.zeros(count, dtype=bool)  # the side to move has decided not to double this turn
        self.phase = np.zeros(count, dtype=np.int8)
        self.counts = np.zeros(count, dtype=np.int64)  # the legal results of each slot in its move phase
        self.children = (np.zeros((0, layout.WIDTH), dtype=np.int8), np.zeros(count + 1, dtype=np.int64))
        self._refresh()

    def _check_numbers(self, end: int) -> None:
        """The games of episodes up to ``end`` keep their numbers below 2**62, as :class:`nardy_fast.Games`'."""
        last = end if self.match.money else end * GAMES_PER_MATCH
        if last > LAST_NUMBER:
            raise field_error(NardyError, "reset", "leaves no game number below 2**62 for the next episodes",
                              end)

    # --- the state -------------------------------------------------------------------------------------------

    def _refresh(self) -> None:
        """Each slot's phase, and the children of the slots that move (the kernel searched once)."""
        s = self.slots
        every = np.arange(len(self.phase), dtype=np.int64)
        phase = np.full(len(every), MOVE, dtype=np.int8)
        phase[s.may_double(every) & ~self.decided] = CUBE
        phase[self.offered >= 0] = ANSWER
        self.phase = phase
        moving = every[phase == MOVE]
        self.counts = np.zeros(len(every), dtype=np.int64)
        children = np.zeros((0, layout.WIDTH), dtype=np.int8)
        if moving.size:
            rows, rolls = s.rows[moving], s.rolls[moving]
            found, offsets, _, bad, _ = self.kernels.batch(rows, rolls, 0)
            if found is None or offsets is None:  # never for the games' own rows: said plainly if it were
                raise explain(rows, rolls, bad)
            children = np.asarray(found)
            self.counts[moving] = np.diff(np.asarray(offsets))
        full = np.zeros(len(every) + 1, dtype=np.int64)
        np.cumsum(self.counts, out=full[1:])
        self.children = (children, full)

    def acting(self) -> npt.NDArray[np.int8]:
        """The side that acts in each slot: the side doubled while a double awaits its answer, else the side
        to move."""
        turn = self.slots.rows[:, layout.TURN]
        acting: npt.NDArray[np.int8] = np.where(self.offered >= 0, 1 - self.offered, turn).astype(np.int8)
        return acting

    def features(self, slots: Ints, phase: npt.NDArray[np.int8]) -> npt.NDArray[np.float32]:
        """The cube features (:data:`~nardy_fast.env.cubeful.CUBE_FEATURES`) of ``slots`` in ``phase``, from
        the side to move's view (as :func:`~nardy_fast.env.cubeful.cube_features` of a game)."""
        s = self.slots
        turn = s.rows[slots, layout.TURN].astype(np.int64)
        owner = s.owner[slots]
        out = np.zeros((len(slots), CUBE_FEATURES), dtype=np.float32)
        out[:, 0] = np.log2(s.value[slots])
        out[:, 1], out[:, 2] = owner == turn, owner == 1 - turn
        out[:, 3], out[:, 4] = phase == CUBE, phase == ANSWER
        length = self.match.length
        if length is not None:
            away, index = length - s.score[slots], np.arange(len(slots))
            out[:, 5], out[:, 6] = away[index, turn], away[index, 1 - turn]
        out[:, 7] = s.crawford[slots]
        return out

    def observe(self) -> Observation:
        """The batched observation now: the positions' encoding (OpenSpiel's dice only where a roll is to be
        played), the masks of the actions each slot's phase allows, the cube features."""
        s, phase = self.slots, self.phase
        n = len(phase)
        every = np.arange(n, dtype=np.int64)
        features = self.encode(s.rows)
        if self.scheme == "openspiel":
            shown = (phase == MOVE) & (s.rolls[:, 0] != 0)
            features[shown, 198:] = np.sort(s.rolls[shown], axis=1)  # OpenSpiel's dice features
        mask = np.zeros((n, self.max_actions + len(ENV_CUBE_ACTIONS)), dtype=np.int8)
        mask[:, : self.max_actions] = np.arange(self.max_actions) < np.minimum(self.counts, self.max_actions)[:, None]
        cube = self.max_actions
        mask[phase == CUBE, cube + NO_DOUBLE] = mask[phase == CUBE, cube + DOUBLE] = 1
        answer = phase == ANSWER
        mask[answer, cube + TAKE] = mask[answer, cube + PASS] = 1
        if self.match.money and self.match.beavers:
            mask[answer & (4 * s.value <= MAX_CUBE), cube + BEAVER] = 1
        return {"observation": features, "action_mask": mask, "cube": self.features(every, phase)}

    def info(self) -> dict[str, npt.NDArray[Any]]:
        """Each slot's info values now (the vector environment's keys, and ``acting``)."""
        s = self.slots
        rolls = np.where((self.phase == MOVE)[:, None], s.rolls, 0).astype(np.int8)  # no roll shown before its cube
        return {
            "roll": rolls,
            "game": s.numbers.copy(),
            "turn": s.rows[:, layout.TURN].copy(),
            "acting": self.acting(),
            "legal_results": self.counts.copy(),
            "not_offered": np.maximum(self.counts - self.max_actions, 0),
        }

    # --- a step ----------------------------------------------------------------------------------------------

    def step(self, actions: Ints) -> CubeStep:
        """Play ``actions`` (one per slot, each allowed by its mask: the caller checked them)."""
        s, phase = self.slots, self.phase
        n = len(phase)
        mover = self.acting()
        turn = s.rows[:, layout.TURN].astype(np.int8)
        cubing = np.flatnonzero(phase != MOVE)
        act = actions[cubing] - self.max_actions
        self.decided[cubing[act == NO_DOUBLE]] = True
        doubling = cubing[act == DOUBLE]
        self.offered[doubling] = turn[doubling]
        for action, factor in ((TAKE, 2), (BEAVER, 4)):  # the side doubled owns the cube
            taken = cubing[act == action]
            s.value[taken] *= factor
            s.owner[taken] = 1 - self.offered[taken]
            self.offered[taken] = -1
        passed = cubing[act == PASS]
        ended, winners, points = [passed], [self.offered[passed].astype(np.int64)], [s.value[passed].copy()]
        self.offered[passed] = -1
        moving = np.flatnonzero(phase == MOVE)
        if moving.size:
            children, offsets = self.children
            chosen = children[offsets[moving] + actions[moving]]
            over_here = s.ends(moving, chosen)
            s.advance(moving, chosen, over_here)
            self.decided[moving] = False
            over = moving[over_here]
            final = s.rows[over]
            multiple = layout.points(final).astype(np.int64)
            if self.match.jacoby:  # a single game while the cube is centred
                multiple = np.where(s.owner[over] == -1, np.minimum(multiple, 1), multiple)
            ended.append(over)
            winners.append(np.where(layout.is_over(final), layout.winner(final), -1).astype(np.int64))
            points.append(multiple * s.value[over])
        result = CubeStep(mover, np.zeros(n), np.zeros(n, dtype=bool), np.zeros(n, dtype=bool), [])
        slots = np.concatenate(ended)
        order = np.argsort(slots, kind="stable")  # the episodes that end take the next numbers in slot order
        self._end(slots[order], np.concatenate(winners)[order], np.concatenate(points)[order], result)
        self._refresh()
        return result

    def _end(self, slots: Ints, winners: Ints, points: Ints, result: CubeStep) -> None:
        """The games of ``slots`` end, ``winners`` (-1: given up at the ply limit) scoring ``points``: the
        rewards of the acting sides, a match's score moved (its next game started), the ended episodes'
        finals recorded and new episodes started in their slots."""
        if not slots.size:
            return
        s = self.slots
        rows = s.rows[slots].copy()
        features = self.features(slots, np.full(len(slots), MOVE, dtype=np.int8))
        given = winners < 0
        points = np.where(given, 0, points)
        length = self.match.length
        if length is not None:  # a match adds no more than the winner needs
            points = np.minimum(points, length - s.score[slots, np.maximum(winners, 0)])
        records = {"game": s.numbers[slots].copy(), "winner": winners.copy(), "points": points.copy(),
                   "plies": s.plies[slots].astype(np.int64), "turns": s.turns[slots].astype(np.int64),
                   "cube": s.value[slots].copy()}
        actor = result.mover[slots]
        result.truncated[slots[given]] = True
        if length is None:
            result.rewards[slots] = np.where(given, 0.0, np.where(winners == actor, 1.0, -1.0) * points)
            result.terminated[slots[~given]] = True
            finished = np.ones(len(slots), dtype=bool)
        else:
            played = ~given
            s.finish(slots[played], winners[played], points[played])  # the score, Crawford, the next game
            finished = given | s.done[slots]
            won = ~given & s.done[slots] & (s.score[slots] >= length).any(axis=1)
            result.rewards[slots[won]] = np.where(winners[won] == actor[won], 1.0, -1.0)
            result.terminated[slots[won]] = True
            result.truncated[slots[finished & ~won]] = True  # given up, or a match left undecided
            self.decided[slots[~finished]] = False
        encoded = self.encode(rows)
        for i in np.flatnonzero(finished).tolist():
            final_obs = {"observation": encoded[i], "cube": features[i],
                         "action_mask": np.zeros(self.max_actions + len(ENV_CUBE_ACTIONS), dtype=np.int8)}
            result.finals.append((int(slots[i]), final_obs, {key: int(v[i]) for key, v in records.items()}))
        self._start(slots[finished])

    def _start(self, slots: Ints) -> None:
        """The next episodes in ``slots``."""
        if not slots.size:
            return
        self._check_numbers(self.next_game + len(slots))
        episodes = np.arange(len(slots), dtype=np.int64) + self.next_game
        self.next_game += len(slots)
        self.slots.begin(slots, episodes)
        self.offered[slots], self.decided[slots] = -1, False
