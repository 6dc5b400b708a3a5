"""The strength measurements of issue 24 (``nardy_fast.bench.strength``, ``tools/strength.py``) and GNU
Backgammon's 0-ply net as a duel player (``nardy_fast.bench.peers.GnubgPlayer``).

The player is checked against ``gnubg_nn.best_move(board, d1, d2, n=0)`` itself (through ``gnubg_choice``,
which matches best_move's resulting board among the children): on positions of short-nardy games it plays
best_move's move, or one of the same GNU Backgammon equity where best_move's sort broke a tie. The boards are
checked against the mapping of ``tests/test_gnubg.py``, derived from docs/rules.md. The tables are played
with a small random network, a few games each (the full measurements are the lead's, on the shipped weights).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

gnubg_nn = pytest.importorskip(
    "gnubg_nn", reason="GNU Backgammon's net (gnubg-nn, in the test extra on Linux x86-64) is absent"
)

from test_gnubg import gnubg_board as rules_board  # noqa: E402 - after the skip: it needs gnubg_nn too

import nardy_fast  # noqa: E402
from nardy_fast import Greedy, NardyError, layout  # noqa: E402
from nardy_fast.bench.peers import GnubgPlayer, gnubg_arrays, gnubg_choice  # noqa: E402
from nardy_fast.bench.strength import (  # noqa: E402
    markdown_table,
    matchups,
    speed,
    strength_table,
    text_table,
)
from nardy_fast.evaluation.network import INPUTS, Network  # noqa: E402

Rows = npt.NDArray[np.int8]
TOOL = Path(__file__).resolve().parent.parent / "tools" / "strength.py"


def small_network(variant: str = "short", seed: int = 0) -> Network:
    rng = np.random.default_rng(seed)
    return Network(
        variant,
        rng.normal(0, 0.1, (INPUTS, 32)).astype(np.float32),
        np.zeros(32, np.float32),
        rng.normal(0, 0.1, (5, 32)).astype(np.float32),
        np.zeros(5, np.float32),
    )


def game_positions() -> tuple[Rows, Rows]:
    """Positions of short-nardy games with their rolls: random play, and both sides heuristic (closer to
    real play: primes, races, bear-offs); the finished ones left out."""
    parts = [nardy_fast.playout("short", 8, seed=5, trajectories=True)[1]]
    parts.append(nardy_fast.playout("short", 8, seed=6, policy=Greedy("heuristic"), trajectories=True)[1])
    rows = np.concatenate([p.rows for p in parts])
    rolls = np.concatenate([p.rolls for p in parts])
    live = ~layout.is_over(rows)
    return rows[live], rolls[live]


def test_gnubg_arrays_are_the_rules_boards() -> None:
    rows, _ = game_positions()
    finished = nardy_fast.playout("short", 4, seed=7, trajectories=True)[1].rows
    rows = np.concatenate([rows, finished])
    got = gnubg_arrays(rows)
    for row, board in zip(rows, got):
        turn = "white" if row[layout.TURN] == 0 else "black"
        opponent, player = rules_board(row[:24].tolist(), row[24:26].tolist(), turn)
        assert board[0].tolist() == list(opponent) and board[1].tolist() == list(player), row


def test_gnubg_player_plays_best_move() -> None:
    rows, rolls = game_positions()
    children, offsets, _ = nardy_fast.batch_children(rows, rolls)
    children, offsets = np.asarray(children), np.asarray(offsets)
    player = GnubgPlayer()
    chosen = player(children, offsets)
    equities = player.equities(children)
    same = ties = choices = 0
    for i in range(len(rows)):
        part = children[offsets[i] : offsets[i + 1]]
        expected = gnubg_choice(rows[i], rolls[i], part)
        if len(part) > 1:
            choices += 1
        if chosen[i] == expected:
            same += 1
            continue
        mine, theirs = equities[offsets[i] + chosen[i]], equities[offsets[i] + expected]
        assert abs(mine - theirs) < 1e-6, (rows[i].tolist(), rolls[i].tolist(), mine, theirs)
        ties += 1
    assert choices > 300  # positions where the choice matters
    assert ties <= 0.03 * len(rows), (same, ties)


def test_gnubg_player_at_one_ply_plays_gnubgs_one_ply_move() -> None:
    """``GnubgPlayer(1)`` values every child at GNU Backgammon's 1 ply; ``best_move(..., n=1)`` values only
    the children its move filter keeps. So the two play the same child but where the filter cut the child
    of the best 1-ply value (never the other way: ours is then at least as good by that value), and a side
    or a board the player got wrong would disagree everywhere."""
    rows, rolls = game_positions()
    rows, rolls = rows[::3], rolls[::3]  # a 1-ply valuation is some 100x a 0-ply one
    children, offsets, _ = nardy_fast.batch_children(rows, rolls)
    children, offsets = np.asarray(children), np.asarray(offsets)
    player = GnubgPlayer(1)
    assert player.plies == 1 and repr(player) == "'gnubg 1-ply'"
    chosen = player(children, offsets)
    equities = player.equities(children)
    zero = GnubgPlayer().equities(children)
    same = choices = differs_from_zero = 0
    for i in range(len(rows)):
        part = children[offsets[i] : offsets[i + 1]]
        if len(part) == 1:
            continue
        choices += 1
        expected = gnubg_choice(rows[i], rolls[i], part, plies=1)
        mine, theirs = equities[offsets[i] + chosen[i]], equities[offsets[i] + expected]
        assert mine >= theirs - 1e-6, (rows[i].tolist(), rolls[i].tolist(), mine, theirs)
        same += int(chosen[i] == expected or abs(mine - theirs) < 1e-6)
        differs_from_zero += int(chosen[i] != int(np.argmax(zero[offsets[i] : offsets[i + 1]])))
    assert choices > 100
    assert same >= 0.9 * choices, (same, choices)
    assert differs_from_zero > 0  # the 1-ply values are not the 0-ply ones


def test_gnubg_player_refuses_other_plies() -> None:
    start = nardy_fast.Position.start("short").to_array()
    children = nardy_fast.children(start, (3, 1))
    for bad in (2, -1, True, 1.0, "1"):
        with pytest.raises(NardyError, match=r"^plies: must be 0 or 1 \(got "):
            GnubgPlayer(bad)  # type: ignore[arg-type]
        with pytest.raises(NardyError, match=r"^plies: must be 0 or 1 \(got "):
            gnubg_choice(start, (3, 1), children, plies=bad)  # type: ignore[arg-type]


def test_gnubg_choice_of_a_pass_and_of_wrong_children() -> None:
    rows, rolls = game_positions()
    children, offsets, _ = nardy_fast.batch_children(rows, rolls)
    children, offsets = np.asarray(children), np.asarray(offsets)
    counts = np.diff(offsets)
    passes = [i for i in np.flatnonzero(counts == 1) if (children[offsets[i], :24] == rows[i, :24]).all()]
    assert passes, "no position of these games had a roll it could not play"
    for i in passes[:5]:
        assert gnubg_choice(rows[i], rolls[i], children[offsets[i] : offsets[i + 1]]) == 0
    start = nardy_fast.Position.start("short").to_array()
    with pytest.raises(NardyError, match=r"^children: has no child equal to GNU Backgammon's move"):
        gnubg_choice(start, (6, 5), nardy_fast.children(start, (3, 1)))


def test_gnubg_player_refuses_other_variants() -> None:
    start = nardy_fast.Position.start("long").to_array()
    children = nardy_fast.children(start, (3, 1))
    with pytest.raises(NardyError, match=r"^children: GNU Backgammon plays short nardy only \(children\[0\] is long\)"):
        GnubgPlayer()(children, np.array([0, len(children)]))
    with pytest.raises(NardyError, match=r"^row: GNU Backgammon plays short nardy only"):
        gnubg_choice(start, (3, 1), children)


def test_gnubg_player_in_a_duel() -> None:
    result = nardy_fast.duel(GnubgPlayer(), "random", "short", 20, seed=1)
    assert result.a == "'gnubg 0-ply'"
    assert result.ppg > 1.0  # random play loses nearly every game, many by a mars


def test_matchups() -> None:
    net = small_network()
    short = [(m.player, m.opponent, m.games) for m in matchups("short", 10, net=net, one_ply_games=4, two_ply_games=2)]
    assert short == [
        ("net 0-ply", "random", 10),
        ("net 0-ply", "heuristic 0-ply", 10),
        ("net 0-ply", "pubeval 0-ply", 10),
        ("net 0-ply", "gnubg 0-ply", 10),
        ("gnubg 0-ply", "pubeval 0-ply", 10),
        ("net 1-ply", "gnubg 0-ply", 4),
        ("net 1-ply", "net 0-ply", 4),
        ("net 2-ply", "net 0-ply", 2),
    ]
    long = matchups("long", 10, net=small_network("long"), one_ply_games=0, two_ply_games=0)
    assert [(m.player, m.opponent) for m in long] == [("net 0-ply", "random"), ("net 0-ply", "heuristic 0-ply")]
    # a baseline (the networks shipped before) met at 0 ply, by the games of the 0-ply duels
    based = matchups("long", 10, net=small_network("long"), one_ply_games=0, two_ply_games=0, baseline="heuristic")
    assert [(m.player, m.opponent, m.games) for m in based][2] == ("net 0-ply", "baseline 0-ply", 10)
    without = matchups("short", 10, net=net, gnubg=False)
    assert all("gnubg" not in m.player + m.opponent for m in without)
    with pytest.raises(NardyError, match=r"^net: evaluates short nardy only, not long"):
        matchups("long", 10, net=net)
    with pytest.raises(NardyError, match=r"^games: must be an even integer"):
        matchups("short", 11, net=net)
    with pytest.raises(NardyError, match=r"^two_ply_games: must be an even integer"):
        matchups("short", 10, net=net, two_ply_games=-2)
    with pytest.raises(NardyError, match=r"^variant: must be one of"):
        matchups("backgammon", 10, net=net)


def test_strength_table_plays_the_duels() -> None:
    net = small_network()
    told: list[tuple[str, int, int]] = []
    rows = strength_table(
        "short", 4, 3, net=net, one_ply_games=2, two_ply_games=0, progress=lambda w, d, n, s: told.append((w, d, n))
    )
    assert [(r.player, r.opponent, r.games) for r in rows] == [
        (m.player, m.opponent, m.games) for m in matchups("short", 4, net=net, one_ply_games=2, two_ply_games=0)
    ]
    # the first player, the seed and the dice are the duel's
    direct = nardy_fast.duel(Greedy(net), Greedy("pubeval"), "short", 4, seed=3)
    assert (rows[2].ppg, rows[2].stderr) == (direct.ppg, direct.stderr)
    assert all(np.isfinite(r.ppg) and r.stderr >= 0 and r.seconds >= 0 for r in rows)
    assert ("short: net 0-ply vs random", 0, 4) in told and ("short: net 1-ply vs net 0-ply", 2, 2) in told
    text = markdown_table(rows, command="python tools/strength.py --games 4")
    assert text.splitlines()[0] == "`python tools/strength.py --games 4`"
    assert sum(line.startswith("| short |") for line in text.splitlines()) == len(rows)
    assert len(text_table(rows).splitlines()) == len(rows) + 1


def test_speed() -> None:
    row = speed("short", 4, 1, net=small_network(), repeats=2)
    assert row.net_games_per_s > 0 and row.gnubg_games_per_s is not None and row.gnubg_games_per_s > 0
    assert row.ratio is not None and row.ratio > 0
    assert speed("short", 2, 1, net=small_network(), repeats=1, gnubg=False).ratio is None
    with pytest.raises(NardyError, match=r"^repeats: must be an integer 1..100"):
        speed("short", 2, 1, net=small_network(), repeats=0)


def load_tool() -> Any:
    spec = importlib.util.spec_from_file_location("strength_tool", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(not TOOL.exists(), reason="tools/ is not beside the tests (an installed package's suite)")
def test_tool_prints_the_table_under_its_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    weights = tmp_path / "short.npz"
    small_network().save(weights)
    argv = ["--variant", "short", "--games", "4", "--seed", "2", "--plies-games", "0", "--two-ply-games", "0"]
    argv += ["--speed-games", "2", "--repeats", "1", "--weights", str(weights), "--markdown"]
    assert load_tool().main(argv) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0] == "`python tools/strength.py " + " ".join(argv) + "`"
    assert sum(line.startswith("| short | ") for line in lines) == 5
    assert any(line.startswith("- Greedy(net) playouts, short") and "ratio" in line for line in lines)
    assert "short: net 0-ply vs random: 4/4 games" in err
    # weights of another variant than the one measured
    with pytest.raises(SystemExit):
        load_tool().main(["--variant", "long", "--weights", str(weights)])
    assert "--weights: the file holds short weights" in capsys.readouterr().err
    assert load_tool().main(["--weights", str(tmp_path / "missing.npz")]) == 2
    assert "error: weights: no such file" in capsys.readouterr().err
