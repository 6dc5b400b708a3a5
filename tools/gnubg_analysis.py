"""GNU Backgammon's own analysis of matches it plays, as the oracle of tests/test_gameanalysis_gnubg.py.

For each session named below, GNU Backgammon (the ``gnubg`` package, the ``peers`` extra) plays a short match
or a money session between two of its 0-ply players, analyses it at 0 plies (checker plays and cube decisions
at 0 plies, cubeful, as its analysis evaluates them; the luck of each roll), exports it as ``.mat`` and saves
it as SGF (its analysis kept there: each move's list of moves with their equities, each cube decision's
outputs, each roll's luck). That SGF is read back and the analysis written as JSON beside the ``.mat``: per
game its score, and per decision (in the order of the file) the player, the roll, the moves' equities (best
first, GNU Backgammon's ``rScore``: normalised equity), the index of the move played, the luck, the cube
decision's no-double and double-take equities (normalised with GNU Backgammon's own ``mwc2eq`` in a match)
and GNU Backgammon's marks; per player the statistics it prints (``show statistics match``: counts, error
totals and rates, luck, rating words, results).

``python tools/gnubg_analysis.py [OUTDIR]`` (default ``tests/data``) writes ``gnubg-analysis-NAME.mat`` and
``.json`` for each session; GNU Backgammon runs in a child process with a timeout (it can hang). Made with
gnubg 1.1.0a16 (the files record the version).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

#: (name, kind, length or games, seed): two short matches and a money session.
SESSIONS = (("match3-seed34", "match", 3, 34), ("match5-seed21", "match", 5, 21), ("money4-seed13", "money", 4, 13))
TIMEOUT = 600
#: The players' evaluation noise (GNU Backgammon's "noise": a normal error of this deviation on each
#: evaluation), so that they err, one less than the other; the analysis is noiseless.
NOISE = (0.015, 0.04)


def child(kind: str, size: int, seed: int, mat: str, sgf: str) -> dict[str, Any]:
    """In the child: play, analyse, export and read the analysis back."""
    import gnubg

    fd = os.dup(1)
    with tempfile.TemporaryFile(mode="w+") as sink:
        os.dup2(sink.fileno(), 1)

        def command(text: str) -> str:
            sys.stdout.flush()
            sink.seek(0)
            sink.truncate()
            gnubg.command(text)
            sys.stdout.flush()
            sink.seek(0)
            return sink.read()

        command("set threads 1")
        command(f"set seed {seed}")
        for player in (0, 1):
            command(f"set player {player} gnubg")
            command(f"set player {player} chequerplay evaluation plies 0")
            command(f"set player {player} cubedecision evaluation plies 0")
            for part in ("chequerplay", "cubedecision"):  # noisy players, so that the analysis finds errors
                # deterministic noise (a function of the position): the same match from the same seed
                command(f"set player {player} {part} evaluation noise {NOISE[player]}")
                command(f"set player {player} {part} evaluation deterministic on")
        for part in ("chequerplay", "cubedecision"):
            command(f"set analysis {part} evaluation plies 0")
            command(f"set analysis {part} evaluation cubeful on")
        for what in ("moves", "cube", "luck"):
            command(f"set analysis {what} on")
        if kind == "match":
            command(f"new match {size}")
        else:  # money: the rules a .mat cannot state are those read_match assumes (no Jacoby rule, no beavers)
            command("set jacoby off")
            command("set beavers 0")
            command("set automatic game off")
            for _ in range(size):
                command("new game")
        command("analyse match")
        command(f"export match mat {mat}")
        command(f"save match {sgf}")
        statistics = command("show statistics match")
        games = gnubg.match(analysis=0, boards=0, statistics=0, verbose=0)["games"]
        result = read_sgf(Path(sgf).read_text(), games, gnubg)
        os.dup2(fd, 1)
    result["statistics"] = parse_statistics(statistics)
    result["statistics_text"] = statistics
    result["gnubg"] = gnubg.__version__
    result["session"] = {"kind": kind, "size": size, "seed": seed}
    return result


def nodes_of(text: str) -> list[list[dict[str, list[str]]]]:
    """The SGF's game trees, each a list of nodes (property name to values)."""
    games: list[list[dict[str, list[str]]]] = []
    i, depth = 0, 0
    node: dict[str, list[str]] = {}
    name = ""
    while i < len(text):
        c = text[i]
        if c == "(":
            depth += 1
            games.append([])
        elif c == ")":
            depth -= 1
        elif c == ";":
            node = {}
            games[-1].append(node)
        elif c == "[":
            j, value = i + 1, []
            while text[j] != "]":
                if text[j] == "\\":
                    j += 1
                value.append(text[j])
                j += 1
            node.setdefault(name, []).append("".join(value))
            i = j
        elif c.isalpha():
            j = i
            while text[j].isalpha():
                j += 1
            name = text[i:j]
            i = j - 1
        i += 1
    return games


def pairs_of(letters: str, player: int) -> list[list[int]]:
    """An SGF move's (from, to) pairs in the mover's numbering (25 the bar, 0 off)."""
    points = [25 if c == "y" else 0 if c == "z" else (ord("x") - ord(c) if player else ord(c) - ord("a")) + 1
              for c in letters]
    return [points[k:k + 2] for k in range(0, len(points), 2)]


def read_sgf(text: str, games: list[dict[str, Any]], gnubg: Any) -> dict[str, Any]:
    """The analysis in GNU Backgammon's SGF, the match's games (``gnubg.match()``) giving scores and rules."""
    out = []
    for tree, game in zip(nodes_of(text), games):
        info = game["info"]
        length = int(tree[0]["MI"][0].split(":")[1]) if "MI" in tree[0] else 0
        score = (info["score-X"], info["score-O"])
        crawford = int(bool(info.get("crawford", False)))
        cube, owner = 1, -1
        rows = []
        for node in tree[1:]:
            colour = "W" if "W" in node else "B" if "B" in node else None
            if colour is None:
                continue
            player = 0 if colour == "W" else 1  # W is GNU Backgammon's player 0 (X), B its player 1 (O)
            value = node[colour][0]
            row: dict[str, Any] = {"player": "XO"[player], "cube": cube}
            if "DA" in node:
                fields = node["DA"][0].split()
                outputs = [float(x) for x in fields[7:21]]
                nd, dt = outputs[6], outputs[13]
                if length:  # the doubler's outputs, in its chances: normalised from its side
                    doubler = 1 - player if value in ("take", "drop") else player
                    ci = gnubg.cubeinfo(cube, owner, doubler, length, score, crawford)
                    nd, dt = gnubg.mwc2eq(nd, ci), gnubg.mwc2eq(dt, ci)
                row["cube_analysis"] = {"nd": nd, "dt": dt, "dp": 1.0, "outputs": outputs}
            if value in ("double", "take", "drop"):
                row["action"] = value
                if value == "take":
                    cube, owner = 2 * cube, player
            else:
                row["action"] = "move"
                row["dice"] = [int(value[0]), int(value[1])]
                row["move"] = pairs_of(value[2:], player)
                if "A" in node:
                    played, *moves = node["A"]  # every legal move (distinct results), best first
                    split = [m.split() for m in moves]
                    row["moves"] = len(moves)
                    row["best"] = pairs_of(split[0][0], player)
                    row["best_equity"] = float(split[0][9])  # rScore: normalised cubeful equity
                    row["equity"] = float(split[int(played)][9])
                if "LU" in node:
                    row["luck"] = float(node["LU"][0])
            marks = {"BM": {"2": "very bad", "1": "bad"}, "BC": {"2": "very bad", "1": "bad"}}
            for key in ("BM", "BC"):
                if key in node:
                    row["mark" if key == "BM" else "cube_mark"] = marks[key][node[key][0]]
            if "DO" in node:
                row["mark"] = "doubtful"
            if "DC" in node:
                row["cube_mark"] = "doubtful"
            rows.append(row)
        out.append({"score": list(score), "crawford": bool(crawford), "length": length, "winner": info["winner"],
                    "points": info["points-won"], "decisions": rows})
    return {"games": out}


SECTIONS = ("Chequerplay statistics", "Luck statistics", "Cube statistics", "Overall statistics")


def parse_statistics(text: str) -> dict[str, dict[str, list[str]]]:
    """``show statistics match``'s table: per section, each line's label and its two players' columns."""
    found: dict[str, dict[str, list[str]]] = {}
    section = "players"
    for line in text.splitlines():
        if line.strip() in SECTIONS:
            section = line.strip()
            continue
        if len(line) < 42 or not line[:41].strip():
            continue
        label = line[:41].strip()
        cells = [line[41:65].strip(), line[65:].strip()]
        found.setdefault(section, {})[label] = cells
    return found


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "child":
        how, games, dice, mat, sgf, out = sys.argv[2:]
        result = child(how, int(games), int(dice), mat, sgf)
        Path(out).write_text(json.dumps(result) + "\n")
        return
    outdir = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent.parent / "tests" / "data"
    for name, kind, size, seed in SESSIONS:
        with tempfile.TemporaryDirectory() as work:
            mat, sgf, target = (str(outdir / f"gnubg-analysis-{name}.mat"), str(Path(work) / "m.sgf"),
                                str(outdir / f"gnubg-analysis-{name}.json"))
            subprocess.run([sys.executable, __file__, "child", kind, str(size), str(seed), mat, sgf, target],
                           check=True, timeout=TIMEOUT, stdout=subprocess.DEVNULL)
        print(name, "written")


if __name__ == "__main__":
    main()
