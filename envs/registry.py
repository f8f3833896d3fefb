"""The games cardzoo knows, by name, and each game's declared facts.

A game is a module (``envs.<game>_v0`` for the shipped ones) that declares:

* ``GAME`` (its registry name), ``env`` / ``raw_env`` (the PettingZoo constructors), ``Config``
  (its rule dataclass), ``RuleBot``, ``PLAYER_COUNTS`` (tuple) and ``DEFAULT_PLAYERS``;
* optionally ``teams(num_players)`` (default: every seat alone), ``match_scores(env, totals)``
  (default: the summed rewards decide the match), ``WIN_RULE`` (that rule in words),
  ``VARIANT_CHOICES`` (field -> sample values of the variants table, for tests and tools),
  ``WHOLE_MOVES`` (``"module:Class"`` that reads a seat's observation into its complete legal
  moves and their feature rows, for move-ranking agents; games whose move is one action need none),
  ``TEACHER`` (``"module:Class"`` of a player stronger than the rule bot, built like it: the agent
  spec ``teacher``, and what ``--imitate-from teacher`` warm starts imitate),
  ``CHANCE`` (a ``cardzoo.envs.chance.ChanceModel`` class: what chance does in a match, card by
  card, for luck-adjusted evaluation; games without one are evaluated raw),
  ``deal_index(env)`` (the
  deal in progress, for games whose rewards are settled deal by deal: trainers may then credit a
  move with its deal's rewards only) and ``random_match`` (engine-level random play, for benchmarks).

Its code is a game package laid out by ``PACKAGE_MODULES`` (``GameSpec.package`` finds it).
Tools ask ``game_spec(name)`` instead of branching on game names; ``register`` adds a game
(docs/CONTRIBUTING-games.md lists every touch point of a new game).
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from cardzoo.envs.config import ConfigError
from cardzoo.envs.errors import UserError

# Registry name -> module path. ``register`` / ``unregister`` change it.
GAME_MODULES: dict[str, str] = {
    "siantappo": "cardzoo.envs.siantappo_v0",
    "suipi": "cardzoo.envs.suipi_v0",
    "samsip": "cardzoo.envs.samsip_v0",
}
REQUIRED = ("GAME", "env", "raw_env", "Config", "RuleBot", "PLAYER_COUNTS", "DEFAULT_PLAYERS")

# The game skeleton: the modules of every game package (``envs/<game>/``), each name with one
# meaning in every game (docs/CONTRIBUTING-games.md; tests/test_contract.py checks each game).
# ``<G>`` is the game's class prefix, the name of its config class less "Config" (``SamSip``).
PACKAGE_MODULES = {
    "config": "the rule options: the frozen dataclass <G>Config (validated), VARIANT_CHOICES, the game's constants",
    "actions": "the action ids: the id table, num_actions(config), move <-> ids, ids and moves as text",
    "engine": "the rules: <G>Engine(GameEngine), the state machine with legal-move generation; random_match",
    "encoding": "the observation: LAYOUT (envs/layout.py), layout(config), the encoder and its decoder",
    "env": "the PettingZoo AEC env <G>Env(CardGameEnv)",
    "bot": "RuleBot: plays from the observation and the action mask only",
}
# Modules a game package may add, with the same meaning wherever they appear.
OPTIONAL_PACKAGE_MODULES = {
    "view": (
        "seat_view(env, seat, watcher=False): what one seat sees, for the browser table, its captions "
        "and status lines as facts; move_facts: a move as facts (no English: words.py says them)"
    ),
    "words": "word(fact, reader): every fact of the view (moves, captions, status lines) in words for a reader",
    "whole_moves": "WholeMoves: the complete legal moves as feature rows, for move rankers (WHOLE_MOVES)",
    "chance": "the game's ChanceModel (envs/chance.py): chance card by card, for luck-adjusted evaluation (CHANCE)",
    "outs": "the chance that a hand completes within its next draws, over the cards its seat has not seen",
    "lookahead": "LookaheadBot, the game's TEACHER: keeps the cards with the best chance of completing (outs)",
}


def _key(name: str) -> str:
    return name.lower().replace("-", "").replace("_", "").replace(" ", "").removesuffix("v0")


def game_module(name: str) -> ModuleType:
    """The game's module (``envs.<game>_v0``); ValueError naming the known games otherwise.

    Names are matched loosely: ``Sam Sip``, ``sam-sip`` and ``samsip_v0`` all name ``samsip``.
    """
    if isinstance(name, str):
        wanted = _key(name)
        for registered, path in GAME_MODULES.items():
            if _key(registered) == wanted:
                return importlib.import_module(path)
    raise UserError(f"unknown game {name!r}; games are: {', '.join(GAME_MODULES)}")


@dataclass(frozen=True)
class GameSpec:
    """A game's facts, as its module declares them (see the module docstring)."""

    name: str
    module: ModuleType

    @property
    def package(self) -> str:
        """The game package (its skeleton of ``PACKAGE_MODULES``): ``PACKAGE`` where the module
        declares it, the module itself when it is a package, else its name less ``_v0``
        (``cardzoo.envs.samsip_v0`` -> ``cardzoo.envs.samsip``)."""
        declared = getattr(self.module, "PACKAGE", None)
        if declared:
            return declared
        if hasattr(self.module, "__path__"):
            return self.module.__name__
        return self.module.__name__.removesuffix("_v0")

    @property
    def class_prefix(self) -> str:
        """``<G>`` of the skeleton's class names: the config class's name less "Config"."""
        return self.config.__name__.removesuffix("Config")

    def part(self, name: str) -> ModuleType:
        """The module ``name`` of the game package (``part("encoding")``)."""
        return importlib.import_module(f"{self.package}.{name}")

    @property
    def player_counts(self) -> tuple[int, ...]:
        return tuple(self.module.PLAYER_COUNTS)

    @property
    def default_players(self) -> int:
        return int(self.module.DEFAULT_PLAYERS)

    @property
    def config(self) -> type:
        """The rule-configuration dataclass."""
        return self.module.Config

    @property
    def rule_bot(self) -> type:
        """The rule-based bot class: ``RuleBot(config, seed).act(observation, action_mask)``."""
        return self.module.RuleBot

    @property
    def teacher(self) -> type | None:
        """The game's ``TEACHER`` class (built like ``RuleBot``), or None."""
        target = getattr(self.module, "TEACHER", None)
        if target is None:
            return None
        module, _, name = target.partition(":")
        return getattr(importlib.import_module(module), name)

    @property
    def win_rule(self) -> str:
        return getattr(self.module, "WIN_RULE", "the highest total reward in the match (ties split)")

    @property
    def whole_moves(self) -> str | None:
        """``"module:Class"`` of the game's complete-move reader (see ``cardzoo.training.agents.ranker``)."""
        return getattr(self.module, "WHOLE_MOVES", None)

    @property
    def variant_choices(self) -> dict[str, tuple]:
        return dict(getattr(self.module, "VARIANT_CHOICES", {}))

    def env(self, **kwargs):
        return self.module.env(**kwargs)

    def raw_env(self, **kwargs):
        return self.module.raw_env(**kwargs)

    def teams(self, num_players: int) -> list[list[int]]:
        """Seats that share their results (they win or lose together)."""
        declared = getattr(self.module, "teams", None)
        return declared(num_players) if declared else [[s] for s in range(num_players)]

    def team_of(self, num_players: int, seat: int) -> list[int]:
        """The seats of ``seat``'s team (itself alone in games without teams)."""
        return next(team for team in self.teams(num_players) if seat in team)

    @property
    def deal_index(self):
        """``deal_index(env)`` of a game settled deal by deal, or None."""
        return getattr(self.module, "deal_index", None)

    def match_scores(self, env, totals) -> list[float]:
        """Per seat, how well the finished match went (higher is better; equal = tied)."""
        declared = getattr(self.module, "match_scores", None)
        return declared(env, totals) if declared else [float(t) for t in totals]

    def final_ranking(self, env, totals) -> list[float]:
        """1 = best; tied seats share the average of their places."""
        scores = self.match_scores(env, totals)
        return [1 + sum(o > x for o in scores) + (sum(o == x for o in scores) - 1) / 2 for x in scores]

    def random_variant(self, num_players: int, rng: random.Random) -> dict[str, Any]:
        """Rule options drawn from ``VARIANT_CHOICES`` (each field changed with probability 1/2)
        that make a valid configuration at ``num_players``."""
        choices = self.variant_choices
        for _ in range(100):
            options = {k: rng.choice(v) for k, v in sorted(choices.items()) if rng.random() < 0.5}
            try:
                self.config(num_players=num_players, **options)
            except ConfigError:
                continue
            return options
        return {}


def game_spec(name: str) -> GameSpec:
    module = game_module(name)
    return GameSpec(module.GAME, module)


def game_names() -> list[str]:
    return list(GAME_MODULES)


def game_of_config(config) -> str:
    """The registered game whose rule dataclass ``config`` is (ValueError if none)."""
    for name in GAME_MODULES:
        if type(config) is game_spec(name).config:
            return name
    raise UserError(f"{type(config).__name__} is not the configuration of a registered game")


def register(module_path: str) -> GameSpec:
    """Add the game defined by ``module_path`` (it must declare the names in ``REQUIRED``)."""
    module = importlib.import_module(module_path)
    missing = [attr for attr in REQUIRED if not hasattr(module, attr)]
    if missing:
        raise UserError(f"{module_path} cannot be registered: it does not define {', '.join(missing)}")
    name = module.GAME
    if name in GAME_MODULES and GAME_MODULES[name] != module_path:
        raise UserError(f"game {name!r} is already registered (by {GAME_MODULES[name]})")
    GAME_MODULES[name] = module_path
    return GameSpec(name, module)


def unregister(name: str) -> None:
    GAME_MODULES.pop(name, None)


class _Facts(Mapping):
    """A read-only game name -> fact view over the registered games (filled on demand)."""

    def __init__(self, attr: str):
        self._attr = attr

    def __getitem__(self, name: str):
        if name not in GAME_MODULES:
            raise KeyError(name)
        return getattr(game_spec(name), self._attr)

    def __iter__(self) -> Iterator[str]:
        return iter(list(GAME_MODULES))

    def __len__(self) -> int:
        return len(GAME_MODULES)

    def __repr__(self) -> str:
        return repr(dict(self))


# Player counts each game supports, and the default (kept for the callers that index by name)
PLAYER_COUNTS: Mapping[str, tuple[int, ...]] = _Facts("player_counts")
DEFAULT_PLAYERS: Mapping[str, int] = _Facts("default_players")
