"""The package's structure: its import graph, the published Zobrist table, and the names both implementations
expose. These keep the house in order: the shared layer stands on its own, the implementation is chosen in
one place, and no published key moves."""

from __future__ import annotations

import ast
import hashlib
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_layers import imports, module_name

import nardy_fast
from nardy_fast import _dispatch, zobrist

PACKAGE = Path(nardy_fast.__file__).parent
MODULES = sorted(PACKAGE.rglob("*.py"))


def _graph() -> dict[str, set[str]]:
    """The package's modules and those each imports at run time (not for type checking alone)."""
    return {module_name(path): imports(path, type_checking=False) for path in MODULES}


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


# --- the core's units (src_pyx/*.pxi, included by _core.pyx in order) -----------------------------------------

SRC = Path(__file__).resolve().parent.parent / "src_pyx"
_DEFINITION = re.compile(
    r"^(?:cdef|cpdef|def)\s+(?:class\s+|inline\s+)?(?:(?:const\s+)?[\w\[\]*]+\s+\*?)*?(\w+)\s*[(:]", re.MULTILINE
)
_GLOBAL = re.compile(r"^cdef\s+(?!class\b|inline\b|struct\b|enum\b)(?:const\s+)?\w+\s+\*?(\w+)", re.MULTILINE)
_ENUM_MEMBER = re.compile(r"^    ([A-Z][A-Z0-9_]*)\s*=", re.MULTILINE)


def _includes(name: str) -> list[str]:
    return re.findall(r'^include "(.+?)"', (SRC / name).read_text(), re.MULTILINE)


def _units() -> list[str]:
    """The units in the order the core includes them; a file that only includes others (``evaluators.pxi``,
    written by setup.py) stands for those."""
    return [unit for name in _includes("_core.pyx") for unit in (_includes(name) or [name])]


def _unit_code(unit: str) -> str:
    """A unit without its docstrings and comments."""
    text = re.sub(r'"""[\s\S]*?"""', "", (SRC / unit).read_text())
    return re.sub(r"#.*", "", text)


def _unit_names() -> tuple[dict[str, str], set[str]]:
    """Every module-level name of the units (functions, classes, globals, enum members) -> its unit, and the
    names that are called (functions and classes)."""
    where: dict[str, str] = {}
    called: set[str] = set()
    for unit in _units():
        text = (SRC / unit).read_text()
        for match in _DEFINITION.finditer(text):
            where.setdefault(match.group(1), unit)
            called.add(match.group(1))
        for block in re.findall(r"^cdef enum:\n((?:    .*\n|\n)+)", text, re.MULTILINE):
            for member in _ENUM_MEMBER.findall(block):
                where.setdefault(member, unit)
        for match in _GLOBAL.finditer(text):
            where.setdefault(match.group(1), unit)
    return where, called


def _unit_edges() -> dict[str, dict[str, set[str]]]:
    """For each unit, the names of other units it refers to, by unit."""
    where, called = _unit_names()
    edges: dict[str, dict[str, set[str]]] = {unit: {} for unit in _units()}
    for unit in _units():
        code = _unit_code(unit)
        for name, home in where.items():
            pattern = r"(?<![.\w])" + re.escape(name) + (r"\s*\(" if name in called else r"\b")
            if home != unit and re.search(pattern, code):
                edges[unit].setdefault(home, set()).add(name)
    return edges


def _header_line(unit: str, label: str) -> set[str]:
    """The names on a unit header's ``# <label>:`` line (continued on the comment lines after it)."""
    header = []
    for line in (SRC / unit).read_text().splitlines():
        if not line.startswith("#"):
            break
        header.append(line[1:].strip())
    text = " ".join(header)
    match = re.search(label + r":(.*?)\.(?:\s+[A-Z]\w*:|$)", text)
    assert match, f"{unit}: its header has no '# {label}:' line"
    listed = match.group(1).strip()
    return set() if listed in ("nothing", "constants and tables only") else set(re.findall(r"\w+", listed))


def test_core_units_call_no_later_unit() -> None:
    """Each unit uses only units included before it: the units read top to bottom, with no circle."""
    units = _units()
    forward = [
        f"{unit} uses {sorted(names)} of the later {home}"
        for unit, homes in _unit_edges().items()
        for home, names in homes.items()
        if units.index(home) > units.index(unit)
    ]
    assert not forward, forward


def test_the_core_names_every_unit_in_its_docstring() -> None:
    """_core.pyx's docstring, the map of the core, names every file of src_pyx it is built from."""
    core = (SRC / "_core.pyx").read_text()
    docstring = core.split('"""')[1]
    files = {p.relative_to(SRC).as_posix() for p in SRC.rglob("*") if p.suffix in (".pxi", ".pxd", ".h")}
    missing = sorted(name for name in files if f"``{name}``" not in docstring)
    assert not missing, missing
    assert set(_units()) <= files


def test_the_core_includes_every_evaluator_twin() -> None:
    """A built-in evaluator's C twin is a file of src_pyx/evaluators/ and nothing else: the build includes
    every such file (setup.py's ``include_evaluators``), in the order of their names."""
    twins = sorted(p.relative_to(SRC).as_posix() for p in (SRC / "evaluators").glob("*.pxi"))
    assert twins and [unit for unit in _units() if unit.startswith("evaluators/")] == twins


def test_core_unit_headers_say_what_they_use_and_offer() -> None:
    edges = _unit_edges()
    _, called = _unit_names()
    offered: dict[str, set[str]] = {unit: set() for unit in edges}
    for homes in edges.values():
        for home, names in homes.items():
            offered[home] |= names & called
    for unit, homes in edges.items():
        assert _header_line(unit, "Uses") == {Path(home).stem for home in homes}, unit
        assert _header_line(unit, "Offers") == offered[unit], unit


def test_the_workspace_pool_lives_in_memory() -> None:
    where, _ = _unit_names()
    assert {where[name] for name in ("Generator", "take_workspace", "give_back", "tick")} == {"memory.pxi"}
    assert where["search"] == "search.pxi"


# --- the Python shell -------------------------------------------------------------------------------------

#: The longest a module of the package may be, in lines: one that grows past it holds several concerns.
MAX_MODULE_LINES = 400


def test_no_module_is_too_long_to_read_in_one_sitting() -> None:
    long = {str(p.relative_to(PACKAGE)): n for p in MODULES if (n := len(p.read_text().splitlines())) > MAX_MODULE_LINES}
    assert not long, long


def _module_imports(path: Path) -> list[tuple[str, str]]:
    """``(module, name)`` of every ``from <package module> import name`` in ``path``."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: list[tuple[str, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                module = ".".join(base[: len(base) - node.level + 1] + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module.startswith("nardy_fast"):
                found.extend((module, alias.name) for alias in node.names)
    return found


def test_no_module_imports_another_modules_private_names() -> None:
    """A helper used across modules is public in the module it belongs to; the compiled core (imported as
    ``_core``) is the one private module others import."""
    private = [
        f"{module_name(path)} imports {name} from {module}"
        for path in MODULES
        for module, name in _module_imports(path)
        if name.startswith("_") and not name.startswith("__") and name != "_core"
    ]
    core = (SRC / "_core.pyx").read_text()
    private += [f"_core.pyx imports {n} from {m}" for m, n in re.findall(r"^from (nardy_fast\S*) import (_\w+)\b(?! as)", core, re.MULTILINE)]
    assert not private, private


def test_position_imports_no_output_format() -> None:
    """The central type stands apart from its formats: each format is imported by the method that uses it."""
    tree = ast.parse((PACKAGE / "position.py").read_text())
    at_module_level = {alias.name for node in tree.body if isinstance(node, ast.ImportFrom) for alias in node.names}
    at_module_level |= {node.module or "" for node in tree.body if isinstance(node, ast.ImportFrom)}
    assert not at_module_level & {"ids", "svg", ".ids", ".svg"}, at_module_level
    code = "import sys, nardy_fast; nardy_fast.Position.start('long'); print(sorted(m for m in sys.modules if m.startswith(('nardy_fast.ids', 'nardy_fast.svg'))))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "[]\n"


def _public_callables() -> dict[str, object]:
    found: dict[str, object] = {}
    for name, module in [("nardy_fast", nardy_fast), *sorted(_dispatch.implementations().items())]:
        for attribute in module.__all__:
            value = getattr(module, attribute)
            if callable(value) and not isinstance(value, type):
                found[f"{name}.{attribute}"] = value
    return found


@pytest.mark.parametrize("name", sorted(_public_callables()))
def test_public_functions_are_defined_where_they_can_be_read(name: str) -> None:
    """No public function is a closure made by a factory: go-to-definition lands on its code, and help()
    shows one docstring, the same for the package's function and each implementation's."""
    function = _public_callables()[name]
    assert "<locals>" not in getattr(function, "__qualname__", "<locals>"), name
    assert function.__doc__, name
    short = name.rpartition(".")[2]
    if short in ("batch_children", "children", "encode", "playout", "rollout"):
        assert function.__doc__ == getattr(nardy_fast, short).__doc__, name


def test_policies_and_openings_are_read_by_name_in_the_core() -> None:
    """The core derives the codes of the built-in policies and openings from nardy_fast.game's tables."""
    games = (SRC / "games.pxi").read_text()
    assert "_POLICIES.index(" in games and "_OPENINGS.index(" in games
    assert not re.search(r"\b(policy|opening) == \d", games), "a policy or opening compared with a number"


def test_every_subpackage_is_packaged() -> None:
    """Every package directory is listed in pyproject.toml's ``[tool.setuptools] packages`` (an editable
    install hides a missing one; a wheel then lacks it)."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = PACKAGE.parent / "pyproject.toml"
    if not project.is_file():
        pytest.skip("an installed package: its project file is not beside it (tools/check_dist.sh checks the wheel)")
    listed = set(tomllib.loads(project.read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    found = {module_name(path) for path in PACKAGE.rglob("__init__.py")}
    assert found == listed
