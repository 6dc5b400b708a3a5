"""Reinforcement-learning environments: a PettingZoo AEC environment for two agents and a Gymnasium
single-agent wrapper that plays against a built-in opponent (the ``env`` extra: ``pip install
"nardy-fast[env]"``, which brings PettingZoo and Gymnasium; nothing else in the package imports them).

>>> from nardy_fast.env import env
>>> aec = env("short")                        # the AEC environment, PettingZoo's standard wrappers around it
>>> aec.reset(seed=7)                         # dice seed 7, game number 0
>>> for agent in aec.agent_iter():
...     observation, reward, terminated, truncated, info = aec.last()
...     aec.step(None if terminated or truncated else 0)   # action 0: the first legal result
>>> aec.game.is_over(), aec.agents                  # both agents have left the finished game
(True, [])

The game (docs/rules.md)
    One environment plays one variant with the package's seeded dice through :class:`nardy_fast.Game`: it
    rolls who starts and the opening, draws every roll, grants the extra rolls, and hands over the gulbar
    transfers (the side to move then plays a pending list, with no roll). The agents are ``"white"`` and
    ``"black"``; the acting agent is always the side to move of ``game.position``, so one agent acts several
    times in a row after an extra roll or before a transfer segment. A side that cannot play has one action,
    the empty move.

Seeds
    ``reset(seed=s)`` plays game number 0 of dice seed ``s``; each ``reset()`` without a seed plays the next
    game number of the same seed (1, 2, ...), so ``reset(seed=s)`` then ``k`` plain resets replays
    ``Game(variant, seed=s, game=k)`` exactly. The first reset without any seed draws the dice seed from the
    operating system's entropy (:class:`SingleAgentEnv` from its Gymnasium ``np_random``).
    ``reset(options={"start": position})`` starts from a position of the environment's variant instead
    (``Game(position, ...)``: the side to move rolls first); ``options`` is ``None`` or any mapping, and its
    other keys are ignored. A seed is an integer ``0 <= seed < 2**64`` (Python's or NumPy's) in both
    environments, checked before anything else is touched.

Actions and observations
    Action ``i`` plays the ``i``-th move of ``game.legal_moves()`` (one per distinct result, in that order).
    The action space is ``Discrete(max_actions)`` and an observation is a dict: ``"observation"``, the
    position's encoding :func:`nardy_fast.encode` under ``scheme`` (a float32 vector; for ``"openspiel"`` with
    the roll in its two dice features, lower die first, as OpenSpiel's tensor after the roll), and
    ``"action_mask"`` (int8, ``max_actions``), 1 for the actions the acting agent may take and all 0 for the
    other agent and after the end. The acting agent's ``info`` holds the ``roll`` (``None`` for a pending list),
    ``children`` (the results of the offered actions as packed rows (k, 64), in action order: an agent that
    scores afterstates encodes them; a read-only array no call can make writable, since every later
    ``last()`` hands the same one), ``legal_results`` (how many results the position has) and
    ``not_offered`` (how many of them are beyond ``max_actions``). Observations and masks are fresh arrays
    every call: nothing handed out is read back by the environment.

More results than ``max_actions``
    Crazy gulbar's ladders can have hundreds of thousands of results. The mask then offers the first
    ``max_actions`` of them in ``legal_moves()`` order and the rest are not offered; ``info["not_offered"]``
    counts them. The game stays a legal game: the agent chooses among a subset. :data:`DEFAULT_MAX_ACTIONS`
    (1024) exceeds every result count met in the embedded corpus of the other four variants (at most 781, a
    short nardy position), so outside crazy gulbar nothing is cut in practice; the rule applies to every
    variant alike all the same. ``max_actions`` is at most :data:`MAX_ACTIONS` (``2**20``): every observation
    copies a mask of ``max_actions`` bytes and each space holds a few arrays of that size, so the bound keeps
    them at a megabyte (a policy head of more than a million outputs is no practical action space), where
    ``2**40`` would ask NumPy for terabytes.

Rewards and the end
    When the game ends the winner is rewarded with the points it scores (1, mars 2, koks 3) and the loser with
    minus as many; every other step rewards 0. A game not over after :data:`MAX_PLIES` plies is truncated
    (both agents, reward 0).

Errors
    An action out of ``range(max_actions)`` or masked out, an action other than ``None`` for an agent that has
    finished, an unknown variant, scheme, render mode, agent or seat, a scheme that does not encode the
    variant, ``max_actions`` outside ``1 ..`` :data:`MAX_ACTIONS`, a bad seed, ``options`` that are not a
    mapping, a bad start: a :class:`~nardy_fast.NardyError` naming the field (``action``, ``variant``, ...).
    A name is compared only as a plain string (:func:`nardy_fast.inputs.choice`), so a NumPy array or an
    object whose ``__eq__`` raises is simply not one. :func:`env`'s ``AssertOutOfBoundsWrapper`` asserts first
    for an action outside the action space (PettingZoo's convention); :class:`SingleAgentEnv` by default ends
    the episode as a loss on a masked-out action (its docstring says why).
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Callable, Mapping
from typing import Any, Optional, Union

import numpy as np
import numpy.typing as npt

try:
    import gymnasium
    from gymnasium import spaces
    from pettingzoo import AECEnv  # type: ignore[import-untyped]
    from pettingzoo.utils import wrappers  # type: ignore[import-untyped]
except ImportError as error:  # pragma: no cover - exercised in a subprocess without the extra
    raise ImportError(
        'nardy_fast.env needs PettingZoo and Gymnasium: pip install "nardy-fast[env]"'
    ) from error

from . import dice
from .encodings import SCHEMES
from .errors import NardyError, field_error
from .game import MAX_PLIES, Game
from .inputs import IntLike, choice, integer
from .layout import WIDTH
from .position import Move, Position
from .variants import VARIANTS

__all__ = [
    "AGENTS",
    "DEFAULT_MAX_ACTIONS",
    "MAX_ACTIONS",
    "MAX_PLIES",
    "OPPONENTS",
    "NardyEnv",
    "raw_env",
    "env",
    "SingleAgentEnv",
]

#: The agents, White first.
AGENTS = ("white", "black")
#: The default size of the action space: above the largest number of results (781) of any position of the
#: embedded corpus outside crazy gulbar (``nardy_fast.corpus``), a power of two.
DEFAULT_MAX_ACTIONS = 1024
#: The largest ``max_actions``: a mask of a mebibyte per observation (module docstring, "More results").
MAX_ACTIONS = 1 << 20
#: The built-in opponents of :class:`SingleAgentEnv` (a callable is the third kind).
OPPONENTS = ("random", "first")
#: The bounds of every feature of every scheme: each is a count or a fraction of counts of a packed row (int8,
#: never negative in the features), or a die.
_LOW, _HIGH = 0.0, 127.0

#: An observation: ``{"observation": float32 features, "action_mask": int8 mask}``.
Observation = dict[str, Any]
#: A callable opponent: the playout policy's signature ``policy(children, offsets) -> choices`` for one game.
Opponent = Callable[[npt.NDArray[np.int8], npt.NDArray[np.int64]], object]


def _encode(rows: npt.NDArray[np.int8], scheme: str) -> npt.NDArray[np.float32]:
    """The package's ``encode`` (the implementation the package chose), looked up when called."""
    import nardy_fast

    features: npt.NDArray[np.float32] = nardy_fast.encode(rows, scheme)
    return features


def _check_max_actions(max_actions: object) -> int:
    value = integer(max_actions)
    if value is None or not 1 <= value <= MAX_ACTIONS:
        raise field_error(
            NardyError,
            "max_actions",
            f"must be an integer 1 <= max_actions <= 2**{MAX_ACTIONS.bit_length() - 1} (MAX_ACTIONS)",
            max_actions,
        )
    return value


def _check_agent(agent: object) -> str:
    name = choice(agent, AGENTS)
    if name is None:
        raise field_error(NardyError, "agent", f"must be one of {AGENTS}", agent)
    return name


def _read_only_rows(rows: list[npt.NDArray[np.int8]]) -> npt.NDArray[np.int8]:
    """``rows`` as one (k, 64) array over an immutable buffer: no view, base or flag makes it writable."""
    data = b"".join(row.tobytes() for row in rows)
    return np.frombuffer(data, dtype=np.int8).reshape(len(rows), WIDTH)


def _check_start(options: object, variant: str) -> Optional[Position]:
    """The ``"start"`` of reset's ``options`` (read once), checked: ``None`` or an unfinished ``variant``
    position."""
    if options is None:
        return None
    if not isinstance(options, Mapping):
        raise field_error(NardyError, "options", "must be None or a mapping", options)
    try:
        start = options.get("start")
    except Exception as error:  # a hostile mapping: its own error would not name the argument
        raise field_error(
            NardyError, "options", f"could not be read ({type(error).__name__} from .get)", options
        ) from error
    if start is None:
        return None
    try:
        usable = (
            isinstance(start, Position)
            and choice(start.variant, (variant,)) is not None
            and not start.is_over()
        )
    except NardyError:  # an uninitialised Position
        usable = False
    if not usable or not isinstance(start, Position):
        raise field_error(
            NardyError, 'options["start"]', f"must be an unfinished {variant!r} Position", start
        )
    return start


class NardyEnv(AECEnv):  # type: ignore[misc]  # PettingZoo is not typed
    """A two-agent game of one variant as a PettingZoo AEC environment (the module docstring describes the
    game, the seeds, the actions, the observations and the rewards). Build it with :func:`raw_env`, or
    :func:`env` for the wrapped form PettingZoo recommends."""

    metadata: dict[str, Any] = {  # noqa: RUF012 - PettingZoo declares it so
        "render_modes": ["ansi", "human"],
        "name": "nardy_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        variant: str = "long",
        *,
        scheme: str = "nardy",
        max_actions: IntLike = DEFAULT_MAX_ACTIONS,
        render_mode: Optional[str] = None,
        **flags: object,
    ) -> None:
        super().__init__()
        checked_variant = choice(variant, VARIANTS)
        if checked_variant is None:
            raise field_error(NardyError, "variant", f"must be one of {VARIANTS}", variant)
        checked_scheme = choice(scheme, SCHEMES)
        if checked_scheme is None:
            raise field_error(NardyError, "scheme", f"must be one of {tuple(SCHEMES)}", scheme)
        if checked_variant not in SCHEMES[checked_scheme].variants:
            encoded = tuple(sorted(SCHEMES[checked_scheme].variants))
            raise field_error(
                NardyError, "scheme", f"encodes only variant(s) {encoded}, not {checked_variant!r}", scheme
            )
        modes = type(self).metadata["render_modes"]
        checked_mode = None if render_mode is None else choice(render_mode, modes)
        if render_mode is not None and checked_mode is None:
            raise field_error(NardyError, "render_mode", f"must be None or one of {modes}", render_mode)
        variant, scheme = checked_variant, checked_scheme
        self.variant = variant
        self.scheme = scheme
        self.max_actions = _check_max_actions(max_actions)
        self.render_mode = checked_mode
        #: The rule flags of every game: all of the variant's, as the game checked them (plain values, so
        #: that each reset plays by the rules the constructor accepted).
        given: dict[str, Any] = dict(flags)
        self.flags: dict[str, Any] = Game(variant, **given).position.flags
        self.metadata = {**type(self).metadata, "name": f"nardy_{variant}_v0"}
        self.possible_agents: list[str] = list(AGENTS)
        self.agents: list[str] = []
        features = SCHEMES[scheme].features
        self._observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(_LOW, _HIGH, (features,), np.float32),
                    "action_mask": spaces.Box(0, 1, (self.max_actions,), np.int8),
                }
            )
            for agent in AGENTS
        }
        self._action_spaces = {agent: spaces.Discrete(self.max_actions) for agent in AGENTS}
        #: The game being played (``None`` before the first reset).
        self.game: Optional[Game] = None
        self._seed: Optional[int] = None
        self._number = 0
        self._moves: list[Move] = []  # the offered moves, action order
        self._observation = np.zeros(features, dtype=np.float32)
        self._mask = np.zeros(self.max_actions, dtype=np.int8)

    # --- PettingZoo's API ---------------------------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Dict:
        """The observation space of ``agent`` (the same object every call)."""
        return self._observation_spaces[_check_agent(agent)]

    def action_space(self, agent: str) -> spaces.Discrete:
        """The action space of ``agent``: ``Discrete(max_actions)`` (the same object every call)."""
        return self._action_spaces[_check_agent(agent)]

    def reset(self, seed: Optional[int] = None, options: Optional[Mapping[str, object]] = None) -> None:
        """Start a game: number 0 of dice seed ``seed`` when given, else the next game number of the current
        seed; ``options={"start": position}`` starts from a position of the variant."""
        checked = None if seed is None else dice.check_seed(seed)
        self._start(checked, _check_start(options, self.variant))

    def _start(self, seed: Optional[int], start: Optional[Position]) -> None:
        """:meth:`reset` with its arguments checked."""
        if seed is not None:
            number = 0
        elif self._seed is None:
            seed, number = secrets.randbits(63), 0
        else:
            seed, number = self._seed, self._number + 1
        if start is None:
            self.game = Game(self.variant, seed=seed, game=number, **self.flags)
        else:
            self.game = Game(start, seed=seed, game=number)
        self._seed, self._number = seed, number
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self._refresh()
        if self.render_mode == "human":
            self.render()

    def step(self, action: object) -> None:
        """Play the acting agent's action (an index into the offered moves), or remove a finished agent
        (``action`` must then be ``None``)."""
        if self.game is None:
            raise field_error(NardyError, "action", "cannot be played before reset()", action)
        if not self.agents:
            raise field_error(
                NardyError, "action", "cannot be played: both agents have left (reset())", action
            )
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:  # PettingZoo's _was_dead_step would raise its own ValueError
                raise field_error(
                    NardyError,
                    "action",
                    f"must be None: the game is over and {agent} leaves with step(None)",
                    action,
                )
            self._was_dead_step(None)
            return
        move = self._moves[self.check_action(action)]
        self._cumulative_rewards[agent] = 0
        self._clear_rewards()
        self._play(move)
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> Observation:
        """``agent``'s observation: the position's encoding and its action mask (all 0 unless it acts)."""
        agent = _check_agent(agent)
        acting = self.game is not None and agent == self.agent_selection and not self._finished()
        mask = self._mask.copy() if acting else np.zeros(self.max_actions, dtype=np.int8)
        return {"observation": self._observation.copy(), "action_mask": mask}

    def state(self) -> npt.NDArray[np.int8]:
        """The whole position as its packed row (``nardy_fast.layout``): the global state for centralised
        training."""
        return self._game().position.to_array()

    def render(self) -> Optional[str]:
        """The position as text (``"ansi"`` returns it, ``"human"`` prints it); without a render mode, a
        warning and ``None``."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode (try render_mode='ansi')")
            return None
        text = str(self._game().position)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""

    # --- the game -----------------------------------------------------------------------------------------------

    def check_action(self, action: object) -> int:
        """``action`` as an index of an offered move, or a :class:`~nardy_fast.NardyError` naming ``action``."""
        index = integer(action)
        if index is None or not 0 <= index < self.max_actions:
            raise field_error(
                NardyError, "action", f"must be an integer 0 <= action < {self.max_actions}", action
            )
        if index >= len(self._moves):
            offered = len(self._moves)
            raise field_error(
                NardyError,
                "action",
                f"is masked out: {self.agent_selection} has {offered} legal action(s)",
                action,
            )
        return index

    def _game(self) -> Game:
        if self.game is None:
            raise field_error(NardyError, "reset", "must be called first", None)
        return self.game

    def _finished(self) -> bool:
        return any(self.terminations.values()) or any(self.truncations.values())

    def _play(self, move: Move) -> None:
        """Play ``move`` (any legal move, offered or not), then set the rewards and the end."""
        game = self._game()
        game.play(move)
        if game.is_over():
            winner = str(game.winner())
            points = game.points()
            for agent in AGENTS:
                self.rewards[agent] = points if agent == winner else -points
            self.terminations = dict.fromkeys(self.agents, True)
        elif game.plies >= MAX_PLIES:
            self.truncations = dict.fromkeys(self.agents, True)
        self._refresh()

    def _refresh(self) -> None:
        """The offered moves, the mask, the observation, the acting agent and the infos of the position now."""
        game = self._game()
        position = game.position
        self.agent_selection = position.turn
        self._observation = _encode(position.to_array(), self.scheme)
        if self.scheme == "openspiel" and game.roll is not None:
            self._observation[198:] = sorted(game.roll)  # OpenSpiel's dice features (encodings docstring)
        self._mask = np.zeros(self.max_actions, dtype=np.int8)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        if self._finished():
            self._moves = []
            return
        legal = game.legal_moves()
        self._moves = legal[: self.max_actions]
        self._mask[: len(self._moves)] = 1
        self.infos[position.turn] = {
            "roll": game.roll,
            "children": _read_only_rows([move.result.to_array() for move in self._moves]),
            "legal_results": len(legal),
            "not_offered": len(legal) - len(self._moves),
        }


def raw_env(
    variant: str = "long",
    *,
    scheme: str = "nardy",
    max_actions: IntLike = DEFAULT_MAX_ACTIONS,
    render_mode: Optional[str] = None,
    **flags: object,
) -> NardyEnv:
    """The AEC environment of ``variant`` (with its rule ``flags``) without wrappers; see the module
    docstring."""
    return NardyEnv(variant, scheme=scheme, max_actions=max_actions, render_mode=render_mode, **flags)


def env(
    variant: str = "long",
    *,
    scheme: str = "nardy",
    max_actions: IntLike = DEFAULT_MAX_ACTIONS,
    render_mode: Optional[str] = None,
    **flags: object,
) -> Any:
    """:func:`raw_env` inside PettingZoo's recommended wrappers: ``AssertOutOfBoundsWrapper`` (an action
    outside the action space fails an assertion) and ``OrderEnforcingWrapper`` (clear errors for calls out of
    order, such as ``step`` before ``reset``). Attributes such as ``game`` reach through them;
    ``.unwrapped`` is the :class:`NardyEnv`."""
    inner = raw_env(variant, scheme=scheme, max_actions=max_actions, render_mode=render_mode, **flags)
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(inner))


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


class SingleAgentEnv(gymnasium.Env[Observation, np.int64]):
    """One seat of :class:`NardyEnv` as a Gymnasium environment, the other seat played by ``opponent``.

    ``opponent`` is ``"random"`` (a uniform choice among all the legal moves, drawn from the game's dice
    seed: :func:`nardy_fast.dice.choice` of (seed, game number, ply), the choice ``playout(policy="random")``
    makes), ``"first"`` (the first legal move) or a callable with the playout policy's signature,
    ``opponent(children, offsets) -> choices``, called with the children rows (n, 64) of every legal move
    and ``offsets = [0, n]`` (read-only arrays no call can make writable) and returning one choice (a sequence of one integer ``0 <= c < n``). The opponent
    is not limited to ``max_actions``.

    Spaces, seeds, actions and rewards are the AEC environment's (module docstring), seen from ``seat``
    (``"white"`` or ``"black"``): an episode is one game; ``reset`` and ``step`` return once it is ``seat``'s
    turn again or the game is over; the reward is ``seat``'s. ``reset(options={"start": position})`` raises
    a :class:`~nardy_fast.NardyError` when the game ends before ``seat`` has moved. :meth:`action_masks` gives
    the mask as booleans (the method sb3-contrib's ``MaskablePPO`` calls).

    A masked-out action (in the action space but not offered) ends the episode as a loss by default: the
    step returns ``terminated=True``, reward ``illegal_reward`` (-3.0, the worst score of any game, so that
    it never pays to play one), an all-0 mask and ``info["illegal_action"]``. Gymnasium's ``check_env`` and
    trainers that do not mask sample such actions, so this default keeps them running;
    ``illegal_reward=None`` raises a :class:`~nardy_fast.NardyError` naming ``action`` instead. An action
    outside the action space (not an integer in ``range(max_actions)``), and any step after the end, always
    raise it.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"]}  # noqa: RUF012 - Gymnasium declares it so

    def __init__(
        self,
        variant: str = "long",
        *,
        opponent: Union[str, Opponent] = "random",
        seat: str = "white",
        scheme: str = "nardy",
        max_actions: IntLike = DEFAULT_MAX_ACTIONS,
        illegal_reward: Optional[float] = -3.0,
        render_mode: Optional[str] = None,
        **flags: object,
    ) -> None:
        self.illegal_reward = _check_illegal_reward(illegal_reward)
        checked_seat = choice(seat, AGENTS)
        if checked_seat is None:
            raise field_error(NardyError, "seat", f"must be one of {AGENTS}", seat)
        # a string is a built-in name or nothing (a callable str subclass is no opponent); the kind is kept
        # apart so that a callable is never compared with a name
        if isinstance(opponent, str):
            kind = choice(opponent, OPPONENTS)
        else:
            kind = "callable" if callable(opponent) else None
        if kind is None:
            raise field_error(NardyError, "opponent", f"must be one of {OPPONENTS} or a callable", opponent)
        #: The AEC environment underneath (its ``game`` is the game being played).
        self.aec = NardyEnv(variant, scheme=scheme, max_actions=max_actions, render_mode=render_mode, **flags)
        self.seat = checked_seat
        self.opponent = opponent if kind == "callable" else kind
        self._kind = kind
        self._illegal = False  # the episode ended on a masked-out action
        self.render_mode = self.aec.render_mode
        self.observation_space = self.aec.observation_space(checked_seat)
        self.action_space = self.aec.action_space(checked_seat)

    def reset(
        self, *, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None
    ) -> tuple[Observation, dict[str, Any]]:
        """Start a game (seeds as the AEC environment's) and play the opponent until ``seat`` is to move."""
        # checked here, before Gymnasium sees the seed: the AEC environment's seeds and message, NumPy's
        # integers included (Gymnasium takes the Python int check_seed returns, of any size)
        checked = None if seed is None else dice.check_seed(seed)
        start = _check_start(options, self.aec.variant)
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
        if (
            self.illegal_reward is not None
            and index is not None
            and len(self.aec._moves) <= index < self.aec.max_actions
        ):
            self._illegal = True
            observation = self.aec.observe(self.seat)
            observation["action_mask"][:] = 0
            return observation, self.illegal_reward, True, False, {**self._info(), "illegal_action": index}
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

    def render(self) -> Optional[str]:
        """The position as text, as the AEC environment renders it."""
        return self.aec.render()

    def _info(self) -> dict[str, Any]:
        """``seat``'s info, a copy that shares nothing with the environment (Gymnasium's rule)."""
        info = dict(self.aec.infos.get(self.seat, {}))
        if "children" in info:
            info["children"] = info["children"].copy()
        return info

    def _reply(self) -> float:
        """Play the opponent's moves until ``seat`` is to move or the game ends; ``seat``'s reward."""
        reward = 0.0
        aec = self.aec
        game = aec._game()
        while not aec._finished() and aec.agent_selection != self.seat:
            moves = game.legal_moves()
            aec._clear_rewards()
            aec._play(moves[self._choose(game, moves)])
            reward += float(aec.rewards[self.seat])
        return reward

    def _choose(self, game: Game, moves: list[Move]) -> int:
        if self._kind == "random":
            return dice.choice(game.seed, game.game, game.plies, len(moves))
        if self._kind == "first" or not callable(self.opponent):
            return 0
        children = _read_only_rows([move.result.to_array() for move in moves])
        offsets = np.frombuffer(np.array([0, len(moves)], dtype=np.int64).tobytes(), dtype=np.int64)
        choices = self.opponent(children, offsets)
        try:
            array = np.asarray(choices)
        except Exception:  # a returned object that cannot be read is no choice
            array = np.zeros(0, dtype=object)
        if array.shape != (1,) or array.dtype.kind not in "iu" or not 0 <= int(array[0]) < len(moves):
            raise field_error(
                NardyError, "opponent", f"must return one choice 0 <= c < {len(moves)} (shape (1,))", choices
            )
        return int(array[0])
