"""Games stepped from outside: N games of one playout held in packed rows, advanced one ply at a time by
choices the caller makes between calls (a training loop that acts, learns and acts again), for every
implementation.

:class:`Games` is the one Python game loop (:class:`nardy_fast.lockstep.Lockstep`, which plays callable-policy
playouts, duels in lock-step and the reference's playouts) stepped from outside: the same first rolls, the same
next rolls, the same game numbers and the same give-up after :data:`~nardy_fast.game.MAX_PLIES`, played by the
same steps, so that games stepped with the choices a callable policy would make are that playout's games,
record for record. Each implementation binds it to its kernels (``nardy_fast.Games``,
``nardy_fast.reference.Games``), as it binds ``Position`` to its move generator.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, ClassVar, NamedTuple, Optional, Union

import numpy as np
import numpy.typing as npt

from . import layout
from .batch import explain
from .errors import NardyError, field_error, uninitialised_error
from .inputs import boolean, integer
from .lockstep import Lockstep, handed_out
from .playouts import MAX_BATCH, PlayoutOptions, Records, check_playout
from .policies import choices_problem, read_choices
from .turns import RECORD

if TYPE_CHECKING:
    from .kernels import Kernels

__all__ = ["MAX_GAMES", "LAST_NUMBER", "Finished", "Games", "step_problem"]

#: The most games one :class:`Games` holds: as many as a callable policy sees at once in a playout
#: (:data:`~nardy_fast.playouts.MAX_BATCH`, ``2**20``), whose rows and children are all in memory together.
MAX_GAMES = MAX_BATCH
#: Game numbers stay below this bound (``2**62``, as ``playout``'s ``first_game + games``), for the dice and
#: the core's 64-bit counts.
LAST_NUMBER = 1 << 62

Ints = npt.NDArray[np.int64]


class Finished(NamedTuple):
    """Games that ended, one entry each, in the order they ended (by step, then by slot): the slot each was
    played in (``0 .. n - 1``), its game number, its :data:`~nardy_fast.game.RECORD` (winner, points, plies,
    turns, start; winner -1 for a game given up after :data:`~nardy_fast.game.MAX_PLIES` plies) and its last
    position as a packed row."""

    slots: Ints
    games: Ints
    records: Records
    rows: npt.NDArray[np.int8]

    @classmethod
    def none(cls) -> Finished:
        """No game."""
        empty = np.zeros(0, dtype=np.int64)
        return cls(empty, empty.copy(), np.zeros(0, dtype=RECORD), np.zeros((0, layout.WIDTH), dtype=np.int8))

    def copy(self) -> Finished:
        """The same games in arrays of their own."""
        return Finished(self.slots.copy(), self.games.copy(), self.records.copy(), self.rows.copy())


def _flag(value: object, name: str) -> bool:
    checked = boolean(value)
    if checked is None:
        raise field_error(NardyError, name, "must be True or False", value)
    return checked


def step_problem(choices: npt.NDArray[np.generic], counts: Ints, slots: Ints) -> Optional[str]:
    """What is wrong with the choices of a step, already read once into a copy of our own
    (:func:`nardy_fast.policies.read_choices`), checked as a callable policy's are
    (:func:`nardy_fast.policies.check_choices`): one integer per unfinished game, each ``0 <= c < count``;
    ``None`` when nothing is. No user code runs here: :meth:`Games.step` checks under its lock, and quotes the
    caller's object in the error once the lock is released."""
    return choices_problem(
        choices,
        counts,
        "must be {n} integers, one per unfinished game (shape ({n},))",
        "has choice {choice} for a game with {moves} moves (choices[{i}], slot {slot})",
        slots,
    )


class _Shown(str):
    """A text quoted as it is (no quotes around it) in an error message's ``(got ...)``."""

    def __repr__(self) -> str:
        return str(self)


#: The attributes every initialised :class:`Games` has: reading one that was never set is the error of an
#: object made with ``__new__`` alone.
_STATE = frozenset(
    (
        "_args", "_reset", "_keep", "_lock", "_depth", "_games", "_done", "_next", "_kept", "_children",
    )
)  # fmt: skip


class Games:
    """N games of one playout, stepped from outside: ``Games("long", 1000, seed=7)``.

    ``start``, ``seed``, ``opening``, ``stratify``, ``first_game`` and the rule ``flags`` are
    :func:`nardy_fast.playout`'s, checked as it checks them (the same errors): a variant name (who starts and
    the opening are rolled), a ``Position`` or packed rows (game ``g`` starts from row ``g % N``). ``n``, the
    number of games held at once, is ``1 ..`` :data:`MAX_GAMES` (``2**20``). The games in the ``n`` slots are
    numbered ``first_game .. first_game + n - 1`` and their dice are a pure function of ``(seed, number)``.

    Each step plays one ply of every unfinished game: :meth:`children` gives the children of the unfinished
    games in slot order in CSR form (as a callable policy gets them), and :meth:`step` plays the chosen child
    of each, then draws its next roll (none after a finished game or before a transfer segment; an extra roll
    leaves the same side to move with a fresh roll), and ends the games that are over or have reached
    :data:`~nardy_fast.game.MAX_PLIES` plies (given up). So ``games.step(policy(*games.children()))`` until
    every game is done, with ``reset=False``, plays exactly ``playout(start, n, seed=..., policy=policy,
    batch=n)``'s games, record for record (:meth:`records`), whenever the policy's choices depend only on what
    it is shown.

    With ``reset=True`` (the default) a slot whose game ends starts the next game number at once, so every
    slot always holds an unfinished game: the ``k``-th game to end (counting from 0, by step and then by slot)
    is replaced by game ``first_game + n + k``; its record is what the same-numbered game of a playout gives.
    With ``reset=False`` a finished game stays in its slot, ``done``, and no longer takes part; a step when
    every game is done is an error.

    The state, one entry per slot (fresh copies every time: nothing handed out is read back): ``rows`` (n, 64)
    int8, the positions now; ``rolls`` (n, 2) int8, the roll each side to move plays next ((0, 0) before a
    transfer segment, whose pending list is in the row, and for a finished game); ``numbers`` (int64, the game
    numbers); ``plies`` and ``turns`` (int32: moves played, transfers included, and rolls played); ``done``
    (bool); ``winner`` (int8: 0 White, 1 Black, -1 while the game goes on or when it was given up);
    ``points`` (int8, 0 until the game is won). ``active`` lists the slots of the unfinished games.

    Every game that ends is kept for :meth:`records` (about 90 bytes a game) unless ``keep_records=False``;
    :meth:`step` returns the games it ended either way. A ``Games`` may be used from several threads (one call
    at a time: the others wait; the compiled core searches the children without the GIL). No code of the
    caller's runs while a call holds the games (the choices are read and quoted outside), so a call on the
    same thread meanwhile comes only from a gc callback, a signal handler or a finalizer: it is refused with a
    :class:`~nardy_fast.NardyError` (``games: is in use ...``), where waiting would wait for ever.
    """

    #: The implementation's kernels (each implementation's subclass sets them).
    _kernels: ClassVar[Kernels]

    def __init__(
        self,
        start: object,
        n: int,
        *,
        seed: int = 0,
        opening: str = "fresh_roll",
        stratify: bool = False,
        first_game: int = 0,
        reset: bool = True,
        keep_records: bool = True,
        **flags: object,
    ) -> None:
        if not hasattr(type(self), "_kernels"):
            raise TypeError(
                "nardy_fast.vector.Games is the shared base: use nardy_fast.Games (or an implementation's)"
            )
        count = integer(n)
        if count is None or not 1 <= count <= MAX_GAMES:
            raise field_error(NardyError, "n", "must be an integer 1 <= n <= 2**20 (MAX_GAMES)", n)
        options = PlayoutOptions(opening=opening, first_game=first_game, stratify=stratify, flags=flags)
        self._args = check_playout(start, count, seed, options)
        self._reset = _flag(reset, "reset")
        self._keep = _flag(keep_records, "keep_records")
        # reentrant only so that a call on the thread holding it gets in and is refused (_using), never waits
        self._lock = threading.RLock()
        self._depth = 0  # 1 while a call holds the games
        # the state of the slots' games, stepped by the one Python game loop's steps
        self._games = Lockstep(self._args, np.arange(count, dtype=np.int64) + self._args.first_game, self._kernels.game_rolls)
        self._done = np.zeros(count, dtype=bool)
        self._next = self._args.first_game + count  # the number of the next game a slot starts
        self._kept: list[Finished] = []
        # the children of the unfinished games as the kernel returned them, until the next step: a step after
        # children() plays the children it showed without searching again
        self._children: Optional[tuple[Ints, npt.NDArray[np.int8], Ints]] = None

    def __getattr__(self, name: str) -> object:
        # only for attributes never set: games made with __new__ alone
        if name in _STATE:
            raise uninitialised_error("Games")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @contextmanager
    def _using(self) -> Iterator[None]:
        """Hold the games for one call: other threads wait; a call on this thread while another holds them
        (a gc callback, a signal handler or a finalizer run in the middle of it, which the thread cannot
        finish before it returns) is refused, since the state may be half-updated and waiting would never
        end."""
        with self._lock:
            if self._depth:
                shown = _Shown(f"<Games n={len(self._games.numbers)} seed={self._args.seed}>")
                problem = (
                    "is in use by a call on this thread, which must return first: a gc callback, signal handler "
                    "or finalizer cannot read it meanwhile"
                )
                raise field_error(NardyError, "games", problem, shown)
            self._depth = 1
            try:
                yield
            finally:
                self._depth = 0

    # --- the state ---------------------------------------------------------------------------------------

    @property
    def n(self) -> int:
        """The number of slots."""
        return len(self._games.numbers)

    def __len__(self) -> int:
        return len(self._games.numbers)

    @property
    def seed(self) -> int:
        """The dice seed."""
        return self._args.seed

    @property
    def next_game(self) -> int:
        """The number the next game to start takes (with ``reset=True``): ``first_game + n`` plus the games
        ended so far."""
        return self._next

    @property
    def rows(self) -> npt.NDArray[np.int8]:
        """The positions now, (n, 64) int8."""
        with self._using():
            return self._games.rows.copy()

    @property
    def rolls(self) -> npt.NDArray[np.int8]:
        """The roll each game plays next, (n, 2) int8: (0, 0) before a transfer segment or after the end."""
        with self._using():
            return self._games.rolls.copy()

    @property
    def numbers(self) -> Ints:
        """The game number in each slot, (n,) int64."""
        with self._using():
            return self._games.numbers.copy()

    @property
    def plies(self) -> npt.NDArray[np.int32]:
        """Moves played by each game so far, transfer segments included, (n,) int32."""
        with self._using():
            return self._games.plies.copy()

    @property
    def turns(self) -> npt.NDArray[np.int32]:
        """Rolls played by each game so far, (n,) int32."""
        with self._using():
            return self._games.turns.copy()

    @property
    def done(self) -> npt.NDArray[np.bool_]:
        """Whether each slot's game has ended (always all ``False`` with ``reset=True``), (n,) bool."""
        with self._using():
            return self._done.copy()

    @property
    def active(self) -> Ints:
        """The slots of the unfinished games, in order: the games :meth:`children` and :meth:`step` cover."""
        with self._using():
            return np.flatnonzero(~self._done)

    @property
    def winner(self) -> npt.NDArray[np.int8]:
        """The winner of each slot's game: 0 White, 1 Black, -1 while it goes on or when it was given up."""
        with self._using():
            return layout.winner(self._games.rows)

    @property
    def points(self) -> npt.NDArray[np.int8]:
        """The points the winner of each slot's game scores (docs/rules.md, Game end and scoring), else 0."""
        with self._using():
            return layout.points(self._games.rows)

    def records(self) -> Finished:
        """Every game ended so far, in the order they ended (:class:`Finished`; none with
        ``keep_records=False``). With ``reset=False``, once every game is done, ``records().records`` sorted by
        ``records().games`` is ``playout``'s records of the same games."""
        with self._using():
            if not self._kept:
                return Finished.none()
            return Finished(*(np.concatenate(column) for column in zip(*self._kept)))

    def __repr__(self) -> str:
        with self._using():
            going = int((~self._done).sum())
            return f"<Games n={self.n} seed={self.seed} reset={self._reset}: {going} going, next game {self._next}>"

    # --- the steps ---------------------------------------------------------------------------------------

    def children(self) -> tuple[npt.NDArray[np.int8], Ints]:
        """The children of every unfinished game (the slots of :attr:`active`, in order) for its roll, in CSR
        form as a callable policy of ``playout`` gets them: ``(children, offsets)``, the children of the
        ``i``-th unfinished game being ``children[offsets[i]:offsets[i + 1]]`` (M, 64) int8 in ``legal_moves``
        order. Both are read-only copies the package never reads again. The compiled core searches without
        the GIL."""
        with self._using():
            _, children, offsets = self._search()
            return handed_out(children), handed_out(offsets)

    def step(self, choices: object) -> Finished:
        """Play ``choices``, one integer per unfinished game (the slots of :attr:`active`, in order): the
        index of its chosen child among those :meth:`children` gives. Each game then draws its next roll, and
        the games over or at :data:`~nardy_fast.game.MAX_PLIES` plies end (with ``reset=True`` their slots
        start the next game numbers). Returns the games this step ended (:class:`Finished`, arrays of their
        own). The choices are read once and checked first: a bad one changes nothing."""
        array = read_choices(choices)  # their code (__array__, __len__ ...) runs before the games are held
        with self._using():
            played = self._play(array)
        if isinstance(played, str):  # quoted (their __repr__ run) once the games are free again
            raise field_error(NardyError, "choices", played, choices)
        return played

    def _play(self, choices: npt.NDArray[np.generic]) -> Union[Finished, str]:
        """:meth:`step` with the games held: the games the step ended, or the problem of the choices (the
        state untouched)."""
        if self._done.all():
            return "cannot be played: every game is over (reset=False)"
        active, children, offsets = self._search()
        problem = step_problem(choices, np.diff(offsets), active)
        if problem is not None:
            return problem
        picked = choices.astype(np.int64, copy=False)
        chosen = children[offsets[:-1] + picked]
        ended_here = self._games.ends(active, chosen)
        ended = active[ended_here]
        if self._reset and self._next + len(ended) > LAST_NUMBER:
            problem = f"leaves no game number below 2**62 for the next {len(ended)} game(s) (reset=True)"
            raise field_error(NardyError, "first_game", problem, self._args.first_game)
        self._children = None
        self._games.advance(active, chosen, ended_here)
        finished = self._finish(ended)
        return finished.copy()

    def _search(self) -> tuple[Ints, npt.NDArray[np.int8], Ints]:
        """The unfinished slots and their children (the kernel's arrays, kept to ourselves until a step)."""
        if self._children is None:
            active = np.flatnonzero(~self._done)
            if not active.size:
                return active, np.zeros((0, layout.WIDTH), dtype=np.int8), np.zeros(1, dtype=np.int64)
            rows, rolls = self._games.rows[active], self._games.rolls[active]
            children, offsets, _, bad, _ = self._kernels.batch(rows, rolls, 0)
            if children is None or offsets is None:  # never for the games' own rows: said plainly if it were
                raise explain(rows, rolls, bad)
            self._children = (active, children, offsets)
        return self._children

    def _finish(self, ended: Ints) -> Finished:
        """The records of the games in slots ``ended``, kept; their slots restarted or marked done."""
        games = self._games
        finished = Finished(ended, games.numbers[ended], games.records(ended), games.rows[ended])
        if self._keep and len(ended):
            self._kept.append(finished)
        if not self._reset:
            self._done[ended] = True
        elif len(ended):
            numbers = np.arange(len(ended), dtype=np.int64) + self._next
            self._next += len(ended)
            games.restart(ended, numbers)
        return finished
