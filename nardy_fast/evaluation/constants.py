"""The constants of evaluation and search that the compiled core reads at import, beside the Python code that
uses them: the network's input layout and size bounds (:mod:`~nardy_fast.evaluation.network`), the search's
depth and move filters (:mod:`~nardy_fast.evaluation.search`), and the evaluator kernels' check-only kind
(:mod:`~nardy_fast.evaluation.evaluators`). Facts over the encodings alone, so that the core stands on them
and not on the engine."""

from __future__ import annotations

from typing import NamedTuple

from ..encodings import SCHEMES

__all__ = [
    "SCHEME",
    "INPUTS",
    "NETWORK_SCHEMES",
    "MAX_INPUTS",
    "POINT_FEATURES",
    "MAX_COUNT",
    "MAX_HIDDEN",
    "MoveFilter",
    "TOP_FILTER",
    "INNER_FILTER",
    "ANALYSIS_FILTER",
    "MAX_PLIES",
    "CHECK_ONLY",
]

#: The encoding a network reads by default, and its width.
SCHEME = "nardy"
INPUTS = SCHEMES[SCHEME].features
#: The encodings a network may read: the raw ``"nardy"`` features, or those and the expert features
#: (``"expert"``); a network's scheme is told by the rows of its ``w1``.
NETWORK_SCHEMES = ("nardy", "expert")
#: The widest of them.
MAX_INPUTS = max(SCHEMES[name].features for name in NETWORK_SCHEMES)
#: The features of the points (four units a point, the mover's M1..M24 then the opponent's): the first ones.
POINT_FEATURES = 192
#: The most checkers on a point a point term is tabled for.
MAX_COUNT = 15
#: The most hidden units a network may have (the core's workspace per position).
MAX_HIDDEN = 512


class MoveFilter(NamedTuple):
    """Which candidates a deeper search looks at: the best ``keep`` by 0-ply equity, each within ``width``
    points of the best one's (GNU Backgammon's move filters)."""

    keep: int
    width: float


#: A 2-ply hint's first cut of the moves of the position itself.
TOP_FILTER = MoveFilter(8, 0.16)
#: The moves a game analysis deeper than 0 plies searches (GNU Backgammon's default filter for analysis,
#: "large": at 1 ply the best 16 within 0.32 of the 0-ply best).
ANALYSIS_FILTER = MoveFilter(16, 0.32)
#: The replies inside a search whose values need one more ply.
INNER_FILTER = MoveFilter(3, 0.10)
#: The deepest search.
MAX_PLIES = 2

#: The kind that asks an evaluate kernel only to check its rows (the kernel values nothing then).
CHECK_ONLY = -1
