"""GNU Backgammon's own SGF of the matches committed as ``.mat`` test data (tests/test_matchfiles_sgf.py).

    python tools/gnubg_sgf.py

For each match of tests/data (``gnubg-match3-seed1``, ``gnubg-match3-seed5``, ``gnubg-money4-seed3``), GNU
Backgammon (the ``gnubg`` package, 1.1.0a16) plays it again as tests/gnubg_match.py played it (0-ply
players, ``set seed SEED``), exports it as ``.mat``, which must be the committed file but for its date line
(so the SGF is of the same match; the SGF's ``DT[]``, the day of the export, is set to the committed file's
``EventDate``), clears the players' stored move analysis (``analysis clear match``: it would make
the files fifty times larger and is not what the tests read) and saves the match as SGF beside the ``.mat``
(``save match tests/data/NAME.sgf``). Each match is played in a process of its own, under a timeout: GNU
Backgammon keeps its state in its process and can hang.
"""

from __future__ import annotations

import datetime
import re
import subprocess
import sys
import tempfile
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
#: Each match: its file name, how tests/gnubg_match.py played it (play LENGTH or money GAMES) and its seed.
MATCHES = [("gnubg-match3-seed1", "play", 3, 1), ("gnubg-match3-seed5", "play", 3, 5),
           ("gnubg-money4-seed3", "money", 4, 3)]


def play(kind: str, length: int, seed: int, mat: str, sgf: str) -> None:
    """In this process: GNU Backgammon plays the match and writes it as ``mat`` and ``sgf``."""
    import gnubg

    gnubg.command("set threads 1")
    gnubg.command(f"set seed {seed}")
    for player in (0, 1):
        gnubg.command(f"set player {player} gnubg")
        gnubg.command(f"set player {player} chequerplay evaluation plies 0")
        gnubg.command(f"set player {player} cubedecision evaluation plies 0")
    if kind == "play":
        gnubg.command(f"new match {length}")
    else:  # a money session goes on for ever unless each game is started by hand
        gnubg.command("set automatic game off")
        for _ in range(length):
            gnubg.command("new game")
    gnubg.command(f"export match mat {mat}")
    gnubg.command("analysis clear match")
    gnubg.command(f"save match {sgf}")


def _undated(mat: str) -> str:
    """A .mat text without its date line (GNU Backgammon writes the day it exports)."""
    return re.sub(r"; \[EventDate [^\n]*\n", "", mat)


def main() -> None:
    if sys.argv[1:2] == ["--one"]:
        how, games, number, mat, sgf = sys.argv[2:]
        play(how, int(games), int(number), mat, sgf)
        return
    for name, kind, count, seed in MATCHES:
        with tempfile.TemporaryDirectory() as work:
            exported, saved = Path(work) / "gnubg.mat", Path(work) / "gnubg.sgf"
            subprocess.run([sys.executable, __file__, "--one", kind, str(count), str(seed), str(exported),
                            str(saved)], check=True, timeout=600, stdout=subprocess.DEVNULL)
            committed = (DATA / f"{name}.mat").read_text()
            date = re.search(r'; \[EventDate "(\d{4})\.(\d\d)\.(\d\d)"\]', committed)
            assert date is not None
            if _undated(exported.read_text()) != _undated(committed):
                raise SystemExit(f"{name}: GNU Backgammon played another match than the committed .mat")
            text = saved.read_text().replace(f"DT[{datetime.date.today().isoformat()}]", f"DT[{date[1]}-{date[2]}-{date[3]}]", 1)
            (DATA / f"{name}.sgf").write_text(text)
            print(f"{name}.sgf written", file=sys.stderr)


if __name__ == "__main__":
    main()
