"""The built-in evaluator "heuristic" (nardy_fast.evaluation.heuristic) in both implementations.

Checked here:

1. twins: the compiled core's ``heuristic_evaluate`` (through ``_core.evaluate_rows``) and the reference's
   compute the same floats, exactly, on every unfinished corpus row of every variant;
2. the outputs are probabilities in [0, 1], nested as nardy_fast.evaluation.outcomes says, on every corpus
   row and its colour-swapped twin;
3. symmetry: a position and the same position with the colours swapped (White's checkers on Black's points
   and the turn passed) have the same values;
4. koks: zero in every variant without koks, and in short nardy where the loser can no longer be caught on
   the bar or in the winner's home;
5. hand-made positions whose order the rules decide: a side far ahead in a race; a side home with checkers
   off against one with checkers on its head (no mars possible for a side that has borne off); a blot in
   direct range in short nardy against the same pips with none; a pending list is pips to play;
6. the shot table: hand-counted rolls for single distances.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import numpy.typing as npt
import pytest

import nardy_fast
from nardy_fast import Position, layout
from nardy_fast.board import mover_point
from nardy_fast.corpus import load
from nardy_fast.evaluation.heuristic import COEFFICIENTS, FEATURES, HITS, Coefficients, hitting_rolls
from nardy_fast.evaluation.outcomes import EVALUATORS
from nardy_fast.reference.heuristic import heuristic_evaluate
from nardy_fast.variants import SPECS, VARIANTS

core = pytest.importorskip("nardy_fast._core") if nardy_fast.IMPLEMENTATION == "cython" else None
needs_core = pytest.mark.skipif(core is None, reason="the compiled core is not built")
KIND = EVALUATORS.index("heuristic")
Rows = npt.NDArray[np.int8]
Values = npt.NDArray[np.float64]


def compiled(rows: Rows) -> Values:
    """The core's values of rows (N, 64)."""
    assert core is not None
    out = np.full((len(rows), 5), np.nan)
    assert core.evaluate_rows(np.ascontiguousarray(rows, dtype=np.int8), KIND, None, out) == -1
    return out


def referenced(rows: Rows) -> Values:
    """The reference's values of rows (N, 64)."""
    return np.array([heuristic_evaluate(row, None) for row in rows], dtype=np.float64).reshape(len(rows), 5)


def values(rows: Rows) -> Values:
    """The values of unfinished rows, from the core when it is built (then checked against the reference)."""
    ours = referenced(rows)
    if core is not None:
        assert np.array_equal(compiled(rows), ours)
    return ours


def of(text: str) -> Values:
    """The five values of one position text."""
    row: Values = values(Position.from_text(text).to_array()[None, :])[0]
    return row


def equity(p: Values) -> float:
    return float(2.0 * p[0] - 1.0 + p[1] + p[2] - p[3] - p[4])


@cache
def unfinished(variant: str) -> Rows:
    rows = load(variant)[0]
    return np.ascontiguousarray(rows[~layout.is_over(rows)])


def mirrored(rows: Rows) -> Rows:
    """The same positions with the colours swapped: a checker on its side's own point p stands on the other
    side's own point p (docs/rules.md, The mover's numbering), and the other side is to move."""
    out = rows.copy()
    for i, row in enumerate(rows):
        variant = VARIANTS[row[layout.VARIANT]]
        for w in range(1, 25):
            out[i, layout.BOARD + mover_point(variant, w) - 1] = -row[layout.BOARD + w - 1]
        for start in (layout.BAR, layout.OFF, layout.FIRST_ROLL, layout.ROLLS_PLAYED):
            out[i, start], out[i, start + 1] = row[start + 1], row[start]
        out[i, layout.TURN] = 1 - row[layout.TURN]
    return out


def assert_nested(p: Values) -> None:
    """Probabilities in [0, 1], nested, with no tolerance."""
    win, win_mars, win_koks, lose_mars, lose_koks = p.T
    assert ((p >= 0.0) & (p <= 1.0)).all()
    assert (win_koks <= win_mars).all() and (win_mars <= win).all()
    assert (lose_koks <= lose_mars).all() and (lose_mars <= 1.0 - win).all()


@needs_core
@pytest.mark.parametrize("variant", VARIANTS)
def test_twins_equal_on_the_corpus(variant: str) -> None:
    rows = unfinished(variant)
    ours, theirs = compiled(rows), referenced(rows)
    differ = np.flatnonzero((ours != theirs).any(axis=1))
    assert not len(differ), (rows[differ[0]].tolist(), ours[differ[0]], theirs[differ[0]])


@pytest.mark.parametrize("variant", VARIANTS)
def test_outputs_are_nested_probabilities_and_colour_blind(variant: str) -> None:
    rows = unfinished(variant)
    evaluate = compiled if core is not None else referenced
    if core is None:
        rows = rows[::20]
    swapped = mirrored(rows)
    for row in swapped[::500]:
        Position.from_array(row)  # a valid position
    ours, theirs = evaluate(rows), evaluate(swapped)
    assert_nested(ours)
    assert np.array_equal(ours, theirs)
    # the reference alike, on a sample
    assert np.array_equal(referenced(swapped[::50]), ours[::50])


@pytest.mark.parametrize("variant", VARIANTS)
def test_koks_only_where_the_variant_has_it(variant: str) -> None:
    p = (compiled if core is not None else referenced)(unfinished(variant)[:: 1 if core is not None else 10])
    if SPECS[variant].koks:
        assert (p[:, 2] > 0).any() and (p[:, 4] > 0).any()
    else:
        assert (p[:, 2] == 0.0).all() and (p[:, 4] == 0.0).all()


def test_no_koks_once_the_loser_cannot_be_caught() -> None:
    # a short race: no checker on a bar or in the other side's home, and none can go back there
    race = of("short w 1:5,2:5,3:5,20:-5,21:-5,22:-5 first=-")
    assert race[2] == 0.0 and race[4] == 0.0
    # a Black checker in White's home: White may win a koks
    caught = of("short w 1:5,2:5,3:4,5:-1,20:-5,21:-5,22:-4 off=1/0 first=-")
    assert caught[2] > 0.0 and caught[4] == 0.0  # White has borne off a checker: no mars against it


def test_a_race_lead_scores_higher() -> None:
    # long, both sides home, White to move. Ahead: White's 15 checkers on its points 1 and 2, so every die
    # bears one off and White is done in 8 turns at most; Black's 15 are on its point 6 (90 pips), which needs
    # more than 11 turns on average. Behind: the same with the sides' boards swapped.
    ahead = of("long w 1:8,2:7,18:-15 first=-")
    behind = of("long w 6:15,13:-8,14:-7 first=-")
    assert ahead[0] > 0.9 > 0.1 > behind[0]
    assert equity(ahead) > equity(behind)
    # every checker of both is home: the side behind bears one off long before the other is done, no mars
    assert ahead[1] < 0.05 and behind[3] < 0.05
    # one of Black's checkers a point further from home (its 7, W19) is better for White, a point nearer (its
    # 5, W17) worse
    assert of("long w 1:8,2:7,17:-1,18:-14 first=-")[0] < ahead[0] < of("long w 1:8,2:7,18:-14,19:-1 first=-")[0]


def test_home_with_checkers_off_beats_checkers_on_the_head() -> None:
    # White all home with 5 off; Black with 10 on its head (W12) and 5 on its point 20: Black must still move
    # every checker home, about 250 pips, before it can bear one off
    home = of("long w 1:3,2:3,3:2,4:2,8:-5,12:-10 off=5/0 first=-")
    head = of("long w 13:-3,14:-3,15:-2,16:-2,18:5,24:10 off=0/5 first=-")
    assert home[0] > 0.95 and home[1] > 0.5
    assert home[3] == 0.0 and home[4] == 0.0  # a side that has borne off cannot be marsed
    assert head[0] < 0.05 and head[3] > 0.5 and head[1] == 0.0
    assert equity(home) > 1.0 > -1.0 > equity(head)


def test_a_blot_in_direct_range_is_worse_for_its_owner() -> None:
    # White to move, checkers on W13, W8 and W6. Black's checkers have the same pips both times (W9 + W20
    # against W10 + W19) and the same points made; in the second, Black's checker on W9 stands alone 4 pips in
    # front of White's checkers on W13: White hits it with any 4, 3-1, 1-3, 2-2 or 1-1 and sends it back.
    safe = of("short w 6:5,8:5,10:-3,13:5,19:-5,20:-4,21:-3 first=-")
    blot = of("short w 6:5,8:5,9:-1,10:-2,13:5,19:-4,20:-5,21:-3 first=-")
    assert equity(blot) > equity(safe)
    # the same boards with Black to move: Black's own blot, its turn first, is no better for it
    assert of("short b 6:5,8:5,9:-1,10:-2,13:5,19:-4,20:-5,21:-3 first=-")[0] <= of(
        "short b 6:5,8:5,10:-3,13:5,19:-5,20:-4,21:-3 first=-"
    )[0]


def test_a_pending_list_is_pips_for_the_mover() -> None:
    # gulbar race: Black has 75 pips, White 75 and two 6s to play before its roll
    plain = of("gulbar w 4:5,5:5,6:5,13:-5,14:-5,15:-5 first=-")
    pending = of("gulbar w 4:5,5:5,6:5,13:-5,14:-5,15:-5 first=- pending=6,6")
    assert pending[0] > plain[0]


def test_hits_counts_the_rolls_by_hand() -> None:
    assert HITS == tuple(hitting_rolls(mask) for mask in range(4096))
    # 1 away: any 1 (11 rolls); 6 away: any 6 (11), 5-1, 1-5, 4-2, 2-4, 3-3, 2-2 (17)
    assert HITS[1 << 0] == 11 and HITS[1 << 5] == 17
    # 12 away: only 6-6, 4-4 and 3-3; 11 away: only 6-5 and 5-6; every distance 1..6 is every roll
    assert HITS[1 << 11] == 3 and HITS[1 << 10] == 2 and HITS[0b111111] == 36 and HITS[0] == 0


def test_the_table_has_every_variant_and_every_feature() -> None:
    assert set(COEFFICIENTS) == set(VARIANTS)
    assert set(FEATURES) <= set(Coefficients._fields)
    for variant, k in COEFFICIENTS.items():
        if SPECS[variant].family == "long":
            assert k.shot == k.risk == k.bar_closed == 0.0
        else:
            assert k.head == 0.0
