"""Runs every test against each implementation that is available (the reference always, the core when built).

Tests take the ``Position`` fixture: the ``Position`` class of the implementation under test. Setting
``NARDY_FAST_IMPLEMENTATION=python|cython`` narrows the run to one implementation.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

import nardy_fast
import nardy_fast.position
import nardy_fast.reference

settings.register_profile(
    "ci", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=50, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

IMPLEMENTATIONS: dict[str, type[nardy_fast.position.Position]] = {"python": nardy_fast.reference.Position}
if nardy_fast.IMPLEMENTATION != "python":
    IMPLEMENTATIONS[nardy_fast.IMPLEMENTATION] = nardy_fast.Position
_forced = os.environ.get("NARDY_FAST_IMPLEMENTATION")
if _forced:
    IMPLEMENTATIONS = {_forced: IMPLEMENTATIONS[_forced]}


@pytest.fixture(params=sorted(IMPLEMENTATIONS), scope="session")
def Position(request: pytest.FixtureRequest) -> type[nardy_fast.reference.Position]:
    """The ``Position`` class of the implementation under test."""
    return IMPLEMENTATIONS[request.param]  # type: ignore[return-value]
