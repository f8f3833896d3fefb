"""The checkpoint architectures: one registry of the network classes a checkpoint may hold.

Each class knows its own checkpoint face: ``architecture`` (the sidecar's name for it; "policy",
the oldest, is also what a sidecar without the field means), ``META_FIELDS`` (sidecar fields it
needs beyond the common ones), ``shapes_of(meta)`` (its tensors' names and shapes, checked before
anything is built), ``from_meta(meta)``, ``sidecar_fields()``, ``describe(meta)`` (one line for
model cards) and ``agent(meta, config, seed)`` (the agent that plays it). A new architecture is a
new class in this table; nothing else branches on it.
"""

from __future__ import annotations

from cardzoo.training.agents.policy import MaskedPolicyNet
from cardzoo.training.agents.ranker import MoveRankerNet

NETWORKS = {cls.architecture: cls for cls in (MaskedPolicyNet, MoveRankerNet)}
DEFAULT = MaskedPolicyNet.architecture


def network_class(meta: dict):
    """The network class of a (checked) checkpoint sidecar."""
    return NETWORKS[meta.get("architecture", DEFAULT)]
