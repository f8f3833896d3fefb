"""Validated rule configurations: one frozen dataclass per game, checked on construction."""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Iterable

from cardzoo.envs.errors import UserError


class ConfigError(UserError):
    """A rule option has a bad value; the message names the field and what is allowed."""


def shown(value: Any) -> str:
    """A bad option value as whoever gave it wrote it: JSON's spelling (true, null, "12") where it has one,
    since options come from the command line, JSON requests and records alike."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def check_int(name: str, value: Any, lo: int, hi: int | None = None) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{name} must be an integer, got {shown(value)}")
    if value < lo or (hi is not None and value > hi):
        allowed = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise ConfigError(f"{name} must be {allowed}, got {value}")


def check_bool(name: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise ConfigError(f"{name} must be true or false, got {shown(value)}")


def check_choice(name: str, value: Any, allowed: Iterable[Any]) -> None:
    allowed = list(allowed)
    if value not in allowed:
        raise ConfigError(f"{name} must be one of {', '.join(map(shown, allowed))}, got {shown(value)}")


def build_config(cls, game: str, **options):
    """Build a config dataclass, turning unknown keys into a ConfigError that lists the known ones."""
    known = [f.name for f in dataclasses.fields(cls)]
    unknown = [k for k in options if k not in known]
    if unknown:
        raise ConfigError(
            f"unknown option {unknown[0]!r} for {game}; options are: {', '.join(known)}"
        )
    return cls(**options)


def config_dict(config) -> dict:
    """Plain JSON-ready dict of a config (tuples become lists)."""
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in dataclasses.asdict(config).items()}
