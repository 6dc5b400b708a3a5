"""What both environments check and share: the agents, the bounds of the action space, the ``start`` of
reset's options, and the read-only rows handed to agents and opponents."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

import numpy as np
import numpy.typing as npt

from ..errors import NardyError, field_error, uninitialised_error
from ..inputs import choice, integer
from ..layout import WIDTH
from ..position import Position

#: The agents, White first.
AGENTS = ("white", "black")
#: The default size of the action space: above the largest number of results (781) of any position of the
#: embedded corpus outside crazy gulbar (``nardy_fast.corpus``), a power of two.
DEFAULT_MAX_ACTIONS = 1024
#: The largest ``max_actions``: a mask of a mebibyte per observation (:mod:`nardy_fast.env`, "More results").
MAX_ACTIONS = 1 << 20

#: The render modes of both environments: the position as text (returned, or printed) or as an RGB image.
RENDER_MODES = ("ansi", "human", "rgb_array")
#: Frames per second Gymnasium's and PettingZoo's players show: one move a second.
RENDER_FPS = 1

#: An observation: ``{"observation": float32 features, "action_mask": int8 mask}``.
Observation = dict[str, Any]


def missing_attribute(env: object, name: str, state: frozenset[str]) -> Exception:
    """The error for reading ``name`` that ``env`` does not have: a :class:`~nardy_fast.NardyError` when
    ``env`` was made with ``__new__`` alone and ``name`` is one of the attributes its constructor sets
    (``state``), so that using such an environment says what is wrong; else the ``AttributeError`` that
    ``hasattr`` and the frameworks' own probing expect."""
    kind = type(env).__name__
    if name in state and not any(key in vars(env) for key in state):
        return uninitialised_error(kind)
    return AttributeError(f"{kind!r} object has no attribute {name!r}")


def check_max_actions(max_actions: object) -> int:
    """``max_actions`` as an integer ``1 ..`` :data:`MAX_ACTIONS`, or a ``NardyError`` naming it."""
    value = integer(max_actions)
    if value is None or not 1 <= value <= MAX_ACTIONS:
        raise field_error(
            NardyError,
            "max_actions",
            f"must be an integer 1 <= max_actions <= 2**{MAX_ACTIONS.bit_length() - 1} (MAX_ACTIONS)",
            max_actions,
        )
    return value


def check_agent(agent: object) -> str:
    """``agent`` as one of :data:`AGENTS` (a plain string), or a ``NardyError`` naming it."""
    name = choice(agent, AGENTS)
    if name is None:
        raise field_error(NardyError, "agent", f"must be one of {AGENTS}", agent)
    return name


def read_only_rows(rows: list[npt.NDArray[np.int8]]) -> npt.NDArray[np.int8]:
    """``rows`` as one (k, 64) array over an immutable buffer: no view, base or flag makes it writable."""
    data = b"".join(row.tobytes() for row in rows)
    return np.frombuffer(data, dtype=np.int8).reshape(len(rows), WIDTH)


def check_start(options: object, variant: str) -> Optional[Position]:
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
