"""A package that explains itself: the top-level namespace is ``__all__``, the module and ``Position`` docstrings
carry examples that run, both implementations show the same documentation, a finished game has no moves
however it is asked, a move written in the wrong numbering says so, and the numbering helpers convert points
as docs/rules.md says."""

from __future__ import annotations

import doctest
import inspect
import os
import pydoc
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from conftest import IMPLEMENTATIONS

import nardy_fast
import nardy_fast.position
from nardy_fast import IllegalMoveError, InvalidDiceError, NardyError, _dispatch, to_own, to_white

Pos = type[nardy_fast.reference.Position]
PACKAGE = Path(nardy_fast.__file__).parent
RULEBOOK = PACKAGE.parent / "docs" / "rules.md"

#: The implementation modules under test (as the ``Position`` fixture narrows them).
MODULES: dict[str, ModuleType] = {
    name: module for name, module in _dispatch.implementations().items() if name in IMPLEMENTATIONS
}


@pytest.fixture(params=sorted(MODULES))
def implementation(request: pytest.FixtureRequest) -> ModuleType:
    """An implementation module under test (``nardy_fast.reference`` or ``nardy_fast.core``)."""
    return MODULES[request.param]


# --- the namespace -----------------------------------------------------------------------------------------


def test_namespace_is_all() -> None:
    shown = [name for name in dir(nardy_fast) if not name.startswith("__")]
    assert sorted(shown) == sorted(nardy_fast.__all__)
    assert len(set(nardy_fast.__all__)) == len(nardy_fast.__all__)
    for name in ("os", "TYPE_CHECKING", "annotations", "board", "state", "position", "_dispatch", "_core"):
        assert name not in shown
    # every listed name exists, and a star import gives exactly these names
    namespace: dict[str, object] = {}
    exec("from nardy_fast import *", namespace)
    assert set(namespace) - {"__builtins__"} == set(nardy_fast.__all__)


def test_public_names_are_documented() -> None:
    for name in nardy_fast.__all__:
        value = getattr(nardy_fast, name)
        if isinstance(value, (str, int, tuple)):
            continue  # constants: documented where they are defined and in the module docstring
        assert (value.__doc__ or "").strip(), f"nardy_fast.{name} has no docstring"


def test_module_docstring_example_runs() -> None:
    doc = nardy_fast.__doc__ or ""
    assert "docs/rules.md" in doc and "playout" in doc and "legal_moves" in doc
    result = doctest.testmod(nardy_fast, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 10 and result.failed == 0


def test_module_docstring_example_runs_on_the_reference() -> None:
    """The same example with the implementation forced to the reference (the choice is made at import)."""
    if nardy_fast.IMPLEMENTATION == "python":
        pytest.skip("the run above used the reference")
    code = (
        "import doctest, nardy_fast\n"
        "assert nardy_fast.IMPLEMENTATION == 'python'\n"
        "result = doctest.testmod(nardy_fast)\n"
        "assert result.attempted >= 10 and result.failed == 0, result\n"
    )
    env = {**os.environ, "NARDY_FAST_IMPLEMENTATION": "python"}
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


def test_help_renders() -> None:
    text = pydoc.render_doc(nardy_fast, renderer=pydoc.plaintext)  # type: ignore[attr-defined]
    assert "Position.start" in text and "docs/rules.md" in text


# --- Position's documentation ------------------------------------------------------------------------------

CONSTRUCTORS = (
    "* ``Position.start(variant, **flags)``",
    "* ``Position.from_text(text)``",
    "* ``Position.from_board(variant, board, *,",
    "* ``Position.from_array(row)``",
    "* ``Position(state)``",
)


def test_position_docstring_leads_with_the_constructors(Position: Pos) -> None:
    lines = inspect.cleandoc(Position.__doc__ or "").splitlines()
    head = lines.index("Constructors:")
    assert head <= 3, "the constructors come right after the one-line summary"
    bullets = [line for line in lines[head + 1 :] if line.startswith("* ")][: len(CONSTRUCTORS)]
    assert [b[: len(c)] for b, c in zip(bullets, CONSTRUCTORS)] == list(CONSTRUCTORS)
    assert "Constructors:" in pydoc.render_doc(Position, renderer=pydoc.plaintext)  # type: ignore[attr-defined]


def test_position_docstring_example_runs(Position: Pos) -> None:
    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner()
    (test,) = finder.find(Position, "Position", globs={"Position": Position})
    assert test.examples
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def _public(cls: type) -> list[str]:
    return sorted(name for name in dir(cls) if not name.startswith("_"))


def test_position_methods_have_one_docstring_for_both() -> None:
    """Every public name of ``Position`` documented, and documented alike in both implementations."""
    found = _dispatch.implementations()
    classes = [module.Position for module in found.values()]
    for name in _public(nardy_fast.position.Position):
        docs = {inspect.cleandoc(getattr(cls, name).__doc__ or "") for cls in classes}
        assert len(docs) == 1 and docs != {""}, f"Position.{name}: {docs}"
    assert {inspect.cleandoc(cls.__doc__ or "") for cls in classes} == {
        inspect.cleandoc(nardy_fast.position.Position.__doc__ or "")
    }


def test_move_attributes_have_one_docstring_for_both() -> None:
    found = _dispatch.implementations()
    if "cython" not in found:
        pytest.skip("the core is not built")
    python = type(found["python"].Position.start("gulbar").legal_moves((3, 1))[0])
    core = type(found["cython"].Position.start("gulbar").legal_moves((3, 1))[0])
    if "docs/rules.md" not in (core.remainder.__doc__ or ""):
        pytest.skip("the core was built before its docstrings changed: rebuild it")
    assert _public(python) == _public(core)
    for name in _public(python):
        # inspect.getdoc reads the docstrings of __slots__ given as a dict (what help() shows)
        doc = inspect.getdoc(getattr(python, name))
        assert doc and doc == inspect.getdoc(getattr(core, name)), name
    assert inspect.cleandoc(python.__doc__ or "") == inspect.cleandoc(core.__doc__ or "")


# --- references point into docs/rules.md -------------------------------------------------------------------


def _sources() -> list[Path]:
    found = sorted(PACKAGE.rglob("*.py")) + sorted(PACKAGE.rglob("*.txt"))
    core_sources = PACKAGE.parent / "src_pyx"
    if core_sources.is_dir():  # the source tree (not an installed wheel)
        found += [p for p in sorted(core_sources.iterdir()) if p.suffix in (".pyx", ".pxi", ".pxd", ".h")]
    return found


#: How the sources cited the rules document the package was first written from, which is not in the
#: repository (spelled in pieces, so that this file does not match them itself).
OUTSIDE_MARKS = ("RUL" + "ES", "\u00a7")


def test_no_reference_to_an_outside_rules_document() -> None:
    for path in _sources():
        text = path.read_text(encoding="utf-8")
        assert not any(mark in text for mark in OUTSIDE_MARKS), (
            f"{path} cites a rules document outside the repository"
        )


def test_references_name_sections_of_docs_rules() -> None:
    if not RULEBOOK.is_file():
        pytest.skip("docs/rules.md is not here (an installed wheel)")
    headings = [
        m.group(1) for m in re.finditer(r"^#+ (.+)$", RULEBOOK.read_text(encoding="utf-8"), re.MULTILINE)
    ]
    cited = 0
    for path in _sources():
        text = re.sub(r"\s*\n\s*(?:#:?)?\s*", " ", path.read_text(encoding="utf-8"))
        for match in re.finditer(r"docs/rules\.md, ([A-Z][A-Za-z' -]+)", text):
            name = match.group(1)
            assert any(name.startswith(heading) for heading in headings), f"{path}: no section {name!r}"
            cited += 1
    assert cited > 30


# --- a finished game has no moves ----------------------------------------------------------------------------

FINISHED = {
    "long": "long b 12:-15 off=15/0 first=-",
    "sixone": "sixone w 1:3,2:4,3:4,4:4 off=0/15 first=-",
    "short": "short b 1:-2,6:-3,20:-10 off=15/0 first=-",
    "gulbar": "gulbar b 12:-15 off=15/0 first=-",
    "crazy": "crazy w 13:5,24:10 off=0/15 first=-",
}


@pytest.mark.parametrize("variant", sorted(FINISHED))
def test_finished_game_has_no_moves(Position: Pos, variant: str) -> None:
    over = Position.from_text(FINISHED[variant])
    assert over.is_over()
    assert over.legal_moves() == []
    assert over.legal_moves(None) == []
    assert over.legal_moves((3, 1)) == []
    assert over.legal_moves(np.array([6, 6])) == []
    assert over.legal_moves(max_results=3) == []
    with pytest.raises(InvalidDiceError, match=r"^dice: must be two die values 1\.\.6 \(got \(7, 1\)\)$"):
        over.legal_moves((7, 1))  # a roll given is still checked
    with pytest.raises(NardyError, match=r"^max_results:"):
        over.legal_moves(max_results=0)
    winner = "White" if over.off[0] == 15 else "Black"
    for dice in (None, (3, 1)):
        with pytest.raises(IllegalMoveError, match=rf"^move: the game is over \({winner} has won\): no move"):
            over.play("pass", dice)


def test_finished_rows_have_no_children(implementation: ModuleType) -> None:
    rows = np.stack([implementation.Position.from_text(text).to_array() for text in FINISHED.values()])
    for row in rows:
        assert implementation.children(row).shape == (0, nardy_fast.WIDTH)
        assert implementation.children(row, None).shape == (0, nardy_fast.WIDTH)
        assert implementation.children(row, (6, 5)).shape == (0, nardy_fast.WIDTH)
    children, offsets, keys = implementation.batch_children(rows, (0, 0))
    assert len(children) == len(keys) == 0 and offsets.tolist() == [0] * (len(rows) + 1)
    # with a row that plays its pending list, and one that needs a roll
    pending = implementation.Position.from_text("gulbar b 3:-2,4:7,5:7,8:1,12:-13 first=- pending=5")
    mixed = np.stack([rows[0], pending.to_array(), rows[2]])
    children, offsets, _ = implementation.batch_children(mixed, [(0, 0), (0, 0), (0, 0)])
    assert offsets.tolist() == [0, 0, len(pending.legal_moves()), len(pending.legal_moves())]
    assert len(children) == len(pending.legal_moves())
    needs_roll = np.stack([rows[0], implementation.Position.start("short").to_array()])
    with pytest.raises(
        InvalidDiceError, match=r"^rolls\[1\]: must be two die values 1\.\.6 \(got \(0, 0\)\)$"
    ):
        implementation.batch_children(needs_roll, (0, 0))
    with pytest.raises(InvalidDiceError, match=r"^rolls\[0\]: must be two die values 1\.\.6"):
        implementation.children(implementation.Position.start("long").to_array())


def test_finished_row_is_checked_before_it_is_excused(implementation: ModuleType) -> None:
    """A row that only claims a finished game (15 off, but 16 checkers) is still an invalid position."""
    row = implementation.Position.from_text(FINISHED["long"]).to_array()
    row[0] = 1  # a White checker on point 1 as well: 16 White checkers
    with pytest.raises(NardyError, match=r"^positions\[0\]: board: White has 1 on the board, 0 on the bar"):
        implementation.children(row)


# --- the numbering hint --------------------------------------------------------------------------------------

HINT = "(moves use the mover's own numbering: Black's point {own} is White's {white}; see docs/rules.md, {section})"


def test_black_move_in_whites_numbering_gets_a_hint(Position: Pos) -> None:
    section = "The mover's numbering pitfall"
    if RULEBOOK.is_file():
        assert f"### {section}" in RULEBOOK.read_text(encoding="utf-8")
    # White opened 24/18 18/13; Black's head is its own 24 = White's 12. "12/6" names White's numbers.
    black = Position.from_text("long b 12:-15,13:1,24:14 first=b")
    hint = HINT.format(own=12, white=24, section=section)
    expected = f"move: has no checker to move from 12 {hint} (got '12/6 12/6')"
    with pytest.raises(IllegalMoveError) as caught:
        black.play("12/6 12/6", (6, 6))
    assert str(caught.value) == expected
    # a landing point: Black's own 12 is White's 24, where White has 14 checkers
    with pytest.raises(IllegalMoveError) as caught:
        black.play("24/18 18/12", (6, 6))
    assert "lands on the closed point 12 " + HINT.format(own=12, white=24, section=section) in str(
        caught.value
    )
    # short nardy: Black's own 12 is White's 13
    short = Position.from_text("short b 1:-2,6:5,8:3,12:-5,13:5,17:-3,19:-5,24:2 first=b")
    with pytest.raises(IllegalMoveError) as caught:
        short.play("20/15", (5, 1))
    assert HINT.format(own=20, white=5, section=section) in str(caught.value)


def test_white_gets_no_numbering_hint(Position: Pos) -> None:
    """White's own numbering is White's numbering: nothing to hint."""
    with pytest.raises(IllegalMoveError) as caught:
        Position.start("long").play("13/7", (6, 5))
    assert str(caught.value) == "move: has no checker to move from 13 (got '13/7')"


# --- converting points between numberings --------------------------------------------------------------------

#: (point in Black's own numbering, the same point in White's), from docs/rules.md, The mover's numbering: in
#: the long family Black's b is White's b+12 (b <= 12) or b-12; in short nardy 25-b. Worked by hand from the
#: two board drawings there (Black's head, its own 24, is White's 12 in the long family, White's 1 in short).
BLACK_TO_WHITE = {
    "long": [(24, 12), (13, 1), (12, 24), (1, 13), (6, 18), (19, 7)],
    "short": [(24, 1), (13, 12), (12, 13), (1, 24), (6, 19), (19, 6)],
}


@pytest.mark.parametrize("variant", nardy_fast.VARIANTS)
def test_to_white_and_to_own(variant: str) -> None:
    table = BLACK_TO_WHITE["short" if variant == "short" else "long"]
    for own, white in table:
        assert to_white(own, "black", variant) == white
        assert to_own(white, "black", variant) == own
    for point in range(1, 25):
        assert to_white(point, "white", variant) == to_own(point, "white", variant) == point
        assert to_own(to_white(point, "black", variant), "black", variant) == point
    assert sorted(to_white(point, "black", variant) for point in range(1, 25)) == list(range(1, 25))


def test_conversion_agrees_with_the_moves(Position: Pos) -> None:
    """Black's first 6-5 from its head, its own 24/18 18/13, lands where ``to_white`` says."""
    for variant in ("long", "short"):
        start = Position.start(variant)
        black = start.play("24/18 18/13", (6, 5))
        after = black.play("24/18 18/13", (6, 5))
        changed = {i + 1 for i in range(24) if after.board[i] != black.board[i]}
        assert changed == {to_white(24, "black", variant), to_white(13, "black", variant)}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((0, "black", "long"), "point: must be an integer 1..24 (got 0)"),
        ((25, "white", "short"), "point: must be an integer 1..24 (got 25)"),
        ((True, "white", "long"), "point: must be an integer 1..24 (got True)"),
        (("12", "white", "long"), "point: must be an integer 1..24 (got '12')"),
        ((12.0, "white", "long"), "point: must be an integer 1..24 (got 12.0)"),
        ((12, "red", "long"), "side: must be 'white' or 'black' (got 'red')"),
        ((12, "w", "long"), "side: must be 'white' or 'black' (got 'w')"),
        (
            (12, "black", "backgammon"),
            "variant: must be one of ('long', 'sixone', 'short', 'gulbar', 'crazy')",
        ),
    ],
)
def test_conversion_errors(args: tuple[object, object, object], message: str) -> None:
    for convert in (to_white, to_own):
        with pytest.raises(NardyError) as caught:
            convert(*args)  # type: ignore[arg-type]
        assert str(caught.value).startswith(message)


def test_conversion_takes_numpy_integers() -> None:
    assert to_white(np.int64(24), "black", "crazy") == 12
    assert type(to_own(np.int8(1), "black", "short")) is int
