"""cardzoo: Siantappo, Suipi and Sam Sip as PettingZoo AEC environments, with training,
evaluation and play.

    from cardzoo import siantappo_v0, suipi_v0, samsip_v0   # like pettingzoo.classic

The layers are subpackages, each mapped from the repository folder of the same name:
``cardzoo.envs`` (the games), ``cardzoo.training`` (agents, trainers, evaluation),
``cardzoo.benchmarks`` (speed), ``cardzoo.scripts`` (the ``cardzoo`` command, terminal play,
browser table) and ``cardzoo.models`` (the shipped models, package data). docs/ARCHITECTURE.md draws the map.
"""

from __future__ import annotations

import importlib

__version__ = "0.2.0"

_ENVS = ("siantappo_v0", "suipi_v0", "samsip_v0")
__all__ = ["__version__", *_ENVS]


def __getattr__(name: str):
    # The env modules load on first use, so `cardzoo --version` and `import cardzoo.envs.cards`
    # do not pay for all three games.
    if name in _ENVS:
        module = importlib.import_module(f"cardzoo.envs.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module 'cardzoo' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_ENVS))
