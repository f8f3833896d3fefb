"""The trainers' progress bar, whose end is where the run will really stop.

A run stops at ``--steps`` or at ``--max-minutes``, whichever comes first. The recipes (``cardzoo
train GAME``) are bounded by wall clock with a step budget far beyond reach (50M samples in 13
minutes), so a bar over the steps alone would say "4% done, 5 hours left" for a run that ends in
ten minutes. Here the bar's total is the steps the run will have made when it stops: the step
budget, or, where the time limit comes first, the steps so far plus what the rate measured since
this process started collecting adds in the minutes left.
"""

from __future__ import annotations

import math
import time


def expected_total(steps: int, done: int, rate: float, seconds_left: float) -> int:
    """Steps the run will have made when it stops: ``steps``, or fewer where ``seconds_left`` at
    ``rate`` steps/s runs out first (``seconds_left`` may be ``inf``: no time limit)."""
    if not math.isfinite(seconds_left) or rate <= 0:
        return steps
    return int(min(steps, done + rate * max(seconds_left, 0.0)))


class Progress:
    """A tqdm bar over a run's steps (or nothing, when ``enabled`` is false) that moves its total
    to ``expected_total`` after each iteration. ``limit`` is the run's wall-clock limit in seconds
    (``inf`` for none), ``wall()`` the seconds the run has trained so far (resumes included)."""

    def __init__(self, steps: int, done: int, limit: float, wall, enabled: bool, desc: str, unit: str):
        self.steps, self.limit, self.wall = steps, limit, wall
        self.bar = None
        self._start = (done, time.monotonic())  # the rate is measured from here (not over a warm start)
        if enabled:
            from tqdm import tqdm

            self.bar = tqdm(
                total=steps, initial=min(done, steps), unit=unit, unit_scale=True, dynamic_ncols=True, desc=desc
            )

    def update(self, done: int, **postfix) -> None:
        if self.bar is None:
            return
        first, since = self._start
        rate = (done - first) / max(time.monotonic() - since, 1e-9)
        total = max(expected_total(self.steps, done, rate, self.limit - self.wall()), done)
        if total != self.bar.total:
            self.bar.total = total
        self.bar.update(min(done, total) - self.bar.n)
        self.bar.set_postfix(**postfix)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
