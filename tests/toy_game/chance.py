"""Chance in high card (envs/chance.py): the deal, nothing after it."""

from __future__ import annotations

import numpy as np

from cardzoo.envs.chance import ChanceEvent, ChanceModel
from tests.toy_game.engine import HighCardEngine

TABLE, GONE = 0, 1  # shared places: the trick on the table, cards out of play


class HighCardChance(ChanceModel):
    shared = 2
    seat_numbers = 1  # score so far

    def state(self, e: HighCardEngine) -> tuple[np.ndarray, np.ndarray]:
        loc = np.full(self.deck, self.shared_place(GONE), dtype=np.int64)
        loc[e.rest] = self.pool
        for s, hand in enumerate(e.hands):
            loc[hand] = s
        loc[[c for c, _ in e.trick]] = self.shared_place(TABLE)
        return loc, np.asarray(e.scores, dtype=float)

    def deal_events(self, e: HighCardEngine) -> list[ChanceEvent]:
        """The hands were dealt from the cards of the deck (all 52, or a stacked deck's)."""
        start = np.full(self.deck, self.shared_place(GONE), dtype=np.int64)
        dest_of = {c: s for s, hand in enumerate(e.hands) for c in hand}
        start[list(dest_of) + e.rest] = self.pool
        return [self.dealt(np.asarray(e.scores, dtype=float), dest_of, start)]

    def step_events(self, before, action, after) -> list[ChanceEvent]:
        return []
