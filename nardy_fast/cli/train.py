"""``nardy-fast train``: train a network by self-play (:func:`nardy_fast.training.train`), print its strength
against ``"heuristic"`` as it goes, and save the weights."""

from __future__ import annotations

import argparse
import contextlib
import re
import shlex
import sys
from pathlib import Path
from typing import Any, Optional

from .. import IMPLEMENTATION, VARIANTS
from ..errors import cut, quote
from ..evaluation.constants import NETWORK_SCHEMES
from ..training import TrainingConfig, check_config, train
from ..training.trainer import checkpoint_path, log_path, resumable_games
from .parser import Parser, UsageError, errors_of
from .progress import Progress, progress_option, progress_stream

__all__ = ["DESCRIPTION", "FIELDS", "add_arguments", "command_line", "log_line", "run"]

DESCRIPTION = (
    "Train a network evaluator of a variant by self-play and save its weights (.npz, loaded by\n"
    "nardy_fast.evaluation.network.Network.load). Each iteration plays --batch games with the network as it\n"
    "is (0-ply greedy, in C on --threads threads, or on a Dask cluster with --scheduler), turns the values\n"
    "of their positions into TD(lambda) targets (or, with --targets search, values each position by the\n"
    "network's own --target-plies search) and takes --epochs passes of Adam over them. After every\n"
    "iteration the training is checkpointed to OUT.checkpoint.npz: interrupted (Ctrl-C, a killed process),\n"
    "the same command started again resumes there, losing at most one iteration, and makes the same weights\n"
    "bit for bit as a run never interrupted (and as on one machine: game g is game g of the seed wherever it\n"
    "is played). Every --eval-every games the network plays --eval-games duplicate games against heuristic;\n"
    "each result is printed as a line (games so far, seconds, points per game against heuristic with its\n"
    "standard error) and appended to OUT.log.jsonl. At the end it prints the output file, the games, the\n"
    "seconds and the weights' sha256. A progress bar (games done, percent, games/s, time left) is drawn on\n"
    "stderr when it is a terminal, or with --progress."
)

#: The library's default of each option (the command line's defaults are the library's).
_DEFAULTS = TrainingConfig(VARIANTS[0], 1)

#: The option of each argument of :func:`~nardy_fast.training.train` its errors name.
FIELDS = {
    "variant": "--variant",
    "games": "--games",
    "seed": "--seed",
    "hidden": "--hidden",
    "lam": "--lam",
    "rate": "--rate",
    "batch": "--batch",
    "minibatch": "--minibatch",
    "epochs": "--epochs",
    "eval_every": "--eval-every",
    "eval_games": "--eval-games",
    "threads": "--threads",
    "targets": "--targets",
    "target_plies": "--target-plies",
    "inputs": "--inputs",
    "out": "--out",
    "init": "--init",
    "client": "--scheduler",
}

#: The options that go to ``train`` as they are, by their destination.
_OPTIONS = (
    "seed",
    "hidden",
    "lam",
    "rate",
    "batch",
    "minibatch",
    "epochs",
    "eval_every",
    "eval_games",
    "threads",
    "targets",
    "target_plies",
    "inputs",
)


def _whole(text: str) -> int:
    """An argparse ``type``: any integer in ASCII digits (its range is the library's to check)."""
    if re.fullmatch(r"[+-]?[0-9]{1,100}", text) is None:
        raise argparse.ArgumentTypeError(f"must be an integer (got {quote(text)})")
    return int(text)


def _number(text: str) -> float:
    """An argparse ``type``: a real number (its range is the library's to check), an integer kept as one so
    that the library's errors quote it as it was typed."""
    if re.fullmatch(r"[+-]?[0-9]{1,100}", text):
        return int(text)
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number (got {quote(text)})") from None


def add_arguments(parser: Parser) -> None:
    """The options of ``train``."""
    parser.add_argument(
        "--variant", choices=VARIANTS, required=True, help="the variant to train a network for"
    )
    parser.add_argument(
        "--games", type=_whole, required=True, metavar="N", help="games of self-play in all, >= 1 (required)"
    )
    parser.add_argument(
        "--out",
        type=Path,
        required=True,
        metavar="FILE",
        help="where to save the weights (.npz); the checkpoint and the log are kept beside it (required)",
    )

    def option(name: str, kind: Any, metavar: str, text: str) -> None:
        dest = name.replace("-", "_")
        parser.add_argument(
            f"--{name}",
            type=kind,
            default=getattr(_DEFAULTS, dest),
            metavar=metavar,
            help=f"{text} (default: %(default)s)",
        )

    option("seed", _whole, "S", "seed of the initial weights, the dice and the order of learning, 0..2**64-1")
    option("hidden", _whole, "H", "hidden units of the network, 1..512")
    option(
        "lam",
        _number,
        "L",
        "lambda of the TD(lambda) targets in [0, 1]: 0 learns from the next position, "
        "1 from the game's result",
    )
    option("rate", _number, "R", "Adam's step size, in (0, 1]")
    option("batch", _whole, "B", "games of self-play an iteration (and between checkpoints)")
    option("minibatch", _whole, "M", "positions a step of Adam")
    option("epochs", _whole, "E", "passes of Adam over each iteration's positions, 1..100")
    option("eval-every", _whole, "K", "games between strength checks against heuristic, 0: none")
    option("eval-games", _whole, "G", "duplicate games of each strength check, an even number >= 2")
    option(
        "threads",
        _whole,
        "T",
        "threads the self-play games are played on, and search targets searched on, and the most NumPy's "
        "math library (BLAS) learns on; the "
        "weights never depend on it",
    )
    parser.add_argument(
        "--targets",
        choices=("td", "search"),
        default=_DEFAULTS.targets,
        help="what each position learns: td, its TD(lambda) return; search, its value by the network's own "
        "search --target-plies deep (the network learns what its search knows; --lam unused) "
        "(default: %(default)s)",
    )
    option("target-plies", _whole, "N", "plies of the search of --targets search, 1..2 (2: about 40 times slower)")
    parser.add_argument(
        "--inputs",
        choices=NETWORK_SCHEMES,
        default=_DEFAULTS.inputs,
        help="what the network reads: nardy, the raw features of the position; expert, those and the expert "
        "features (pips, blots, shots, primes, containment, contact, mobility); a nardy --init network starts "
        "an expert one with weights 0 from the new features (default: %(default)s)",
    )
    parser.add_argument(
        "--init",
        type=Path,
        default=None,
        metavar="FILE",
        help="start from the weights in FILE (a network of the same hidden units; its variant may be another, "
        "whose games are like this one's) instead of random ones (default: random)",
    )
    parser.add_argument(
        "--no-resume",
        dest="resume",
        action="store_false",
        help="start afresh even when OUT's checkpoint exists (overwriting it) instead of resuming it",
    )
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        default=None,
        help="play the self-play games on the Dask cluster of this scheduler (e.g. tcp://host:8786; needs the "
        "dask extra): the same games, so the same weights, as on this machine (default: here)",
    )
    progress_option(parser)


def command_line(args: argparse.Namespace) -> str:
    """The command that is running, as recorded with the weights: ``sys.argv`` when it is this command, else
    the command that ``args`` stand for (``main`` called from Python)."""
    if sys.argv[1:2] == ["train"]:
        return "nardy-fast " + shlex.join(sys.argv[1:])
    words = ["train", "--variant", args.variant, "--games", str(args.games), "--out", str(args.out)]
    for dest in _OPTIONS:
        if getattr(args, dest) != getattr(_DEFAULTS, dest):
            words += ["--" + dest.replace("_", "-"), str(getattr(args, dest))]
    if args.init is not None:
        words += ["--init", str(args.init)]
    if not args.resume:
        words.append("--no-resume")
    if args.scheduler is not None:
        words += ["--scheduler", args.scheduler]
    return "nardy-fast " + shlex.join(words)


def log_line(entry: dict[str, Any], eval_games: int) -> str:
    """A strength check of the log (:func:`~nardy_fast.training.train`'s ``log``) as a line."""
    return (
        f"{entry['games']:>12,} games {entry['seconds']:>9.1f} s   ppg vs heuristic {entry['ppg']:+.3f} "
        f"+- {entry['stderr']:.3f} ({eval_games:,} games)   loss {entry['loss']:.4f}"
    )


def _header(config: TrainingConfig, args: argparse.Namespace) -> str:
    where = (
        f"on the Dask scheduler {args.scheduler}"
        if args.scheduler
        else (f"{config.threads} thread{'s' if config.threads > 1 else ''}")
    )
    checks = (
        f"strength against heuristic every {config.eval_every:,} games over {config.eval_games:,} duplicate games"
        if config.eval_every
        else "no strength checks"
    )
    targets = (
        f"targets: {config.target_plies}-ply search" if config.targets == "search" else "targets: TD(lambda)"
    )
    return (
        f"train: {config.variant}, {config.games:,} games in batches of {config.batch:,}, seed {config.seed}, "
        f"{config.hidden} hidden units, lambda {config.lam:g}, rate {config.rate:g}, minibatch "
        f"{config.minibatch:,}, {config.epochs} epoch{'s' if config.epochs > 1 else ''}, {targets}, "
        f"inputs: {config.inputs}, {checks}, {where}, "
        f"implementation {IMPLEMENTATION}"
    )


def _client(stack: contextlib.ExitStack, address: str) -> object:
    """A Dask client connected to the scheduler at ``address`` (closed with ``stack``)."""
    try:
        import distributed  # type: ignore[import-not-found, unused-ignore]  # the optional dask extra
    except ImportError:
        raise UsageError(
            '--scheduler: needs Dask\'s distributed scheduler (the dask extra: pip install "dask[distributed]") '
            f"(got {quote(address)})"
        ) from None
    try:
        connected = distributed.Client(address)  # type: ignore[no-untyped-call, unused-ignore]
        client: object = stack.enter_context(connected)
    except (OSError, ValueError, TypeError) as error:
        raise UsageError(
            f"--scheduler: cannot connect ({cut(' '.join(str(error).split()))}) (got {quote(address)})"
        ) from None
    return client


def run(args: argparse.Namespace) -> int:
    """Run ``train`` with the options of :func:`add_arguments`."""
    options: dict[str, Any] = {dest: getattr(args, dest) for dest in _OPTIONS}
    if args.init is not None:
        options["init"] = args.init
    with errors_of("--games", FIELDS):
        config = check_config(args.variant, args.games, **options)
    check = checkpoint_path(args.out)
    stream = progress_stream(args.progress)
    resumed = 0  # the games the checkpoint resumed held: the bar counts this run's
    bar: Optional[Progress] = None
    with contextlib.ExitStack() as stack:

        def progress(done: int, games: int) -> None:
            nonlocal resumed, bar
            if bar is None:  # the first call: arguments, output path and checkpoint are checked
                print(_header(config, args), flush=True)
                if done:
                    print(f"resumed from {check} at {done:,} games: {games - done:,} to play", flush=True)
                resumed = done
                bar = stack.enter_context(Progress(games - done, stream))
            bar.update(done - resumed)

        def log(entry: dict[str, Any]) -> None:
            line = log_line(entry, config.eval_games)
            if bar is None:
                print(line, flush=True)
            else:
                bar.print(line)

        try:
            client = None if args.scheduler is None else _client(stack, args.scheduler)
            with errors_of("--out", FIELDS):
                network = train(
                    config.variant,
                    config.games,
                    out=args.out,
                    resume=args.resume,
                    client=client,
                    command=command_line(args),
                    progress=progress,
                    log=log,
                    **options,
                )
        except UsageError as error:
            if str(error).startswith("--out: checkpoint:"):
                raise UsageError(f"{error}; --no-resume starts afresh, overwriting it") from None
            raise
        except KeyboardInterrupt:
            stack.close()  # the bar's line ends before the note
            saved = resumable_games(args.out, config)
            if saved:
                again = (
                    "the same command without --no-resume" if not args.resume else "the same command again"
                )
                note = f"the checkpoint {check} holds {saved:,} of {config.games:,} games: {again} resumes it"
            else:
                note = "no iteration was finished, so this run left no checkpoint to resume"
            print(f"nardy-fast train: interrupted; {note}", file=sys.stderr, flush=True)
            raise
    made = network.training
    print(
        f"wrote {args.out}: {made.get('games', config.games):,} games, {made.get('seconds', 0.0):.1f} s, "
        f"sha256 {network.sha256} (log: {log_path(args.out)})"
    )
    return 0
