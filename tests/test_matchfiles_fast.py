"""The fast path of reading ``.mat`` (``nardy_fast.matfast``) against the reader it stands in for
(``nardy_fast.matread``, every move replayed one at a time): the same records for random games of every variant
and rule flag set, with and without the cube, in matches and money sessions; the same errors for files changed
at random; its kernel (``replay_plies``) finding the moves ``records.find_move`` finds; and the move-line
kernels (the core's ``read_move_lines`` and the reference's twin) reading the same lines alike. The fast path
needs the compiled core's replay kernel: with the reference it steps aside, so these tests run on the core."""

from __future__ import annotations

import io
import random
import re
from dataclasses import replace
from pathlib import Path
from typing import Optional

import numpy as np
import pytest
from test_matchfiles_dialect import CASES, random_games

import nardy_fast
from nardy_fast import Match, match_record, matfast, matread, matreplay
from nardy_fast.position import Position
from nardy_fast.records import MatchRecord, Ply, Resignation, find_move

pytestmark = pytest.mark.skipif(nardy_fast.IMPLEMENTATION != "cython", reason="the compiled core is not built")

DATA = Path(__file__).parent / "data"


def text_of(record: MatchRecord) -> str:
    out = io.StringIO()
    nardy_fast.write_match(record, out)
    return out.getvalue()


def outcome(read: object, text: str) -> object:
    """What a reader makes of ``text``: its record, or its error's class and message."""
    try:
        return read(text)  # type: ignore[operator]
    except nardy_fast.NardyError as error:
        return type(error), str(error)


@pytest.mark.parametrize(("variant", "flags"), CASES, ids=[f"{v}-{'-'.join(map(str, f)) or 'default'}" for v, f in CASES])
@pytest.mark.parametrize("play", ["match", "money", "no cube"])
def test_the_same_records_as_move_by_move(variant: str, flags: dict[str, object], play: str) -> None:
    """Random games written and read by both readers to the record they were written from; the fast path
    reads every short and long nardy file itself (where no beaver makes the file's rules a guess)."""
    seed = 29 + 1000 * CASES.index((variant, flags)) + len(play)
    match = Match(5) if play == "match" else Match(jacoby=True, beavers=True) if play == "money" else None
    record = match_record(random_games(nardy_fast.Position, variant, flags, seed, 12, match, play != "no cube"))
    text = text_of(record)
    assert matfast.read_mat(text) == matread.read_mat(text) == record
    fast = matfast.read_fast(text)
    if variant in matfast.FAST_VARIANTS and "Beavers" not in text:
        assert fast == record
    elif variant not in matfast.FAST_VARIANTS:
        assert fast is None


def test_gnu_backgammons_files_take_the_fast_path() -> None:
    """GNU Backgammon's own matches (its step order, hits, cube actions, a resignation, a drop's result in a
    move line) are read by the fast path, to the reader's records."""
    for path in sorted(DATA.glob("gnubg-*.mat")):
        text = path.read_text()
        assert matfast.read_fast(text) == matread.read_mat(text)


#: The changes :func:`mutated` makes, each with the lines it applies to.
CHANGES = ("step", "roll", "number", "result", "drop", "repeat", "swap", "column", "score", "answer", "cube")


def mutated(text: str, rng: random.Random) -> str:
    """``text`` with one change a file may have: a step, a roll, a move number, a result, a column, a score,
    a cube's value or a cube answer changed, a line dropped or repeated, two lines swapped."""
    lines = text.splitlines()
    kind = rng.choice(CHANGES)
    wanted = {"step": "/", "roll": ":", "number": ")", "result": "Wins", "column": ")", "score": " : ",
              "answer": "Takes", "cube": "Doubles"}.get(kind, "")
    candidates = [i for i, line in enumerate(lines) if wanted in line] or list(range(len(lines)))
    at = rng.choice(candidates)
    line = lines[at]
    if kind == "step" and "/" in line:
        slash = rng.choice([i for i, c in enumerate(line) if c == "/"])
        lines[at] = line[: slash + 1] + str(rng.randrange(1, 25)) + line[slash + 1 :].lstrip("0123456789")
    elif kind == "roll" and ":" in line:
        colon = rng.choice([i for i, c in enumerate(line) if c == ":"])
        lines[at] = line[: colon - 1] + str(rng.randrange(1, 8)) + line[colon:]
    elif kind == "number" and ")" in line:
        lines[at] = f"{rng.randrange(1, 60):3d}" + line[line.index(")") :]
    elif kind == "result":
        lines[at] = re.sub(r"Wins \d+ points?", f"Wins {rng.randrange(1, 5)} points", line)
    elif kind == "drop":
        del lines[at]
    elif kind == "repeat":
        lines.insert(at, line)
    elif kind == "swap" and at + 1 < len(lines):
        lines[at], lines[at + 1] = lines[at + 1], line
    elif kind == "column" and ")" in line:  # the first entry in the other column
        gap = line.index(")") + 1
        lines[at] = line[:gap] + (" " * rng.choice([1, 29])) + line[gap:].lstrip()
    elif kind == "cube":
        lines[at] = re.sub(r"Doubles => \d+", f"Doubles => {rng.choice([1, 2, 4, 8])}", line)
    elif kind == "score":
        lines[at] = re.sub(r" : \d+", f" : {rng.randrange(3)}", line, count=1)
    else:
        lines[at] = line.replace("Takes", "Drops")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("variant", ["short", "long"])
def test_the_same_errors_as_move_by_move(variant: str) -> None:
    """Files changed at random: the reader with the fast path raises the error the move-by-move reader
    raises, message for message, or reads the same record."""
    rng = random.Random(3)
    texts = [text_of(match_record(random_games(nardy_fast.Position, variant, {}, seed, 3, match, True)))
             for seed, match in ((5, Match(3)), (6, Match()), (7, Match(jacoby=True)))]
    texts += [text_of(match_record(games_without_doubles(variant, seed, match)))
              for seed, match in ((8, Match(5)), (9, Match()), (10, None))]
    errors = 0
    for trial in range(400):
        text = mutated(rng.choice(texts), rng)
        slow = outcome(matread.read_mat, text)
        assert outcome(matfast.read_mat, text) == slow, trial
        errors += isinstance(slow, tuple)
    assert 100 < errors < 390  # most changes make a file that is no match, not all


def games_without_doubles(variant: str, seed: int, match: Optional[Match]) -> list[nardy_fast.Game]:
    """Three games of random moves, nobody doubling (the fast path's commonest game)."""
    rng = random.Random(seed)
    games = []
    for number in range(3):
        game = nardy_fast.Game(variant, seed=seed, game=number, match=match)
        while not game.is_over():
            game.play(rng.choice(sorted(game.legal_moves(), key=lambda move: move.result.zobrist)))
        games.append(game)
        match = game.next_match() if match is not None and match.length is not None else match
        if match is None:
            break
    return games


def test_the_kernel_finds_find_moves_moves() -> None:
    """``replay_plies`` on every ply of random games of every variant, its steps written in their canonical
    order, shuffled, and changed: the move ``find_move`` finds (its result and steps), or a stop where it
    finds none by comparing steps (a pending list, an illegal move: the caller's slow path)."""
    rng = random.Random(11)
    kernel = nardy_fast.Position.kernels.replay
    assert kernel is not None
    checked = stopped = 0
    for variant, flags in CASES:
        record = match_record(random_games(nardy_fast.Position, variant, flags, 41, 2, None, False))
        for game in record.games:
            for position, ply in zip(game.positions(), game.plies):
                pairs = [(step.src, step.dst) for step in ply.steps]
                how = rng.randrange(3)
                if how == 1:
                    rng.shuffle(pairs)
                elif how == 2 and pairs:
                    pairs[0] = (pairs[0][0], max(0, pairs[0][1] - 1))
                found = replay_one(kernel, position, ply, pairs)
                try:
                    expected = None if ply.roll is None else find_move(position, ply.roll, pairs, "", "")
                except nardy_fast.NardyError:
                    expected = None
                if found is None:
                    stopped += 1
                    assert expected is None or len(pairs) > matreplay.MAX_WRITTEN or len(ply.steps) > 8 or how == 2
                else:
                    checked += 1
                    assert expected is not None and found == (expected.result, expected.steps)
    assert checked > 1000 and stopped > 100


def replay_one(kernel: object, position: Position, ply: Ply,
               pairs: list[tuple[int, int]]) -> Optional[tuple[Position, tuple[object, ...]]]:
    """The kernel's move for one ply, or ``None`` where it stops."""
    if len(pairs) > matreplay.MAX_WRITTEN:
        return None
    written = np.zeros((1, 2 * matreplay.MAX_WRITTEN), dtype=np.int8)
    written[0, : 2 * len(pairs)] = [v for pair in pairs for v in pair]
    results = np.zeros((1, 64), dtype=np.int8)
    steps = np.zeros((1, 8), dtype=np.uint16)
    levels = np.zeros(1, dtype=np.int8)
    stops = np.zeros(1, dtype=np.int64)
    rolls = np.array([ply.roll or (0, 0)], dtype=np.int8)
    kernel(position.to_array()[None, :], np.array([0]), np.array([1]), rolls, written,  # type: ignore[operator]
           np.array([len(pairs)], dtype=np.int8), results, steps, levels, stops)
    if stops[0] >= 0:
        return None
    result = matreplay.position_of(results[0], position)
    assert result == nardy_fast.Position.from_array(results[0]) and result.state == result.from_array(results[0]).state
    return result, tuple(matreplay.step_of(int(code)) for code in steps[0, : levels[0]])


def test_the_kernel_refuses_arrays_that_do_not_agree_and_stops_at_rows_that_are_no_position() -> None:
    """``replay_plies`` is reached with the fast path's own arrays, but refuses others: shapes that do not
    agree and a game's plies out of range are a ``NardyError``; a start that is no position (15 White
    checkers more on one point) is left to the caller, nothing written."""
    kernel = nardy_fast.Position.kernels.replay
    assert kernel is not None
    start = nardy_fast.Position.start("short").to_array()[None, :]

    def call(starts: np.ndarray, first: int, last: int, count: int = 1, width: int = 2 * matreplay.MAX_WRITTEN) -> np.ndarray:
        results = np.zeros((count, 64), dtype=np.int8)
        stops = np.full(1, -2, dtype=np.int64)
        kernel(starts, np.array([first]), np.array([last]), np.full((count, 2), 3, dtype=np.int8),
               np.zeros((count, width), dtype=np.int8), np.zeros(count, dtype=np.int8), results,
               np.zeros((count, 4), dtype=np.uint16), np.zeros(count, dtype=np.int8), stops)
        assert not results.any()
        return stops

    with pytest.raises(nardy_fast.NardyError, match="shapes"):
        call(start, 0, 1, width=4)
    with pytest.raises(nardy_fast.NardyError, match="out of range"):
        call(start, 0, 2)
    spoiled = start.copy()
    spoiled[0, 0] += 15
    assert call(spoiled, 0, 1)[0] == 0
    assert call(start, 0, 1)[0] == 0  # no written pairs for a 3-3: no such move, left to find_move


def test_the_writer_refuses_a_resignation_before_a_games_end() -> None:
    """``write_match`` (its check made in its one pass over the events) writes a game that a resignation ends
    and refuses one where a resignation (the same one, or another) comes before the end."""
    record = matread.read_mat((DATA / "gnubg-match3-seed5.mat").read_text())
    game = next(g for g in record.games if isinstance(g.events[-1], Resignation))
    text_of(record)
    resignation = game.events[-1]
    for events in ((resignation, *game.events), (*game.events[:-1], resignation, game.events[0], resignation)):
        spoiled = replace(record, games=tuple(replace(g, events=events) if g is game else g for g in record.games))
        with pytest.raises(nardy_fast.NardyError, match="a resignation ends a game"):
            text_of(spoiled)


def read_lines(kernel: object, text: bytes) -> tuple[object, ...]:
    """Everything a move-line kernel makes of ``text``: the plies read and its arrays."""
    count = text.count(b"\n") + 1
    kinds = np.full(count, -1, dtype=np.int8)
    numbers, plies, runs = (np.full(count, -1, dtype=np.int64) for _ in range(3))
    rolls = np.zeros((2 * count, 2), dtype=np.int8)
    npairs = np.zeros(2 * count, dtype=np.int8)
    pairs = np.zeros((2 * count, 2 * matreplay.MAX_WRITTEN), dtype=np.int8)
    made = kernel(text, 15, kinds, numbers, plies, runs, rolls, npairs, pairs)  # type: ignore[operator]
    return made, kinds.tolist(), numbers.tolist(), plies.tolist(), runs.tolist(), rolls[:made].tolist(), \
        npairs[:made].tolist(), pairs[:made, :8].tolist()


KERNELS = (nardy_fast.Position.kernels.move_lines, nardy_fast.reference.Position.kernels.move_lines)


def test_the_move_line_kernels_read_lines_by_hand() -> None:
    """The core's ``read_move_lines`` and its reference twin on lines whose kinds, numbers, dice and pairs
    are read off by hand (points bar 25 and off 0, a repeat, hits; a line of another form is 0)."""
    lines = [
        "  1)                             31: 8/5 6/5",  # one ply in the right column
        "  2) 66: 24/18(2) 13/7 13/7   44: bar/21*/17 6/2(2)",  # two plies
        "  3) 42: 6/2 6/off           31:",  # two plies, the second of no step
        "  5) 21: 6/4 6/5",  # one ply in the left column (numbers not in a row would end a run)
        " Game 2", "  6) 31: 8/5  6/5", "  7) 31: 8/9", "  8) 31: 8/5s", "  9) 31: 123/4", " 10) 66: 24/18(9) 13/7(9)",
        " 11) 31: 8/5 Doubles => 2", "                  12) 31: 8/5 x", " 13)                 31: 8/5 42: 6/2",
        "1234567890) 31: 8/5", " 14) 31: 8/5,", " 15) 71: 8/1", " 16) 31:8/5", "",
    ]
    others = len(lines) - 4
    expected = (
        6, [2, 3, 3, 1] + [0] * others, [1, 2, 3, 5] + [0] * others, [0, 1, 3, 5] + [6] * others,
        [1, 3, 3] + list(range(4, len(lines) + 1)), [[3, 1], [6, 6], [4, 4], [4, 2], [3, 1], [2, 1]],
        [2, 4, 4, 2, 0, 2],
        [[8, 5, 6, 5, 0, 0, 0, 0], [24, 18, 24, 18, 13, 7, 13, 7], [25, 21, 21, 17, 6, 2, 6, 2],
         [6, 2, 6, 0, 0, 0, 0, 0], [0] * 8, [6, 4, 6, 5, 0, 0, 0, 0]],
    )
    for kernel in KERNELS:
        assert read_lines(kernel, "\n".join(lines).encode()) == expected


def spoiled_line(line: str, rng: random.Random) -> str:
    """``line`` with a character put in or taken out, a space put in, a number changed, or the gap after its
    move number made another (either side of the right column's edge)."""
    at = rng.randrange(len(line) + 1)
    how = rng.randrange(5)
    if how == 4 and ")" in line:
        number, _, rest = line.partition(")")
        return number + ")" + " " * rng.choice([0, 1, 14, 15, 16, 29]) + rest.lstrip(" ")
    if how == 0:
        return line[:at] + rng.choice(" 0123456789/*()abfors:x\t\u00e9") + line[at:]
    if how == 1:
        return line[:at] + line[at + 1 :]
    if how == 2:
        return line[:at] + " " + line[at:]
    return line[:at] + re.sub(r"\d+", lambda m: str(rng.choice([0, 7, 25, 26, 99, 100])), line[at:], count=1)


def test_the_move_line_kernels_agree() -> None:
    """The core's ``read_move_lines`` and its reference twin make the same of the lines of random games of
    every variant (transfers and ladders are lines of other forms) and of those lines spoiled at random."""
    rng = random.Random(17)
    lines: list[str] = []
    for variant, flags in CASES:
        record = match_record(random_games(nardy_fast.Position, variant, flags, 43, 2, Match(3), True))
        lines += text_of(record).splitlines()
    moves = [line for line in lines if ")" in line]
    spoiled = [spoiled_line(rng.choice(moves), rng) for _ in range(3000)]
    for text in (lines, spoiled, moves + spoiled):
        data = "\n".join(text).encode("utf-8", "surrogatepass")
        core, twin = (read_lines(kernel, data) for kernel in KERNELS)
        assert core == twin
        assert 0 < sum(kind != 0 for kind in core[1]) < len(text)  # type: ignore[attr-defined]


def test_the_move_line_kernels_refuse_arrays_that_do_not_agree() -> None:
    """Arrays of other shapes than the text's lines, or too few ply rows, are a ``NardyError`` in both."""
    for kernel in KERNELS:
        assert kernel is not None
        for text, count, rows in ((b"1) 31: 8/5\n2) 31: 8/5", 1, 2), (b"1) 31: 8/5", 2, 4), (b"1) 31: 8/5", 1, 1)):
            numbers, plies, runs = (np.zeros(count, dtype=np.int64) for _ in range(3))
            with pytest.raises(nardy_fast.NardyError, match="read_move_lines"):
                kernel(text, 15, np.zeros(count, dtype=np.int8), numbers, plies, runs, np.zeros((rows, 2), dtype=np.int8),
                       np.zeros(rows, dtype=np.int8), np.zeros((rows, 2 * matreplay.MAX_WRITTEN), dtype=np.int8))


@pytest.mark.parametrize("variant", ["short", "long"])
def test_move_lines_the_kernel_leaves_are_read_in_order(variant: str) -> None:
    """Move lines written in forms the kernel leaves to the patterns (a step's ``s``, two spaces in an entry)
    among those it reads (a point's leading zero, a repeat of one): the fast path reads the file, to the
    record it was written from."""
    rng = random.Random(23)
    record = match_record(random_games(nardy_fast.Position, variant, {}, 47, 4, Match(5), True))
    lines = text_of(record).splitlines()
    rewrites = [(r"(/[0-9]+)", r"\1s"), (r"([^ ]+/[^ ]+) (?=[^ ]+/)", r"\1  "), (r"(?<![0-9/])([0-9])/", r"0\1/"),
                (r"([0-9a-z]+/[0-9a-z*]+)(?= |$)", r"\1(1)")]
    for at, line in enumerate(lines):
        if "/" in line and rng.random() < 0.5:
            lines[at] = re.sub(*rng.choice(rewrites), line, count=1)
    text = "\n".join(lines) + "\n"
    assert text != text_of(record)
    assert matfast.read_fast(text) == matread.read_mat(text) == record
