"""cardzoo: Siantappo, Suipi and Sam Sip as PettingZoo AEC environments, with training,
evaluation and play.

    from cardzoo import siantappo_v0, suipi_v0, samsip_v0   # like pettingzoo.classic
    import cardzoo.vector                                     # many tables at once (docs/own-trainer.md)

Importing cardzoo registers the games with PettingZoo (``pettingzoo.make("aec", "cardzoo/siantappo-v0")``)
and Gymnasium (``gymnasium.make("cardzoo/Siantappo-v0")``, ``gymnasium.make_vec``) by entry-point
strings, as each registry loads (``cardzoo/registration.py``): nothing heavy is imported here.

The layers are subpackages, each mapped from the repository folder of the same name:
``cardzoo.envs`` (the games), ``cardzoo.vector`` (many tables stepped together), ``cardzoo.training``
(agents, trainers, evaluation), ``cardzoo.benchmarks`` (speed), ``cardzoo.scripts`` (the ``cardzoo``
command, terminal play, browser table) and ``cardzoo.models`` (the shipped models, package data).
docs/ARCHITECTURE.md draws the map.
"""

from __future__ import annotations

import importlib

from cardzoo import registration as _registration

__version__ = "0.2.0"

_ENVS = ("siantappo_v0", "suipi_v0", "samsip_v0")
__all__ = ["__version__", *_ENVS]  # noqa: PLE0604 - _ENVS holds the env modules' names


def __getattr__(name: str):
    # The env modules load on first use, so `cardzoo --version` and `import cardzoo.envs.cards`
    # do not pay for all three games.
    if name in _ENVS:
        module = importlib.import_module(f"cardzoo.envs.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module 'cardzoo' has no attribute {name!r}")


_registration.install()


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_ENVS))
