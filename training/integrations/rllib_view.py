"""A cardzoo game as RLlib's multi-agent env protocol, without importing Ray.

``RLlibView`` has the ``reset``/``step`` of ``ray.rllib.env.MultiAgentEnv`` (dicts keyed by agent
id, ``"__all__"`` in the done dicts); ``rllib_env.CardzooRLlibEnv`` adds the Ray base class. What
it does beyond RLlib's own ``PettingZooEnv`` wrapper:

* **Observation keys.** RLlib's action-masking RLModule reads ``obs["observations"]`` and
  ``obs["action_mask"]``; PettingZoo's convention is ``observation``. The mask is float32 because
  the module takes its logarithm.
* **Rewards before an agent's first move.** RLlib keeps a reward that reaches an agent before its
  first observation in a "hanging rewards" cache that is left out of every logged return (and
  of learning). In Sam Sip a hand can be lost before a seat acts, so RLlib's returns would not
  be zero-sum. Here such a reward is held and paid together with the reward for the agent's
  first move; its returns then match the plain AEC loop and sum to zero. The one case left is a
  seat eliminated before it ever moved: RLlib drops an agent without a step, so its reward is
  counted in ``unattributed`` (and reported in the last step's infos under ``"__common__"``).
* Only the seat to move gets an observation; dead steps (PettingZoo's bookkeeping step for an
  eliminated seat) are taken here, never shown to RLlib.
* **Illegal actions** are handled as the games' ``env()`` does (PettingZoo's TerminateIllegal):
  the match ends, −1 for the offender, 0 for the others in that step; the infos say so under
  ``"__common__"``. The masking module never picks one; RLlib's env check at start-up does (it
  steps a random action), which must not crash. ``on_illegal="raise"`` raises instead.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
from gymnasium import spaces

from cardzoo.envs.errors import UserError
from cardzoo.training.integrations.game_env import make_game_env

OBS_KEY = "observations"  # what RLlib's ActionMaskingRLModule reads
MASK_KEY = "action_mask"


def rllib_observation(obs: dict) -> dict:
    """PettingZoo ``{"observation", "action_mask"}`` -> RLlib ``{"observations", "action_mask"}``."""
    return {OBS_KEY: obs["observation"], MASK_KEY: obs["action_mask"].astype(np.float32)}


class RLlibView:
    """RLlib's MultiAgentEnv protocol over a cardzoo AEC env (see the module docstring).

    ``config``: ``{"game": NAME, "players": N, **rule variants}``, as RLlib's ``env_config``.
    """

    def __init__(self, config: dict | None = None, on_illegal: str = "terminate"):
        if on_illegal not in ("terminate", "raise"):
            raise UserError(f"on_illegal must be 'terminate' or 'raise', got {on_illegal!r}")
        self.on_illegal = on_illegal
        self.aec = make_game_env(config or {})
        self.possible_agents = list(self.aec.possible_agents)
        self.agents: list[str] = []
        one = spaces.Dict(
            {
                OBS_KEY: self.aec.observation_space(self.possible_agents[0])["observation"],
                MASK_KEY: spaces.Box(0.0, 1.0, (self.aec.num_actions,), np.float32),
            }
        )
        act = self.aec.action_space(self.possible_agents[0])
        self.observation_spaces = dict.fromkeys(self.possible_agents, one)
        self.action_spaces = dict.fromkeys(self.possible_agents, act)
        self._acted: set[str] = set()
        self._held: dict[str, float] = defaultdict(float)
        self.returns: dict[str, float] = {}  # everything each agent earned this episode
        self.paid: dict[str, float] = {}  # what RLlib was given (returns minus unattributed)
        self.unattributed: dict[str, float] = {}  # reward of seats eliminated before moving

    # --------------------------------------------------------------------- protocol
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self.aec.reset(seed=seed, options=options)
        self.agents = list(self.aec.agents)
        self._acted.clear()
        self._held.clear()
        self.returns = dict.fromkeys(self.possible_agents, 0.0)
        self.paid = dict.fromkeys(self.possible_agents, 0.0)
        self.unattributed = {}
        agent = self.aec.agent_selection
        return {agent: rllib_observation(self.aec.observe(agent))}, {agent: {}}

    def step(self, action_dict: dict):
        aec = self.aec
        agent = aec.agent_selection
        if agent not in action_dict:
            raise KeyError(f"{agent} is to move but the action dict holds {sorted(action_dict)}")
        alive = [a for a in aec.agents if not aec.terminations[a]]
        action = int(action_dict[agent])
        self._acted.add(agent)
        if self.on_illegal == "terminate" and action not in aec.legal_now():
            return self._end_on_illegal(agent, action, alive)
        aec.step(action)
        earned = {a: float(r) for a, r in aec.rewards.items()}
        done = [a for a in alive if aec.terminations.get(a, False) or aec.truncations.get(a, False)]
        while aec.agents and (aec.terminations[aec.agent_selection] or aec.truncations[aec.agent_selection]):
            aec.step(None)  # PettingZoo's dead step: removes the eliminated seat, earns nothing
        game_over = not aec.agents

        rewards = self._settle(alive, earned)
        terminateds = self._finish(done)
        infos: dict[str, dict] = {}
        terminateds["__all__"] = game_over
        truncateds = {"__all__": False}
        observations = {}
        if not game_over:
            nxt = aec.agent_selection
            observations[nxt] = rllib_observation(aec.observe(nxt))
            infos[nxt] = {}
        elif self.unattributed:
            infos["__common__"] = {"unattributed_rewards": dict(self.unattributed)}
        self.agents = alive  # RLlib checks reward keys against this: seats leaving now still count
        return observations, rewards, terminateds, truncateds, infos

    def _settle(self, alive: list[str], earned: dict[str, float]) -> dict[str, float]:
        """Book this step's rewards; returns the ones RLlib may see (seats that have moved).

        A seat that has not moved yet keeps its reward in ``_held`` until its first move.
        """
        rewards = {}
        for a in alive:
            r = earned.get(a, 0.0)
            self.returns[a] += r
            if a in self._acted:
                rewards[a] = r + self._held.pop(a, 0.0)
                self.paid[a] += rewards[a]
            else:
                self._held[a] += r
        return rewards

    def _finish(self, done: list[str]) -> dict[str, bool]:
        """Terminate ``done``; a seat that never moved has no place in RLlib: its reward is
        booked as unattributed."""
        for a in done:
            held = self._held.pop(a, 0.0)
            if a not in self._acted and held:
                self.unattributed[a] = held
        return dict.fromkeys(done, True)

    def _end_on_illegal(self, offender: str, action: int, alive: list[str]):
        rewards = self._settle(alive, {offender: -1.0})
        terminateds = {**self._finish(alive), "__all__": True}
        self.agents = alive
        infos = {"__common__": {"illegal_action": {"agent": offender, "action": action}}}
        return {}, rewards, terminateds, {"__all__": False}, infos

    def close(self) -> None:
        self.aec.close()
