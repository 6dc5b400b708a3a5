"""Pictures of a position: an SVG drawing (``Position.to_svg``, shown by Jupyter) and a text board
(``str(position)``).

Both draw the board as docs/rules.md does (The board and its numberings): the side at the bottom moves
counter-clockwise, from the top right along the top, then along the bottom to its home at the bottom right, and
bears off at the bottom right. Its points are labelled in its own numbering: 13..24 along the top from the
left, 12..1 along the bottom from the left. White sits at the bottom unless ``flip=True`` puts Black there.
In the long family flipping turns the board round (Black's point *n* takes the place of White's point *n*);
in short nardy, where the sides move towards each other, it mirrors the board top to bottom.

The drawing is made of plain SVG shapes and text (no external resources, no ``id`` attributes, so that many
pictures can share one page). Its geometry, in the units of the ``viewBox`` (:data:`VIEW_WIDTH` by
:data:`VIEW_HEIGHT`), is public so that tests and callers can find a checker in a rendered picture:
:func:`point_centre`, :func:`bar_centre`, :func:`off_centre` and :func:`label_of`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Optional
from xml.sax.saxutils import escape

from .board import BAR, OFF, Step, mover_point
from .errors import NardyError, field_error
from .inputs import boolean, integer
from .notation import format_position
from .state import State

__all__ = [
    "VIEW_WIDTH",
    "VIEW_HEIGHT",
    "VISIBLE",
    "COLOURS",
    "DEFAULT_SIZE",
    "MAX_SIZE",
    "label_of",
    "point_centre",
    "bar_centre",
    "off_centre",
    "svg",
    "text_board",
]

# --- geometry (viewBox units) -------------------------------------------------------------------------------

#: Width of a point and the radius of a checker; checkers on a point are ``2 * RADIUS`` apart.
POINT_WIDTH = 40
RADIUS = 17
#: The most checkers drawn on a point (or a side's bar); a taller stack shows its count on the last one.
VISIBLE = 5
_FRAME = 10  # the wooden frame round the playing area and the tray
_LABEL = 24  # the bands above and below the board that hold the point labels
_BAR_WIDTH = 44
_TRAY_WIDTH = 56
_TRIANGLE = VISIBLE * 2 * RADIUS + 6  # a point's length: room for VISIBLE checkers
_MIDDLE = 48  # the band between the tips of the points: variant, side to move, pending values
_HALF = 6 * POINT_WIDTH

_LEFT = _FRAME  # x of the playing area's left edge
_BAR_X = _LEFT + _HALF  # x of the bar's left edge
_RIGHT = _BAR_X + _BAR_WIDTH + _HALF  # x of the playing area's right edge
_TRAY_X = _RIGHT + _FRAME
_TOP = _LABEL  # y of the playing area's top edge
_BOTTOM = _TOP + 2 * _TRIANGLE + _MIDDLE  # y of its bottom edge
_MID_Y = (_TOP + _BOTTOM) / 2
_SLAB = 10  # a borne-off checker is a slab seen edge-on, this far from the next

#: The ``viewBox`` of every picture: ``0 0 VIEW_WIDTH VIEW_HEIGHT``.
VIEW_WIDTH = _TRAY_X + _TRAY_WIDTH + _FRAME
VIEW_HEIGHT = _BOTTOM + _LABEL

#: The default width of a picture in pixels, and the largest allowed.
DEFAULT_SIZE = 600
MAX_SIZE = 100_000

#: The fills of the picture: ``board`` is the playing area, ``point_a``/``point_b`` the points (alternating),
#: ``white``/``black`` the checkers.
COLOURS: dict[str, str] = {
    "frame": "#5a3a22",
    "board": "#ecd9b0",
    "point_a": "#a5442f",
    "point_b": "#3f6e5e",
    "bar": "#4e321d",
    "tray": "#3b2414",
    "white": "#f6f1e6",
    "black": "#1e1e1e",
    "white_edge": "#4a4a4a",
    "black_edge": "#9a9a9a",
    "label": "#f3e6c8",
    "text": "#2b1d10",
    "arrow": "#d62728",
}


def _column(label: int) -> int:
    """The column (0..11 from the left) of the point labelled ``label`` (1..24): 13..24 run left to right
    along the top, 12..1 left to right along the bottom."""
    return label - 13 if label >= 13 else 12 - label


def _column_x(column: int) -> float:
    """x of the centre of a column of points."""
    gap = _BAR_WIDTH if column >= 6 else 0
    return _LEFT + gap + column * POINT_WIDTH + POINT_WIDTH / 2


def label_of(white_point: int, variant: str, flip: bool = False) -> int:
    """The label of White's point ``white_point`` (1..24): its number in the numbering of the side drawn at
    the bottom (White's, or Black's when ``flip``)."""
    return mover_point(variant, white_point) if flip else white_point


def point_centre(label: int, index: int) -> tuple[float, float]:
    """The centre of the ``index``-th checker (0 at the point's base, up to ``VISIBLE - 1``) on the point
    labelled ``label`` (1..24, see :func:`label_of`)."""
    x = _column_x(_column(label))
    offset = 1 + RADIUS + 2 * RADIUS * index
    return (x, _TOP + offset if label >= 13 else _BOTTOM - offset)


def bar_centre(bottom_side: bool, index: int) -> tuple[float, float]:
    """The centre of the ``index``-th checker (0 nearest the edge) on the bar of the side at the bottom
    (``bottom_side``) or of the side at the top. A side's checkers wait in the half of the bar next to the
    quarter where they enter: the bottom side's in the upper half."""
    x = _BAR_X + _BAR_WIDTH / 2
    offset = 1 + RADIUS + 2 * RADIUS * index
    return (x, _TOP + offset if bottom_side else _BOTTOM - offset)


def off_centre(bottom_side: bool, index: int) -> tuple[float, float]:
    """The centre of the ``index``-th borne-off checker (0 nearest the edge) of the side at the bottom
    (``bottom_side``, in the lower half of the tray) or at the top (upper half)."""
    x = _TRAY_X + _TRAY_WIDTH / 2
    offset = 4 + _SLAB / 2 + _SLAB * index
    return (x, _BOTTOM - offset if bottom_side else _TOP + offset)


# --- SVG --------------------------------------------------------------------------------------------------


def _n(value: float) -> str:
    """A coordinate as short, stable text (two decimals at most)."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _checker(x: float, y: float, colour: str, radius: int = RADIUS) -> str:
    return (
        f'<circle cx="{_n(x)}" cy="{_n(y)}" r="{radius}" fill="{COLOURS[colour]}" '
        f'stroke="{COLOURS[colour + "_edge"]}" stroke-width="1.5"/>'
    )


def _count(x: float, y: float, count: int, colour: str) -> str:
    """A stack's count, written on its last drawn checker in the other colour."""
    ink = COLOURS["black" if colour == "white" else "white"]
    return (
        f'<text class="count" x="{_n(x)}" y="{_n(y + 6)}" font-family="sans-serif" font-size="17" '
        f'font-weight="bold" text-anchor="middle" fill="{ink}">{count}</text>'
    )


def _stack(centres: Sequence[tuple[float, float]], count: int, colour: str) -> list[str]:
    """``count`` checkers at ``centres`` (at most ``VISIBLE`` drawn), the count on the last when more."""
    shown = [_checker(x, y, colour) for x, y in centres[: min(count, VISIBLE)]]
    if count > VISIBLE:
        shown.append(_count(*centres[VISIBLE - 1], count, colour))
    return shown


def _text(x: float, y: float, text: str, *, anchor: str = "start", size: int = 14, fill: str = "text") -> str:
    return (
        f'<text x="{_n(x)}" y="{_n(y)}" font-family="sans-serif" font-size="{size}" text-anchor="{anchor}" '
        f'fill="{COLOURS[fill]}">{escape(text)}</text>'
    )


def _unit(dx: float, dy: float) -> tuple[float, float, float]:
    """The direction of ``(dx, dy)`` and its length."""
    length = max((dx * dx + dy * dy) ** 0.5, 1e-9)
    return dx / length, dy / length, length


def _arrow(start: tuple[float, float], end: tuple[float, float], step: Step) -> str:
    """An arrow from ``start`` to ``end``: a curve bent to the left of its travel (so that a checker going
    back and forth along one row, such as ``bar/21* 21/20``, gets two arrows apart) and a head drawn as a
    polygon (no markers, no ids)."""
    (x1, y1), (x2, y2) = start, end
    ux, uy, length = _unit(x2 - x1, y2 - y1)
    bend = min(0.3 * length, 60.0)
    # (uy, -ux) points to the left of the travel on the screen, whose y axis points down
    cx, cy = (x1 + x2) / 2 + uy * bend, (y1 + y2) / 2 - ux * bend
    tx, ty, _ = _unit(x2 - cx, y2 - cy)  # the curve's direction where it ends
    head, half = 16.0, 8.0
    bx, by = x2 - tx * head, y2 - ty * head  # the middle of the head's base
    corners = [(x2, y2), (bx - ty * half, by + tx * half), (bx + ty * half, by - tx * half)]
    points = " ".join(f"{_n(x)},{_n(y)}" for x, y in corners)
    colour = COLOURS["arrow"]
    return (
        f'<g class="arrow" data-step="{escape(str(step))}" opacity="0.85">'
        f'<path d="M {_n(x1)} {_n(y1)} Q {_n(cx)} {_n(cy)} {_n(bx)} {_n(by)}" fill="none" stroke="{colour}" '
        f'stroke-width="5" stroke-linecap="round"/><polygon points="{points}" fill="{colour}"/></g>'
    )


def _arrows(state: State, steps: Sequence[Step], flip: bool) -> list[str]:
    """One arrow per step, from the checker that moves to where it lands, following the stacks as the
    steps are played one after the other."""
    mover = state.turn
    sign = 1 if mover == "white" else -1
    mine = [max(0, sign * count) for count in state.board]  # the mover's checkers per White point
    bar = state.bar[0 if mover == "white" else 1]
    off = state.off[0 if mover == "white" else 1]
    bottom = (mover == "white") != flip  # whether the mover sits at the bottom of the picture
    drawn: list[str] = []
    for step in steps:
        if step.src == BAR:
            bar -= 1
            start = bar_centre(bottom, min(bar, VISIBLE - 1))
        else:
            src = step.src if mover == "white" else mover_point(state.variant, step.src)
            mine[src - 1] -= 1
            start = point_centre(label_of(src, state.variant, flip), min(mine[src - 1], VISIBLE - 1))
        if step.dst == OFF:
            end = off_centre(bottom, min(off, 14))
            off += 1
        else:
            dst = step.dst if mover == "white" else mover_point(state.variant, step.dst)
            end = point_centre(label_of(dst, state.variant, flip), min(mine[dst - 1], VISIBLE - 1))
            mine[dst - 1] += 1
        drawn.append(_arrow(start, end, step))
    return drawn


_NAMES = {
    "long": "long nardy",
    "sixone": "six-one nardy",
    "short": "short nardy",
    "gulbar": "gulbar",
    "crazy": "crazy gulbar",
}


def _status(state: State) -> tuple[str, str]:
    """The side to move (or the result) and the pending list, for the middle band."""
    if 15 in state.off:
        winner = "White" if state.off[0] == 15 else "Black"
        return (f"{winner} has won", "")
    turn = state.turn.capitalize()
    pending = f"pending {' '.join(map(str, state.pending))}" if state.pending else ""
    return (f"{turn} to move", pending)


def _first_rolls(state: State) -> str:
    sides = [name for name, first in zip(("White", "Black"), state.first_roll) if first]
    return f"first roll to come: {' and '.join(sides)}" if sides else ""


def svg(
    state: State, steps: Optional[Sequence[Step]] = None, flip: object = False, size: object = DEFAULT_SIZE
) -> str:
    """The SVG picture of ``state`` (see the module docstring), with an arrow for each of ``steps`` (a legal
    move's steps, in the mover's numbering), ``size`` pixels wide.

    Raises :class:`~nardy_fast.NardyError` naming ``flip`` or ``size`` for a ``flip`` that is no boolean or a
    ``size`` that is no integer 1..:data:`MAX_SIZE`.
    """
    flipped = boolean(flip)
    if flipped is None:
        raise field_error(NardyError, "flip", "must be True or False", flip)
    width = integer(size)
    if width is None or not 1 <= width <= MAX_SIZE:
        raise field_error(NardyError, "size", f"must be an integer 1..{MAX_SIZE} (the width in pixels)", size)
    height = max(1, round(width * VIEW_HEIGHT / VIEW_WIDTH))
    variant = state.variant
    bottom = "black" if flipped else "white"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {VIEW_WIDTH} {VIEW_HEIGHT}">',
        f"<title>{escape(format_position(state))}</title>",
        f'<rect x="0" y="0" width="{VIEW_WIDTH}" height="{VIEW_HEIGHT}" fill="{COLOURS["frame"]}"/>',
        f'<rect x="{_LEFT}" y="{_TOP}" width="{_RIGHT - _LEFT}" height="{_BOTTOM - _TOP}" '
        f'fill="{COLOURS["board"]}"/>',
        f'<rect x="{_BAR_X}" y="{_TOP}" width="{_BAR_WIDTH}" height="{_BOTTOM - _TOP}" fill="{COLOURS["bar"]}"/>',
        f'<rect x="{_TRAY_X}" y="{_TOP}" width="{_TRAY_WIDTH}" height="{_BOTTOM - _TOP}" '
        f'fill="{COLOURS["tray"]}"/>',
    ]
    # the points and their labels
    for label in range(1, 25):
        column = _column(label)
        x = _column_x(column)
        left, right = x - POINT_WIDTH / 2, x + POINT_WIDTH / 2
        upper = label >= 13
        base, tip = (_TOP, _TOP + _TRIANGLE) if upper else (_BOTTOM, _BOTTOM - _TRIANGLE)
        fill = COLOURS["point_a" if (column + upper) % 2 else "point_b"]
        parts.append(
            f'<polygon points="{_n(left)},{_n(base)} {_n(right)},{_n(base)} {_n(x)},{_n(tip)}" fill="{fill}"/>'
        )
        label_y = _TOP - 7 if upper else _BOTTOM + 17
        parts.append(_text(x, label_y, str(label), anchor="middle", size=13, fill="label"))
    # the checkers on the points
    for white_point, count in enumerate(state.board, start=1):
        if count:
            label = label_of(white_point, variant, flipped)
            centres = [point_centre(label, i) for i in range(VISIBLE)]
            parts.extend(_stack(centres, abs(count), "white" if count > 0 else "black"))
    # the bar and the borne-off checkers, each side in its half
    for side, index in (("white", 0), ("black", 1)):
        at_bottom = side == bottom
        parts.extend(_stack([bar_centre(at_bottom, i) for i in range(VISIBLE)], state.bar[index], side))
        tray_x = _TRAY_X + _TRAY_WIDTH / 2
        for i in range(state.off[index]):
            _, y = off_centre(at_bottom, i)
            parts.append(
                f'<rect class="off" x="{_n(tray_x - 20)}" y="{_n(y - _SLAB / 2 + 1)}" width="40" '
                f'height="{_SLAB - 2}" rx="2" fill="{COLOURS[side]}" stroke="{COLOURS[side + "_edge"]}" '
                'stroke-width="1"/>'
            )
        if state.off[index]:
            count_y = _MID_Y + 18 if at_bottom else _MID_Y - 8
            parts.append(
                _text(tray_x, count_y, f"off {state.off[index]}", anchor="middle", size=12, fill="label")
            )
    # the middle band: variant and first rolls on the left, side to move and pending values on the right
    status, pending = _status(state)
    parts.append(_text(_LEFT + 8, _MID_Y - 5, _NAMES[variant]))
    first = _first_rolls(state)
    if first:
        parts.append(_text(_LEFT + 8, _MID_Y + 15, first, size=12))
    marker_x = _BAR_X + _BAR_WIDTH + 18
    if 15 not in state.off:
        parts.append(_checker(marker_x, _MID_Y - 10, state.turn, radius=8))
    parts.append(_text(marker_x + 14, _MID_Y - 5, status))
    if pending:
        parts.append(_text(marker_x + 14, _MID_Y + 15, pending, size=12))
    parts.extend(_arrows(state, steps or (), flipped))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


# --- text ---------------------------------------------------------------------------------------------------


def _cell(count: int) -> str:
    return "." if count == 0 else f"{abs(count)}{'w' if count > 0 else 'b'}"


def text_board(state: State) -> str:
    """A few lines showing ``state`` as docs/rules.md draws boards: White's numbering, White's home at the
    bottom right, ``15w`` for a stack of 15 White checkers, then the bar, borne-off checkers, the side to move
    and the pending list."""
    status, pending = _status(state)

    def row(cells: Sequence[str]) -> str:
        left = " ".join(f"{c:>3}" for c in cells[:6])
        right = " ".join(f"{c:>3}" for c in cells[6:])
        return f"  {left} | {right}".rstrip()

    top = list(range(13, 25))
    bottom = list(range(12, 0, -1))
    lines = [
        f"{_NAMES[state.variant]}: {status}" + (f", {pending}" if pending else ""),
        row([str(p) for p in top]),
        row([_cell(state.board[p - 1]) for p in top]),
        row([_cell(state.board[p - 1]) for p in bottom]),
        row([str(p) for p in bottom]),
    ]
    if state.bar != (0, 0):
        lines.append(f"bar: White {state.bar[0]}, Black {state.bar[1]}")
    lines.append(f"off: White {state.off[0]}, Black {state.off[1]}")
    first = _first_rolls(state)
    if first and 15 not in state.off:
        lines.append(first)
    return "\n".join(lines)
