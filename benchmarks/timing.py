"""How one loop is timed: the player protocol, the two loops every environment is driven by (the
training-style AEC loop and the engine loop) and ``measure``, which turns a loop into a ``Section``.
A *section* is one loop: a warm-up, then ``runs`` timed runs of about ``seconds`` each. A run plays
whole episodes (checking the clock every 256 steps, so one long episode cannot overrun much) and its
rate is steps per CPU second of the process (``time.process_time``; ``--clock wall`` for wall
time; on a shared machine the wall clock also counts time other processes held the core, and
``cpu_share`` records how much of it we had); we report the median and the min-max over runs. Games/s
is the median rate divided by the mean episode length over all completed episodes. Memory: after the
timed runs, one more episode (including building the env) runs under ``tracemalloc`` for the peak of
Python allocations of that section, and ``ru_maxrss`` of the process is recorded after each section
(it only grows, so it is an upper bound of the process so far).
"""

from __future__ import annotations

import gc
import random
import resource
import sys
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np

from cardzoo.benchmarks.schema import Section, Settings

CHECK_EVERY = 256  # steps between clock checks inside an episode

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
    section = Section(
        name, unit, rates, total_steps, episodes, episode_steps, total_cpu if settings.clock == "cpu" else total_wall
    )
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
