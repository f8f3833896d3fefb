"""The network the PPO trainer learns: the exported actor plus a value head.

``policy_net`` (the trunk) and ``action_net`` have exactly the names and shapes of
``cardzoo.training.agents.policy.MaskedPolicyNet``, so exporting a checkpoint is dropping ``value_net``.

Two critics (``PPOSettings.critic``):

* ``"seat"``: a linear value head on the actor's trunk, from the seat's own observation. Sharing the
  trunk halves the cost of every forward and backward pass, which is what bounds training speed on
  a CPU.
* ``"perfect"``: a network of its own over every seat's observation (``critic_input``): it sees
  every hand, during training only — PerfectDou's perfect-information critic, MAPPO's centralised
  value. The actor still reads its seat's observation alone, and the exported checkpoint holds the
  actor alone, so what is played stays honest.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from cardzoo.training.agents.policy import ACTIVATIONS, MaskedPolicyNet

CRITICS = ("seat", "perfect")


def critic_input(env, seat: int, out: np.ndarray) -> None:
    """The perfect critic's input for ``seat`` into ``out`` (``max_players * obs_size``): every
    seat's observation, ``seat``'s first and then the others in turn order, zeros for seats the
    match does not have (so one critic serves every player count of a run)."""
    size, n = env.obs_size, env.num_players
    for k in range(n):
        out[k * size : (k + 1) * size] = env.encode_seat((seat + k) % n)
    out[n * size :] = 0.0


class ActorCritic(MaskedPolicyNet):
    def __init__(self, obs_size: int, num_actions: int, hidden, activation: str = "relu", critic_size: int = 0):
        """``critic_size`` 0: the seat critic; else the perfect critic over inputs of that size."""
        super().__init__(obs_size, num_actions, list(hidden), activation)
        self.critic_size = critic_size
        self.value_net: nn.Module
        if not critic_size:
            self.value_net = nn.Linear(hidden[-1] if hidden else obs_size, 1)
        else:
            layers: list[nn.Module] = []
            width = critic_size
            for h in hidden:
                layers += [nn.Linear(width, h), ACTIVATIONS[activation]()]
                width = h
            self.value_net = nn.Sequential(*layers, nn.Linear(width, 1))

    def forward(self, obs: torch.Tensor, critic_obs: torch.Tensor | None = None):  # -> (logits [B, A], value [B])
        """The actor's logits from ``obs`` and the critic's value: from ``obs`` (seat critic) or from
        ``critic_obs`` (perfect critic: ``critic_input`` rows; without them the value is None)."""
        h = self.policy_net(obs)
        if not self.critic_size:
            return self.action_net(h), self.value_net(h).squeeze(-1)
        value = None if critic_obs is None else self.value_net(critic_obs).squeeze(-1)
        return self.action_net(h), value

    def actor_state(self) -> dict[str, torch.Tensor]:
        """The weights a ``MaskedPolicyNet`` checkpoint holds (the value head left out)."""
        return {
            k: v.detach().clone().contiguous() for k, v in self.state_dict().items() if not k.startswith("value_net.")
        }

    def actor(self) -> MaskedPolicyNet:
        net = MaskedPolicyNet(self.obs_size, self.num_actions, self.hidden, self.activation)
        net.load_state_dict(self.actor_state())
        net.eval()
        return net
