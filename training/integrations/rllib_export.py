"""RLlib PPO module -> cardzoo checkpoint (``MaskedPolicyNet``), and a check that both agree.

RLlib's default PPO module (new API stack) computes the action logits as
``pi(actor_encoder(obs))``: the encoder an MLP (``encoder.actor_encoder.net.mlp.*``, or
``encoder.encoder.net.mlp.*`` when ``vf_share_layers`` is on) and ``pi`` a head MLP. With
``head_fcnet_hiddens=[]`` the head is one Linear layer, and the actor path is exactly
``MaskedPolicyNet``'s ``policy_net`` + ``action_net``. The renaming below works on the state
dict alone (no Ray import), so it is tested without Ray.
"""

from __future__ import annotations

import re

import numpy as np
import torch

from cardzoo.training.agents.policy import MaskedPolicyNet

ENCODER_PREFIXES = ("encoder.actor_encoder.net.mlp.", "encoder.encoder.net.mlp.")
PI_PREFIX = "pi.net.mlp."


class ExportError(ValueError):
    """The RLlib module's actor is not an MLP that a cardzoo checkpoint can hold."""


def _linear_layers(state: dict[str, torch.Tensor], prefix: str) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """(weight, bias) of the Linear layers under ``prefix``, in layer order."""
    indices = sorted({int(m.group(1)) for k in state if (m := re.fullmatch(re.escape(prefix) + r"(\d+)\.\w+", k))})
    layers = []
    for i in indices:
        weight, bias = state.get(f"{prefix}{i}.weight"), state.get(f"{prefix}{i}.bias")
        if weight is None or bias is None or weight.dim() != 2:
            raise ExportError(
                f"{prefix}{i} is not a Linear layer (layer norm or another module?); "
                "export needs a plain MLP (fcnet_use_layernorm=False)"
            )
        layers.append((weight, bias))
    return layers


def actor_state_dict(rllib_state: dict[str, torch.Tensor]) -> tuple[dict[str, torch.Tensor], list[int]]:
    """RLlib PPO module weights -> (``MaskedPolicyNet`` state dict, hidden sizes)."""
    prefix = next((p for p in ENCODER_PREFIXES if any(k.startswith(p) for k in rllib_state)), None)
    if prefix is None:
        raise ExportError(
            f"no MLP actor encoder in the module (expected keys {ENCODER_PREFIXES[0]}* or {ENCODER_PREFIXES[1]}*)"
        )
    encoder = _linear_layers(rllib_state, prefix)
    head = _linear_layers(rllib_state, PI_PREFIX)
    if len(head) != 1:
        raise ExportError(
            f"the pi head has {len(head)} Linear layers; export needs exactly one (model_config head_fcnet_hiddens=[])"
        )
    out: dict[str, torch.Tensor] = {}
    for i, (w, b) in enumerate(encoder):
        out[f"policy_net.{2 * i}.weight"] = w
        out[f"policy_net.{2 * i}.bias"] = b
    out["action_net.weight"], out["action_net.bias"] = head[0]
    out = {k: v.detach().cpu().float().clone().contiguous() for k, v in out.items()}
    return out, [int(w.shape[0]) for w, _ in encoder]


def policy_net_from_rllib(rllib_state: dict[str, torch.Tensor], activation: str) -> MaskedPolicyNet:
    """A ``MaskedPolicyNet`` with the RLlib module's actor weights (``activation``: the module's
    ``fcnet_activation``, ``tanh`` or ``relu``)."""
    state, hidden = actor_state_dict(rllib_state)
    obs_size = int(state["policy_net.0.weight"].shape[1]) if hidden else int(state["action_net.weight"].shape[1])
    net = MaskedPolicyNet(obs_size, int(state["action_net.weight"].shape[0]), hidden, activation)
    net.load_state_dict(state)
    net.eval()
    return net


def greedy_actions(logits: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Arg-max over the legal actions of each row."""
    return np.where(masks > 0, logits, -np.inf).argmax(axis=1)


def rllib_logits(module, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The masked action logits RLlib's action-masking module computes for a batch."""
    batch = {
        "obs": {
            "observations": torch.as_tensor(observations, dtype=torch.float32),
            "action_mask": torch.as_tensor(masks, dtype=torch.float32),
        }
    }
    with torch.no_grad():
        return module.forward_inference(batch)["action_dist_inputs"].cpu().numpy()


def play_and_compare(module, net: MaskedPolicyNet, game_config: dict, matches: int, seed: int) -> tuple[int, int]:
    """Play ``matches`` full matches with RLlib's greedy choice at every seat, on ``raw_env``
    (an illegal action raises), and count where the exported net would have chosen otherwise.

    Returns (decisions compared, disagreements).
    """
    from cardzoo.training.integrations.game_env import make_game_env

    env = make_game_env(game_config)
    decisions = differ = 0
    for m in range(matches):
        env.reset(seed=seed + m)
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            o, mask = obs["observation"][None], obs["action_mask"][None]
            theirs = int(greedy_actions(rllib_logits(module, o, mask), mask)[0])
            differ += int(net.act(obs["observation"], obs["action_mask"]) != theirs)
            decisions += 1
            env.step(theirs)
    return decisions, differ
