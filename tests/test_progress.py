"""The trainers' progress bar ends where the run will stop (training/common/progress.py)."""

from __future__ import annotations

import math

from cardzoo.training.common.progress import Progress, expected_total


def test_the_bar_ends_at_the_step_budget_or_where_the_time_limit_stops_the_run():
    assert expected_total(1000, 100, 10.0, math.inf) == 1000  # no time limit: the budget
    assert expected_total(50_000_000, 400_000, 2_000.0, 600.0) == 1_600_000  # the recipes: time comes first
    assert expected_total(1000, 100, 10.0, 600.0) == 1000  # the budget comes first
    assert expected_total(1000, 100, 10.0, -5.0) == 100  # out of time: it stops where it is
    assert expected_total(1000, 100, 0.0, 600.0) == 1000  # no rate measured yet


def test_a_time_bounded_bar_moves_its_total_to_the_expected_end(monkeypatch):
    clock = [0.0]
    monkeypatch.setattr("cardzoo.training.common.progress.time.monotonic", lambda: clock[0])
    bar = Progress(50_000_000, 0, 780.0, lambda: 180.0 + clock[0], True, "test", "sample")
    assert bar.bar is not None  # shown: the last argument asks for the bar
    clock[0] = 60.0
    bar.update(120_000)  # 2,000/s; 780 - 240 = 540 s left
    assert bar.bar.total == 120_000 + 2_000 * 540 and bar.bar.n == 120_000
    clock[0] = 600.0  # at 780 s of training: done
    bar.update(1_200_000)
    assert bar.bar.total == bar.bar.n == 1_200_000
    bar.close()
    Progress(10, 0, math.inf, lambda: 0.0, False, "off", "dec").update(5)  # disabled: nothing to draw
