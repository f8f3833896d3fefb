"""What a training run reports while it trains: TensorBoard scalars (OUT/tb), a line per player
count at each evaluation, and the learning curve (OUT/learning_curve.png) drawn from the
evaluations the run's state keeps.
"""

from __future__ import annotations

import os
from pathlib import Path


class RunLog:
    """``writer`` is the run's TensorBoard writer (a trainer's own scalars go there too)."""

    def __init__(self, out: Path, game: str, counts: tuple, log, purge_step: int | None = None):
        from torch.utils.tensorboard import SummaryWriter

        self.out, self.game, self.counts, self.log = out, game, counts, log
        self.writer = SummaryWriter(str(out / "tb"), purge_step=purge_step)

    def evaluation(
        self, state, at: int, result: dict, unit: str = "decisions", note: str = "model's mean reward per match"
    ) -> None:
        """One evaluation ({player count: versus_baselines result}, at ``at`` decisions or samples)
        into the state's list, TensorBoard, the log and the learning curve."""
        for n, r in result.items():
            state.evals.append({"decisions": at, "players": n, **r})
            for base, figures in r.items():
                self.writer.add_scalar(f"eval/{n}p/mean_reward_vs_{base}", figures["mean_reward"], at)
                self.writer.add_scalar(f"eval/{n}p/win_rate_vs_{base}", figures["win_rate"], at)
            self.log(
                f"{at:>11,} {unit}, {n}p: vs rules {r['rules']['mean_reward']:+.3f} "
                f"(wins {r['rules']['win_rate']:.0%}), vs random {r['random']['mean_reward']:+.3f} "
                f"(wins {r['random']['win_rate']:.0%})  [{note}]"
            )
        self.plot(state.evals)

    def plot(self, evals: list) -> None:
        """The learning curve: the model's mean reward against each baseline, per player count."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
        for ax, base in zip(axes, ("rules", "random")):
            for n in self.counts:
                pts = [(e["decisions"], e[base]["mean_reward"]) for e in evals if e["players"] == n]
                if pts:
                    xs, ys = zip(*pts)
                    ax.plot(xs, ys, marker="o", label=f"{n} players")
            ax.axhline(0, color="grey", lw=0.8)
            ax.set_title(f"vs {base}")
            ax.set_xlabel("learner decisions")
            ax.set_ylabel("model's mean reward per match")
            ax.legend(fontsize=8)
        fig.suptitle(f"{self.game}: {self.out.name}")
        fig.tight_layout()
        tmp = self.out / "learning_curve.tmp.png"
        fig.savefig(tmp, dpi=90)
        plt.close(fig)
        os.replace(tmp, self.out / "learning_curve.png")

    def close(self) -> None:
        self.writer.close()
