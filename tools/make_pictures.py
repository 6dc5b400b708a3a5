"""Write the board pictures of ``docs/images/`` from the current drawing code (``Position.to_svg``).

    python tools/make_pictures.py            # (re)write every picture
    python tools/make_pictures.py --check    # exit 1 if a committed picture differs from what the code draws

``tests/test_svg.py`` runs the check, so a change of the drawing is deliberate: rerun this script and commit
the pictures with it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from nardy_fast import Position

IMAGES = Path(__file__).resolve().parent.parent / "docs" / "images"


def _start(variant: str) -> Callable[[], str]:
    return lambda: Position.start(variant).to_svg()


def _short_hit() -> str:
    """A short-nardy move from the bar that hits (docs/rules.md, Bar entry and hitting), with its arrows."""
    p = Position.from_text("short w 6:6,8:4,12:-5,13:4,17:-3,19:-4,21:-1,24:-2 bar=1/0 first=-")
    (move,) = [m for m in p.legal_moves((4, 1)) if str(m) == "bar/21* 21/20"]
    return p.to_svg(move=move)


def _gulbar_pending() -> str:
    """Black to play four 6s handed over by White's pass (docs/rules.md, Gulbar transfers), tall stacks,
    drawn from Black's side."""
    p = Position.from_text("gulbar b 2:-2,4:14,8:1,12:-13 first=- pending=6,6,6,6")
    return p.to_svg(flip=True)


#: Each picture's file name (without ``.svg``) and how it is drawn. The drawing is shared code: both
#: implementations give the same pictures (the test checks that too).
PICTURES: dict[str, Callable[[], str]] = {
    **{f"{variant}_start": _start(variant) for variant in ("long", "sixone", "short", "gulbar", "crazy")},
    "short_hit": _short_hit,
    "gulbar_pending": _gulbar_pending,
}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args(argv)
    stale = []
    for name, draw in PICTURES.items():
        path = IMAGES / f"{name}.svg"
        picture = draw()
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != picture:
                stale.append(path)
        else:
            IMAGES.mkdir(parents=True, exist_ok=True)
            path.write_text(picture, encoding="utf-8", newline="\n")
            print(f"wrote {path}")
    for path in stale:
        print(f"differs from the drawing code: {path}", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
