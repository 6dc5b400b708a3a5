"""The cube's and the match's state (checked values, who may double, scoring per variant, the score after a
game), the money points against GNU Backgammon's closed forms (Janowski's formulas, worked by hand here), the
cube efficiencies, and the money cubeful equity's corners by hand."""

from __future__ import annotations

import numpy as np
import pytest

import nardy_fast
from nardy_fast import Cube, Match, NardyError
from nardy_fast.cube import (
    average_values,
    cube_decision,
    cube_efficiency,
    game_points,
    money_cubeful,
    money_points,
)


def test_cube_values() -> None:
    assert Cube() == Cube(1, None) and Cube(np.int64(8), "black").value == 8  # type: ignore[arg-type]
    assert Cube(2, "white").doubled("white") == Cube(4, "black")
    for value in (0, 3, 6, 8192, True, 2.0, "2"):
        with pytest.raises(NardyError, match=r"cube\.value"):
            Cube(value)  # type: ignore[arg-type]
    for owner in ("White", 1, True, "centre"):
        with pytest.raises(NardyError, match=r"cube\.owner"):
            Cube(2, owner)  # type: ignore[arg-type]
    with pytest.raises(NardyError, match=r"cube\.owner"):
        Cube(1, "white")  # an unturned cube has no owner
    with pytest.raises(NardyError, match="by"):
        Cube(2, "white").doubled("black")


def test_match_values() -> None:
    assert Match().money and Match(7, (2, 4)).away("white") == 5
    with pytest.raises(NardyError, match=r"match\.score.*\(7, 2\)"):
        Match(7, (7, 2))
    with pytest.raises(NardyError, match=r"match\.score"):
        Match(7, (-1, 2))
    with pytest.raises(NardyError, match=r"match\.length"):
        Match(0)
    with pytest.raises(NardyError, match=r"match\.crawford"):
        Match(7, (3, 4), crawford=True)  # nobody 1 away
    with pytest.raises(NardyError, match=r"match\.crawford"):
        Match(7, (6, 6), crawford=True)  # double match point is never the Crawford game
    with pytest.raises(NardyError, match=r"match\.jacoby"):
        Match(7, jacoby=True)
    with pytest.raises(NardyError, match=r"match\.score"):
        Match(None, (1, 0))


def test_who_may_double() -> None:
    centred, mine = Cube(), Cube(2, "white")
    assert Match().may_double(centred, "white") and not Match().may_double(mine, "black")
    assert not Match(7, (6, 3), crawford=True).may_double(centred, "black")  # the Crawford game
    post = Match(7, (6, 3))
    assert post.post_crawford and post.may_double(centred, "black") and not post.may_double(centred, "white")
    assert not Match(7, (5, 3)).may_double(mine, "white")  # 2-away on a 2-cube: the cube is dead for it
    assert Match(7, (5, 3)).may_double(centred, "white")


def test_scoring_per_variant() -> None:
    assert game_points("short", "koks") == 3 and game_points("long", "mars") == 2
    with pytest.raises(NardyError, match="koks"):
        game_points("long", "koks")
    money = Match()
    assert money.points("short", "koks", Cube(4, "black")) == 12
    assert money.points("long", "mars", Cube(2, "white"), dropped=True) == 2
    assert Match(jacoby=True).points("short", "mars", Cube()) == 1  # Jacoby: no mars on a centred cube
    match = Match(7, (5, 2))
    assert match.scored("white", 8) == 2  # capped at what the match needs
    assert match.after("white", 8) is None
    assert match.after("black", 1) == Match(7, (5, 3))
    assert match.after("white", 1) == Match(7, (6, 2), crawford=True)
    assert Match(7, (6, 2), crawford=True).after("black", 2) == Match(7, (6, 4))  # post-Crawford next


def test_money_points_closed_forms() -> None:
    # no mars: W = L = 1: take 25% dead and 20% live; cash 75% and 80%; Jacoby's initial double
    points = money_points(1.0, 1.0)
    assert points["take"] == pytest.approx((0.25, 0.2))
    assert points["cash"] == pytest.approx((0.75, 0.8))
    assert points["too good"] == pytest.approx((1.0, 0.8))
    assert points["beaver"] == pytest.approx((0.5, 0.4))
    assert points["initial double"] == pytest.approx((0.5, 0.8))
    w, lo = 1.3, 1.2
    assert money_points(w, lo, jacoby=True)["initial double"][0] == pytest.approx((lo - 0.5) / (lo + w - 1.0))
    assert money_points(w, lo, jacoby=True, beavers=True)["initial double"][0] == pytest.approx(
        (lo - 0.25) / (lo + w - 0.5))
    assert money_points(w, lo)["take"][1] == pytest.approx((lo - 0.5) / (w + lo + 0.5))


def test_average_values() -> None:
    w, lo = average_values([0.6, 0.3, 0.06, 0.1, 0.02])
    assert w == pytest.approx(1 + 0.36 / 0.6) and lo == pytest.approx(1 + 0.12 / 0.4)


def test_money_cubeful_by_hand() -> None:
    # no mars, p at the live take point 0.2: the live equity is -1 on a centred cube
    p = [0.2, 0.0, 0.0, 0.0, 0.0]
    assert money_cubeful(p, 1.0) == pytest.approx(-1.0)
    assert money_cubeful(p, 0.0) == pytest.approx(-0.6)  # dead: 2p - 1
    assert money_cubeful(p, 0.5) == pytest.approx(-0.8)
    # the owner at its cash point 0.8 is worth +1; the opponent's side of it, the same position, -1
    assert money_cubeful([0.8, 0, 0, 0, 0], 1.0, "own") == pytest.approx(1.0)
    assert money_cubeful([0.2, 0, 0, 0, 0], 1.0, "opponent") == pytest.approx(-1.0)
    rows = np.array([[0.2, 0, 0, 0, 0], [0.8, 0, 0, 0, 0], [1.0, 0.5, 0, 0, 0]])
    assert np.allclose(money_cubeful(rows, 1.0), [-1.0, 1.0, 1.5])  # a sure win is cubeless: 1 + 0.5 mars
    decision = cube_decision(rows, 0.76)
    assert decision.action[1] == "Double, pass" and len(decision.action) == 3


def test_efficiency() -> None:
    assert cube_efficiency("contact") == 0.76 and cube_efficiency("crashed", plies=2) == 0.68
    assert cube_efficiency("race", 40) == pytest.approx(0.70) and cube_efficiency("race", 200) == 0.80
    assert cube_efficiency("race", 10) == pytest.approx(0.625) and cube_efficiency("race", 20, plies=2) == 0.60 and cube_efficiency("race", 100, plies=3) == pytest.approx(0.675)
    assert cube_efficiency("bearoff", 20) == 0.60 and cube_efficiency("over") == 0.0
    with pytest.raises(NardyError, match="position_class"):
        cube_efficiency("bearoff2")


def test_exported() -> None:
    assert nardy_fast.Cube is Cube and nardy_fast.Match is Match
    assert {"Cube", "Match", "match_equity_table"} <= set(nardy_fast.__all__)


def test_doubles_the_match_forbids() -> None:
    assert Match(7, (2, 4)).double(Cube(), "white") == Cube(2, "black")
    with pytest.raises(NardyError, match=r"match\.crawford.*Crawford"):
        Match(7, (6, 3), crawford=True).double(Cube(), "black")
    with pytest.raises(NardyError, match="by: the cube is owned"):
        Match().double(Cube(2, "white"), "black")
    with pytest.raises(NardyError, match="by: the leader"):
        Match(7, (6, 3)).double(Cube(), "white")
    with pytest.raises(NardyError, match="by: the cube is dead"):
        Match(7, (5, 3)).double(Cube(2, "white"), "white")


def test_points_of_the_decision() -> None:
    # money, no mars: the live take point 20% and cash point 80% (docs/rules.md, The doubling cube)
    decision = cube_decision([0.5, 0.0, 0.0, 0.0, 0.0], 0.76)
    assert decision.take_point == pytest.approx(0.2) and decision.cash_point == pytest.approx(0.8)
    # 2-away 2-away, cube dead once doubled: the taker needs chances worth passing's 1-away 2-away Crawford
    # game (1 - 0.67736 = 0.32264) against losing the match; so it takes at 32.264% and the doubler cashes there
    at = cube_decision([0.5, 0.0, 0.0, 0.0, 0.0], 0.76, match=Match(3, (1, 1)))
    assert at.take_point == pytest.approx(0.32264) and at.cash_point == pytest.approx(1 - 0.32264)


def test_every_branch_of_the_action() -> None:
    """GNU Backgammon's ordering of no double (ND), double-take (DT) and double-pass (DP), row by row."""
    from nardy_fast.cube.decision import proper_actions

    gammons = np.array([[0.6, 0.1, 0.0, 0.1, 0.0]])
    no_gammons = np.array([[0.6, 0.0, 0.0, 0.1, 0.0]])
    cases = [  # (ND, DT, DP), outputs, centred, money, beavers, jacoby, action
        ((0.5, 0.8, 1.0), gammons, True, True, False, False, "Double, take"),
        ((0.5, 0.8, 1.0), gammons, False, False, False, False, "Redouble, take"),
        ((0.5, 0.5 + 5e-6, 1.0), gammons, True, True, False, False, "Optional double, take"),
        ((0.5, 1.2, 1.0), gammons, True, True, False, False, "Double, pass"),
        ((1.0, 1.3, 1.0), gammons, True, True, False, False, "Optional double, pass"),
        ((1.0, 1.3, 1.0), gammons, True, True, False, True, "Double, pass"),  # Jacoby: centred, no gammons
        ((1.0, 1.3, 1.0), no_gammons, True, False, False, False, "Double, pass"),
        ((1.2, 1.1, 1.0), gammons, True, True, False, False, "Too good to double, pass"),
        ((1.2, 1.1, 1.0), no_gammons, False, True, False, False, "Redouble, pass"),
        ((1.05, 0.9, 1.0), gammons, False, True, False, False, "Too good to redouble, take"),
        ((1.05, 0.9, 1.0), no_gammons, True, True, False, False, "No double, take"),
        ((0.3, 0.2, 1.0), gammons, True, True, False, False, "No double, take"),
        ((-0.3, -0.5, 1.0), gammons, True, True, True, False, "No double, beaver"),
        ((-0.3, -0.2, 1.0), gammons, True, True, True, False, "No double, beaver"),  # -0.4 < -0.3: beaver it
        ((-0.5, -0.2, 1.0), gammons, True, True, True, False, "Double, beaver"),
        ((-0.3, -0.5, 1.0), gammons, False, True, True, False, "No redouble, beaver"),
        ((-0.3, -0.5, 1.0), gammons, True, False, True, False, "No double, take"),  # no beavers in a match
        ((1.1, 1.2, 1.0), gammons, True, True, False, False, "Too good to double, pass"),  # DT >= ND > DP
    ]
    for equities, outputs, centred, money, beavers, jacoby, action in cases:
        got = proper_actions(np.array([equities]), outputs, centred, money, beavers, jacoby)
        assert got == (action,), (equities, centred, money, beavers, jacoby)
