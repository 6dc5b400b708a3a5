"""The cube players' strategies and answers, the facts (docs/rules.md, The doubling cube): the names a
:class:`~nardy_fast.policies.Greedy` takes for its cube actions, the codes of the answers to a double, and
wildbg's fixed thresholds, shared by the engine's cube players (:mod:`nardy_fast.cubeplay`, which says what
each strategy does) and the compiled core's game loop, which plays the same strategies.
"""

from __future__ import annotations

__all__ = ["STRATEGIES", "RESPONSES", "PASS", "TAKE", "BEAVER", "DOUBLE_WINDOW", "TAKE_BELOW"]

#: The cube strategies of a :class:`~nardy_fast.policies.Greedy`, by their codes (0..3).
STRATEGIES = ("janowski", "money", "threshold", "never")
#: The answers to a double, by their codes (0, 1, 2).
RESPONSES = ("pass", "take", "beaver")
PASS, TAKE, BEAVER = range(3)
#: wildbg's fixed thresholds (before its pull request 42): the doubler's cubeless equity between which it
#: doubles, and below which the other side takes.
DOUBLE_WINDOW = (0.4, 0.6)
TAKE_BELOW = 0.5
