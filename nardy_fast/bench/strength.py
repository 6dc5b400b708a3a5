"""The strength of a network evaluator (issue 24, item 4), measured with :func:`nardy_fast.duel` on
duplicate dice, and the speed of its greedy playouts against GNU Backgammon's 0-ply self-play loop.

:func:`strength_table` plays, for one variant, the network at 0 ply (``Greedy(net)``) against ``"random"``
and ``Greedy("heuristic")``; in short nardy also against ``Greedy("pubeval")`` and GNU Backgammon's 0-ply
net (:class:`~nardy_fast.bench.peers.GnubgPlayer`, when ``gnubg-nn`` is installed), and that net against
pubeval as the yardstick's own calibration; then the network at 1 and at 2 ply against itself at 0 ply
(fewer games: a Python search per move). Each row is one duel: its points per game for the first player
with the standard error over the pairs of games. :func:`speed` times ``Greedy(net)`` playouts on one thread
against :func:`~nardy_fast.bench.peers.gnubg_greedy_games` in the same process. ``tools/strength.py`` prints
both, in Markdown for docs/benchmarks.md.

``net`` is an evaluator: ``"net"`` (the weights shipped for the variant) or a
:class:`~nardy_fast.evaluation.network.Network`.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from typing import NamedTuple, Optional

import nardy_fast

from ..errors import NardyError, field_error
from ..evaluation.composite import contact_of
from ..evaluation.evaluators import Builtin, EvaluatorLike, resolve_evaluator
from ..evaluation.network import Network, network_for
from ..inputs import choice, integer
from ..policies import Greedy
from ..variants import VARIANTS
from .peers import GnubgPlayer, gnubg_greedy_games, gnubg_installed

__all__ = [
    "DEFAULT_GAMES",
    "DEFAULT_ONE_PLY_GAMES",
    "DEFAULT_TWO_PLY_GAMES",
    "DEFAULT_SPEED_GAMES",
    "StrengthRow",
    "SpeedRow",
    "Matchup",
    "matchups",
    "strength_table",
    "speed",
    "network_label",
    "markdown_table",
    "text_table",
]

DEFAULT_GAMES = 2000
DEFAULT_ONE_PLY_GAMES = 400
DEFAULT_TWO_PLY_GAMES = 100
DEFAULT_SPEED_GAMES = 200

#: A duel's progress, told to the caller: (what is played, games done, games in all, seconds so far).
Progress = Callable[[str, int, int, float], None]


class StrengthRow(NamedTuple):
    """One duel of a strength table: ``player`` against ``opponent`` in ``variant``, ``games`` games on
    duplicate dice, ``ppg`` the player's points per game, ``stderr`` its standard error, ``seconds`` the
    duel's wall time."""

    variant: str
    player: str
    opponent: str
    ppg: float
    stderr: float
    games: int
    seconds: float


class SpeedRow(NamedTuple):
    """Greedy self-play on one thread: ``games`` games of ``Greedy(net)`` playouts in ``variant`` and of GNU
    Backgammon's 0-ply loop (short nardy), their games per second (medians of ``repeats`` runs) and the
    median of the ratios within runs (``None`` without ``gnubg-nn``)."""

    variant: str
    games: int
    repeats: int
    net_games_per_s: float
    gnubg_games_per_s: Optional[float]
    ratio: Optional[float]


class Matchup(NamedTuple):
    """A duel to play: names and players (anything :func:`nardy_fast.duel` takes), and its games."""

    player: str
    opponent: str
    a: object
    b: object
    games: int


def _games(value: object, name: str) -> int:
    """A duel's game count: even, 0 (the duel is left out) or 2 and more."""
    count = integer(value)
    if count is None or count < 0 or count % 2 or count >= 1 << 31:
        raise field_error(NardyError, name, "must be an even integer 0..2**31 (pairs on duplicate dice)", value)
    return count


def network_label(net: EvaluatorLike, variant: str) -> str:
    """What a network is called in a table: ``net`` and the first 12 digits of its weights' SHA-256 where
    they can be read."""
    resolved = resolve_evaluator(net, "net")
    contact = contact_of(resolved) if isinstance(resolved, Builtin) else None
    if isinstance(contact, Network):
        return f"net {contact.sha256[:12]}"  # "net" composed with weights of one's own
    if isinstance(resolved, Builtin) and resolved.facts.network:
        try:
            return f"net {network_for(resolved, variant).sha256[:12]}"
        except NardyError:
            return "net"
    return repr(resolved)


def matchups(
    variant: str,
    games: object = DEFAULT_GAMES,
    *,
    net: EvaluatorLike = "net",
    one_ply_games: object = DEFAULT_ONE_PLY_GAMES,
    two_ply_games: object = DEFAULT_TWO_PLY_GAMES,
    gnubg: Optional[bool] = None,
    baseline: Optional[EvaluatorLike] = None,
) -> list[Matchup]:
    """The duels of :func:`strength_table` for ``variant``, in order. ``gnubg`` (short nardy only): whether
    GNU Backgammon's 0-ply net plays (against the network at 0 and at 1 ply), by default when ``gnubg-nn`` is
    installed. ``baseline``: an evaluator the network at 0 ply also meets at 0 ply (the networks shipped
    before, say). A count of 0 leaves its duels out."""
    known = choice(variant, VARIANTS)
    if known is None:
        raise field_error(NardyError, "variant", f"must be one of {VARIANTS}", variant)
    count, one, two = _games(games, "games"), _games(one_ply_games, "one_ply_games"), _games(two_ply_games, "two_ply_games")
    resolved = resolve_evaluator(net, "net")
    if isinstance(resolved, Network) and resolved.variant != known:
        raise field_error(NardyError, "net", f"evaluates {resolved.variant} nardy only, not {known}", net)
    zero = Greedy(resolved)
    out = [
        Matchup("net 0-ply", "random", zero, "random", count),
        Matchup("net 0-ply", "heuristic 0-ply", zero, Greedy("heuristic"), count),
    ]
    if baseline is not None:
        out.append(Matchup("net 0-ply", "baseline 0-ply", zero, Greedy(resolve_evaluator(baseline, "baseline")), count))
    if known == "short":
        out.append(Matchup("net 0-ply", "pubeval 0-ply", zero, Greedy("pubeval"), count))
        if gnubg is None:
            gnubg = gnubg_installed()
        if gnubg:
            player = GnubgPlayer()
            out.append(Matchup("net 0-ply", "gnubg 0-ply", zero, player, count))
            out.append(Matchup("gnubg 0-ply", "pubeval 0-ply", player, Greedy("pubeval"), count))
            out.append(Matchup("net 1-ply", "gnubg 0-ply", Greedy(resolved, plies=1), player, one))
    out.append(Matchup("net 1-ply", "net 0-ply", Greedy(resolved, plies=1), zero, one))
    out.append(Matchup("net 2-ply", "net 0-ply", Greedy(resolved, plies=2), zero, two))
    return [m for m in out if m.games]


def strength_table(
    variant: str,
    games: object = DEFAULT_GAMES,
    seed: object = 1,
    *,
    net: EvaluatorLike = "net",
    one_ply_games: object = DEFAULT_ONE_PLY_GAMES,
    two_ply_games: object = DEFAULT_TWO_PLY_GAMES,
    gnubg: Optional[bool] = None,
    baseline: Optional[EvaluatorLike] = None,
    progress: Optional[Progress] = None,
) -> list[StrengthRow]:
    """The duels of :func:`matchups`, each on the duplicate dice of ``seed``, as rows. ``progress`` is told
    of each batch of games done."""
    planned = matchups(
        variant, games, net=net, one_ply_games=one_ply_games, two_ply_games=two_ply_games, gnubg=gnubg, baseline=baseline
    )
    checked = _seed(seed)
    return [_duel(str(variant), m, checked, progress) for m in planned]


def _seed(value: object) -> int:
    seed = integer(value)
    if seed is None:
        raise field_error(NardyError, "seed", "must be an integer", value)
    return seed


def _slow(player: object) -> bool:
    """Whether a player searches deeper than 0 ply or is Python code called per ply."""
    return (isinstance(player, Greedy) and player.plies > 0) or not isinstance(player, (str, Greedy))


def _duel(variant: str, m: Matchup, seed: int, progress: Optional[Progress]) -> StrengthRow:
    """One duel, timed, in batches small enough for progress to be told every few seconds (a deeper search
    or a Python player is slower per game; the batch changes the dice of no game)."""
    batch = 50 if _slow(m.a) or _slow(m.b) else 500
    what = f"{variant}: {m.player} vs {m.opponent}"
    start = time.perf_counter()

    def tell(done: int) -> None:
        if progress is not None:
            progress(what, done, m.games, time.perf_counter() - start)

    tell(0)
    result = nardy_fast.duel(m.a, m.b, variant, m.games, seed=seed, batch=batch, progress=tell)
    return StrengthRow(variant, m.player, m.opponent, result.ppg, result.stderr, result.games, time.perf_counter() - start)


def speed(
    variant: str = "short",
    games: object = DEFAULT_SPEED_GAMES,
    seed: object = 1,
    *,
    net: EvaluatorLike = "net",
    repeats: object = 3,
    gnubg: Optional[bool] = None,
) -> SpeedRow:
    """Games per second of ``nardy_fast.playout(variant, games, seed, policy=Greedy(net))`` on one thread and
    of GNU Backgammon's 0-ply self-play loop (:func:`~nardy_fast.bench.peers.gnubg_greedy_games`, short
    nardy, the same number of games), timed in turn in each of ``repeats`` runs: the medians, and the
    median of the ratios within runs (both sides of a ratio then see the same load). ``gnubg``: whether GNU
    Backgammon's loop is timed, by default when ``gnubg-nn`` is installed."""
    count, times = integer(games), integer(repeats)
    if count is None or not 1 <= count < 1 << 31:
        raise field_error(NardyError, "games", "must be an integer 1..2**31", games)
    if times is None or not 1 <= times <= 100:
        raise field_error(NardyError, "repeats", "must be an integer 1..100", repeats)
    known = choice(variant, VARIANTS)
    if known is None:
        raise field_error(NardyError, "variant", f"must be one of {VARIANTS}", variant)
    checked = _seed(seed)
    policy = Greedy(resolve_evaluator(net, "net"))
    nardy_fast.playout(known, 2, seed=checked, policy=policy)  # the weights are loaded before the timing
    loop = gnubg_greedy_games(count, checked) if (gnubg_installed() if gnubg is None else gnubg) else None
    ours: list[float] = []
    theirs: list[float] = []
    for _ in range(times):
        start = time.perf_counter()
        nardy_fast.playout(known, count, seed=checked, policy=policy, threads=1)
        ours.append(count / (time.perf_counter() - start))
        if loop is not None:
            start = time.perf_counter()
            loop()
            theirs.append(count / (time.perf_counter() - start))
    if not theirs:
        return SpeedRow(known, count, times, statistics.median(ours), None, None)
    ratio = statistics.median(a / b for a, b in zip(ours, theirs))
    return SpeedRow(known, count, times, statistics.median(ours), statistics.median(theirs), ratio)


def text_table(rows: Sequence[StrengthRow], speeds: Sequence[SpeedRow] = ()) -> str:
    """The rows as aligned plain text."""
    lines = [f"{'variant':13} {'player':12} {'opponent':16} {'games':>6} {'ppg':>7} {'stderr':>6} {'seconds':>8}"]
    for r in rows:
        lines.append(
            f"{r.variant:13} {r.player:12} {r.opponent:16} {r.games:6d} {r.ppg:+7.3f} {r.stderr:6.3f} {r.seconds:8.1f}"
        )
    lines.extend(_speed_line(s) for s in speeds)
    return "\n".join(lines)


def markdown_table(
    rows: Sequence[StrengthRow], speeds: Sequence[SpeedRow] = (), *, command: str = "", networks: Sequence[str] = ()
) -> str:
    """The rows as a Markdown table for docs/benchmarks.md, under the ``command`` that measured them and the
    ``networks`` played."""
    lines = []
    if command:
        lines += [f"`{command}`", ""]
    if networks:
        lines += ["Weights: " + ", ".join(f"`{n}`" for n in networks), ""]
    lines += [
        "| variant | player | opponent | games | ppg | ± stderr | seconds |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r.variant} | {r.player} | {r.opponent} | {r.games:,} | {r.ppg:+.3f} | {r.stderr:.3f} | {r.seconds:.1f} |"
        )
    if speeds:
        lines.append("")
        lines.extend(f"- {_speed_line(s)}" for s in speeds)
    return "\n".join(lines)


def _speed_line(s: SpeedRow) -> str:
    line = f"Greedy(net) playouts, {s.variant}, one thread: {s.net_games_per_s:,.0f} games/s"
    if s.gnubg_games_per_s is None or s.ratio is None:
        return line + " (GNU Backgammon not timed)"
    return (
        line + f"; GNU Backgammon's 0-ply self-play loop (short): {s.gnubg_games_per_s:,.0f} games/s; "
        f"ratio {s.ratio:.1f}x ({s.games} games, median of {s.repeats})"
    )
