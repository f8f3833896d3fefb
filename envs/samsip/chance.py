"""Chance in Sam Sip (envs/chance.py): every hand's deal (the hands, then the indicator) and every
draw from the stock, each card uniform over the cards whose place nobody knows."""

from __future__ import annotations

import numpy as np

from cardzoo.envs.cards import NUM_STANDARD
from cardzoo.envs.chance import ChanceEvent, ChanceModel, Slot
from cardzoo.envs.samsip.actions import DRAW_STOCK
from cardzoo.envs.samsip.config import DECK_SIZE
from cardzoo.envs.samsip.engine import PHASE_DRAW, SamSipEngine

DEAD, LIVE, INDICATOR, BURIED = range(4)  # shared places: dead discards, the takeable discard, ...


def draw_pool(e: SamSipEngine) -> tuple[int, ...]:
    """The cards the next stock draw may be, each equally likely: the stock above the jokers buried
    at its bottom (P7 redraw; they come last, in a known order), or after a reshuffle all of it."""
    stock = e.stock
    buried = len(e.buried) if e.reshuffles == 0 else 0
    if len(stock) > buried:
        return tuple(sorted(stock[buried:]))
    return (stock[-1],)  # only buried jokers are left: the next one is known


class SamSipChance(ChanceModel):
    deck = DECK_SIZE
    shared = 4
    seat_numbers = 4  # chips / bankroll, still in, dealer, to act
    shared_numbers = 4  # stake / bankroll, hand number / cap, draw phase, stock size / deck

    def state(self, e: SamSipEngine) -> tuple[np.ndarray, np.ndarray]:
        loc = self.empty()
        for s, hand in enumerate(e.hands):
            loc[hand] = s
        loc[e.dead_cards] = self.shared_place(DEAD)
        if e.live >= 0:
            loc[e.live] = self.shared_place(LIVE)
        loc[e.indicator] = self.shared_place(INDICATOR)
        if e.reshuffles == 0 and e.buried:
            loc[e.stock[: len(e.buried)]] = self.shared_place(BURIED)
        return loc, self._numbers(e)

    def _numbers(self, e: SamSipEngine) -> np.ndarray:
        cfg, n = e.config, self.n
        per = np.zeros((n, self.seat_numbers))
        per[:, 0] = np.asarray(e.chips) / cfg.bankroll
        per[:, 1] = e.active
        per[e.dealer, 2] = 1.0
        per[e.turn, 3] = 1.0
        shared = [
            e.stake / cfg.bankroll,
            e.hand_no / cfg.max_hands,
            float(e.phase == PHASE_DRAW),
            len(e.stock) / DECK_SIZE,
        ]
        return np.concatenate([per.ravel(), shared])

    def deal_events(self, e: SamSipEngine) -> list[ChanceEvent]:
        """A hand just dealt: six cards to each seat still in, then the indicator, uniform over the
        cards left (P7 redraw: over those that are no joker)."""
        dest_of = {c: s for s, hand in enumerate(e.hands) for c in hand}
        numbers = self._numbers(e)
        numbers[-1] = 0.0  # the stock's size follows from the jokers the indicator buried
        ev = self.dealt(numbers, dest_of)
        left = [c for c in range(self.deck) if c not in dest_of]
        if e.config.joker_indicator == "redraw":
            left = [c for c in left if c < NUM_STANDARD]
        ev.slots.append(Slot.draw(e.indicator, self.shared_place(INDICATOR), left))
        return [ev]

    def segment(self, e: SamSipEngine) -> int:
        return e.hand_no

    def step_events(self, before: SamSipEngine, action: int, after: SamSipEngine) -> list[ChanceEvent]:
        events = []
        if before.phase == PHASE_DRAW and action == DRAW_STOCK:
            loc, ctx = self.state(before)
            events.append(ChanceEvent(loc, ctx, [Slot.draw(before.stock[-1], before.turn, draw_pool(before))], True))
        if after.hand_no != before.hand_no and not after.done:
            events += self.deal_events(after)
        return events
