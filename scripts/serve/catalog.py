"""What the new-game form offers: the games, their player counts, rule options and the agents.

Built from the registry and each game's config dataclass, so a new game appears by itself.
"""

from __future__ import annotations

from cardzoo.envs.errors import UserError

import dataclasses
import os

from cardzoo.envs.config import config_dict
from cardzoo.envs.registry import GAME_MODULES, game_spec
from cardzoo.scripts.options import parse_options
from cardzoo.scripts.serve.match import HUMAN, view_module
from cardzoo.training.agents.shipped import shipped_models as shipped_model_counts  # (weights, game, player counts)

AGENT_CHOICES = [HUMAN, "rules", "random", "model"]
MAX_OPTION_TEXT = 200


def catalog() -> dict:
    games = []
    models = shipped_model_counts()  # read the sidecars once, not once per game
    for name in GAME_MODULES:
        spec = game_spec(name)
        try:
            title = view_module(spec.name).TITLE
        except ModuleNotFoundError as e:
            if not f"cardzoo.envs.{spec.name}.view".startswith(str(e.name)):
                raise
            continue  # a game without a seat view (envs/<game>/view.py) cannot be played here
        defaults = config_dict(spec.module.Config(num_players=spec.default_players))
        options = [{"name": k, "default": v, "kind": _kind(v)} for k, v in defaults.items() if k != "num_players"]
        model_players = sorted({n for _, game, counts in models if game == spec.name for n in counts})
        games.append({"name": spec.name, "title": title,
                      "players": list(spec.player_counts), "default_players": spec.default_players,
                      "options": options, "model_players": model_players,
                      "agents": AGENT_CHOICES + (["teacher"] if spec.teacher is not None else [])})
    return {"games": games, "agents": AGENT_CHOICES, "models": model_names(models)}


def model_names(models: list[tuple[str, str, list[int]]]) -> list[str]:
    """Names of the models (``siantappo``, ``suipi-2p``): a 'model' seat needs one for its game."""
    return sorted({os.path.basename(w)[:-len(".safetensors")] for w, _, _ in models if os.path.isfile(w)})


def _kind(value) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, list):
        return "list"
    return "text"


def read_options(game: str, raw) -> dict:
    """Rule options from the form ({name: value}) as config keywords; ValueError if malformed.

    Text values are read like `-o KEY=VALUE` on the command line (JSON where it parses)."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise UserError("options must be an object of rule options, e.g. {\"rounds\": 1}")
    known = {f.name for f in dataclasses.fields(game_spec(game).module.Config)} - {"num_players"}
    out = {}
    for key, value in raw.items():
        if key not in known:
            raise UserError(f"unknown option {str(key)[:40]!r} for {game}; options are: {', '.join(sorted(known))}")
        if isinstance(value, str):
            if len(value) > MAX_OPTION_TEXT:
                raise UserError(f"option {key}: value too long")
            out.update(parse_options([f"{key}={value}"]))
        elif isinstance(value, (bool, int, float)):
            out[key] = value
        elif isinstance(value, list) and len(value) <= 20 and all(isinstance(x, int) for x in value):
            out[key] = tuple(value)
        else:
            raise UserError(f"option {key}: give a number, true/false or text")
    return out
