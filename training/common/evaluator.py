"""The evaluation of a run's checkpoints, the one every trainer uses: a checkpoint against the rule
bot and against random at each player count of the run (duplicate deals, the checkpoint playing
greedily), now or in a process of its own so that learning goes on meanwhile (DMC's).
"""

from __future__ import annotations

import multiprocessing as mp
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from multiprocessing.pool import AsyncResult


def evaluate_counts(path: str, game: str, seeds: dict, games: int, variants: dict) -> dict:
    """{player count: versus_baselines result}, each count on ``games`` games from its own seed."""
    from cardzoo.training.evaluation.tournament import versus_baselines

    return {n: versus_baselines(path, game, n, games, seed, options=variants or None) for n, seed in seeds.items()}


def _init_background() -> None:
    import torch

    from cardzoo.training.parallel.workers import _die_with_parent

    _die_with_parent()
    torch.set_num_threads(1)


class Evaluator:
    """``evaluator(path, seeds)`` evaluates now; with ``background``, ``start`` evaluates in a process
    of its own, one checkpoint at a time, and ``finished``/``wait`` hand its result back. A
    context manager: leaving it ends that process."""

    def __init__(self, game: str, games: int, variants: dict, background: bool = False):
        self.game, self.games, self.variants = game, games, variants
        self._process = mp.get_context("spawn").Pool(1, initializer=_init_background) if background else None
        self._pending: tuple[int, AsyncResult] | None = None  # (at, result) of the evaluation in the background

    def __call__(self, path: Path | str, seeds: dict) -> dict:
        return evaluate_counts(str(path), self.game, seeds, self.games, self.variants)

    def start(self, path: Path | str, seeds: dict, at: int) -> None:
        """Evaluate ``path`` in the background; ``at``: where the run was (its learning curve's x)."""
        if self._process is None:
            raise RuntimeError("Evaluator.start needs an evaluator made with background=True")
        self._pending = (
            at,
            self._process.apply_async(evaluate_counts, (str(path), self.game, seeds, self.games, self.variants)),
        )

    def busy(self) -> bool:
        return self._pending is not None

    def finished(self) -> tuple[int, dict] | None:
        """(at, result) of the background evaluation once it is done, else None."""
        if self._pending is None or not self._pending[1].ready():
            return None
        return self.wait()

    def wait(self) -> tuple[int, dict] | None:
        """(at, result) of the background evaluation, waited for; None when there is none."""
        if self._pending is None:
            return None
        (at, result), self._pending = self._pending, None
        return at, result.get()

    def __enter__(self) -> Evaluator:
        return self

    def __exit__(self, *exc) -> None:
        if self._process is not None:
            self._process.terminate()
