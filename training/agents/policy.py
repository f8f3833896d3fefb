"""The policy network in torch, for training (PPO, SB3's actor, RLlib's export).

It mirrors the actor half of sb3-contrib's ``MaskableActorCriticPolicy`` with an MLP extractor
(``mlp_extractor.policy_net`` + ``action_net``), so weights exported from cardzoo.training load here
without stable-baselines3 and without unpickling anything. A checkpoint of it plays through
``numpy_nets.PolicyMLP``, the same function in numpy.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from cardzoo.envs.errors import UserError
from cardzoo.training.agents.numpy_nets import PolicyMLP

ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU, "linear": nn.Identity}


class MaskedPolicyNet(nn.Module):
    """Action logits from the observation; the checkpoint architecture ``"policy"`` (the default:
    its sidecars carry no ``architecture`` field)."""

    architecture = PolicyMLP.architecture

    def __init__(self, obs_size: int, num_actions: int, hidden: list[int], activation: str = "tanh"):
        super().__init__()
        if activation not in ACTIVATIONS:
            raise UserError(f"activation must be one of {', '.join(ACTIVATIONS)}, got {activation!r}")
        layers: list[nn.Module] = []
        width = obs_size
        for h in hidden:
            layers += [nn.Linear(width, h), ACTIVATIONS[activation]()]  # PolicyMLP.parameter_shapes names this layout
            width = h
        self.policy_net = nn.Sequential(*layers)
        self.action_net = nn.Linear(width, num_actions)
        self.obs_size, self.num_actions = obs_size, num_actions
        self.hidden, self.activation = [int(h) for h in hidden], activation

    # ---------------------------------------------------------------- as a checkpoint (numpy_nets.PolicyMLP: the rest)
    @classmethod
    def from_meta(cls, meta: dict) -> MaskedPolicyNet:
        return cls(meta["obs_size"], meta["num_actions"], meta["hidden"], meta["activation"])

    sidecar_fields = PolicyMLP.sidecar_fields

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.action_net(self.policy_net(obs))

    @torch.no_grad()
    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator | None = None) -> int:
        """Best legal action (or a sample from the masked softmax when ``rng`` is given)."""
        logits = self.forward(torch.as_tensor(observation, dtype=torch.float32).unsqueeze(0))[0]
        mask = torch.as_tensor(np.asarray(action_mask) > 0)
        if not bool(mask.any()):
            raise UserError("empty action mask: this seat is not acting")
        logits = logits.masked_fill(~mask, float("-inf"))
        if rng is None:
            return int(torch.argmax(logits))
        probs = torch.softmax(logits, dim=0).double().numpy()
        return int(rng.choice(len(probs), p=probs / probs.sum()))


SB3_PREFIX = {"policy_net": "mlp_extractor.policy_net", "action_net": "action_net"}


def from_sb3_state_dict(sb3_state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The actor weights of an SB3 MaskablePPO policy, renamed for ``MaskedPolicyNet``."""
    out = {}
    for key, value in sb3_state.items():
        for ours, theirs in SB3_PREFIX.items():
            if key.startswith(theirs + "."):
                out[ours + key[len(theirs) :]] = value.detach().cpu().clone().contiguous()
    return out
