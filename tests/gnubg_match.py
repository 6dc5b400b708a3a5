"""Run in a subprocess by tests/test_matchfiles_gnubg.py (GNU Backgammon can hang or crash its process): GNU
Backgammon (the ``gnubg`` package) plays a match between two of its 0-ply players and exports it as ``.mat``,
or imports a ``.mat`` file; either way the match as GNU Backgammon holds it (``gnubg.match()``: each game's
dice, moves and cube actions, and its result) is written as JSON.

``python tests/gnubg_match.py play LENGTH SEED OUT.mat OUT.json`` (a match), ``... money GAMES SEED OUT.mat
OUT.json`` (a money session of GAMES games) or ``... import IN.mat OUT.json``.
"""

from __future__ import annotations

import json
import sys


def main() -> None:
    import gnubg

    gnubg.command("set threads 1")
    if sys.argv[1] in ("play", "money"):
        length, seed, mat, out = sys.argv[2:]
        gnubg.command(f"set seed {int(seed)}")
        for player in (0, 1):
            gnubg.command(f"set player {player} gnubg")
            gnubg.command(f"set player {player} chequerplay evaluation plies 0")
            gnubg.command(f"set player {player} cubedecision evaluation plies 0")
        if sys.argv[1] == "play":
            gnubg.command(f"new match {int(length)}")
        else:  # a money session goes on for ever unless each game is started by hand
            gnubg.command("set automatic game off")
            for _ in range(int(length)):
                gnubg.command("new game")
        gnubg.command(f"export match mat {mat}")
    else:
        mat, out = sys.argv[2:]
        gnubg.command(f"import mat {mat}")
    match = gnubg.match(analysis=0, boards=0, statistics=0, verbose=0)
    games = [
        {"info": game["info"], "actions": [
            {key: action.get(key) for key in ("player", "action", "dice", "move")} for action in game["game"]
        ]}
        for game in match["games"]
    ]
    with open(out, "w") as stream:
        json.dump({"info": match["match-info"], "games": games}, stream)


if __name__ == "__main__":
    main()
