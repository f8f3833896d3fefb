"""SB3's run directory: the layout and resume checks every trainer keeps
(``cardzoo.training.common.run_dir``), its resumable state SB3's own ``model.zip`` (with
``streams.json``, the episode and opponent random streams) in place of ``state/``.
"""

from __future__ import annotations

from pathlib import Path

from cardzoo.envs.config import config_dict
from cardzoo.training.common.run_dir import RunDir, RunState


class SB3Run(RunDir):
    ALGORITHM = "MaskablePPO self-play (sb3-contrib)"
    FOLDERS = ("pool", "checkpoints")
    SNAPSHOT = "snapshot_{}"

    @property
    def saved_path(self) -> Path:
        return self.out / "model.zip"

    def check_saved(self) -> None:
        """Nothing to check before the resume: model.zip is SB3's own, loaded (unpickled) by SB3 on
        ``--resume``, which trusts the run directory (see ``cardzoo train --help``)."""

    def meta(self, name: str, state: RunState, evaluation: dict) -> dict:
        """The sidecar of a checkpoint of the actor, at ``state.decisions`` steps of SB3's learner."""
        s = self.s
        return {
            "name": name,
            "game": s.game,
            "env": self.probe.metadata["name"],
            "config": config_dict(self.probe.config),
            "player_counts": [s.players],
            "hidden": list(s.hidden),
            "activation": "tanh",
            "training_steps": int(state.decisions),
            "algorithm": self.ALGORITHM,
            "opponent_pool": "rule bot, random, frozen snapshots",
            "seed": s.seed,
            "evaluation": evaluation or {},
        }
