"""What the new-game form offers: the games, their player counts, rule options and the agents.

Built from the registry and each game's config dataclass, so a new game appears by itself.
"""

from __future__ import annotations

import dataclasses
import os
import re

from cardzoo.envs.config import config_dict
from cardzoo.envs.errors import UserError
from cardzoo.envs.registry import GAME_MODULES, game_spec
from cardzoo.envs.seatview import rules_summary
from cardzoo.scripts.options import parse_options
from cardzoo.scripts.play.seats import closest_kind
from cardzoo.scripts.serve.limits import MAX_OPTION_TEXT, WEB_OPTION_RANGES
from cardzoo.scripts.serve.match import HUMAN, view_module
from cardzoo.scripts.serve.rule_words import option_words
from cardzoo.training.agents.shipped import shipped_models as shipped_model_counts  # (weights, game, player counts)
from cardzoo.training.agents.specs import EXPERT_SHOWN_STRONGER

AGENT_CHOICES = [HUMAN, "rules", "random", "model", "expert"]
# where people meet the bots: difficulty levels (the seat menu shows them beside the kinds)
LEVELS = {"random": "beginner", "rules": "easy", "model": "medium", "expert": "hard"}
NOT_HARDER = "slow, not yet stronger than medium"  # the expert's level where it has not beaten the model
_SEAT_RE = re.compile(r"^(?P<body>[A-Za-z0-9_.-]{1,80}?)(?:@(?P<seed>-?\d{1,18}))?$")


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
        ranges = WEB_OPTION_RANGES.get(spec.name, {})
        options = [
            {
                "name": k,
                "default": v,
                "kind": _kind(v),
                **option_words(spec.name, k, v),
                **({"min": ranges[k][0], "max": ranges[k][1]} if k in ranges else {}),
            }
            for k, v in defaults.items()
            if k != "num_players"
        ]
        model_players = sorted({n for _, game, counts in models if game == spec.name for n in counts})
        # the model that the seat kind "model" plays, by name, per player count (the menu says so)
        plays = {
            n: os.path.basename(w)[: -len(".safetensors")]
            for n in reversed(model_players)
            for w, game, counts in reversed(models)
            if game == spec.name and n in counts
        }
        games.append(
            {
                "name": spec.name,
                "title": title,
                "players": list(spec.player_counts),
                "default_players": spec.default_players,
                "options": options,
                "model_players": model_players,
                "model_plays": plays,
                "rules": rules_summary(spec.name),
                "agents": AGENT_CHOICES + (["teacher"] if spec.teacher is not None else []),
                "levels": {**LEVELS, **({} if spec.name in EXPERT_SHOWN_STRONGER else {"expert": NOT_HARDER})},
                "named_models": [{"name": n, "players": c} for n, g, c in named_models(models) if g == spec.name],
            }
        )
    return {"games": games, "agents": AGENT_CHOICES, "levels": LEVELS, "models": model_names(models)}


def named_models(models=None) -> list[tuple[str, str, list[int]]]:
    """(name, game, player counts) of each model in the model folders (``CARDZOO_MODELS``'s
    first, then the shipped ones); a name found in two folders is the first one's."""
    seen: dict[str, tuple[str, str, list[int]]] = {}
    for w, g, c in shipped_model_counts() if models is None else models:
        name = os.path.basename(w)[: -len(".safetensors")]
        if os.path.isfile(w) and name not in seen:
            seen[name] = (name, g, c)
    return list(seen.values())


def read_seat(game: str, players: int, seat: int, text: str) -> str:
    """A seat from the browser as an agent spec the server itself offers; UserError if not.

    Allowed: ``human``; the bots (``rules``, ``random``, ``teacher`` where the game has one);
    ``model`` (the first model in the model folders for the game and player count) and ``expert``
    (that model with a search over sampled deals); the name of a
    model in the model folders (``suipi-2p``), resolved here to its file. Each bot may carry
    ``@SEED``. A path is never accepted, and the refusal names no file: a browser (and with
    ``--host``, anyone on the network) must not be able to probe the server's disk."""
    spec = game_spec(game)
    kinds = ["rules", "random", "model", "expert"] + (["teacher"] if spec.teacher is not None else [])
    text = text.strip()
    if text.lower() == HUMAN:
        return HUMAN
    m = _SEAT_RE.match(text)
    body = m.group("body").lower() if m else ""
    seed = f"@{m.group('seed')}" if m and m.group("seed") else ""
    if body in kinds:
        return body + seed
    if body == "teacher":
        raise UserError(f"player_{seat}: {spec.name} has no teacher agent; choose human, {', '.join(kinds)}")
    models = shipped_model_counts()  # the sidecars, read once for this seat
    named = {n.lower(): (n, g, c) for n, g, c in named_models(models)} if m else {}
    if body in named:
        name, g, counts = named[body]
        if g != spec.name or players not in counts:
            raise UserError(
                f"player_{seat}: model {name} plays {g} with {','.join(map(str, counts))} "
                f"players, not {spec.name} with {players}"
            )
        weights = next(
            w for w, _, _ in models if os.path.basename(w)[: -len(".safetensors")] == name and os.path.isfile(w)
        )
        return weights + seed
    fitting = [n for n, g, c in named_models(models) if g == spec.name and players in c]
    offered = ", ".join(["human", *kinds, *fitting])
    close = closest_kind(text, ["human", *kinds, *fitting])
    meant = f" (did you mean `{close}`?)" if close else ""
    raise UserError(
        f"player_{seat}: not an agent this server offers{meant} ({offered}; each may take @SEED); "
        "checkpoint paths are refused: give their folder with cardzoo --models DIR serve"
    )


def model_names(models: list[tuple[str, str, list[int]]]) -> list[str]:
    """Names of the models (``siantappo``, ``suipi-2p``): a 'model' seat needs one for its game."""
    return sorted(name for name, _, _ in named_models(models))


def _kind(value) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, list):
        return "list"
    return "text"


def read_options(game: str, raw) -> dict:
    """Rule options from the form ({name: value}) as config keywords; UserError if malformed or
    outside what a web client may ask for (``WEB_OPTION_RANGES``; the config checks the rest).

    Text values are read like `-o KEY=VALUE` on the command line (as the option's type)."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise UserError('options must be an object of rule options, e.g. {"rounds": 1}')
    known = {f.name for f in dataclasses.fields(game_spec(game).module.Config)} - {"num_players"}
    out = {}
    for key, value in raw.items():
        if key not in known:
            raise UserError(f"unknown option {str(key)[:40]!r} for {game}; options are: {', '.join(sorted(known))}")
        if isinstance(value, str):
            if len(value) > MAX_OPTION_TEXT:
                raise UserError(f"option {key}: value too long")
            out.update(parse_options([f"{key}={value}"], game))
        elif isinstance(value, (bool, int, float)):
            out[key] = value
        elif isinstance(value, list) and len(value) <= 20 and all(isinstance(x, int) for x in value):
            out[key] = tuple(value)
        else:
            raise UserError(f"option {key}: give a number, true/false or text")
    check_web_ranges(game, out)
    return out


def check_web_ranges(game: str, options: dict) -> None:
    """UserError naming the option and its range for a number a web client may not ask for (a
    match that would run for hours); the command line and the Python API take the full range."""
    for key, (low, high) in WEB_OPTION_RANGES.get(game, {}).items():
        value = options.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue  # not a number: the config says what is wrong with it
        if not low <= value <= high:
            shown = repr(value) if len(repr(value)) <= 20 else repr(value)[:12] + "…"
            raise UserError(
                f"option {key}: {shown} is outside what this server allows ({low}..{high}; the command line takes more)"
            )
