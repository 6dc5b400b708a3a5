"""Match equity tables: the shipped Kazaross-XG2 table equals GNU Backgammon's ``met/Kazaross-XG2.xml`` (copied
into tests/data/ from GNU Backgammon's sources, its notice kept); Tornberg's ``mec`` as GNU Backgammon runs it
reproduces GNU Backgammon's ``met/mec26.xml`` (gammon rate 0.26, printed to 3 decimals, generated without
free-drop terms) to its rounding, and GNU Backgammon's own computed table (the gnubg package, where present)
to single precision; lookups, conversions and bad tables."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import nardy_fast
from nardy_fast import NardyError
from nardy_fast.cube import MatchEquityTable, match_equity_table, mec_table

DATA = Path(__file__).with_name("data")


def read_xml(name: str) -> tuple[Any, Any]:
    root = ET.parse(DATA / name).getroot()
    pre = [[float(me.text or "") for me in row.findall("me")] for row in root.find("pre-crawford-table")]  # type: ignore[union-attr]
    post = [float(me.text or "") for me in root.find("post-crawford-table").find("row").findall("me")]  # type: ignore[union-attr]
    return np.array(pre), np.array(post)


def test_kazaross_equals_gnubg_xml() -> None:
    pre, post = read_xml("Kazaross-XG2.xml")
    table = nardy_fast.match_equity_table("kazaross-xg2")
    assert pre.shape == (25, 25) and post.shape == (25,)
    assert np.array_equal(table.pre, pre)
    assert np.array_equal(table.post, post)


def test_lookups() -> None:
    table = match_equity_table("kazaross-xg2")
    assert table.mwc(2, 2) == 0.5
    assert table.mwc(1, 2, crawford=True) == 0.67736  # the Crawford game, leader 1-away
    assert table.mwc(2, 1, crawford=True) == pytest.approx(1 - 0.67736)
    assert table.mwc(2, 1) == 0.48803  # post-Crawford, the trailer's chances
    assert table.mwc(1, 2) == pytest.approx(1 - 0.48803)
    assert table.post_crawford(3) == 0.32264
    assert table.mwc(1, 1) == 0.5
    for bad in ((0, 3), (26, 3), (3, True), (3, 2.0)):
        with pytest.raises(NardyError, match="away"):
            table.mwc(*bad)
    with pytest.raises(NardyError, match="crawford"):
        table.mwc(3, 4, crawford=True)


def test_conversions_by_hand() -> None:
    table = match_equity_table("kazaross-xg2")
    # 3-away 5-away, cube 1: a win leaves 2-away 5-away, a loss 3-away 4-away
    win, lose = table.pre[1, 4], table.pre[2, 3]
    assert table.mwc2eq(win, 3, 5) == pytest.approx(1.0)
    assert table.mwc2eq(lose, 3, 5) == pytest.approx(-1.0)
    assert table.eq2mwc(0.0, 3, 5) == pytest.approx((win + lose) / 2)
    values = np.linspace(-1.5, 1.5, 7)
    assert np.allclose(table.mwc2eq(table.eq2mwc(values, 4, 6, 2), 4, 6, 2), values)
    # a win on a 4-cube at 3-away ends the match
    assert table.eq2mwc(1.0, 3, 5, 4) == 1.0


def test_conversions_against_gnubg() -> None:
    gnubg = pytest.importorskip("gnubg", reason="GNU Backgammon (the peers extra) is absent")
    table = match_equity_table("kazaross-xg2")
    for score, cube, crawford in (((2, 4), 1, False), ((0, 0), 2, False), ((6, 3), 1, True), ((6, 2), 1, False)):
        away, opp = 7 - score[0], 7 - score[1]
        ci = gnubg.cubeinfo(cube, -1, 0, 7, score, int(crawford), 0)
        for mwc in (0.2, 0.5, 0.7):
            assert table.mwc2eq(mwc, away, opp, cube, crawford) == pytest.approx(gnubg.mwc2eq(mwc, ci), abs=1e-5)
            assert table.eq2mwc(mwc - 0.5, away, opp, cube, crawford) == pytest.approx(
                gnubg.eq2mwc(mwc - 0.5, ci), abs=1e-5)


def test_mec26_reproduced() -> None:
    pre, _ = read_xml("mec26.xml")
    table = mec_table(0.26, free_drop_2=0.0, free_drop_4=0.0)
    # the file's equities are printed to 3 decimals: the formula agrees to half their last digit
    assert np.abs(table.pre - pre).max() <= 0.0005 + 1e-12


def test_mec_against_gnubg(tmp_path: Path) -> None:
    """GNU Backgammon computes the same table from the same parameters (its mec.xml, made 25 long)."""
    gnubg = pytest.importorskip("gnubg", reason="GNU Backgammon (the peers extra) is absent")
    params = ('<parameters><parameter name="gammon-rate">0.26</parameter>'
              '<parameter name="win-rate">0.5</parameter><parameter name="free-drop-2-away">0.015</parameter>'
              '<parameter name="free-drop-4-away">0.004</parameter></parameters>')
    xml = ('<?xml version="1.0"?><met><info><name>mec</name><description>mec</description><length>25</length>'
           f'</info><pre-crawford-table type="mec">{params}</pre-crawford-table>'
           f'<post-crawford-table type="mec" player="0">{params}</post-crawford-table>'
           f'<post-crawford-table type="mec" player="1">{params}</post-crawford-table></met>')
    path = tmp_path / "mec25.xml"
    path.write_text(xml)
    gnubg.command("set threads 1")
    gnubg.command(f"set matchequitytable {path}")
    try:
        pre, post, _ = gnubg.met(25)
    finally:
        # back to GNU Backgammon's default table, for the other tests of this process
        gnubg.command(f"set matchequitytable {Path(gnubg.__file__).parent / 'data' / 'met' / 'Kazaross-XG2.xml'}")
    table = mec_table(0.26)
    assert np.abs(table.pre - np.array(pre)).max() < 1e-6
    assert np.abs(table.post - np.array(post)).max() < 1e-6


def test_mec_by_hand() -> None:
    table = mec_table(0.26)
    # post-Crawford: 2-away is 1-away less the free drop; 3-away: win twice (a single, then DMP) or a mars
    assert table.post_crawford(2) == pytest.approx(0.5 - 0.015)
    assert table.post_crawford(3) == pytest.approx(0.5 * (0.74 * 0.5 + 0.26))
    # the Crawford game at 1-away 2-away: the leader wins now, or loses a single and plays on post-Crawford
    assert table.mwc(1, 2, crawford=True) == pytest.approx(0.5 + 0.5 * 0.74 * 0.5)


def test_bad_tables() -> None:
    good = match_equity_table("kazaross-xg2")
    with pytest.raises(NardyError, match="square"):
        MatchEquityTable("x", good.pre[:3], good.post)
    with pytest.raises(NardyError, match=r"table\.post"):
        MatchEquityTable("x", good.pre, good.post[:3])
    flipped = good.pre.T.copy()
    with pytest.raises(NardyError, match="monotone"):
        MatchEquityTable("x", flipped, good.post)
    with pytest.raises(NardyError, match="name"):
        match_equity_table("backgammon")
    with pytest.raises(NardyError, match="gammon_rate"):
        mec_table(1.5)
