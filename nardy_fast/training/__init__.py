"""Training networks by self-play (docs/rules.md, Training): TD(lambda) targets over the games
(:mod:`~nardy_fast.training.targets`), the arithmetic of learning (:mod:`~nardy_fast.training.model`) and
the training loop with its checkpoints and log (:mod:`~nardy_fast.training.trainer`)."""

from __future__ import annotations

from .trainer import TrainingConfig, check_config, train

__all__ = ["TrainingConfig", "check_config", "train"]
