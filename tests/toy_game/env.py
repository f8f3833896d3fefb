"""High card as a PettingZoo AEC env: the base class does the rest."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from cardzoo.envs.base import CardGameEnv
from cardzoo.envs.cards import cards_str
from cardzoo.envs.config import build_config
from tests.toy_game import actions, encoding
from tests.toy_game.config import HighCardConfig
from tests.toy_game.engine import HighCardEngine


class HighCardEnv(CardGameEnv):
    metadata: ClassVar[dict[str, Any]] = {
        "name": "highcard_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
        "render_fps": 1,
    }
    num_actions, max_players, obs_size = actions.NUM_ACTIONS, encoding.MAX_PLAYERS, encoding.LAYOUT.size
    game_name = "highcard"
    engine_class = HighCardEngine
    engine: HighCardEngine

    def __init__(self, render_mode=None, max_steps=None, **options):
        super().__init__(build_config(HighCardConfig, "highcard", **options), render_mode, max_steps)

    def _new_engine(self, rng, deck):
        return HighCardEngine(self.config, rng, deck)

    def _encode(self, seat: int) -> np.ndarray:
        return encoding.encode(self.engine, seat)

    def _action_text(self, action: int) -> str:
        return actions.action_text(action)

    def _render_text(self) -> str:
        e = self.engine
        return "\n".join(
            [f"trick: {cards_str(c for c, _ in e.trick)}"]
            + [f"player_{s}: {cards_str(sorted(h))} ({e.scores[s]:+.2f})" for s, h in enumerate(e.hands)]
        )
