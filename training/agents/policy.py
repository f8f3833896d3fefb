"""The inference network of a trained cardzoo policy, in plain PyTorch.

It mirrors the actor half of sb3-contrib's ``MaskableActorCriticPolicy`` with an MLP extractor
(``mlp_extractor.policy_net`` + ``action_net``), so weights exported from cardzoo.training load here
without stable-baselines3 and without unpickling anything.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from cardzoo.envs.errors import UserError

ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU}


class MaskedPolicyNet(nn.Module):
    """Action logits from the observation; the checkpoint architecture ``"policy"`` (the default:
    its sidecars carry no ``architecture`` field)."""

    architecture = "policy"
    META_FIELDS: tuple = ()  # sidecar fields this architecture needs beyond the common ones

    def __init__(self, obs_size: int, num_actions: int, hidden: list[int], activation: str = "tanh"):
        super().__init__()
        if activation not in ACTIVATIONS:
            raise UserError(f"activation must be one of {', '.join(ACTIVATIONS)}, got {activation!r}")
        layers: list[nn.Module] = []
        width = obs_size
        for h in hidden:
            layers += [nn.Linear(width, h), ACTIVATIONS[activation]()]  # parameter_shapes relies on this layout
            width = h
        self.policy_net = nn.Sequential(*layers)
        self.action_net = nn.Linear(width, num_actions)
        self.obs_size, self.num_actions = obs_size, num_actions
        self.hidden, self.activation = [int(h) for h in hidden], activation

    @staticmethod
    def parameter_shapes(obs_size: int, num_actions: int, hidden: list[int]) -> dict[str, tuple[int, ...]]:
        """The ``state_dict`` names and shapes of a net with this architecture, without building it
        (a checkpoint's tensors are checked against these before any memory is allocated)."""
        shapes: dict[str, tuple[int, ...]] = {}
        width = obs_size
        for i, h in enumerate(hidden):
            shapes[f"policy_net.{2 * i}.weight"] = (h, width)  # 2*i: each Linear is followed by its activation
            shapes[f"policy_net.{2 * i}.bias"] = (h,)
            width = h
        shapes["action_net.weight"] = (num_actions, width)
        shapes["action_net.bias"] = (num_actions,)
        return shapes

    # ---------------------------------------------------------------- as a checkpoint architecture
    @classmethod
    def shapes_of(cls, meta: dict) -> dict[str, tuple[int, ...]]:
        return cls.parameter_shapes(meta["obs_size"], meta["num_actions"], meta["hidden"])

    @classmethod
    def from_meta(cls, meta: dict) -> "MaskedPolicyNet":
        return cls(meta["obs_size"], meta["num_actions"], meta["hidden"], meta["activation"])

    def sidecar_fields(self) -> dict:
        return {}

    @staticmethod
    def describe(meta: dict) -> str:
        return f"MLP {meta['hidden']} ({meta['activation']}), observation {meta['obs_size']}, {meta['num_actions']} actions"

    def agent(self, meta: dict, config=None, seed: int | None = None):
        return PolicyAgent(self, meta, seed)

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


class PolicyAgent:
    """A trained policy behind the agent protocol (greedy; ``sample=True`` samples)."""

    advice_unit = "p"  # ``advise`` gives probabilities

    def __init__(self, net: MaskedPolicyNet, meta: dict, seed: int | None = None, sample: bool = False):
        self.net, self.meta = net, meta
        self.name = meta.get("name", "checkpoint")
        self.rng = np.random.default_rng(seed) if sample else None

    def reset(self) -> None:
        pass

    def act(self, observation, action_mask) -> int:
        return self.net.act(observation, action_mask, self.rng)

    @torch.no_grad()
    def advise(self, observation, action_mask) -> list[tuple[tuple[int, ...], float]]:
        """Each legal action with the policy's probability of it, most likely first."""
        logits = self.net(torch.as_tensor(observation, dtype=torch.float32).unsqueeze(0))[0]
        mask = torch.as_tensor(np.asarray(action_mask) > 0)
        probs = torch.softmax(logits.masked_fill(~mask, float("-inf")), dim=0).numpy()
        legal = np.flatnonzero(np.asarray(action_mask))
        return sorted((((int(a),), float(probs[a])) for a in legal), key=lambda m: -m[1])


SB3_PREFIX = {"policy_net": "mlp_extractor.policy_net", "action_net": "action_net"}


def from_sb3_state_dict(sb3_state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The actor weights of an SB3 MaskablePPO policy, renamed for ``MaskedPolicyNet``."""
    out = {}
    for key, value in sb3_state.items():
        for ours, theirs in SB3_PREFIX.items():
            if key.startswith(theirs + "."):
                out[ours + key[len(theirs):]] = value.detach().cpu().clone().contiguous()
    return out
