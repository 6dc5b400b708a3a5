"""The arithmetic of training a network (docs/rules.md, Training): its forward pass over a batch in float32
matrix products (training needs speed, not the bit-exact order of the evaluator), the gradient of the
cross-entropy of its five outputs against targets in [0, 1], and Adam's update."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["Params", "initial", "gradients", "Adam"]

Params = dict[str, npt.NDArray[np.float32]]


def initial(inputs: int, hidden: int, rng: np.random.Generator) -> Params:
    """Small random weights; the hidden biases start positive so that no unit starts dead."""
    return {
        "w1": rng.normal(0.0, 0.1, (inputs, hidden)).astype(np.float32),
        "b1": np.full(hidden, 0.1, dtype=np.float32),
        "w2": rng.normal(0.0, 0.1, (5, hidden)).astype(np.float32),
        "b2": np.zeros(5, dtype=np.float32),
    }


def _sigmoid(a: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    out: npt.NDArray[np.float32] = (1.0 / (1.0 + np.exp(-np.clip(a, -60, 60)))).astype(np.float32)
    return out


def gradients(
    params: Params, x: npt.NDArray[np.float32], targets: npt.NDArray[np.float32]
) -> tuple[float, Params]:
    """The mean cross-entropy of the outputs against ``targets`` (n, 5) for inputs ``x`` (n, INPUTS), and its
    gradient by parameter."""
    h = np.maximum(x @ params["w1"] + params["b1"], np.float32(0))
    p = _sigmoid(h @ params["w2"].T + params["b2"])
    eps = np.float32(1e-7)
    loss = -float(np.mean(targets * np.log(p + eps) + (1 - targets) * np.log(1 - p + eps))) * 5
    dz = (p - targets) / np.float32(len(x))
    dh = (dz @ params["w2"]) * (h > 0)
    grads = {"w2": dz.T @ h, "b2": dz.sum(axis=0), "w1": x.T @ dh, "b1": dh.sum(axis=0)}
    return loss, {k: v.astype(np.float32) for k, v in grads.items()}


class Adam:
    """Adam (Kingma and Ba) over a network's parameters; its moments and step count are what a checkpoint
    keeps."""

    def __init__(self, params: Params, rate: float, beta1: float = 0.9, beta2: float = 0.999) -> None:
        self.rate, self.beta1, self.beta2 = rate, beta1, beta2
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}
        self.step = 0

    def update(self, params: Params, grads: Params) -> None:
        """One step: ``params`` changed in place."""
        self.step += 1
        c1 = 1.0 - self.beta1**self.step
        c2 = 1.0 - self.beta2**self.step
        for k, g in grads.items():
            self.m[k] = self.beta1 * self.m[k] + (1 - self.beta1) * g
            self.v[k] = self.beta2 * self.v[k] + (1 - self.beta2) * g * g
            params[k] -= (self.rate * (self.m[k] / c1) / (np.sqrt(self.v[k] / c2) + 1e-8)).astype(np.float32)
