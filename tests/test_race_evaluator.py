"""The built-in evaluator "race" (nardy_fast.evaluation.race_formula; its tables from
nardy_fast.evaluation.race): the core's C function and the reference's twin give the same floats on races of
every variant; on bear-off positions they give the values of the bear-off package
(nardy_fast.bearoff.race_probabilities, an independent code path) or, with small tables, of the tables' own
methods, and the formula beyond the tables; the formula's values are sane (a side far ahead wins, outputs
nested, colour-blind); positions in contact are refused; the constants table of the module docstring is the
one the code uses, and the engine's module still names the facts."""

from __future__ import annotations

import re
from functools import cache

import numpy as np
import numpy.typing as npt
import pytest

import nardy_fast
from nardy_fast import Greedy, layout
from nardy_fast._core import evaluate_rows
from nardy_fast.bearoff.values import race_probabilities
from nardy_fast.board import mover_point
from nardy_fast.core import Position as CorePosition
from nardy_fast.errors import NardyError
from nardy_fast.evaluation import race as race_module
from nardy_fast.evaluation import race_formula
from nardy_fast.evaluation.builtin import Builtin
from nardy_fast.evaluation.outcomes import EVALUATORS
from nardy_fast.evaluation.race import CONSTANTS, KEYS, RaceTables, build_tables, race_tables
from nardy_fast.evaluation.search import Search, equity_of, ranking
from nardy_fast.kernels import kernels_named
from nardy_fast.reference.race_eval import race_evaluate
from nardy_fast.variants import VARIANTS

KIND = EVALUATORS.index("race")
CORE = kernels_named("cython")
REFERENCE = kernels_named("python")
Rows = npt.NDArray[np.int8]

# every kind of dice: (variant, flags); long and short nardy share theirs
CASES = [
    ("long", {}),
    ("sixone", {}),
    ("short", {}),
    ("gulbar", {}),
    ("crazy", {}),
    ("crazy", {"ladder_per_value": 4}),
]


@cache
def core_tables(variant: str, ladder4: bool = False, checkers: int = 15, two_sided: int = 6) -> RaceTables:
    """The core's tables (the full ones for long and short nardy, where the 15-checker mars sums are
    checked; smaller elsewhere, to keep the file quick: larger bear-offs then go to the formula)."""
    flags: dict[str, object] = {"ladder_per_value": 4} if ladder4 else {}
    return build_tables(
        CORE.name, CORE.one_sided, CORE.two_sided, variant, flags, checkers, two_sided
    )


def tables_of(variant: str, flags: dict[str, object]) -> RaceTables:
    full = variant in ("long", "short")
    return core_tables(variant, bool(flags), 15 if full else 9, 6)


def core_values(rows: Rows, tables: object) -> tuple[int, npt.NDArray[np.float64]]:
    out = np.full((len(rows), 5), np.nan)
    bad = evaluate_rows(np.ascontiguousarray(rows, dtype=np.int8), KIND, tables, out)
    return bad, out


def twin_values(rows: Rows, tables: object) -> npt.NDArray[np.float64]:
    return np.array([race_evaluate(row, tables) for row in rows]).reshape(-1, 5)


@cache
def game_races(variant: str, ladder4: bool = False, games: int = 12, seed: int = 23) -> Rows:
    """The unfinished races of random games."""
    if ladder4:
        _, played = nardy_fast.playout(variant, games, seed=seed, trajectories=True, ladder_per_value=4)
    else:
        _, played = nardy_fast.playout(variant, games, seed=seed, trajectories=True)
    rows = played.rows
    return np.ascontiguousarray(rows[layout.is_race(rows) & ~layout.is_over(rows)])


def text_row(text: str) -> Rows:
    return CorePosition.from_text(text).to_array()


def random_races(variant: str, count: int, seed: int, flags: str = "") -> Rows:
    """Random unfinished races (some of them bear-offs, some with pending lists where the variant has
    transfers): checkers spread over each side's own points 1..12 (long family) or, in short nardy, White's
    below Black's."""
    rng = np.random.default_rng(seed)
    rows: list[npt.NDArray[np.int8]] = []
    transfers = variant in ("gulbar", "crazy")
    ladder = (
        {"gulbar": "4,4,4", "crazy": "4,4,5,5,6,6"} if "ladder" not in flags else {"crazy": "5,5,5,5,6,6,6,6"}
    )
    pendings = ["5", "6,2", "1", ladder.get(variant, "")]
    while len(rows) < count:
        off = rng.integers(0, 15, 2)
        if rng.random() < 0.3:
            off[rng.integers(0, 2)] = 0  # a side that can still lose a mars
        board = [0] * 24
        top = int(rng.choice([6, 9, 12]))
        if variant == "short":
            low, high = (6, 18) if top == 6 else (int(rng.integers(1, 24)),) * 2  # a bear-off, or a split
            for _ in range(15 - off[0]):
                board[int(rng.integers(0, low))] += 1
            for _ in range(15 - off[1]):
                board[int(rng.integers(high, 24))] -= 1
        else:
            for _ in range(15 - off[0]):
                board[int(rng.integers(0, top))] += 1
            for _ in range(15 - off[1]):
                board[mover_point(variant, int(rng.integers(1, top + 1))) - 1] -= 1
        points = ",".join(f"{i + 1}:{v}" for i, v in enumerate(board) if v)
        turn = "wb"[int(rng.integers(0, 2))]
        pending = (
            f" pending={pendings[int(rng.integers(0, len(pendings)))]}"
            if transfers and rng.random() < 0.3
            else ""
        )
        rows.append(text_row(f"{variant} {turn} {points} off={off[0]}/{off[1]} first=-{pending}{flags}"))
    return np.stack(rows)


def swapped(row: Rows) -> Rows:
    """The same position with the colours exchanged: each side's checkers on the other's own points."""
    variant = VARIANTS[int(row[layout.VARIANT])]
    out = row.copy()
    board = row[layout.BOARD : layout.BOARD + 24].astype(int)
    new = [0] * 24
    for m in range(1, 25):
        black_column = mover_point(variant, m) - 1
        if board[m - 1] > 0:
            new[black_column] = -board[m - 1]
        if board[black_column] < 0:
            new[m - 1] = -board[black_column]
    out[layout.BOARD : layout.BOARD + 24] = new
    for column in (layout.BAR, layout.OFF, layout.FIRST_ROLL, layout.ROLLS_PLAYED):
        out[column], out[column + 1] = row[column + 1], row[column]
    out[layout.TURN] = 1 - row[layout.TURN]
    return out


def nested(values: npt.NDArray[np.float64]) -> bool:
    win, win_mars, win_koks, lose_mars, lose_koks = values.T
    return bool(
        ((values >= 0) & (values <= 1)).all()
        and (win_koks <= win_mars).all()
        and (win_mars <= win).all()
        and (lose_koks <= lose_mars).all()
        and (lose_mars <= 1 - win).all()
    )


@pytest.mark.parametrize(("variant", "flags"), CASES)
def test_core_and_twin_agree_exactly(variant: str, flags: dict[str, object]) -> None:
    # the same float operations in the same order in C and in Python: equal to the last bit
    ladder = " ladder_per_value=4" if flags else ""
    rows = np.concatenate(
        [game_races(variant, bool(flags)), random_races(variant, 150, seed=len(variant), flags=ladder)]
    )
    bearoffs = layout.is_bearoff(rows) & (rows[:, layout.NPENDING] == 0)
    assert bearoffs.sum() > 20 and (~bearoffs).sum() > 20  # both the tables and the formula are checked
    for tables in (tables_of(variant, flags), None):
        bad, core = core_values(rows, tables)
        assert bad == -1
        twin = twin_values(rows, tables)
        assert np.array_equal(core, twin), np.argwhere(core != twin)[:5]
        assert nested(core)
    if variant == "short":  # koks estimates were reached
        assert (core[:, 2] > 0).any() or (core[:, 4] > 0).any()


@pytest.mark.parametrize("variant", ["long", "gulbar", "short"])
def test_bearoffs_are_the_bearoff_packages_values(variant: str) -> None:
    # full tables: the values of race_probabilities (its convolution sums with NumPy, hence 1e-12)
    tables = core_tables(variant)
    home = 19 if variant == "short" else 13  # Black's own 1-point
    mars = [f"{variant} {t} 2:1,5:2,{home}:-3,{home + 3}:-12 off=12/0 first=-" for t in "wb"]
    rows = np.concatenate(
        [game_races(variant), random_races(variant, 120, seed=7), [text_row(m) for m in mars]]
    )
    rows = rows[layout.is_bearoff(rows) & (rows[:, layout.NPENDING] == 0)]
    expected = []
    for row in rows:
        found = race_probabilities(CorePosition.from_array(row))
        expected.append((found.win, found.win_mars, 0.0, found.lose_mars, 0.0))
    bad, core = core_values(rows, tables)
    assert bad == -1
    np.testing.assert_allclose(core, np.array(expected), rtol=0, atol=1e-12)
    assert (core[:, 1] > 0).any() and (core[:, 3] > 0).any()  # some mars sums were checked
    np.testing.assert_array_equal(twin_values(rows, tables), core)


def test_a_mars_derived_by_hand() -> None:
    # docs/rules.md, Bear-off tables: White's last checker on its 6-point against Black's 15 on its 6-point
    # wins surely, with a mars 0.75 + 0.25 * 19 / 36
    row = text_row("long w 6:1,18:-15 off=14/0 first=-")
    _, core = core_values(row[None, :], core_tables("long"))
    np.testing.assert_allclose(core[0], [1.0, 0.75 + 0.25 * 19 / 36, 0.0, 0.0, 0.0], rtol=0, atol=1e-12)
    # one checker on the 6-point against one on the ace: exact two-sided 0.75 (27 rolls of 36 bear it off)
    row = text_row("long w 6:1,13:-1 off=14/14 first=-")
    _, core = core_values(row[None, :], core_tables("long"))
    assert core[0].tolist() == [0.75, 0.0, 0.0, 0.0, 0.0]


def test_small_tables_serve_small_bearoffs_and_leave_the_rest_to_the_formula() -> None:
    three = core_tables("long", False, 3, 2)
    assert [None if a is None else a.shape for a in three] == [(84, 33), (84, 33), (28, 28)]
    two = nardy_fast.core.two_sided("long", checkers=2)
    one = nardy_fast.core.one_sided("long", checkers=3)
    # two a side: the two-sided table
    row = text_row("long w 1:1,5:1,14:-1,18:-1 off=13/13 first=-")
    assert race_evaluate(row, three) == (
        two.win_probability([1, 0, 0, 0, 1, 0], [0, 1, 0, 0, 0, 1]),
        0.0,
        0.0,
        0.0,
        0.0,
    )
    # three against two: the one-sided convolution (its NumPy sums: 1e-12)
    row = text_row("long w 1:1,4:2,14:-1,18:-1 off=12/13 first=-")
    single, win_mars, _, lose_mars = one.race_probabilities([1, 0, 0, 2, 0, 0], [0, 1, 0, 0, 0, 1])
    np.testing.assert_allclose(race_evaluate(row, three), [single + win_mars, 0, 0, lose_mars, 0], atol=1e-12)
    # four: beyond the tables, the formula (the value without tables)
    row = text_row("long w 1:1,4:3,14:-1,18:-1 off=11/13 first=-")
    assert race_evaluate(row, three) == race_evaluate(row, None)
    assert race_evaluate(row, three) != race_evaluate(
        text_row("long w 1:1,4:2,14:-1,18:-1 off=12/13 first=-"), None
    )
    rows = np.stack([row, text_row("long w 1:1,4:2,14:-1,18:-1 off=12/13 first=-")])
    assert np.array_equal(core_values(rows, three)[1], twin_values(rows, three))


def test_reference_tables_give_the_same_values() -> None:
    small = ["gulbar w 1:1,4:2,14:-1,18:-1 off=12/13 first=-", "gulbar b 6:2,13:-3 off=13/12 first=-"]
    small += ["gulbar w 2:1,16:-2 off=14/13 first=-", "gulbar b 2:1,16:-2 off=14/13 first=-"]
    rows = random_races("gulbar", 60, seed=3)
    rows = np.concatenate([rows[~layout.is_bearoff(rows)], [text_row(t) for t in small]])
    reference = race_tables(REFERENCE, rows, 3, 2)
    assert reference is not None
    assert all(a is b is None or np.array_equal(a, b) for a, b in zip(reference, core_tables("gulbar", False, 3, 2)))  # type: ignore[arg-type]
    assert np.array_equal(core_values(rows, reference)[1], twin_values(rows, reference))


def test_race_tables_are_no_larger_than_the_rows_need() -> None:
    races = game_races("long")
    assert race_tables(CORE, races[~layout.is_bearoff(races)]) is None
    row = text_row("long w 1:1,4:2,14:-1,18:-1 off=12/13 first=-")
    tables = race_tables(CORE, row[None, :])
    assert tables is not None
    assert [None if a is None else a.shape for a in tables] == [(84, 33), (84, 33), (84, 84)]
    tables = race_tables(CORE, row[None, :], 15, 0)
    assert tables is not None and tables[2] is None
    with pytest.raises(NardyError, match=r"^checkers: must be an integer 1\.\.15"):
        race_tables(CORE, row[None, :], 0)
    with pytest.raises(NardyError, match=r"^two_sided: must be an integer 0\.\.6"):
        race_tables(CORE, row[None, :], 15, 7)


@pytest.mark.parametrize(
    ("ahead", "behind"),
    [
        # White's 15 low in its home against Black's 15 on its 12-point (about 45 pips to 180), each side to
        # move
        ("long w 1:5,2:5,3:5,24:-15 first=-", "long b 1:5,2:5,3:5,24:-15 first=-"),
        ("gulbar w 1:5,2:5,3:5,24:-15 first=-", "gulbar b 1:5,2:5,3:5,24:-15 first=-"),
        ("crazy w 1:5,2:5,3:5,24:-15 first=-", "crazy b 1:5,2:5,3:5,24:-15 first=-"),
        # short nardy: White nearly home, Black all back on its 13..15
        ("short w 1:5,7:10,10:-5,11:-5,12:-5 first=-", "short b 1:5,7:10,10:-5,11:-5,12:-5 first=-"),
    ],
)
def test_a_side_far_ahead_wins(ahead: str, behind: str) -> None:
    rows = np.stack([text_row(ahead), text_row(behind)])
    _, core = core_values(rows, None)
    assert core[0, 0] > 0.99 and core[1, 0] < 0.01  # win, for the side to move
    assert core[0, 1] > 0.8 and core[1, 3] > 0.8  # Black, its checkers far from home, loses a mars
    assert core[0, 3] == 0.0 or core[0, 3] < 0.01


def test_a_koks_ahead_in_short_nardy() -> None:
    # White's last two checkers on its ace; Black still has a checker in White's home (its own 22-point):
    # a koks is likely (White bears both off with any roll)
    row = text_row("short w 1:2,3:-1,24:-14 off=13/0 first=-")
    values = race_evaluate(row, core_tables("short"))
    assert values[0] > 0.99 and values[2] > 0.5


@pytest.mark.parametrize(("variant", "flags"), CASES)
def test_colour_swap_changes_nothing(variant: str, flags: dict[str, object]) -> None:
    ladder = " ladder_per_value=4" if flags else ""
    rows = np.concatenate(
        [game_races(variant, bool(flags)), random_races(variant, 40, seed=11, flags=ladder)]
    )
    mirror = np.stack([swapped(row) for row in rows])
    assert not np.array_equal(mirror, rows)
    tables = tables_of(variant, flags)
    assert np.array_equal(core_values(rows, tables)[1], core_values(mirror, tables)[1])
    assert twin_values(mirror[:20], tables).tolist() == twin_values(rows[:20], tables).tolist()


def test_more_pips_to_go_never_helps() -> None:
    # moving one of X's checkers back (more pips) lowers X's win; the formula's chance is monotone
    base = text_row("long w 3:5,9:5,11:5,14:-5,20:-5,23:-5 first=-")
    worse = text_row("long w 3:4,9:5,11:6,14:-5,20:-5,23:-5 first=-")
    _, values = core_values(np.stack([base, worse]), None)
    assert values[1, 0] < values[0, 0]


def test_a_tall_stack_on_point_1_is_counted() -> None:
    # six-one's 24/1s piles checkers on point 1, which leave one per die: without the stack terms the
    # formula gave White 0.73 here (0.56 with them), the tables 0.52
    text = "sixone w 1:12,6:3,13:-3,14:-3,15:-3,16:-3,17:-3 first=-"
    exact = race_probabilities(CorePosition.from_text(text))
    _, values = core_values(text_row(text)[None, :], None)
    assert abs(values[0, 0] - (exact.win_single + exact.win_mars)) < 0.05
    assert (twin_values(text_row(text)[None, :], None) == values).all()


@pytest.mark.parametrize("variant", ["long", "short", "crazy"])
def test_contact_is_refused(variant: str) -> None:
    _, played = nardy_fast.playout(variant, 2, seed=5, trajectories=True)
    rows = played.rows[~layout.is_over(played.rows)]
    # the C test of a race is layout.is_race, row by row
    verdicts = [core_values(row[None, :], None)[0] == -1 for row in rows]
    assert verdicts == layout.is_race(rows).tolist()
    races = rows[layout.is_race(rows)][:3]
    contact = rows[~layout.is_race(rows)][0]
    mixed = np.concatenate([races[:2], contact[None, :], races[2:]])
    assert core_values(mixed, None)[0] == 2
    text = CorePosition.from_array(contact).to_text()
    expected = (
        "rows: is not a race: the race evaluator values races only (docs/rules.md, Races and bear-off "
        f"positions) (got {text!r})"
    )
    assert race_module.NOT_A_RACE in expected
    with pytest.raises(NardyError) as raised:
        race_evaluate(contact, None)
    assert str(raised.value) == expected
    with pytest.raises(NardyError, match=re.escape("rows[4]: is not a race")):
        raise race_module.not_a_race_error(contact, "rows[4]")


def test_the_engine_module_names_the_facts() -> None:
    """nardy_fast.evaluation.race still offers every name it offered before the facts moved out of it."""
    assert set(race_formula.__all__) <= set(race_module.__all__)
    for name in race_formula.__all__:
        assert getattr(race_module, name) is getattr(race_formula, name), name


def test_the_docstring_table_is_the_constants() -> None:
    doc = race_formula.__doc__
    assert doc is not None
    table = {}
    for line in doc.splitlines():
        words = line.split()
        if len(words) == 1 + len(KEYS) and re.fullmatch(r"(mu|s2|die|f|w\d|g\d|t\d)", words[0]):
            table[words[0]] = [float(w) for w in words[1:]]
    assert len(table) == 19
    for i, key in enumerate(KEYS):
        c = CONSTANTS[key]
        digits = {"mu": 4, "s2": 4, "die": 4}
        for name, value in [("mu", c.mu), ("s2", c.s2), ("die", c.die), ("f", c.f)]:
            assert table[name][i] == round(value, digits.get(name, 2)), (key, name)
        assert [table[f"w{p}"][i] for p in range(7)] == list(c.waste)
        assert [table[f"g{h}"][i] for h in range(1, 7)] == list(c.first)
        assert [table["t1"][i], table["t2"][i]] == list(c.stack)
    # the dice facts, by hand: long nardy's 294 pips in 36 rolls; gulbar's doubles (6 in 36) roll again
    assert CONSTANTS["long"].mu == 49 / 6 and CONSTANTS["gulbar"].mu == pytest.approx(294 / 30)
    assert CONSTANTS["sixone"].mu == pytest.approx(294 / 34) and CONSTANTS["long"].die == 3.5


@pytest.mark.parametrize("variant", ["long", "sixone", "short", "gulbar"])
def test_the_cores_race_hints_value_reached_bearoffs_by_the_tables(variant: str) -> None:
    """A hint with the race evaluator from a race that is no bear-off yet values the bear-offs it reaches by
    the tables, as the shared search (which values each row with its own tables) does: the core's search
    gives the same values, not those of the formula."""
    _, paths = nardy_fast.core.playout(variant, 40, seed=5, policy=Greedy("net"), trajectories=True)
    rows, rolls = paths.rows, paths.rolls
    picked = np.flatnonzero(layout.is_race(rows) & ~layout.is_bearoff(rows) & (rolls[:, 0] > 0))[::7][:12]
    assert len(picked) >= 6
    race = Builtin("race")
    for plies in (0, 1):
        for j in picked:
            position = CorePosition.from_array(rows[j])
            roll = (int(rolls[j, 0]), int(rolls[j, 1]))
            found = [equity for _, equity in position.hint(roll, evaluator="race", plies=plies)]
            _, values, reached = Search(CorePosition.kernels, race).hint(rows[j], roll, plies)
            expected = [float(v) for v in equity_of(values)[ranking(values, reached)]]
            assert found == expected, (position.to_text(), roll, plies)
