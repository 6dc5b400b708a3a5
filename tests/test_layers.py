"""The layers of docs/architecture.md, checked on the whole import graph: every import counts, at module level,
inside a function or for type checking only, since each is a dependence a reader must follow.

Facts, core, engine, shell: a module imports only modules of its own layer or lower ones, and no import cycle
joins modules (an edge to a module's own package ``__init__``, which Python runs first, is none). No edge
breaks this: the tests fail on the first that does.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Optional

import pytest

import nardy_fast

PACKAGE = Path(nardy_fast.__file__).parent
DOC = Path(__file__).resolve().parent.parent / "docs" / "architecture.md"
SRC = Path(__file__).resolve().parent.parent / "src_pyx"
ORDER = ("facts", "core", "engine", "shell")

def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
KNOWN = set(MODULES) | {"nardy_fast._core"}


def _is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def _nodes(tree: ast.AST, type_checking: bool) -> list[ast.AST]:
    """Every node of ``tree``; without ``type_checking``, none under an ``if TYPE_CHECKING:`` (its ``else``
    stays)."""
    found: list[ast.AST] = []

    def visit(node: ast.AST) -> None:
        if not type_checking and isinstance(node, ast.If) and _is_type_checking(node):
            for statement in node.orelse:
                visit(statement)
            return
        found.append(node)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def imports(path: Path, type_checking: bool = True) -> set[str]:
    """Every package module ``path`` imports, anywhere in it (without ``type_checking``, not those imported
    only for type checking). ``from . import x`` imports the submodule ``x`` (and the package only when ``x``
    is no submodule)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in _nodes(ast.parse(path.read_text(encoding="utf-8")), type_checking):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in KNOWN)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            subs = {f"{module}.{alias.name}" for alias in node.names} & KNOWN
            found |= subs
            if module in KNOWN and len(subs) < len(node.names):
                found.add(module)
    found.discard(name)
    return found


def core_imports() -> set[str]:
    """The package modules the compiled core's sources import (``from nardy_fast.x import ...``,
    ``from nardy_fast import x``), when they are beside the tests."""
    found: set[str] = set()
    for path in sorted(SRC.glob("*.p[yx]*")) if SRC.is_dir() else []:
        text = path.read_text(encoding="utf-8")
        for module, name in re.findall(r"^from (nardy_fast(?:\.[\w.]+)?) c?import (\w+)", text, re.MULTILINE):
            found.add(f"{module}.{name}" if f"{module}.{name}" in KNOWN else module)
    return found & KNOWN


def graph() -> dict[str, set[str]]:
    edges = {"nardy_fast._core": core_imports()}
    for name, path in MODULES.items():
        # an edge to the module's own package __init__ is run by Python first: no dependence of its choosing
        edges[name] = {d for d in imports(path) if not name.startswith(d + ".")}
    return edges


def short(module: str) -> str:
    return module.removeprefix("nardy_fast.") if module != "nardy_fast" else module


def layers() -> dict[str, str]:
    """Each module's layer, from docs/architecture.md's table."""
    if not DOC.exists():
        pytest.skip("docs/architecture.md is not here (an installed package's suite)")
    found: dict[str, str] = {}
    for layer, cell in re.findall(r"^\| (facts|core|engine|shell) \| (.*?) \|$", DOC.read_text(), re.MULTILINE):
        for pattern in re.findall(r"`([\w.*]+)`", cell):
            full = pattern if pattern == "nardy_fast" else f"nardy_fast.{pattern}"
            if full.endswith(".*"):
                matched = [m for m in KNOWN if m.startswith(full[:-1])]
            else:
                matched = [full] if full in KNOWN else []
            assert matched, f"docs/architecture.md names {pattern!r}, which is no module"
            for module in matched:
                assert module not in found or found[module] == layer, f"{module} is in two layers"
                found.setdefault(module, layer)
    return found


def test_every_module_has_its_layer() -> None:
    missing = sorted(short(m) for m in KNOWN if m not in layers())
    assert not missing, f"not placed in docs/architecture.md's table: {missing}"


def upward(edges: Optional[dict[str, set[str]]] = None) -> set[tuple[str, str]]:
    where = layers()
    return {
        (short(m), short(d))
        for m, deps in (graph() if edges is None else edges).items()
        for d in deps
        if ORDER.index(where[d]) > ORDER.index(where[m])
    }


def test_the_layer_check_finds_an_upward_import() -> None:
    """The check itself: a facts module importing the engine, or the core importing the shell, is found."""
    edges = {"nardy_fast.variants": {"nardy_fast.duel", "nardy_fast.errors"}, "nardy_fast.kernels": {"nardy_fast.cli"}}
    assert upward(edges) == {("variants", "duel"), ("kernels", "cli")}


def test_no_module_imports_a_higher_layer() -> None:
    found = upward()
    assert not found, f"imports of a higher layer (importer, imported): {sorted(found)}"


def cycles(edges: dict[str, set[str]]) -> set[str]:
    """The modules of every strongly connected component of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: set[str] = set()

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.update(component)

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == {"a", "b", "c"}
    assert cycles({"a": {"b"}, "b": set()}) == set()


def test_no_import_cycle_counting_type_checking_imports() -> None:
    found = {short(m) for m in cycles(graph())}
    assert not found, f"modules in an import cycle: {sorted(found)}"


def test_the_package_functions_have_their_implementations_signatures() -> None:
    """Each of the package's functions calls the chosen implementation's method of its name: the two
    signatures (less ``self``) must have the same parameters, names, kinds and defaults, so that no keyword is dropped or
    defaulted differently on the way."""
    import inspect

    from nardy_fast import _dispatch
    from nardy_fast.implementation import Implementation

    checked = []
    for name in _dispatch.__all__:
        function = getattr(_dispatch, name)
        method = getattr(Implementation, name, None)
        if not inspect.isfunction(function) or method is None:
            continue
        ours = [(p.name, p.kind, p.default) for p in inspect.signature(function).parameters.values()]
        theirs = [(p.name, p.kind, p.default) for p in inspect.signature(method).parameters.values()][1:]
        assert ours == theirs, name
        checked.append(name)
    assert {"batch_children", "children", "encode", "playout", "rollout", "evaluate", "duel"} <= set(checked)


def test_only_the_assembly_imports_the_dispatcher_and_the_record() -> None:
    """The package's namespace alone imports the dispatcher (everything else uses the package's public names);
    the record is imported by those who assemble one (the dispatcher, ``core``, ``reference``)."""
    edges = graph()
    dispatchers = {short(m) for m, deps in edges.items() if "nardy_fast._dispatch" in deps}
    assert dispatchers == {"nardy_fast"}, dispatchers
    users = {short(m) for m, deps in edges.items() if "nardy_fast.implementation" in deps}
    assert users == {"_dispatch", "core", "reference"}, f"the record taken below the assembly: {sorted(users)}"
