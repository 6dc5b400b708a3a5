"""``python -m nardy_fast``: the bench and perft commands run and print what they promise."""

from __future__ import annotations

import pytest

from nardy_fast.__main__ import main


def test_perft_check_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["perft", "--check"]) == 0
    assert capsys.readouterr().out
