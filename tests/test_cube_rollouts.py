"""Cubeful rollouts (docs/rules.md, Rollouts with the cube): the no-double and double-take lines, the double-pass
value and the action, in both implementations. The expected values are worked by hand from the rules (a game
the side on roll wins at its first roll), read from the match equity table by its definition, or come from an
independent path: the cubeless rollout, whose games the compiled core plays in its own C loop."""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest

from nardy_fast import Cube, Greedy, Match, NardyError, match_equity_table
from nardy_fast.__main__ import main
from nardy_fast._dispatch import implementations
from nardy_fast.cuberollouts import CubefulRollout

IMPLS = implementations()

#: White bears off its last checker with any roll; Black has one off: White wins a single game, surely.
WON = "short w 1:1,19:-14 off=14/1"
#: The same with Black none off: White wins a mars (2 points), surely.
MARS = "short w 1:1,19:-15 off=14/0"
#: A race White leads (short nardy): games of some length.
RACE = "short w 1:2,2:2,3:3,12:2,19:-4,20:-4,21:-3,22:-2,24:-2 off=6/0"
#: An even bear-off race: either side may win, and a Greedy's cube decisions double, take and pass in it.
EVEN = "short w 1:3,2:3,3:3,4:3,5:3,20:-3,21:-3,22:-3,23:-3,24:-3"


def _roll(name: str, text: str, games: int, **options: object) -> CubefulRollout:
    impl = IMPLS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unbalanced stratified counts: small test runs
        found = impl.rollout(impl.Position.from_text(text), games, **options)
    assert isinstance(found, CubefulRollout)
    return found


@pytest.mark.parametrize("name", sorted(IMPLS))
def test_a_sure_single_win_doubles_and_the_other_side_passes(name: str) -> None:
    # no double: 1 point each game; double, take: 2 (the cube at 2); double, pass: the cube's 1 point
    found = _roll(name, WON, 20, seed=1, cube=Cube())
    assert (found.no_double, found.double_take, found.double_pass) == (1.0, 2.0, 1.0)
    assert found.no_double_stderr == found.double_take_stderr == 0.0
    assert found.action == "Double, pass"
    # a sure mars: playing on wins 2 points, more than the 1 a pass gives
    mars = _roll(name, MARS, 20, seed=1, cube=Cube())
    assert (mars.no_double, mars.double_take, mars.double_pass) == (2.0, 4.0, 1.0)
    assert mars.action == "Too good to double, pass"
    # a cube at 4 owned by White: values per unit of the cube as given, the same
    owned = _roll(name, WON, 20, seed=1, cube=Cube(4, "white"))
    assert (owned.no_double, owned.double_take, owned.action) == (1.0, 2.0, "Redouble, pass")


@pytest.mark.parametrize("name", sorted(IMPLS))
def test_no_double_line_alone_where_the_side_on_roll_may_not_double(name: str) -> None:
    # the opponent owns the cube: 2 points won, 1 per unit of the cube
    found = _roll(name, WON, 10, seed=1, cube=Cube(2, "black"))
    assert found.no_double == 1.0
    assert not found.may_double
    assert found.double_take is None and found.double_pass is None and found.double_take_trials is None
    assert found.action == "Cube not available"
    # the Crawford game: no cube; White (1 away) wins the match with the game
    crawford = _roll(name, WON, 10, seed=1, match=Match(5, (4, 2), crawford=True))
    assert (crawford.no_double, crawford.may_double) == (1.0, False)
    assert crawford.action == "Never double, take (dead cube)"  # cube_decision's text there
    # a dead cube: White 1 away after the Crawford game has no use for it
    dead = _roll(name, WON, 10, seed=1, match=Match(5, (4, 3)))
    assert (dead.no_double, dead.action) == (1.0, "Never double, take (dead cube)")


@pytest.mark.parametrize("name", sorted(IMPLS))
def test_match_lines_are_the_table_after_the_game(name: str) -> None:
    table = match_equity_table("kazaross-xg2")
    # 5 points, White 4 away, Black 3 away: a single win leaves 3-away both (0.5 by symmetry); a win with the
    # cube at 2 leaves White 2 away; a pass wins 1 point, 3-away both
    found = _roll(name, WON, 10, seed=2, match=Match(5, (1, 2)))
    assert found.no_double == 0.5
    assert found.double_take == table.mwc(2, 3)
    assert found.double_pass == 0.5
    assert found.action == "Double, pass"
    # Black to move cannot bear off its 14 checkers in one turn; White then wins a single game (White 3 away
    # before, 2 after; Black 4 away): Black's chances are the complement of White's at 2-away, 4-away
    black = _roll(name, "short b 1:1,19:-14 off=14/1", 10, seed=2, match=Match(5, (2, 1)))
    assert black.no_double == pytest.approx(1.0 - table.mwc(2, 4), abs=1e-12)


@pytest.mark.parametrize("name", sorted(IMPLS))
def test_a_long_nardy_match_reads_long_nardys_table(name: str) -> None:
    table = match_equity_table("long")
    # 7 points, White 6 away, Black 5 away, White bears off its last checker with Black's none off: a mars,
    # 2 points (4 away), or 4 with the cube taken at 2 (2 away); a pass wins 1 point (5 away both: 0.5)
    found = _roll(name, "long w 1:1,12:-15 off=14/0", 10, seed=2, match=Match(7, (1, 2)))
    assert found.no_double == pytest.approx(table.mwc(4, 5), abs=1e-12)
    assert table.mwc(4, 5) != match_equity_table("kazaross-xg2").mwc(4, 5)
    assert found.double_take == pytest.approx(table.mwc(2, 5), abs=1e-12)
    assert found.double_pass == 0.5
    assert found.action == "Too good to double, pass"


def test_the_implementations_agree_for_a_seed() -> None:
    if len(IMPLS) < 2:
        pytest.skip("the compiled core is not built")
    player = Greedy("heuristic")
    for options in ({"cube": Cube()}, {"match": Match(5, (1, 2))}):
        found = [_roll(name, EVEN, 24, seed=5, policy=player, **options) for name in sorted(IMPLS)]
        # the games had cube actions: trials of more values than a cubeless game's points (or two match ends)
        assert found[0].double_take_trials is not None and found[1].double_take_trials is not None
        values = set(found[0].no_double_trials.tolist()) | set(found[0].double_take_trials.tolist())
        assert len(values) > 4
        assert np.array_equal(found[0].no_double_trials, found[1].no_double_trials)
        assert np.array_equal(found[0].double_take_trials, found[1].double_take_trials)
        assert found[0].outputs == found[1].outputs and found[0].action == found[1].action


@pytest.mark.parametrize("policy", ["random", Greedy("heuristic", cube="never")])
def test_players_that_never_double_give_the_cubeless_rollout(policy: object) -> None:
    # the cubeless rollout (the compiled core's C loop, where built) on the same seed: the same games, so the
    # no-double line is its equity, and the double-take line, the same games at twice the stakes, twice it
    name = "cython" if "cython" in IMPLS else "python"
    impl = IMPLS[name]
    position = impl.Position.from_text(RACE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cubeless = impl.rollout(position, 60, seed=4, policy=policy)
    found = _roll(name, RACE, 60, seed=4, policy=policy, cube=Cube())
    assert found.no_double == pytest.approx(cubeless.equity, abs=1e-12)
    assert found.no_double_stderr == pytest.approx(cubeless.equity_stderr, abs=1e-12)
    assert found.double_take == pytest.approx(2 * cubeless.equity, abs=1e-12)
    p = cubeless.probabilities
    assert found.outputs[0] == pytest.approx(p["white_single"] + p["white_mars"] + p["white_koks"], abs=1e-12)


def test_parts_combine_and_progress() -> None:
    name = max(IMPLS)  # the compiled core where built: the faster
    whole = _roll(name, RACE, 30, seed=6, cube=Cube(), stratify=False)
    parts = [_roll(name, RACE, 10, seed=6, cube=Cube(), stratify=False, first_game=k) for k in (0, 10, 20)]
    combined = CubefulRollout.combine(parts)
    assert np.array_equal(combined.no_double_trials, whole.no_double_trials)
    assert combined.outputs == pytest.approx(whole.outputs)
    seen: list[int] = []
    _roll(name, RACE, 30, seed=6, cube=Cube(), stratify=False, batch=12, progress=seen.append)
    assert seen == [12, 24, 30]
    # a long nardy match's parts keep the table their trials were scored by, and only parts of one table combine
    position = "long w 1:1,12:-15 off=14/0"
    long_parts = [_roll(name, position, 5, seed=2, match=Match(7, (1, 2)), first_game=k) for k in (0, 5)]
    assert CubefulRollout.combine(long_parts).double_take == pytest.approx(match_equity_table("long").mwc(2, 5))
    with pytest.raises(NardyError, match="table"):
        CubefulRollout.combine([long_parts[0], dataclasses.replace(long_parts[1], table=match_equity_table("short"))])


def test_combined_shares_are_the_shares_of_all_the_games_exactly() -> None:
    # 22 * (15 / 22) is not 15 in floating point: shares weighted back by their games drift by a rounding,
    # where a rollout of all 23 games counts 15 of 23 (a sharded rollout must give that share exactly)
    parts = [CubefulRollout("white", Cube(), Match(), np.zeros(games), None, (won / games, 0.0, 0.0, 0.0, 0.0))
             for games, won in ((1, 0), (22, 15))]
    combined = CubefulRollout.combine(parts)
    assert combined.outputs == (15 / 23, 0.0, 0.0, 0.0, 0.0) and combined.games == 23


@pytest.mark.parametrize("name", sorted(IMPLS))
@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"cube": 2}, "cube"),
        ({"cube": True}, "cube"),
        ({"match": "7"}, "match"),
        ({"match": 7.0}, "match"),
        ({"match": 40}, "match.length"),
        ({"cube": Cube(), "truncate": "bearoff"}, "truncate"),
        ({"cube": Cube(), "games": 0}, "games"),
    ],
)
def test_bad_input_names_its_field(name: str, options: dict[str, object], field: str) -> None:
    impl = IMPLS[name]
    given = dict(options)  # the parameters are shared by both implementations' runs
    games = given.pop("games", 10)
    with pytest.raises(NardyError, match=rf"^{field}: "):
        impl.rollout(impl.Position.from_text(WON), games, stratify=False, **given)


def test_the_command_prints_both_lines_the_pass_and_the_action(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rollout", "--position", WON, "--games", "36", "--no-stratify", "--cube"]) == 0
    out = capsys.readouterr().out
    lines = {line.split("  ")[0].strip(): line.split() for line in out.splitlines()}
    assert lines["no double"][2:6] == ["+1.00000", "std.", "error", "0.00000"]
    assert lines["double, take"][2] == "+2.00000"
    assert lines["double, pass"][2] == "+1.00000"
    assert "proper action: Double, pass" in out
    # the match at 1-2 to 5 (White 4 away, Black 3 away): the table's chances after each line's win
    argv = ["rollout", "--position", WON, "--games", "36", "--no-stratify", "--match", "5", "--score", "1-2"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "no double         0.50000" in out and "double, take      0.59947" in out
    # the Crawford game: no double line, and cube_decision's text for a cube nobody may turn
    argv[-1] = "4-2"
    assert main([*argv, "--crawford"]) == 0
    out = capsys.readouterr().out
    assert "\ndouble, take " not in out and "proper action: Never double, take (dead cube)" in out


@pytest.mark.parametrize(
    ("extra", "option"),
    [
        (["--score", "1-2"], "--score"),
        (["--crawford"], "--crawford"),
        (["--match", "5", "--score", "one-two"], "--score"),
        (["--match", "5", "--score", "5-2"], "--score"),
        (["--match", "5", "--crawford"], "--crawford"),
        (["--cube", "--truncate", "bearoff"], "--truncate"),
    ],
)
def test_the_command_names_the_bad_option(extra: list[str], option: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rollout", "--position", WON, "--games", "36", *extra]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"nardy-fast: error: {option}: ") and err.count("\n") == 1, err
