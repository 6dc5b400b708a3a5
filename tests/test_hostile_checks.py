"""Hostile arguments to the checks and the messages (issue 40, items 11, 12, 16 and 18, and the sweeps of
checks and messages over the evaluators, duels, bear-off tables, rule flags and the command line).

Checked here:

1. messages: every part of an error message is cut (the field, the problem and the value quoted), so an
   unknown rule flag or training option of 100,000 characters, or another library's message repeating the
   address given to ``--scheduler``, gives a short message;
2. built-in evaluators: ``Builtin`` refuses an unknown name at once, and one made with ``__new__`` alone
   raises a ``NardyError`` on every use;
3. ``DuelResult``: its points are checked when it is made (integers, pairs of games, scores the variant
   allows), so that every figure agrees with them; equal results compare equal;
4. arguments: ``bearoff.layouts`` and ``all_layouts`` take a checker count 0..15, ``semantics_of`` a mapping
   of flags, ``duel`` a callable ``progress`` (checked before the first game);
5. the sweep: result classes users can build (``RaceProbabilities``), the tables' constructors, the rule
   flags' helpers, ``flipped`` and ``hitting_rolls`` check what they are given.

Expected errors are the package's rules (the field named, the value quoted at most ``QUOTE_LIMIT``
characters, the same class and message in both implementations).
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ids import stable_repr
from test_evaluation import same_error

import nardy_fast
import nardy_fast.cli as cli
from nardy_fast import DuelResult, bearoff
from nardy_fast._dispatch import implementations
from nardy_fast.errors import FIELD_LIMIT, QUOTE_LIMIT, InvalidPositionError, NardyError, field_error
from nardy_fast.evaluation.builtin import Builtin
from nardy_fast.position import Position as BasePosition

IMPLS = implementations()
#: The longest message a rejected input may give: a field, a problem and a quoted value, each cut.
SHORT = 3 * QUOTE_LIMIT + 200
LONG = "x" * 100_000
#: ``LONG`` as a message's field: its first 70 and last 25 characters (FIELD_LIMIT, a quarter kept at the end).
LONG_FIELD = "x" * 70 + " ... " + "x" * 25


class HostileStr(str):
    """A string whose comparisons, hash, str and format raise: only its plain ``str`` value may be used."""

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("HostileStr.__eq__")

    def __hash__(self) -> int:
        raise RuntimeError("HostileStr.__hash__")

    def __str__(self) -> str:
        raise RuntimeError("HostileStr.__str__")

    def __format__(self, spec: str) -> str:
        raise RuntimeError("HostileStr.__format__")


def rejects(call: Callable[[], object], field: str, cls: type[Exception] = NardyError) -> str:
    """The message of the ``cls`` that ``call`` raises, checked to name ``field`` and to be short."""
    with pytest.raises(cls) as caught:
        call()
    message = str(caught.value)
    assert message.startswith(f"{field}: "), message[:300]
    assert len(message) <= SHORT, len(message)
    return message


# --- 1. messages ------------------------------------------------------------------------------------------------


def test_every_part_of_a_message_is_cut() -> None:
    message = str(field_error(NardyError, "f" * 10_000, "p" * 10_000, "v" * 10_000))
    assert len(message) <= SHORT, len(message)
    field, _, rest = message.partition(": ")
    assert len(field) == FIELD_LIMIT and field.startswith("fff") and field.endswith("fff")
    assert rest.startswith("ppp") and rest.endswith("vvv')")


def test_a_field_that_is_no_plain_string_is_written_safely() -> None:
    assert str(field_error(NardyError, HostileStr("name"), "is bad", 1)) == "name: is bad (got 1)"
    assert str(field_error(NardyError, 7, "is bad", 1)) == "7: is bad (got 1)"  # type: ignore[arg-type]


def test_a_short_message_is_unchanged() -> None:
    assert str(field_error(NardyError, "games", "must be even", 3)) == "games: must be even (got 3)"


def test_an_unknown_rule_flag_of_a_huge_name_is_a_short_error(Position: type[BasePosition]) -> None:
    message = rejects(lambda: Position.start("long", **{LONG: True}), LONG_FIELD, InvalidPositionError)
    assert message.endswith(": is not a rule flag (got True)")


def test_an_unknown_training_option_of_a_huge_name_is_a_short_error() -> None:
    from nardy_fast.training import check_config

    message = rejects(lambda: check_config("long", 10, **{LONG: 1}), LONG_FIELD)
    assert message.endswith(": is not an option of train (got 1)")


def test_an_unknown_duel_flag_of_a_huge_name_is_the_same_short_error() -> None:
    message = same_error(lambda m: m.duel("random", "first", "long", 2, **{LONG: 1}))
    assert message == f"{LONG_FIELD}: is not a rule flag (got 1)"


def command_line(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = cli.main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_a_huge_rule_flag_on_the_command_line_is_one_short_line(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = command_line(["duel", "random", "first", "--games", "2", "--flag", f"{LONG}=1"], capsys)
    assert (status, out) == (2, "") and err.count("\n") == 1, err[:300]
    assert err == f"nardy-fast: error: --flag: {LONG_FIELD}: is not a rule flag (got '1')\n"


def test_the_scheduler_message_is_one_short_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("distributed", reason="Dask's distributed scheduler (the dask extra) is absent")
    argv = ["train", "--variant", "short", "--games", "2", "--out", str(tmp_path / "w.npz"), "--scheduler", LONG]
    status, out, err = command_line(argv, capsys)
    assert (status, out) == (2, "") and err.count("\n") == 1, err[:300]
    assert err.startswith("nardy-fast: error: --scheduler: cannot connect (") and len(err) <= SHORT, len(err)
    # Dask's own message is cut as a quote is, not only the whole line: no run of the address longer than one
    assert "x" * (QUOTE_LIMIT + 1) not in err
    assert list(tmp_path.iterdir()) == []


def test_a_huge_message_of_the_library_is_one_short_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Whatever text a library error repeats, the command line prints one short line."""

    def run(args: object) -> int:
        raise NardyError(f"somewhere: {LONG} went wrong")

    monkeypatch.setattr(cli.perft, "run", run)
    status, out, err = command_line(["perft"], capsys)
    assert (status, out) == (2, "") and err.count("\n") == 1 and len(err) <= SHORT, len(err)
    assert err.startswith("nardy-fast: error: somewhere: xxx") and err.endswith("went wrong\n")


def test_a_huge_write_error_of_the_records_is_cut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def write_records(records: object, out: object) -> None:
        raise OSError(f"cannot write {LONG}")  # no strerror: its text is all there is

    monkeypatch.setattr(cli.playout, "write_records", write_records)
    out = str(tmp_path / "r.csv")
    status, _, err = command_line(["playout", "--variant", "short", "--games", "2", "--out", out], capsys)
    assert status == 2 and err.startswith("nardy-fast: error: --out: could not be written: cannot write xxx")
    assert err.count("\n") == 1 and "x" * QUOTE_LIMIT not in err and err.endswith(f"(got {out!r})\n"), err[:300]


# --- 2. built-in evaluators -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["bogus", "", "RACE", 3, None, HostileStr("racer"), np.array(["race"])], ids=repr)
def test_a_builtin_of_no_known_name_is_refused_at_once(name: object) -> None:
    message = rejects(lambda: Builtin(name), "name")  # type: ignore[arg-type]
    assert "must be one of ('race', 'pubeval', 'heuristic', 'net', 'network')" in message


def test_a_builtin_is_named_by_a_plain_string() -> None:
    class Name(str):
        pass

    made = Builtin(Name("heuristic"))
    assert type(made.name) is str and made == Builtin("heuristic") and made.kind == 2
    hostile = Builtin(HostileStr("race"))
    assert type(hostile.name) is str and hash(hostile) == hash(Builtin("race")) and repr(hostile) == "'race'"


BUILTIN_PROBES: dict[str, Callable[[Any], object]] = {
    "name": lambda b: b.name,
    "kind": lambda b: b.kind,
    "repr": repr,
    "hash": hash,
    "eq": lambda b: b == Builtin("race"),
    "pickle": lambda b: pickle.loads(pickle.dumps(b)).kind,
}


@pytest.mark.parametrize("probe", sorted(BUILTIN_PROBES))
def test_an_uninitialised_builtin_raises(probe: str) -> None:
    forged = Builtin.__new__(Builtin)
    with pytest.raises(NardyError, match="uninitialised Builtin"):
        BUILTIN_PROBES[probe](forged)


def test_an_uninitialised_builtin_is_refused_by_the_evaluators_and_duels() -> None:
    rows = nardy_fast.Position.start("long").to_array()[None, :]
    forged = Builtin.__new__(Builtin)
    message = same_error(lambda m: m.evaluate(rows, forged))
    assert "uninitialised Builtin" in message
    message = same_error(lambda m: m.duel(forged, "random", "long", 2))
    assert "uninitialised Builtin" in message


# --- 3. DuelResult ----------------------------------------------------------------------------------------------


def result(points: object, variant: object = "short", **changes: object) -> DuelResult:
    fields: dict[str, Any] = {"a": "'random'", "b": "'first'", "variant": variant, "seed": 0, "points": points}
    fields.update(changes)
    return DuelResult(**fields)


@pytest.mark.parametrize(
    "points",
    [
        [1, -1, 2],  # games come in pairs
        [],
        np.zeros(3, dtype=np.int8),
        np.zeros((2, 2), dtype=np.int8),
        [1.0, -1.0],
        np.array([1.0, 0.0]),
        [True, False],
        np.array([True, False]),
        ["1", "-1"],
        "11",
        5,
        None,
        [1, None],
        [2**70, 0],
    ],
    ids=repr,
)
def test_duel_points_are_pairs_of_integers(points: object) -> None:
    rejects(lambda: result(points), "points")


@pytest.mark.parametrize(
    ("variant", "points"),
    [
        ("long", [3, -1]),  # no koks in long nardy
        ("gulbar", [0, -3]),
        ("short", [4, 0]),
        ("short", [0, -4]),
        ("short", np.array([0, 200], dtype=np.uint8)),
        ("short", np.array([0, -128], dtype=np.int8)),
        ("short", [1, 256 + 1]),  # would wrap to 1 in int8
    ],
    ids=repr,
)
def test_duel_points_are_scores_the_variant_allows(variant: str, points: object) -> None:
    message = rejects(lambda: result(points, variant), "points")
    top = 3 if variant == "short" else 2
    assert f"-{top}..{top}" in message


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"variant": "chess"}, "variant"),
        ({"variant": None}, "variant"),
        ({"seed": -1}, "seed"),
        ({"seed": 1 << 64}, "seed"),
        ({"seed": 1.0}, "seed"),
        ({"a": None}, "a"),
        ({"b": 3}, "b"),
    ],
    ids=repr,
)
def test_duel_result_fields_are_checked(changes: dict[str, object], field: str) -> None:
    rejects(lambda: result([1, -1], **changes), field)


def test_duel_figures_agree_with_points_given_as_a_list() -> None:
    made = result([3, -1, 0, 2], seed=np.uint64(5))
    assert made.points.dtype == np.int8 and made.points.tolist() == [3, -1, 0, 2] and made.seed == 5
    assert made.games == 4 and made.ppg == 1.0 and made.win_rate == 0.5
    # the pairs' sums are 2 and 2: no spread
    assert made.stderr == 0.0
    assert made.counts == {
        "win_single": 0, "win_mars": 1, "win_koks": 1, "lose_single": 1, "lose_mars": 0, "lose_koks": 0,
        "unfinished": 1,
    }  # fmt: skip


def test_duel_points_are_a_read_only_copy() -> None:
    given = np.array([1, -1], dtype=np.int64)
    made = result(given)
    given[0] = 5
    assert made.points.tolist() == [1, -1]
    with pytest.raises(ValueError):
        made.points[0] = 9


def test_a_pickled_duel_result_is_the_same_result() -> None:
    made = result([3, -1, 0, 2])
    again = pickle.loads(pickle.dumps(made))
    assert again == made and not again.points.flags.writeable


def test_equal_duel_results_compare_equal() -> None:
    played = nardy_fast.duel("random", "first", "short", 4, seed=2)
    again = nardy_fast.duel("random", "first", "short", 4, seed=2)
    assert played == again and hash(played) == hash(again)
    assert played != nardy_fast.duel("random", "first", "short", 4, seed=3)
    assert played != "not a result"


def test_an_uninitialised_duel_result_raises() -> None:
    forged = DuelResult.__new__(DuelResult)
    for probe in (lambda: forged.ppg, lambda: forged.points, lambda: str(forged), lambda: forged.counts):
        with pytest.raises(NardyError, match="uninitialised DuelResult"):
            probe()


# --- 4. arguments -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("checkers", [16, -1, "a", True, 2.0, None, np.array([3]), 10**30], ids=repr)
@pytest.mark.parametrize("call", ["layouts", "all_layouts"])
def test_layout_counts_take_checkers_0_to_15(call: str, checkers: object) -> None:
    message = rejects(lambda: getattr(bearoff, call)(checkers), "checkers")
    assert "must be an integer 0..15" in message


def test_layout_counts_take_numpy_integers() -> None:
    assert bearoff.layouts(np.int8(15)) == bearoff.LAYOUTS and bearoff.layouts(0) == 1  # type: ignore[arg-type]
    one = bearoff.all_layouts(np.int64(1))  # type: ignore[arg-type]
    assert one.tolist() == [[0] * 6] + np.eye(6, dtype=int).tolist()


@pytest.mark.parametrize("flags", [None, [("ladder_per_value", 4)], "ladder_per_value", 3], ids=repr)
def test_semantics_take_a_mapping_of_flags(flags: object) -> None:
    message = rejects(lambda: bearoff.semantics_of("crazy", flags), "flags")  # type: ignore[arg-type]
    assert "must be a mapping" in message


class Pairs(Mapping[object, object]):
    """A mapping of the pairs given that never hashes or compares its keys (a key is found by identity)."""

    def __init__(self, *pairs: tuple[object, object]) -> None:
        self.pairs = pairs

    def __getitem__(self, key: object) -> object:
        for k, v in self.pairs:
            if k is key:
                return v
        raise KeyError("no such key")

    def __iter__(self) -> Iterator[object]:
        return (k for k, _ in self.pairs)

    def __len__(self) -> int:
        return len(self.pairs)


@pytest.mark.parametrize(
    ("key", "field"), [(3, "3"), (("a", "b"), "('a', 'b')"), (HostileStr("ladder"), "ladder")], ids=repr
)
def test_a_flag_of_no_known_name_is_an_unknown_flag(key: object, field: str) -> None:
    message = rejects(lambda: bearoff.semantics_of("crazy", Pairs((key, 4))), field, InvalidPositionError)  # type: ignore[arg-type]
    assert message == f"{field}: is not a rule flag (got 4)"


def test_a_flag_named_by_a_str_subclass_is_the_flag_it_spells() -> None:
    pairs = Pairs((HostileStr("ladder_per_value"), 4))
    assert bearoff.semantics_of("crazy", pairs).key == "crazy_ladder4"  # type: ignore[arg-type]


def test_semantics_take_a_plain_mapping_of_flags() -> None:
    assert bearoff.semantics_of("crazy", {"ladder_per_value": 4}).key == "crazy_ladder4"
    assert bearoff.semantics_of("short", {}).key == "long"


@pytest.mark.parametrize("progress", [5, "print", object()], ids=stable_repr)
def test_duel_progress_is_callable_checked_before_any_game(progress: object) -> None:
    played: list[object] = []

    def player(children: Any, offsets: Any) -> Any:
        played.append(1)
        return np.zeros(len(offsets) - 1, dtype=np.int64)

    message = same_error(lambda m: m.duel(player, "first", "long", 4, batch=1, progress=progress))
    assert message.startswith("progress: must be callable or None") and not played


# --- 5. the sweep: result classes, tables and helpers -------------------------------------------------------------


def race(**changes: object) -> bearoff.RaceProbabilities:
    fields: dict[str, Any] = {"win_single": 0.5, "win_mars": 0.25, "lose_single": 0.25, "lose_mars": 0.0}
    fields["exact"] = False
    fields.update(changes)
    return bearoff.RaceProbabilities(**fields)


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"win_single": "0.5"}, "win_single"),
        ({"win_single": None}, "win_single"),
        ({"win_mars": True}, "win_mars"),
        ({"win_single": float("nan")}, "win_single"),
        ({"lose_single": -0.25, "win_single": 1.0}, "lose_single"),
        ({"lose_mars": 1.5}, "lose_mars"),
        ({"win_single": np.array([0.5])}, "win_single"),
        ({"win_single": 0.75}, "win_single"),  # the four add up to 1.25
        ({"exact": 1}, "exact"),
        ({"exact": None}, "exact"),
    ],
    ids=repr,
)
def test_race_probabilities_are_checked(changes: dict[str, object], field: str) -> None:
    rejects(lambda: race(**changes), field)


def test_race_probabilities_take_real_numbers_as_floats() -> None:
    made = race(win_single=np.float32(0.5), win_mars=1 / 4, lose_single=np.float64(0.25), lose_mars=0, exact=np.True_)
    assert (made.win_single, made.lose_mars, made.exact) == (0.5, 0.0, True) and type(made.lose_mars) is float
    assert made.win == 0.75 and made.equity == 0.5 + 2 * 0.25 - 0.25


def test_an_uninitialised_race_probabilities_raises() -> None:
    forged = bearoff.RaceProbabilities.__new__(bearoff.RaceProbabilities)
    for probe in (lambda: forged.win, lambda: forged.equity, lambda: repr(forged)):
        with pytest.raises(NardyError, match="uninitialised RaceProbabilities"):
            probe()


def test_race_values_of_a_bear_off_are_still_made(Position: type[BasePosition]) -> None:
    position = Position.from_text("long w 1:1,13:-1 off=14/14")
    made = bearoff.race_probabilities(position)
    assert (made.win_single, made.win_mars, made.lose_single, made.lose_mars, made.exact) == (1.0, 0.0, 0.0, 0.0, True)


LONG_SEMANTICS = bearoff.SEMANTICS["long"]


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (("long", 1, np.zeros((7, 7)), "python"), "semantics"),
        ((LONG_SEMANTICS, 7, np.zeros((7, 7)), "python"), "checkers"),
        ((LONG_SEMANTICS, "1", np.zeros((7, 7)), "python"), "checkers"),
        ((LONG_SEMANTICS, 1, [[0.0] * 7] * 7, "python"), "win"),
        ((LONG_SEMANTICS, 1, np.full((7, 7), np.nan), "python"), "win"),
        ((LONG_SEMANTICS, 1, np.full((7, 7), 2.0), "python"), "win"),
        ((LONG_SEMANTICS, 1, np.zeros((7, 7)), None), "implementation"),
    ],
    ids=["no semantics", "checkers 7", "checkers text", "list", "nan", "above 1", "no implementation"],
)
def test_two_sided_tables_check_what_they_are_made_of(args: tuple[Any, ...], field: str) -> None:
    rejects(lambda: bearoff.TwoSided(*args), field)


def one_sided_arrays(n: int) -> tuple[Any, ...]:
    dist = np.zeros((n, bearoff.MAX_TURNS + 1))
    dist[:, 1] = 1.0
    return (np.ones(n), dist, np.ones(n), dist.copy())


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ((None, 1, one_sided_arrays(7), "python"), "semantics"),
        ((LONG_SEMANTICS, 16, one_sided_arrays(7), "python"), "checkers"),
        ((LONG_SEMANTICS, 1.0, one_sided_arrays(7), "python"), "checkers"),
        ((LONG_SEMANTICS, 1, one_sided_arrays(7)[:3], "python"), "arrays"),
        ((LONG_SEMANTICS, 1, [None] * 4, "python"), "arrays"),
        ((LONG_SEMANTICS, 1, 5, "python"), "arrays"),
        ((LONG_SEMANTICS, 1, (np.full(7, np.inf), *one_sided_arrays(7)[1:]), "python"), "arrays"),
        ((LONG_SEMANTICS, 1, (np.full(7, -1.0), *one_sided_arrays(7)[1:]), "python"), "arrays"),
        ((LONG_SEMANTICS, 1, one_sided_arrays(7), 3), "implementation"),
    ],
    ids=["no semantics", "checkers 16", "checkers float", "three arrays", "no arrays", "a number", "inf",
         "negative", "no implementation"],
)
def test_one_sided_tables_check_what_they_are_made_of(args: tuple[Any, ...], field: str) -> None:
    rejects(lambda: bearoff.OneSided(*args), field)


def test_tables_made_of_good_arrays_serve() -> None:
    one = bearoff.OneSided(LONG_SEMANTICS, 1, one_sided_arrays(7), "python")  # type: ignore[arg-type]
    assert one.expected_turns([1, 0, 0, 0, 0, 0]) == 1.0
    win = np.zeros((7, 7))
    win[0, :] = 1.0
    two = bearoff.TwoSided(LONG_SEMANTICS, 1, win, "python")
    assert two.win_probability([0, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0]) == 1.0


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (("bogus", "", 0), "key"),
        (("long", "six_one", 0), "extra_roll"),  # long nardy's table has no extra roll
        (("crazy", "", 3), "ladder"),
        (("crazy", "", "2"), "ladder"),
        ((None, "", 0), "key"),
    ],
    ids=repr,
)
def test_semantics_are_those_of_a_table(args: tuple[Any, ...], field: str) -> None:
    rejects(lambda: bearoff.Semantics(*args), field)


@pytest.mark.parametrize(("changes", "field"), [({"variant": "chess"}, "variant"), ({"flags": 3}, "flags")], ids=repr)
def test_semantics_name_a_variant_and_flags(changes: dict[str, object], field: str) -> None:
    rejects(lambda: bearoff.Semantics("long", "", 0, **changes), field)  # type: ignore[arg-type]


def test_every_table_has_its_semantics() -> None:
    for key, semantics in bearoff.SEMANTICS.items():
        assert bearoff.Semantics(key, semantics.extra_roll, semantics.ladder) == semantics
    assert bearoff.Semantics("crazy", "", 2) != bearoff.SEMANTICS["crazy_ladder4"]


@pytest.mark.parametrize("given", [None, [("block_check", "per_step")], "block_check"], ids=repr)
def test_rule_flags_are_a_mapping(given: object) -> None:
    from nardy_fast.variants import normalize_flags

    rejects(lambda: normalize_flags("long", given), "flags", InvalidPositionError)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "values",
    [[0.5, 0.1, 0.0, 0.1], [[0.5, 0.1, 0.0, 0.1, 0.0, 0.0]], "0.5", None, [0.5, 0.6, 0.0, 0.0, 0.0], [np.nan] * 5],
    ids=repr,
)
def test_flipped_takes_probabilities(values: object) -> None:
    from nardy_fast.evaluation import flipped

    rejects(lambda: flipped(values), "probabilities")


def test_flipped_turns_the_outcomes_round() -> None:
    from nardy_fast.evaluation import flipped

    turned = flipped([[0.75, 0.5, 0.25, 0.125, 0.0]])
    assert turned.tolist() == [[0.25, 0.125, 0.0, 0.5, 0.25]]


@pytest.mark.parametrize("mask", [-1, 1 << 12, 2.0, True, "1", None], ids=repr)
def test_hitting_rolls_take_a_12_bit_mask(mask: object) -> None:
    from nardy_fast.evaluation.heuristic import hitting_rolls

    rejects(lambda: hitting_rolls(mask), "mask")  # type: ignore[arg-type]


def test_hitting_rolls_of_one_distance() -> None:
    from nardy_fast.evaluation.heuristic import hitting_rolls

    # distance 1: the 11 rolls with a 1 (1-1 reaches 1 as well)
    assert hitting_rolls(1) == 11 and hitting_rolls(np.int16(0)) == 0  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda r: r.key_of("chess", False), "variant"),
        (lambda r: r.key_of(None, False), "variant"),
        (lambda r: r.key_of("crazy", "yes"), "ladder4"),
        (lambda r: r.vector("bogus"), "key"),
        (lambda r: r.vector(["long"]), "key"),
    ],
    ids=["key_of variant", "key_of None", "key_of ladder4", "vector key", "vector list"],
)
def test_race_helpers_check_their_names(call: Callable[[Any], object], field: str) -> None:
    from nardy_fast.evaluation import race as race_module

    rejects(lambda: call(race_module), field)


def test_race_helpers_serve() -> None:
    from nardy_fast.evaluation import race as race_module

    assert race_module.key_of("crazy", True) == "crazy_ladder4" and race_module.key_of("short", np.True_) == "long"  # type: ignore[arg-type]
    assert len(race_module.vector("gulbar")) == race_module.NC


def test_an_implementation_of_a_huge_name_is_a_short_import_error() -> None:
    """NARDY_FAST_IMPLEMENTATION's value was repeated uncut in the import's error."""
    environment = {**os.environ, "NARDY_FAST_IMPLEMENTATION": LONG}
    run = subprocess.run(
        [sys.executable, "-c", "import nardy_fast"], env=environment, capture_output=True, text=True, timeout=120
    )
    last = run.stderr.strip().splitlines()[-1]
    assert run.returncode == 1 and last.startswith("ImportError: NARDY_FAST_IMPLEMENTATION: must be"), last[:300]
    assert len(last) <= SHORT, len(last)
