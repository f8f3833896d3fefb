"""Helpers of the kill-and-resume tests: a training run in a subprocess, killed once it has saved."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# `cardzoo ARGV` whose trainer stops itself (SIGSTOP) right after its first save of at least
# DECISIONS decisions: however late the test looks, the run waits there to be killed mid-run
# (its next collection under way) instead of going on to its end.
_STOP_AT_SAVE = """
import os, signal, sys
from cardzoo.scripts.cli import main
from cardzoo.training.dmc import trainer as dmc
from cardzoo.training.ppo import trainer as ppo

def stopping(save, decisions):
    def save_then_stop(state_dir, net, optimizer, pool, state):
        save(state_dir, net, optimizer, pool, state)
        if state.decisions >= decisions:
            os.kill(os.getpid(), signal.SIGSTOP)
    return save_then_stop

for trainer in (dmc, ppo):
    trainer.save_run_state = stopping(trainer.save_run_state, int(sys.argv[1]))
sys.exit(main(sys.argv[2:]))
"""


def kill_once_saved(argv: list[str], out: Path, decisions: int, timeout: float = 600) -> int:
    """Run ``cardzoo ARGV`` (saving into ``out``), SIGKILL it and its workers at its first save of
    at least ``decisions``; the decisions of the state it left. ``timeout`` only stops a hung run."""
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            [sys.executable, "-c", _STOP_AT_SAVE, str(decisions), *argv],
            stdout=subprocess.DEVNULL,
            stderr=err,
            start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        try:
            while not (status := os.waitpid(proc.pid, os.WNOHANG | os.WUNTRACED))[0]:
                assert time.monotonic() < deadline, f"cardzoo {' '.join(argv)}: no save of {decisions} in {timeout:g} s"
                time.sleep(0.05)
        finally:
            with contextlib.suppress(ProcessLookupError):  # the run and its workers (its session)
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        if not os.WIFSTOPPED(status[1]):
            err.seek(0)
            raise AssertionError(
                f"cardzoo {' '.join(argv)} ended (wait status {status[1]}) before a save of "
                f"{decisions} decisions: {err.read().decode(errors='replace')[-2000:]}"
            )
    return json.loads((out / "state" / "state.json").read_text())["state"]["decisions"]
