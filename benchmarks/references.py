"""The reference environments ``cardzoo bench`` sets our games beside, and their loops. Each runs the
same kind of loop as ours: RLCard ``env.step`` with a random key of ``state["legal_actions"]``
(RLCard builds the next observation inside ``step``); PettingZoo classic envs with the very same AEC
loop as ours (raw and wrapped); OpenSpiel ``dou_dizhu`` with ``observation_tensor`` and
``legal_actions_mask`` turned into numpy arrays at every decision, chance nodes sampled and not
counted. They are optional (``pip install -e ".[bench]"``): ``reference_available`` says why one
cannot run, ``bench_reference`` measures one that can.
"""

from __future__ import annotations

import importlib
import random
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from cardzoo.benchmarks.schema import Entry, Settings
from cardzoo.benchmarks.timing import CHECK_EVERY, Player, aec_player, measure


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
    Reference(
        "rlcard/doudizhu",
        3,
        "rlcard",
        {"raw": _rlcard_factory("doudizhu")},
        note="env.step builds the next observation",
        short="RLC doudizhu",
    ),
    Reference("rlcard/uno", 2, "rlcard", {"raw": _rlcard_factory("uno")}, short="RLC uno"),
    Reference("rlcard/gin-rummy", 2, "rlcard", {"raw": _rlcard_factory("gin-rummy")}, short="RLC gin"),
    Reference(
        "pettingzoo/leduc_holdem_v4",
        2,
        "rlcard",
        {"raw": _pz_factory("leduc_holdem_v4", True), "wrapped": _pz_factory("leduc_holdem_v4", False)},
        short="PZ leduc",
    ),
    Reference(
        "pettingzoo/texas_holdem_v4",
        2,
        "rlcard",
        {"raw": _pz_factory("texas_holdem_v4", True), "wrapped": _pz_factory("texas_holdem_v4", False)},
        short="PZ texas",
    ),
    Reference(
        "pettingzoo/connect_four_v3",
        2,
        "pettingzoo",
        {"raw": _pz_factory("connect_four_v3", True), "wrapped": _pz_factory("connect_four_v3", False)},
        short="PZ c4",
    ),
    Reference(
        "openspiel/dou_dizhu",
        3,
        "pyspiel",
        {"raw": _openspiel_factory("dou_dizhu")},
        note="observation_tensor + legal_actions_mask (26,057 ids) as numpy each decision",
        short="OS doudizhu",
    ),
]


def reference_available(ref: Reference) -> str | None:
    """None when the reference can run, else why not."""
    libs = [ref.library] + (["pygame"] if ref.name.startswith("pettingzoo/") else [])
    for lib in libs:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                importlib.import_module(lib)
        except Exception as e:  # noqa: BLE001 - a library that fails to import, however, is not run
            return f"{lib} not importable ({type(e).__name__}: {e}); install the bench extra"
    return None


def bench_reference(ref: Reference, settings: Settings, progress=None) -> Entry:
    entry = Entry("reference", ref.name, ref.players, primary=ref.primary, note=ref.note, short=ref.short or ref.name)
    for name, for_seed in ref.sections.items():
        if progress:
            progress(f"{entry.label}: {name}")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                entry.sections[name] = measure(name, "steps", for_seed(settings.seed), settings)
        except Exception as e:  # noqa: BLE001 - kept in the report; the other sections go on
            entry.errors[name] = f"{type(e).__name__}: {e}"
    return entry
