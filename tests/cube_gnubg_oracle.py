"""GNU Backgammon's own 0-ply cube analysis (the ``gnubg`` package on PyPI), run in a child process: for each
position its cubeless 0-ply outputs (``gnubg.evaluate``, full precision), its class (``gnubg.classify``) and
the cubeful equities and proper action its ``hint`` command prints (6 decimals, normalised equity).

Run as ``python cube_gnubg_oracle.py`` with a JSON list of cases on stdin; one JSON object per case on stdout.
A case: ``board`` (GNU Backgammon's ``(opponent, player)``), ``match`` (0 for money), ``score`` (player's,
opponent's), ``crawford``, ``cube``, ``owner`` (``"centred"``, ``"own"``, ``"opponent"``), ``jacoby``,
``beavers`` and ``plies`` (0 unless given); or ``boards`` alone, for their cubeless 0-ply outputs.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from typing import Any

LINE = re.compile(r"^\s*\d\.\s+(No double|No redouble|Double, take|Redouble, take|Double, pass|Redouble, pass)"
                  r"\s+([+-]\d+\.\d+)")


def run(cases: list[dict[str, Any]]) -> None:
    import gnubg

    out = sys.stdout
    fd = os.dup(1)
    with tempfile.TemporaryFile(mode="w+") as sink:
        os.dup2(sink.fileno(), 1)

        def command(text: str) -> str:
            sys.stdout.flush()
            sink.seek(0)
            sink.truncate()
            gnubg.command(text)
            sys.stdout.flush()
            os.fsync(1)
            sink.seek(0)
            return sink.read()

        command("set threads 1")
        command("set output digits 6")
        command("set output mwc off")
        command("set evaluation cubedecision evaluation plies 0")
        command("set evaluation cubedecision evaluation cubeful on")
        command("set evaluation cubedecision evaluation prune off")
        for case in cases:
            if "boards" in case:
                # the cubeless 0-ply outputs of many boards, one line
                context = gnubg.evalcontext(0, 0, 0, 0, 0.0)
                valued = [list(gnubg.evaluate(board, gnubg.cubeinfo(1, -1, 0, 0, (0, 0), 0, 0), context)[:5])
                          for board in case["boards"]]
                os.write(fd, (json.dumps({"outputs": valued}) + "\n").encode())
                continue
            command(f"set evaluation cubedecision evaluation plies {case.get('plies', 0)}")
            player = 1  # GNU Backgammon's "you", X, on roll
            if case["match"]:
                command(f"new match {case['match']}")
                command(f"set score {case['score'][1]} {case['score'][0]}")
                command(f"set crawford {'on' if case['crawford'] else 'off'}")
            else:
                command(f"set jacoby {'on' if case['jacoby'] else 'off'}")
                command(f"set beavers {3 if case['beavers'] else 0}")
                command("new session")
            opponent, mine = case["board"]
            board = [list(opponent), list(mine)]
            command(f"set board {gnubg.positionid(board)}")
            command(f"set turn {player}")
            command(f"set cube value {case['cube']}")
            owner = {"centred": "centre", "own": str(player), "opponent": str(1 - player)}[str(case["owner"])]
            command(f"set cube owner {owner}")
            text = command("hint")
            ci = gnubg.cubeinfo(int(case["cube"]), {"centred": -1, "own": 0, "opponent": 1}[str(case["owner"])], 0,
                                int(case["match"]), (int(case["score"][0]), int(case["score"][1])),
                                int(bool(case["crawford"])), 0)
            probs = gnubg.evaluate(board, ci, gnubg.evalcontext(0, 0, 0, 0, 0.0))
            lines = {}
            for line in text.splitlines():
                found = LINE.match(line)
                if found:
                    lines[found.group(1)] = float(found.group(2))
            action = re.search(r"Proper cube action: (.*?)(?: \(|$)", text, re.MULTILINE)
            result = {"outputs": list(probs[:5]), "class": int(gnubg.classify(board, 0)), "lines": lines,
                      "action": action.group(1).strip() if action else None, "text": text[-600:]}
            os.write(fd, (json.dumps(result) + "\n").encode())
    os.dup2(fd, 1)
    out.flush()


if __name__ == "__main__":
    run(json.load(sys.stdin))
