"""The doubling cube and match play, the facts (docs/rules.md, The doubling cube; Match play): the cube's and
the match's state, match equity tables, and Janowski's cubeful equities and cube decisions as pure functions
of the five cubeless outputs. Positions, searches and games with the cube stand on these in higher layers.
"""

from __future__ import annotations

from .decision import ACTIONS, CubeDecision, cube_decision
from .janowski import CLASSES, average_values, cube_efficiency, money_cubeful, money_points
from .mec import mec_table
from .met import TABLES, MatchEquityTable, match_equity_table
from .state import MAX_CUBE, SIDES, Cube, Match, game_points

__all__ = [
    "Cube",
    "Match",
    "SIDES",
    "MAX_CUBE",
    "game_points",
    "MatchEquityTable",
    "TABLES",
    "match_equity_table",
    "mec_table",
    "CLASSES",
    "cube_efficiency",
    "money_points",
    "average_values",
    "money_cubeful",
    "ACTIONS",
    "CubeDecision",
    "cube_decision",
]
