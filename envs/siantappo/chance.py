"""Chance in Siantappo (envs/chance.py): every round's deal of a shuffled deck. Cards are the
engine's keys 0..51; within a round nothing is left to chance."""

from __future__ import annotations

import numpy as np

from cardzoo.envs.chance import ChanceEvent, ChanceModel
from cardzoo.envs.siantappo.engine import SWAP, SiantappoEngine, hand_keys

PLAYED = 0  # a seat's place: the cards it played this round


class SiantappoChance(ChanceModel):
    places = 1
    seat_numbers = 6  # match points, pig counts, rewards so far (per round), dealer, to act, passed
    shared_numbers = 2  # rounds played / rounds, swap phase

    def state(self, e: SiantappoEngine) -> tuple[np.ndarray, np.ndarray]:
        loc = self.empty()
        for s in range(self.n):
            loc[hand_keys(e.hands[s])] = s
            mask = e.played[s]
            loc[[k for k in range(52) if mask >> k & 1]] = self.place(PLAYED, s)
        return loc, self._numbers(e)

    def _numbers(self, e: SiantappoEngine) -> np.ndarray:
        n, rounds = self.n, e.cfg.rounds
        per = np.zeros((n, self.seat_numbers))
        per[:, 0] = np.asarray(e.match_points) / (rounds * (n - 1))
        per[:, 1] = np.asarray(e.pig_counts) / rounds
        per[:, 2] = np.asarray(e.total_rewards) / rounds
        per[e.dealer, 3] = 1.0
        if not e.done:
            per[e.acting, 4] = 1.0
        per[:, 5] = e.passed
        return np.concatenate([per.ravel(), [e.round_index / rounds, float(e.phase == SWAP)]])

    def deal_events(self, e: SiantappoEngine) -> list[ChanceEvent]:
        """A round just dealt: the hands as dealt, before the swap (T11) that follows from them."""
        dest_of = {}
        for s in range(self.n):
            dealt = (set(hand_keys(e.hands[s])) | set(e.swap_given[s])) - set(e.swap_received[s])
            dest_of.update(dict.fromkeys(dealt, s))
        numbers = self._numbers(e)
        numbers[self.seat_numbers * np.arange(self.n) + 4] = 0.0  # who leads follows from the cards
        numbers[-1] = 0.0
        return [self.dealt(numbers, dest_of)]

    def segment(self, e: SiantappoEngine) -> int:
        return e.round_index

    def step_events(self, before: SiantappoEngine, action: int, after: SiantappoEngine) -> list[ChanceEvent]:
        if after.round_index != before.round_index and not after.done:
            return self.deal_events(after)
        return []
