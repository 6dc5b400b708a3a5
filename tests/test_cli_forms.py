"""The command line takes what Python takes (issue 41): a weights file wherever an evaluator or a player is
named (``hint --evaluator PATH``, ``duel PATH heuristic``, ``rollout --policy PATH``), a rollout played by an
evaluator (``--policy net --plies K``), and a position in every form the package reads: its text, a GNU
Backgammon Position ID (with a Match ID), an XGID and the package's own ID, given as ``--position`` (the
positional form of ``hint`` kept). The cube and match fields of an XGID or a Match ID, which a position
cannot hold yet, are a ``NardyWarning`` (on the command line a warning line), never dropped silently."""

from __future__ import annotations

import re
import subprocess
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

import pytest
from test_cli_evaluation import SHORT_START, error_line, expected_ranking, printed_ranking, run

import nardy_fast
import nardy_fast.ids as ids
from nardy_fast import Cube, Match, NardyError, NardyWarning, Position
from nardy_fast.evaluation.network import Network, shipped_path
from nardy_fast.policies import Greedy

SHORT_START_ID = "4HPwATDgc/ABMA"  # GNU Backgammon's manual: the checkers at the start
#: The manual's Match ID example: a 9-point match at 2 (player 0, Black) to 4 (player 1, White), Black
#: owns a 2-cube, White has rolled 5-2.
MANUAL_MATCH_ID = "QYkqASAAIAAA"
#: A Match ID with nothing a position cannot hold: money, centred 1-cube, White (player 1) on roll with 3-1.
MONEY_MATCH_ID = "cIkFAAAAAAAA"
#: The short start as an XGID, White to play 3-1, money, centred cube.
START_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"
#: A short-nardy race (the race evaluator serves it), Black to move.
SHORT_RACE = "short b 1:5,2:5,3:5,22:-5,23:-5,24:-5"


def weights(tmp_path: Path, variant: str = "long", name: str = "trained.npz") -> Path:
    """A weights file as ``nardy-fast train`` writes it: the shipped network of ``variant``, saved again."""
    path = tmp_path / name
    Network.load(shipped_path(variant)).save(path)
    return path


def hint_rows(argv: Sequence[str], capsys: pytest.CaptureFixture[str]) -> list[tuple[int, str, str, str]]:
    status, out, err = run(argv, capsys)
    assert status == 0, err
    return printed_ranking(out)


# --- weights files --------------------------------------------------------------------------------------------


def test_hint_takes_a_weights_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = weights(tmp_path)
    text = "long w 1:-15,24:15"
    rows = hint_rows(["hint", text, "3-1", "--evaluator", str(path)], capsys)
    network = Network.load(path)
    assert rows == expected_ranking(Position.from_text(text).hint((3, 1), evaluator=network))
    # the shipped network saved again is the same network: the same ranking as --evaluator net
    assert rows == hint_rows(["hint", text, "3-1", "--evaluator", "net"], capsys)


def test_a_weights_file_of_another_variant_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = weights(tmp_path, "long")
    problem = error_line(["hint", SHORT_START, "3-1", "--evaluator", str(path)], capsys, "--evaluator")
    assert problem == f"is a network of long nardy, not of short nardy (got {str(path)!r})"


def test_an_evaluator_neither_named_nor_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = str(tmp_path / "missing.npz")
    problem = error_line(["hint", SHORT_START, "3-1", "--evaluator", missing], capsys, "--evaluator")
    assert problem == (
        f"must be one of 'race', 'pubeval', 'heuristic', 'net', 'network' or a weights file (.npz): no such file (got {missing!r})"
    )
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip archive")
    problem = error_line(["hint", SHORT_START, "3-1", "--evaluator", str(bad)], capsys, "--evaluator")
    assert problem.startswith("is not a weights file (") and problem.endswith(f"(got {str(bad)!r})")


def test_a_name_wins_over_a_file_of_that_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``heuristic`` is the built-in evaluator even beside a file called ``heuristic``; ``./heuristic`` is the
    file."""
    monkeypatch.chdir(tmp_path)
    Path("heuristic").write_bytes(b"junk")
    rows = hint_rows(["hint", SHORT_START, "3-1", "--evaluator", "heuristic"], capsys)
    assert rows == expected_ranking(Position.from_text(SHORT_START).hint((3, 1), evaluator="heuristic"))
    problem = error_line(["hint", SHORT_START, "3-1", "--evaluator", "./heuristic"], capsys, "--evaluator")
    assert problem.startswith("is not a weights file")


def test_duel_takes_a_weights_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = weights(tmp_path)
    status, out, err = run(["duel", str(path), "heuristic", "--games", "4", "--seed", "3"], capsys)
    assert status == 0, err
    expected = nardy_fast.duel(Greedy(Network.load(path)), Greedy("heuristic"), "long", 4, seed=3)
    assert f"A = {path} (0-ply), B = heuristic (0-ply)" in out
    assert f"points per game for A: {expected.ppg:+.3f}," in out
    problem = error_line(["duel", "random", str(tmp_path / "none.npz")], capsys, "B")
    assert problem.startswith("must be one of 'random', 'first', 'race', 'pubeval', 'heuristic', 'net', 'network' or a weights")


def test_rollout_plays_an_evaluator(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--policy`` takes an evaluator's name or a weights file, searched ``--plies`` deep: the rollout is the
    one ``nardy_fast.rollout`` plays with that Greedy policy."""
    path = weights(tmp_path, "short")
    position = Position.from_text(SHORT_RACE)
    for policy, plies, greedy in (
        ("heuristic", "1", Greedy("heuristic", plies=1)),
        (str(path), "0", Greedy(Network.load(path))),
    ):
        argv = ["rollout", "--position", SHORT_RACE, "--games", "6", "--no-stratify", "--policy", policy]
        status, out, err = run([*argv, "--plies", plies], capsys)
        assert status == 0, err
        expected = nardy_fast.rollout(position, 6, policy=greedy, stratify=False)
        assert f"equity of black (to move): {expected.equity:+.5f} points per game" in out
        assert f"both sides playing policy {policy} ({plies}-ply)" in out


def test_rollout_policy_errors(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["rollout", "--position", SHORT_RACE, "--plies", "1"]
    assert error_line(argv, capsys, "--plies") == "applies to an evaluator, not to random (got '1')"
    argv = ["rollout", "--position", "long w 1:-15,24:15", "--policy", "pubeval"]
    assert error_line(argv, capsys, "--policy") == "evaluates short nardy only (rows[0] is long) (got 'pubeval')"
    argv = ["rollout", "--position", SHORT_START, "--policy", "race"]
    assert error_line(argv, capsys, "--policy").startswith("is not a race")


def test_rollout_progress_in_python() -> None:
    """``rollout_parts`` (what ``nardy_fast.rollout(progress=...)`` plays) reports the games done after each
    part and gives the rollout the games give in one call: parts of disjoint games combine exactly."""
    from nardy_fast._dispatch import RECORD
    from nardy_fast.rollouts import rollout_options, rollout_parts

    position = Position.from_text(SHORT_RACE)
    options = rollout_options(stratify=True, batch=100)
    done: list[int] = []
    whole = RECORD.roll_out(position, 250, 5, options)
    assert rollout_parts(RECORD.roll_out, position, 250, 5, options, done.append) == whole
    assert done == [100, 200, 250]
    with pytest.raises(NardyError, match=r"^progress: must be callable or None \(got 3\)$"):
        rollout_parts(RECORD.roll_out, position, 250, 5, options, 3)


# --- positions in every form ----------------------------------------------------------------------------------


def test_hint_takes_a_gnubg_position_id(capsys: pytest.CaptureFixture[str]) -> None:
    expected = hint_rows(["hint", SHORT_START, "3-1", "--evaluator", "heuristic"], capsys)
    assert hint_rows(["hint", SHORT_START_ID, "3-1", "--evaluator", "heuristic"], capsys) == expected
    # the Match ID gives the side on roll and the dice
    both = f"{SHORT_START_ID}:{MONEY_MATCH_ID}"
    assert hint_rows(["hint", "--position", both, "--evaluator", "heuristic"], capsys) == expected
    assert hint_rows(["hint", "--position", START_XGID, "--evaluator", "heuristic"], capsys) == expected
    assert hint_rows(["hint", "--position", START_XGID, "3-1", "--evaluator", "heuristic"], capsys) == expected


def test_hint_takes_the_packages_id(capsys: pytest.CaptureFixture[str]) -> None:
    start = Position.start("long")
    rows = hint_rows(["hint", "--position", start.id(), "6-5", "--evaluator", "heuristic"], capsys)
    assert rows == expected_ranking(start.hint((6, 5), evaluator="heuristic"))


def test_a_roll_against_the_ids_dice(capsys: pytest.CaptureFixture[str]) -> None:
    problem = error_line(["hint", "--position", START_XGID, "5-2"], capsys, "ROLL")
    assert problem == "is not the roll the position gives, 3-1 (got '5-2')"
    problem = error_line(["hint", SHORT_START, "3-1", "--position", SHORT_START], capsys, "POSITION")
    assert problem == f"given twice, as POSITION and as --position (got {SHORT_START!r})"


def test_rollout_and_perft_take_every_form(capsys: pytest.CaptureFixture[str]) -> None:
    start = Position.start("short")
    for form in (SHORT_START_ID, START_XGID, start.id()):
        status, out, err = run(["perft", "--position", form, "--depth", "1"], capsys)
        assert status == 0, err
        count = re.search(r"perft\s+([0-9,]+)", out)
        assert count is not None and int(count[1].replace(",", "")) == nardy_fast.perft(start, 1)
    status, out, err = run(["rollout", "--position", SHORT_START_ID, "--games", "4", "--no-stratify"], capsys)
    assert status == 0, err
    expected = nardy_fast.rollout(start, 4, stratify=False)
    assert f"equity of white (to move): {expected.equity:+.5f}" in out


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("4HPwATDgc/ABM!", "text: must start with '<variant> <w|b> <board>'"),
        ("long", "text: must start with '<variant> <w|b> <board>'"),  # a variant's name starts a text, not an ID
        ("abc", "text: must start with '<variant> <w|b> <board>'"),  # shorter than any ID
        ("DWAA__8AC__x", "id: has bits after the board"),  # the long start's ID, its last character changed
        ("4HPwATDgc/ABMA:cIkFAAAAAAA", "match_id: must have 12 characters, not 11"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0", "xgid: must have 10 fields"),
        ("//////////////", "position_id: "),
    ],
)
def test_bad_forms_name_their_field(text: str, problem: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert error_line(["hint", "--position", text, "3-1"], capsys, "--position").startswith(problem)


# --- the cube and the match score -----------------------------------------------------------------------------


def test_match_id_cube_and_score_are_read() -> None:
    fields = ids.read_match_id(MANUAL_MATCH_ID)
    assert (fields.turn, fields.dice) == ("white", (5, 2))
    assert fields.cube == ids.CubeFields(value=2, owner="black", match_length=9, score=(4, 2))


def test_xgid_cube_and_score_are_read() -> None:
    # a 4-cube (log2 2) owned by the top player (Black), a double offered, a match to 7 at 3 (bottom) - 1,
    # the Crawford game (rules 1 in a match)
    xgid = "XGID=-b----E-C---eE---c-e----B-:2:-1:1:D:3:1:1:7:10"
    cube = ids.read_xgid(xgid, warn=False).cube
    assert cube == ids.CubeFields(value=4, owner="black", offered=True, match_length=7, score=(3, 1), crawford=True)
    money = ids.read_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10").cube
    assert money == ids.CubeFields(jacoby=True, beaver=True)
    # the same as the cube and the match a cube decision takes; a Crawford flag at 3-1 to 7 is no match's
    with pytest.raises(NardyError, match=r"match\.crawford"):
        cube.state()
    assert cube._replace(score=(3, 6)).state() == (Cube(4, "black"), Match(7, (3, 6), crawford=True))
    assert money.state() == (Cube(), Match(jacoby=True, beavers=True))
    manual = ids.read_match_id(MANUAL_MATCH_ID).cube.state()
    assert manual == (Cube(2, "black"), Match(9, (4, 2)))


@pytest.mark.parametrize(
    ("read", "dropped"),
    [
        (lambda: Position.from_xgid(START_XGID.replace(":0:0:1:31:", ":1:1:1:31:")), "a 2-cube owned by White"),
        (lambda: Position.from_xgid(START_XGID.replace(":31:", ":D:")), "a double offered"),
        (lambda: Position.from_xgid(START_XGID.replace(":0:0:0:0:10", ":3:1:0:7:10")), "a match to 7 at White 3, Black 1"),
        (lambda: Position.from_gnubg_id(SHORT_START_ID, match_id=MANUAL_MATCH_ID), "a 2-cube owned by Black"),
    ],
)
def test_the_cube_and_score_are_never_dropped_silently(read: object, dropped: str) -> None:
    with pytest.warns(NardyWarning, match=dropped) as caught:
        position = read()  # type: ignore[operator]
    assert position.to_text() == SHORT_START  # the board is right: a warning, not an error
    assert len(caught) == 1 and "cubeless" in str(caught[0].message)


def test_a_money_position_reads_without_a_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Position.from_xgid(START_XGID)
        Position.from_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10")  # Jacoby and beavers: money
        Position.from_gnubg_id(SHORT_START_ID, match_id=MONEY_MATCH_ID)


def test_the_command_line_warns_of_the_cube(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(["hint", "--position", f"{SHORT_START_ID}:{MANUAL_MATCH_ID}", "--top", "1"], capsys)
    assert status == 0, err
    assert err.startswith("nardy-fast: warning: --position: match_id: ") and err.count("\n") == 1, err
    assert "a 2-cube owned by Black" in err and "a match to 9 at White 4, Black 2" in err
    assert "roll 5-2" in out


def test_subprocess_smoke(tmp_path: Path) -> None:
    """The installed program, as a user runs it: a GNU Backgammon ID and a weights file."""
    path = weights(tmp_path, "short", "short.npz")
    argv = [sys.executable, "-m", "nardy_fast", "hint", SHORT_START_ID, "3-1", "--evaluator", str(path), "--top", "2"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "evaluator " + str(path) in done.stdout and "rank" in done.stdout


@pytest.mark.parametrize("implementation", ["python", "cython"])
def test_python_rollout_reports_its_progress(implementation: str) -> None:
    """Issue 41, item 2: a Python rollout with a slow policy ran silent; ``progress``, as ``duel``'s, is
    called after each batch, and the parts make the rollout a single call makes."""
    modules = nardy_fast._dispatch.implementations()
    if implementation not in modules:
        pytest.skip("the core is not built")
    module = modules[implementation]
    position = Position.start("short")
    done: list[int] = []
    parted = module.rollout(position, 30, seed=2, stratify=False, batch=10, progress=done.append)
    assert done == [10, 20, 30]
    assert parted == module.rollout(position, 30, seed=2, stratify=False, batch=10)
    with pytest.raises(NardyError, match=r"^progress: must be callable or None \(got 3\)$"):
        module.rollout(position, 30, progress=3)


def test_a_position_text_with_nine_colons_is_a_text_not_an_xgid() -> None:
    """Nine points written ``point:count`` have nine colons, as many as an XGID: the variant's name at the
    start says it is a position's text."""
    text = "short w 1:2,2:2,3:3,12:2,19:-4,20:-4,21:-3,22:-2,24:-2 off=6/0"
    assert text.count(":") == 9
    from nardy_fast.cli.parser import read_position

    position, dice = read_position(text)
    assert position == Position.from_text(text) and dice is None
