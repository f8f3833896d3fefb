"""High card's rules engine."""

from __future__ import annotations

import random

from cardzoo.envs.protocol import GameEngine, StepOutcome, ranks_from_scores
from tests.toy_game.config import HAND, HighCardConfig


class HighCardEngine(GameEngine):
    def __init__(self, config: HighCardConfig, rng: random.Random, deck=None):
        self.n, self.done = config.num_players, False
        deck = list(deck) if deck is not None else rng.sample(range(52), 52)
        self.hands = [deck[s : HAND * self.n : self.n] for s in range(self.n)]
        self.rest, self.turn, self.scores = deck[HAND * self.n :], 0, [0.0] * self.n
        self.trick: list[tuple[int, int]] = []  # (card, seat) played to this trick

    @property
    def acting_seat(self) -> int:
        return self.turn

    def legal_actions(self) -> list[int]:
        return sorted(self.hands[self.turn]) if not self.done else []

    def apply_action(self, action: int) -> StepOutcome:
        self.hands[self.turn].remove(action)
        self.trick.append((action, self.turn))
        self.turn = (self.turn + 1) % self.n
        if len(self.trick) < self.n:
            return StepOutcome()
        winner = max(self.trick)[1]
        rewards = {s: 1.0 if s == winner else -1.0 / (self.n - 1) for s in range(self.n)}
        for s, r in rewards.items():
            self.scores[s] += r
        self.trick, self.turn, self.done = [], winner, not self.hands[winner]
        return StepOutcome(rewards, self.done)

    def clone(self) -> HighCardEngine:
        c = object.__new__(HighCardEngine)
        c.__dict__.update(
            self.__dict__,
            hands=[list(h) for h in self.hands],
            rest=list(self.rest),
            trick=list(self.trick),
            scores=list(self.scores),
        )
        return c

    def ranking(self) -> list[float]:
        return ranks_from_scores(self.scores)

    def resample_hidden(self, seat: int, rng: random.Random) -> HighCardEngine:
        c = self.clone()
        pool = sorted([x for s in range(c.n) if s != seat for x in c.hands[s]] + c.rest)  # which, not where
        rng.shuffle(pool)
        for s in range(c.n):
            if s != seat:
                c.hands[s] = [pool.pop() for _ in c.hands[s]]
        c.rest = pool
        return c

    @staticmethod
    def step_bound(config: HighCardConfig) -> int:
        return HAND * config.num_players
