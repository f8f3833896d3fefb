"""Checkpoints that are safe by construction: safetensors weights + a JSON sidecar.

``NAME.safetensors`` holds the actor network; ``NAME.json`` says what it is for: game, env
version, rule config, supported player counts, observation/action sizes, architecture, training
steps, evaluation results, creation date. Loading never unpickles, and a mismatched or corrupt
file gives a one-line ``CheckpointError`` naming what does not match.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file

from envs.registry import game_module
from training.policy import MaskedPolicyNet

FORMAT = "cardzoo-checkpoint/1"
REQUIRED = ("format", "game", "env", "obs_size", "num_actions", "hidden", "activation", "player_counts")


class CheckpointError(ValueError):
    """A checkpoint file is missing, corrupt, or does not fit the game asked for."""


def checkpoint_paths(path: str | os.PathLike) -> tuple[Path, Path]:
    """(weights, sidecar) for a path given as NAME, NAME.safetensors or NAME.json."""
    p = Path(path)
    stem = p.with_suffix("") if p.suffix in (".safetensors", ".json") else p
    return stem.with_suffix(".safetensors"), stem.with_suffix(".json")


def save_checkpoint(path, net: MaskedPolicyNet, meta: dict) -> Path:
    """Write NAME.safetensors + NAME.json; returns the weights path."""
    weights, sidecar = checkpoint_paths(path)
    weights.parent.mkdir(parents=True, exist_ok=True)
    meta = dict(meta)
    meta.setdefault("created", datetime.now(timezone.utc).isoformat(timespec="seconds"))
    meta.update(format=FORMAT, obs_size=net.obs_size, num_actions=net.num_actions)
    save_file({k: v.contiguous() for k, v in net.state_dict().items()}, str(weights),
              metadata={"format": FORMAT, "game": str(meta.get("game"))})
    sidecar.write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    return weights


def load_checkpoint(path) -> tuple[MaskedPolicyNet, dict]:
    weights, sidecar = checkpoint_paths(path)
    for f in (weights, sidecar):
        if not f.is_file():
            raise CheckpointError(f"checkpoint file not found: {f}")
    try:
        meta = json.loads(sidecar.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise CheckpointError(f"{sidecar} is not valid JSON ({e.msg if hasattr(e, 'msg') else e})") from None
    if not isinstance(meta, dict):
        raise CheckpointError(f"{sidecar} must hold a JSON object")
    missing = [k for k in REQUIRED if k not in meta]
    if missing:
        raise CheckpointError(f"{sidecar} lacks field(s): {', '.join(missing)}")
    if meta["format"] != FORMAT:
        raise CheckpointError(f"{sidecar}: format {meta['format']!r} is not {FORMAT!r}")
    try:
        state = load_file(str(weights))
    except (SafetensorError, OSError, ValueError) as e:
        raise CheckpointError(f"{weights} is not a readable safetensors file ({str(e).splitlines()[0]})") from None
    try:
        net = MaskedPolicyNet(int(meta["obs_size"]), int(meta["num_actions"]),
                              [int(h) for h in meta["hidden"]], str(meta["activation"]))
    except (TypeError, ValueError) as e:
        raise CheckpointError(f"{sidecar}: bad architecture ({e})") from None
    expected = {k: tuple(v.shape) for k, v in net.state_dict().items()}
    got = {k: tuple(v.shape) for k, v in state.items()}
    if expected != got:
        diff = sorted(set(expected.items()) ^ set(got.items()))
        raise CheckpointError(f"{weights} does not match the architecture in {sidecar.name}: {diff[0]}")
    net.load_state_dict(state)
    net.eval()
    return net, meta


class CheckpointAgent:
    """A trained policy behind the agent protocol (greedy; ``sample=True`` samples)."""

    def __init__(self, net: MaskedPolicyNet, meta: dict, seed: int | None = None, sample: bool = False):
        self.net, self.meta = net, meta
        self.name = meta.get("name", "checkpoint")
        self.rng = np.random.default_rng(seed) if sample else None

    def reset(self) -> None:
        pass

    def act(self, observation, action_mask) -> int:
        return self.net.act(observation, action_mask, self.rng)


def check_fits(meta: dict, config, source: str = "checkpoint") -> None:
    """Raise CheckpointError if a checkpoint cannot play the game/config given."""
    if config is None:
        return
    probe = game_module(meta["game"]).raw_env(**asdict(config))
    if meta["env"] != probe.metadata["name"]:
        raise CheckpointError(f"{source} is for {meta['env']}, not {probe.metadata['name']}")
    if config.num_players not in meta["player_counts"]:
        raise CheckpointError(f"{source} plays {meta['player_counts']} players, not {config.num_players}")
    if (probe.obs_size, probe.num_actions) != (meta["obs_size"], meta["num_actions"]):
        raise CheckpointError(
            f"{source} expects observation {meta['obs_size']} / actions {meta['num_actions']}, "
            f"this game config has {probe.obs_size} / {probe.num_actions}")


def load_agent(path, config=None, seed: int | None = None) -> CheckpointAgent:
    """Load a checkpoint as an agent, checking it fits ``config`` (the game being played)."""
    net, meta = load_checkpoint(path)
    if config is not None:
        game = type(config).__module__.split(".")[1]
        if meta["game"] != game:
            raise CheckpointError(f"{path} is a {meta['game']} checkpoint, not {game}")
        check_fits(meta, config, str(path))
    return CheckpointAgent(net, meta, seed)
