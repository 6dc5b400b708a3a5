"""Self-play training of a network (docs/rules.md, Training): :func:`train`, its checked arguments, its
checkpoints and its log.

Training runs in iterations of ``batch`` games. Each iteration:

1. plays ``batch`` games of self-play with the network as it is (``Greedy(network)``, 0-ply) as one playout,
   in C on ``threads`` threads (or on a Dask ``client``'s workers): game ``g`` of the training is game ``g``
   of seed ``seed``, so the games of given weights are the same wherever they are played;
2. values every position of those games with the same network and turns the values into TD(lambda) targets
   (``targets="td"``), or values each by the network's own search ``target_plies`` deep (``"search"``)
   (:mod:`~nardy_fast.training.targets`);
3. takes ``epochs`` passes of Adam over the positions in a shuffled order, ``minibatch`` positions a step,
   minimising the cross-entropy of the five outputs against the targets.

After each iteration the weights, Adam's moments and the log are written to ``<out>.checkpoint.npz``
(atomically: a killed process leaves the last whole checkpoint), so that an interrupted training started
again with the same arguments resumes there and loses at most the games of one iteration; the resumed
training makes the same weights, bit for bit, as one that was never interrupted. Every ``eval_every``
games the network plays ``eval_games`` duplicate games against ``"heuristic"``; the result is logged
(``<out>.log.jsonl``, one JSON object a line) and handed to ``log``. At the end the weights are saved to
``out`` with how they were made.

Every file is written by :mod:`nardy_fast.files` (whole or not at all, nothing but the package's own
temporary file touched; the log is written again whole with its new line). Before any game is played,
``out``, its checkpoint and its log are checked to be writable without writing anything: a file name, in an
existing directory the user may write, each name within the bytes a name may have, none an existing file
that is not a regular one. The checkpoint is read by :func:`nardy_fast.files.read_npz` (its members' exact
shapes, and the size of its JSON, checked before they are read) and its counts bounded.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Optional

import numpy as np

from .. import layout
from ..encodings import SCHEMES
from ..errors import NardyError, field_error
from ..evaluation.network import MAX_HIDDEN, MAX_WEIGHT, NETWORK_SCHEMES, Network
from ..files import parse_json, read_npz, write_npz
from ..inputs import boolean, choice, integer
from ..playouts import MAX_THREADS
from ..policies import Greedy
from ..variants import VARIANTS
from .blas import blas_threads
from .model import Adam, Params, gradients, initial
from .outputs import (
    MAX_GAMES,
    append_log,
    checkpoint_counts,
    checkpoint_log,
    checkpoint_members,
    checkpoint_path,
    log_path,
    out_path,
)
from .targets import TARGETS, lambda_returns, search_values

__all__ = ["TrainingConfig", "check_config", "train", "checkpoint_path", "log_path", "resumable_games", "EVAL_SEED"]

#: The seed of the dice of the strength checks, the same at every check so that they compare.
EVAL_SEED = 12345
#: The deepest search of search targets (a 2-ply target costs about 40 times a 1-ply one).
MAX_TARGET_PLIES = 2
#: What a checkpoint written before an option existed was made with.
BEFORE: dict[str, object] = {"targets": "td", "target_plies": 1, "inputs": "nardy"}


@dataclass(frozen=True)
class TrainingConfig:
    """The checked arguments of a training (:func:`train` says what each means)."""

    variant: str
    games: int
    seed: int = 0
    hidden: int = 80
    lam: float = 0.7
    rate: float = 0.001
    batch: int = 500
    minibatch: int = 64
    epochs: int = 1
    eval_every: int = 10_000
    eval_games: int = 200
    threads: int = 1
    init: str = ""  # the sha256 of the weights training started from, "" for random ones
    targets: str = "td"
    target_plies: int = 1
    inputs: str = "nardy"

    #: what a checkpoint must agree on to be resumed (the rest may change between runs)
    RESUMED = (
        "variant", "seed", "hidden", "lam", "rate", "batch", "minibatch", "epochs", "init", "targets", "target_plies",
        "inputs",
    )


def _int(value: object, name: str, low: int, high: int) -> int:
    number = integer(value)
    if number is None or not low <= number <= high:
        raise field_error(NardyError, name, f"must be an integer {low}..{high}", value)
    return number


def _real(value: object, name: str, low: float, high: float, open_low: bool = False) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise field_error(NardyError, name, "must be a real number", value)
    number = float(value)
    if not (low < number if open_low else low <= number) or not number <= high:
        interval = f"{'(' if open_low else '['}{low:g}, {high:g}]"
        raise field_error(NardyError, name, f"must be in {interval}", value)
    return number


def check_config(variant: object, games: object, **options: object) -> TrainingConfig:
    """The checked :class:`TrainingConfig` of :func:`train`'s arguments, or a :class:`~nardy_fast.NardyError`
    naming the first one out of range."""
    known = choice(variant, VARIANTS)
    if known is None:
        raise field_error(NardyError, "variant", f"must be one of {VARIANTS}", variant)
    unknown = sorted(set(options) - set(TrainingConfig.__dataclass_fields__) - {"init"})
    if unknown:
        raise field_error(NardyError, unknown[0], "is not an option of train", options[unknown[0]])
    d = TrainingConfig(known, 1)
    get = options.get
    hidden = _int(get("hidden", d.hidden), "hidden", 1, MAX_HIDDEN)
    targets = choice(get("targets", d.targets), TARGETS)
    if targets is None:
        raise field_error(NardyError, "targets", f"must be one of {TARGETS}", get("targets"))
    inputs = choice(get("inputs", d.inputs), NETWORK_SCHEMES)
    if inputs is None:
        raise field_error(NardyError, "inputs", f"must be one of {NETWORK_SCHEMES}", get("inputs"))
    init = get("init")
    config = TrainingConfig(
        variant=known,
        games=_int(games, "games", 1, MAX_GAMES),
        seed=_int(get("seed", d.seed), "seed", 0, (1 << 64) - 1),
        hidden=hidden,
        lam=_real(get("lam", d.lam), "lam", 0.0, 1.0),
        rate=_real(get("rate", d.rate), "rate", 0.0, 1.0, open_low=True),
        batch=_int(get("batch", d.batch), "batch", 1, 1 << 20),
        minibatch=_int(get("minibatch", d.minibatch), "minibatch", 1, 1 << 20),
        epochs=_int(get("epochs", d.epochs), "epochs", 1, 100),
        eval_every=_int(get("eval_every", d.eval_every), "eval_every", 0, MAX_GAMES),
        eval_games=_int(get("eval_games", d.eval_games), "eval_games", 2, 1 << 20),
        threads=_int(get("threads", d.threads), "threads", 1, MAX_THREADS),
        init="" if init is None else _init(init, hidden, inputs).sha256,
        targets=targets,
        target_plies=_int(get("target_plies", d.target_plies), "target_plies", 1, MAX_TARGET_PLIES),
        inputs=inputs,
    )
    if config.eval_games % 2:
        raise field_error(
            NardyError, "eval_games", "must be even (pairs on duplicate dice)", config.eval_games
        )
    return config


def _init(value: object, hidden: int, inputs: str) -> Network:
    """The network a training starts from: a :class:`Network` or the path of its weights, of ``hidden``
    units (its variant may be another: a related game's weights are a better start than random ones), reading
    the ``inputs`` scheme or, for ``"expert"``, the ``"nardy"`` one (:func:`_start`)."""
    network = value if isinstance(value, Network) else None
    if network is None:
        try:
            network = Network.load(value)
        except NardyError as error:  # the weights file's own error, under this argument's name
            raise NardyError("init: " + str(error).removeprefix("weights: ")) from None
    if network.hidden != hidden:
        shown = os.fspath(value) if isinstance(value, os.PathLike) else value
        raise field_error(NardyError, "init", f"has {network.hidden} hidden units, not {hidden}", shown)
    if network.scheme != inputs and network.scheme != "nardy":
        shown = os.fspath(value) if isinstance(value, os.PathLike) else value
        raise field_error(NardyError, "init", f"reads the {network.scheme!r} inputs, not {inputs!r}", shown)
    return network


def _start(network: Network, inputs: str) -> Params:
    """The parameters a training of ``inputs`` starts from ``network`` with: its own, and for a ``"nardy"``
    network that starts an ``"expert"`` one, weights 0 from the expert features (the network values every
    position as before, and learns what the new inputs add)."""
    arrays = network.arrays()
    extra = SCHEMES[inputs].features - arrays["w1"].shape[0]
    if extra:
        arrays["w1"] = np.vstack([arrays["w1"], np.zeros((extra, network.hidden), dtype=np.float32)])
    return arrays


class _State:
    """What a checkpoint holds: parameters, Adam, games done, seconds spent and the log."""

    def __init__(self, config: TrainingConfig) -> None:
        features = SCHEMES[config.inputs].features
        self.params: Params = initial(features, config.hidden, np.random.default_rng([config.seed, 1 << 32]))
        self.adam = Adam(self.params, config.rate)
        self.done = 0
        self.iterations = 0
        self.seconds = 0.0
        self.log: list[dict[str, Any]] = []

    def save(self, path: Path, config: TrainingConfig) -> None:
        meta = {"config": asdict(config), "done": self.done, "seconds": self.seconds, "log": self.log}
        meta["scheme"], meta["step"], meta["iterations"] = config.inputs, self.adam.step, self.iterations
        arrays = {**self.params, **{f"m_{k}": v for k, v in self.adam.m.items()}}
        arrays.update({f"v_{k}": v for k, v in self.adam.v.items()})
        try:
            write_npz(path, {"meta": np.array(json.dumps(meta)), **arrays})
        except OSError as error:
            raise field_error(NardyError, "out", f"cannot be written ({error.strerror})", str(path)) from None

    def load(self, path: Path, config: TrainingConfig) -> None:
        arrays = read_npz(path, "checkpoint", "is not a training checkpoint", checkpoint_members())
        try:
            meta = parse_json(str(arrays.pop("meta")))
            saved = meta["config"]
            for key in TrainingConfig.RESUMED:
                # a checkpoint older than an option was made with its one setting then
                made = BEFORE[key] if key in BEFORE and key not in saved else saved[key]
                if made != getattr(config, key):
                    what = {"variant": "of another variant", "hidden": "of another network shape"}.get(
                        key, ""
                    )
                    problem = f"{what or 'made with another ' + key} ({key} {made!r}, not {getattr(config, key)!r})"
                    raise field_error(NardyError, "checkpoint", problem, str(path))
            shapes = {k: v.shape for k, v in self.params.items()}
            for k, shape in shapes.items():
                for prefix in ("", "m_", "v_"):
                    array = arrays[prefix + k]
                    bad = array.shape != shape or array.dtype != np.float32 or not np.isfinite(array).all()
                    # weights a Network takes; second moments Adam takes the square root of
                    bad = bad or (prefix == "" and bool(np.abs(array).max() > MAX_WEIGHT))
                    bad = bad or (prefix == "v_" and bool((array < 0).any()))
                    if bad:
                        raise field_error(NardyError, "checkpoint", f"has a bad {prefix + k}", str(path))
            counts, log = checkpoint_counts(meta), checkpoint_log(meta["log"])
            if counts is None:
                raise field_error(NardyError, "checkpoint", "has a bad games or step count", str(path))
            if log is None:
                raise field_error(NardyError, "checkpoint", "has a log that is not a list of checks", str(path))
            self.params.update({k: arrays[k].copy() for k in shapes})
            self.adam.m = {k: arrays["m_" + k].copy() for k in shapes}
            self.adam.v = {k: arrays["v_" + k].copy() for k in shapes}
            self.done, self.adam.step, iterations, self.seconds = counts
            self.log = log
            # checkpoints of whole batches only count their iterations by their games
            self.iterations = iterations if "iterations" in meta else self.done // config.batch
        except NardyError:
            raise
        except (ValueError, KeyError, TypeError) as error:
            raise field_error(
                NardyError, "checkpoint", f"is not a training checkpoint ({error})", str(path)
            ) from None


def resumable_games(out: Path, config: TrainingConfig) -> int:
    """The games held by the checkpoint of a training to ``out`` that a training of ``config`` would resume:
    0 when there is none, or it cannot be read, or it was made with other settings. Read from the file, so
    that what a program says of an interrupted training is what the file holds, whenever the interrupt came."""
    check = checkpoint_path(out)
    if not check.exists():
        return 0
    state = _State(config)
    try:
        state.load(check, config)
    except NardyError:
        return 0
    return state.done


def _network(state: _State, config: TrainingConfig, training: Optional[dict[str, Any]] = None) -> Network:
    p = state.params
    return Network(config.variant, p["w1"], p["b1"], p["w2"], p["b2"], training=training)


def _self_play(network: Network, config: TrainingConfig, first: int, count: int, client: object) -> Any:
    from .. import playout

    options: dict[str, Any] = {"first_game": first, "policy": Greedy(network), "threads": config.threads}
    if client is None:
        return playout(config.variant, count, seed=config.seed, trajectories=True, **options)
    from .. import distributed

    return distributed.playout(client, config.variant, count, seed=config.seed, trajectories=True, **options)  # type: ignore[call-overload]


def _learn(
    state: _State, config: TrainingConfig, trajectories: Any, network: Network, iteration: int
) -> float:
    from .. import Position, encode, evaluate

    if config.targets == "search":
        targets = search_values(Position.kernels, trajectories.rows, network, config.target_plies, config.threads)
    else:
        targets = lambda_returns(trajectories, evaluate(trajectories.rows, network), config.lam)
    live = ~layout.is_over(trajectories.rows)
    x = encode(np.ascontiguousarray(trajectories.rows[live]), config.inputs)
    y = targets[live].astype(np.float32)
    rng = np.random.default_rng([config.seed, iteration])
    losses = []
    for _ in range(config.epochs):
        order = rng.permutation(len(x))
        for begin in range(0, len(x), config.minibatch):
            pick = order[begin : begin + config.minibatch]
            loss, grads = gradients(state.params, x[pick], y[pick])
            state.adam.update(state.params, grads)
            losses.append(loss)
    return float(np.mean(losses)) if losses else 0.0


def _strength(network: Network, config: TrainingConfig) -> dict[str, float]:
    from .. import duel

    result = duel(Greedy(network), Greedy("heuristic"), config.variant, config.eval_games, seed=EVAL_SEED)
    return {"ppg": round(result.ppg, 4), "stderr": round(result.stderr, 4)}


def train(
    variant: str,
    games: int,
    *,
    out: object,
    resume: bool = True,
    client: object = None,
    command: Optional[str] = None,
    progress: Optional[Callable[[int, int], None]] = None,
    log: Optional[Callable[[dict[str, Any]], None]] = None,
    **options: object,
) -> Network:
    """Train a network of ``variant`` by self-play for ``games`` games in all (the module docstring) and save
    it to ``out``; returns it. Options (:class:`TrainingConfig`): ``seed``, ``hidden`` units, ``lam``
    (lambda), ``rate`` (Adam's step size), ``batch`` (games an iteration), ``minibatch``, ``epochs``,
    ``eval_every`` (games between strength checks, 0: none), ``eval_games``, ``threads`` (of the games
    and the search targets, and at most as many for NumPy's BLAS while it trains: :mod:`~nardy_fast.training.blas`), ``targets``
    (``"td"``: TD(lambda) returns; ``"search"``: each position's value by the network's own search
    ``target_plies`` deep, 1 or 2, ``lam`` unused), ``target_plies`` and ``inputs`` (the network's encoding,
    ``"nardy"`` or ``"expert"``: :data:`~nardy_fast.evaluation.network.NETWORK_SCHEMES`). ``resume``
    continues from ``out``'s checkpoint when there is one; ``client`` plays the games on Dask; ``command``
    is recorded with the weights; ``progress(done, games)`` is called after each iteration, ``log(entry)``
    after each strength check."""
    config = check_config(variant, games, **options)
    resuming = boolean(resume)
    if resuming is None:
        raise field_error(NardyError, "resume", "must be True or False", resume)
    if command is not None and not isinstance(command, str):
        raise field_error(NardyError, "command", "must be a string or None", command)
    for name, value in (("progress", progress), ("log", log)):
        if value is not None and not callable(value):
            raise field_error(NardyError, name, "must be callable or None", value)
    target = out_path(out)
    check = checkpoint_path(target)
    state = _State(config)
    if resuming and check.exists():
        state.load(check, config)
    elif options.get("init") is not None:
        state.params.update(_start(_init(options["init"], config.hidden, config.inputs), config.inputs))
    # NumPy's math library bounded too: it would spread Adam's products over every core
    with blas_threads(config.threads):
        if progress is not None:
            progress(min(state.done, config.games), config.games)
        while state.done < config.games:
            started = time.perf_counter()
            count = min(config.batch, config.games - state.done)
            network = _network(state, config)
            _, trajectories = _self_play(network, config, state.done, count, client)
            loss = _learn(state, config, trajectories, network, state.iterations)
            before, state.done = state.done, state.done + count
            state.iterations += 1
            entry: Optional[dict[str, Any]] = None
            if config.eval_every and state.done // config.eval_every > before // config.eval_every:
                entry = {"games": state.done, "loss": round(loss, 5), "positions": len(trajectories.rows)}
                entry.update(_strength(_network(state, config), config))
                state.log.append(entry)
            state.seconds += time.perf_counter() - started
            if entry is not None:
                entry["seconds"] = round(state.seconds, 1)
            state.save(check, config)
            if entry is not None:  # after the checkpoint that holds it: a resumed run never logs it twice
                append_log(target, entry)
                if log is not None:
                    log(entry)
            if progress is not None:
                progress(state.done, config.games)
    made = {"command": command, "seconds": round(state.seconds, 1), **asdict(config)}
    made.pop("threads")
    made["games"] = state.done
    network = _network(state, config, training=made)
    network.save(target)
    return network
