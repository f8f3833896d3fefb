"""A single-agent gymnasium view of a cardzoo AEC env, for self-play training.

The learner takes one seat (both seats of its team in 4-player Suipi); every other seat is played
by an opponent drawn from a pool each episode (frozen snapshots of the learner, the rule bot,
random). The learner's reward is everything it earns from its action up to its next decision or
the end — including what happens during the opponents' moves, so a loser does see its −1.
"""

from __future__ import annotations

import random
from typing import Any

import gymnasium as gym
import numpy as np

from cardzoo.envs.registry import game_module, game_spec
from cardzoo.training.common.opponents import OpponentPool


def team_of(game: str, num_players: int, seat: int) -> list[int]:
    """Seats the learner controls when it sits at ``seat``: its whole team (the game declares teams)."""
    return next(team for team in game_spec(game).teams(num_players) if seat in team)


class SelfPlayEnv(gym.Env):
    """gymnasium.Env with ``action_masks()`` for sb3-contrib's MaskablePPO."""

    metadata = {"render_modes": []}  # noqa: RUF012 - gymnasium.Env declares it per instance

    def __init__(self, game: str, env_kwargs: dict, pool: OpponentPool, seed: int = 0):
        self.module = game_module(game)
        self.game = self.module.GAME
        self.aec = self.module.raw_env(**env_kwargs)
        self.pool = pool
        self.observation_space: gym.spaces.Box = gym.spaces.Box(-1.0, 1.0, (self.aec.obs_size,), np.float32)
        self.action_space: gym.spaces.Discrete = gym.spaces.Discrete(self.aec.num_actions)
        self._rng = random.Random(seed)
        self.learner_seats: list[int] = []
        self.opponents: dict[int, Any] = {}  # seat -> the agent drawn for this episode

    def reset(self, seed: int | None = None, options=None):
        super().reset(seed=seed)
        if seed is not None:
            self._rng = random.Random(seed)
        n = self.aec.num_players
        self.learner_seats = team_of(self.game, n, self._rng.randrange(n))
        self.opponents = {s: self.pool.draw() for s in range(n) if s not in self.learner_seats}
        self.aec.reset(seed=self._rng.getrandbits(63))
        _, done = self._play_opponents()
        if done:  # cannot normally happen: every game gives each seat a decision
            return self.reset()
        return self._obs(), {}

    def _learner_name(self) -> str:
        return self.aec.possible_agents[self.learner_seats[0]]

    def _obs(self) -> np.ndarray:
        # Observe once per decision: MaskablePPO asks for the mask of the same state right after.
        self._last = self.aec.observe(self.aec.agent_selection)
        return self._last["observation"]

    def action_masks(self) -> np.ndarray:
        return self._last["action_mask"].astype(bool)

    def _learner_reward(self) -> float:
        return float(self.aec.rewards.get(self._learner_name(), 0.0))

    def _play_opponents(self) -> tuple[float, bool]:
        """Let opponents move until a learner seat must act; returns (learner reward, done)."""
        aec = self.aec
        reward = 0.0
        me = self._learner_name()
        while True:
            if me not in aec.agents or aec.terminations.get(me, False):
                return reward, True
            agent = aec.agent_selection
            if aec.terminations[agent] or aec.truncations[agent]:
                aec.step(None)
                continue
            seat = aec.agent_seat[agent]
            if seat in self.learner_seats:
                return reward, False
            obs = aec.observe(agent)
            aec.step(self.opponents[seat].act(obs["observation"], obs["action_mask"]))
            reward += self._learner_reward()

    def step(self, action):
        self.aec.step(int(action))
        reward = self._learner_reward()
        more, done = self._play_opponents()
        reward += more
        if done:  # the mask of a finished episode is never used: SB3 resets first
            self._last = {"action_mask": np.ones(self.action_space.n, np.int8)}
            obs = np.zeros(self.observation_space.shape, np.float32)
        else:
            obs = self._obs()
        return obs, reward, done, False, {}
