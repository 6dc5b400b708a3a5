"""The one place that chooses the implementation behind the package's names: the compiled core when it is
built, else the pure-Python reference; ``NARDY_FAST_IMPLEMENTATION=python|cython`` forces one (``cython``
fails loudly when the core is missing). Everything else in the package is written for both.
"""

from __future__ import annotations

import os
from types import ModuleType

from . import game, reference

__all__ = [
    "IMPLEMENTATION",
    "Position",
    "batch_children",
    "children",
    "encode",
    "playout",
    "rollout",
    "reference",
]


def _choose() -> ModuleType:
    requested = os.environ.get("NARDY_FAST_IMPLEMENTATION", "")
    if requested not in ("", "python", "cython"):
        raise ImportError(f"NARDY_FAST_IMPLEMENTATION: must be 'python' or 'cython' (got {requested!r})")
    if requested == "python":
        return reference
    try:
        from . import core
    except ImportError:
        if requested == "cython":
            raise
        return reference
    return core


_chosen = _choose()

#: The implementation behind ``Position``: ``"cython"`` when the core is built, else ``"python"``.
IMPLEMENTATION: str = _chosen.IMPLEMENTATION
Position: type[reference.Position] = _chosen.Position
batch_children = _chosen.batch_children
children = _chosen.children
encode = _chosen.encode
playout = _chosen.playout
rollout = _chosen.rollout
game.default_position = Position


def implementations() -> dict[str, ModuleType]:
    """Every implementation that can be imported here, by name (``"python"``, and ``"cython"`` when built):
    for tools that compare them, such as the benchmarks and the perft check."""
    found = {"python": reference}
    try:
        from . import core
    except ImportError:
        return found
    found["cython"] = core
    return found
