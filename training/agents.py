"""The one agent protocol used by evaluation, play and training opponents.

An agent is any object with ``act(observation, action_mask) -> int`` (``observation`` is the
env's ``obs["observation"]`` vector, ``action_mask`` its int8 mask) and optionally ``reset()``,
called at the start of every episode.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int: ...


class RandomAgent:
    """Uniformly random legal actions, reproducible with a seed."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        pass

    def act(self, observation, action_mask) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("RandomAgent got an empty action mask: this seat is not acting")
        return int(legal[self.rng.integers(legal.size)])
