"""Where the time of one of our games' AEC steps goes (``cardzoo bench --profile``): a cProfile of the
raw or wrapped loop with the top functions and a breakdown by area of the code (``profile_raw``), and
a profiler-free timing of each game hook per step (``hook_breakdown``).
"""

from __future__ import annotations

import cProfile
import os
import pstats
import random
import time

from cardzoo.benchmarks.games import GameHandle
from cardzoo.benchmarks.machine import REPO_ROOT
from cardzoo.benchmarks.timing import aec_player

HOOKS = ("_encode", "_legal_actions", "_apply", "_acting_seat")


# ---------------------------------------------------------------------------------- profile
def _table(stats: pstats.Stats) -> dict:
    """pstats' table: (file, line, function) -> (calls, primitive calls, own time, total time, callers)."""
    return stats.stats  # type: ignore[attr-defined]  # there, though typeshed does not declare it


def profile_raw(
    h: GameHandle, players: int, seconds: float, wrapped: bool = False, top: int = 15, seed: int = 0
) -> dict:
    """cProfile over the training-style AEC loop; top functions by own time and a breakdown by area.

    cProfile adds a fixed cost per Python call, so shares lean towards code that makes many small
    calls; use them to rank hot spots, and the timed sections for absolute speed.
    """
    make = h.env if wrapped else h.raw_env
    assert make is not None, f"{h.name}: no env module to profile"
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
    total = sum(v[2] for v in _table(stats).values()) or 1e-12  # tottime over everything
    areas = _areas(stats, h.name)
    return {
        "game": h.name,
        "players": players,
        "loop": "wrapped" if wrapped else "raw",
        "steps": steps,
        "profiled_seconds": round(total, 3),
        "us_per_step_profiled": round(total / steps * 1e6, 2) if steps else None,
        "areas": {k: round(v / total, 4) for k, v in sorted(areas.items(), key=lambda kv: -kv[1])},
        "top": _top_rows(stats, steps, total, top),
    }


def _top_rows(stats: pstats.Stats, steps: int, total: float, top: int) -> list[dict]:
    """The ``top`` functions by own time, with calls per step and their share of all own time."""
    rows = sorted(_table(stats).items(), key=lambda kv: kv[1][2], reverse=True)
    top_rows = []
    for (filename, line, func), (_cc, nc, tt, ct, _callers) in rows[:top]:
        top_rows.append(
            {
                "function": f"{_short_path(filename)}:{line}({func})",
                "ncalls": nc,
                "per_step": round(nc / steps, 2) if steps else None,
                "tottime_s": round(tt, 4),
                "cumtime_s": round(ct, 4),
                "share": round(tt / total, 4),
            }
        )
    return top_rows


def _areas(stats: pstats.Stats, game: str) -> dict[str, float]:
    """Own time summed per area of the code (see ``_area``)."""
    areas: dict[str, float] = {}
    for (filename, _line, _func), (_cc, _nc, tt, _ct, _callers) in _table(stats).items():
        area = _area(filename, _func, game)
        areas[area] = areas.get(area, 0.0) + tt
    return areas


def _short_path(filename: str) -> str:
    f = filename.replace("\\", "/")
    if "/site-packages/" in f:
        return f.split("/site-packages/", 1)[1]
    root = REPO_ROOT.replace("\\", "/") + "/"
    return f[len(root) :] if f.startswith(root) else f


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
    if f.endswith("benchmarks/timing.py"):  # the AEC loop itself
        return "bench loop"
    return "other"


# ------------------------------------------------------------------------------ hook timers
def hook_breakdown(h: GameHandle, players: int, seconds: float, seed: int = 0) -> dict:
    """Microseconds per step spent in each game hook of the raw AEC loop, without a profiler.

    The hooks (``_encode``, ``_legal_actions``, ``_apply``, ``_acting_seat``) are wrapped on the
    instance with a timer that books exclusive time (a hook called from another hook is booked to
    itself only). "rest" is everything else: envs/base.py, PettingZoo's AECEnv helpers, numpy
    mask building and the random choice. Each timer adds a little to every call it wraps (part of
    it booked to the hook, the rest to "rest"); ``calls_per_step`` says how many calls there are.
    """
    assert h.raw_env is not None, f"{h.name}: no env module to time"
    env = h.raw_env(num_players=players)
    clock = time.perf_counter
    spent, calls = _time_hooks(env, clock)
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
        "game": h.name,
        "players": players,
        "steps": steps,
        "us_per_step": round(total / steps * 1e6, 2) if steps else None,
        "cpu_share": round(share, 3),
        "us": per,
        "calls_per_step": {k.lstrip("_"): round(c / steps, 2) for k, c in calls.items()} if steps else {},
    }


def _time_hooks(env, clock) -> tuple[dict[str, float], dict[str, int]]:
    """Wrap the game hooks of ``env`` (on the instance) with exclusive-time timers; returns the
    (seconds spent, calls) dicts per hook that the timers fill in as the env plays."""
    spent = dict.fromkeys(HOOKS, 0.0)
    calls = dict.fromkeys(HOOKS, 0)
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
    return spent, calls
