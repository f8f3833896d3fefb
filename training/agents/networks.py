"""A checkpoint as the torch network that trains it: ``load_checkpoint`` (a trainer's resume,
warm start and frozen opponents), ``load_torch_agent`` (the expert that teaches in expert
iteration), and a network on a GPU (``on_device``: the expert's leaves where
``CARDZOO_EXPERT_DEVICE`` asks for one). The checkpoint's file format, its checks and the numpy
forward passes that play it without torch are ``checkpoint`` and ``numpy_nets``; this is their
torch side.

``NETWORKS``: each architecture's torch module (the names of ``numpy_nets.ARCHITECTURES``); the
module knows ``from_meta(meta)`` and ``sidecar_fields()``, the numpy class the rest.
"""

from __future__ import annotations

import copy

import torch

from cardzoo.training.agents.checkpoint import check_plays, read_checkpoint
from cardzoo.training.agents.device import torch_device
from cardzoo.training.agents.numpy_nets import DEFAULT
from cardzoo.training.agents.policy import MaskedPolicyNet
from cardzoo.training.agents.ranker import MoveRankerNet
from cardzoo.training.agents.value import ValueNet

NETWORKS = {cls.architecture: cls for cls in (MaskedPolicyNet, MoveRankerNet, ValueNet)}


def load_checkpoint(path) -> tuple:
    """(torch network, sidecar) of a checkpoint, in eval mode; a one-line CheckpointError for
    anything wrong with it (the network is built only after every check has passed)."""
    state, meta = read_checkpoint(path)
    net = NETWORKS[meta.get("architecture", DEFAULT)].from_meta(meta)
    net.load_state_dict({name: torch.from_numpy(array) for name, array in state.items()})
    net.eval()
    return net, meta


def load_torch_agent(path, config=None, seed: int | None = None):
    """A move-ranker checkpoint as an agent that plays its torch module, checked as ``load_agent``
    checks (training's expert iteration: the expert's values are training targets, computed as the
    trainers compute them)."""
    net, meta = load_checkpoint(path)
    check_plays(meta, config, path)
    return net.agent(meta, config, seed)


def torch_module(net) -> MaskedPolicyNet | MoveRankerNet | ValueNet:
    """A numpy forward pass (``numpy_nets``) as its architecture's torch module, with its weights."""
    meta = {
        "obs_size": net.obs_size,
        "num_actions": net.num_actions,
        "hidden": net.hidden,
        "activation": net.activation,
        **net.sidecar_fields(),
    }
    module = NETWORKS[net.architecture].from_meta(meta)
    module.load_state_dict({key: torch.from_numpy(array) for key, array in net.state_dict().items()})
    return module.eval()


def on_device(net, name: str, what: str):
    """``net`` on the device ``name`` names (``device.torch_device``; ``what`` names the setting in
    its errors): ``net`` itself where that is the CPU, else a torch copy there."""
    device = torch_device(name, what)
    if device.type == "cpu":
        return net
    return (copy.deepcopy(net) if isinstance(net, torch.nn.Module) else torch_module(net)).to(device)
