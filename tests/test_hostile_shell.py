"""Hostile use of the Python shell: games and their records, rollouts, the command line, the benchmark and
Dask (issue 19, items 6, 7, 8, 12, 13 and 14, and the sweeps of names and sizes over these modules).

Checked here:

1. numbers in texts: a record's seed or game number of thousands of digits (past Python's 4,300-digit
   limit on converting text to an integer) and the command line's integers get a short ``NardyError``
   naming the field; only ASCII digits are digits on the command line, as in position texts;
2. names: every argument compared with a list of names (variants, openings, sides, turns, sections) takes
   a NumPy array or an object whose ``__eq__`` or ``__hash__`` raises as a bad name, a ``NardyError``
   naming the argument, never NumPy's "truth value is ambiguous" or the object's own error; a ``str``
   subclass equal to a name is that name;
3. ``Rollout``: a rollout of no games is refused (its figures would divide by zero), and ``combine`` takes
   rollouts only;
4. the command line quotes what it was given through ``nardy_fast.errors.quote``: one short line for a
   huge value, whichever check (its own, argparse's or the library's) refuses it;
5. ``bench --games 1``: the run the user asked for, the control that cannot split one game left out and
   said so;
6. ``nardy_fast.distributed`` refuses a closed ``Client`` with a ``NardyError`` naming ``client``;
7. sizes: every count these modules take has a documented bound and a ``NardyError`` past it, before any
   work starts.

Expected errors are the package's rules (the field named, the value quoted at most ``QUOTE_LIMIT``
characters); expected results are those of the same call with a plain value.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import nardy_fast
import nardy_fast.bench.cli as bench_cli
import nardy_fast.cli as cli
from nardy_fast import Game, Rollout, bench, corpus, numbering
from nardy_fast.errors import QUOTE_LIMIT, IllegalMoveError, NardyError
from nardy_fast.perft import perft_cases
from nardy_fast.position import Position as BasePosition

HAS_CORE = nardy_fast.IMPLEMENTATION == "cython"
core_only = pytest.mark.skipif(not HAS_CORE, reason="the compiled core is not built or not in use")

#: The longest message a rejected input may give: a few quoted values of at most QUOTE_LIMIT characters
#: and the words around them.
SHORT = 3 * QUOTE_LIMIT + 200
#: Digits enough to pass Python's limit on converting text to an integer (4,300 by default).
HUGE = "9" * 5000


class HostileStr(str):
    """A string whose comparisons and hash raise: only its plain ``str`` value may be used."""

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("HostileStr.__eq__")

    def __ne__(self, other: object) -> bool:
        raise RuntimeError("HostileStr.__ne__")

    def __hash__(self) -> int:
        raise RuntimeError("HostileStr.__hash__")


class HostileObject:
    """An object whose comparisons, hash and str raise."""

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("HostileObject.__eq__")

    def __ne__(self, other: object) -> bool:
        raise RuntimeError("HostileObject.__ne__")

    def __hash__(self) -> int:
        raise RuntimeError("HostileObject.__hash__")

    def __str__(self) -> str:
        raise RuntimeError("HostileObject.__str__")

    def __repr__(self) -> str:
        return "<HostileObject>"


#: Values that are no name, whatever list of names they are compared with.
NOT_NAMES: dict[str, Callable[[], object]] = {
    "array of two": lambda: np.array(["long", "fresh_roll"]),
    "array of one": lambda: np.array(["long"]),
    "2-d array": lambda: np.array([["white"]]),
    "hostile str": lambda: HostileStr("nothing"),
    "hostile object": HostileObject,
}


def rejects(call: Callable[[], object], field: str, cls: type[Exception] = NardyError) -> str:
    """The message of the ``cls`` that ``call`` raises, checked to name ``field`` and to be short."""
    with pytest.raises(cls) as caught:
        call()
    message = str(caught.value)
    assert message.startswith(f"{field}: "), message
    assert len(message) <= SHORT, len(message)
    return message


# --- 1. numbers in texts ----------------------------------------------------------------------------------


def record_of(**changes: str) -> str:
    """The record of a short seeded game, with header fields replaced (``seed="..."``)."""
    game = Game("long", seed=1, game=3)
    for _ in range(4):
        game.play(game.legal_moves()[0])
    text = game.record()
    for name, value in changes.items():
        old = f" {name}={getattr(game, name)} "
        assert old in text
        text = text.replace(old, f" {name}={value} ", 1)
    return text


@pytest.mark.parametrize("field", ["seed", "game"])
@pytest.mark.parametrize(
    "digits", [HUGE, "0" * 5000 + "1" + "0" * 20, str(1 << 64), "9" * 25], ids=["5000", "zeros", "2**64", "25"]
)
def test_a_record_number_out_of_range_names_its_field(field: str, digits: str) -> None:
    message = rejects(lambda: Game.from_record(record_of(**{field: digits})), field)
    assert "2**64" in message


def test_a_record_number_may_have_leading_zeros() -> None:
    text = record_of(seed="0" * 5000 + "1", game="0" * 5000 + "3")
    assert Game.from_record(text).record() == record_of()


def test_the_largest_seed_and_game_number_replay(Position: type[BasePosition]) -> None:
    top = (1 << 64) - 1
    game = Game("short", seed=top, game=top, position_class=Position)
    game.play(game.legal_moves()[-1])
    again = Game.from_record(game.record(), position_class=Position)
    assert (again.seed, again.game, again.record()) == (top, top, game.record())


def test_a_record_names_each_header_field_once_and_numbers_its_plies() -> None:
    text = record_of()
    twice = text.replace(" seed=1 ", " seed=1 seed=1 ", 1)
    rejects(lambda: Game.from_record(twice), "record")
    header, first, *rest = text.splitlines()
    renumbered = "\n".join([header, "7" + first[1:], *rest]) + "\n"
    rejects(lambda: Game.from_record(renumbered), "record")


def test_game_numbers_are_named_in_their_errors() -> None:
    message = rejects(lambda: Game("long", game=-1), "game")
    assert "0 <= game < 2**64" in message


@pytest.mark.parametrize(
    "text",
    [
        f"long w 1:{HUGE}",
        f"long w {HUGE}:15,12:-15",
        f"long w 12:-15,24:15 off={HUGE}/0",
        f"long w 12:-15,24:15 played={HUGE}/0",
        f"crazy w 12:-15,24:15 ladder_per_value={HUGE}",
        f"gulbar w 12:-15,24:15 pending={','.join('1' * 3000)}",
    ],
    ids=["count", "point", "off", "played", "flag", "pending"],
)
def test_position_texts_with_huge_numbers_are_short_errors(Position: type[BasePosition], text: str) -> None:
    with pytest.raises(NardyError) as caught:
        Position.from_text(text)
    assert len(str(caught.value)) <= SHORT
    assert "9" * QUOTE_LIMIT not in str(caught.value) and "1," * QUOTE_LIMIT not in str(caught.value)


# --- 2. names ----------------------------------------------------------------------------------------------

NAMED_CALLS: dict[str, tuple[str, Callable[[type[BasePosition], object], object]]] = {
    "Game start": ("start", lambda P, v: Game(v, position_class=P)),  # type: ignore[arg-type]
    "Game opening": ("opening", lambda P, v: Game("long", opening=v, position_class=P)),  # type: ignore[arg-type]
    "Position.start": ("variant", lambda P, v: P.start(v)),  # type: ignore[arg-type]
    "from_board variant": ("variant", lambda P, v: P.from_board(v, P.start("long").board)),  # type: ignore[arg-type]
    "from_board turn": ("turn", lambda P, v: P.from_board("long", P.start("long").board, turn=v)),  # type: ignore[arg-type]
    "from_gnubg_id turn": ("turn", lambda P, v: P.from_gnubg_id("4HPwATDgc/ABMA", turn=v)),  # type: ignore[arg-type]
    "Rollout turn": ("turn", lambda P, v: Rollout((1, 0, 0, 0, 0, 0), 0, v)),  # type: ignore[arg-type]
    "to_own side": ("side", lambda P, v: numbering.to_own(1, v, "long")),  # type: ignore[arg-type]
    "to_white variant": ("variant", lambda P, v: numbering.to_white(1, "white", v)),  # type: ignore[arg-type]
}


@pytest.mark.parametrize("value", sorted(NOT_NAMES))
@pytest.mark.parametrize("call", sorted(NAMED_CALLS))
def test_what_is_no_name_is_a_bad_name(Position: type[BasePosition], call: str, value: str) -> None:
    field, function = NAMED_CALLS[call]
    rejects(lambda: function(Position, NOT_NAMES[value]()), field)


def test_a_game_opening_given_as_a_numpy_array_names_opening(Position: type[BasePosition]) -> None:
    # the issue's own case: an array of two names made NumPy raise "truth value ... is ambiguous"
    rejects(lambda: Game("long", opening=np.array(["fresh_roll", "use_single_dice"]), position_class=Position), "opening")  # type: ignore[arg-type]


class PlainStr(str):
    """A ``str`` subclass with a raising ``__eq__`` and ``__hash__`` whose value is a valid name."""

    __eq__ = HostileStr.__eq__
    __ne__ = HostileStr.__ne__
    __hash__ = HostileStr.__hash__


def test_a_str_subclass_is_the_name_it_spells(Position: type[BasePosition]) -> None:
    start = Position.start(PlainStr("short"))
    assert start == Position.start("short") and type(start.variant) is str
    board = Position.start("long").board
    assert Position.from_board(PlainStr("long"), board, turn=PlainStr("black")).turn == "black"
    game = Game(PlainStr("short"), seed=4, opening=PlainStr("use_single_dice"), position_class=Position)
    plain = Game("short", seed=4, opening="use_single_dice", position_class=Position)
    assert (game.record(), type(game.opening)) == (plain.record(), str)
    assert Rollout((1, 0, 0, 0, 0, 0), 0, PlainStr("black")) == Rollout((1, 0, 0, 0, 0, 0), 0, "black")
    assert numbering.to_own(1, PlainStr("black"), PlainStr("short")) == numbering.to_own(1, "black", "short")
    assert Game.from_record(PlainStr(game.record()), position_class=Position).record() == game.record()


def test_numpy_booleans_stratify_a_game() -> None:
    stratified = Game("long", seed=2, stratify=np.True_)  # type: ignore[arg-type]
    assert stratified.stratify is True
    assert stratified.record() == Game("long", seed=2, stratify=True).record()


def test_a_move_whose_str_raises_after_the_end_is_an_illegal_move(Position: type[BasePosition]) -> None:
    game = Game(Position.from_text("long w 1:1,13:-15 off=14/0"), seed=0)
    game.play(game.legal_moves()[0])
    assert game.is_over()
    rejects(lambda: game.play(HostileObject()), "move", IllegalMoveError)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", sorted(NOT_NAMES))
@pytest.mark.parametrize("field", ["variants", "sections"])
def test_bench_names_are_checked_before_any_work(
    field: str, value: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ran = guard_bench(monkeypatch)
    rejects(lambda: bench.main(1, None, 1, **{field: [NOT_NAMES[value]()]}), field)  # type: ignore[arg-type]
    assert not ran and capsys.readouterr().out == ""


def test_a_perft_budget_is_an_integer() -> None:
    assert perft_cases(np.int64(1000)) == perft_cases(1000)
    for bad in (np.array([1, 2]), -1, True, "100"):
        rejects(lambda: perft_cases(bad), "budget")  # type: ignore[arg-type]  # noqa: B023


# --- 3. Rollout ---------------------------------------------------------------------------------------------


def test_a_rollout_of_no_games_is_refused() -> None:
    # every figure of a rollout is a share of its games: with none, they divided by zero
    rejects(lambda: Rollout((0,) * 6, 0, "white"), "counts")


def test_a_rollout_of_unfinished_games_only_has_figures() -> None:
    given_up = Rollout((0,) * 6, 3, "black")
    assert given_up.games == 3 and given_up.equity == 0.0
    assert set(given_up.probabilities.values()) == {0.0}
    assert "3 games" in str(given_up)


@pytest.mark.parametrize(
    "counts", [(1, 2), (True, 0, 0, 0, 0, 0), (-1, 0, 0, 0, 0, 0), (1.0, 0, 0, 0, 0, 0), "123456", None]
)
def test_rollout_counts_are_six_integers(counts: Any) -> None:
    rejects(lambda: Rollout(counts, 0, "white"), "counts")


def test_rollout_counts_take_numpy_integers_as_ints() -> None:
    counts = np.array([5, 0, 1, 2, 0, 0])
    found = Rollout(tuple(counts), np.int64(1), "white")  # type: ignore[arg-type]
    assert found == Rollout((5, 0, 1, 2, 0, 0), 1, "white")
    assert all(type(c) is int for c in found.counts) and type(found.unfinished) is int


def test_rollout_games_are_bounded() -> None:
    top = Rollout((nardy_fast.rollouts.MAX_GAMES, 0, 0, 0, 0, 0), 0, "white")
    assert top.equity == 1.0
    rejects(lambda: Rollout((nardy_fast.rollouts.MAX_GAMES, 0, 0, 0, 0, 0), 1, "white"), "counts")
    assert "MAX_GAMES" in (Rollout.__doc__ or "")


ONE = Rollout((1, 0, 0, 0, 0, 0), 0, "white")


@pytest.mark.parametrize(
    ("parts", "field"),
    [
        ([1], "parts[0]"),
        ([None], "parts[0]"),
        (["white"], "parts[0]"),
        ([ONE, "x"], "parts[1]"),
        ([ONE, (1, 0, 0, 0, 0, 0)], "parts[1]"),
        (5, "parts"),
        ("ab", "parts"),
        (None, "parts"),
        ([], "parts"),
        ([ONE, Rollout((1, 0, 0, 0, 0, 0), 0, "black")], "parts"),
    ],
)
def test_combine_takes_rollouts_of_one_side_only(parts: Any, field: str) -> None:
    rejects(lambda: Rollout.combine(parts), field)


def test_combine_adds_rollouts_from_any_iterable() -> None:
    two = Rollout((0, 1, 0, 0, 0, 3), 2, "white")
    assert Rollout.combine(iter([ONE, two])) == Rollout((1, 1, 0, 0, 0, 3), 2, "white")


# --- 4. the command line quotes what it was given -----------------------------------------------------------

LONG = "x" * 100_000


def command_line(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = cli.main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def check_short_error(status: int, out: str, err: str, option: str) -> None:
    """One line on stderr naming ``option`` (its start, for an option cut short), status 2, no value
    quoted longer than ``QUOTE_LIMIT``."""
    assert status == 2 and out == "", err[:300]
    assert err.count("\n") == 1 and err.startswith(f"nardy-fast: error: {option}"), err[:300]
    assert len(err) <= SHORT, len(err)
    assert "x" * QUOTE_LIMIT not in err and "9" * QUOTE_LIMIT not in err


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (["perft", "--variant", LONG], "--variant"),
        (["perft", f"--variant={LONG}"], "--variant"),
        (["playout", "--variant", LONG], "--variant"),
        (["playout", "--policy", LONG], "--policy"),
        (["playout", "--opening", LONG], "--opening"),
        (["rollout", "--position", "long w 1:5,2:5,3:5,13:-15", "--policy", LONG], "--policy"),
        (["bench", "--section", LONG], "--section"),
        (["bench", "--variant", LONG], "--variant"),
        ([LONG], "COMMAND"),
        (["perft", "--depth", LONG], "--depth"),
        (["playout", "--games", HUGE], "--games"),
        (["playout", "--seed", HUGE], "--seed"),
        (["playout", "--first-game", HUGE], "--first-game"),
        (["playout", "--threads", HUGE], "--threads"),
        (["perft", "--budget", HUGE], "--budget"),
        (["corpus", "--size", HUGE], "--size"),
        (["bench", "--games", HUGE], "--games"),
        (["bench", "--repeats", LONG], "--repeats"),
        (["playout", f"--p={LONG}"], "--p"),
        (["playout", f"--progress={LONG}"], "--progress/--no-progress"),
        (["rollout", "--position", "long w 1:5,2:5,3:5,13:-15", f"--no-stratify={LONG}"], "--no-stratify"),
        (["perft", f"--check={LONG}"], "--check"),
        (["perft", f"--{LONG}"], "--" + "x" * 10),
        (["perft", LONG], "perft"),
        (["playout", "--position", LONG], "--position"),
        (["perft", "--position", f"long w 1:{HUGE}"], "--position"),
    ],
)
def test_every_error_line_quotes_a_huge_value_short(
    argv: list[str], option: str, capsys: pytest.CaptureFixture[str]
) -> None:
    check_short_error(*command_line(argv, capsys), option + ": " if option != "--" + "x" * 10 else option)


@pytest.mark.parametrize("text", ["\u0661\u0660", " 5", "5 ", "1_000", "\uff15"])
def test_command_line_integers_are_ascii_digits(text: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = command_line(["playout", "--games", text, "--position", "long w 1:15,13:-15"], capsys)
    check_short_error(status, out, err, "--games: ")
    assert repr(text) in err


def test_bench_on_its_own_quotes_short() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "nardy_fast.bench", "--section", LONG],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    check_short_error(done.returncode, done.stdout, done.stderr, "--section: ")


# --- 5. bench --games 1 -------------------------------------------------------------------------------------


def guard_bench(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make the benchmark's sections record that they ran instead of running."""
    ran: list[str] = []

    def section(name: str) -> Callable[..., list[Any]]:
        def run(*args: object, **kwargs: object) -> list[Any]:
            ran.append(name)
            return []

        return run

    monkeypatch.setattr(bench_cli, "run_positions", section("positions"))
    monkeypatch.setattr(bench_cli, "run_games", section("games"))
    return ran


@core_only
def test_bench_of_one_game_leaves_out_the_process_control_and_says_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = command_line(
        ["bench", "--games", "1", "--section", "games", "--repeats", "1", "--gnubg-games", "0",
         "--reference-games", "0"],
        capsys,
    )
    assert status == 0, err
    rows = [line.split("  ")[0] for line in out.split("\ngames: whole")[1].splitlines()]
    assert "core playout short, 2 threads" in rows and "core playout short, 2 processes" not in rows
    assert "not measured: two processes (one game cannot be split in two: --games 2 or more)" in out


def test_games_in_processes_refuses_the_games_it_was_given() -> None:
    message = rejects(lambda: bench.games_in_processes("short", 1), "games")
    assert message.endswith("(got 1)")


# --- 6. Dask: a closed client ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def dask() -> Iterator[tuple[Any, Any]]:
    """(an open Client, a closed one) of a cheap local cluster (one worker thread in this process)."""
    pytest.importorskip("distributed", reason="Dask's distributed scheduler (the dask extra) is absent")
    from distributed import Client, LocalCluster  # type: ignore[import-not-found, unused-ignore]

    with LocalCluster(n_workers=1, processes=False, threads_per_worker=1, dashboard_address=None) as cluster:  # type: ignore[no-untyped-call, unused-ignore]
        closed = Client(cluster)  # type: ignore[no-untyped-call, unused-ignore]
        closed.close()  # type: ignore[no-untyped-call, unused-ignore]
        with Client(cluster) as client:  # type: ignore[no-untyped-call, unused-ignore]
            yield client, closed


DASK_CALLS: dict[str, Callable[[Any, Any], object]] = {
    "playout": lambda nd, c: nd.playout(c, "long", 3, seed=1),
    "playout shards": lambda nd, c: nd.playout(c, "long", 3, seed=1, shards=2),
    "rollout": lambda nd, c: nd.rollout(c, nardy_fast.Position.start("short"), 3, seed=1),
    "rollout shards": lambda nd, c: nd.rollout(c, nardy_fast.Position.start("short"), 3, seed=1, shards=2),
    "perft": lambda nd, c: nd.perft(c, nardy_fast.Position.start("long"), 1),
    "perft shards": lambda nd, c: nd.perft(c, nardy_fast.Position.start("long"), 1, shards=2),
    "default_shards": lambda nd, c: nd.default_shards(c),
}


@pytest.mark.parametrize("call", sorted(DASK_CALLS))
def test_a_closed_client_is_refused(dask: tuple[Any, Any], call: str) -> None:
    from nardy_fast import distributed as nd

    client, closed = dask
    assert DASK_CALLS[call](nd, client) is not None  # the open client serves the same call
    message = rejects(lambda: DASK_CALLS[call](nd, closed), "client")
    assert "closed" in message


def test_shards_are_bounded(dask: tuple[Any, Any]) -> None:
    from nardy_fast import distributed as nd

    client, _ = dask
    for bad in (0, nd.MAX_SHARDS + 1, 1 << 40, True, np.array([2])):
        rejects(lambda: nd.playout(client, "long", 3, seed=1, shards=bad), "shards")  # type: ignore[arg-type]  # noqa: B023
    assert len(nd.playout(client, "long", 3, seed=1, shards=nd.MAX_SHARDS)) == 3  # one a game, as ever
    assert 1 <= nd.default_shards(client) <= nd.MAX_SHARDS


# --- 7. sizes ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"size": 0}, "size"),
        ({"size": corpus.SIZE + 1}, "size"),
        ({"size": True}, "size"),
        ({"reference_size": 0}, "reference_size"),
        ({"reference_size": corpus.SIZE + 1}, "reference_size"),
        ({"repeats": bench.MAX_REPEATS + 1}, "repeats"),
        ({"games": 0}, "games"),
        ({"games": bench.MAX_GAMES + 1}, "games"),
        ({"games": 1 << 100}, "games"),
        ({"games": 2.0}, "games"),
        ({"gnubg_games_count": -1}, "gnubg_games_count"),
        ({"gnubg_games_count": bench.MAX_GAMES + 1}, "gnubg_games_count"),
        ({"reference_games": bench.MAX_GAMES + 1}, "reference_games"),
        ({"variants": ()}, "variants"),
        ({"sections": "games"}, "sections"),
        ({"progress": None}, "progress"),
    ],
)
def test_bench_counts_are_bounded_before_any_work(
    kwargs: dict[str, Any], field: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ran = guard_bench(monkeypatch)
    rejects(lambda: bench.main(**kwargs), field)
    assert not ran and capsys.readouterr().out == ""


def test_the_corpus_command_bounds_its_size(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def build(position_class: object, size: int) -> dict[str, Any]:
        raise AssertionError(f"a corpus of {size} positions per variant was built")  # nothing is written

    monkeypatch.setattr(corpus, "build", build)
    status, out, err = command_line(["corpus", "--size", str(100 * corpus.SIZE + 1)], capsys)
    check_short_error(status, out, err, "--size: ")
    assert f"{100 * corpus.SIZE:,}" in cli._parser()[1]["corpus"].format_help()


@pytest.mark.parametrize("count", [0, bench.MAX_PARTS + 1, 1 << 40, True, 2.0])
def test_parallel_measurements_are_bounded_before_any_thread_or_process_starts(count: Any) -> None:
    rows, rolls = corpus.load("long")
    rows, rolls = rows[:4], rolls[:4]
    rejects(lambda: bench.batched(rows, rolls, threads=count), "threads")
    rejects(lambda: bench.in_processes(rows, rolls, count=count), "count")
    rejects(lambda: bench.balanced_split(np.ones(4, dtype=np.int64), count), "count")
    rejects(lambda: bench.games_in_processes("short", 1 << 20, count=count), "count")


@pytest.mark.parametrize("size", [-1, corpus.MAX_SIZE + 1, 10**30, 2.0, True, "10", np.array([3])])
def test_corpus_sizes_are_bounded(size: object) -> None:
    """``corpus.build`` and ``self_play`` refuse a size NumPy could not allocate (or would wrap) before any
    work, naming it."""
    for call, field in (
        (lambda: corpus.build(nardy_fast.Position, size), "size"),  # type: ignore[arg-type]
        (lambda: corpus.self_play(nardy_fast.Position, "long", size, 1), "count"),  # type: ignore[arg-type]
    ):
        with pytest.raises(NardyError, match=rf"^{field}: must be an integer 0 <= {field} <= 1,000,000"):
            call()


def test_corpus_self_play_names_a_bad_variant() -> None:
    with pytest.raises(NardyError, match=r"^variant: must be one of"):
        corpus.self_play(nardy_fast.Position, np.array(["long"]), 3, 1)  # type: ignore[arg-type]
    rows, rolls = corpus.self_play(nardy_fast.Position, np.str_("long"), 3, 1)
    assert rows.shape == (3, 64) and rolls.shape == (3, 2)


# --- playout's names and rows (shared by both implementations: one check_playout) ---------------------------


@pytest.mark.parametrize("kind", sorted(NOT_NAMES))
@pytest.mark.parametrize("field", ["policy", "opening", "start"])
def test_playout_names_are_compared_as_plain_strings(field: str, kind: str) -> None:
    value = NOT_NAMES[kind]()
    if field == "start" and isinstance(value, np.ndarray):
        pytest.skip("an array is rows to playout: refused by their shape check")
    if field == "policy" and isinstance(value, HostileObject):
        pytest.skip("a policy that is not a string is a callable or nothing: HostileObject is not callable")
    rejects(lambda: nardy_fast.playout(**{"start": "long", "games": 2, "seed": 1, field: value}), field)  # type: ignore[call-overload]


def test_playout_names_may_be_str_subclasses() -> None:
    """A ``str`` subclass equal to a name is that name, its own ``__eq__`` and ``__hash__`` never called."""

    class Name(str):
        __eq__ = HostileStr.__eq__
        __ne__ = HostileStr.__ne__
        __hash__ = HostileStr.__hash__

    expected = nardy_fast.playout("gulbar", 4, seed=3, policy="first", opening="use_single_dice")
    found = nardy_fast.playout(Name("gulbar"), 4, seed=3, policy=Name("first"), opening=Name("use_single_dice"))
    assert found.tobytes() == expected.tobytes()


def test_playout_rows_that_do_not_fit_int8_are_refused() -> None:
    """Rows of a wider dtype are checked before they are narrowed: 256 + k is no k."""
    rows = nardy_fast.Position.start("long").to_array().astype(np.int16)[None, :]
    start = nardy_fast.Position.start("long")
    assert nardy_fast.playout(rows, 2, seed=1).tobytes() == nardy_fast.playout(start, 2, seed=1).tobytes()
    rows[0, 23] += 256
    with pytest.raises(nardy_fast.InvalidPositionError, match=r"^start: values must fit in int8"):
        nardy_fast.playout(rows, 2, seed=1)
