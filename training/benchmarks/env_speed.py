"""Measurement loops for ``cardzoo bench``: our games and reference environments, side by side.

Everything here measures random legal play on one core:

* ``engine``  -- ``envs.<game>.engine.random_match(config, rng)`` in a loop: engine moves/s.
* ``raw``     -- the game's ``raw_env`` driven the way a training loop drives it: ``agent_iter()``,
  ``last()`` (which builds the observation vector and the action mask of the acting seat), a random
  legal action drawn from the mask, ``step()``. Only decisions count as steps (the ``step(None)``
  calls for finished agents do not).
* ``wrapped`` -- the same loop over ``env()`` (TerminateIllegal -> AssertOutOfBounds ->
  OrderEnforcing), so the cost of PettingZoo's standard wrappers shows as the gap to ``raw``.

Reference environments (optional: ``pip install -e ".[bench]"``) run the same kind of loop:
RLCard ``env.step`` with a random key of ``state["legal_actions"]`` (RLCard builds the next
observation inside ``step``); PettingZoo classic envs with the very same AEC loop as ours (raw and
wrapped); OpenSpiel ``dou_dizhu`` with ``observation_tensor`` and ``legal_actions_mask`` turned into
numpy arrays at every decision, chance nodes sampled and not counted.

A *section* is one loop: a warm-up, then ``runs`` timed runs of about ``seconds`` each. A run plays
whole episodes (checking the clock every 256 steps, so one long episode cannot overrun much) and its
rate is steps per CPU second of the process (``time.process_time``; ``--clock wall`` for wall
time; on a shared machine the wall clock also counts time other processes held the core, and
``cpu_share`` records how much of it we had); we report the median and the min-max over runs. Games/s is the median
rate divided by the mean episode length over all completed episodes. Memory: after the timed runs,
one more episode (including building the env) runs under ``tracemalloc`` for the peak of Python
allocations of that section, and ``ru_maxrss`` of the process is recorded after each section
(it only grows, so it is an upper bound of the process so far).

Nothing here asserts on time; ``cardzoo bench`` (scripts/bench_cmd.py) is the front end.
"""

from __future__ import annotations

import cProfile
import gc
import importlib
import math
import os
import platform
import pstats
import random
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from cardzoo.envs.errors import UserError

SCHEMA = "cardzoo-bench/1"
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Speed targets from the game issues: (engine moves/s, raw AEC steps/s)
TARGETS = {"siantappo": (50_000, 20_000), "suipi": (30_000, 15_000), "samsip": (50_000, 20_000)}

SECTIONS = ("engine", "raw", "wrapped")
CHECK_EVERY = 256  # steps between clock checks inside an episode


# ---------------------------------------------------------------------------------- settings
@dataclass
class Settings:
    runs: int = 5
    seconds: float = 1.0  # per timed run
    warmup: float = 0.5  # seconds of untimed warm-up per section
    seed: int = 0
    memory: bool = True  # the tracemalloc pass
    memory_seconds: float = 1.0  # cap on the tracemalloc pass (it may stop mid-episode)
    clock: str = "cpu"  # rates per CPU second of the process ("cpu") or per wall second ("wall")

    @classmethod
    def quick(cls) -> "Settings":
        return cls(runs=1, seconds=0.05, warmup=0.02, memory=True, memory_seconds=0.05)


# ----------------------------------------------------------------------------------- results
@dataclass
class Section:
    """One measured loop."""

    name: str  # engine / raw / wrapped
    unit: str  # moves or steps
    rates: list[float]  # per run, unit/s
    steps: int  # total counted over the timed runs
    episodes: int  # completed episodes over warm-up and timed runs
    episode_steps: int  # steps in those completed episodes
    seconds: float  # total timed seconds
    py_peak_kib: float | None = None
    maxrss_kib: int | None = None
    cpu_share: float | None = None  # process CPU time / wall time over the timed runs

    @property
    def median(self) -> float:
        return statistics.median(self.rates) if self.rates else 0.0

    @property
    def steps_per_game(self) -> float | None:
        return self.episode_steps / self.episodes if self.episodes else None

    @property
    def games_per_s(self) -> float | None:
        spg = self.steps_per_game
        return self.median / spg if spg else None

    def to_json(self) -> dict:
        return {
            "unit": self.unit,
            "median": round(self.median, 1),
            "min": round(min(self.rates), 1) if self.rates else None,
            "max": round(max(self.rates), 1) if self.rates else None,
            "runs": [round(r, 1) for r in self.rates],
            "steps": self.steps,
            "seconds": round(self.seconds, 4),
            "cpu_share": _r(self.cpu_share, 3),
            "episodes": self.episodes,
            "steps_per_game": _r(self.steps_per_game, 2),
            "games_per_s": _r(self.games_per_s, 2),
            "py_peak_kib": _r(self.py_peak_kib, 1),
            "maxrss_kib": self.maxrss_kib,
        }


@dataclass
class Entry:
    """One benchmarked environment: one of our games at one player count, or a reference."""

    kind: str  # "ours" or "reference"
    name: str  # game name, or e.g. "rlcard/doudizhu"
    players: int
    sections: dict[str, Section] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    primary: str = "raw"  # the section used for ratios
    note: str = ""
    short: str = ""

    @property
    def label(self) -> str:
        return f"{self.name} {self.players}p"

    def rate(self, section: str) -> float | None:
        s = self.sections.get(section)
        return s.median if s and s.rates else None

    def wrapper_share(self) -> float | None:
        """Fraction of env() time spent in PettingZoo's wrappers: (1/wrapped - 1/raw) / (1/wrapped)."""
        raw, wrapped = self.rate("raw"), self.rate("wrapped")
        if not raw or not wrapped:
            return None
        return 1.0 - wrapped / raw

    def wrapper_us_per_step(self) -> float | None:
        """What the wrappers add to one step, in microseconds: 1/wrapped - 1/raw."""
        raw, wrapped = self.rate("raw"), self.rate("wrapped")
        if not raw or not wrapped:
            return None
        return 1e6 * (1.0 / wrapped - 1.0 / raw)

    def to_json(self) -> dict:
        d: dict[str, Any] = {
            "kind": self.kind,
            "name": self.name,
            "players": self.players,
            "primary": self.primary,
            "short": self.short or self.label,
            "sections": {k: s.to_json() for k, s in self.sections.items()},
        }
        share = self.wrapper_share()
        d["wrapper_share"] = _r(share, 4)
        d["wrapper_us_per_step"] = _r(self.wrapper_us_per_step(), 2)
        if self.kind == "ours" and self.name in TARGETS:
            eng_t, raw_t = TARGETS[self.name]
            d["targets"] = {
                "engine": {"target": eng_t, "met": _met(self.rate("engine"), eng_t)},
                "raw": {"target": raw_t, "met": _met(self.rate("raw"), raw_t)},
            }
        if self.errors:
            d["errors"] = dict(self.errors)
        if self.note:
            d["note"] = self.note
        return d


def _r(x, nd):
    return None if x is None else round(x, nd)


def _met(rate, target):
    return None if rate is None else bool(rate >= target)


# ---------------------------------------------------------------------------- the timing core
# A "player" plays one episode: play(rng, deadline) -> (steps, finished). A "factory" builds a
# fresh player (new env etc.); it is called once per section and once more for the memory pass.
Player = Callable[[random.Random, float], "tuple[int, bool]"]


def measure(name: str, unit: str, factory: Callable[[], Player], settings: Settings) -> Section:
    clock, cpu_clock = time.perf_counter, time.process_time
    play = factory()
    rng = random.Random(settings.seed)
    episodes = episode_steps = 0

    def run_for(seconds: float) -> tuple[int, float, float]:
        nonlocal episodes, episode_steps
        steps = 0
        cpu0 = cpu_clock()
        start = clock()
        deadline = start + seconds
        while True:
            n, finished = play(rng, deadline)
            steps += n
            if finished:
                episodes += 1
                episode_steps += n
            now = clock()
            if now >= deadline and steps:
                return steps, cpu_clock() - cpu0, now - start

    gc.collect()
    run_for(settings.warmup)
    rates, total_steps, total_cpu, total_wall = [], 0, 0.0, 0.0
    for _ in range(settings.runs):
        gc.collect()
        steps, cpu, wall = run_for(settings.seconds)
        # Rates per CPU second of this process: on a shared machine the wall clock also counts the
        # time other processes held our core. cpu_share says how much of the wall time we had.
        basis = cpu if settings.clock == "cpu" and cpu > 0 else wall
        rates.append(steps / basis)
        total_steps += steps
        total_cpu += cpu
        total_wall += wall
    section = Section(name, unit, rates, total_steps, episodes, episode_steps,
                      total_cpu if settings.clock == "cpu" else total_wall)
    section.cpu_share = total_cpu / total_wall if total_wall else None
    if settings.memory:
        section.py_peak_kib = _traced_peak(factory, settings)
    section.maxrss_kib = maxrss_kib()
    return section


def _traced_peak(factory, settings: Settings) -> float:
    gc.collect()
    tracemalloc.start()
    try:
        play = factory()
        # tracemalloc slows Python down a lot: cap the pass by time (a partial episode is fine)
        play(random.Random(settings.seed + 1), time.perf_counter() + settings.memory_seconds)
        return tracemalloc.get_traced_memory()[1] / 1024
    finally:
        tracemalloc.stop()


def maxrss_kib() -> int:
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(rss // 1024) if sys.platform == "darwin" else int(rss)  # bytes on macOS, KiB on Linux


# ------------------------------------------------------------------------------- AEC loops
def aec_player(make_env: Callable[[], Any], seed: int) -> Player:
    """The training-style AEC loop over a PettingZoo env (ours or a reference)."""
    env = make_env()
    state = {"first": True}
    flatnonzero = np.flatnonzero
    clock = time.perf_counter

    def play(rng: random.Random, deadline: float) -> tuple[int, bool]:
        if state["first"]:
            env.reset(seed=seed)  # seed once, then continue the env's stream as training does
            state["first"] = False
        else:
            env.reset()
        rnd = rng.random
        last, step = env.last, env.step
        steps = 0
        for _agent in env.agent_iter():
            obs, _reward, term, trunc, _info = last()
            if term or trunc:
                step(None)
                continue
            legal = flatnonzero(obs["action_mask"])
            step(int(legal[int(rnd() * len(legal))]))
            steps += 1
            if not steps % CHECK_EVERY and clock() >= deadline:
                return steps, False
        return steps, True

    return play


def engine_player(random_match: Callable, config) -> Player:
    def play(rng: random.Random, deadline: float) -> tuple[int, bool]:
        return random_match(config, random.Random(rng.getrandbits(63))), True

    return play


# ------------------------------------------------------------------------------ our games
@dataclass
class GameHandle:
    name: str
    players: tuple[int, ...]
    default_players: int
    env: Callable | None = None
    raw_env: Callable | None = None
    config_cls: type | None = None
    random_match: Callable | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def usable(self) -> bool:
        return self.random_match is not None or self.raw_env is not None

    def config(self, players: int):
        if self.raw_env is not None:
            return self.raw_env(num_players=players).config  # exactly what the env plays
        return self.config_cls(num_players=players)


def load_game(name: str) -> GameHandle:
    """A registered game's env module, engine ``random_match`` and rule config class."""
    from cardzoo.envs.registry import DEFAULT_PLAYERS, GAME_MODULES, PLAYER_COUNTS, game_spec

    if name not in GAME_MODULES:
        raise UserError(f"unknown game {name!r}; games are: {', '.join(GAME_MODULES)}")
    h = GameHandle(name, tuple(PLAYER_COUNTS[name]), DEFAULT_PLAYERS[name])
    spec = game_spec(name)
    h.env, h.raw_env = spec.module.env, spec.module.raw_env
    h.config_cls = spec.config
    h.random_match = importlib.import_module(f"cardzoo.envs.{name}.engine").random_match
    return h


def bench_game(h: GameHandle, players: int, settings: Settings, progress=None) -> Entry:
    entry = Entry("ours", h.name, players)

    def section(name, unit, factory):
        if progress:
            progress(f"{entry.label}: {name}")
        try:
            entry.sections[name] = measure(name, unit, factory, settings)
        except Exception as e:
            entry.errors[name] = f"{type(e).__name__}: {e}"

    if h.random_match is not None:
        try:
            cfg = h.config(players)
        except Exception as e:
            entry.errors["engine"] = f"{type(e).__name__}: {e}"
        else:
            section("engine", "moves", lambda: engine_player(h.random_match, cfg))
    else:
        entry.errors["engine"] = "engine random_match not available"
    if h.raw_env is not None:
        section("raw", "steps", lambda: aec_player(lambda: h.raw_env(num_players=players), settings.seed))
        section("wrapped", "steps", lambda: aec_player(lambda: h.env(num_players=players), settings.seed))
    else:
        entry.errors["raw"] = entry.errors["wrapped"] = "env module not available"
    return entry


# ----------------------------------------------------------------------------- references
@dataclass
class Reference:
    name: str
    players: int
    library: str  # import name that must be present
    sections: dict[str, Callable[[int], Callable[[], Player]]]  # section -> (seed -> factory)
    primary: str = "raw"
    note: str = ""
    short: str = ""  # column label in the ratio table


def _rlcard_factory(env_id: str):
    def for_seed(seed: int):
        def factory() -> Player:
            import rlcard

            env = rlcard.make(env_id, config={"seed": seed})
            clock = time.perf_counter

            def play(rng: random.Random, deadline: float) -> tuple[int, bool]:
                rnd = rng.random
                state, _pid = env.reset()
                steps = 0
                while not env.is_over():
                    legal = list(state["legal_actions"])
                    state, _pid = env.step(legal[int(rnd() * len(legal))])
                    steps += 1
                    if not steps % CHECK_EVERY and clock() >= deadline:
                        return steps, False
                return steps, True

            return play

        return factory

    return for_seed


def _pz_factory(module_name: str, raw: bool):
    def for_seed(seed: int):
        def factory() -> Player:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                mod = importlib.import_module(f"pettingzoo.classic.{module_name}")
            return aec_player(mod.raw_env if raw else mod.env, seed)

        return factory

    return for_seed


def _openspiel_factory(game_name: str):
    def for_seed(seed: int):
        def factory() -> Player:
            import pyspiel

            game = pyspiel.load_game(game_name)
            asarray, flatnonzero = np.asarray, np.flatnonzero
            f32, i8 = np.float32, np.int8
            clock = time.perf_counter

            def play(rng: random.Random, deadline: float) -> tuple[int, bool]:
                rnd = rng.random
                state = game.new_initial_state()
                steps = 0
                while not state.is_terminal():
                    if state.is_chance_node():
                        actions, probs = zip(*state.chance_outcomes())
                        state.apply_action(rng.choices(actions, probs)[0])
                        continue
                    p = state.current_player()
                    _obs = asarray(state.observation_tensor(p), dtype=f32)
                    mask = asarray(state.legal_actions_mask(p), dtype=i8)
                    legal = flatnonzero(mask)
                    state.apply_action(int(legal[int(rnd() * len(legal))]))
                    steps += 1
                    if not steps % CHECK_EVERY and clock() >= deadline:
                        return steps, False
                return steps, True

            return play

        return factory

    return for_seed


REFERENCES = [
    Reference("rlcard/doudizhu", 3, "rlcard", {"raw": _rlcard_factory("doudizhu")},
              note="env.step builds the next observation", short="RLC doudizhu"),
    Reference("rlcard/uno", 2, "rlcard", {"raw": _rlcard_factory("uno")}, short="RLC uno"),
    Reference("rlcard/gin-rummy", 2, "rlcard", {"raw": _rlcard_factory("gin-rummy")}, short="RLC gin"),
    Reference("pettingzoo/leduc_holdem_v4", 2, "rlcard",
              {"raw": _pz_factory("leduc_holdem_v4", True), "wrapped": _pz_factory("leduc_holdem_v4", False)},
              short="PZ leduc"),
    Reference("pettingzoo/texas_holdem_v4", 2, "rlcard",
              {"raw": _pz_factory("texas_holdem_v4", True), "wrapped": _pz_factory("texas_holdem_v4", False)},
              short="PZ texas"),
    Reference("pettingzoo/connect_four_v3", 2, "pettingzoo",
              {"raw": _pz_factory("connect_four_v3", True), "wrapped": _pz_factory("connect_four_v3", False)},
              short="PZ c4"),
    Reference("openspiel/dou_dizhu", 3, "pyspiel", {"raw": _openspiel_factory("dou_dizhu")},
              note="observation_tensor + legal_actions_mask (26,057 ids) as numpy each decision",
              short="OS doudizhu"),
]


def reference_available(ref: Reference) -> str | None:
    """None when the reference can run, else why not."""
    libs = [ref.library] + (["pygame"] if ref.name.startswith("pettingzoo/") else [])
    for lib in libs:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                importlib.import_module(lib)
        except Exception as e:
            return f"{lib} not importable ({type(e).__name__}: {e}); install the bench extra"
    return None


def bench_reference(ref: Reference, settings: Settings, progress=None) -> Entry:
    entry = Entry("reference", ref.name, ref.players, primary=ref.primary, note=ref.note,
                  short=ref.short or ref.name)
    for name, for_seed in ref.sections.items():
        if progress:
            progress(f"{entry.label}: {name}")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                entry.sections[name] = measure(name, "steps", for_seed(settings.seed), settings)
        except Exception as e:
            entry.errors[name] = f"{type(e).__name__}: {e}"
    return entry


# ------------------------------------------------------------------------------- the floor
def _null_env_class():
    """A CardGameEnv whose hooks cost (almost) nothing: what envs/base.py + PettingZoo + the loop
    cost per step on their own, i.e. the ceiling every game's AEC speed lives under."""
    from cardzoo.envs.base import CardGameEnv, StepOutcome

    @dataclass(frozen=True)
    class NullConfig:
        num_players: int = 4

    class NullGameEnv(CardGameEnv):
        metadata = {"name": "null_v0", "render_modes": ["ansi"], "is_parallelizable": False, "render_fps": 1}
        num_actions, max_players, obs_size = 368, 6, 633  # Siantappo's sizes
        EPISODE = 400  # steps; a reward every 50

        def __init__(self, num_players: int = 4, render_mode=None):
            super().__init__(NullConfig(num_players), render_mode)
            self.t = 0
            self.obs = np.zeros(self.obs_size, dtype=np.float32)

        def _start(self, rng, deck):
            self.t = 0

        def _acting_seat(self):
            return self.t % self.num_players

        def _legal_actions(self):
            return [0, 5, 9]

        def _encode(self, seat):
            return self.obs

        def _apply(self, action):
            self.t += 1
            rewards = {0: 1.0, 1: -1.0} if self.t % 50 == 0 else {}
            return StepOutcome(rewards=rewards, done=self.t >= self.EPISODE)

        def _action_text(self, action):
            return str(action)

        def _render_text(self):
            return f"step {self.t}"

    return NullGameEnv


def bench_floor(settings: Settings, progress=None) -> Entry:
    """The null game through the same raw and wrapped loops (not a reference: no ratios)."""
    from pettingzoo.utils import wrappers

    cls = _null_env_class()

    def wrapped(**kw):
        e = cls(**kw)
        e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
        e = wrappers.AssertOutOfBoundsWrapper(e)
        return wrappers.OrderEnforcingWrapper(e)

    entry = Entry("floor", "null-game", 4, note="envs/base.py + PettingZoo + loop; game hooks ~0",
                  short="floor")
    for name, make in (("raw", cls), ("wrapped", wrapped)):
        if progress:
            progress(f"floor (null game): {name}")
        entry.sections[name] = measure(name, "steps", lambda make=make: aec_player(lambda: make(num_players=4),
                                                                                   settings.seed), settings)
    return entry


# ----------------------------------------------------------------------------------- ratios
def ratios(ours: list[Entry], refs: list[Entry]) -> dict:
    """ours raw AEC steps/s / each reference's primary steps/s, plus the geometric mean over refs."""
    out: dict[str, dict[str, float | None]] = {}
    for o in ours:
        mine = o.rate("raw")
        row: dict[str, float | None] = {}
        logs = []
        for r in refs:
            theirs = r.rate(r.primary)
            value = mine / theirs if mine and theirs else None
            row[r.short or r.label] = _r(value, 3)
            if value:
                logs.append(math.log(value))
        row["geomean"] = _r(math.exp(sum(logs) / len(logs)), 3) if logs else None
        out[o.label] = row
    return out


# ---------------------------------------------------------------------------------- profile
def profile_raw(h: GameHandle, players: int, seconds: float, wrapped: bool = False, top: int = 15,
                seed: int = 0) -> dict:
    """cProfile over the training-style AEC loop; top functions by own time and a breakdown by area.

    cProfile adds a fixed cost per Python call, so shares lean towards code that makes many small
    calls; use them to rank hot spots, and the timed sections for absolute speed.
    """
    make = (h.env if wrapped else h.raw_env)
    play = aec_player(lambda: make(num_players=players), seed)
    rng = random.Random(seed)
    prof = cProfile.Profile()
    steps = 0
    prof.enable()
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        steps += play(rng, deadline)[0]
    prof.disable()
    stats = pstats.Stats(prof)
    total = sum(v[2] for v in stats.stats.values()) or 1e-12  # tottime over everything
    rows = sorted(stats.stats.items(), key=lambda kv: kv[1][2], reverse=True)
    top_rows = []
    for (filename, line, func), (cc, nc, tt, ct, _callers) in rows[:top]:
        top_rows.append({
            "function": f"{_short_path(filename)}:{line}({func})",
            "ncalls": nc,
            "per_step": round(nc / steps, 2) if steps else None,
            "tottime_s": round(tt, 4),
            "cumtime_s": round(ct, 4),
            "share": round(tt / total, 4),
        })
    areas: dict[str, float] = {}
    for (filename, _line, _func), (_cc, _nc, tt, _ct, _callers) in stats.stats.items():
        area = _area(filename, _func, h.name)
        areas[area] = areas.get(area, 0.0) + tt
    return {
        "game": h.name, "players": players, "loop": "wrapped" if wrapped else "raw",
        "steps": steps, "profiled_seconds": round(total, 3),
        "us_per_step_profiled": round(total / steps * 1e6, 2) if steps else None,
        "areas": {k: round(v / total, 4) for k, v in sorted(areas.items(), key=lambda kv: -kv[1])},
        "top": top_rows,
    }


HOOKS = ("_encode", "_legal_actions", "_apply", "_acting_seat")


def hook_breakdown(h: GameHandle, players: int, seconds: float, seed: int = 0) -> dict:
    """Microseconds per step spent in each game hook of the raw AEC loop, without a profiler.

    The hooks (``_encode``, ``_legal_actions``, ``_apply``, ``_acting_seat``) are wrapped on the
    instance with a timer that books exclusive time (a hook called from another hook is booked to
    itself only). "rest" is everything else: envs/base.py, PettingZoo's AECEnv helpers, numpy
    mask building and the random choice. The timers add ~0.1 µs per hook call.
    """
    env = h.raw_env(num_players=players)
    clock = time.perf_counter
    spent = {k: 0.0 for k in HOOKS}
    calls = {k: 0 for k in HOOKS}
    stack: list[float] = []  # child time accumulated per active frame

    def timed(name, fn):
        def wrapper(*a, **kw):
            stack.append(0.0)
            t0 = clock()
            try:
                return fn(*a, **kw)
            finally:
                total = clock() - t0
                child = stack.pop()
                spent[name] += total - child
                calls[name] += 1
                if stack:
                    stack[-1] += total

        return wrapper

    for name in HOOKS:
        setattr(env, name, timed(name, getattr(env, name)))
    play = aec_player(lambda: env, seed)
    rng = random.Random(seed)
    steps = 0
    cpu0 = time.process_time()
    start = clock()
    deadline = start + seconds
    while clock() < deadline:
        steps += play(rng, deadline)[0]
    total = clock() - start
    # Timers read the wall clock (cheap); scale by the CPU share so that time other processes
    # held the core is taken out, pro rata (exact when the machine is quiet).
    share = min(1.0, (time.process_time() - cpu0) / total) if total else 1.0
    scale = share / steps * 1e6 if steps else 0.0
    per = {k.lstrip("_"): round(v * scale, 2) for k, v in spent.items()} if steps else {}
    if steps:
        per["rest"] = round((total - sum(spent.values())) * scale, 2)
        total *= share
    return {
        "game": h.name, "players": players, "steps": steps,
        "us_per_step": round(total / steps * 1e6, 2) if steps else None,
        "cpu_share": round(share, 3),
        "us": per,
        "calls_per_step": {k.lstrip("_"): round(c / steps, 2) for k, c in calls.items()} if steps else {},
    }


def _short_path(filename: str) -> str:
    f = filename.replace("\\", "/")
    if "/site-packages/" in f:
        return f.split("/site-packages/", 1)[1]
    root = REPO_ROOT.replace("\\", "/") + "/"
    return f[len(root):] if f.startswith(root) else f


def _area(filename: str, func: str, game: str) -> str:
    f = filename.replace("\\", "/")
    if f == "~":
        return "numpy (C)" if "numpy" in func else "builtins / C calls"
    if f"/envs/{game}/" in f:
        base = os.path.basename(f)
        return f"envs/{game}/{base}"
    if f.endswith("/envs/base.py"):
        return "envs/base.py"
    if "/envs/" in f:
        return "envs (shared)"
    if "pettingzoo/utils/wrappers" in f:
        return "pettingzoo wrappers"
    if "/pettingzoo/" in f:
        return "pettingzoo (other)"
    if "/numpy/" in f:
        return "numpy (python side)"
    if f.endswith("training/benchmarks/env_speed.py"):
        return "bench loop"
    return "other"


# ---------------------------------------------------------------------------- environment
def pin_one_core(cpu: int | None = None) -> tuple[set | None, int | None]:
    """Pin this process to one CPU (default: the last one allowed). Returns (previous set, cpu)."""
    limit_threads()
    if not hasattr(os, "sched_setaffinity"):
        return None, None
    previous = os.sched_getaffinity(0)
    chosen = max(previous) if cpu is None else cpu
    if chosen not in previous:
        raise UserError(f"--cpu {cpu}: this process may use CPUs {sorted(previous)}")
    os.sched_setaffinity(0, {chosen})
    return previous, chosen


def restore_affinity(previous: set | None) -> None:
    if previous and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, previous)


def limit_threads() -> None:
    """One thread for numeric libraries: env vars for those loaded later, torch if it is loaded."""
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return
    threadpool_limits(1)


def machine_info(cpu: int | None) -> dict:
    info: dict[str, Any] = {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "cpu_model": _cpu_model(),
        "logical_cpus": os.cpu_count(),
        "pinned_cpu": cpu,
    }
    if hasattr(os, "getloadavg"):
        info["loadavg_1m_at_start"] = round(os.getloadavg()[0], 2)
    info["packages"] = package_versions()
    try:
        root = REPO_ROOT
        info["git_commit"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True,
                                            text=True, timeout=5).stdout.strip() or None
    except Exception:
        info["git_commit"] = None
    return info


def package_versions() -> dict[str, str | None]:
    from importlib import metadata

    out = {}
    for dist in ("numpy", "gymnasium", "pettingzoo", "rlcard", "open_spiel", "pygame-ce"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    return out


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"
