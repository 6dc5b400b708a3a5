"""Test ids that are the same in every process: ``repr`` without the addresses some objects print
(pytest-xdist's workers must collect the same ids)."""

from __future__ import annotations

import re

__all__ = ["stable_repr"]


def stable_repr(value: object) -> str:
    """``repr(value)`` with every `` at 0x...`` address left out."""
    return re.sub(r" at 0x[0-9a-fA-F]+", "", repr(value))
