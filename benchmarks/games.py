"""Our games on the bench: load a registered game (``load_game``) and measure its three sections at
one player count (``bench_game``), all random legal play on one core. ``engine`` is
``envs.<game>.engine.random_match(config, rng)`` in a loop: engine moves/s. ``raw`` is the game's
``raw_env`` driven the way a training loop drives it: ``agent_iter()``, ``last()`` (which builds the
observation vector and the action mask of the acting seat), a random legal action drawn from the
mask, ``step()``; only decisions count as steps (the ``step(None)`` calls for finished agents do
not). ``wrapped`` is the same loop over ``env()`` (TerminateIllegal -> AssertOutOfBounds ->
OrderEnforcing), so the cost of PettingZoo's standard wrappers shows as the gap to ``raw``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field

from cardzoo.benchmarks.schema import Entry, Settings
from cardzoo.benchmarks.timing import aec_player, engine_player, measure
from cardzoo.envs.errors import UserError


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
        assert self.config_cls is not None, f"{self.name}: neither an env module nor a config class"
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
        except Exception as e:  # noqa: BLE001 - kept in the report; the other sections go on
            entry.errors[name] = f"{type(e).__name__}: {e}"

    random_match, raw_env, env = h.random_match, h.raw_env, h.env
    if random_match is not None:
        try:
            cfg = h.config(players)
        except Exception as e:  # noqa: BLE001 - kept in the report; the other sections go on
            entry.errors["engine"] = f"{type(e).__name__}: {e}"
        else:
            section("engine", "moves", lambda: engine_player(random_match, cfg))
    else:
        entry.errors["engine"] = "engine random_match not available"
    if raw_env is not None and env is not None:
        section("raw", "steps", lambda: aec_player(lambda: raw_env(num_players=players), settings.seed))
        section("wrapped", "steps", lambda: aec_player(lambda: env(num_players=players), settings.seed))
    else:
        entry.errors["raw"] = entry.errors["wrapped"] = "env module not available"
    return entry
