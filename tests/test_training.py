"""The self-play training pipeline (``nardy_fast.training``): its checked arguments, its checkpoints (refused
when they belong to another training or are corrupt), its determinism (the same weights bit for bit when run
twice, interrupted and resumed, on more threads or on a Dask cluster), the TD(lambda) targets against values
worked out by hand, the gradients against finite differences, and that a tiny network does learn: it beats
the random player by more after a few hundred games than before.

Expected values come from the rules and the formulas of the modules' docstrings, worked by hand or
recomputed here independently (a plain loop over each game for the targets, a float64 forward pass for the
gradients), never from the output under test.
"""

from __future__ import annotations

import io
import itertools
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import nardy_fast
from nardy_fast import _dispatch, layout
from nardy_fast.errors import NardyError
from nardy_fast.evaluation.network import INPUTS, Network
from nardy_fast.playouts import MAX_THREADS, Trajectories
from nardy_fast.policies import Greedy
from nardy_fast.training import check_config, train
from nardy_fast.training import trainer as trainer_module
from nardy_fast.training.model import Adam, gradients
from nardy_fast.training.targets import lambda_returns
from nardy_fast.training.trainer import checkpoint_path, log_path

#: A tiny training: short nardy, 8 hidden units, 3 iterations of 20 games, strength checks of 20 games.
TINY: dict[str, Any] = {"seed": 3, "hidden": 8, "batch": 20, "eval_every": 0, "eval_games": 20}
TINY_GAMES = 60


def tiny(
    tmp_path: Path, name: str = "w.npz", variant: str = "short", games: int = TINY_GAMES, **options: Any
) -> Network:
    return train(variant, games, out=tmp_path / name, **{**TINY, **options})


def checkpoint_meta(out: Path) -> dict[str, Any]:
    with np.load(checkpoint_path(out), allow_pickle=False) as archive:
        meta: dict[str, Any] = json.loads(str(archive["meta"]))
    return meta


def field_of(error: pytest.ExceptionInfo[NardyError]) -> str:
    return str(error.value).split(":", 1)[0]


# --- bad input ------------------------------------------------------------------------------------------------


BAD_OPTIONS: list[tuple[dict[str, Any], str]] = [
    ({"games": 0}, "games"),
    ({"games": -5}, "games"),
    ({"games": (1 << 40) + 1}, "games"),
    ({"games": 10.0}, "games"),
    ({"games": "10"}, "games"),
    ({"games": True}, "games"),
    ({"hidden": 0}, "hidden"),
    ({"hidden": 513}, "hidden"),
    ({"hidden": np.bool_(True)}, "hidden"),
    ({"hidden": 8.5}, "hidden"),
    ({"lam": -0.1}, "lam"),
    ({"lam": 1.5}, "lam"),
    ({"lam": math.nan}, "lam"),
    ({"lam": "0.5"}, "lam"),
    ({"lam": True}, "lam"),
    ({"rate": 0}, "rate"),
    ({"rate": -0.001}, "rate"),
    ({"rate": math.inf}, "rate"),
    ({"rate": None}, "rate"),
    ({"batch": 0}, "batch"),
    ({"batch": True}, "batch"),
    ({"minibatch": 0}, "minibatch"),
    ({"epochs": 0}, "epochs"),
    ({"epochs": 101}, "epochs"),
    ({"eval_every": -1}, "eval_every"),
    ({"eval_games": 0}, "eval_games"),
    ({"eval_games": 21}, "eval_games"),
    ({"threads": 0}, "threads"),
    ({"threads": MAX_THREADS + 1}, "threads"),
    ({"threads": False}, "threads"),
    ({"seed": -1}, "seed"),
    ({"seed": 1 << 64}, "seed"),
    ({"colour": "white"}, "colour"),
    ({"variant": "chess"}, "variant"),
    ({"variant": np.array(["short"])}, "variant"),
    ({"variant": None}, "variant"),
]


@pytest.mark.parametrize(
    ("bad", "field"), BAD_OPTIONS, ids=[f"{k}={v!r}" for (d, _) in BAD_OPTIONS for k, v in d.items()]
)
def test_arguments_out_of_range_name_themselves(bad: dict[str, Any], field: str, tmp_path: Path) -> None:
    arguments: dict[str, Any] = {"variant": "short", "games": 20, **TINY, **bad}
    variant, games = arguments.pop("variant"), arguments.pop("games")
    with pytest.raises(NardyError) as checked:
        check_config(variant, games, **arguments)
    assert field_of(checked) == field
    with pytest.raises(NardyError) as trained:
        train(variant, games, out=tmp_path / "w.npz", **arguments)
    assert str(trained.value) == str(checked.value)
    assert list(tmp_path.iterdir()) == []  # refused before anything was written


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"resume": "yes"}, "resume: must be True or False (got 'yes')"),
        ({"resume": 1}, "resume: must be True or False (got 1)"),
        ({"resume": None}, "resume: must be True or False (got None)"),
        ({"command": 5}, "command: must be a string or None (got 5)"),
        ({"command": b"nardy-fast train"}, "command: must be a string or None (got b'nardy-fast train')"),
        ({"progress": 5}, "progress: must be callable or None (got 5)"),
        ({"log": "log.txt"}, "log: must be callable or None (got 'log.txt')"),
    ],
    ids=lambda value: next(iter(value)) + "=" + repr(next(iter(value.values()))) if isinstance(value, dict) else "",
)
def test_the_other_arguments_are_checked_before_any_work(bad: dict[str, Any], message: str, tmp_path: Path) -> None:
    """Checked before a game is played or a file written: a bad callback is not found out an iteration
    later, after the checkpoint (nor a bad command once the training is done)."""
    with pytest.raises(NardyError) as error:
        train("short", 20, out=tmp_path / "w.npz", **TINY, **bad)
    assert str(error.value) == message
    assert list(tmp_path.iterdir()) == []


def test_the_defaults_and_the_edges_of_the_ranges_are_accepted() -> None:
    config = check_config("long", 1)
    assert (config.variant, config.games, config.seed, config.threads) == ("long", 1, 0, 1)
    edges = {
        "hidden": 512,
        "lam": 1,
        "rate": 1.0,
        "batch": 1,
        "epochs": 100,
        "eval_every": 0,
        "eval_games": 2,
    }
    edges.update(seed=(1 << 64) - 1, threads=MAX_THREADS)
    config = check_config(np.str_("crazy"), np.int64(1 << 40), **edges)
    assert (config.variant, config.games, config.hidden, config.lam, config.seed) == (
        "crazy",
        1 << 40,
        512,
        1.0,
        (1 << 64) - 1,
    )
    assert check_config("long", 1, lam=0).lam == 0.0


def test_an_output_that_cannot_be_written_is_refused(tmp_path: Path) -> None:
    for out in (tmp_path, tmp_path / "missing" / "w.npz", 5, None):
        with pytest.raises(NardyError) as error:
            train("short", 20, out=out, **TINY)
        assert field_of(error) == "out", out
    assert list(tmp_path.iterdir()) == []


# --- checkpoints ---------------------------------------------------------------------------------------------


@pytest.fixture()
def checkpointed(tmp_path: Path) -> Path:
    """The output of a finished tiny training of one iteration, its checkpoint beside it."""
    out = tmp_path / "w.npz"
    tiny(tmp_path, games=20)
    assert checkpoint_path(out).exists()
    return out


@pytest.mark.parametrize(
    ("other", "words"),
    [
        ({"variant": "sixone"}, "another variant"),
        ({"hidden": 4}, "another network shape"),
        ({"seed": 4}, "seed"),
        ({"lam": 0.5}, "lam"),
        ({"rate": 0.01}, "rate"),
        ({"batch": 10}, "batch"),
        ({"epochs": 2}, "epochs"),
    ],
)
def test_a_checkpoint_of_another_training_is_refused(
    checkpointed: Path, other: dict[str, Any], words: str
) -> None:
    arguments = {**TINY, "variant": "short", **other}
    variant = arguments.pop("variant")
    with pytest.raises(NardyError) as error:
        train(variant, 40, out=checkpointed, **arguments)
    assert field_of(error) == "checkpoint" and words in str(error.value)
    # starting afresh is allowed, and makes the weights a training never checkpointed makes
    fresh = train(variant, 20, out=checkpointed, resume=False, **arguments)
    assert fresh.sha256 == train(variant, 20, out=checkpointed.with_name("other.npz"), **arguments).sha256


def npz_bytes(arrays: dict[str, Any]) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def corruptions(good: bytes) -> dict[str, bytes]:
    """Broken copies of a checkpoint's bytes ``good``, by what is wrong."""
    with np.load(io.BytesIO(good), allow_pickle=False) as archive:
        arrays = {key: archive[key] for key in archive.files}
    meta = json.loads(str(arrays["meta"]))

    def with_meta(**changes: Any) -> bytes:
        return npz_bytes({**arrays, "meta": np.array(json.dumps({**meta, **changes}))})

    def with_array(name: str, value: Any) -> bytes:
        return npz_bytes({**arrays, name: value})

    nan_w1 = arrays["w1"].copy()
    nan_w1[3, 2] = np.nan
    missing = {key: value for key, value in arrays.items() if key != "m_w2"}
    return {
        "garbage": b"\x93NUMPY garbage, not an archive" * 7,
        "empty": b"",
        "text": b"hello",
        "nan in w1": with_array("w1", nan_w1),
        "inf in m_b2": with_array("m_b2", np.full_like(arrays["m_b2"], np.inf)),
        "w1 of the wrong shape": with_array("w1", arrays["w1"][:, :4]),
        "w1 in float64": with_array("w1", arrays["w1"].astype(np.float64)),
        "no m_w2": npz_bytes(missing),
        "meta not JSON": with_array("meta", np.array("{not json")),
        "meta a list": with_array("meta", np.array("[1, 2]")),
        "no config": npz_bytes({**arrays, "meta": np.array(json.dumps({"done": 20}))}),
        "step not a number": with_meta(step="many"),
        "log not a list": with_meta(log=7),
        "truncated": good[: len(good) // 2],
        "a flipped byte": good[:300] + bytes([good[300] ^ 0xFF]) + good[301:],
        "negative v_b2": with_array("v_b2", np.full_like(arrays["v_b2"], -1.0)),
        "w1 beyond MAX_WEIGHT": with_array("w1", arrays["w1"] * np.float32(1e30)),
        "done negative": with_meta(done=-20),
        "done not a number": with_meta(done="20"),
        "done a bool": with_meta(done=True),
        "step negative": with_meta(step=-1),
        "iterations negative": with_meta(iterations=-1),
        "iterations a float": with_meta(iterations=1.0),
        "unsupported compression": zip_damaged(good, 10, 0xFF),
        "encrypted flag": zip_damaged(good, 8, 0x01),
        "npy header cut": good.replace(b"'shape': (224, 8), }", b"'shape': (224, 8),  ", 1),
    }


def zip_damaged(good: bytes, offset: int, xor: int) -> bytes:
    """``good`` with a byte of its first central-directory entry changed (8: the flags, 10: the compression
    method)."""
    data = bytearray(good)
    data[good.index(b"PK\x01\x02") + offset] ^= xor
    return bytes(data)


CORRUPTIONS = [
    "garbage",
    "empty",
    "text",
    "nan in w1",
    "inf in m_b2",
    "w1 of the wrong shape",
    "w1 in float64",
    "no m_w2",
    "meta not JSON",
    "meta a list",
    "no config",
    "step not a number",
    "log not a list",
    "truncated",
    "a flipped byte",
    "negative v_b2",
    "w1 beyond MAX_WEIGHT",
    "done negative",
    "done not a number",
    "done a bool",
    "step negative",
    "iterations negative",
    "iterations a float",
]

#: Corruptions that zipfile or NumPy's header parser report in their own ways.
KNOWN_LEAKS = {
    "unsupported compression": "NotImplementedError from zipfile escapes _State.load",
    "encrypted flag": "RuntimeError (encrypted, password required) from zipfile escapes _State.load",
    "npy header cut": "tokenize.TokenError from numpy's header parser escapes _State.load",
}


@pytest.mark.parametrize(
    "name",
    CORRUPTIONS
    + list(KNOWN_LEAKS),
)
def test_a_corrupt_checkpoint_is_refused(checkpointed: Path, name: str) -> None:
    check = checkpoint_path(checkpointed)
    broken = corruptions(check.read_bytes())
    assert set(broken) == set(CORRUPTIONS) | set(KNOWN_LEAKS)
    check.write_bytes(broken[name])
    with pytest.raises(NardyError) as error:
        tiny(checkpointed.parent, games=40)
    assert field_of(error) == "checkpoint", str(error.value)
    assert str(check) in str(error.value)


# --- determinism and resumption ------------------------------------------------------------------------------


def test_the_same_training_twice_gives_the_same_weights(tmp_path: Path) -> None:
    first = tiny(tmp_path, "a.npz")
    second = tiny(tmp_path, "b.npz")
    assert first.sha256 == second.sha256
    assert Network.load(tmp_path / "a.npz").sha256 == first.sha256
    # what the weights depend on: the seed does; threads and strength checks do not
    assert tiny(tmp_path, "c.npz", seed=4).sha256 != first.sha256
    assert tiny(tmp_path, "d.npz", threads=2, eval_every=20).sha256 == first.sha256
    assert first.training["games"] == TINY_GAMES and first.training["seed"] == TINY["seed"]
    assert meta_games(tmp_path / "a.npz") == TINY_GAMES


def meta_games(out: Path) -> int:
    done: int = checkpoint_meta(out)["done"]
    return done


class Interrupt:
    """A ``progress`` callback that raises KeyboardInterrupt once ``at`` games are done, the first time."""

    def __init__(self, at: int) -> None:
        self.at = at
        self.fired = False
        self.calls: list[tuple[int, int]] = []

    def __call__(self, done: int, games: int) -> None:
        self.calls.append((done, games))
        if done >= self.at and not self.fired:
            self.fired = True
            raise KeyboardInterrupt


@pytest.mark.parametrize(
    ("at", "targets"),
    [
        (20, {}),
        (40, {}),
        (20, {"inputs": "expert"}),
        pytest.param(
            20,
            {"targets": "search", "hidden": 4},
            marks=pytest.mark.skipif(
                nardy_fast.IMPLEMENTATION == "python", reason="search trainings on the reference take minutes"
            ),
        ),
    ],
)
def test_an_interrupted_training_resumes_to_the_same_weights(tmp_path: Path, at: int, targets: dict[str, Any]) -> None:
    whole = tiny(tmp_path, "whole.npz", **targets)
    out = tmp_path / "w.npz"
    stop = Interrupt(at)
    with pytest.raises(KeyboardInterrupt):
        tiny(tmp_path, progress=stop, **targets)
    assert stop.calls == [(done, TINY_GAMES) for done in range(0, at + 1, TINY["batch"])]
    assert not out.exists() and meta_games(out) == at  # nothing lost: the checkpoint was written first
    resumed_calls: list[tuple[int, int]] = []
    resumed = tiny(tmp_path, progress=lambda done, games: resumed_calls.append((done, games)), **targets)
    assert resumed.sha256 == whole.sha256 == Network.load(out).sha256
    assert resumed_calls == [(done, TINY_GAMES) for done in range(at, TINY_GAMES + 1, TINY["batch"])]


def test_an_interruption_inside_an_iteration_loses_that_iteration_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = tiny(tmp_path, "whole.npz")
    real = trainer_module._self_play
    calls = []

    def self_play(*args: Any) -> Any:
        calls.append(args)
        if len(calls) == 2:  # in the middle of the second iteration: its games are being played
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(trainer_module, "_self_play", self_play)
    with pytest.raises(KeyboardInterrupt):
        tiny(tmp_path)
    out = tmp_path / "w.npz"
    assert meta_games(out) == TINY["batch"] and meta_games(out) % TINY["batch"] == 0
    monkeypatch.setattr(trainer_module, "_self_play", real)
    assert tiny(tmp_path).sha256 == whole.sha256


def test_a_partial_batch_extended_later_shuffles_with_a_seed_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """50 games in batches of 20 end with an iteration of 10; extended to 60, the training resumes at 50 with
    a fourth iteration (the checkpoint counts them), not a second "third" one: the shuffles of Adam's passes
    are seeded by the iteration, and 50 // 20 would reuse the third's seed."""
    out = tmp_path / "w.npz"
    real = trainer_module._learn
    seen: list[tuple[int, int]] = []

    def learn(state: Any, config: Any, trajectories: Trajectories, network: Network, iteration: int) -> float:
        seen.append((iteration, len(trajectories.offsets) - 1))
        return real(state, config, trajectories, network, iteration)

    monkeypatch.setattr(trainer_module, "_learn", learn)
    tiny(tmp_path, games=50)
    meta = checkpoint_meta(out)
    assert (meta["done"], meta["iterations"]) == (50, 3)
    tiny(tmp_path, games=60)
    meta = checkpoint_meta(out)
    assert (meta["done"], meta["iterations"]) == (60, 4)
    assert seen == [(0, 20), (1, 20), (2, 10), (3, 10)]  # (iteration, games)


def test_a_checkpoint_without_an_iteration_count_counts_whole_batches(tmp_path: Path) -> None:
    """A checkpoint that does not say how many iterations it holds (of whole batches: done // batch of them)
    resumes to the weights of the training never interrupted."""
    whole = tiny(tmp_path, "whole.npz")
    out = tmp_path / "w.npz"
    tiny(tmp_path, games=40)
    check = checkpoint_path(out)
    with np.load(check, allow_pickle=False) as archive:
        arrays = {key: archive[key] for key in archive.files}
    meta = json.loads(str(arrays["meta"]))
    assert meta.pop("iterations") == 2
    check.write_bytes(npz_bytes({**arrays, "meta": np.array(json.dumps(meta))}))
    assert tiny(tmp_path).sha256 == whole.sha256
    assert checkpoint_meta(out)["iterations"] == 3


def test_an_interruption_in_the_log_callback_never_logs_a_check_twice(tmp_path: Path) -> None:
    """The log file gets a check after the checkpoint that holds it: interrupted as it is handed to ``log``,
    the training resumes after it and the file has every check once."""
    out = tmp_path / "w.npz"
    handed: list[int] = []

    def stop(entry: dict[str, Any]) -> None:
        handed.append(entry["games"])
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        tiny(tmp_path, eval_every=20, log=stop)
    assert handed == [20] and meta_games(out) == 20
    assert [json.loads(line)["games"] for line in log_path(out).read_text().splitlines()] == [20]
    tiny(tmp_path, eval_every=20, log=lambda entry: handed.append(entry["games"]))
    assert handed == [20, 40, 60]
    lines = [json.loads(line) for line in log_path(out).read_text().splitlines()]
    assert [entry["games"] for entry in lines] == [20, 40, 60] and lines == checkpoint_meta(out)["log"]


def test_the_log_has_a_strength_check_every_k_games(tmp_path: Path) -> None:
    entries: list[dict[str, Any]] = []
    network = tiny(tmp_path, games=50, batch=10, eval_every=20, log=entries.append)
    # a check when an iteration crosses a multiple of 20: after 20 and 40 games, none at 50
    assert [entry["games"] for entry in entries] == [20, 40]
    lines = log_path(tmp_path / "w.npz").read_text().splitlines()
    assert [json.loads(line) for line in lines] == entries
    assert checkpoint_meta(tmp_path / "w.npz")["log"] == entries
    for entry in entries:
        assert -3 <= entry["ppg"] <= 3 and entry["stderr"] > 0 and entry["seconds"] >= 0
    # the last check is the strength of the network as it was after 40 games, on the checks' own dice
    at_40 = tiny(tmp_path, "at40.npz", games=40, batch=10)
    result = nardy_fast.duel(Greedy(at_40), Greedy("heuristic"), "short", 20, seed=trainer_module.EVAL_SEED)
    assert entries[1]["ppg"] == round(result.ppg, 4) and entries[1]["stderr"] == round(result.stderr, 4)
    assert network.training["games"] == 50


# --- TD(lambda) targets --------------------------------------------------------------------------------------


def trajectories_of(turns: list[list[int]]) -> Trajectories:
    """Trajectories whose rows differ only by their side to move (all the targets read of a row)."""
    flat = [t for game in turns for t in game]
    rows = np.zeros((len(flat), layout.WIDTH), dtype=np.int8)
    rows[:, layout.TURN] = flat
    offsets = np.cumsum([0] + [len(game) for game in turns]).astype(np.int64)
    return Trajectories(rows, np.zeros((len(flat), 2), dtype=np.int8), offsets)


def flip(v: list[float]) -> list[float]:
    """Outcomes (win, win mars, win koks, lose mars, lose koks) seen from the other side."""
    return [1 - v[0], v[3], v[4], v[1], v[2]]


#: Game A: White, Black, Black again (an extra roll: the turn does not pass), White; game B: Black, White,
#: Black; game C: one row. The values are the sides' to move.
A = [
    [0.5, 0.1, 0.0, 0.2, 0.0],
    [0.6, 0.2, 0.1, 0.1, 0.0],
    [0.3, 0.0, 0.0, 0.4, 0.1],
    [1.0, 1.0, 0.0, 0.0, 0.0],
]
B = [[0.2, 0.0, 0.0, 0.3, 0.1], [0.7, 0.3, 0.0, 0.1, 0.0], [0.4, 0.1, 0.0, 0.2, 0.0]]
C = [[0.9, 0.5, 0.1, 0.0, 0.0]]
TURNS = [[0, 1, 1, 0], [1, 0, 1], [0]]

#: The returns, worked by hand from G_T = V(s_T), G_t = (1 - lam) V'(s_t+1) + lam G'(s_t+1).
EXPECTED = {
    0.0: [
        # A: flip(A1), A2 (no pass), flip(A3), A3
        [0.4, 0.1, 0.0, 0.2, 0.1],
        [0.3, 0.0, 0.0, 0.4, 0.1],
        [0.0, 0.0, 0.0, 1.0, 0.0],
        A[3],
        # B: flip(B1), flip(B2), B2
        [0.3, 0.1, 0.0, 0.3, 0.0],
        [0.6, 0.2, 0.0, 0.1, 0.0],
        B[2],
        C[0],
    ],
    1.0: [
        # every row: the last value, from its side (A0 and A3 are White's; A1, A2 Black's)
        A[3],
        [0.0, 0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0, 0.0],
        A[3],
        B[2],
        [0.6, 0.2, 0.0, 0.1, 0.0],
        B[2],
        C[0],
    ],
    0.5: [
        # A2 = flip(A3) both ways; A1 = (A2 + G_A2) / 2; A0 = (flip(A1) + flip(G_A1)) / 2
        [0.625, 0.4, 0.025, 0.1, 0.05],
        [0.15, 0.0, 0.0, 0.7, 0.05],
        [0.0, 0.0, 0.0, 1.0, 0.0],
        A[3],
        # B1 = flip(B2); B0 = (flip(B1) + flip(G_B1)) / 2 = (flip(B1) + B2) / 2
        [0.35, 0.1, 0.0, 0.25, 0.0],
        [0.6, 0.2, 0.0, 0.1, 0.0],
        B[2],
        C[0],
    ],
}


@pytest.mark.parametrize("lam", sorted(EXPECTED))
def test_lambda_returns_of_a_hand_worked_example(lam: float) -> None:
    values = np.array(A + B + C, dtype=np.float64)
    returns = lambda_returns(trajectories_of(TURNS), values.copy(), lam)
    assert returns.shape == (8, 5) and returns.dtype == np.float64
    np.testing.assert_allclose(returns, np.array(EXPECTED[lam]), rtol=0, atol=1e-12)
    # the games are independent: each alone gives its own rows
    alone = lambda_returns(trajectories_of(TURNS[1:2]), values[4:7].copy(), lam)
    np.testing.assert_allclose(alone, np.array(EXPECTED[lam][4:7]), rtol=0, atol=1e-12)


def played(variant: str, games: int, seed: int) -> Trajectories:
    _, trajectories = _dispatch.playout(variant, games, seed=seed, trajectories=True)
    return trajectories


def naive_returns(
    trajectories: Trajectories, values: npt.NDArray[np.float64], lam: float
) -> npt.NDArray[np.float64]:
    """The recursion of the targets' docstring, one row at a time from each game's end."""
    turn = layout.turn(trajectories.rows)
    out = np.array(values, dtype=np.float64)
    offsets = trajectories.offsets
    for first, end in itertools.pairwise(offsets):
        for t in range(end - 2, first - 1, -1):
            nxt_value, nxt_return = list(values[t + 1]), list(out[t + 1])
            if turn[t] != turn[t + 1]:
                nxt_value, nxt_return = flip(nxt_value), flip(nxt_return)
            out[t] = (1 - lam) * np.array(nxt_value) + lam * np.array(nxt_return)
    return out


def nested_values(n: int, seed: int) -> npt.NDArray[np.float64]:
    """``n`` random outcome vectors, nested as values are (``flipped`` refuses others): win, then mars and koks
    as fractions of the win, the losses with mars and koks as fractions of the loss."""
    r = np.random.default_rng(seed).random((n, 5))
    values = np.empty_like(r)
    values[:, 0] = r[:, 0]
    values[:, 1] = values[:, 0] * r[:, 1]
    values[:, 2] = values[:, 1] * r[:, 2]
    values[:, 3] = (1 - values[:, 0]) * r[:, 3]
    values[:, 4] = values[:, 3] * r[:, 4]
    return values


@pytest.mark.parametrize(("variant", "seed"), [("short", 1), ("gulbar", 2), ("crazy", 3)])
def test_lambda_returns_of_played_games(variant: str, seed: int) -> None:
    trajectories = played(variant, 6, seed)
    values = nested_values(len(trajectories.rows), seed)
    last = trajectories.offsets[1:] - 1
    # lambda 1: each row's return is its game's last value, from the row's side
    mc = lambda_returns(trajectories, values, 1.0)
    game = trajectories.game_index()
    final = values[last][game]
    same_side = layout.turn(trajectories.rows) == layout.turn(trajectories.rows[last])[game]
    seen = np.where(same_side[:, None], final, np.array([flip(list(v)) for v in final]))
    np.testing.assert_allclose(mc, seen, rtol=0, atol=1e-12)
    for lam in (0.0, 0.3, 0.7):
        np.testing.assert_allclose(
            lambda_returns(trajectories, values, lam),
            naive_returns(trajectories, values, lam),
            rtol=0,
            atol=1e-12,
        )
    # with the outcomes for values, lambda 1 learns the result: a win exactly for the rows of the winner
    outcome = trajectories.outcome()
    results = np.zeros_like(values)
    results[last] = _dispatch.evaluate(trajectories.rows[last], "heuristic")  # a finished row: its result
    won = lambda_returns(trajectories, results, 1.0)[:, 0]
    assert np.array_equal(won, (outcome > 0).astype(np.float64))


def test_lambda_returns_of_no_rows() -> None:
    empty = Trajectories(
        np.zeros((0, layout.WIDTH), np.int8), np.zeros((0, 2), np.int8), np.zeros(1, np.int64)
    )
    assert lambda_returns(empty, np.zeros((0, 5)), 0.5).shape == (0, 5)


# --- the model -----------------------------------------------------------------------------------------------


def forward64(params: dict[str, Any], x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """The network's outputs before nesting (the forward pass of evaluation/network.py), in float64: rectified
    linear hidden units, sigmoid outputs."""
    h = np.maximum(x @ params["w1"] + params["b1"], 0.0)
    out: npt.NDArray[np.float64] = 1 / (1 + np.exp(-(h @ params["w2"].T + params["b2"])))
    return out


def loss64(
    params: dict[str, npt.NDArray[np.float64]], x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]
) -> float:
    """The cross-entropy of the five outputs summed, averaged over the rows, in float64."""
    p = forward64(params, x)
    return float(-np.mean(np.sum(y * np.log(p) + (1 - y) * np.log(1 - p), axis=1)))


def test_gradients_match_finite_differences() -> None:
    rng = np.random.default_rng(5)
    inputs, hidden, n = 6, 3, 4
    params = {
        "w1": rng.normal(0, 0.8, (inputs, hidden)),
        "b1": rng.normal(0, 0.5, hidden),
        "w2": rng.normal(0, 0.8, (5, hidden)),
        "b2": rng.normal(0, 0.5, 5),
    }
    x = rng.random((n, inputs))
    y = rng.random((n, 5))
    as32 = {k: v.astype(np.float32) for k, v in params.items()}
    loss, grads = gradients(as32, x.astype(np.float32), y.astype(np.float32))
    # the float64 loss of the same float32 weights
    exact = {k: v.astype(np.float64) for k, v in as32.items()}
    assert loss == pytest.approx(loss64(exact, x.astype(np.float32).astype(np.float64), y), rel=1e-5)
    step = 1e-6
    for name, value in exact.items():
        assert grads[name].shape == value.shape and grads[name].dtype == np.float32
        numeric = np.zeros_like(value)
        for index in np.ndindex(value.shape):
            up = {**exact, name: value.copy()}
            down = {**exact, name: value.copy()}
            up[name][index] += step
            down[name][index] -= step
            numeric[index] = (loss64(up, x, y) - loss64(down, x, y)) / (2 * step)
        np.testing.assert_allclose(grads[name], numeric, rtol=1e-3, atol=1e-5, err_msg=name)
        assert np.abs(numeric).max() > 1e-3  # the check compares something


def test_adam_first_step_moves_each_weight_by_the_rate() -> None:
    # Adam's first step: m/c1 = g, v/c2 = g*g, so each weight moves by rate * g / (|g| + 1e-8)
    params = {"w": np.array([1.0, 2.0, 3.0], np.float32)}
    grads = {"w": np.array([0.5, -2.0, 0.0], np.float32)}
    adam = Adam(params, 0.01)
    adam.update(params, grads)
    np.testing.assert_allclose(params["w"], [0.99, 2.01, 3.0], rtol=0, atol=1e-6)
    assert adam.step == 1


def test_a_network_with_the_trained_weights_values_as_the_model() -> None:
    # the model's forward pass is the evaluator's (to float32 rounding), so what is learned is what plays
    rng = np.random.default_rng(9)
    params = {
        "w1": rng.normal(0, 0.1, (INPUTS, 7)).astype(np.float32),
        "b1": rng.normal(0, 0.1, 7).astype(np.float32),
        "w2": rng.normal(0, 0.3, (5, 7)).astype(np.float32),
        "b2": np.array([0.0, -2.0, -4.5, -2.5, -5.0], np.float32),
    }
    network = Network("long", params["w1"], params["b1"], params["w2"], params["b2"])
    rows = played("long", 2, 4).rows[:50]
    x = _dispatch.encode(rows, "nardy").astype(np.float64)
    p = forward64({k: v.astype(np.float64) for k, v in params.items()}, x)
    # the evaluator nests the outputs by capping: with these biases no capping happens (koks < mars < win)
    assert (p[:, 2] < p[:, 1]).all() and (p[:, 1] < p[:, 0]).all() and (p[:, 4] < p[:, 3]).all()
    assert (p[:, 3] < 1 - p[:, 0]).all()
    np.testing.assert_allclose(_dispatch.evaluate(rows, network), p, rtol=0, atol=1e-5)


# --- learning -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("variant", "games", "options"),
    [
        ("sixone", 800, {"rate": 0.003, "batch": 50, "hidden": 16, "seed": 2}),
        ("short", 2000, {"rate": 0.001, "batch": 50, "hidden": 16, "seed": 2}),
    ],
)
def test_training_improves_the_duel_against_random(
    tmp_path: Path, variant: str, games: int, options: dict[str, Any]
) -> None:
    untrained = train(variant, 1, out=tmp_path / "untrained.npz", eval_every=0, **{**options, "batch": 1})
    trained = train(variant, games, out=tmp_path / "trained.npz", eval_every=0, **options)
    before = nardy_fast.duel(Greedy(untrained), "random", variant, 200, seed=77)
    after = nardy_fast.duel(Greedy(trained), "random", variant, 200, seed=77)
    margin = math.hypot(before.stderr, after.stderr)
    # (with these settings seeds 1..8 gained +1.1 ppg or more: the bound leaves room for changes of the model)
    assert after.ppg > before.ppg + max(0.5, 3 * margin), (before.ppg, after.ppg, margin)
    assert after.ppg > 0.5


# --- Dask -----------------------------------------------------------------------------------------------------


def test_self_play_on_a_dask_cluster_makes_the_same_weights(tmp_path: Path) -> None:
    distributed = pytest.importorskip(
        "distributed", reason="Dask's distributed scheduler (the dask extra) is absent"
    )
    local = tiny(tmp_path, "local.npz")
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        remote = tiny(tmp_path, "dask.npz", client=client)
        with pytest.raises(NardyError) as error:
            tiny(tmp_path, "bad.npz", client="tcp://nowhere:1")
    assert remote.sha256 == local.sha256
    assert field_of(error) == "client"
