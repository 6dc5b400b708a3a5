"""The environments' picture of a position for ``render_mode="rgb_array"``: the position's SVG
(:meth:`nardy_fast.Position.to_svg`) turned into pixels by cairosvg, which the ``png`` extra installs (with
Pillow, which reads the pixels back); without it the render mode is refused when the environment is made."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import numpy.typing as npt

from ..position import Position

__all__ = ["RGB_WIDTH", "PNG_EXTRA", "check_rgb_support", "rgb_array"]

#: The width in pixels of an ``rgb_array`` frame (the height follows the board's proportions).
RGB_WIDTH = 600
#: What the ``rgb_array`` render mode needs, and how to install it.
PNG_EXTRA = (
    'render_mode="rgb_array" needs cairosvg and Pillow (the png extra): from a clone, pip install -e ".[png]";'
    ' from a wheel, pip install "<the wheel file>[png]" (or pip install "cairosvg>=2.7")'
)


def _modules() -> tuple[Any, Any]:
    """cairosvg and Pillow's ``Image``, or an ``ImportError`` naming the extra. cairosvg loads the Cairo
    library when imported: a missing library is an ``OSError``, and it names the extra just the same."""
    try:
        import cairosvg  # type: ignore[import-untyped, import-not-found, unused-ignore]
        from PIL import Image
    except (ImportError, OSError) as error:
        raise ImportError(f"{PNG_EXTRA} ({type(error).__name__}: {error})") from error
    return cairosvg, Image


def check_rgb_support() -> None:
    """Raise the ``ImportError`` of :func:`rgb_array` now, when the render mode is chosen."""
    _modules()


def rgb_array(position: Position, width: int = RGB_WIDTH) -> npt.NDArray[np.uint8]:
    """``position`` drawn as an RGB image, an array (height, ``width``, 3) of ``uint8``: White at the bottom,
    as :meth:`~nardy_fast.Position.to_svg` draws it."""
    cairosvg, image_module = _modules()
    png = cairosvg.svg2png(bytestring=position.to_svg(size=width).encode("utf-8"))
    with image_module.open(io.BytesIO(png)) as image:
        pixels: npt.NDArray[np.uint8] = np.array(image.convert("RGB"), dtype=np.uint8)
    return pixels
