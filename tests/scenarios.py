"""The rule-book test scenarios 1..36 as data, one :class:`Scenario` per numbered scenario.

Positions and results are written as in the scenarios: ``X{point:count,...}`` for the side to move and ``Y{...}``
for its opponent, both in the mover's numbering, plus ``Xoff``/``Yoff``/``Xbar``/``Ybar`` counts when nonzero
(e.g. ``"X{6:1,1:1} Xoff13 Y{18:15}"``). :func:`snapshot` turns such a text into White's absolute
``(board, bar, off)``, the identity of a result position (docs/rules.md, One move per result).

Every expected value is taken from the scenario's statement. Values it does not spell out were derived by hand from
its rules; each carries a comment saying how. Step texts are the engine's format (``24/22 22/20``, not
``24/22/20``), and each canonical sequence is the lexicographically greatest one (docs/rules.md, Canonical step order), worked out by
hand. The statements' own step texts are informative only and are not always the canonical order (scenario 11).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "SCENARIOS",
    "Case",
    "Scenario",
    "ScoringCase",
    "Side",
    "Snapshot",
    "all_cases",
    "snapshot",
]

Side = Literal["white", "black"]
#: A result position's identity in White's numbering: (board, (white bar, black bar), (white off, black off)).
Snapshot = tuple[tuple[int, ...], tuple[int, int], tuple[int, int]]

LONG_FAMILY = ("long", "sixone", "gulbar", "crazy")

_TOKEN = re.compile(r"([XY])\{([^}]*)\}|([XY])(off|bar)(\d+)")


def _flip(variant: str, point: int) -> int:
    """The other side's numbering of ``point`` (docs/rules.md, The mover's numbering; an involution)."""
    if variant in LONG_FAMILY:
        return point + 12 if point <= 12 else point - 12
    return 25 - point


def _parse(text: str) -> tuple[dict[str, dict[int, int]], dict[str, int]]:
    """Split a scenario's position text into its X/Y point counts and its off/bar counts."""
    points: dict[str, dict[int, int]] = {"X": {}, "Y": {}}
    counts = {"Xoff": 0, "Yoff": 0, "Xbar": 0, "Ybar": 0}
    for token in text.split():
        match = _TOKEN.fullmatch(token)
        if match is None:
            raise ValueError(f"bad token {token!r} in {text!r}")
        if match[1]:
            for cell in filter(None, match[2].split(",")):
                point, count = (int(v) for v in cell.split(":"))
                if not 1 <= point <= 24 or count <= 0 or point in points[match[1]]:
                    raise ValueError(f"bad cell {cell!r} in {text!r}")
                points[match[1]][point] = count
        else:
            counts[match[3] + match[4]] = int(match[5])
    if set(points["X"]) & set(points["Y"]):
        raise ValueError(f"a point holds both colours in {text!r}")
    return points, counts


def snapshot(variant: str, text: str, mover: Side = "white") -> Snapshot:
    """White-numbered ``(board, bar, off)`` of a scenario's text whose X is ``mover``.

    With X = White, ``board[m-1] = X[m] - Y[m]``; with X = Black every point is first mapped as docs/rules.md,
    The mover's numbering, says.
    """
    points, counts = _parse(text)
    board = [0] * 24
    sign = 1 if mover == "white" else -1
    for colour, factor in (("X", sign), ("Y", -sign)):
        for point, count in points[colour].items():
            absolute = point if mover == "white" else _flip(variant, point)
            board[absolute - 1] = factor * count
    x_pair = (counts["Xbar"], counts["Ybar"]), (counts["Xoff"], counts["Yoff"])
    if mover == "white":
        return tuple(board), x_pair[0], x_pair[1]
    return tuple(board), (counts["Ybar"], counts["Xbar"]), (counts["Yoff"], counts["Xoff"])


@dataclass(frozen=True)
class Case:
    """One position and roll of a scenario, with what the scenario says about its legal moves.

    ``position`` and every result text are in the coordinates of ``mover`` (X = ``mover``). ``roll=None``
    plays the ``pending`` transfer list (gulbar/crazy segment). ``first``/``opponent_first`` are the
    first-roll flags of X and Y.
    """

    variant: str
    position: str
    roll: tuple[int, int] | None
    n: int
    label: str = ""
    mover: Side = "white"
    first: bool = False
    opponent_first: bool = False
    pending: tuple[int, ...] = ()
    flags: Mapping[str, object] = field(default_factory=dict)
    #: The complete set of results (``None``: the scenario gives only the count and examples).
    results: tuple[str, ...] | None = None
    #: Results that must be among the legal ones.
    examples: tuple[str, ...] = ()
    #: Canonical step text -> the result it reaches (both must be returned together).
    moves: Mapping[str, str] = field(default_factory=dict)
    #: Results that must not be legal.
    absent_results: tuple[str, ...] = ()
    #: Step texts (one step, e.g. ``24/1s``) that no legal move may contain.
    forbidden_steps: tuple[str, ...] = ()
    #: Number of steps every legal move plays (U = Umax), when the scenario states or implies it.
    dice_used: int | None = None
    #: The remainder R of every legal move (gulbar/crazy, docs/rules.md, Gulbar transfers).
    remainder: tuple[int, ...] = ()
    extra_roll: bool = False
    #: Points scored (docs/rules.md, Game end and scoring) by every result that ends the game.
    points: int | None = None
    #: The turn that follows one of the moves: its start must equal that move's result in full.
    then: Case | None = None


@dataclass(frozen=True)
class ScoringCase:
    """A finished game: X (the winner) has borne off all 15 and Y is to move (docs/rules.md, What follows a move)."""

    variant: str
    position: str
    points: int
    label: str = ""


@dataclass(frozen=True)
class Scenario:
    """One numbered scenario."""

    number: int
    title: str
    cases: tuple[Case, ...] = ()
    scoring: tuple[ScoringCase, ...] = ()


def _long_start(variant: str, roll: tuple[int, int], n: int, **kwargs: object) -> Case:
    """A case from the long-family start ``X{24:15} Y{12:15}`` on X's first roll."""
    return Case(variant, "X{24:15} Y{12:15}", roll, n, first=True, **kwargs)  # type: ignore[arg-type]


# --- Long nardy ---------------------------------------------------------------------------------------------

_LONG = (
    Scenario(1, "First roll 6-6", (
        _long_start(
            "long", (6, 6), 1,
            results=("X{24:13,18:2} Y{12:15}",),
            moves={"24/18 24/18": "X{24:13,18:2} Y{12:15}"},
            dice_used=2,
        ),
    )),
    Scenario(2, "First roll 4-4", (
        _long_start(
            "long", (4, 4), 1,
            results=("X{24:13,16:2} Y{12:15}",),
            moves={"24/20 24/20 20/16 20/16": "X{24:13,16:2} Y{12:15}"},
            dice_used=4,
        ),
    )),
    Scenario(3, "First roll 3-3", (
        _long_start(
            "long", (3, 3), 2,
            results=("X{24:13,18:2} Y{12:15}", "X{24:13,21:1,15:1} Y{12:15}"),
            # Canonical (One move per result): both head steps first (from-point 24), then the highest from-point left.
            moves={
                "24/21 24/21 21/18 21/18": "X{24:13,18:2} Y{12:15}",
                "24/21 24/21 21/18 18/15": "X{24:13,21:1,15:1} Y{12:15}",
            },
            dice_used=4,
        ),
    )),
    Scenario(4, "First roll 5-5: no exception", (
        _long_start(
            "long", (5, 5), 1,
            results=("X{24:14,4:1} Y{12:15}",),
            moves={"24/19 19/14 14/9 9/4": "X{24:14,4:1} Y{12:15}"},
            absent_results=("X{24:13,19:1,14:1} Y{12:15}", "X{24:13,14:2} Y{12:15}"),
            dice_used=4,
        ),
    )),
    Scenario(5, "Non-first 6-6, one head checker only", (
        Case(
            "long", "X{24:14,17:1} Y{12:14,10:1}", (6, 6), 1,
            results=("X{24:13,18:1,5:1} Y{12:14,10:1}",),
            moves={"24/18 17/11 11/5": "X{24:13,18:1,5:1} Y{12:14,10:1}"},
            dice_used=3,
        ),
    )),
    Scenario(6, "Second player's first roll 6-6", (
        Case(
            "long", "X{24:15} Y{12:14,1:1}", (6, 6), 1, first=True,
            results=("X{24:13,18:2} Y{12:14,1:1}",),
            moves={"24/18 24/18": "X{24:13,18:2} Y{12:14,1:1}"},
            dice_used=2,
        ),
    )),
    Scenario(7, "Second player's first roll 2-2, partly blocked", (
        Case(
            "long", "X{24:15} Y{12:14,16:1}", (2, 2), 1, first=True,
            results=("X{24:14,18:1} Y{12:14,16:1}",),
            moves={"24/22 22/20 20/18": "X{24:14,18:1} Y{12:14,16:1}"},
            # The broad reading of S3 (two head checkers, 4 dice) must not be applied.
            absent_results=("X{24:13,20:2} Y{12:14,16:1}", "X{24:13,22:1,18:1} Y{12:14,16:1}"),
            forbidden_steps=("18/16",),
            dice_used=3,
        ),
    )),
    Scenario(8, "Higher die", (
        Case(
            "long", "X{13:1,4:7,3:7} Y{12:13,2:2}", (6, 5), 1,
            results=("X{7:1,4:7,3:7} Y{12:13,2:2}",),
            moves={"13/7": "X{7:1,4:7,3:7} Y{12:13,2:2}"},
            absent_results=("X{8:1,4:7,3:7} Y{12:13,2:2}",),  # 13/8: the 5 alone
            forbidden_steps=("13/8",),
            dice_used=1,
        ),
    )),
    Scenario(9, "Order needed to use both dice", (
        Case(
            "long", "X{14:1,4:7,3:7} Y{12:13,8:2}", (6, 3), 1,
            results=("X{5:1,4:7,3:7} Y{12:13,8:2}",),
            moves={"14/11 11/5": "X{5:1,4:7,3:7} Y{12:13,8:2}"},
            forbidden_steps=("14/8", "4/1"),
            dice_used=2,
        ),
    )),
    Scenario(10, "Block with no Y checker past it is illegal", (
        Case(
            "long", "X{24:9,10:1,9:1,8:2,7:1,6:1} Y{12:14,11:1}", (3, 1), 30,
            # 8/5 24/23 would hold M10..M5.
            absent_results=("X{24:8,23:1,10:1,9:1,8:1,7:1,6:1,5:1} Y{12:14,11:1}",),
            # 8/5/4: via 5 (die 3 first) beats via 7 (die 1 first) in the One move per result order.
            moves={"8/5 5/4": "X{24:9,10:1,9:1,8:1,7:1,6:1,4:1} Y{12:14,11:1}"},
            dice_used=2,  # 8/5/4 plays both dice
        ),
    )),
    Scenario(11, "Same, but a Y checker has passed", (
        Case(
            "long", "X{24:9,10:1,9:1,8:2,7:1,6:1} Y{12:13,11:1,3:1}", (3, 1), 26,
            # The scenario writes `8/5 24/23`; the canonical order starts from the higher point 24.
            moves={"24/23 8/5": "X{24:8,23:1,10:1,9:1,8:1,7:1,6:1,5:1} Y{12:13,11:1,3:1}"},
            forbidden_steps=("6/3", "4/3"),  # M3 is closed now ("results landing on M3 disappear")
            dice_used=2,
        ),
    )),
    Scenario(12, "Wrap-around block M3..M22", (
        Case(
            "long", "X{24:8,23:1,3:2,2:3,1:1} Y{12:15}", (2, 1), 9,
            absent_results=(
                "X{24:7,23:1,22:1,3:1,2:4,1:1} Y{12:15}",  # 24/22 3/2
                "X{24:7,23:1,22:1,3:2,2:2,1:2} Y{12:15}",  # 24/22 2/1
            ),
            # 23/21/20 is legal here (it is named as becoming illegal in the second case).
            moves={"23/21 21/20": "X{24:8,20:1,3:2,2:3,1:1} Y{12:15}"},
            dice_used=2,
        ),
        Case(
            "long", "X{24:8,23:1,3:2,2:3,1:1} Y{12:14,20:1}", (2, 1), 10, label="Y on M20",
            moves={
                "24/22 3/2": "X{24:7,23:1,22:1,3:1,2:4,1:1} Y{12:14,20:1}",
                "24/22 2/1": "X{24:7,23:1,22:1,3:2,2:2,1:2} Y{12:14,20:1}",
            },
            forbidden_steps=("21/20", "22/20"),  # 23/21/20: M20 is closed
            dice_used=2,
        ),
    )),
    Scenario(13, "Temporary block (end-of-turn check)", (
        Case(
            "long", "X{24:6,11:1,10:2,8:1,7:1,6:1,4:1,3:1,2:1} Y{12:15}", (5, 1), 41,
            # 10/4 via 5 (die 5 first) beats via 9 (die 1 first) in the One move per result order.
            moves={"10/5 5/4": "X{24:6,11:1,10:1,8:1,7:1,6:1,4:2,3:1,2:1} Y{12:15}"},
            dice_used=2,
        ),
        Case(
            "long", "X{24:6,11:1,10:2,8:1,7:1,6:1,4:1,3:1,2:1} Y{12:15}", (5, 1), 40, label="per_step",
            flags={"block_check": "per_step"},
            absent_results=("X{24:6,11:1,10:1,8:1,7:1,6:1,4:2,3:1,2:1} Y{12:15}",),
        ),
    )),
    Scenario(14, "Bear-off: order matters and bearing off is optional", (
        Case(
            "long", "X{6:1,1:1} Xoff13 Y{18:15}", (6, 5), 2,
            results=("X{} Xoff15 Y{18:15}", "X{1:1} Xoff14 Y{18:15}"),
            moves={"6/off 1/off": "X{} Xoff15 Y{18:15}", "6/1 1/off": "X{1:1} Xoff14 Y{18:15}"},
            dice_used=2,
            points=2,  # Game end and scoring: Yoff = 0, so the win is a mars
        ),
    )),
    Scenario(15, "Bear-off: must move from the higher point", (
        Case(
            "long", "X{6:1,2:1} Xoff13 Y{18:15}", (5, 4), 2,
            results=("X{1:1} Xoff14 Y{18:15}", "X{2:1} Xoff14 Y{18:15}"),
            # After 6/1 the checker on M2 is above M1, so 1/off with the 4 is illegal: 6/2 2/off is the only way.
            moves={"6/1 2/off": "X{1:1} Xoff14 Y{18:15}", "6/2 2/off": "X{2:1} Xoff14 Y{18:15}"},
            dice_used=2,
        ),
        Case(
            "long", "X{6:1,2:1} Xoff13 Y{18:14,1:1}", (5, 4), 1, label="Y on M1",
            results=("X{2:1} Xoff14 Y{18:14,1:1}",),
            moves={"6/2 2/off": "X{2:1} Xoff14 Y{18:14,1:1}"},
            forbidden_steps=("6/1",),  # the 5 cannot be played first
            dice_used=2,
        ),
    )),
    Scenario(16, "Moving inside home instead of bearing off", (
        Case(
            "long", "X{4:1,2:1} Xoff13 Y{18:15}", (2, 1), 2,
            results=("X{3:1} Xoff14 Y{18:15}", "X{2:1,1:1} Xoff13 Y{18:15}"),
            moves={"4/3 2/off": "X{3:1} Xoff14 Y{18:15}", "4/2 2/1": "X{2:1,1:1} Xoff13 Y{18:15}"},
            dice_used=2,
        ),
    )),
    Scenario(17, "Last checker enters home, then bears off in the same move", (
        Case(
            "long", "X{8:1,3:14} Y{18:15}", (5, 3), 1,
            results=("X{3:14} Xoff1 Y{18:15}",),
            moves={"8/3 3/off": "X{3:14} Xoff1 Y{18:15}"},  # beats 8/5 5/off (die 5 > 3 at from-point 8)
            dice_used=2,
        ),
    )),
    Scenario(18, "Pass", (
        Case(
            "long", "X{7:1,3:14} Y{12:13,1:2}", (6, 6), 1,
            results=("X{7:1,3:14} Y{12:13,1:2}",),
            moves={"pass": "X{7:1,3:14} Y{12:13,1:2}"},
            dice_used=0,
        ),
    )),
    Scenario(19, "Game ends mid-move", (
        Case(
            "long", "X{2:1} Xoff14 Y{18:15}", (6, 1), 1,
            results=("X{} Xoff15 Y{18:15}",),
            moves={"2/1 1/off": "X{} Xoff15 Y{18:15}"},
            forbidden_steps=("2/off",),
            dice_used=2,
            points=2,
        ),
    )),
)

# --- Six-one ------------------------------------------------------------------------------------------------

_SIXONE = (
    Scenario(20, "Opening 6-1", (
        _long_start(
            "sixone", (6, 1), 5,
            results=(
                "X{24:13,6:1,1:1} Y{12:15}",
                "X{24:13,23:1,6:1} Y{12:15}",
                "X{24:14,5:1} Y{12:15}",
                "X{24:13,18:1,1:1} Y{12:15}",
                "X{24:14,17:1} Y{12:15}",
            ),
            moves={
                "24/6s 24/1s": "X{24:13,6:1,1:1} Y{12:15}",
                "24/6s 24/23": "X{24:13,23:1,6:1} Y{12:15}",
                "24/6s 6/5": "X{24:14,5:1} Y{12:15}",
                "24/18 24/1s": "X{24:13,18:1,1:1} Y{12:15}",
                "24/18 18/17": "X{24:14,17:1} Y{12:15}",
            },
            absent_results=("X{24:13,23:1,18:1} Y{12:15}",),  # 24/18 24/23: two normal head departures
            dice_used=2,
            extra_roll=True,
        ),
    )),
    Scenario(21, "Opening 6-6 and 4-4", (
        _long_start(
            "sixone", (6, 6), 2, label="6-6",
            results=("X{24:11,6:4} Y{12:15}", "X{24:11,18:1,6:3} Y{12:15}"),
            # Derived: the one normal head step 24/18 sorts before the specials (normal > special).
            moves={
                "24/6s 24/6s 24/6s 24/6s": "X{24:11,6:4} Y{12:15}",
                "24/18 24/6s 24/6s 24/6s": "X{24:11,18:1,6:3} Y{12:15}",
            },
            dice_used=4,
        ),
        _long_start(
            "sixone", (4, 4), 1, label="4-4",
            results=("X{24:14,16:1} Y{12:15}",),
            moves={"24/20 20/16": "X{24:14,16:1} Y{12:15}"},
            absent_results=("X{24:13,16:2} Y{12:15}",),  # the long-nardy first-roll play
            dice_used=2,
        ),
        _long_start(
            "sixone", (6, 4), 3, label="6-4",
            results=("X{24:13,20:1,6:1} Y{12:15}", "X{24:14,2:1} Y{12:15}", "X{24:14,14:1} Y{12:15}"),
            moves={
                "24/6s 24/20": "X{24:13,20:1,6:1} Y{12:15}",
                "24/6s 6/2": "X{24:14,2:1} Y{12:15}",
                "24/18 18/14": "X{24:14,14:1} Y{12:15}",  # beats 24/20 20/14 (die 6 > 4)
            },
            dice_used=2,
        ),
    )),
    Scenario(22, "Special blocked by Y", (
        Case(
            "sixone", "X{24:15} Y{12:14,1:1}", (6, 1), 3, first=True,
            results=("X{24:13,23:1,6:1} Y{12:14,1:1}", "X{24:14,5:1} Y{12:14,1:1}", "X{24:14,17:1} Y{12:14,1:1}"),
            moves={
                "24/6s 24/23": "X{24:13,23:1,6:1} Y{12:14,1:1}",
                "24/6s 6/5": "X{24:14,5:1} Y{12:14,1:1}",
                "24/18 18/17": "X{24:14,17:1} Y{12:14,1:1}",
            },
            forbidden_steps=("24/1s",),
            dice_used=2,
            extra_roll=True,
        ),
    )),
    Scenario(23, "Specials and the block rule (wrap with the head)", (
        Case(
            "sixone", "X{24:11,5:1,4:1,3:1,2:1} Y{12:14,10:1}", (6, 1), 11,
            # The only 24/1s results: the 6 is then 24/6s or 24/18 (nothing else moves by 6).
            absent_results=(
                "X{24:9,6:1,5:1,4:1,3:1,2:1,1:1} Y{12:14,10:1}",
                "X{24:9,18:1,5:1,4:1,3:1,2:1,1:1} Y{12:14,10:1}",
            ),
            forbidden_steps=("24/1s",),
            dice_used=2,
            extra_roll=True,
        ),
        Case(
            "sixone", "X{24:11,5:1,4:1,3:1,2:1} Y{12:14,20:1}", (6, 1), 13, label="Y on M20",
            moves={
                "24/6s 24/1s": "X{24:9,6:1,5:1,4:1,3:1,2:1,1:1} Y{12:14,20:1}",
                "24/18 24/1s": "X{24:9,18:1,5:1,4:1,3:1,2:1,1:1} Y{12:14,20:1}",
            },
            dice_used=2,
            extra_roll=True,
        ),
    )),
)

# --- Short nardy --------------------------------------------------------------------------------------------

_SHORT_Y = "Y{24:2,19:5,17:3,12:5}"
_SHORT_Y27 = "Y{24:2,21:1,19:4,17:3,12:5}"

_SHORT = (
    Scenario(24, "Both entry points closed", (
        Case(
            "short", f"X{{23:1,13:5,8:3,6:5}} Xbar1 {_SHORT_Y}", (6, 1), 1,
            results=(f"X{{23:1,13:5,8:3,6:5}} Xbar1 {_SHORT_Y}",),
            moves={"pass": f"X{{23:1,13:5,8:3,6:5}} Xbar1 {_SHORT_Y}"},
            dice_used=0,
        ),
    )),
    Scenario(25, "One entry open, then any checker", (
        Case(
            "short", f"X{{23:1,13:5,8:3,6:5}} Xbar1 {_SHORT_Y}", (6, 4), 3,
            results=(
                f"X{{23:1,15:1,13:5,8:3,6:5}} {_SHORT_Y}",
                f"X{{23:1,21:1,13:4,8:3,7:1,6:5}} {_SHORT_Y}",
                f"X{{23:1,21:1,13:5,8:2,6:5,2:1}} {_SHORT_Y}",
            ),
            moves={
                "bar/21 21/15": f"X{{23:1,15:1,13:5,8:3,6:5}} {_SHORT_Y}",
                "bar/21 13/7": f"X{{23:1,21:1,13:4,8:3,7:1,6:5}} {_SHORT_Y}",
                "bar/21 8/2": f"X{{23:1,21:1,13:5,8:2,6:5,2:1}} {_SHORT_Y}",
            },
            forbidden_steps=("23/17",),
            dice_used=2,
        ),
    )),
    Scenario(26, "Two on the bar", (
        Case(
            "short", f"X{{13:5,8:3,6:5}} Xbar2 {_SHORT_Y}", (6, 4), 1,
            results=(f"X{{21:1,13:5,8:3,6:5}} Xbar1 {_SHORT_Y}",),
            moves={"bar/21": f"X{{21:1,13:5,8:3,6:5}} Xbar1 {_SHORT_Y}"},
            dice_used=1,
        ),
    )),
    Scenario(27, "Hit on entry", (
        Case(
            "short", f"X{{23:1,13:5,8:3,6:5}} Xbar1 {_SHORT_Y27}", (4, 1), 4,
            results=(
                "X{22:1,21:1,13:5,8:3,6:5} Y{24:2,19:4,17:3,12:5} Ybar1",
                "X{23:1,20:1,13:5,8:3,6:5} Y{24:2,19:4,17:3,12:5} Ybar1",
                "X{23:1,21:1,13:5,8:2,7:1,6:5} Y{24:2,19:4,17:3,12:5} Ybar1",
                "X{23:1,21:1,13:5,8:3,6:4,5:1} Y{24:2,19:4,17:3,12:5} Ybar1",
            ),
            moves={
                "bar/21* 23/22": "X{22:1,21:1,13:5,8:3,6:5} Y{24:2,19:4,17:3,12:5} Ybar1",
                "bar/21* 21/20": "X{23:1,20:1,13:5,8:3,6:5} Y{24:2,19:4,17:3,12:5} Ybar1",
                "bar/21* 8/7": "X{23:1,21:1,13:5,8:2,7:1,6:5} Y{24:2,19:4,17:3,12:5} Ybar1",
                "bar/21* 6/5": "X{23:1,21:1,13:5,8:3,6:4,5:1} Y{24:2,19:4,17:3,12:5} Ybar1",
            },
            forbidden_steps=("bar/24",),  # entry with the 1 is closed
            dice_used=2,
        ),
    )),
    Scenario(28, "Scoring", scoring=(
        # Short nardy: koks needs Yoff = 0 and a Y checker on the bar or on X's M1..M6.
        ScoringCase("short", "X{} Xoff15 Y{20:14} Ybar1", 3, "short, Y on the bar"),
        ScoringCase("short", "X{} Xoff15 Y{20:14,3:1}", 3, "short, Y in X's home"),
        ScoringCase("short", "X{} Xoff15 Y{20:15}", 2, "short, mars"),
        ScoringCase("short", "X{} Xoff15 Y{20:13,3:1} Yoff1", 1, "short, Yoff 1"),
        ScoringCase("short", "X{} Xoff15 Y{20:13} Ybar1 Yoff1", 1, "short, Yoff 1 and Y on the bar"),
        # Long family (no bar): the same situations score 2, 2, 1.
        *(
            ScoringCase(variant, text, points, f"{variant}, {what}")
            for variant in LONG_FAMILY
            for text, points, what in (
                ("X{} Xoff15 Y{12:14,3:1}", 2, "Y in X's home"),
                ("X{} Xoff15 Y{12:15}", 2, "mars"),
                ("X{} Xoff15 Y{18:13,3:1} Yoff1", 1, "Yoff 1"),
            )
        ),
    )),
    Scenario(36, "Finishing must use both dice when it can", (
        Case(
            "short", "X{2:1} Xoff14 Y{19:14,1:1}", (5, 1), 1,
            results=("X{} Xoff15 Y{19:14} Ybar1",),
            moves={"2/1* 1/off": "X{} Xoff15 Y{19:14} Ybar1"},
            absent_results=("X{} Xoff15 Y{19:14,1:1}",),  # 2/off with the 5 alone
            forbidden_steps=("2/off",),
            dice_used=2,
            points=3,
        ),
    )),
)

# --- Gulbar and crazy gulbar --------------------------------------------------------------------------------

_GULBAR = (
    Scenario(29, "Gulbar, non-double remainder", (
        Case(
            "gulbar", "X{13:1,4:7,3:7} Y{12:13,2:2}", (6, 5), 1,
            results=("X{7:1,4:7,3:7} Y{12:13,2:2}",),
            moves={"13/7": "X{7:1,4:7,3:7} Y{12:13,2:2}"},
            dice_used=1,
            remainder=(5,),
            then=Case(  # Y's transfer segment, in Y's coordinates
                "gulbar", "X{24:13,14:2} Y{19:1,16:7,15:7}", None, 1, label="Y's segment",
                mover="black", pending=(5,),
                results=("X{24:13,14:1,9:1} Y{19:1,16:7,15:7}",),
                moves={"14/9": "X{24:13,14:1,9:1} Y{19:1,16:7,15:7}"},
                forbidden_steps=("24/19",),
                dice_used=1,
            ),
        ),
    )),
    Scenario(30, "Gulbar, first roll 6-6", (
        Case(
            "gulbar", "X{24:15} Y{12:15}", (6, 6), 1, first=True, opponent_first=True,
            results=("X{24:13,18:2} Y{12:15}",),  # as scenario 1 (gulbar = long, docs/rules.md, The five games)
            moves={"24/18 24/18": "X{24:13,18:2} Y{12:15}"},
            dice_used=2,
            remainder=(6, 6),
            then=Case(
                "gulbar", "X{24:15} Y{12:13,6:2}", None, 1, label="Y's segment",
                mover="black", first=True, pending=(6, 6),
                results=("X{24:14,18:1} Y{12:13,6:2}",),
                moves={"24/18": "X{24:14,18:1} Y{12:13,6:2}"},
                forbidden_steps=("18/12",),
                dice_used=1,
                # Derived: Y's own first roll 6-6 may still take two head checkers; 18/12 stays closed.
                then=Case(
                    "gulbar", "X{24:14,18:1} Y{12:13,6:2}", (6, 6), 1, label="Y's own first roll 6-6",
                    mover="black", first=True,
                    results=("X{24:12,18:3} Y{12:13,6:2}",),
                    moves={"24/18 24/18": "X{24:12,18:3} Y{12:13,6:2}"},
                    dice_used=2,
                    remainder=(6, 6),
                ),
            ),
        ),
    )),
    Scenario(31, "Gulbar, fully played double -> extra roll", (
        _long_start(
            "gulbar", (4, 4), 1,
            results=("X{24:13,16:2} Y{12:15}",),
            moves={"24/20 24/20 20/16 20/16": "X{24:13,16:2} Y{12:15}"},
            dice_used=4,
            extra_roll=True,
            # Derived: the extra roll is not a first roll, so 4-4 now takes one head checker (16/12 closed).
            then=Case(
                "gulbar", "X{24:13,16:2} Y{12:15}", (4, 4), 1, label="extra roll 4-4",
                results=("X{24:12,16:3} Y{12:15}",),
                moves={"24/20 20/16": "X{24:12,16:3} Y{12:15}"},
                dice_used=2,
                remainder=(4, 4),
            ),
        ),
    )),
    Scenario(32, "Gulbar, pass transfers everything", (
        Case(
            "gulbar", "X{7:1,3:14} Y{12:13,1:2}", (6, 6), 1,
            results=("X{7:1,3:14} Y{12:13,1:2}",),
            moves={"pass": "X{7:1,3:14} Y{12:13,1:2}"},
            dice_used=0,
            remainder=(6, 6, 6, 6),
            then=Case(
                "gulbar", "X{24:13,13:2} Y{19:1,15:14}", None, 5, label="Y's segment",
                mover="black", pending=(6, 6, 6, 6),
                # Derived complete set: h steps for the one head checker (24/18/12/6, h <= 3) and a, b for
                # the two M13 checkers (13/7/1, each <= 2), h + a + b = 4.
                results=(
                    "X{24:13,1:2} Y{19:1,15:14}",
                    "X{24:12,18:1,7:1,1:1} Y{19:1,15:14}",
                    "X{24:12,13:1,12:1,1:1} Y{19:1,15:14}",
                    "X{24:12,12:1,7:2} Y{19:1,15:14}",
                    "X{24:12,13:1,7:1,6:1} Y{19:1,15:14}",
                ),
                moves={"13/7 13/7 7/1 7/1": "X{24:13,1:2} Y{19:1,15:14}"},
                dice_used=4,
            ),
        ),
    )),
    Scenario(33, "Crazy, opening 4-4 ladder fully played", (
        _long_start(
            "crazy", (4, 4), 7,
            # Each head checker must cover 4+5+6 to reach M9, so the order of steps is forced.
            moves={"24/20 24/20 20/15 20/15 15/9 15/9": "X{24:13,9:2} Y{12:15}"},
            dice_used=6,
        ),
    )),
    Scenario(34, "Crazy, ladder stops and the suffix is transferred", (
        Case(
            "crazy", "X{24:14,2:1} Y{12:14,11:1}", (4, 4), 1,
            results=("X{24:13,16:1,2:1} Y{12:14,11:1}",),
            moves={"24/20 20/16": "X{24:13,16:1,2:1} Y{12:14,11:1}"},
            forbidden_steps=("16/11",),
            dice_used=2,
            remainder=(5, 5, 6, 6),
            then=Case(
                "crazy", "X{24:14,23:1} Y{14:1,12:13,4:1}", None, 2, label="Y's segment",
                mover="black", pending=(5, 5, 6, 6),
                results=("X{24:13,18:1,7:1} Y{14:1,12:13,4:1}", "X{24:14,1:1} Y{14:1,12:13,4:1}"),
                moves={
                    "24/19 23/18 19/13 13/7": "X{24:13,18:1,7:1} Y{14:1,12:13,4:1}",
                    "23/18 18/13 13/7 7/1": "X{24:14,1:1} Y{14:1,12:13,4:1}",
                },
                dice_used=4,
            ),
        ),
    )),
    Scenario(35, "Crazy 6-6 is two steps (seed reading)", (
        Case(
            "crazy", "X{24:13,20:1,16:1} Y{12:14,1:1}", (6, 6), 5,
            results=(
                "X{24:12,18:1,16:1,14:1} Y{12:14,1:1}",
                "X{24:12,20:1,18:1,10:1} Y{12:14,1:1}",
                "X{24:13,14:1,10:1} Y{12:14,1:1}",
                "X{24:13,16:1,8:1} Y{12:14,1:1}",
                "X{24:13,20:1,4:1} Y{12:14,1:1}",
            ),
            moves={
                "24/18 20/14": "X{24:12,18:1,16:1,14:1} Y{12:14,1:1}",
                "24/18 16/10": "X{24:12,20:1,18:1,10:1} Y{12:14,1:1}",
                "20/14 16/10": "X{24:13,14:1,10:1} Y{12:14,1:1}",
                "20/14 14/8": "X{24:13,16:1,8:1} Y{12:14,1:1}",
                "16/10 10/4": "X{24:13,20:1,4:1} Y{12:14,1:1}",
            },
            dice_used=2,
        ),
        Case(
            "crazy", "X{24:13,20:1,16:1} Y{12:14,1:1}", (6, 6), 5, label="ladder_per_value=4",
            flags={"ladder_per_value": 4},
            # Derived complete set: four 6s; h <= 1 head step (18/12 closed), a <= 3 for the M20 checker
            # (20/14/8/2), b <= 2 for the M16 checker (16/10/4), h + a + b = 4.
            results=(
                "X{24:13,10:1,2:1} Y{12:14,1:1}",
                "X{24:13,8:1,4:1} Y{12:14,1:1}",
                "X{24:12,18:1,16:1,2:1} Y{12:14,1:1}",
                "X{24:12,18:1,10:1,8:1} Y{12:14,1:1}",
                "X{24:12,18:1,14:1,4:1} Y{12:14,1:1}",
            ),
            dice_used=4,
        ),
    )),
)

SCENARIOS: tuple[Scenario, ...] = _LONG + _SIXONE + _SHORT + _GULBAR


def all_cases() -> Iterator[tuple[str, Case]]:
    """Every case with a test id (``"12 Y on M20"``), including the follow-up turns of ``Case.then``."""
    for scenario in SCENARIOS:
        for case in scenario.cases:
            ident = f"{scenario.number:02d}" + (f" {case.label}" if case.label else "")
            current: Case | None = case
            while current is not None:
                yield ident, current
                if current.then is not None:
                    ident = f"{ident} > {current.then.label}"
                current = current.then
