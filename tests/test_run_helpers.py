"""The kill-and-resume helper kills a run mid-way whatever the load: a test that looks late (its
process starved on a busy machine) still finds the run stopped at its first save of the mark."""

from __future__ import annotations

import os
import subprocess

from tests import run_helpers

DMC_RUN = [
    "train",
    "suipi",
    "--algo",
    "dmc",
    "--players",
    "2",
    "--workers",
    "1",
    "--matches",
    "4",
    "--batch",
    "150",
    "--minibatch",
    "64",
    "--replay",
    "1000",
    "--hidden",
    "16",
    "--eval-games",
    "0",
    "--imitate",
    "1",
    "--steps",
    "1500",
    "--save-every",
    "1e-6",
    "--no-progress",
]


def test_a_run_is_killed_at_its_first_save_of_the_mark_however_late_the_test_looks(tmp_path, monkeypatch):
    started, popen = [], subprocess.Popen

    def recorded(*args, **kwargs):
        started.append(popen(*args, **kwargs))
        return started[-1]

    def starved(seconds):  # the test wakes only once the run has stopped or ended (its state kept for wait)
        os.waitid(os.P_PID, started[0].pid, os.WEXITED | os.WSTOPPED | os.WNOWAIT)

    monkeypatch.setattr(run_helpers.subprocess, "Popen", recorded)
    monkeypatch.setattr(run_helpers.time, "sleep", starved)
    saved = run_helpers.kill_once_saved([*DMC_RUN, "--out", str(tmp_path)], tmp_path, 300)
    assert 300 <= saved < 1500 and not (tmp_path / "final.safetensors").exists()
