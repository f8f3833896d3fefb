"""Give a move-ranker checkpoint a trust margin: ``python -m cardzoo.training.agents.trust CKPT --trust 0.05 --out NEW``.

A move ranker with trust ``t`` keeps to the rule bot's move unless another move's estimated Q is
higher by more than ``t`` (``cardzoo.training.agents.ranker.RankerAgent``). The margin is chosen after
training, by evaluating a few values on a seed that the final measurement does not use; this writes
a copy of the checkpoint (same weights, a new sidecar with ``"trust"``) so both can be compared.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cardzoo.envs.errors import UserError
from cardzoo.training.agents.checkpoint import load_checkpoint, save_checkpoint
from cardzoo.training.agents.ranker import ARCHITECTURE


def with_trust(path, trust: float, out) -> Path:
    """Save a copy of the move-ranker checkpoint ``path`` at ``out`` with trust margin ``trust``."""
    if not 0 <= trust <= 100:
        raise UserError(f"--trust must be in 0..100, got {trust}")
    net, meta = load_checkpoint(path)
    if meta.get("architecture") != ARCHITECTURE:
        raise UserError(f"{path} is not a move-ranker checkpoint: a trust margin needs the rule bot's "
                        f"move among its move features")
    meta = {k: v for k, v in meta.items() if k not in ("weights_sha256", "created")}
    meta["trust"] = trust
    return save_checkpoint(Path(out), net, meta)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m cardzoo.training.agents.trust", description=__doc__.splitlines()[0])
    p.add_argument("checkpoint")
    p.add_argument("--trust", type=float, required=True, help="Q margin over the rule bot's move")
    p.add_argument("--out", required=True, help="where to write the copy (path without suffix)")
    args = p.parse_args(argv)
    try:
        saved = with_trust(args.checkpoint, args.trust, args.out)
    except UserError as e:  # CheckpointError included
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {saved} (trust {args.trust:g})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
