"""``nardy_fast.analyse`` against GNU Backgammon's own analysis of the same matches (docs/rules.md, Game analysis).

The oracle: matches and a money session GNU Backgammon played between two noisy 0-ply players and analysed at
0 plies itself (``tools/gnubg_analysis.py``, gnubg 1.1.0a16; its ``.mat`` export and, as JSON, the analysis it
saved in its SGF and the statistics it prints, committed in ``tests/data/gnubg-analysis-*``). The package reads
the ``.mat`` and analyses it with GNU Backgammon's own 0-ply evaluation plugged in as the evaluator
(``gnubg_nn``, the ``peers`` extra: the same net and bear-off databases as gnubg's; skipped where it is
absent). Both analyses are cubeful at the match score (GNU Backgammon's analysis always is): the package's
cube layer turns GNU Backgammon's cubeless outputs into cubeful equities as GNU Backgammon does
(tests/test_cube_gnubg.py), so every checker play's equities, equity lost, mark and forcedness, every roll's
luck (the opening roll's too), every cube decision's values and whether it counts, and each player's counts,
error totals and rates, luck, results and rating words are GNU Backgammon's, within what it prints. Where
gnubg itself is installed, a slow test runs the tool again and gets the committed files.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import nardy_fast
from nardy_fast import Cube
from nardy_fast.bench.peers import gnubg_arrays
from nardy_fast.gameanalysis import MARKS, RATINGS, Analysis, Decision, analyse, rating_of, roll_luck
from nardy_fast.records import MatchRecord

gnubg_nn = pytest.importorskip("gnubg_nn", reason="GNU Backgammon's net (gnubg-nn, the peers extra) is absent")

DATA = Path(__file__).parent / "data"
SIDE = {"X": "white", "O": "black"}  # GNU Backgammon's player 0 (X) is the .mat file's left column: White
#: Equities: GNU Backgammon writes 6 decimals of single-precision values, and gnubg_nn's bear-off database
#: values differ from gnubg's by up to 1.2e-4 (both round the same tables). Luck: it writes 5 decimals.
EQUITY = 5e-4
LUCK = 3e-4
#: The statistics it prints: error totals and luck with 3 decimals, rates in mEMG with 1, results in percent
#: with 2 decimals (a match) or in points with 3.
TOTAL = 1.5e-3
RATE = 0.06


class Gnu:
    """GNU Backgammon's 0-ply evaluation as an evaluator: each row's five probabilities for its side to move,
    by ``gnubg_nn.probabilities(board, 0)`` on its GNU Backgammon board."""

    def evaluate(self, rows: npt.NDArray[np.int8]) -> npt.NDArray[np.float64]:
        return np.array([gnubg_nn.probabilities(board, 0) for board in gnubg_arrays(rows).tolist()],
                        dtype=np.float64)


Session = tuple[MatchRecord, dict[str, Any], Analysis]


@pytest.fixture(scope="module", params=[
    "match3-seed34", pytest.param("match5-seed21", marks=pytest.mark.slow), "money4-seed13"])
def session(request: pytest.FixtureRequest) -> Session:
    record = nardy_fast.read_match(DATA / f"gnubg-analysis-{request.param}.mat")
    gnubg = json.loads((DATA / f"gnubg-analysis-{request.param}.json").read_text())
    assert record.players == tuple(gnubg["statistics"]["players"]["Player"])
    assert len(record.games) == len(gnubg["games"])
    return record, gnubg, analyse(record, evaluator=Gnu(), plies=0)


def pairs(session: Session, kind: str) -> list[tuple[Decision, dict[str, Any]]]:
    """Each of our decisions of ``kind`` with GNU Backgammon's, game by game in order (GNU Backgammon's cube
    decisions are the rows with a cube analysis)."""
    record, gnubg, found = session
    out = []
    for game, theirs in zip(record.games, gnubg["games"]):
        ours = [d for d in found.decisions if d.game == game.number and d.kind == kind]
        rows = [r for r in theirs["decisions"] if (r["action"] == "move" if kind == "move" else "cube_analysis" in r)]
        assert len(ours) == len(rows), (game.number, kind)
        out += list(zip(ours, rows))
    return out


def near_threshold(value: float, limits: tuple[float, ...], margin: float) -> bool:
    return any(abs(value - limit) < margin for limit in limits)


def test_checker_plays_agree(session: Session) -> None:
    found = pairs(session, "move")
    for ours, theirs in found:
        assert ours.side == SIDE[theirs["player"]] and ours.roll == tuple(theirs["dice"])
        if "moves" not in theirs:  # no legal move: no analysis, nothing lost
            assert not ours.counted and ours.loss == 0.0 and ours.played == "pass"
            continue
        assert ours.counted == (theirs["moves"] > 1), (ours, theirs)  # GNU Backgammon's unforced move
        assert ours.equity == pytest.approx(theirs["equity"], abs=EQUITY), (ours, theirs)
        assert ours.best_equity == pytest.approx(theirs["best_equity"], abs=EQUITY), (ours, theirs)
        lost = theirs["best_equity"] - theirs["equity"]
        assert ours.loss == pytest.approx(lost, abs=EQUITY), (ours, theirs)
        if not near_threshold(lost, tuple(limit for limit, _ in MARKS), EQUITY):
            assert ours.mark == theirs.get("mark", ""), (ours, theirs)
    # the players erred, so the comparison means something
    assert sum(t["best_equity"] - t["equity"] for _, t in found if "moves" in t) > 0.5
    assert {"doubtful", "bad"} <= {ours.mark for ours, _ in found}


def test_luck_of_every_roll_agrees(session: Session) -> None:
    record, _, _ = session
    found = pairs(session, "move")
    for ours, theirs in found:
        assert ours.luck == pytest.approx(theirs["luck"], abs=LUCK), (ours, theirs)
    # the opening rolls are judged by LuckFirst (the 30 non-doubles either side could start with), which
    # differs from LuckNormal (the 36 rolls of the side to move)
    for game in record.games:
        first, _ = next((ours, theirs) for ours, theirs in found if ours.game == game.number)
        assert first.position == game.start and first.roll is not None and first.roll[0] != first.roll[1]
        normal = roll_luck(nardy_fast.Position.from_text(game.start), evaluator=Gnu(), cube=Cube(),
                           match=game.match)[(max(first.roll), min(first.roll))]
        assert first.luck is not None and abs(normal - first.luck) > 0.01, (game.number, normal, first.luck)


def test_cube_decisions_agree(session: Session) -> None:
    for ours, theirs in pairs(session, "cube"):
        cube = theirs["cube_analysis"]
        nd, dt = cube["nd"], cube["dt"]
        double = min(dt, 1.0)  # the doubler's double: the taker answers best, a pass worth 1 (normalised)
        action = {"move": "no double"}.get(theirs["action"], theirs["action"])
        assert (ours.played, ours.side) == (action, SIDE[theirs["player"]]), (ours, theirs)
        if action == "no double":
            assert ours.equity == pytest.approx(nd, abs=EQUITY)
            assert ours.best_equity == pytest.approx(max(nd, double), abs=EQUITY)
            close = max(nd, double) - double < 0.16  # isCloseCubedecision
            if abs(max(nd, double) - double - 0.16) > EQUITY:
                assert ours.counted == close, (ours, theirs)
        elif action == "double":
            assert ours.equity == pytest.approx(double, abs=EQUITY) and ours.counted
            assert ours.loss == pytest.approx(max(nd, double) - double, abs=EQUITY)
        else:
            assert ours.equity == pytest.approx(-dt if action == "take" else -1.0, abs=EQUITY) and ours.counted
            assert ours.loss == pytest.approx(max(-dt, -1.0) - ours.equity, abs=EQUITY)


def number(cell: str) -> float:
    """A statistics cell's first number (a percentage as a fraction)."""
    found = re.match(r"\s*([+-]?\d+\.?\d*)(%?)", cell)
    assert found, cell
    return float(found[1]) / (100.0 if found[2] else 1.0)


def line(table: dict[str, list[str]], prefix: str) -> list[str]:
    (cells,) = [cells for label, cells in table.items() if label.startswith(prefix)]
    return cells


def test_player_statistics_agree(session: Session) -> None:
    _, gnubg, found = session
    stats = gnubg["statistics"]
    chequer, cube = stats["Chequerplay statistics"], stats["Cube statistics"]
    luck, overall = stats["Luck statistics"], stats["Overall statistics"]
    limits = tuple(limit for limit, _ in RATINGS)
    for i, player in enumerate(found.players):
        assert player.moves == int(chequer["Unforced moves"][i])
        assert player.cube_decisions == int(cube["Close or actual cube decisions"][i])
        assert -player.move_loss == pytest.approx(number(line(chequer, "Error total")[i]), abs=TOTAL)
        assert -player.cube_loss == pytest.approx(number(line(cube, "Error total")[i]), abs=TOTAL)
        assert -player.move_error_rate == pytest.approx(number(line(chequer, "Error rate")[i]), abs=RATE)
        assert -player.cube_error_rate == pytest.approx(number(line(cube, "Error rate")[i]), abs=RATE)
        assert -player.error_rate == pytest.approx(number(line(overall, "Error rate")[i]), abs=RATE)
        assert player.luck == pytest.approx(number(line(luck, "Luck total")[i]), abs=TOTAL)
        assert player.result == pytest.approx(number(overall["Actual result"][i]), abs=TOTAL)
        assert player.luck_adjusted_result == pytest.approx(number(overall["Luck adjusted result"][i]), abs=TOTAL)
        for rate, label, count in ((player.move_error_rate, "Chequerplay rating", player.moves),
                                   (player.cube_error_rate, "Cube decision rating", player.cube_decisions),
                                   (player.error_rate, "Overall rating", player.moves + player.cube_decisions)):
            words = (overall if label == "Overall rating" else chequer if label.startswith("Cheq") else cube)[label][i]
            if not near_threshold(rate / 1000, limits, 1e-4):
                assert (rating_of(rate / 1000) if count else "n/a") == words, (label, rate, words)
        if not near_threshold(player.error_rate / 1000, limits, 1e-4):
            assert player.rating == overall["Overall rating"][i]


@pytest.mark.slow
def test_the_oracle_is_reproduced(tmp_path: Path) -> None:
    """GNU Backgammon itself, run again by tools/gnubg_analysis.py, plays and analyses the same matches (its
    players' noise is deterministic): the committed data is what the tool makes."""
    gnubg = pytest.importorskip("gnubg", reason="GNU Backgammon (the gnubg package, the peers extra) is absent")
    made = json.loads((DATA / "gnubg-analysis-match3-seed34.json").read_text())
    if gnubg.__version__ != made["gnubg"]:
        pytest.skip(f"the data was made with gnubg {made['gnubg']}, this is {gnubg.__version__}")
    tool = Path(__file__).parent.parent / "tools" / "gnubg_analysis.py"
    subprocess.run([sys.executable, str(tool), str(tmp_path)], check=True, timeout=900, capture_output=True)
    for path in DATA.glob("gnubg-analysis-*"):
        fresh = (tmp_path / path.name).read_text()
        if path.suffix == ".json":
            assert json.loads(fresh) == json.loads(path.read_text()), path.name
        else:  # the file's date aside
            dated = re.compile(r"^; \[EventDate .*\n", re.MULTILINE)
            assert dated.sub("", fresh) == dated.sub("", path.read_text()), path.name
