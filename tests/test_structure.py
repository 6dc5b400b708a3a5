"""The package's structure: its import graph, the published Zobrist table, and the names both implementations
expose. These keep the house in order: the shared layer stands on its own, the implementation is chosen in
one place, and no published key moves."""

from __future__ import annotations

import ast
import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

import nardy_fast
from nardy_fast import _dispatch, zobrist

PACKAGE = Path(nardy_fast.__file__).parent
MODULES = sorted(PACKAGE.rglob("*.py"))


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(node: ast.If) -> bool:
    return isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def _imports(path: Path) -> set[str]:
    """The package modules ``path`` imports at run time (at module level or in functions), not those imported
    only for type checking."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for statement in node.orelse:
                visit(statement)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("nardy_fast"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module.startswith("nardy_fast"):
                found.add(module)
                # ``from . import x`` imports the submodule x
                found.update(f"{module}.{alias.name}" for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    known = {_module_name(p) for p in MODULES} | {"nardy_fast._core"}
    return {module for module in found if module in known and module != name}


def _graph() -> dict[str, set[str]]:
    return {_module_name(path): _imports(path) for path in MODULES}


def test_no_import_cycles() -> None:
    graph = _graph()
    # a package's own __init__ is imported before its submodules: an edge to it is no cycle of its making
    edges = {m: {d for d in deps if not (m.startswith(d + ".") and d in graph)} for m, deps in graph.items()}
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(module: str) -> None:
        state[module] = 1
        path.append(module)
        for dep in sorted(edges.get(module, ())):
            if state.get(dep) == 1:
                cycle = path[path.index(dep) :] + [dep]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if dep not in state:
                visit(dep)
        path.pop()
        state[module] = 2

    for module in sorted(edges):
        if module not in state:
            visit(module)


def test_only_the_dispatcher_imports_the_reference() -> None:
    for module, deps in _graph().items():
        if module.startswith("nardy_fast.reference") or module == "nardy_fast._dispatch":
            continue
        assert not any(d.startswith("nardy_fast.reference") for d in deps), f"{module} imports the reference"


@pytest.mark.parametrize(
    "module",
    "errors inputs variants zobrist board numbering state layout notation position batch perft encodings svg ids env".split(),
)
def test_shared_modules_import_on_their_own(module: str) -> None:
    """Each shared module imports in a fresh interpreter by itself (no reliance on an import order)."""
    code = f"import nardy_fast.{module}, sys; assert 'nardy_fast.reference' not in sys.modules, 'reference loaded'"
    # the package's __init__ runs first and loads the dispatcher (and so the reference): import the module's
    # file under the package without running __init__
    code = (
        "import importlib.util, sys, types\n"
        f"package = types.ModuleType('nardy_fast'); package.__path__ = [{str(PACKAGE)!r}]\n"
        "sys.modules['nardy_fast'] = package\n"
        f"importlib.import_module('nardy_fast.{module}')\n"
        "assert not any(m.startswith('nardy_fast.reference') for m in sys.modules), sorted(sys.modules)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


#: The SHA-256 of the 941 keys published before any slot was appended (little-endian 64-bit words), and the
#: offset of every slot: appending a slot must change neither.
PUBLISHED_DIGEST = "632a70526a3384399fd82714c1fb3f7898b1cffbd78ea4402f756bbb70366256"
PUBLISHED_OFFSETS = {
    "point": 0,
    "bar": 720,
    "off": 750,
    "black_to_move": 780,
    "first_roll": 781,
    "pending": 783,
    "variant": 927,
    "per_step": 932,
    "ladder4": 933,
    "exception_double": 934,
    "sixone_requires_play": 940,
}


def test_published_zobrist_keys_never_move() -> None:
    words = b"".join(key.to_bytes(8, "little") for key in zobrist.KEYS[:941])
    assert hashlib.sha256(words).hexdigest() == PUBLISHED_DIGEST
    assert {name: zobrist.OFFSETS[name] for name in PUBLISHED_OFFSETS} == PUBLISHED_OFFSETS
    assert len(zobrist.KEYS) == sum(count for _, count in zobrist.SLOTS)
    assert list(zobrist.OFFSETS)[: len(PUBLISHED_OFFSETS)] == list(PUBLISHED_OFFSETS)
    # every variant the core has room for has a key of its own
    slots = [zobrist.variant_slot(v) for v in range(16)]
    assert len(set(slots)) == 16 and slots[:5] == list(range(zobrist.VARIANT, zobrist.VARIANT + 5))


def test_every_flag_has_its_key_slot_and_bit() -> None:
    from nardy_fast.variants import FLAG_SPECS

    bits = [spec.bit for spec in FLAG_SPECS if spec.bit]
    assert len(set(bits)) == len(bits) and all(bit & (bit - 1) == 0 for bit in bits)
    assert all(spec.key in zobrist.OFFSETS for spec in FLAG_SPECS)


def _public(obj: object) -> set[str]:
    return {name for name in dir(obj) if not name.startswith("_")}


def test_implementations_expose_the_same_names() -> None:
    found = _dispatch.implementations()
    if "cython" not in found:
        pytest.skip("the core is not built")
    python, cython = found["python"], found["cython"]
    assert set(python.__all__) == set(cython.__all__)
    assert _public(python.Position) == _public(cython.Position)
    moves = [impl.Position.start("gulbar").legal_moves((3, 1))[0] for impl in (python, cython)]
    assert _public(moves[0]) == _public(moves[1])
    for name in ("batch_children", "children"):
        assert getattr(python, name).__doc__ == getattr(cython, name).__doc__
    assert python.Position.legal_moves.__doc__ == cython.Position.legal_moves.__doc__
