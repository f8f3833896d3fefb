"""A run directory and its resumable state, as every trainer with one keeps them (PPO, Deep
Monte-Carlo, SB3: whose resumable state is SB3's own OUT/model.zip in place of OUT/state/,
``cardzoo.training.sb3.run``).

    OUT/settings.json            every setting of the run (checked on --resume)
    OUT/state/state.json         counters, opponent pool and statistics, evaluation history
    OUT/state/state-G.safetensors  network + Adam state of generation G (state.json names it)
    OUT/pool/dN.safetensors      frozen snapshots (actor checkpoints) a pool samples from
    OUT/checkpoints/step_N.*     checkpoints at each evaluation; OUT/final.* at the end
    OUT/warm_start/part-I.safetensors  DMC: the warm start's finished parts (cardzoo.training.dmc.warm_start)

and beside them what the run reports (``cardzoo.training.common.run_log``): OUT/tb/ (TensorBoard)
and OUT/learning_curve.png; the evaluations are ``cardzoo.training.common.evaluator``'s.

Resume state is safetensors + JSON only (nothing is unpickled), and every file is written to a
temporary name and renamed into place, so a crash at any point leaves the previous state whole:
a SIGKILL loses at most the work since the last save. A trainer subclasses ``RunDir`` for what
its checkpoints say about it (``meta``) and which network they hold (``exported``).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field, fields
from pathlib import Path

import numpy as np
import torch
from safetensors import SafetensorError, safe_open
from safetensors.torch import load_file, save

from cardzoo.envs.config import config_dict
from cardzoo.envs.errors import UserError
from cardzoo.envs.registry import game_spec
from cardzoo.training.agents.checkpoint import atomic_write_bytes, atomic_write_text, save_checkpoint
from cardzoo.training.common.settings import read_json, refuse_changes

STATE_FORMAT = "cardzoo-ppo-state/1"  # the name PPO runs first wrote; DMC runs share it
MAX_STATE_JSON = 4 << 20


@dataclass
class RunState:
    iteration: int = 0
    decisions: int = 0
    samples: int = 0
    moves: int = 0
    matches: int = 0
    next_snapshot: int = 0
    next_eval: int = 0
    elapsed: float = 0.0  # wall-clock seconds of training, summed over resumes
    evals: list = field(default_factory=list)  # {"decisions", "players", "rules": {...}, "random": {...}}
    inflight: dict | None = None  # the collection running ahead of learning (see cardzoo.training.ppo.trainer)
    learner: dict = field(default_factory=dict)  # a trainer's own scalars (DMC: its learning credit)
    arrays: dict = field(default_factory=dict, repr=False)  # a trainer's own arrays (DMC: its replay buffer)
    started: float = field(default_factory=time.monotonic, repr=False)

    def wall(self) -> float:
        return self.elapsed + time.monotonic() - self.started

    def elapsed_hint(self, run=None) -> str:
        minutes = self.wall() / 60
        return f"{minutes:.1f} min of training"


def save_run_state(state_dir: Path, net, optimizer, pool, state: RunState) -> None:
    """Network + optimizer tensors in a new generation file, then state.json pointing at it.
    ``pool`` is the trainer's opponent pool (``to_json``/``load_json``), or None."""
    state_dir.mkdir(parents=True, exist_ok=True)
    old = read_json(state_dir / "state.json", MAX_STATE_JSON) if (state_dir / "state.json").exists() else None
    generation = (old or {}).get("generation", 0) + 1
    # CPU tensors: a run saved on one device resumes on another
    tensors = {f"net.{k}": v.detach().cpu().contiguous() for k, v in net.state_dict().items()}
    opt = optimizer.state_dict()
    for idx, per_param in opt["state"].items():
        for key, value in per_param.items():
            tensors[f"opt.{idx}.{key}"] = torch.as_tensor(value).detach().cpu().clone().contiguous()
    if state.inflight is not None:  # the behaviour weights of the collection in flight
        for k, v in state.inflight["weights"].items():
            tensors[f"behaviour.{k}"] = torch.from_numpy(np.ascontiguousarray(v))
    for k, v in state.arrays.items():
        tensors[f"arrays.{k}"] = torch.from_numpy(np.ascontiguousarray(v))
    weights = state_dir / f"state-{generation}.safetensors"
    atomic_write_bytes(weights, save(tensors))
    counters = {
        f.name: getattr(state, f.name)
        for f in fields(RunState)
        if f.name not in ("started", "elapsed", "inflight", "arrays")
    }
    if state.inflight is not None:
        counters["inflight"] = {k: v for k, v in state.inflight.items() if k != "weights"}
    doc = {
        "format": STATE_FORMAT,
        "generation": generation,
        "weights": weights.name,
        "state": {**counters, "elapsed": state.wall()},
        "optimizer": {"param_groups": opt["param_groups"]},
        "pool": pool.to_json() if pool is not None else {},
    }
    atomic_write_text(state_dir / "state.json", json.dumps(doc, indent=1) + "\n")
    for stale in state_dir.glob("state-*.safetensors"):
        if stale.name != weights.name:
            stale.unlink(missing_ok=True)


# RunState's counters as state.json holds them: whole numbers, bounded so a damaged file cannot
# smuggle in a 5,000-digit integer
_COUNTERS = ("iteration", "decisions", "samples", "moves", "matches", "next_snapshot", "next_eval")
_MAX_COUNTER = 1 << 62


def check_run_state(state_dir: Path) -> dict:
    """The saved state's JSON, checked whole — its format, its counters' types, a weights file that
    is all there — before a resume writes anything; one line naming the damaged file otherwise."""
    path = state_dir / "state.json"
    doc = read_json(path, MAX_STATE_JSON)
    if doc.get("format") != STATE_FORMAT:
        raise UserError(f"{path} is not a cardzoo training state ({str(doc.get('format'))[:40]!r})")
    saved = doc.get("state")
    problem = _state_problem(doc, saved if isinstance(saved, dict) else {})
    if problem:
        raise UserError(f"{path} is damaged: {problem}")
    weights = state_dir / doc["weights"]
    try:
        with safe_open(str(weights), "pt"):
            pass
    except (SafetensorError, OSError) as e:  # truncated, a bad header, missing
        raise UserError(f"{weights} is damaged ({str(e).splitlines()[0][:200]})") from None
    return doc


def _state_problem(doc: dict, saved: dict) -> str:
    """What is wrong with a state.json's fields, or ''."""
    name = doc.get("weights")
    if not isinstance(name, str) or "/" in name or "\\" in name or not name.endswith(".safetensors"):
        return "bad weights file name"
    if not isinstance(doc.get("state"), dict):
        return "no counters"
    generation = doc.get("generation")
    if not isinstance(generation, int) or isinstance(generation, bool) or not 0 <= generation <= _MAX_COUNTER:
        return f"generation must be a whole number >= 0, not {str(generation)[:40]!r}"
    for key in _COUNTERS:
        value = saved.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= _MAX_COUNTER:
            return f"{key} must be a whole number >= 0, not {str(value)[:40]!r}"
    elapsed = saved.get("elapsed")
    if not isinstance(elapsed, (int, float)) or isinstance(elapsed, bool) or not 0 <= elapsed < 1e12:
        return f"elapsed must be seconds >= 0, not {str(elapsed)[:40]!r}"
    for key, kind in (("evals", list), ("learner", dict), ("inflight", (dict, type(None)))):
        if key in saved and not isinstance(saved[key], kind):
            return f"{key} has the wrong type"
    optimizer = doc.get("optimizer")
    if not isinstance(optimizer, dict) or not isinstance(optimizer.get("param_groups"), list):
        return "no optimizer settings"
    if not isinstance(doc.get("pool", {}), dict):
        return "bad opponent pool"
    return ""


def load_run_state(state_dir: Path, net, optimizer, pool) -> RunState:
    doc = check_run_state(state_dir)
    try:
        tensors = load_file(str(state_dir / doc["weights"]))
        net.load_state_dict({k[4:]: v for k, v in tensors.items() if k.startswith("net.")})
        opt_state: dict = {}
        for key, value in tensors.items():
            if key.startswith("opt."):
                _, idx, name = key.split(".", 2)
                opt_state.setdefault(int(idx), {})[name] = value
        optimizer.load_state_dict({"state": opt_state, "param_groups": doc["optimizer"]["param_groups"]})
        if pool is not None:
            pool.load_json(doc["pool"])
        saved = doc["state"]
        optional = {"learner"}  # states written before trainers kept scalars of their own lack it
        state = RunState(
            **{
                f.name: saved[f.name]
                for f in fields(RunState)
                if f.name not in ("started", "inflight", "arrays") and (f.name in saved or f.name not in optional)
            }
        )
        state.arrays = {k[len("arrays.") :]: v.numpy() for k, v in tensors.items() if k.startswith("arrays.")}
        if saved.get("inflight") is not None:
            inflight = dict(saved["inflight"])
            inflight["weights"] = {
                k[len("behaviour.") :]: v.numpy() for k, v in tensors.items() if k.startswith("behaviour.")
            }
            if set(inflight["weights"]) != set(net.state_dict()):
                raise UserError("the behaviour weights do not fit the network")
            state.inflight = inflight
    except (KeyError, TypeError, ValueError, RuntimeError, OSError, SafetensorError) as e:
        raise UserError(f"the resume state in {state_dir} is damaged ({str(e).splitlines()[0][:200]})") from None
    return state


class RunDir:
    ALGORITHM = ""  # the sidecar's "algorithm"
    # a trainer that keeps work of its own before its first save (the DMC warm start's parts) may
    # --resume a run stopped before that save: it starts over with the run's settings, reusing that work
    RESUMES_UNSAVED = False
    FOLDERS: tuple[str, ...] = ("state", "pool", "checkpoints")  # made in OUT
    SNAPSHOT = "d{}"  # a pool snapshot's name, from the decisions it was taken at

    def __init__(self, out: Path, settings, resume: bool):
        self.out, self.s = out, settings
        self.state_dir = out / "state"
        self.pool_dir = out / "pool"
        self.ckpt_dir = out / "checkpoints"
        self._check(resume)
        try:
            for d in (out, *(out / f for f in self.FOLDERS)):
                d.mkdir(parents=True, exist_ok=True)
            atomic_write_text(out / "settings.json", json.dumps(settings.to_json(), indent=2) + "\n")
        except OSError as e:
            raise UserError(f"cannot write the run directory {out} ({e.strerror or e})") from None
        self.spec = game_spec(settings.game)
        self.probe = self.spec.module.raw_env(num_players=settings.player_counts()[0], **settings.variants)

    def _check(self, resume: bool) -> None:
        """A new run needs an --out that holds none; a resumed one a run of the same settings (but
        those a resume may change) and a saved state that is whole. Nothing is written before."""
        out, has_run = self.out, self.saved()
        if resume and not has_run and not (self.RESUMES_UNSAVED and (out / "settings.json").exists()):
            raise UserError(f"nothing to resume: {self.saved_path} does not exist")
        if not resume and (has_run or (out / "settings.json").exists()):
            raise UserError(f"{out} already holds a run; use --resume to continue it or another --out")
        if resume:
            refuse_changes(self.s, out)
        if resume and has_run:
            self.check_saved()

    @property
    def saved_path(self) -> Path:
        """The file a run resumes from once it has saved."""
        return self.state_dir / "state.json"

    def saved(self) -> bool:
        """Whether the run has saved a state to resume from."""
        return self.saved_path.exists()

    def check_saved(self) -> None:
        """A damaged saved state is refused in one line, before anything is written."""
        check_run_state(self.state_dir)

    def meta(self, name: str, state: RunState, evaluation: dict) -> dict:
        """The checkpoint sidecar's description of the run; trainers add their own fields."""
        s = self.s
        return {
            "name": name,
            "game": s.game,
            "env": self.probe.metadata["name"],
            "config": config_dict(self.probe.config),
            "player_counts": list(s.player_counts()),
            "training_steps": int(state.decisions),
            "training_matches": int(state.matches),
            "training_minutes": round(state.wall() / 60, 1),
            "algorithm": self.ALGORITHM,
            "seed": s.seed,
            "settings": s.to_json(),
            "evaluation": evaluation or {},
        }

    def exported(self, net):
        """The network a checkpoint holds (PPO exports the actor of its actor-critic)."""
        return net

    def write_checkpoint(self, net, name: str, state: RunState, evaluation: dict) -> Path:
        where = self.out / name if name == "final" else self.ckpt_dir / name
        return save_checkpoint(where, self.exported(net), self.meta(name, state, evaluation))

    def save_snapshot(self, net, state: RunState) -> str:
        sid = self.SNAPSHOT.format(state.decisions)
        save_checkpoint(self.pool_dir / sid, self.exported(net), self.meta(sid, state, {}))
        return sid
