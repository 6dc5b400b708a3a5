"""The Gymnasium single-agent wrapper: one seat of the AEC environment, the other played by an opponent."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import Any, Optional, Union

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium.vector import SyncVectorEnv

from .. import dice
from ..cube import Match
from ..cube.met import default_table
from ..cubeplay import BEAVER, PASS
from ..errors import NardyError, field_error
from ..evaluation.evaluators import Builtin, Evaluator, served
from ..evaluation.outcomes import EVALUATORS
from ..game import Game
from ..inputs import IntLike, choice, integer
from ..kernels import kernels_of
from ..policies import Callback, Greedy, Player, resolve_policy
from ..position import Move
from ..turns import POLICIES
from ..vector import MAX_GAMES
from .aec import NardyEnv
from .checks import (
    AGENTS,
    DEFAULT_MAX_ACTIONS,
    RENDER_FPS,
    RENDER_MODES,
    Observation,
    check_start,
    missing_attribute,
    read_only_rows,
)
from .cubeful import BEAVER as BEAVER_ACTION
from .cubeful import DOUBLE, NO_DOUBLE, TAKE, cube_actions_allowed, phase_of
from .cubeful import PASS as PASS_ACTION

__all__ = ["OPPONENTS", "SingleAgentEnv", "single_agent_vector_env"]

#: The opponents of :class:`SingleAgentEnv` a name gives: the policies (:data:`nardy_fast.game.POLICIES`) and
#: the built-in evaluators (each the 0-ply :class:`~nardy_fast.Greedy` of its evaluator).
OPPONENTS = (*POLICIES, *EVALUATORS)

#: A callable opponent: the playout policy's signature ``policy(children, offsets) -> choices`` for one game.
Opponent = Callable[[npt.NDArray[np.int8], npt.NDArray[np.int64]], object]


def _check_illegal_reward(illegal_reward: object) -> Optional[float]:
    if illegal_reward is None:
        return None
    value = None
    if not isinstance(illegal_reward, (bool, np.bool_)) and isinstance(
        illegal_reward, (int, float, np.integer, np.floating)
    ):
        try:
            value = float(illegal_reward)  # an int beyond a float's range overflows
        except OverflowError:
            value = None
    if value is None or not math.isfinite(value):  # a long double beyond a float's range is inf here
        raise field_error(NardyError, "illegal_reward", "must be None or a finite number", illegal_reward)
    return value


#: The attributes the constructor (or reset) sets: an environment with none of them was never initialised.
_STATE = frozenset(
    (
        "_illegal", "_policy", "aec", "illegal_reward", "opponent", "seat"
    )
)


class SingleAgentEnv(gymnasium.Env[Observation, np.int64]):
    """One seat of :class:`NardyEnv` as a Gymnasium environment, the other seat played by ``opponent``.

    ``opponent`` (by default ``"random"``, and ``Greedy()`` with ``cube=True``, which doubles and takes by
    Janowski's cube decision: :mod:`nardy_fast.env`, "The cube") is any policy of :mod:`nardy_fast.policies`,
    which chooses its moves as it does in a playout
    or a duel: ``"random"`` (a uniform choice among all the legal moves, drawn from the game's dice seed:
    :func:`nardy_fast.dice.choice` of (seed, game number, ply), the choice ``playout(policy="random")``
    makes), ``"first"`` (the first legal move), a :class:`~nardy_fast.Greedy` (the first move of
    :meth:`Position.hint` with its evaluator and plies), an evaluator (a built-in one's name of
    :data:`nardy_fast.EVALUATORS` or any object with an ``evaluate(rows)`` method: its 0-ply ``Greedy``), or
    a callable with the playout policy's signature, ``opponent(children, offsets) -> choices``, called with
    the children rows (n, 64) of every legal move and ``offsets = [0, n]`` (read-only arrays no call can make
    writable) and returning one choice (a sequence of one integer ``0 <= c < n``). The opponent is not
    limited to ``max_actions``. A built-in evaluator that does not serve the variant (``"pubeval"`` outside
    short nardy) is refused here; the ``"race"`` evaluator values races only, so it suits games started from
    a race (``reset(options={"start": ...})``).

    Spaces, seeds, actions and rewards are the AEC environment's (:mod:`nardy_fast.env`), seen from ``seat``
    (``"white"`` or ``"black"``): an episode is one game; ``reset`` and ``step`` return once it is ``seat``'s
    turn again or the game is over; the reward is ``seat``'s. ``reset(options={"start": position})`` raises
    a :class:`~nardy_fast.NardyError` when the game ends before ``seat`` has moved. :meth:`action_masks` gives
    the mask as booleans (the method sb3-contrib's ``MaskablePPO`` calls).

    A masked-out action (in the action space but not offered) ends the episode as a loss by default: the
    step returns ``terminated=True``, reward ``illegal_reward`` (-3.0, the worst score of any game, so that
    it never pays to play one; at money play with the cube, times the cube's value then), an all-0 mask and
    ``info["illegal_action"]``. Gymnasium's ``check_env`` and
    trainers that do not mask sample such actions, so this default keeps them running;
    ``illegal_reward=None`` raises a :class:`~nardy_fast.NardyError` naming ``action`` instead. An action
    outside the action space (not an integer in ``range(max_actions)``), and any step after the end, always
    raise it.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 - Gymnasium declares it so
        "render_modes": list(RENDER_MODES),
        "render_fps": RENDER_FPS,
    }

    def __init__(
        self,
        variant: str = "long",
        *,
        opponent: Union[str, Greedy, Opponent, Evaluator, None] = None,
        seat: str = "white",
        scheme: str = "nardy",
        max_actions: IntLike = DEFAULT_MAX_ACTIONS,
        illegal_reward: Optional[float] = -3.0,
        render_mode: Optional[str] = None,
        cube: bool = False,
        match: Optional[Match] = None,
        **flags: object,
    ) -> None:
        if opponent is None:  # a player that doubles and takes by the rules with the cube, else the random one
            opponent = Greedy() if cube is True else "random"
        self.illegal_reward = _check_illegal_reward(illegal_reward)
        checked_seat = choice(seat, AGENTS)
        if checked_seat is None:
            raise field_error(NardyError, "seat", f"must be one of {AGENTS}", seat)
        # a string is a known name or nothing (a callable str subclass is no opponent), and it is passed on as
        # the plain name, so that the registry never compares the caller's object
        given: object = opponent
        if isinstance(opponent, str):
            given = choice(opponent, OPPONENTS)
            if given is None:
                raise field_error(
                    NardyError,
                    "opponent",
                    f"must be one of {OPPONENTS}, a Greedy, an evaluator or a callable",
                    opponent,
                )
        spec = resolve_policy(given, "opponent", evaluators=True)
        #: The AEC environment underneath (its ``game`` is the game being played).
        self.aec = NardyEnv(
            variant, scheme=scheme, max_actions=max_actions, render_mode=render_mode, cube=cube, match=match, **flags
        )
        _check_served(spec, self.aec.variant, opponent)
        longest = default_table().size
        length = None if self.aec.match is None else self.aec.match.length
        if length is not None and length > longest and getattr(spec, "cube", None) == "janowski":
            # refused now, not at the opponent's first cube decision in the middle of an episode
            raise field_error(NardyError, "match", f"an opponent deciding at the score needs a length up to {longest}",
                              length)
        self.seat = checked_seat
        #: The opponent as given (a name as the plain string).
        self.opponent: object = given
        self._policy = Callback(_one_choice(spec.callback)) if isinstance(spec, Callback) else spec
        self._illegal = False  # the episode ended on a masked-out action
        self.render_mode = self.aec.render_mode
        self.observation_space = self.aec.observation_space(checked_seat)
        self.action_space = self.aec.action_space(checked_seat)


    def __getattr__(self, name: str) -> Any:
        # only for attributes never set: an environment made with __new__ alone is refused by name
        raise missing_attribute(self, name, _STATE)
    def reset(
        self, *, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None
    ) -> tuple[Observation, dict[str, Any]]:
        """Start a game (seeds as the AEC environment's) and play the opponent until ``seat`` is to move."""
        # checked here, before Gymnasium sees the seed: the AEC environment's seeds and message, NumPy's
        # integers included (Gymnasium takes the Python int check_seed returns, of any size)
        checked = None if seed is None else dice.check_seed(seed)
        start = check_start(options, self.aec.variant)
        super().reset(seed=checked)
        if checked is None and self.aec.game is None:
            checked = int(self.np_random.integers(1 << 63))
        self.aec._start(checked, start)
        self._illegal = False
        self._reply()
        if self.aec.game is not None and self.aec.game.is_over():
            raise field_error(NardyError, 'options["start"]', f"ends before {self.seat} moves", start)
        return self.aec.observe(self.seat), self._info()

    def step(self, action: object) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        """Play ``action`` for ``seat``, then the opponent until ``seat`` is to move or the game ends."""
        if self.aec.game is None or self.aec._finished() or self._illegal:
            raise field_error(NardyError, "action", "cannot be played: call reset() first", action)
        index = integer(action)
        mask = self.aec._mask
        if self.illegal_reward is not None and index is not None and 0 <= index < len(mask) and not mask[index]:
            self._illegal = True
            observation = self.aec.observe(self.seat)
            observation["action_mask"][:] = 0
            game, match = self.aec.game, self.aec.match
            # money play with the cube: the worst score at the cube now, as -3 is without the cube
            scale = game.cube.value if match is not None and match.money else 1
            reward = self.illegal_reward * scale
            return observation, reward, True, False, {**self._info(), "illegal_action": index}
        self.aec.step(action)
        reward = float(self.aec.rewards[self.seat])
        reward += self._reply()
        terminated = any(self.aec.terminations.values())
        truncated = any(self.aec.truncations.values())
        return self.aec.observe(self.seat), reward, terminated, truncated, self._info()

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The actions ``seat`` may take now, as booleans (all ``False`` after the end)."""
        if self._illegal:
            return np.zeros(self.aec.max_actions, dtype=bool)
        mask: npt.NDArray[np.int8] = self.aec.observe(self.seat)["action_mask"]
        return mask.astype(bool)

    def render(self) -> Union[str, npt.NDArray[np.uint8], None]:
        """The position as the AEC environment renders it: text, or an RGB image for ``"rgb_array"``."""
        return self.aec.render()

    def children(self) -> npt.NDArray[np.int8]:
        """The results of the offered actions as packed rows (k, 64), in action order (empty after the end):
        an agent that scores afterstates encodes them. Through a Gymnasium vectoriser, ``envs.call("children")``
        gives one array per sub-environment. They are not in ``info``, which Gymnasium's vectorisers stack
        into one array per key: ``k`` differs between environments. The array is read-only (no call can make
        it writable): the environment hands the same one until the next step."""
        if self.aec.game is None:
            raise field_error(NardyError, "reset", "must be called first", None)
        rows: Optional[npt.NDArray[np.int8]] = None
        if not self._illegal:
            rows = self.aec.infos.get(self.seat, {}).get("children")
        return read_only_rows([]) if rows is None else rows

    def _info(self) -> dict[str, Any]:
        """``seat``'s info, a copy that shares nothing with the environment (Gymnasium's rule), without the
        children rows (:meth:`children`): every value is one Gymnasium's vectorisers can stack."""
        info = dict(self.aec.infos.get(self.seat, {}))
        info.pop("children", None)
        return info

    def _reply(self) -> float:
        """Play the opponent's moves until ``seat`` is to move or the game ends; ``seat``'s reward."""
        reward = 0.0
        aec = self.aec
        while not aec._finished() and aec.agent_selection != self.seat:
            game = aec._game()  # a match's next game is a new one
            phase = "move" if aec.match is None else phase_of(game, aec._decided)
            aec._clear_rewards()
            if phase == "move":
                moves = game.legal_moves()
                aec._play(moves[self._choose(game, moves)])
            else:
                aec._cube_action(self._cube_choice(game, phase))
            reward += float(aec.rewards[self.seat])
        return reward

    def _cube_choice(self, game: Game, phase: str) -> int:
        """The opponent's cube action in ``phase`` (``"cube"``: whether it doubles; ``"answer"``: its answer
        to the double), by its player's cube strategy; a beaver it may not make is a take."""
        position = game.position
        rows, states = position.to_array()[None, :], [(game.cube, game.match)]
        if phase == "cube":
            return DOUBLE if self._policy.doubles(kernels_of(position), rows, states)[0] else NO_DOUBLE
        answer = int(self._policy.responses(kernels_of(position), rows, states)[0])
        if answer == PASS:
            return PASS_ACTION
        if answer == BEAVER and BEAVER_ACTION in cube_actions_allowed(game, phase):
            return BEAVER_ACTION
        return TAKE

    def _choose(self, game: Game, moves: list[Move]) -> int:
        """The opponent's choice among ``moves``, the legal moves of ``game`` now (their results' rows as a
        playout hands them to its policy: one position, game ``game.game`` of ``game.seed`` at ply
        ``game.plies``)."""
        position = game.position
        children = np.stack([move.result.to_array() for move in moves])
        picks = self._policy.choose(
            kernels_of(position),
            position.to_array()[None, :],
            children,
            np.array([0, len(moves)], dtype=np.int64),
            np.array([game.game], dtype=np.int64),
            np.array([game.plies], dtype=np.int64),
            game.seed,
        )
        return int(picks[0])


def single_agent_vector_env(num_envs: IntLike = 1, **kwargs: Any) -> SyncVectorEnv:
    """``num_envs`` :class:`SingleAgentEnv` made with the same keyword arguments, in one Gymnasium
    ``SyncVectorEnv``: the vector entry point of ``nardy_fast/<variant>-v0`` (``gymnasium.make_vec``'s
    default mode). Each sub-environment plays its seat against the opponent, as ``gymnasium.make`` of the ID
    does, so every vectorisation mode of the ID has the same semantics; the self-play
    :class:`~nardy_fast.env.NardyVectorEnv`, where both sides act, is another ID
    (``nardy_fast/<variant>-selfplay-v0``). ``num_envs`` is ``1 ..`` :data:`~nardy_fast.vector.MAX_GAMES`;
    the first environment is made (its arguments checked) before the others."""
    count = integer(num_envs)
    if count is None or not 1 <= count <= MAX_GAMES:
        raise field_error(
            NardyError, "num_envs", "must be an integer 1 <= num_envs <= 2**20 (MAX_GAMES)", num_envs
        )
    first = SingleAgentEnv(**kwargs)
    return SyncVectorEnv([lambda: first, *[partial(SingleAgentEnv, **kwargs)] * (count - 1)])


def _check_served(spec: Player, variant: str, opponent: object) -> None:
    """A greedy opponent's built-in evaluator must serve ``variant``."""
    evaluator = spec.resolved if isinstance(spec, Greedy) else None
    if isinstance(evaluator, Builtin):
        serves = served(evaluator)
        if serves is not None and variant not in serves:
            problem = f"evaluator {evaluator!r} evaluates {' and '.join(serves)} nardy only, not {variant}"
            raise field_error(NardyError, "opponent", problem, opponent)


def _one_choice(
    opponent: Opponent,
) -> Callable[[npt.NDArray[np.int8], npt.NDArray[np.int64]], npt.NDArray[np.int64]]:
    """``opponent`` as a policy of one game whose answer is checked as the environment words it: one
    integer choice among the ``n`` children it was shown."""

    def policy(children: npt.NDArray[np.int8], offsets: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        choices = opponent(children, offsets)
        try:
            array = np.array(choices)  # a copy: the opponent's own array may change after it is checked
        except Exception:  # a returned object that cannot be read is no choice
            array = np.zeros(0, dtype=object)
        picked = int(array[0]) if array.shape == (1,) and array.dtype.kind in "iu" else -1
        count = len(children)
        if not 0 <= picked < count:
            raise field_error(
                NardyError, "opponent", f"must return one choice 0 <= c < {count} (shape (1,))", choices
            )
        return np.array([picked], dtype=np.int64)

    return policy
