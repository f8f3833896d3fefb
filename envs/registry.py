"""The games cardzoo ships, by name, imported on demand."""

from __future__ import annotations

import importlib
from types import ModuleType

GAME_MODULES = {
    "siantappo": "envs.siantappo_v0",
    "suipi": "envs.suipi_v0",
    "samsip": "envs.samsip_v0",
}
# Player counts each game supports, and the default
PLAYER_COUNTS = {"siantappo": (3, 4, 5, 6), "suipi": (2, 4), "samsip": (2, 3, 4, 5, 6)}
DEFAULT_PLAYERS = {"siantappo": 4, "suipi": 2, "samsip": 4}


def game_module(name: str) -> ModuleType:
    """The ``envs.<game>_v0`` module; ValueError naming the known games otherwise."""
    key = name.lower().replace("-", "").replace("_", "").replace(" ", "")
    key = {"samsip": "samsip", "suipi": "suipi", "siantappo": "siantappo"}.get(key.removesuffix("v0"), key)
    if key not in GAME_MODULES:
        raise ValueError(f"unknown game {name!r}; games are: {', '.join(GAME_MODULES)}")
    return importlib.import_module(GAME_MODULES[key])
