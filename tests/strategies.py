"""Hypothesis strategies for the differential tests (``test_differential.py``).

* :func:`specs`: valid positions of every variant with every rule flag, aimed at the corners where two move
  generators can disagree: bar entries and hits (short), bear-off, runs across the M1|M24 junction, head
  stacks and first rolls, pending transfer lists of every shape (gulbar, crazy), finished games.
* :func:`bad_boards`, :func:`bad_texts`, :func:`junk`: input that is mostly invalid, built by corrupting
  valid positions so that it reaches every check.

Positions are drawn in the mover's own numbering (docs/rules.md, The mover's numbering: X moves M24 → M1, home M1..M6) and mapped to
White's numbering here, independently of the package's own mapping.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import NamedTuple, TypeVar

from hypothesis import assume
from hypothesis import strategies as st

from nardy_fast.errors import InvalidPositionError
from nardy_fast.notation import format_position
from nardy_fast.position import Position
from nardy_fast.state import make_state
from nardy_fast.variants import FLAG_SPECS, START_BOARDS, VARIANTS

__all__ = [
    "Roll",
    "Spec",
    "bad_boards",
    "bad_texts",
    "dice_count",
    "doubles",
    "flag_sets",
    "junk",
    "rolls",
    "specs",
    "start_specs",
]

Roll = tuple[int, int]
P = TypeVar("P", bound=Position)

LONG_FAMILY = frozenset({"long", "sixone", "gulbar", "crazy"})
HEAD = 24
FLAG_NAMES = tuple(flag.name for flag in FLAG_SPECS)
#: Where the mover's checkers go (mover's numbering): anywhere, home only (bear-off), a window of Y's track
#: across the M1|M24 junction (blocks there), the far quarter next to the head.
X_REGIONS: tuple[tuple[int, ...], ...] = (
    tuple(range(1, 25)),
    tuple(range(1, 7)),
    (5, 4, 3, 2, 1, 24, 23, 22, 21),
    tuple(range(13, 25)),
)
#: Where the opponent's checkers go: anywhere, its home (short: the mover's entry points M19..M24, so that
#: entries hit or are closed), and a window across its own junction (its M1|M24 = the mover's M13|M12).
Y_REGIONS: Mapping[bool, tuple[tuple[int, ...], ...]] = {
    False: (tuple(range(1, 25)), tuple(range(13, 19)), (16, 15, 14, 13, 12, 11, 10, 9)),
    True: (tuple(range(1, 25)), tuple(range(19, 25)), tuple(range(1, 7))),
}


def movable_cap(values: int) -> int:
    """How many checkers off the head the mover may have for a dice list of ``values`` values: a crazy ladder
    or a long pending list with many checkers free to move takes the reference many seconds (docs/rules.md, Crazy gulbar ladders)."""
    return 15 if values <= 4 else 3 if values <= 8 else 2


_FLAG_VALUES: Mapping[str, st.SearchStrategy[object]] = {
    "block_check": st.sampled_from(["end_of_turn", "per_step"]),
    "ladder_per_value": st.sampled_from([2, 4]),
    "first_roll_exception_doubles": st.lists(st.integers(1, 6), unique=True, max_size=6).map(tuple),
    "sixone_extra_roll_requires_play": st.booleans(),
    "normal_doubles_first_rolls": st.sampled_from([0, 3]),
}


class Spec(NamedTuple):
    """The arguments of ``Position.from_board`` for one valid position."""

    variant: str
    board: tuple[int, ...]
    turn: str
    bar: tuple[int, int]
    off: tuple[int, int]
    first_roll: tuple[bool, bool]
    pending: tuple[int, ...]
    flags: Mapping[str, object]

    def build(self, cls: type[P]) -> P:
        """The position, built by implementation ``cls``."""
        return cls.from_board(
            self.variant,
            self.board,
            turn=self.turn,
            bar=self.bar,
            off=self.off,
            first_roll=self.first_roll,
            pending=self.pending,
            rolls_played=(0, 0),
            **self.flags,
        )


def _white_point(variant: str, turn: str, point: int) -> int:
    """White's number of the mover's point ``point`` (docs/rules.md, The mover's numbering)."""
    if turn == "white":
        return point
    if variant in LONG_FAMILY:
        return point + 12 if point <= 12 else point - 12
    return 25 - point


def _per_value(flags: Mapping[str, object]) -> int:
    """Flag ``ladder_per_value`` (docs/rules.md, Rule flags), 2 unless given."""
    value = flags.get("ladder_per_value", 2)
    assert isinstance(value, int)
    return value


def dice_count(variant: str, roll: Roll | None, pending: Sequence[int], flags: Mapping[str, object]) -> int:
    """How many values the move may play (docs/rules.md, Rolls and the dice list): 2, 4 for a double, a crazy ladder, or the pending list."""
    if roll is None:
        return len(pending)
    if roll[0] != roll[1]:
        return 2
    return _per_value(flags) * (7 - roll[0]) if variant == "crazy" else 4


def rolls() -> st.SearchStrategy[Roll]:
    """Two die values, in either order."""
    return st.tuples(st.integers(1, 6), st.integers(1, 6))


def doubles() -> st.SearchStrategy[Roll]:
    """A double: four steps, a crazy ladder, or a first-roll head exception (docs/rules.md, Rolls and the dice list; First-roll exception)."""
    return st.integers(1, 6).map(lambda d: (d, d))


def flag_sets(variant: str) -> st.SearchStrategy[dict[str, object]]:
    """Any subset of the flags that apply to ``variant``, each with any valid value (docs/rules.md, Rule flags)."""
    names = [flag.name for flag in FLAG_SPECS if variant in flag.variants]
    return st.fixed_dictionaries({}, optional={name: _FLAG_VALUES[name] for name in names})


#: The shapes of a transfer list (docs/rules.md, Gulbar transfers).
PENDING_SHAPES = ("none", "one value", "two values", "run")


def pending_list(rng: random.Random, variant: str, shape: str, per_value: int) -> tuple[int, ...]:
    """A transfer list of ``shape``: nothing, one value, two different values (either order), or a run: 2..4
    equal values (gulbar) or a suffix of a crazy ladder of any length."""
    if shape == "none" or variant not in ("gulbar", "crazy"):
        return ()
    if shape == "one value":
        return (rng.randint(1, 6),)
    if shape == "two values":
        return tuple(rng.sample(range(1, 7), 2))
    if variant == "gulbar":
        return (rng.randint(1, 6),) * rng.randint(2, 4)
    ladder = tuple(v for v in range(1, 7) for _ in range(per_value))
    return ladder[-rng.randint(1, len(ladder)) :]


def _spread(
    rng: random.Random, total: int, region: Sequence[int], taken: Mapping[int, int]
) -> dict[int, int]:
    """``total`` checkers on distinct points of ``region`` not in ``taken`` (anywhere free if it is full)."""
    free = [p for p in region if p not in taken] or [p for p in range(1, 25) if p not in taken]
    if total == 0:
        return {}
    points = rng.sample(free, rng.randint(1, min(total, len(free))))
    counts = dict.fromkeys(points, 1)
    for _ in range(total - len(points)):
        counts[rng.choice(points)] += 1
    return counts


@st.composite
def specs(draw: st.DrawFn, variants: Sequence[str] = VARIANTS) -> tuple[Spec, Roll | None]:
    """A valid position and the roll to play in it (``None`` when it has a pending list).

    Hypothesis draws the kind of position (variant, flags, finished or not, pending shape, roll, regions, side
    to move, first rolls); the counts and the layout come from a ``random.Random`` it seeds, which spreads them
    evenly and costs far less than one draw each.
    """
    variant = draw(st.sampled_from(variants))
    short = variant == "short"
    flags = draw(flag_sets(variant))
    finished = draw(st.booleans()) and draw(st.booleans()) and draw(st.booleans())
    shape = draw(st.sampled_from(PENDING_SHAPES))
    x_region, y_region = draw(st.sampled_from(X_REGIONS)), draw(st.sampled_from(Y_REGIONS[short]))
    rng = random.Random(draw(st.integers(0, 1 << 32)))
    off = (rng.choice((0, rng.randint(0, 14))), 15 if finished else rng.choice((0, rng.randint(0, 14))))
    pending = () if finished else pending_list(rng, variant, shape, _per_value(flags))
    roll = None if pending else draw(st.one_of(rolls(), doubles()))
    bar = (rng.choice((0, 0, 1, 2, 3)), rng.choice((0, 0, 1, 2, 3))) if short else (0, 0)
    bar = (min(bar[0], 15 - off[0]), min(bar[1], 15 - off[1]))
    x_total, y_total = 15 - off[0] - bar[0], 15 - off[1] - bar[1]
    head = rng.choice((0, rng.randint(0, x_total)))
    head = max(head, x_total - movable_cap(dice_count(variant, roll, pending, flags)))
    x = _spread(rng, x_total - head, x_region, {HEAD: head} if head else {})
    if head:
        x[HEAD] = head
    y = _spread(rng, y_total, y_region, x)
    turn = draw(st.sampled_from(["white", "black"]))
    board = [0] * 24
    x_sign = 1 if turn == "white" else -1
    for sign, side in ((x_sign, x), (-x_sign, y)):
        for point, count in side.items():
            board[_white_point(variant, turn, point) - 1] = sign * count
    mover_first = (draw(st.booleans()), draw(st.booleans()))
    first_roll = mover_first if turn == "white" else (mover_first[1], mover_first[0])
    spec = Spec(
        variant,
        tuple(board),
        turn,
        bar if turn == "white" else (bar[1], bar[0]),
        off if turn == "white" else (off[1], off[0]),
        first_roll,
        pending,
        flags,
    )
    try:
        make_state(*spec[:7], spec.flags)
    except InvalidPositionError:
        assume(False)  # an illegal block (docs/rules.md, Block rule)
    return spec, roll


@st.composite
def start_specs(draw: st.DrawFn) -> tuple[Spec, Roll | None]:
    """The start position of any variant (docs/rules.md, Long family board; Short nardy board) with any flags, and a roll."""
    variant = draw(st.sampled_from(VARIANTS))
    board = START_BOARDS[variant]
    flags = draw(flag_sets(variant))
    return Spec(variant, board, "white", (0, 0), (0, 0), (True, True), (), flags), draw(
        st.one_of(rolls(), doubles())
    )


def junk() -> st.SearchStrategy[object]:
    """Values of the wrong type or range for any argument."""
    scalar = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-20, 30),
        st.floats(allow_nan=False),
        st.text(max_size=6),
        st.sampled_from([*VARIANTS, "white", "black", "per_step", "end_of_turn"]),
    )
    return st.one_of(
        scalar, st.lists(scalar, max_size=4), st.lists(st.integers(-16, 16), max_size=26).map(tuple)
    )


@st.composite
def bad_boards(draw: st.DrawFn) -> dict[str, object]:
    """Keyword arguments of ``from_board`` (``variant`` and ``board`` included): a valid position with 1..3
    fields replaced by junk or by near-valid values (a count moved, a flag for another variant or with a bad
    value, a pending list of a wrong shape)."""
    spec, _ = draw(specs())
    args: dict[str, object] = {name: value for name, value in spec._asdict().items() if name != "flags"}
    args.update(spec.flags)
    moved = st.tuples(st.integers(0, 23), st.integers(-2, 2)).map(
        lambda change: tuple(c + change[1] * (i == change[0]) for i, c in enumerate(spec.board))
    )
    replacements = st.one_of(
        st.tuples(st.just("board"), moved),
        st.tuples(st.sampled_from(["bar", "off"]), st.tuples(st.integers(-1, 16), st.integers(-1, 16))),
        st.tuples(st.just("pending"), st.lists(st.integers(0, 7), max_size=25)),
        st.tuples(st.sampled_from([*FLAG_NAMES, "colour"]), junk()),
        st.tuples(
            st.sampled_from(["variant", "board", "turn", "bar", "off", "first_roll", "pending"]), junk()
        ),
    )
    for name, value in draw(st.lists(replacements, min_size=1, max_size=3)):
        args[name] = value
    return args


@st.composite
def bad_texts(draw: st.DrawFn) -> object:
    """Position texts: a valid text with tokens replaced, dropped or added, or not a text at all."""
    spec, _ = draw(specs())
    parts = format_position(make_state(*spec[:7], spec.flags)).split()
    pieces = st.one_of(
        st.sampled_from(parts),
        st.text(alphabet="0123456789:,-=/wbx ", max_size=8),
        st.sampled_from(["bar=1/0", "off=15/15", "first=x", "pending=", "pending=7", "speed=9", "first=w"]),
        st.sampled_from(
            [f"{name}={value}" for name in FLAG_NAMES for value in ("4", "true", "-", "61", "per_step")]
        ),
    )
    for _ in range(draw(st.integers(1, 3))):
        action = draw(st.sampled_from(["replace", "drop", "add"]))
        index = draw(st.integers(0, max(len(parts) - 1, 0)))
        if action == "add" or not parts:
            parts.insert(index, draw(pieces))
        elif action == "drop":
            del parts[index]
        else:
            parts[index] = draw(pieces)
    return draw(st.one_of(st.just(" ".join(parts)), junk()))
