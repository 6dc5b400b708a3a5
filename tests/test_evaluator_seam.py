"""The seam of the built-in evaluators (docs/architecture.md, The seams between the layers): the engine asks a
``Builtin`` what its facts (nardy_fast.evaluation.outcomes.BUILTINS) say and never tests its name, the
reference calls the twin the facts name and the compiled core the twin registered under the kind. A comparison
with an evaluator's name anywhere in the package fails here, and a new built-in evaluator made of facts alone
(over twins that exist) works in the reference with no other change."""

from __future__ import annotations

import ast
import dataclasses
import importlib
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import nardy_fast
from nardy_fast import NardyError, implementations, layout
from nardy_fast.evaluation import builtin as builtin_module
from nardy_fast.evaluation.builtin import Builtin
from nardy_fast.evaluation.composite import CONTACT_KINDS, CompositeBuiltin
from nardy_fast.evaluation.evaluators import tables_for
from nardy_fast.evaluation.network import Network, shipped
from nardy_fast.evaluation.outcomes import BUILTINS, EVALUATORS, BuiltinFacts

PACKAGE = Path(nardy_fast.__file__).parent
SRC = Path(__file__).resolve().parent.parent / "src_pyx"
IMPLS = implementations()
CORE: Any = IMPLS.get("cython")
REFERENCE: Any = IMPLS["python"]
Rows = npt.NDArray[np.int8]
#: the reference's seam (the module, not the function ``nardy_fast.reference.evaluate`` its package names)
reference_evaluate = importlib.import_module("nardy_fast.reference.evaluate")


def _strings(node: ast.AST) -> set[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return set().union(*(_strings(element) for element in node.elts))
    return set()


def name_tests(source: str) -> list[str]:
    """The comparisons of ``source`` with a built-in evaluator's name (``x == "race"``, ``x in ("net",
    "network")``), and its reads of a ``variant`` or ``contact`` by ``getattr`` (a network or a composite told
    apart by what it happens to hold)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            names = set().union(*(_strings(side) for side in (node.left, *node.comparators))) & set(EVALUATORS)
            if names:
                found.append(f"{node.lineno}: {ast.unparse(node)}")
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "getattr"
            and len(node.args) >= 2
            and _strings(node.args[1]) & {"variant"}
        ):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def test_the_finder_finds_a_name_test() -> None:
    assert name_tests('if evaluator.name == "pubeval":\n    pass\n')
    assert name_tests('x = kind in ("net", "network")\n')
    assert name_tests('v = getattr(evaluator, "variant", None)\n')
    assert not name_tests("if evaluator.facts.by_parent:\n    pass\n")


def test_no_module_of_the_package_tests_an_evaluators_name() -> None:
    """What a built-in evaluator is asked is answered by its facts: a name tested anywhere is a branch a new
    evaluator would have to be added to."""
    found = {
        str(path.relative_to(PACKAGE)): tests
        for path in sorted(PACKAGE.rglob("*.py"))
        if (tests := name_tests(path.read_text()))
    }
    assert not found, found


def test_the_core_seam_names_no_evaluator_but_its_composite() -> None:
    """evaluate.pxi and hint.pxi call twins by kind (twins.pxi); each twin registers itself."""
    for unit in ("evaluate.pxi", "hint.pxi"):
        code = (SRC / unit).read_text()
        assert "_EVALUATORS.index(" not in code, unit
        for name in EVALUATORS:
            if name != "net":  # the composite is the seam's own
                assert f'register_twin("{name}"' not in code, (unit, name)
    for facts in BUILTINS:
        units = [p.name for p in SRC.rglob("*.pxi") if f'register_twin("{facts.name}",' in p.read_text()]
        assert len(units) == 1, (facts.name, units)


@pytest.mark.parametrize("facts", BUILTINS, ids=lambda facts: facts.name)
def test_the_functions_the_facts_name_exist(facts: BuiltinFacts) -> None:
    """A twin and a table maker are named by ``"module:function"`` (the facts import neither: they sit below
    both): each names a function of the reference (its twin) and of the engine's evaluation (its tables)."""
    for package, where in (("nardy_fast.reference", facts.twin), ("nardy_fast.evaluation", facts.tables)):
        if where is None:
            continue
        module, _, function = where.partition(":")
        assert callable(getattr(importlib.import_module(f"{package}.{module}"), function)), where


def test_the_facts_are_what_the_engine_reads() -> None:
    assert EVALUATORS == tuple(facts.name for facts in BUILTINS)
    assert Builtin("pubeval").served() == ("short",)
    assert Builtin("heuristic").served() is None and Builtin("net").served() is None
    assert shipped("long").served() == ("long",)
    assert CompositeBuiltin("net", Builtin("pubeval")).served() == ("short",)
    assert CompositeBuiltin("net", shipped("long")).served() == ("long",)
    assert [name for name in EVALUATORS if Builtin(name).facts.races_only] == ["race"]
    assert [name for name in EVALUATORS if Builtin(name).facts.by_parent] == ["pubeval"]
    assert set(CONTACT_KINDS) == {"network", "heuristic", "pubeval"}
    rows = nardy_fast.Position.start("short").to_array()[None, :]
    kernels = REFERENCE.Position.kernels
    assert tables_for(kernels, Builtin("heuristic"), rows) is None
    assert tables_for(kernels, Builtin("pubeval"), rows) is None
    assert tables_for(kernels, Builtin("network"), rows) == shipped("short").tables
    assert tables_for(kernels, Builtin("network"), rows[:0]) is None


def test_a_network_is_a_frozen_dataclass_of_its_fields() -> None:
    network = shipped("short")
    assert dataclasses.is_dataclass(network) and isinstance(network, Builtin)
    names = {field.name for field in dataclasses.fields(network)}
    assert {"name", "variant", "hidden", "training", "sha256"} <= names
    for name in ("variant", "sha256", "other"):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(network, name, "x")
        with pytest.raises(dataclasses.FrozenInstanceError):
            delattr(network, name)
    assert network.name == "network" and network.kind == EVALUATORS.index("network")
    assert network == network and network != Network.load(nardy_fast.evaluation.network.shipped_path("short"))


# --- a new built-in evaluator through the seam ----------------------------------------------------------------

#: Two evaluators the package does not have, of facts alone over twins it has: the heuristic for long nardy
#: only, and the race evaluator's values under another name (races only, its tables made by the engine's race
#: module).
FAKES = (
    BuiltinFacts("longheuristic", "heuristic:heuristic_evaluate", serves=("long",)),
    BuiltinFacts("race2", "race_eval:race_evaluate", races_only=True, tables="race:tables_of"),
)


@pytest.fixture
def fakes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fakes registered as a new entry of BUILTINS is: the facts the engine and the reference read."""
    builtins = (*BUILTINS, *FAKES)
    monkeypatch.setattr(builtin_module, "BUILTINS", builtins)
    monkeypatch.setattr(builtin_module, "EVALUATORS", tuple(facts.name for facts in builtins))
    monkeypatch.setattr(reference_evaluate, "BUILTINS", builtins)


def played(variant: str) -> Rows:
    _, trajectories = nardy_fast.playout(variant, 4, seed=11, trajectories=True)
    return np.ascontiguousarray(trajectories.rows)


@pytest.mark.usefixtures("fakes")
def test_a_new_builtin_needs_no_change_to_the_engine() -> None:
    long_rows, short_rows = played("long"), played("short")
    fake = Builtin("longheuristic")
    assert fake.kind == len(BUILTINS)
    assert np.array_equal(REFERENCE.evaluate(long_rows, fake), REFERENCE.evaluate(long_rows, "heuristic"))
    with pytest.raises(NardyError, match=r"^evaluator: evaluates long nardy only \(rows\[0\] is short\)"):
        REFERENCE.evaluate(short_rows, fake)
    position = REFERENCE.Position.from_array(long_rows[6])
    assert position.hint((5, 2), evaluator=fake, plies=1) == position.hint((5, 2), evaluator="heuristic", plies=1)

    race = Builtin("race2")
    # races not yet bear-offs: the reference would build the bear-off tables of 15 checkers, very slowly
    races = long_rows[layout.is_race(long_rows) & ~layout.is_bearoff(long_rows)]
    assert len(races)
    assert np.array_equal(REFERENCE.evaluate(races, race), REFERENCE.evaluate(races, "race"))
    contact = long_rows[~layout.is_race(long_rows) & ~layout.is_over(long_rows)][:3]

    def refused(evaluator: object) -> str:
        with pytest.raises(NardyError) as caught:
            REFERENCE.evaluate(contact, evaluator)
        return str(caught.value)

    assert refused(race) == refused("race").replace("'race'", "'race2'")


@pytest.mark.skipif(CORE is None, reason="the core is not built")
def test_the_core_refuses_a_kind_no_twin_registered() -> None:
    rows = played("short")[:2]
    out = np.zeros((len(rows), 5))
    with pytest.raises(NardyError, match=r"^evaluator: is not a built-in evaluator"):
        CORE._core.evaluate_rows(rows, len(BUILTINS), None, out)
