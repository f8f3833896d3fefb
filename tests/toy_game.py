"""High card: a toy game that proves the engine protocol is all a game needs.

2-4 players get 3 cards each; in every trick each player in turn plays a card, the highest card id
takes the trick (+1, the others -1/(n-1) each). Registered by the tests (``register("tests.toy_game")``),
it passes the whole contract and plays in ``cardzoo eval``. docs/CONTRIBUTING-games.md walks
through it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from cardzoo.envs.base import CardGameEnv, make_env_fns
from cardzoo.envs.cards import card_str, cards_str
from cardzoo.envs.config import build_config, check_int
from cardzoo.envs.protocol import GameEngine, StepOutcome, ranks_from_scores

HAND = 3


@dataclass(frozen=True)
class HighCardConfig:
    num_players: int = 2

    def __post_init__(self):
        check_int("num_players", self.num_players, 2, 4)


class HighCardEngine(GameEngine):
    def __init__(self, config: HighCardConfig, rng: random.Random, deck=None):
        self.n, self.done = config.num_players, False
        deck = list(deck) if deck is not None else rng.sample(range(52), 52)
        self.hands = [deck[s:HAND * self.n:self.n] for s in range(self.n)]
        self.rest, self.trick, self.turn, self.scores = deck[HAND * self.n:], [], 0, [0.0] * self.n

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

    def clone(self) -> "HighCardEngine":
        c = object.__new__(HighCardEngine)
        c.__dict__.update(self.__dict__, hands=[list(h) for h in self.hands], rest=list(self.rest),
                          trick=list(self.trick), scores=list(self.scores))
        return c

    def ranking(self) -> list[float]:
        return ranks_from_scores(self.scores)

    def resample_hidden(self, seat: int, rng: random.Random) -> "HighCardEngine":
        c = self.clone()
        pool = [x for s in range(c.n) if s != seat for x in c.hands[s]] + c.rest
        rng.shuffle(pool)
        for s in range(c.n):
            if s != seat:
                c.hands[s] = [pool.pop() for _ in c.hands[s]]
        c.rest = pool
        return c

    @staticmethod
    def step_bound(config: HighCardConfig) -> int:
        return HAND * config.num_players


class HighCardEnv(CardGameEnv):
    metadata = {"name": "highcard_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False,
                "render_fps": 1}
    num_actions, max_players, obs_size, game_name = 52, 4, 52 + 52 + 3 + 1, "highcard"
    engine_class = HighCardEngine

    def __init__(self, render_mode=None, max_steps=None, **options):
        super().__init__(build_config(HighCardConfig, "highcard", **options), render_mode, max_steps)

    def _new_engine(self, rng, deck):
        return HighCardEngine(self.config, rng, deck)

    def _encode(self, seat: int) -> np.ndarray:
        e, o = self.engine, np.zeros(self.obs_size, dtype=np.float32)
        o[e.hands[seat]] = 1.0
        o[[52 + card for card, _ in e.trick]] = 1.0
        o[104 + e.n - 2] = 1.0
        o[107] = float(e.turn == seat and not e.done)
        return o

    def _action_text(self, action: int) -> str:
        return card_str(action)

    def _render_text(self) -> str:
        e = self.engine
        return "\n".join([f"trick: {cards_str(c for c, _ in e.trick)}"]
                         + [f"player_{s}: {cards_str(sorted(h))} ({e.scores[s]:+.2f})" for s, h in enumerate(e.hands)])


class RuleBot:
    """Plays its highest card."""

    def __init__(self, config=None, seed=None):
        pass

    def act(self, observation, action_mask) -> int:
        return int(np.flatnonzero(action_mask)[-1])


GAME, Config, PLAYER_COUNTS, DEFAULT_PLAYERS = "highcard", HighCardConfig, (2, 3, 4), 2
env, raw_env = make_env_fns(HighCardEnv)
