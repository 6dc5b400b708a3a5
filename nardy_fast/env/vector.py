"""A Gymnasium vector environment over :class:`nardy_fast.Games`: ``num_envs`` self-play games of one variant
stepped together, both sides played by the one policy that chooses the actions. Registered with Gymnasium as
the vector entry point of ``nardy_fast/<variant>-selfplay-v0``: ``gymnasium.make_vec(id, num_envs=n)``.

Seeds
    ``reset(seed=s)`` starts games ``0 .. num_envs - 1`` of dice seed ``s`` in the sub-environments, in order;
    every later game takes the next number (``Games``' numbering: the ``k``-th game to end is replaced by game
    ``num_envs + k``). A ``reset()`` without a seed continues the same seed with the next unused game numbers;
    the first without any seed draws the dice seed from the environment's Gymnasium ``np_random``. So a seed
    and the actions played fix everything. ``options={"start": position}`` starts every game from a position
    of the variant (the side to move rolls first), as the AEC environment's reset does.

Actions and observations
    Action ``i`` of a sub-environment plays the ``i``-th child of its position for its roll, in
    ``legal_moves`` order; the action space is ``MultiDiscrete`` of ``max_actions`` per sub-environment. An
    observation is a dict of batched arrays: ``"observation"`` (num_envs, F) float32, the rows' encoding
    :func:`nardy_fast.encode` under ``scheme`` (``"openspiel"`` with the roll in its two dice features, lower
    die first, as the AEC environment does), and ``"action_mask"`` (num_envs, max_actions) int8, 1 for the
    first ``min(legal results, max_actions)`` actions. :meth:`NardyVectorEnv.children` gives the children in
    CSR form, for a policy that scores afterstates. A masked-out action, or one outside the action space, is a
    :class:`~nardy_fast.NardyError` naming ``actions`` and nothing is played.

Seats and rewards (self-play)
    Each step every sub-environment's side to move plays (the side to move after an extra roll or before a
    transfer segment is the one that moved: it plays again). ``info["mover"]`` is the side (0 White, 1 Black)
    that made this step's move, and the reward is that side's: 0 while the game goes on; when the move ends the
    game, the points it scores (1, mars 2, koks 3; the mover is the winner, who bears off last), else minus as
    many. ``info["turn"]`` is the side to move in the observation returned. A game not over after
    :data:`~nardy_fast.game.MAX_PLIES` plies is truncated, reward 0.

Autoreset (``AutoresetMode.SAME_STEP``)
    A sub-environment whose game ends in a step starts its next game in the same step: the observation
    returned is the new game's first, the last position of the ended game is ``info["final_obs"][i]`` (an
    object array, set where ``info["_final_obs"]`` is), and ``info["final_info"]`` holds its ``game`` number,
    ``winner`` (-1 when given up), ``points``, ``plies`` and ``turns`` (masks ``_game`` and so on). Every
    step's info also has ``roll`` (num_envs, 2) int8 ((0, 0) before a transfer segment), ``game``,
    ``legal_results`` and ``not_offered`` (results beyond ``max_actions``), each with its ``_`` mask.

The cube (``cube=True``, ``match=``)
    The AEC environment's cube and matches, in every sub-environment: :mod:`nardy_fast.env.vectorcube`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .. import dice, layout
from ..cube import Match
from ..encodings import SCHEMES
from ..errors import NardyError, field_error
from ..inputs import IntLike, choice, integer
from ..kernels import kernels_of
from ..lockstep import handed_out
from ..playouts import PlayoutOptions, check_playout
from ..position import Position
from ..variants import VARIANTS
from ..vector import MAX_GAMES, Games
from .checks import DEFAULT_MAX_ACTIONS, Observation, check_max_actions, check_start, missing_attribute
from .cubeful import ENV_CUBE_ACTIONS, check_cube, cube_space
from .vectorcube import CubeGames

__all__ = ["NardyVectorEnv", "MAX_MASK"]

#: The most entries of a batch of action masks, ``num_envs * max_actions``: each (num_envs, max_actions)
#: array the environment makes from the two (an observation's mask, the batched space's bounds) is at most
#: 64 MiB of int8. Each is bounded apart (``2**20``), but their product would be a tebibyte.
MAX_MASK = 1 << 26

#: The bounds of every feature of every scheme (as the AEC environment's).
_LOW, _HIGH = 0.0, 127.0
#: The render modes: the boards as text, one a sub-environment.
RENDER_MODES = ("ansi",)

Actions = npt.NDArray[np.int64]


def _package() -> Any:
    """The package (its chosen implementation's ``Games`` and ``encode``), looked up when called: importing
    this module loads no implementation."""
    import nardy_fast

    return nardy_fast


#: The attributes the constructor (or reset) sets: an environment with none of them was never initialised.
_STATE = frozenset(
    (
        "_actions", "_counts", "_mask", "cube_games", "flags", "games", "match", "max_actions", "num_envs",
        "render_mode", "scheme", "single_action_space", "single_observation_space", "variant"
    )
)


class NardyVectorEnv(VectorEnv[Observation, Actions, npt.NDArray[Any]]):
    """``num_envs`` self-play games of ``variant`` (rule ``flags`` as keyword arguments) as one Gymnasium
    vector environment over :class:`nardy_fast.Games`; the module docstring (:mod:`nardy_fast.env.vector`)
    describes the seeds, actions, observations, rewards and autoreset. ``num_envs`` is ``1 ..``
    :data:`~nardy_fast.vector.MAX_GAMES`; ``scheme`` and ``max_actions`` are the AEC environment's, and
    ``num_envs * max_actions`` (plus five cube actions with ``cube=True``) is at most :data:`MAX_MASK`
    (``2**26``), checked before any mask is made; ``cube`` and ``match`` are the AEC environment's."""

    metadata: dict[str, Any] = {  # noqa: RUF012 - Gymnasium declares it so
        "autoreset_mode": AutoresetMode.SAME_STEP,
        "render_modes": list(RENDER_MODES),
    }

    def __init__(
        self,
        variant: str = "long",
        num_envs: IntLike = 8,
        *,
        scheme: str = "nardy",
        max_actions: IntLike = DEFAULT_MAX_ACTIONS,
        render_mode: Optional[str] = None,
        cube: bool = False,
        match: Optional[Match] = None,
        **flags: object,
    ) -> None:
        #: The match each episode starts from (money play for ``cube=True`` alone), ``None`` without the cube.
        self.match = check_cube(cube, match)
        checked_variant = choice(variant, VARIANTS)
        if checked_variant is None:
            raise field_error(NardyError, "variant", f"must be one of {VARIANTS}", variant)
        count = integer(num_envs)
        if count is None or not 1 <= count <= MAX_GAMES:
            raise field_error(
                NardyError, "num_envs", "must be an integer 1 <= num_envs <= 2**20 (MAX_GAMES)", num_envs
            )
        checked_scheme = choice(scheme, SCHEMES)
        if checked_scheme is None:
            raise field_error(NardyError, "scheme", f"must be one of {tuple(SCHEMES)}", scheme)
        if checked_variant not in SCHEMES[checked_scheme].variants:
            encoded = tuple(sorted(SCHEMES[checked_scheme].variants))
            raise field_error(
                NardyError, "scheme", f"encodes only variant(s) {encoded}, not {checked_variant!r}", scheme
            )
        checked_mode = None if render_mode is None else choice(render_mode, RENDER_MODES)
        if render_mode is not None and checked_mode is None:
            raise field_error(
                NardyError, "render_mode", f"must be None or one of {list(RENDER_MODES)}", render_mode
            )
        # the rule flags checked as playout checks them, kept as the plain values of the checked start
        state = check_playout(checked_variant, 1, 0, PlayoutOptions(flags=flags)).states[0]
        #: The rule flags of every game (all of the variant's).
        self.flags: dict[str, Any] = dict(state.flags)
        self.variant = checked_variant
        self.scheme = checked_scheme
        self.num_envs = count
        self.max_actions = check_max_actions(max_actions)
        # the cube actions follow the move actions, as in the AEC environment
        extra = 0 if self.match is None else len(ENV_CUBE_ACTIONS)
        self._actions = self.max_actions + extra
        if count * self._actions > MAX_MASK:
            raise field_error(
                NardyError,
                "max_actions",
                f"must be at most {MAX_MASK // count - extra:,} for num_envs={count:,}: num_envs * "
                f"{f'(max_actions + {extra})' if extra else 'max_actions'} <= 2**26 (MAX_MASK, the entries of a "
                "batch of action masks)",
                max_actions,
            )
        self.render_mode = checked_mode
        self.metadata = {**type(self).metadata, "name": f"nardy_{checked_variant}_vector_v0"}
        features = SCHEMES[checked_scheme].features
        parts: dict[str, spaces.Space[Any]] = {
            "observation": spaces.Box(_LOW, _HIGH, (features,), np.float32),
            "action_mask": spaces.Box(0, 1, (self._actions,), np.int8),
        }
        if self.match is not None:
            parts["cube"] = cube_space()
        self.single_observation_space = spaces.Dict(parts)
        self.single_action_space = spaces.Discrete(self._actions)
        self.observation_space = batch_space(self.single_observation_space, count)
        self.action_space = batch_space(self.single_action_space, count)
        #: The games being played (``None`` before the first reset).
        self.games: Optional[Games] = None
        #: The games being played with the cube (``cube=True``; ``None`` before the first reset).
        self.cube_games: Optional[CubeGames] = None
        self._counts = np.zeros(count, dtype=np.int64)  # the legal results of each game now
        self._mask = np.zeros((0, self._actions), dtype=np.int8)  # the actions offered now (cube=True)

    # --- Gymnasium's API ----------------------------------------------------------------------------------


    def __getattr__(self, name: str) -> Any:
        # only for attributes never set: an environment made with __new__ alone is refused by name
        raise missing_attribute(self, name, _STATE)
    def reset(
        self, *, seed: Optional[int] = None, options: Optional[Mapping[str, object]] = None
    ) -> tuple[Observation, dict[str, Any]]:
        """Start ``num_envs`` games (seeds as the module docstring says); returns the batched observation and
        the info."""
        # checked before Gymnasium sees the seed: one integer 0 <= seed < 2**64, the package's dice seeds
        checked = None if seed is None else dice.check_seed(seed)
        start = check_start(options, self.variant)
        super().reset(seed=checked)
        first_game = 0
        previous = self.games if self.match is None else self.cube_games
        if checked is None:
            if previous is None:
                checked = int(self.np_random.integers(1 << 63))
            else:
                checked, first_game = previous.seed, previous.next_game
        games_class: type[Games] = _package().Games
        if self.match is not None:
            kernels = kernels_of(_package().Position.start(self.variant))
            self.cube_games = CubeGames(kernels, self._encode, self.scheme, self.max_actions,
                                        (self.variant, self.flags, start), self.num_envs, checked, first_game, self.match)
        elif start is None:
            self.games = games_class(
                self.variant, self.num_envs, seed=checked, first_game=first_game, **self.flags
            )
        else:
            self.games = games_class(start, self.num_envs, seed=checked, first_game=first_game)
        observation = self._observe()
        return observation, self._info()

    def step(
        self, actions: object
    ) -> tuple[
        Observation, npt.NDArray[np.float64], npt.NDArray[np.bool_], npt.NDArray[np.bool_], dict[str, Any]
    ]:
        """Play one action per sub-environment; returns the batched observation, rewards, terminations,
        truncations and info (autoreset in the same step)."""
        if self.games is None and self.cube_games is None:
            raise field_error(NardyError, "actions", "cannot be played before reset()", actions)
        played = self._check_actions(actions)
        if self.cube_games is not None:
            return self._cube_step(played)
        games = self._games()
        mover = games.rows[:, layout.TURN]
        ended = games.step(played)
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        terminated = np.zeros(self.num_envs, dtype=bool)
        truncated = np.zeros(self.num_envs, dtype=bool)
        won = ended.records["winner"] >= 0
        terminated[ended.slots[won]] = True
        truncated[ended.slots[~won]] = True
        sign = np.where(ended.records["winner"] == mover[ended.slots], 1.0, -1.0)
        rewards[ended.slots] = np.where(won, sign * ended.records["points"], 0.0)
        observation = self._observe()
        info = self._info()
        info["mover"], info["_mover"] = mover, np.ones(self.num_envs, dtype=bool)
        if len(ended.slots):
            final = self._encode(ended.rows)
            for i, slot in enumerate(ended.slots.tolist()):
                record = ended.records[i]
                final_info = {
                    "game": int(ended.games[i]),
                    "winner": int(record["winner"]),
                    "points": int(record["points"]),
                    "plies": int(record["plies"]),
                    "turns": int(record["turns"]),
                }
                final_obs = {
                    "observation": final[i],
                    "action_mask": np.zeros(self.max_actions, dtype=np.int8),
                }
                info = self._add_info(info, {"final_obs": final_obs, "final_info": final_info}, slot)
        return observation, rewards, terminated, truncated, info

    def render(self) -> Optional[tuple[str, ...]]:
        """The boards as text, one a sub-environment (``render_mode="ansi"``); else ``None``."""
        if self.render_mode is None:
            return None
        if self.cube_games is not None:
            rows = self.cube_games.slots.rows
        elif self.games is not None:
            rows = self.games.rows
        else:
            return None
        position_class: type[Position] = _package().Position
        return tuple(str(position_class.from_array(row)) for row in rows)

    def _cube_step(
        self, played: Actions
    ) -> tuple[
        Observation, npt.NDArray[np.float64], npt.NDArray[np.bool_], npt.NDArray[np.bool_], dict[str, Any]
    ]:
        """:meth:`step` with the cube: the acting sides' actions played, the observation and the info."""
        assert self.cube_games is not None
        result = self.cube_games.step(played)
        observation = self._observe()
        info = self._info()
        info["mover"], info["_mover"] = result.mover, np.ones(self.num_envs, dtype=bool)
        for slot, final_obs, final_info in result.finals:
            info = self._add_info(info, {"final_obs": final_obs, "final_info": final_info}, slot)
        return observation, result.rewards, result.terminated, result.truncated, info

    # --- the games ----------------------------------------------------------------------------------------

    def children(self) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int64]]:
        """The children of every sub-environment's position for its roll, in action order and CSR form
        (:meth:`nardy_fast.Games.children`: every sub-environment has an unfinished game); with the cube, none
        for a sub-environment in a cube phase."""
        if self.cube_games is not None:
            children, offsets = self.cube_games.children
            return handed_out(children), handed_out(offsets)
        return self._games().children()

    def _games(self) -> Games:
        if self.games is None:
            raise field_error(NardyError, "reset", "must be called first", None)
        return self.games

    def _check_actions(self, actions: object) -> Actions:
        """``actions`` read once into a copy of our own: ``num_envs`` integers, each offered by its mask."""
        try:
            array = np.array(actions)
        except (ValueError, TypeError):
            array = np.zeros(0, dtype=object)
        n = self.num_envs
        if (
            array.shape != (n,)
            or array.dtype.kind not in "iu"
            or ((array < 0) | (array >= self._actions)).any()
        ):
            raise field_error(
                NardyError,
                "actions",
                f"must be {n} integers 0 <= action < {self._actions}, one per sub-environment (shape ({n},))",
                actions,
            )
        if self.cube_games is not None:  # the mask of each phase
            masked = self._mask[np.arange(n), array] == 0
            offered = self._mask.sum(axis=1)
        else:  # the first results, no mask kept
            masked = array >= np.minimum(self._counts, self.max_actions)
            offered = self._counts
        if masked.any():
            i = int(np.argmax(masked))
            raise field_error(
                NardyError,
                "actions",
                f"has action {int(array[i])} masked out: sub-environment {i} has {int(offered[i])} legal action(s)",
                actions,
            )
        return array.astype(np.int64)

    def _encode(self, rows: npt.NDArray[np.int8]) -> npt.NDArray[np.float32]:
        features: npt.NDArray[np.float32] = _package().encode(rows, self.scheme)
        return features

    def _observe(self) -> Observation:
        """The batched observation of the games now (their children searched once, kept by ``Games`` for the
        step that follows)."""
        if self.cube_games is not None:
            cubeful = self.cube_games.observe()
            self._mask = cubeful["action_mask"].copy()
            return cubeful
        games = self._games()
        _, offsets = games.children()
        self._counts = np.diff(offsets)
        rolls = games.rolls
        features = self._encode(games.rows)
        if self.scheme == "openspiel":
            rolled = rolls[:, 0] != 0
            features[rolled, 198:] = np.sort(rolls[rolled], axis=1)  # OpenSpiel's dice features
        mask = (np.arange(self.max_actions) < np.minimum(self._counts, self.max_actions)[:, None]).astype(
            np.int8
        )
        return {"observation": features, "action_mask": mask}

    def _info(self) -> dict[str, Any]:
        every = np.ones(self.num_envs, dtype=bool)
        if self.cube_games is not None:
            values = self.cube_games.info()
        else:
            games = self._games()
            values = {
                "roll": games.rolls,
                "game": games.numbers,
                "turn": games.rows[:, layout.TURN],
                "legal_results": self._counts.copy(),
                "not_offered": np.maximum(self._counts - self.max_actions, 0),
            }
        info: dict[str, Any] = {}
        for key, value in values.items():
            info[key], info[f"_{key}"] = value, every.copy()
        return info
