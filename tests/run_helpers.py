"""Helpers of the kill-and-resume tests: a training run in a subprocess, killed once it has saved."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path


def kill_once_saved(argv: list[str], out: Path, decisions: int, timeout: float = 180) -> int:
    """Run ``cardzoo ARGV`` (saving into ``out``), SIGKILL it once its saved state holds at least
    ``decisions``; the decisions of the state it left."""
    proc = subprocess.Popen([sys.executable, "-m", "cardzoo", *argv], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    state = out / "state" / "state.json"
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                if json.loads(state.read_text())["state"]["decisions"] >= decisions:
                    break
            except (OSError, ValueError, KeyError):
                pass  # not written yet, or being replaced right now
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    return json.loads(state.read_text())["state"]["decisions"]
