"""High card's rule bot."""

from __future__ import annotations

import numpy as np


class RuleBot:
    """Plays its highest card."""

    def __init__(self, config=None, seed=None):
        pass

    def act(self, observation, action_mask) -> int:
        return int(np.flatnonzero(action_mask)[-1])
