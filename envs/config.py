"""Validated rule configurations: one frozen dataclass per game, checked on construction."""

from __future__ import annotations

import dataclasses
import json
import operator
from collections.abc import Iterable
from typing import Any

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


def integer(value: Any) -> int | None:
    """``value`` as a Python int when it is an integer, else None: the one rule of every game for
    integers. Python's and numpy's integers (a 0-d integer array too) are integers; a bool, a float
    (even 2.0), a string or anything else is not."""
    if isinstance(value, bool):
        return None
    try:
        return operator.index(value)  # numpy integers have __index__; np.bool_ and floats do not
    except TypeError:
        return None


def plain(value: Any) -> Any:
    """``value`` with numpy scalars and arrays turned into the Python values they hold
    (``np.int64(4)`` -> 4, ``np.str_`` -> str, an array -> a list), inside lists and tuples too;
    anything else unchanged, for the checks to judge."""
    if type(value).__module__ == "numpy" and hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return type(value)(plain(v) for v in value)
    return value


def plain_fields(config) -> None:
    """Store every field of a (frozen) config dataclass as ``plain`` values: a config built with
    numpy integers holds Python ints, as one built from JSON does. Call it first in ``__post_init__``."""
    for f in dataclasses.fields(config):
        value = getattr(config, f.name)
        if type(value).__module__ == "numpy" or isinstance(value, (list, tuple)):
            object.__setattr__(config, f.name, plain(value))


def check_int(name: str, value: Any, lo: int, hi: int | None = None) -> None:
    if integer(value) is None:
        raise ConfigError(f"{name} must be an integer, got {shown(value)}")
    if value < lo or (hi is not None and value > hi):
        allowed = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise ConfigError(f"{name} must be {allowed}, got {value}")


def check_bool(name: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise ConfigError(f"{name} must be true or false, got {shown(value)}")


def check_choice(name: str, value: Any, allowed: Iterable[Any]) -> None:
    allowed = list(allowed)
    # The type counts too: 11.0 and True are not the integer choices 11 and 1.
    if not any(type(value) is type(a) and value == a for a in allowed):
        raise ConfigError(f"{name} must be one of {', '.join(map(shown, allowed))}, got {shown(value)}")


def check_choices(config) -> None:
    """``check_choice`` for every option the config class lists in its ``CHOICES``."""
    for name, allowed in type(config).CHOICES.items():
        check_choice(name, getattr(config, name), allowed)


def build_config(cls, game: str, **options):
    """Build a config dataclass, turning unknown keys into a ConfigError that lists the known ones."""
    known = [f.name for f in dataclasses.fields(cls)]
    unknown = [k for k in options if k not in known]
    if unknown:
        raise ConfigError(f"unknown option {unknown[0]!r} for {game}; options are: {', '.join(known)}")
    return cls(**options)


def config_dict(config) -> dict:
    """Plain JSON-ready dict of a config (tuples become lists)."""
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in dataclasses.asdict(config).items()}
