"""The nardy dialect of ``.mat`` (docs/rules.md, Match records): random games of every variant and rule flag
set, with and without the cube, in matches and money sessions, written and read back equal in both
implementations; transfers, extra rolls and ladders among them."""

from __future__ import annotations

import io
import itertools
import random
import re
from pathlib import Path
from typing import Optional

import pytest

import nardy_fast
from nardy_fast import Game, Match, match_record
from nardy_fast.cube import Cube
from nardy_fast.position import Position
from nardy_fast.records import CubeAction, MatchRecord, Ply

CASES: list[tuple[str, dict[str, object]]] = [
    ("short", {}),
    ("long", {}),
    ("long", {"block_check": "per_step", "first_roll_exception_doubles": (6,)}),
    ("sixone", {}),
    ("sixone", {"sixone_extra_roll_requires_play": True}),
    ("gulbar", {}),
    ("gulbar", {"first_roll_exception_doubles": ()}),
    ("crazy", {}),
    ("crazy", {"ladder_per_value": 4, "normal_doubles_first_rolls": 3}),
]


def random_games(Position: type[Position], variant: str, flags: dict[str, object], seed: int, count: int,
                 match: Optional[Match], cube: bool) -> list[Game]:
    """Games one after the other, moves picked at random (sorted by their results' keys first, so that both
    implementations play the same games), the cube doubled now and then and answered at random."""
    rng = random.Random(seed)
    games = []
    for number in range(count):
        game = Game(variant, seed=seed, game=number, position_class=Position, match=match,
                    cube=Cube() if cube and match is None else None, **flags)  # type: ignore[arg-type]
        while not game.is_over() and game.plies < 3000:
            if game.offered is not None:
                beaver = game.match.beavers and game.cube.value < 16 and rng.random() < 0.2
                (game.beaver if beaver else game.take if rng.random() < 0.7 else game.drop)()
            elif game.may_double() and rng.random() < 0.08:
                game.double()
            else:
                moves = sorted(game.legal_moves(), key=lambda move: move.result.zobrist)
                game.play(rng.choice(moves))
        games.append(game)
        if not game.is_over():
            break
        if match is not None:
            match = game.next_match()
            if match is None:
                break
    return games


def round_trip(record: MatchRecord, Position: type[Position]) -> str:
    out = io.StringIO()
    nardy_fast.write_match(record, out)
    again = nardy_fast.read_match(io.StringIO(out.getvalue()), position_class=Position)
    assert again == record
    return out.getvalue()


@pytest.mark.parametrize(("variant", "flags"), CASES, ids=[f"{v}-{'-'.join(map(str, f)) or 'default'}" for v, f in CASES])
@pytest.mark.parametrize("play", ["match", "money", "no cube"])
def test_random_games_round_trip(Position: type[Position], variant: str, flags: dict[str, object],
                                 play: str) -> None:
    compiled = Position is nardy_fast.Position and nardy_fast.IMPLEMENTATION == "cython"
    many = 12 if compiled else 1 if variant == "crazy" else 3  # the reference's ladders are slow
    seed = 17 + 1000 * CASES.index((variant, flags)) + len(play)
    match = Match(5) if play == "match" else Match(jacoby=True, beavers=True) if play == "money" else None
    games = random_games(Position, variant, flags, seed, many, match, play != "no cube")
    record = match_record(games, ("Ann Smith", "Bo"))
    text = round_trip(record, Position)
    assert ('; [Variant "' in text) == (variant != "short" or play == "no cube")
    for game, played in zip(record.games, games):
        assert game.positions(Position)[1:] == [move.result for _, move in played.history]
        assert game.winner == played.winner()
        assert game.cube_actions == tuple(CubeAction("white" if s == "w" else "black",
                                                     "drop" if a == "pass" else a) for _, s, a in played.actions)
    if play == "match":
        assert record.score == (games[-1].score() if games[-1].is_over() else games[-1].match.score)


def test_transfers_extra_rolls_and_ladders_are_written_and_read(Position: type[Position]) -> None:
    """The dialect's turn entries: a transfer segment ``[values]:`` before a roll, an extra roll after one, a
    crazy-gulbar ladder as one move (docs/rules.md, Match records)."""
    texts, records = {}, {}
    for variant in ("gulbar", "crazy", "sixone"):
        games = random_games(Position, variant, {}, 5, 2, None, False)
        record = records[variant] = match_record(games)
        texts[variant] = round_trip(record, Position)
        plies = [ply for game in record.games for ply in game.plies]
        if variant != "sixone":
            transfers = [ply for ply in plies if ply.roll is None]
            assert transfers and all(ply.pending for ply in transfers)
            assert any(f"[{''.join(map(str, ply.pending))}]:" in texts[variant] for ply in transfers)
        else:
            assert any(a.side == b.side and a.roll == (6, 1) for a, b in itertools.pairwise(plies))
    ladder = next(p for g in records["crazy"].games for p in g.plies if p.roll is not None and p.roll[0] == p.roll[1] and len(p.steps) > 4)
    assert isinstance(ladder, Ply) and ladder.roll is not None and f"{ladder.roll[0]}{ladder.roll[1]}: {ladder.text}" in texts["crazy"]


def test_records_of_both_implementations_agree() -> None:
    """A record written from one implementation's games is read by the other to equal values."""
    if nardy_fast.IMPLEMENTATION == "python":
        pytest.skip("the compiled core is not built")
    games = random_games(nardy_fast.Position, "gulbar", {}, 9, 3, Match(3), True)
    record = match_record(games)
    out = io.StringIO()
    nardy_fast.write_match(record, out)
    again = nardy_fast.read_match(io.StringIO(out.getvalue()), position_class=nardy_fast.reference.Position)
    assert again == record


def test_the_docs_examples_replay(Position: type[Position]) -> None:
    """Every match file shown in docs/rules.md, Match records, reads in both implementations and is written
    back as shown (its tags and lines)."""
    docs = (Path(__file__).resolve().parent.parent / "docs" / "rules.md").read_text(encoding="utf-8")
    section = docs[docs.index("## Match records") :]
    files = [block for block in re.findall(r"```text\n(.*?)```", section, flags=re.DOTALL) if "point match" in block]
    assert len(files) == 6
    for text in files:
        record = nardy_fast.read_match(io.StringIO(text), position_class=Position)
        written = round_trip(record, Position)
        if "EventDate" not in text:  # GNU Backgammon's own lines split its moves otherwise
            assert written.splitlines() == text.splitlines() + [""]
