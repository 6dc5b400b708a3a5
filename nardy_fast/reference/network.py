"""The reference's network evaluator (docs/rules.md, Evaluation): the twin of ``network_evaluate`` in
``src_pyx/evaluators/network.pxi``. The network, its inputs and the order of its arithmetic are in
:mod:`nardy_fast.evaluation.network` (read its docstring first); this module follows that order with NumPy,
many rows at once, so that both implementations give the same bits.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from ..encodings import NUMPY_ENCODERS, SCHEMES
from ..evaluation.constants import NETWORK_SCHEMES, POINT_FEATURES

__all__ = ["network_evaluate"]


def _sigmoid(total: npt.NDArray[np.float32]) -> npt.NDArray[np.float64]:
    """The logistic of float32 sums, taken in float64 with the C library's ``exp`` (``math.exp``), the one
    the core calls (NumPy's own ``exp`` may differ from it in the last bit)."""
    flat = [_logistic(float(v)) for v in total.reshape(-1)]
    return np.array(flat, dtype=np.float64).reshape(total.shape)


def _logistic(v: float) -> float:
    try:
        return 1.0 / (1.0 + math.exp(-v))
    except OverflowError:  # C's exp is infinite there
        return 0.0


def network_evaluate(rows: npt.NDArray[np.int8], tables: object) -> npt.NDArray[np.float64]:
    """The outputs (n, 5) of the network ``tables`` (``Network.tables``: ``w1, b1, w2, b2`` are read) for
    unfinished checked rows (n, 64), each for its side to move."""
    w1, b1, w2, b2 = tables[:4]  # type: ignore[index]
    scheme = next(name for name in NETWORK_SCHEMES if SCHEMES[name].features == w1.shape[0])
    x = NUMPY_ENCODERS[scheme](rows)
    hidden = np.repeat(b1[None, :], len(rows), axis=0)
    for point in range(24):
        # the point's term: the units of the side holding it (the other side's are 0), from 0, in unit order
        mine = x[:, 4 * point : 4 * point + 4]
        theirs = x[:, 96 + 4 * point : 96 + 4 * point + 4]
        held = (theirs[:, 0] > 0)[:, None]
        units = np.where(held, theirs, mine)
        weights = (w1[4 * point : 4 * point + 4], w1[96 + 4 * point : 96 + 4 * point + 4])
        term = np.zeros_like(hidden)
        for u in range(4):
            term += units[:, u : u + 1] * np.where(held, weights[1][u][None, :], weights[0][u][None, :])
        hidden += term
    for j in range(POINT_FEATURES, x.shape[1]):
        hidden += x[:, j : j + 1] * w1[j][None, :]
    h = np.maximum(hidden, np.float32(0))
    total = np.repeat(b2[None, :], len(rows), axis=0)
    for k in range(h.shape[1]):
        total += h[:, k : k + 1] * w2[:, k][None, :]
    out = _sigmoid(total)
    # nested, each output capped by the one it must not exceed
    out[:, 1] = np.minimum(out[:, 1], out[:, 0])
    out[:, 2] = np.minimum(out[:, 2], out[:, 1])
    out[:, 3] = np.minimum(out[:, 3], 1.0 - out[:, 0])
    out[:, 4] = np.minimum(out[:, 4], out[:, 3])
    return out
