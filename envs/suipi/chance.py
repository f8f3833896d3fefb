"""Chance in Suipi (envs/chance.py): every deal's shuffle, told as its first round of hands, the
floor cards drawn one by one (S5), and each later round of hands from the stock. A stock position
below the 52 shuffled cards holds a card sent to the bottom by S5: public, so no chance."""

from __future__ import annotations

import numpy as np

from cardzoo.envs.chance import ChanceEvent, ChanceModel, Slot
from cardzoo.envs.suipi.actions import CARDS
from cardzoo.envs.suipi.engine import SuipiEngine, side_of

CAPTURED = 0  # a side's place (coded by its first seat's number): the cards it captured
FLOOR, LOST, REJECTED = range(3)  # shared places: the floor, cards nobody took, S5's known bottom


class SuipiChance(ChanceModel):
    places = 1
    shared = 3
    seat_numbers = 5  # its side's match score / point game, its side's suipis, cards captured, dealer, to act
    shared_numbers = 3  # deals played / deals, round / rounds, stock left / 52

    def relative_codes(self, seat: int) -> np.ndarray:
        out = super().relative_codes(seat)
        base, me, ns = self.place(CAPTURED, 0), side_of(seat, self.n), len(set(_sides(self.n)))
        out[base : base + ns] = base + (np.arange(ns) - me) % ns
        return out

    def state(self, e: SuipiEngine) -> tuple[np.ndarray, np.ndarray]:
        loc = self.empty()
        for s, hand in enumerate(e.hands):
            loc[hand] = s
        loc[[c for it in e.floor for c in it[CARDS]]] = self.shared_place(FLOOR)
        loc[e.lost] = self.shared_place(LOST)
        loc[e.rejected_in_stock()] = self.shared_place(REJECTED)
        for side, pile in enumerate(e.captured):
            loc[pile] = self.place(CAPTURED, side)
        return loc, self._numbers(e)

    def _numbers(self, e: SuipiEngine) -> np.ndarray:
        cfg, n = e.config, self.n
        per = np.zeros((n, self.seat_numbers))
        for s in range(n):
            side = e.side[s]
            per[s, :3] = e.match_scores[side] / cfg.point_game, e.suipis[side], len(e.captured[side]) / 52
        per[e.dealer, 3] = 1.0
        if not e.done:
            per[e.turn, 4] = 1.0
        rounds = len(cfg.deal_sizes)
        shared = [e.deal_index / cfg.num_deals, e.round / rounds, e.stock_size / 52]
        return np.concatenate([per.ravel(), shared])

    def deal_events(self, e: SuipiEngine) -> list[ChanceEvent]:
        """A deal just dealt: hands then floor (whole deck in one round: floor then hands)."""
        hands = e.config.deal_sizes[0] * self.n
        ctx = self._numbers(e)
        ctx[-1] = 0.0  # the stock's size follows from the floor cards S5 sent to the bottom
        if len(e.config.deal_sizes) > 1:
            first = self._hands(e, 0, hands, self.empty(), ctx)
            return [first, self._floor(e, hands, e.top, _placed(first), ctx)]
        floor = self._floor(e, 0, e.top - hands, self.empty(), ctx)
        return [floor, self._hands(e, e.top - hands, e.top, _placed(floor), ctx)]

    def segment(self, e: SuipiEngine) -> int:
        return e.deal_index

    def step_events(self, before: SuipiEngine, action: int, after: SuipiEngine) -> list[ChanceEvent]:
        if after.done:
            return []
        if after.deal_index != before.deal_index:
            return self.deal_events(after)
        if after.round != before.round:
            loc, ctx = self.state(after)
            fresh = [c for i, c in enumerate(after.stock[before.top : after.top], before.top) if i < 52]
            loc[fresh] = self.pool
            return [self._hands(after, before.top, after.top, loc, ctx)]
        return []

    def _hands(self, e: SuipiEngine, a: int, b: int, start: np.ndarray, ctx: np.ndarray) -> ChanceEvent:
        """Stock positions a..b-1 dealt round the table from the dealer's left."""
        start = start.copy()
        dest_of = {}
        for i in range(a, b):
            seat = (e.dealer + 1 + i - a) % self.n
            if i < 52:
                dest_of[e.stock[i]] = seat
            else:
                start[e.stock[i]] = seat  # a known card from the bottom
        return self.dealt(ctx, dest_of, start)

    def _floor(self, e: SuipiEngine, a: int, b: int, start: np.ndarray, ctx: np.ndarray) -> ChanceEvent:
        """S5's draws at stock positions a..b-1, each to the floor (where a rejected one goes
        follows from the card)."""
        floor = self.shared_place(FLOOR)
        slots = []
        for i in range(a, b):
            card = e.stock[i]
            slots.append(Slot.draw(card, floor, sorted(e.stock[i:52])) if i < 52 else Slot(((card, floor),), (1.0,), 0))
        return ChanceEvent(start.copy(), ctx, slots)


def _sides(n: int) -> list[int]:
    return [side_of(s, n) for s in range(n)]


def _placed(ev: ChanceEvent) -> np.ndarray:
    """The locations after every slot of ``ev``."""
    loc = ev.loc.copy()
    for slot in ev.slots:
        card, dest = slot.options[slot.actual]
        loc[card] = dest
    return loc
