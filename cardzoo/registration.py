"""cardzoo's games in PettingZoo's and Gymnasium's registries, by entry-point strings.

After ``import cardzoo``:

* ``pettingzoo.make("aec", "cardzoo/siantappo-v0", num_players=4)`` builds the wrapped AEC env
  (``envs/<game>_v0.py``'s ``env()``); ids ``cardzoo/<game>-v0`` for every game below;
* ``gymnasium.make("cardzoo/Siantappo-v0", opponents="rules")`` builds one table against opponents
  (``cardzoo.vector.TableEnv``) and ``gymnasium.make_vec("cardzoo/Siantappo-v0", num_envs=64)`` many
  (``cardzoo.vector.make``, the spec's ``vector_entry_point``). Both end a match on an illegal
  action with -1 to the learner (``illegal="terminate"``), as PettingZoo's ``env()`` does, unless
  given ``illegal="raise"``.

Importing cardzoo imports neither registry: each is filled the moment it is first imported (a
finder on ``sys.meta_path`` runs ``register_*`` right after the registry module has loaded), or at
once when it already was. So ``import cardzoo`` stays as cheap as it was, and the order of the
imports does not matter.
"""

from __future__ import annotations

import sys
import warnings

# registry name -> the name in Gymnasium ids (CamelCase, as Gymnasium's own ids are)
GAMES = {"siantappo": "Siantappo", "suipi": "Suipi", "samsip": "SamSip"}


def pettingzoo_id(game: str) -> str:
    return f"cardzoo/{game}-v0"


def gymnasium_id(game: str) -> str:
    return f"cardzoo/{GAMES[game]}-v0"


def register_pettingzoo(registration) -> None:
    """Every game's AEC env in PettingZoo's registry (``pettingzoo.env_registry.registration``)."""
    for game in GAMES:
        registration.register("aec", pettingzoo_id(game), entry_point=f"cardzoo.envs.{game}_v0:env")


def register_gymnasium(registration) -> None:
    """Every game's one-table env and vector env in Gymnasium's registry (``gymnasium.envs.registration``)."""
    for game in GAMES:
        registration.register(
            id=gymnasium_id(game),
            entry_point="cardzoo.vector.single:TableEnv",
            vector_entry_point="cardzoo.vector.env:make",
            kwargs={"game": game, "illegal": "terminate"},
        )


REGISTRIES = {
    "gymnasium.envs.registration": register_gymnasium,
    "pettingzoo.env_registry.registration": register_pettingzoo,
}


def install() -> None:
    """Register with each registry now if it is loaded, else when it is first imported."""
    waiting = {}
    for name, register in REGISTRIES.items():
        module = sys.modules.get(name)
        if module is not None and hasattr(module, "register"):
            _register(register, module)
        else:
            waiting[name] = register
    if waiting and not any(isinstance(f, _RegisterOnImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _RegisterOnImport(waiting))


def _register(register, module) -> None:
    try:
        register(module)
    except Exception as e:  # noqa: BLE001 - a registry whose API changed must not break importing it
        warnings.warn(
            f"cardzoo could not register its envs with {module.__name__}: {type(e).__name__}: {e}", stacklevel=2
        )


class _RegisterOnImport:
    """A ``sys.meta_path`` finder that finds nothing itself: for a waiting registry module it takes
    the spec the other finders give and has the module registered with right after it has run."""

    def __init__(self, waiting: dict):
        self.waiting = waiting

    def find_spec(self, fullname, path, target=None):
        register = self.waiting.get(fullname)
        if register is None:
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec = find(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        del self.waiting[fullname]
        if not self.waiting:
            sys.meta_path.remove(self)
        spec.loader = _ThenRegister(spec.loader, register)
        return spec


class _ThenRegister:
    """An importlib loader that runs the module with its own loader, then registers cardzoo's envs with it."""

    def __init__(self, loader, register):
        self.loader, self.register = loader, register

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module) -> None:
        self.loader.exec_module(module)
        _register(self.register, module)

    def __getattr__(self, name):  # get_source, get_filename...: the real loader's
        return getattr(self.loader, name)
