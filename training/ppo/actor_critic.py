"""The network the PPO trainer learns: the exported actor plus a value head on the same trunk.

``policy_net`` (the trunk) and ``action_net`` have exactly the names and shapes of
``cardzoo.training.agents.policy.MaskedPolicyNet``, so exporting a checkpoint is dropping ``value_net``.
Sharing the trunk halves the cost of every forward and backward pass, which is what bounds
training speed on a CPU.
"""

from __future__ import annotations

import torch
from torch import nn

from cardzoo.training.agents.policy import MaskedPolicyNet


class ActorCritic(MaskedPolicyNet):
    def __init__(self, obs_size: int, num_actions: int, hidden, activation: str = "relu"):
        super().__init__(obs_size, num_actions, list(hidden), activation)
        self.value_net = nn.Linear(hidden[-1] if hidden else obs_size, 1)

    def forward(self, obs: torch.Tensor):  # -> (logits [B, A], value [B])
        h = self.policy_net(obs)
        return self.action_net(h), self.value_net(h).squeeze(-1)

    def actor_state(self) -> dict[str, torch.Tensor]:
        """The weights a ``MaskedPolicyNet`` checkpoint holds (the value head left out)."""
        return {k: v.detach().clone().contiguous() for k, v in self.state_dict().items()
                if not k.startswith("value_net.")}

    def actor(self) -> MaskedPolicyNet:
        net = MaskedPolicyNet(self.obs_size, self.num_actions, self.hidden, self.activation)
        net.load_state_dict(self.actor_state())
        net.eval()
        return net
