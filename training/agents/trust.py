"""Give a move-ranker checkpoint a trust margin (``cardzoo model trust CKPT --trust 0.05 --out NEW``).

A move ranker with trust ``t`` keeps to the rule bot's move unless another move's estimated Q is
higher by more than ``t`` (``cardzoo.training.agents.ranker.RankerAgent``). The margin is chosen after
training, by evaluating a few values on a seed that the final measurement does not use; this writes
a copy of the checkpoint (same weights, a new sidecar with ``"trust"``) so both can be compared.
"""

from __future__ import annotations

from pathlib import Path

from cardzoo.envs.errors import UserError
from cardzoo.training.agents.checkpoint import load_network, save_checkpoint
from cardzoo.training.agents.numpy_nets import RankerMLP


def with_trust(path, trust: float, out) -> Path:
    """Save a copy of the move-ranker checkpoint ``path`` at ``out`` with trust margin ``trust``."""
    if not 0 <= trust <= 100:
        raise UserError(f"--trust must be in 0..100, got {trust}")
    net, meta = load_network(path)
    if meta.get("architecture") != RankerMLP.architecture:
        raise UserError(
            f"{path} is not a move-ranker checkpoint: a trust margin needs the rule bot's move among its move features"
        )
    meta = {k: v for k, v in meta.items() if k not in ("weights_sha256", "created")}
    meta["trust"] = trust
    return save_checkpoint(Path(out), net, meta)
