"""The two-agent PettingZoo AEC environment (:mod:`nardy_fast.env` describes it) and its constructors."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any, Optional, Union

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped]
from pettingzoo.utils import wrappers  # type: ignore[import-untyped]

from .. import dice
from ..cube import Match
from ..cubeloop import GAMES_PER_MATCH
from ..encodings import SCHEMES
from ..errors import NardyError, field_error
from ..game import Game
from ..inputs import IntLike, choice, integer
from ..position import Move, Position
from ..turns import MAX_PLIES
from ..variants import VARIANTS
from .checks import (
    AGENTS,
    DEFAULT_MAX_ACTIONS,
    RENDER_FPS,
    RENDER_MODES,
    Observation,
    check_agent,
    check_max_actions,
    check_start,
    missing_attribute,
    read_only_rows,
)
from .cubeful import (
    ENV_CUBE_ACTIONS,
    acting_side,
    check_cube,
    cube_actions_allowed,
    cube_features,
    cube_space,
    phase_of,
    play_cube_action,
)
from .render import check_rgb_support, rgb_array

__all__ = ["NardyEnv", "raw_env", "env"]

#: The bounds of every feature of every scheme: each is a count or a fraction of counts of a packed row (int8,
#: never negative in the features), or a die.
_LOW, _HIGH = 0.0, 127.0


def _encode(rows: npt.NDArray[np.int8], scheme: str) -> npt.NDArray[np.float32]:
    """The package's ``encode`` (the implementation the package chose), looked up when called."""
    import nardy_fast

    features: npt.NDArray[np.float32] = nardy_fast.encode(rows, scheme)
    return features


#: The attributes the constructor (or reset) sets: an environment with none of them was never initialised.
_STATE = frozenset(
    (
        "_action_spaces", "_cumulative_rewards", "_observation_spaces", "agent_selection", "agents", "flags", "game",
        "infos", "match", "max_actions", "possible_agents", "render_mode", "rewards", "scheme", "terminations", "truncations",
        "variant"
    )
)


class NardyEnv(AECEnv):  # type: ignore[misc]  # PettingZoo is not typed
    """A two-agent game of one variant as a PettingZoo AEC environment (:mod:`nardy_fast.env` describes the
    game, the seeds, the actions, the observations and the rewards). Build it with :func:`raw_env`, or
    :func:`env` for the wrapped form PettingZoo recommends."""

    metadata: dict[str, Any] = {  # noqa: RUF012 - PettingZoo declares it so
        "render_modes": list(RENDER_MODES),
        "render_fps": RENDER_FPS,
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
        cube: bool = False,
        match: Optional[Match] = None,
        **flags: object,
    ) -> None:
        super().__init__()
        #: The match each episode starts from (money play for ``cube=True`` alone), ``None`` without the cube.
        self.match = check_cube(cube, match)
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
        if checked_mode == "rgb_array":
            check_rgb_support()  # the missing extra is named now, not at the first render
        variant, scheme = checked_variant, checked_scheme
        self.variant = variant
        self.scheme = scheme
        self.max_actions = check_max_actions(max_actions)
        self.render_mode = checked_mode
        #: The rule flags of every game: all of the variant's, as the game checked them (plain values, so
        #: that each reset plays by the rules the constructor accepted).
        given: dict[str, Any] = dict(flags)
        self.flags: dict[str, Any] = Game(variant, **given).position.flags
        self.metadata = {**type(self).metadata, "name": f"nardy_{variant}_v0"}
        self.possible_agents: list[str] = list(AGENTS)
        self.agents: list[str] = []
        features = SCHEMES[scheme].features
        # the cube actions follow the move actions, so that a move's index is the same with and without them
        self._actions = self.max_actions + (0 if self.match is None else len(ENV_CUBE_ACTIONS))
        parts: dict[str, spaces.Space[Any]] = {
            "observation": spaces.Box(_LOW, _HIGH, (features,), np.float32),
            "action_mask": spaces.Box(0, 1, (self._actions,), np.int8),
        }
        if self.match is not None:
            parts["cube"] = cube_space()
        self._observation_spaces = {agent: spaces.Dict(parts) for agent in AGENTS}
        self._action_spaces = {agent: spaces.Discrete(self._actions) for agent in AGENTS}
        #: The game being played (``None`` before the first reset).
        self.game: Optional[Game] = None
        self._seed: Optional[int] = None
        self._number = 0
        self._moves: list[Move] = []  # the offered moves, action order
        self._observation = np.zeros(features, dtype=np.float32)
        self._mask = np.zeros(self._actions, dtype=np.int8)
        self._cube = np.zeros(0, dtype=np.float32)  # the cube features (cube=True)
        self._match_game = 0  # the game of the match being played (cube=True)
        self._decided = False  # the side to move has decided not to double this turn (cube=True)

    # --- PettingZoo's API ---------------------------------------------------------------------------------------


    def __getattr__(self, name: str) -> Any:
        # only for attributes never set: an environment made with __new__ alone is refused by name
        raise missing_attribute(self, name, _STATE)
    def observation_space(self, agent: str) -> spaces.Dict:
        """The observation space of ``agent`` (the same object every call)."""
        return self._observation_spaces[check_agent(agent)]

    def action_space(self, agent: str) -> spaces.Discrete:
        """The action space of ``agent``: ``Discrete(max_actions)``, and five more with the cube (the same object
        every call)."""
        return self._action_spaces[check_agent(agent)]

    def reset(self, seed: Optional[int] = None, options: Optional[Mapping[str, object]] = None) -> None:
        """Start a game: number 0 of dice seed ``seed`` when given, else the next game number of the current
        seed; ``options={"start": position}`` starts from a position of the variant."""
        checked = None if seed is None else dice.check_seed(seed)
        self._start(checked, check_start(options, self.variant))

    def _start(self, seed: Optional[int], start: Optional[Position]) -> None:
        """:meth:`reset` with its arguments checked."""
        if seed is not None:
            number = 0
        elif self._seed is None:
            seed, number = secrets.randbits(63), 0
        else:
            seed, number = self._seed, self._number + 1
        self._seed, self._number, self._match_game, self._decided = seed, number, 0, False
        self.game = self._new_game(start, self.match)
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
        index = self.check_action(action)
        self._cumulative_rewards[agent] = 0
        self._clear_rewards()
        if index < self.max_actions:
            self._play(self._moves[index])
        else:
            self._cube_action(index - self.max_actions)
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> Observation:
        """``agent``'s observation: the position's encoding and its action mask (all 0 unless it acts)."""
        agent = check_agent(agent)
        acting = self.game is not None and agent == self.agent_selection and not self._finished()
        mask = self._mask.copy() if acting else np.zeros(self._actions, dtype=np.int8)
        observation = {"observation": self._observation.copy(), "action_mask": mask}
        if self.match is not None:
            observation["cube"] = self._cube.copy()
        return observation

    def state(self) -> npt.NDArray[np.int8]:
        """The whole position as its packed row (``nardy_fast.layout``): the global state for centralised
        training."""
        return self._game().position.to_array()

    def render(self) -> Union[str, npt.NDArray[np.uint8], None]:
        """The position as text (``"ansi"`` returns it, ``"human"`` prints it) or as an RGB image
        (``"rgb_array"``: an array (height, width, 3) of ``uint8`` drawn from ``position.to_svg()``, through
        cairosvg of the ``png`` extra); without a render mode, a warning and ``None``."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode (try render_mode='ansi')")
            return None
        if self.render_mode == "rgb_array":
            return rgb_array(self._game().position)
        text = str(self._game().position)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""

    # --- the game -----------------------------------------------------------------------------------------------

    def check_action(self, action: object) -> int:
        """``action`` as an index of an offered action, or a :class:`~nardy_fast.NardyError` naming ``action``."""
        index = integer(action)
        if index is None or not 0 <= index < self._actions:
            raise field_error(NardyError, "action", f"must be an integer 0 <= action < {self._actions}", action)
        if not self._mask[index]:
            offered = int(self._mask.sum())
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

    def _new_game(self, start: Optional[Position], match: Optional[Match]) -> Game:
        """The episode's next game: its first from ``start`` (a position, or the variant's start), a match's
        later games from the variant's start, game ``j`` of a match numbered as cube duels number it
        (``episode * GAMES_PER_MATCH + j``: :mod:`nardy_fast.cubeloop`)."""
        seed, number = int(self._seed or 0), self._number  # the seed is set before any game is made
        if match is not None and not match.money:
            number = number * GAMES_PER_MATCH + self._match_game
        if start is None:
            return Game(self.variant, seed=seed, game=number, match=match, **self.flags)
        return Game(start, seed=seed, game=number, match=match)

    def _play(self, move: Move) -> None:
        """Play ``move`` (any legal move, offered or not), then set the rewards and the end."""
        self._game().play(move)
        self._decided = False
        self._settle()

    def _cube_action(self, action: int) -> None:
        """Play the cube action ``ENV_CUBE_ACTIONS[action]`` (an allowed one), then set the rewards and the end."""
        self._decided = play_cube_action(self._game(), action)
        self._settle()

    def _settle(self) -> None:
        """The rewards and the end after an action: a game over ends the episode, but for a match not yet won,
        whose next game starts (the reward then: 1 for the match, at its end)."""
        game = self._game()
        if game.is_over():
            winner = str(game.winner())
            points = game.points()
            if self.match is not None and not self.match.money:
                following = game.next_match()
                if following is not None:
                    self._match_game += 1
                    if self._match_game >= GAMES_PER_MATCH:  # games given up without end: undecided
                        self.truncations = dict.fromkeys(self.agents, True)
                    else:
                        self._decided = False
                        self.game = self._new_game(None, following)
                    self._refresh()
                    return
                points = 1
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
        phase = "move" if self.match is None else phase_of(game, self._decided)
        self.agent_selection = position.turn if self.match is None else acting_side(game)
        self._observation = _encode(position.to_array(), self.scheme)
        shown = self.match is None or (phase == "move" and not game.is_over())  # no roll before the cube's
        if self.scheme == "openspiel" and game.roll is not None and shown:
            self._observation[198:] = sorted(game.roll)  # OpenSpiel's dice features (encodings docstring)
        self._mask = np.zeros(self._actions, dtype=np.int8)
        if self.match is not None:
            self._cube = cube_features(game, phase)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        if self._finished():
            self._moves = []
            return
        if phase != "move":  # a cube decision or an answer: no roll, no children
            self._moves = []
            for action in cube_actions_allowed(game, phase):
                self._mask[self.max_actions + action] = 1
            self.infos[self.agent_selection] = {
                "roll": None, "children": read_only_rows([]), "legal_results": 0, "not_offered": 0
            }
            return
        legal = game.legal_moves()
        self._moves = legal[: self.max_actions]
        self._mask[: len(self._moves)] = 1
        self.infos[position.turn] = {
            "roll": game.roll,
            "children": read_only_rows([move.result.to_array() for move in self._moves]),
            "legal_results": len(legal),
            "not_offered": len(legal) - len(self._moves),
        }


def raw_env(
    variant: str = "long",
    *,
    scheme: str = "nardy",
    max_actions: IntLike = DEFAULT_MAX_ACTIONS,
    render_mode: Optional[str] = None,
    cube: bool = False,
    match: Optional[Match] = None,
    **flags: object,
) -> NardyEnv:
    """The AEC environment of ``variant`` (with its rule ``flags``) without wrappers; see
    :mod:`nardy_fast.env`."""
    return NardyEnv(
        variant, scheme=scheme, max_actions=max_actions, render_mode=render_mode, cube=cube, match=match, **flags
    )


def env(
    variant: str = "long",
    *,
    scheme: str = "nardy",
    max_actions: IntLike = DEFAULT_MAX_ACTIONS,
    render_mode: Optional[str] = None,
    cube: bool = False,
    match: Optional[Match] = None,
    **flags: object,
) -> Any:
    """:func:`raw_env` inside PettingZoo's recommended wrappers: ``AssertOutOfBoundsWrapper`` (an action
    outside the action space fails an assertion) and ``OrderEnforcingWrapper`` (clear errors for calls out of
    order, such as ``step`` before ``reset``). Attributes such as ``game`` reach through them;
    ``.unwrapped`` is the :class:`NardyEnv`."""
    inner = raw_env(
        variant, scheme=scheme, max_actions=max_actions, render_mode=render_mode, cube=cube, match=match, **flags
    )
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(inner))
