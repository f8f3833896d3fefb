"""A cardzoo game as Tianshou's PettingZoo protocol, without importing Tianshou.

Tianshou's ``PettingZooEnv`` returns ``env.last()`` after each step and takes its termination
flag as the end of the episode. After a Sam Sip elimination (3–6 players) PettingZoo selects the
eliminated seat for its "dead step", so Tianshou ends the match at the first elimination, with
no error. ``TianshouView`` takes the dead steps itself and ends the episode only when the match
is over. It also builds a fresh reward vector every step (Tianshou's wrapper keeps a removed
seat's last reward in its list and repeats it).

Each step returns ``({"agent_id", "obs", "mask"}, rewards, terminated, truncated, info)``:
``rewards[i]`` is what seat ``i`` earned during this step (``agent_idx`` maps names to indices),
so the per-seat sums over an episode are the seats' match returns (zero-sum).
"""

from __future__ import annotations

import numpy as np

from cardzoo.training.integrations.game_env import make_game_env


class TianshouView:
    """Tianshou's multi-agent env protocol over a cardzoo AEC env (see the module docstring).

    ``config``: ``{"game": NAME, "players": N, **rule variants}``.
    """

    def __init__(self, config: dict | None = None):
        self.aec = make_game_env(config or {})
        self.agents = list(self.aec.possible_agents)  # Tianshou's name for the agent ids
        self.agent_idx = {a: i for i, a in enumerate(self.agents)}
        self.observation_space = self.aec.observation_space(self.agents[0])
        self.action_space = self.aec.action_space(self.agents[0])

    def _observation(self, agent: str) -> dict:
        obs = self.aec.observe(agent)
        return {"agent_id": agent, "obs": obs["observation"], "mask": obs["action_mask"] == 1}

    def reset(self, seed: int | None = None, options: dict | None = None, **_) -> tuple[dict, dict]:
        self.aec.reset(seed=seed, options=options)
        return self._observation(self.aec.agent_selection), {}

    def step(self, action) -> tuple[dict, np.ndarray, bool, bool, dict]:
        aec = self.aec
        actor = aec.agent_selection
        aec.step(int(action))
        rewards = np.zeros(len(self.agents), dtype=np.float64)
        for agent, r in aec.rewards.items():
            rewards[self.agent_idx[agent]] = r
        terminated = all(aec.terminations[a] or aec.truncations[a] for a in aec.agents)
        if terminated:  # no seat to move: the mover's final view (all-False mask) stands in
            final = self._observation(actor)  # observed before the dead steps remove it
        while aec.agents and (aec.terminations[aec.agent_selection] or aec.truncations[aec.agent_selection]):
            aec.step(None)  # dead step of an eliminated seat: bookkeeping only, no reward
        obs = final if terminated else self._observation(aec.agent_selection)
        return obs, rewards, terminated, False, {}

    def close(self) -> None:
        self.aec.close()
