"""The floor of every game's AEC speed: a null game (a ``CardGameEnv`` whose hooks cost almost
nothing, with Siantappo's sizes) driven through the same raw and wrapped loops as our games, so it
measures what envs/base.py, PettingZoo and the loop cost per step on their own. It is not a
reference: the ratio table leaves it out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from cardzoo.benchmarks.schema import Entry, Settings
from cardzoo.benchmarks.timing import aec_player, measure


def _null_env_class():
    """A CardGameEnv whose hooks cost (almost) nothing: what envs/base.py + PettingZoo + the loop
    cost per step on their own, i.e. the ceiling every game's AEC speed lives under."""
    from cardzoo.envs.base import CardGameEnv, StepOutcome

    @dataclass(frozen=True)
    class NullConfig:
        num_players: int = 4

    class NullGameEnv(CardGameEnv):
        metadata: ClassVar[dict[str, Any]] = {
            "name": "null_v0",
            "render_modes": ["ansi"],
            "is_parallelizable": False,
            "render_fps": 1,
        }
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

    entry = Entry("floor", "null-game", 4, note="envs/base.py + PettingZoo + loop; game hooks ~0", short="floor")
    factories: tuple[tuple[str, Callable[..., Any]], ...] = (("raw", cls), ("wrapped", wrapped))
    for name, make in factories:
        if progress:
            progress(f"floor (null game): {name}")

        def player(make: Callable[..., Any] = make):
            return aec_player(lambda: make(num_players=4), settings.seed)

        entry.sections[name] = measure(name, "steps", player, settings)
    return entry
