"""Hostile files (issue 40, items 1, 2, 6, 9, 10, 14, 15, 17 and the Network parts of 11 and 18): what the
package writes and reads for its users.

Checked here:

1. writing touches nothing but a temporary file of the writer's own: a user's ``<out>.probe`` (a file, or a
   symlink to another file) is left alone by a training; a target that exists and is not a regular file (a
   FIFO, a socket, a symlink, a directory) is refused with a ``NardyError`` naming the field, and stays what
   it was;
2. names are measured in bytes: a legal name of 255 bytes of non-ASCII letters is written; a training's
   ``out`` whose own name, or its checkpoint's, is longer than a name may be, or that is no file name at all
   (``''``, ``.``, ``/``), is refused before any game is played, by ``train`` and by ``nardy-fast train``;
3. a writer killed with SIGKILL leaves its temporary file, and the next write to that target removes it
   (while a live writer's temporary file is left alone);
4. reading archives: a member whose header claims a huge shape, a member that inflates to hundreds of MB,
   damaged deflate data: a ``NardyError`` of the file's field (``weights``, ``checkpoint``) at a small cost
   in memory, or, for the bear-off cache, a table built again;
5. a checkpoint's JSON with a number past any count (``10**400``) is refused as a checkpoint;
6. a ``Network`` made by ``__new__`` alone is refused wherever it is used; a ``training`` record nested
   deeper, or larger, than a network keeps is refused when the network is made and when it is loaded.

Expected values are the package's rules: the field named, the file left as it was.
"""

from __future__ import annotations

import io
import json
import os
import pickle
import signal
import socket
import stat
import subprocess
import sys
import textwrap
import tracemalloc
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.lib import format as npy_format

import nardy_fast
from nardy_fast.__main__ import main
from nardy_fast.bearoff import store
from nardy_fast.errors import NardyError
from nardy_fast.evaluation.network import INPUTS, Network
from nardy_fast.files import write_bytes, write_npz
from nardy_fast.policies import Greedy
from nardy_fast.training import check_config, train, trainer
from nardy_fast.training.trainer import checkpoint_path, log_path

#: A tiny training: short nardy, 8 hidden units, one iteration of 20 games (tests/test_training.py).
TINY: dict[str, Any] = {"seed": 3, "hidden": 8, "batch": 20, "eval_every": 0, "eval_games": 20}
#: ``nardy-fast train`` of the tiny training, without --out.
ARGV = ["train", "--variant", "short", "--games", "20"] + [f"--{k.replace('_', '-')}={v}" for k, v in TINY.items()]
#: The longest file name of the file systems the tests run on (Linux's NAME_MAX), in bytes.
NAME_MAX = 255
#: The most memory a refused or ignored archive member may cost to read.
SMALL = 16 << 20

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX special files and signals")


def field_of(error: pytest.ExceptionInfo[NardyError]) -> str:
    return str(error.value).split(":", 1)[0]


def small_network(hidden: int = 4, **options: Any) -> Network:
    rng = np.random.default_rng(5)
    shapes = {"w1": (INPUTS, hidden), "b1": (hidden,), "w2": (5, hidden), "b2": (5,)}
    arrays = {k: rng.normal(0, 0.1, s).astype(np.float32) for k, s in shapes.items()}
    return Network("short", arrays["w1"], arrays["b1"], arrays["w2"], arrays["b2"], **options)


# --- 1. writing: nothing but a temporary file of its own ------------------------------------------------------


def test_a_training_leaves_a_users_probe_file_and_symlink_alone(tmp_path: Path) -> None:
    probe = tmp_path / "w.npz.probe"
    probe.write_bytes(b"the user's own file")
    victim = tmp_path / "victim"
    victim.write_bytes(b"another file of the user's")
    (tmp_path / "v.npz.probe").symlink_to(victim)
    train("short", 20, out=tmp_path / "w.npz", **TINY)
    train("short", 20, out=tmp_path / "v.npz", **TINY)
    assert probe.read_bytes() == b"the user's own file"
    assert (tmp_path / "v.npz.probe").is_symlink() and victim.read_bytes() == b"another file of the user's"


def special_files(tmp_path: Path) -> Iterator[tuple[str, Path, Callable[[Path], bool]]]:
    """A FIFO, a Unix socket, a symlink (to a file that must stay as it is) and a directory, by name, each
    with the test that it is still what it was."""
    fifo = tmp_path / "fifo.npz"
    os.mkfifo(fifo)
    yield "fifo", fifo, lambda p: stat.S_ISFIFO(os.lstat(p).st_mode)
    where = tmp_path / "sock.npz"
    if len(os.fsencode(where)) < 100:  # AF_UNIX addresses are short
        server = socket.socket(socket.AF_UNIX)
        server.bind(os.fspath(where))
        try:
            yield "socket", where, lambda p: stat.S_ISSOCK(os.lstat(p).st_mode)
        finally:
            server.close()
    victim = tmp_path / "victim"
    victim.write_bytes(b"kept")
    link = tmp_path / "link.npz"
    link.symlink_to(victim)
    yield "symlink", link, lambda p: p.is_symlink() and victim.read_bytes() == b"kept"
    directory = tmp_path / "directory.npz"
    directory.mkdir()
    yield "directory", directory, lambda p: p.is_dir() and not any(p.iterdir())


def test_a_target_that_is_not_a_regular_file_is_refused_and_stays(tmp_path: Path) -> None:
    network = small_network()
    for kind, path, unchanged in special_files(tmp_path):
        before = set(os.listdir(tmp_path))
        writes: list[Callable[[], object]] = [
            lambda: write_npz(path, {"a": np.zeros(3)}),
            lambda: write_bytes(path, b"text"),
            lambda: network.save(path),
        ]
        for write in writes:
            with pytest.raises(NardyError) as error:
                write()
            assert field_of(error) == "out" and str(path) in str(error.value), (kind, str(error.value))
            assert unchanged(path), kind
            assert set(os.listdir(tmp_path)) == before, kind  # no temporary file left behind
        with pytest.raises(NardyError) as error:
            train("short", 20, out=path, **TINY)
        assert field_of(error) == "out" and unchanged(path), kind


@pytest.mark.parametrize("suffix", [".csv", ".json", ".npy"])
def test_playout_records_refuse_a_target_that_is_not_a_regular_file(
    suffix: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``nardy-fast playout --out`` wrote its records through ``open``: a FIFO blocked it, a symlink was written
    through. It goes through the one writer now, refused in one line before any game."""
    for kind, path, unchanged in special_files(tmp_path):
        target = path.with_name(path.stem + "-records" + suffix)
        os.rename(path, target)
        before = set(os.listdir(tmp_path))
        status = main(["playout", "--variant", "short", "--games", "2", "--out", str(target)])
        printed, err = capsys.readouterr()
        assert (status, printed) == (2, ""), (kind, printed)
        assert err.startswith("nardy-fast: error: --out: cannot be written (") and err.count("\n") == 1, err
        assert unchanged(target) and set(os.listdir(tmp_path)) == before, kind


def test_a_training_refuses_a_log_or_checkpoint_that_is_a_symlink(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_bytes(b"kept")
    for made in (log_path, checkpoint_path):
        out = tmp_path / f"{made.__name__}.npz"
        made(out).symlink_to(victim)
        progress: list[int] = []
        with pytest.raises(NardyError) as error:
            train("short", 20, out=out, resume=False, progress=lambda done, games: progress.append(done), **TINY)
        assert field_of(error) == "out" and progress == [] and victim.read_bytes() == b"kept"


# --- 2. names in bytes ---------------------------------------------------------------------------------------


def test_a_non_ascii_name_of_255_bytes_is_written(tmp_path: Path) -> None:
    name = "é" * 125 + "a.npz"  # 2 bytes a letter in UTF-8: 255 bytes, 130 characters
    assert len(name.encode()) == NAME_MAX
    write_npz(tmp_path / name, {"a": np.arange(3.0)})
    with np.load(tmp_path / name) as archive:
        assert list(archive["a"]) == [0.0, 1.0, 2.0]
    network = small_network()
    network.save(tmp_path / name)
    assert Network.load(tmp_path / name).sha256 == network.sha256
    assert os.listdir(tmp_path) == [name]


def test_a_name_longer_than_a_name_may_be_is_refused_by_the_writer(tmp_path: Path) -> None:
    path = tmp_path / ("é" * 128)  # 256 bytes
    with pytest.raises(NardyError) as error:
        write_npz(path, {"a": np.zeros(3)})
    assert field_of(error) == "out" and "256 bytes" in str(error.value)
    assert os.listdir(tmp_path) == []


def bad_outs(tmp_path: Path) -> dict[str, str]:
    return {
        "256 bytes": str(tmp_path / ("w" * 252 + ".npz")),
        "255 bytes of two-byte letters and one": str(tmp_path / ("é" * 126 + ".npz")),  # 256 bytes, 130 chars
        "245 bytes: its checkpoint's name is 260": str(tmp_path / ("w" * 241 + ".npz")),
        "241 bytes: its checkpoint's name is 256": str(tmp_path / ("w" * 237 + ".npz")),
        "empty": "",
        "dot": ".",
        "dot dot": "..",
        "root": "/",
        "the directory": str(tmp_path) + "/",
    }


@pytest.mark.parametrize(
    "case",
    list(bad_outs(Path("/t"))),
)
def test_an_out_that_cannot_be_a_training_output_is_refused_before_any_game(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    out = bad_outs(tmp_path)[case]
    progress: list[int] = []
    with pytest.raises(NardyError) as error:
        train("short", 20, out=out, progress=lambda done, games: progress.append(done), **TINY)
    assert field_of(error) == "out" and progress == [], str(error.value)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("case", list(bad_outs(Path("/t"))))
def test_nardy_fast_train_refuses_such_an_out_in_one_line(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    status = main([*ARGV, "--out", bad_outs(tmp_path)[case]])
    printed, err = capsys.readouterr()
    assert (status, printed) == (2, "") and err.startswith("nardy-fast: error: --out: "), err
    assert err.count("\n") == 1 and os.listdir(tmp_path) == []


def test_the_longest_out_whose_checkpoint_fits_is_trained(tmp_path: Path) -> None:
    out = tmp_path / ("w" * (NAME_MAX - len(".checkpoint.npz") - 4) + ".npz")
    assert len(checkpoint_path(out).name) == NAME_MAX
    network = train("short", 20, out=out, **TINY)
    assert Network.load(out).sha256 == network.sha256 and checkpoint_path(out).exists()


# --- 3. a killed writer's temporary file ---------------------------------------------------------------------

STALLED_WRITER = """
import sys, time
from pathlib import Path
import numpy as np
from nardy_fast import files

def stall(file, **arrays):
    file.write(b"PK half an archive")
    file.flush()
    print("writing", flush=True)
    time.sleep(300)

np.savez = stall
files.write_npz(Path(sys.argv[1]), {"a": np.zeros(3)})
"""


def stalled_writer(target: Path) -> subprocess.Popen[str]:
    child = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(STALLED_WRITER), str(target)], stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None and child.stdout.readline() == "writing\n"
    return child


def test_a_killed_writers_temporary_file_is_removed_by_the_next_write(tmp_path: Path) -> None:
    target = tmp_path / "w.npz"
    child = stalled_writer(target)
    try:
        (temporary,) = os.listdir(tmp_path)
        # a live writer's file is its own: another write to the target leaves it alone
        write_npz(target, {"a": np.ones(2)})
        assert sorted(os.listdir(tmp_path)) == sorted([temporary, "w.npz"])
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=60)
    assert sorted(os.listdir(tmp_path)) == sorted([temporary, "w.npz"])  # a kill leaves it
    (tmp_path / "other.npz.keep").write_bytes(b"not a temporary file of w.npz")
    write_npz(target, {"a": np.zeros(2)})
    assert sorted(os.listdir(tmp_path)) == ["other.npz.keep", "w.npz"]
    with np.load(target) as archive:
        assert list(archive["a"]) == [0.0, 0.0]


# --- 4. reading archives ------------------------------------------------------------------------------------


def member_bytes(shape: tuple[int, ...], descr: str = "<f4", data: bytes = b"") -> bytes:
    """A .npy member whose header claims ``shape`` of ``descr`` and whose data is ``data``."""
    out = io.BytesIO()
    npy_format.write_array_header_1_0(out, {"descr": descr, "fortran_order": False, "shape": shape})
    return out.getvalue() + data


def with_member(good: Path, name: str, member: bytes, path: Path) -> Path:
    """A copy of archive ``good`` at ``path`` with member ``name`` (``name``.npy) replaced by ``member``."""
    with zipfile.ZipFile(good) as source, zipfile.ZipFile(path, "w") as out:
        for info in source.infolist():
            if info.filename != name + ".npy":
                out.writestr(info.filename, source.read(info))
        out.writestr(name + ".npy", member)
    return path


def with_bomb(good: Path, name: str, path: Path, megabytes: int = 500) -> Path:
    """A copy of ``good`` at ``path`` with a member ``name`` of ``megabytes`` MB of zero float32s, deflated to
    a few MB, in place of one of that name if there is one."""
    with zipfile.ZipFile(good) as source, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as out:
        for info in source.infolist():
            if info.filename != name + ".npy":
                out.writestr(info.filename, source.read(info))
        with out.open(name + ".npy", "w", force_zip64=True) as member:
            count = (megabytes << 20) // 4
            member.write(member_bytes((count,)))
            zeros = bytes(4 << 20)
            for _ in range(megabytes // 4):
                member.write(zeros)
    assert path.stat().st_size < 8 << 20
    return path


def peak_of(call: Callable[[], object]) -> int:
    """The most memory Python and NumPy held at once during ``call()`` beyond what they held before."""
    tracemalloc.start()
    try:
        call()
    except NardyError:
        pass
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return peak


@pytest.fixture()
def weights(tmp_path: Path) -> Path:
    path = tmp_path / "net.npz"
    small_network().save(path)
    return path


def test_a_weights_member_claiming_a_huge_shape_is_refused_cheaply(weights: Path, tmp_path: Path) -> None:
    for descr, shape in (("<f4", (1 << 40,)), ("<f4", (INPUTS, 1 << 35)), ("<U1000000000", ())):
        name = "meta" if descr.startswith("<U") else "w1"
        path = with_member(weights, name, member_bytes(shape, descr, b"\0" * 64), tmp_path / "huge.npz")
        with pytest.raises(NardyError) as error:
            Network.load(path)
        assert str(error.value).startswith("weights: is not a weights file (") and str(path) in str(error.value)
        assert peak_of(lambda: Network.load(path)) < SMALL


def test_a_weights_file_with_a_bomb_is_read_cheaply(weights: Path, tmp_path: Path) -> None:
    extra = with_bomb(weights, "extra", tmp_path / "extra.npz")
    assert peak_of(lambda: Network.load(extra)) < SMALL
    assert Network.load(extra).sha256 == Network.load(weights).sha256  # a member it does not know: not read
    known = with_bomb(weights, "w1", tmp_path / "known.npz")
    with pytest.raises(NardyError) as error:
        Network.load(known)
    assert field_of(error) == "weights"
    assert peak_of(lambda: Network.load(known)) < SMALL


def test_damaged_deflate_data_is_a_bad_weights_file(weights: Path, tmp_path: Path) -> None:
    with np.load(weights) as archive:
        arrays = {key: archive[key] for key in archive.files}
    path = tmp_path / "deflated.npz"
    np.savez_compressed(path, **arrays)
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as opened:
        info = opened.getinfo("w1.npy")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    data[start + 5 : start + 40] = bytes(35)  # the deflate stream of w1 broken
    path.write_bytes(bytes(data))
    with pytest.raises(NardyError) as error:
        Network.load(path)
    assert str(error.value).startswith("weights: is not a weights file (")


@pytest.fixture()
def checkpointed(tmp_path: Path) -> Path:
    out = tmp_path / "w.npz"
    train("short", 20, out=out, **TINY)
    return out


def load_checkpoint(path: Path) -> None:
    config = check_config("short", 40, **TINY)
    trainer._State(config).load(path, config)


def test_a_checkpoint_member_claiming_a_huge_shape_or_a_bomb_is_refused_cheaply(
    checkpointed: Path, tmp_path: Path
) -> None:
    good = checkpoint_path(checkpointed)
    load_checkpoint(good)
    huge = with_member(good, "m_w1", member_bytes((1 << 40,), "<f4", b"\0" * 64), tmp_path / "huge.npz")
    bomb = with_bomb(good, "v_w1", tmp_path / "bomb.npz")
    for path in (huge, bomb):
        with pytest.raises(NardyError) as error:
            load_checkpoint(path)
        assert field_of(error) == "checkpoint" and str(path) in str(error.value)
        assert peak_of(lambda: load_checkpoint(path)) < SMALL
    extra = with_bomb(good, "extra", tmp_path / "extra.npz")
    assert peak_of(lambda: load_checkpoint(extra)) < SMALL
    load_checkpoint(extra)


@pytest.mark.parametrize("change", [{"seconds": 10**400}, {"step": 10**400}, {"done": 10**400},
                                    {"iterations": 10**400}, {"seconds": "1e999"}, {"log": ["x"]}])
def test_a_checkpoint_with_a_number_past_any_count_is_refused(checkpointed: Path, change: dict[str, Any]) -> None:
    check = checkpoint_path(checkpointed)
    with np.load(check) as archive:
        arrays = {key: archive[key] for key in archive.files}
    meta = {**json.loads(str(arrays["meta"])), **change}
    np.savez(check, **{**arrays, "meta": np.array(json.dumps(meta))})
    with pytest.raises(NardyError) as error:
        train("short", 40, out=checkpointed, **TINY)
    assert field_of(error) == "checkpoint", str(error.value)


# --- the bear-off cache: a bad file is built again --------------------------------------------------------------


def bearoff_damages() -> dict[str, Callable[[Path], None]]:
    def deflate_damaged(path: Path) -> None:
        with np.load(path) as archive:
            arrays = {key: archive[key] for key in archive.files}
        np.savez_compressed(path, **arrays)
        data = bytearray(path.read_bytes())
        with zipfile.ZipFile(path) as opened:
            info = opened.getinfo("mean.npy")
        start = info.header_offset + 30 + len(info.filename) + len(info.extra)
        data[start + 5 : start + 60] = bytes(55)
        path.write_bytes(bytes(data))

    def huge_shape(path: Path) -> None:
        with_member(Path(str(path) + ".good"), "mean", member_bytes((1 << 40,), "<f8", b"\0" * 64), path)

    return {"deflate damaged": deflate_damaged, "huge shape": huge_shape}


@pytest.mark.parametrize("damage", list(bearoff_damages()))
def test_a_bad_bear_off_cache_file_is_built_again(
    damage: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NARDY_FAST_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(store, "_BUILT", {})
    calls: list[int] = []

    from nardy_fast.kernels import kernels_named

    real = kernels_named("python").one_sided

    def kernel(semantics: Any, count: int) -> Any:
        calls.append(count)
        return real(semantics, count)

    def table() -> Any:
        store._BUILT.clear()
        return store.one_sided_table("python", kernel, "short", 2, True, {})

    built = table()
    (path,) = (tmp_path / "cache").iterdir()
    good = path.read_bytes()
    Path(str(path) + ".good").write_bytes(good)
    bearoff_damages()[damage](path)
    rebuilt = table()
    assert calls == [2, 2]
    for a, b in zip(rebuilt.arrays, built.arrays):
        np.testing.assert_array_equal(a, b)
    assert path.read_bytes() == good  # written again


# --- 6. networks: uninitialised, and their training records ---------------------------------------------------


def test_an_uninitialised_network_is_refused_wherever_it_is_used(tmp_path: Path) -> None:
    forged = Network.__new__(Network)
    row = nardy_fast.Position.start("short").to_array()
    uses: dict[str, Callable[[], object]] = {
        "repr": lambda: repr(forged),
        "save": lambda: forged.save(tmp_path / "w.npz"),
        "tables": lambda: forged.tables,
        "arrays": lambda: forged.arrays(),
        "pickle": lambda: pickle.dumps(forged),
        "training": lambda: forged.training,
        "evaluate": lambda: nardy_fast.evaluate(row[None], forged),
        "Greedy": lambda: nardy_fast.playout("short", 2, seed=1, policy=Greedy(forged)),
        "hint": lambda: nardy_fast.Position.start("short").hint((3, 1), evaluator=forged),
    }
    for name, use in uses.items():
        with pytest.raises(NardyError):
            use()
        assert os.listdir(tmp_path) == [], name


def nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.parametrize("training", [nested(100_000), nested(1_000), nested(100), {"log": "x" * (2 << 20)},
                                      {"n": 10**400}, {"x": float("nan")}])
def test_a_training_record_past_the_bounds_is_refused(training: dict[str, Any], tmp_path: Path) -> None:
    with pytest.raises(NardyError) as error:
        small_network(training=training)
    assert field_of(error) == "training"


def test_a_weights_file_with_a_training_record_past_the_bounds_is_refused(weights: Path, tmp_path: Path) -> None:
    with np.load(weights) as archive:
        arrays = {key: archive[key] for key in archive.files}
    meta = json.loads(str(arrays["meta"]))
    for training in ("[" * 100_000 + "]" * 100_000, json.dumps(nested(100)), "1" + "0" * 400):
        text = json.dumps({**meta, "training": None}).replace("null", training)
        path = tmp_path / "deep.npz"
        np.savez(path, **{**arrays, "meta": np.array(text)})
        with pytest.raises(NardyError) as error:
            Network.load(path)
        assert field_of(error) == "weights" and str(path) in str(error.value)
