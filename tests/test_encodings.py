"""Network encodings (``nardy_fast.encode``, :mod:`nardy_fast.encodings`).

The expected values come from elsewhere: ``"tdgammon"`` from gym-backgammon's own encoder on the same
positions, ``"openspiel"`` from OpenSpiel's ``observation_tensor`` on games played in OpenSpiel, ``"nardy"`` by
hand on start positions and by reading rows back from their features with the documented table. The
compiled core must equal the reference bit for bit, and both must raise the same errors.
"""

from __future__ import annotations

import importlib.util
import random
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import Roll, Spec, specs
from writers import flippable, writer

import nardy_fast
from nardy_fast import _dispatch, encodings, layout, reference
from nardy_fast.corpus import load
from nardy_fast.errors import InvalidPositionError, NardyError
from nardy_fast.variants import FLAG_SPECS, START_BOARDS, VARIANTS

IMPLEMENTATIONS = _dispatch.implementations()
Rows = npt.NDArray[np.int8]
Features = npt.NDArray[np.float32]


@pytest.fixture(params=sorted(IMPLEMENTATIONS))
def impl(request: pytest.FixtureRequest) -> ModuleType:
    """The implementation under test (``encode`` and ``Position``)."""
    return IMPLEMENTATIONS[request.param]


def _core() -> ModuleType:
    if "cython" not in IMPLEMENTATIONS:
        pytest.skip("the compiled core is not built")
    return IMPLEMENTATIONS["cython"]


def _bits(array: Features) -> bytes:
    return np.ascontiguousarray(array, dtype=np.float32).tobytes()


def _short_rows() -> Rows:
    """Short-nardy corpus rows with each side to move (the turn column flipped: a valid row too)."""
    rows, _ = load("short")
    rows = rows[::4]
    flipped = rows.copy()
    flipped[:, layout.TURN] ^= 1
    both = np.concatenate([rows, flipped])
    # the sample reaches every field gym-backgammon and OpenSpiel encode
    for side in (0, 1):
        assert (both[:, layout.BAR + side] > 0).any() and (both[:, layout.OFF + side] > 0).any()
        assert (both[:, layout.TURN] == side).any()
    assert (np.abs(both[:, :24]) > 3).any()
    return both


# --- "tdgammon": gym-backgammon's get_board_features -------------------------------------------------------


def _gym_backgammon() -> Any:
    """gym-backgammon's game module, loaded from its file alone: its package imports gym and a renderer
    (pyglet) that the encoder does not need."""
    found = importlib.util.find_spec("gym_backgammon")
    if found is None or not found.submodule_search_locations:
        pytest.skip("gym-backgammon is not installed")
    path = Path(next(iter(found.submodule_search_locations))) / "envs" / "backgammon.py"
    spec = importlib.util.spec_from_file_location("gym_backgammon_game", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _gym_features(rows: Rows) -> Features:
    """gym-backgammon's encoder on a game state built from each row: its board index k is White's point k+1
    (its White bears off past index 0 from 23, as ours does past point 1 from 24)."""
    backgammon = _gym_backgammon()
    features = []
    for row in rows:
        game = backgammon.Backgammon()
        game.board = [
            (int(abs(c)), backgammon.WHITE if c > 0 else backgammon.BLACK if c < 0 else None)
            for c in row[:24]
        ]
        game.bar = [int(row[layout.BAR]), int(row[layout.BAR + 1])]
        game.off = [int(row[layout.OFF]), int(row[layout.OFF + 1])]
        side = backgammon.BLACK if row[layout.TURN] else backgammon.WHITE
        features.append(game.get_board_features(side))
    return np.array(features, dtype=np.float32)


def test_gym_backgammon_start_is_ours() -> None:
    """The two start positions are one board under the index map of :func:`_gym_features`."""
    backgammon = _gym_backgammon()
    start = reference.Position.start("short").board
    gym = backgammon.Backgammon().board
    assert [c if p == backgammon.WHITE else -c for c, p in gym] == list(start)


def test_tdgammon_equals_gym_backgammon(impl: ModuleType) -> None:
    rows = _short_rows()
    assert _bits(impl.encode(rows, "tdgammon")) == _bits(_gym_features(rows))


# --- "openspiel": OpenSpiel's observation_tensor -------------------------------------------------------------


def _spiel_row(state: Any, turn: int) -> Rows:
    """Our row of an OpenSpiel state, from ``state.board`` (not from the tensor): OpenSpiel's point i is White's
    point 24 - i, its bar is position 100, its player 0 (x) is White."""
    board = [0] * 24
    for i in range(24):
        board[23 - i] = state.board(0, i) - state.board(1, i)
    bar = (state.board(0, 100), state.board(1, 100))
    off = tuple(15 - sum(state.board(p, i) for i in range(24)) - bar[p] for p in (0, 1))
    position = reference.Position.from_board(
        "short", board, turn=("white", "black")[turn], bar=bar, off=off, first_roll=(False, False)
    )
    return position.to_array()


def _spiel_games(games: int, seed: int) -> tuple[Rows, Features]:
    """Rows and OpenSpiel's tensors of every decision state (the side to move's) and every end (the loser's)
    of random OpenSpiel games."""
    pyspiel = pytest.importorskip("pyspiel")
    game = pyspiel.load_game("backgammon")
    rng = random.Random(seed)
    rows, tensors = [], []
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
                continue
            player = state.current_player()
            rows.append(_spiel_row(state, player))
            tensors.append(state.observation_tensor())
            assert state.observation_tensor() == state.observation_tensor(player)
            state.apply_action(rng.choice(state.legal_actions()))
        loser = 1 - int(np.argmax(state.returns()))
        rows.append(_spiel_row(state, loser))
        tensors.append(state.observation_tensor(loser))
    return np.array(rows, dtype=np.int8), np.array(tensors, dtype=np.float32)


def test_openspiel_equals_observation_tensor(impl: ModuleType) -> None:
    rows, tensors = _spiel_games(8, seed=5)
    assert (rows[:, layout.BAR] > 0).any() and (rows[:, layout.BAR + 1] > 0).any()
    assert (rows[:, layout.TURN] == 1).any() and layout.is_over(rows).sum() == 8
    got = impl.encode(rows, "openspiel")
    # a row holds no dice: OpenSpiel's, lower die first, are written in as the docs say
    assert (got[:, 198:] == 0).all()
    dice = tensors[:, 198:]
    over = layout.is_over(rows)
    assert (dice[~over] >= 1).all() and (dice[~over, 0] <= dice[~over, 1]).all()
    got[:, 198:] = dice
    assert (got[over, 194] == 1).all()
    # OpenSpiel's terminal state leaves its turn units as the last turn left them: compared on the rest
    got[over, 194], got[over, 197] = tensors[over, 194], tensors[over, 197]
    assert _bits(got) == _bits(tensors)


# --- "nardy": by hand, and read back ----------------------------------------------------------------------


def _units(count: int) -> list[float]:
    return [float(count >= 1), float(count >= 2), float(count >= 3), max(count - 3, 0) / 2]


def test_nardy_long_start_by_hand(impl: ModuleType) -> None:
    """Long nardy's start, Black to move: 15 on its M24 (White's 12) and White's 15 on its M12."""
    row = impl.Position.from_board("long", START_BOARDS["long"], turn="black").to_array()
    got = impl.encode(row, "nardy")
    want = [0.0] * 224
    want[4 * 23 : 4 * 24] = _units(15)  # the mover's M24
    want[96 + 4 * 11 : 96 + 4 * 12] = _units(15)  # the opponent on the mover's M12
    want[196:198] = [1.0, 1.0]  # both heads full
    want[198:200] = [1.0, 1.0]  # both first rolls to come
    want[208] = 1.0  # Black moves
    want[209 + VARIANTS.index("long")] = 1.0
    # flags: block_check, ladder_per_value, the exception doubles 6, 4, 3 (default), sixone, normal doubles
    want[214 + 2 + 2] = want[214 + 2 + 3] = want[214 + 2 + 5] = 1.0
    assert got.tolist() == want


def test_nardy_short_start_by_hand(impl: ModuleType) -> None:
    got = impl.encode(impl.Position.start("short").to_array(), "nardy")
    mine = {24: 2, 13: 5, 8: 3, 6: 5}  # each side on its own points
    want = [0.0] * 224
    for point, count in mine.items():
        want[4 * (point - 1) : 4 * point] = _units(count)
        # the opponent's own point p is the mover's 25 - p
        want[96 + 4 * (24 - point) : 96 + 4 * (25 - point)] = _units(count)
    want[196:198] = [2 / 15, 2 / 15]
    want[198:200] = [1.0, 1.0]
    want[209 + VARIANTS.index("short")] = 1.0
    assert np.array_equal(got, np.array(want, dtype=np.float32))


def test_nardy_rolls_played_pending_and_flags_by_hand(impl: ModuleType) -> None:
    """Crazy gulbar, Black to move (its first roll to come, White's played) with a ladder suffix pending, every
    flag off its default: the mover's fields first."""
    position = impl.Position.from_board(
        "crazy",
        START_BOARDS["crazy"],
        turn="black",
        first_roll=(False, True),
        pending=(5, 6, 6, 6, 6),
        rolls_played=(1, 2),
        normal_doubles_first_rolls=3,
        block_check="per_step",
        ladder_per_value=4,
        first_roll_exception_doubles=(1,),
    )
    got = impl.encode(position.to_array(), "nardy")[198:]
    first_roll, pending, played, black = [1.0, 0.0], [0.0] * 4 + [1.0, 4.0], [2.0, 1.0], [1.0]
    variant = [0.0, 0.0, 0.0, 0.0, 1.0]
    # block_check, ladder_per_value, exception doubles (die 1 only), sixone (n/a), normal_doubles_first_rolls
    flags = [1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]
    assert got.tolist() == first_roll + pending + played + black + variant + flags


def test_the_docstring_table_is_the_layout() -> None:
    """Every row of the module's table gives the name, offset and width of NARDY_FIELDS."""
    doc = encodings.__doc__ or ""
    table = re.findall(r"^\s+``(\w+)``\s+(\d+)\s+(\d+)\s", doc, flags=re.MULTILINE)
    widths = {name: width for name, width, _ in encodings.NARDY_FIELDS}
    assert [(n, int(o), int(w)) for n, o, w in table] == [
        (n, encodings.NARDY_OFFSETS[n], widths[n]) for n, _, _ in encodings.NARDY_FIELDS
    ]
    assert f"{encodings.SCHEMES['nardy'].features} features in all" in doc
    # the flags' units follow the flag table, one per two-valued flag and six for the die mask
    assert widths["flags"] == sum(1 if spec.bit else 6 for spec in FLAG_SPECS)


def _read_back(features: Features) -> Rows:
    """The row of each ``"nardy"`` feature vector, read with the module's table only (the numbering from
    docs/rules.md, written out here)."""
    at = encodings.NARDY_OFFSETS
    rows = np.zeros((len(features), layout.WIDTH), dtype=np.int8)
    for out, f in zip(rows, features):
        me = int(f[at["black"]])
        variant = int(np.argmax(f[at["variant"] : at["variant"] + len(VARIANTS)]))
        short = VARIANTS[variant] == "short"

        def count(base: int, m: int, f: Features = f) -> int:
            units = f[base + 4 * (m - 1) : base + 4 * m]
            return int(units[0] + units[1] + units[2] + 2 * units[3])

        for m in range(1, 25):
            white = m if me == 0 else (25 - m if short else (m + 12 if m <= 12 else m - 12))
            sign = 1 if me == 0 else -1
            out[white - 1] = sign * (count(at["mover_points"], m) - count(at["opponent_points"], m))
        for k, side in enumerate((me, 1 - me)):
            out[layout.BAR + side] = round(f[at["bar"] + k] * 2)
            out[layout.OFF + side] = round(f[at["off"] + k] * 15)
            out[layout.FIRST_ROLL + side] = f[at["first_roll"] + k]
            out[layout.ROLLS_PLAYED + side] = f[at["rolls_played"] + k]
        out[layout.TURN] = me
        out[layout.VARIANT] = variant
        counts = [int(c) for c in f[at["pending"] : at["pending"] + 6]]
        values = [v for v in range(1, 7) for _ in range(counts[v - 1])]
        # two different values are stored higher first; runs and ladders ascend
        pending = values[::-1] if len(values) == 2 else values
        out[layout.NPENDING] = len(pending)
        out[layout.PENDING : layout.PENDING + len(pending)] = pending
        unit = at["flags"]
        for spec in FLAG_SPECS:
            if spec.bit:
                out[layout.FLAGS] |= spec.bit * int(f[unit])
                unit += 1
            else:
                out[layout.EXCEPTION_DOUBLES] = sum(int(f[unit + d]) << d for d in range(6))
                unit += 6
    return rows


def test_nardy_reads_back_to_every_row(impl: ModuleType) -> None:
    rows = np.concatenate([load(variant)[0][::20] for variant in VARIANTS])
    assert (rows[:, layout.NPENDING] > 2).any() and (rows[:, layout.TURN] == 1).any()
    assert np.array_equal(_read_back(impl.encode(rows, "nardy")), rows)


# --- the core equals the reference --------------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_core_equals_reference_on_the_corpus(variant: str) -> None:
    core = _core()
    rows = load(variant)[0][::2]
    for name, scheme in nardy_fast.SCHEMES.items():
        if variant in scheme.variants:
            assert _bits(core.encode(rows, name)) == _bits(reference.encode(rows, name)), name


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(specs(), min_size=1, max_size=8))
def test_core_equals_reference_on_hypothesis_rows(drawn: list[tuple[Spec, Roll | None]]) -> None:
    core = _core()
    rows = np.array([spec.build(reference.Position).to_array() for spec, _ in drawn])
    for name, scheme in nardy_fast.SCHEMES.items():
        chosen = rows[np.isin(rows[:, layout.VARIANT], [VARIANTS.index(v) for v in scheme.variants])]
        assert _bits(core.encode(chosen, name)) == _bits(reference.encode(chosen, name)), name
    assert np.array_equal(_read_back(core.encode(rows, "nardy")), rows)


# --- the API --------------------------------------------------------------------------------------------------


def test_shapes_and_out_in_place(impl: ModuleType) -> None:
    rows = load("short")[0][:50]
    for name, scheme in nardy_fast.SCHEMES.items():
        whole = impl.encode(rows, name)
        assert whole.dtype == np.float32 and whole.shape == (50, scheme.features)
        one = impl.encode(rows[3], name)
        assert one.shape == (scheme.features,) and _bits(one) == _bits(whole[3])
        assert _bits(impl.encode(rows.astype(np.int64).tolist(), name)) == _bits(whole)
        out = np.full((50, scheme.features), np.nan, dtype=np.float32)
        assert impl.encode(rows, name, out=out) is out and _bits(out) == _bits(whole)
        vector = np.full(scheme.features, np.nan, dtype=np.float32)
        assert impl.encode(rows[3], name, vector) is vector and _bits(vector) == _bits(whole[3])
        assert impl.encode(rows[:0], name).shape == (0, scheme.features)


def test_children_of_a_batch_in_one_call(impl: ModuleType) -> None:
    rows = load("gulbar")[0][:40]
    children, offsets, _ = impl.batch_children(
        rows[~layout.is_over(rows) & (rows[:, layout.NPENDING] == 0)], (6, 6)
    )
    assert len(children) > len(offsets)
    features = impl.encode(children, "nardy")
    assert _bits(features) == _bits(np.stack([impl.encode(child, "nardy") for child in children]))
    # a child has the other side to move
    assert (features[:, encodings.NARDY_OFFSETS["black"]] == children[:, layout.TURN]).all()


def test_threads_encode_alike() -> None:
    """The core encodes without the GIL: batches on two threads at once give what one thread gives."""
    core = _core()
    rows = np.concatenate([load(variant)[0] for variant in VARIANTS])
    want = core.encode(rows, "nardy")
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda _: core.encode(rows, "nardy"), range(4)))
    assert all(_bits(result) == _bits(want) for result in results)


def test_rows_changed_by_another_thread_during_encode() -> None:
    """The core copies each row before reading it without the GIL: with another thread flipping one byte (the
    side to move) of every row back and forth, each row encodes as one of its two states, never a mix."""
    core = _core()
    rows = flippable(load("long")[0][:2000])
    flipped = rows.copy()
    flipped[:, layout.TURN] ^= 1
    either = (core.encode(rows, "nardy"), core.encode(flipped, "nardy"))
    shared = rows.copy()

    def flip() -> None:
        shared[:, layout.TURN] ^= 1

    with writer(flip):
        for _ in range(20):
            found = core.encode(shared, "nardy")
            assert ((found == either[0]).all(axis=1) | (found == either[1]).all(axis=1)).all()


def _outcome(call: Callable[[], object]) -> tuple[type[BaseException], str]:
    with pytest.raises(NardyError) as info:
        call()
    return type(info.value), str(info.value)


def _bad_cases() -> list[tuple[str, Callable[[ModuleType], object], type[NardyError], str]]:
    short, _ = load("short")
    rows = short[:4].copy()
    bad_row = rows.copy()
    bad_row[2, 0] += 1  # 16 White checkers
    long_rows = np.concatenate([rows, load("long")[0][:1]])
    frozen = np.zeros((4, 198), dtype=np.float32)
    frozen.flags.writeable = False
    return [
        ("scheme", lambda m: m.encode(rows, "gnubg"), NardyError, "scheme: must be one of"),
        ("scheme type", lambda m: m.encode(rows, 3), NardyError, "scheme: must be one of"),
        ("variant", lambda m: m.encode(long_rows, "tdgammon"), NardyError, "rows[4]: scheme 'tdgammon'"),
        ("row", lambda m: m.encode(bad_row, "nardy"), InvalidPositionError, "rows[2]: board"),
        ("shape", lambda m: m.encode(rows[:, :60], "nardy"), NardyError, "rows: must be an integer array"),
        ("floats", lambda m: m.encode(rows.astype(float), "nardy"), NardyError, "rows: must be an integer"),
        ("range", lambda m: m.encode(rows.astype(int) * 100, "nardy"), InvalidPositionError, "rows: values"),
        (
            "out shape",
            lambda m: m.encode(rows, "tdgammon", np.zeros((4, 200), np.float32)),
            NardyError,
            "out:",
        ),
        ("out dtype", lambda m: m.encode(rows, "tdgammon", np.zeros((4, 198))), NardyError, "float64"),
        ("out list", lambda m: m.encode(rows, "tdgammon", [[0.0] * 198] * 4), NardyError, "out: must be"),
        (
            "out strided",
            lambda m: m.encode(rows, "tdgammon", np.zeros((4, 396), np.float32)[:, ::2]),
            NardyError,
            "out: must be C-contiguous",
        ),
        ("out read-only", lambda m: m.encode(rows, "tdgammon", frozen), NardyError, "out: must be writable"),
        (
            "out of one row",
            lambda m: m.encode(rows[0], "tdgammon", np.zeros((1, 198), np.float32)),
            NardyError,
            "(198,)",
        ),
    ]


@pytest.mark.parametrize("case", _bad_cases(), ids=lambda case: case[0])
def test_bad_input_raises_alike(
    case: tuple[str, Callable[[ModuleType], object], type[NardyError], str],
) -> None:
    _, call, cls, text = case
    outcomes = {name: _outcome(lambda: call(module)) for name, module in IMPLEMENTATIONS.items()}
    assert len(set(outcomes.values())) == 1, outcomes
    got_cls, message = next(iter(outcomes.values()))
    assert got_cls is cls and text in message, message
