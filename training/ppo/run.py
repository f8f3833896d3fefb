"""PPO's run directory: what its checkpoints say about the run, and that they hold the actor.

The layout and the resumable state are every trainer's (``cardzoo.training.common.run_dir``).
"""

from __future__ import annotations

from cardzoo.training.common.opponents import describe
from cardzoo.training.common.run_dir import RunDir, RunState


class PPORun(RunDir):
    ALGORITHM = "PPO self-play (cardzoo, batched, action masking)"

    def meta(self, name: str, state: RunState, evaluation: dict) -> dict:
        s = self.s
        return {
            **super().meta(name, state, evaluation),
            "hidden": list(s.hidden),
            "activation": s.activation,
            "opponent_pool": describe(s.selfplay, s.opponents),
        }

    def exported(self, net):
        return net.actor()
