"""The single-file examples run as a reader runs them (CI runs each in its short mode)."""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PPO = ROOT / "examples" / "ppo_vector.py"


def test_ppo_vector_trains_and_evaluates_in_its_short_mode():
    r = subprocess.run(
        [sys.executable, str(PPO), "--short"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
        timeout=300,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    last = r.stdout.strip().splitlines()[-1]
    assert re.fullmatch(
        r"trained at [\d,]+ decisions/s; against rules over 8 matches: reward per match [-+]\d+\.\d+, "
        r"mean place \d\.\d\d of 4, first place \d+%",
        last,
    ), last
    assert "update 2: 1,024 decisions" in r.stdout


def test_ppo_vector_is_one_short_file_whose_settings_are_its_flags(monkeypatch):
    assert len(PPO.read_text().splitlines()) <= 200
    spec = importlib.util.spec_from_file_location("ppo_vector", PPO)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(
        sys, "argv", ["ppo_vector.py", "--num-envs", "8", "--learning-rate", "0.001", "--opponents", "random"]
    )
    s = module.parse_settings()
    assert (s.num_envs, s.learning_rate, s.opponents, s.short) == (8, 0.001, "random", False)
    help_text = subprocess.run([sys.executable, str(PPO), "--help"], capture_output=True, text=True).stdout
    for f in dataclasses.fields(module.Settings):
        assert "--" + f.name.replace("_", "-") in help_text
