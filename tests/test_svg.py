"""Board pictures: ``Position.to_svg`` (checked as XML and as rendered pixels), ``str(position)``, and the
committed pictures of ``docs/images/``.

Where checkers must be is worked out here from the position's board, bar and off counts and from the
numberings of docs/rules.md (via :func:`nardy_fast.to_own`); only the coordinates of a place on the picture
come from the drawing's geometry functions (:mod:`nardy_fast.svg`).
"""

from __future__ import annotations

import importlib.util
import io
import random
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any, Optional

import pytest

import nardy_fast
from nardy_fast import NardyError, to_own
from nardy_fast import svg as drawing
from nardy_fast._dispatch import implementations
from nardy_fast.game import Game
from nardy_fast.position import Move
from nardy_fast.position import Position as BasePosition

Pos = type[BasePosition]
NS = "{http://www.w3.org/2000/svg}"
ROOT = Path(__file__).resolve().parent.parent
VARIANTS = ("long", "sixone", "short", "gulbar", "crazy")


def parse(picture: str) -> ET.Element:
    return ET.fromstring(picture)


def rgb(colour: str) -> tuple[int, int, int]:
    return (int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16))


class Rendered:
    """A picture rendered at one pixel per ``viewBox`` unit, read pixel by pixel."""

    def __init__(self, picture: str) -> None:
        cairosvg: Any = pytest.importorskip("cairosvg")
        image: Any = pytest.importorskip("PIL.Image")
        png = cairosvg.svg2png(bytestring=picture.encode("utf-8"))
        self.image = image.open(io.BytesIO(png)).convert("RGB")
        assert self.image.size == (drawing.VIEW_WIDTH, drawing.VIEW_HEIGHT)

    def at(self, centre: tuple[float, float]) -> tuple[int, int, int]:
        pixel: tuple[int, int, int] = self.image.getpixel((round(centre[0]), round(centre[1])))
        return pixel

    def shows(self, centre: tuple[float, float], *names: str) -> bool:
        """Whether the pixel at ``centre`` has one of the named colours of ``svg.COLOURS``."""
        pixel = self.at(centre)
        return any(max(abs(a - b) for a, b in zip(pixel, rgb(drawing.COLOURS[n]))) <= 3 for n in names)


def render(position: BasePosition, flip: bool = False) -> Rendered:
    return Rendered(position.to_svg(flip=flip, size=drawing.VIEW_WIDTH))


def label(white_point: int, variant: str, flip: bool) -> int:
    """The label of White's point in the numbering of the side at the bottom (docs/rules.md)."""
    return to_own(white_point, "black", variant) if flip else white_point


def sample_positions(Position: Pos) -> list[BasePosition]:
    """Starts, hand-made positions with a bar, borne-off checkers and a pending list, and positions from
    games played with random choices."""
    positions: list[BasePosition] = [Position.start(v) for v in VARIANTS]
    positions += [
        Position.from_text("short w 6:6,8:4,12:-5,13:4,17:-3,19:-4,21:-1,24:-2 bar=1/0 first=-"),
        Position.from_board("short", [2, 2] + [0] * 16 + [-2, -2, -2, -2, -1, 0], bar=(0, 6), off=(11, 0)),
        Position.from_text("gulbar b 2:-2,4:14,8:1,12:-13 first=- pending=6,6,6,6"),
        Position.from_text("long w 3:1,6:1,18:-15 off=13/0 first=-"),
    ]
    choose = random.Random(5)
    for variant in ("long", "short", "crazy"):
        game = Game(variant, seed=3, position_class=Position)
        for ply in range(60):
            if game.is_over():
                break
            moves = game.legal_moves()
            game.play(moves[choose.randrange(len(moves))])
            if ply in (20, 59):
                positions.append(game.position)
    return positions


# --- the SVG document -----------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("flip", [False, True])
def test_the_picture_is_one_svg_element_without_external_resources(
    Position: Pos, variant: str, flip: bool
) -> None:
    picture = Position.start(variant).to_svg(flip=flip, size=300)
    root = parse(picture)
    assert root.tag == f"{NS}svg"
    assert root.get("viewBox") == f"0 0 {drawing.VIEW_WIDTH} {drawing.VIEW_HEIGHT}"
    assert root.get("width") == "300"
    assert root.get("height") == str(round(300 * drawing.VIEW_HEIGHT / drawing.VIEW_WIDTH))
    for element in root.iter():
        assert element.tag.startswith(NS), element.tag  # SVG elements only
        assert not any("href" in name or name == "id" for name in element.attrib), element.attrib
        assert not any("url(" in value for value in element.attrib.values()), element.attrib
    assert root.findtext(f"{NS}title") == Position.start(variant).to_text()


def test_jupyter_shows_the_picture(Position: Pos) -> None:
    p = Position.start("short")
    assert p._repr_svg_() == p.to_svg()


def test_both_implementations_draw_alike() -> None:
    found = implementations()
    if len(found) < 2:
        pytest.skip("the core is not built")
    python, cython = found["python"].Position, found["cython"].Position
    for text in ("short w 6:6,8:4,12:-5,13:4,17:-3,19:-4,21:-1,24:-2 bar=1/0 first=-", "long w 12:-15,24:15"):
        p, q = python.from_text(text), cython.from_text(text)
        roll = (4, 1)
        for m, n in zip(p.legal_moves(roll), q.legal_moves(roll)):
            assert p.to_svg(move=m, flip=True) == q.to_svg(move=n, flip=True)
            assert p.to_svg(move=n) == q.to_svg(move=m)  # a move of an equal position of the other kind
        assert str(p) == str(q)


# --- pixels ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("flip", [False, True])
def test_checkers_are_where_the_board_puts_them(Position: Pos, flip: bool) -> None:
    for position in sample_positions(Position):
        picture = render(position, flip)
        bottom = "black" if flip else "white"
        for white_point in range(1, 25):
            count = position.board[white_point - 1]
            colour = "white" if count > 0 else "black"
            n = label(white_point, position.variant, flip)
            where = (position.to_text(), white_point)
            for index in range(drawing.VISIBLE):
                centre = drawing.point_centre(n, index)
                if index < abs(count) and not (index == drawing.VISIBLE - 1 and abs(count) > drawing.VISIBLE):
                    assert picture.shows(centre, colour), where  # (the last may carry the stack's count)
                elif index >= abs(count):
                    assert picture.shows(centre, "point_a", "point_b", "board"), where
        for side, on_bar, off in zip(("white", "black"), position.bar, position.off):
            for index in range(min(on_bar, drawing.VISIBLE - 1)):
                assert picture.shows(drawing.bar_centre(side == bottom, index), side), position.to_text()
            if on_bar == 0:
                assert picture.shows(drawing.bar_centre(side == bottom, 0), "bar"), position.to_text()
            for index in range(15):
                expected = side if index < off else "tray"
                place = drawing.off_centre(side == bottom, index)
                assert picture.shows(place, expected), (position.to_text(), side, index)


def test_flipping_moves_whites_checkers_to_the_other_half(Position: Pos) -> None:
    # docs/rules.md: White's head is White's 24 (top right as White sees the board), which is Black's 12 in
    # the long family (bottom left as Black sees it); in short nardy White's 24 is Black's 1 (bottom right)
    long, short = Position.start("long"), Position.start("short")
    middle = drawing.VIEW_HEIGHT / 2
    white_head = drawing.point_centre(24, 0)
    assert white_head[1] < middle
    assert render(long).shows(white_head, "white") and render(long, True).shows(white_head, "black")
    flipped_head = drawing.point_centre(12, 0)
    assert flipped_head[1] > middle and flipped_head[0] < white_head[0]
    assert render(long, True).shows(flipped_head, "white") and render(long).shows(flipped_head, "black")
    corner = drawing.point_centre(1, 0)
    assert corner[1] > middle and corner[0] == white_head[0]
    assert render(short, True).shows(corner, "white") and render(short, True).shows(white_head, "black")
    assert render(short).shows(corner, "black")


def test_each_label_stands_by_its_point(Position: Pos) -> None:
    for flip in (False, True):
        root = parse(Position.start("long").to_svg(flip=flip))
        labels = {
            int(t.text): t
            for t in root.iter(f"{NS}text")
            if t.text and t.text.isdigit() and not t.get("class")
        }
        assert sorted(labels) == list(range(1, 25))
        for number, text in labels.items():
            x, y = drawing.point_centre(number, 0)
            below = float(text.get("y") or 0) > y  # a bottom point's label is under it, a top one's above
            assert float(text.get("x") or 0) == x and below == (number <= 12)


# --- arrows and stacks ------------------------------------------------------------------------------------


def arrow_cases(Position: Pos) -> Iterator[tuple[BasePosition, Move]]:
    cases: list[tuple[str, Optional[tuple[int, int]]]] = [
        ("short w 1:-2,6:5,8:3,12:-5,13:5,17:-3,19:-5,24:2", (6, 5)),
        ("short w 6:6,8:4,12:-5,13:4,17:-3,19:-4,21:-1,24:-2 bar=1/0 first=-", (4, 1)),
        ("long w 12:-15,24:15", (4, 4)),
        ("long b 12:-15,13:1,24:14 first=b", (6, 6)),
        ("long w 2:1,5:1,13:-15 off=13/0 first=-", (5, 4)),
        ("gulbar b 3:-2,4:7,5:7,8:1,12:-13 first=- pending=5", None),
        ("short w 6:5,8:3,12:-5,13:5,17:-3,19:-5,24:-2 bar=2/0 first=-", (6, 4)),
        ("short b 1:2,6:2,19:-2,20:-2,21:-2,22:-2,23:-1 bar=0/6 off=11/0 first=-", (6, 6)),  # a pass
    ]
    for text, roll in cases:
        p = Position.from_text(text)
        for move in p.legal_moves(roll):
            yield p, move


def test_each_step_of_a_move_has_its_arrow(Position: Pos) -> None:
    seen = 0
    for p, move in arrow_cases(Position):
        for flip in (False, True):
            root = parse(p.to_svg(move=move, flip=flip))
            arrows = [g for g in root.iter(f"{NS}g") if g.get("class") == "arrow"]
            assert [g.get("data-step") for g in arrows] == [str(step) for step in move.steps], str(move)
            if not move.steps:
                continue
            seen += 1
            # the first arrow leaves the mover's topmost checker and ends where that checker lands
            step = move.steps[0]
            mine = [max(0, c if p.turn == "white" else -c) for c in p.board]
            bottom = (p.turn == "white") != flip
            side = 0 if p.turn == "white" else 1
            if step.src == 25:
                start = drawing.bar_centre(bottom, min(p.bar[side] - 1, drawing.VISIBLE - 1))
            else:
                src = nardy_fast.to_white(step.src, p.turn, p.variant)
                start = drawing.point_centre(label(src, p.variant, flip), min(mine[src - 1] - 1, 4))
            if step.dst == 0:
                end = drawing.off_centre(bottom, p.off[side])
            else:
                dst = nardy_fast.to_white(step.dst, p.turn, p.variant)
                end = drawing.point_centre(label(dst, p.variant, flip), min(mine[dst - 1], 4))
            path = arrows[0].find(f"{NS}path")
            head = arrows[0].find(f"{NS}polygon")
            assert path is not None and head is not None
            assert [float(v) for v in (path.get("d") or "").split()[1:3]] == pytest.approx(start, abs=0.01)
            tip = (head.get("points") or "").split()[0]
            assert [float(v) for v in tip.split(",")] == pytest.approx(end, abs=0.01)
    assert seen > 20


def test_the_arrows_show_on_the_picture(Position: Pos) -> None:
    p = Position.start("long")
    (move,) = p.legal_moves((6, 5))  # 24/18 18/13: the arrow's head ends on White's 13, an empty point
    tip = drawing.point_centre(13, 0)
    assert render(p).shows(tip, "point_a", "point_b")
    assert not Rendered(p.to_svg(move=move, size=drawing.VIEW_WIDTH)).shows(tip, "point_a", "point_b")


def test_taller_stacks_show_their_count(Position: Pos) -> None:
    for position in sample_positions(Position):
        root = parse(position.to_svg())
        counts = sorted(int(t.text or "") for t in root.iter(f"{NS}text") if t.get("class") == "count")
        tall = [abs(c) for c in (*position.board, *position.bar) if abs(c) > drawing.VISIBLE]
        assert counts == sorted(tall), position.to_text()
    # by hand: the long start's two heads of 15, the short start's stacks of at most 5
    assert _counts(Position.start("long")) == ["15", "15"]
    assert _counts(Position.start("short")) == []
    assert _counts(Position.from_text("gulbar b 2:-2,4:14,8:1,12:-13 first=- pending=6,6,6,6")) == [
        "13",
        "14",
    ]


def _counts(position: BasePosition) -> list[str]:
    return sorted(
        t.text or "" for t in parse(position.to_svg()).iter(f"{NS}text") if t.get("class") == "count"
    )


def test_the_side_to_move_and_the_pending_list_are_written(Position: Pos) -> None:
    def texts(position: BasePosition) -> list[str]:
        return [t.text or "" for t in parse(position.to_svg()).iter(f"{NS}text")]

    assert "White to move" in texts(Position.start("long"))
    black = Position.from_text("gulbar b 2:-2,4:14,8:1,12:-13 first=- pending=6,6,6,6")
    assert "Black to move" in texts(black) and "pending 6 6 6 6" in texts(black)
    won = Position.from_text("long w 12:-15 off=15/0 first=-")
    assert "White has won" in texts(won)


# --- bad input --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [0, -5, 1.5, "600", True, None, 10**6])
def test_a_bad_size_is_named(Position: Pos, size: object) -> None:
    with pytest.raises(NardyError, match=r"^size: .*\(got "):
        Position.start("long").to_svg(size=size)  # type: ignore[arg-type]


def test_a_bad_flip_is_named(Position: Pos) -> None:
    with pytest.raises(NardyError, match=r"^flip: "):
        Position.start("long").to_svg(flip="yes")  # type: ignore[arg-type]


def test_a_move_of_another_position_is_refused(Position: Pos) -> None:
    start = Position.start("long")
    other = start.play("24/18 18/13", (6, 5))
    bad: list[object] = [other.legal_moves((3, 1))[0], "24/21 24/23", start.legal_moves]
    for move in bad:
        with pytest.raises(NardyError, match=r"^move: must be one of this position's legal moves"):
            start.to_svg(move=move)  # type: ignore[arg-type]
    assert start.to_svg(size=1).startswith("<svg")  # the smallest size is allowed


def test_an_uninitialised_position_raises(Position: Pos) -> None:
    forged = Position.__new__(Position)
    for draw in (forged.to_svg, forged._repr_svg_, lambda: str(forged)):
        with pytest.raises(NardyError, match="uninitialised"):
            draw()


# --- the text board ---------------------------------------------------------------------------------------

LONG_START_TEXT = """\
long nardy: White to move
   13  14  15  16  17  18 |  19  20  21  22  23  24
    .   .   .   .   .   . |   .   .   .   .   . 15w
  15b   .   .   .   .   . |   .   .   .   .   .   .
   12  11  10   9   8   7 |   6   5   4   3   2   1
off: White 0, Black 0
first roll to come: White and Black"""

# docs/rules.md, Short nardy board, after Bar entry and hitting's first example
SHORT_TEXT = """\
short nardy: White to move
   13  14  15  16  17  18 |  19  20  21  22  23  24
   4w   .   .   .  3b   . |  4b   .  1b   .   .  2b
   5b   .   .   .  4w   . |  6w   .   .   .   .   .
   12  11  10   9   8   7 |   6   5   4   3   2   1
bar: White 1, Black 0
off: White 0, Black 0"""


def test_str_is_a_text_board_and_repr_pastes_back(Position: Pos) -> None:
    start = Position.start("long")
    assert str(start) == LONG_START_TEXT
    assert eval(repr(start), {"Position": Position}) == start
    short = Position.from_text("short w 6:6,8:4,12:-5,13:4,17:-3,19:-4,21:-1,24:-2 bar=1/0 first=-")
    assert str(short) == SHORT_TEXT
    pending = str(Position.from_text("gulbar b 3:-2,4:7,5:7,8:1,12:-13 first=- pending=5"))
    assert pending.splitlines()[0] == "gulbar: Black to move, pending 5"


# --- the committed pictures -------------------------------------------------------------------------------


@cache
def _tool() -> Any:
    path = ROOT / "tools" / "make_pictures.py"
    if not path.exists():  # tools/test_installed.py copies the tests and docs/ of a build, not tools/
        pytest.skip("tools/make_pictures.py is not beside the tests")
    spec = importlib.util.spec_from_file_location("make_pictures", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_pictures_are_what_the_code_draws() -> None:
    pictures: dict[str, Callable[[], str]] = _tool().PICTURES
    assert {f"{v}_start" for v in VARIANTS} <= set(pictures)
    for name, draw in pictures.items():
        path = ROOT / "docs" / "images" / f"{name}.svg"
        assert path.read_text(encoding="utf-8") == draw(), f"{path}: rerun tools/make_pictures.py"
    assert _tool().main(["--check"]) == 0
