"""The environments' doubling cube (``cube=True``; :mod:`nardy_fast.env`, "The cube"): the cube actions and
their indices, the cube features of an observation, the phase of a turn and the actions each phase allows.
Apart from the environments' modules, so that a game without the cube reads none of it.

A side that may double decides before it sees its roll (docs/rules.md, The doubling cube: a side doubles at
the start of its turn, before it rolls). ``Game`` draws a roll as soon as a turn begins, so the cube decision
is a step of its own, whose observation and info show no roll and no children: the dice never depend on the
cube, but an agent that saw them would double knowing its roll.
"""

from __future__ import annotations

from typing import Optional

import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from ..cube import MAX_CUBE, Match
from ..cube.state import other
from ..errors import NardyError, field_error
from ..game import Game
from ..inputs import boolean

__all__ = ["ENV_CUBE_ACTIONS", "CUBE_FEATURES", "PHASES", "check_cube", "cube_space", "cube_features", "phase_of",
           "cube_actions_allowed", "acting_side", "play_cube_action"]

#: The cube actions, offered after the ``max_actions`` move actions: action ``max_actions + i`` is
#: ``ENV_CUBE_ACTIONS[i]``. ``"no_double"`` rolls without doubling.
ENV_CUBE_ACTIONS = ("no_double", "double", "take", "pass", "beaver")
NO_DOUBLE, DOUBLE, TAKE, PASS, BEAVER = range(len(ENV_CUBE_ACTIONS))
#: The phases of a turn: deciding on the cube before the roll, answering a double, playing the roll.
PHASES = ("cube", "answer", "move")
#: The cube features of an observation (the side to move's view, as the position's encoding):
#: log2 of the cube's value; the cube is the side to move's; the other side's; the side to move decides on
#: the cube (no roll shown); a double by the side to move awaits the other side's answer; the side to move's
#: points away and the other side's (0 at money play); the Crawford game.
CUBE_FEATURES = 8
#: The bound of every cube feature: log2 of MAX_CUBE is 12, a match is at most 64 long.
_HIGH = 64.0


def check_cube(cube: object, match: object) -> Optional[Match]:
    """The session's match for ``cube`` and ``match`` (money play for ``cube=True`` alone), or ``None`` for an
    environment without the cube; a :class:`~nardy_fast.NardyError` naming the field that is wrong."""
    flag = boolean(cube)
    if flag is None:
        raise field_error(NardyError, "cube", "must be True or False", cube)
    if match is not None and not isinstance(match, Match):
        raise field_error(NardyError, "match", "must be None or a nardy_fast.Match", match)
    if not flag:
        if match is not None:  # a match without the cube would silently be played as money games
            raise field_error(NardyError, "match", "needs cube=True", match)
        return None
    return Match() if match is None else match


def cube_space() -> spaces.Box:
    """The space of the cube features."""
    return spaces.Box(0.0, _HIGH, (CUBE_FEATURES,), np.float32)


def phase_of(game: Game, decided: bool) -> str:
    """The phase of the turn now: ``"answer"`` while a double awaits its answer, ``"cube"`` where the side to
    move may double and has not yet decided (``decided``), else ``"move"``."""
    if game.offered is not None:
        return "answer"
    if not decided and game.may_double():
        return "cube"
    return "move"


def acting_side(game: Game) -> str:
    """The side that acts now: the side doubled while a double awaits its answer, else the side to move."""
    return other(game.offered) if game.offered is not None else game.position.turn


def cube_actions_allowed(game: Game, phase: str) -> tuple[int, ...]:
    """The indices in :data:`ENV_CUBE_ACTIONS` the ``phase`` allows (a beaver at money play with beavers only,
    and while the cube stays within :data:`~nardy_fast.cube.MAX_CUBE`)."""
    if phase == "cube":
        return (NO_DOUBLE, DOUBLE)
    if phase == "answer":
        match = game.match
        beaver = match.money and match.beavers and 4 * game.cube.value <= MAX_CUBE
        return (TAKE, PASS, BEAVER) if beaver else (TAKE, PASS)
    return ()


def cube_features(game: Game, phase: str) -> npt.NDArray[np.float32]:
    """The cube features (:data:`CUBE_FEATURES`) of ``game`` in ``phase``, from its side to move's view."""
    turn = game.position.turn
    cube, match = game.cube, game.match
    mine = 0.0 if match.money else float(match.away(turn))
    theirs = 0.0 if match.money else float(match.away(other(turn)))
    return np.array(
        [
            cube.value.bit_length() - 1,
            cube.owner == turn,
            cube.owner == other(turn),
            phase == "cube",
            phase == "answer",
            mine,
            theirs,
            match.crawford,
        ],
        dtype=np.float32,
    )


def play_cube_action(game: Game, action: int) -> bool:
    """Play ``ENV_CUBE_ACTIONS[action]`` in ``game`` (an action its phase allows); whether the side to move has
    now decided not to double this turn."""
    if action == NO_DOUBLE:
        return True
    if action == DOUBLE:
        game.double()
    elif action == TAKE:
        game.take()
    elif action == PASS:
        game.drop()
    else:
        game.beaver()
    return False
