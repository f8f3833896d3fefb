"""Where the ``model`` agent spec finds its networks: the shipped models, and the user's own.

The shipped models are package data (``cardzoo.models``), found with ``importlib.resources`` so
that ``model`` works from a wheel install in any directory. ``CARDZOO_MODELS`` (or ``cardzoo
--models DIR``, which sets it) names more folders, searched first, separated like ``PATH``.
"""

from __future__ import annotations

import os
import sys
from importlib.resources import files
from pathlib import Path

from cardzoo.envs.errors import UserError

MODELS_ENV = "CARDZOO_MODELS"


def package_models_dir() -> Path:
    """The folder of the models that ship with cardzoo."""
    return Path(str(files("cardzoo.models")))


def models_dirs() -> list[Path]:
    """The folders searched for models, in order: ``CARDZOO_MODELS``'s, then the shipped one."""
    extra = [Path(p) for p in os.environ.get(MODELS_ENV, "").split(os.pathsep) if p]
    for folder in extra:
        if not folder.is_dir():
            raise UserError(f"{MODELS_ENV}: {folder} is not a folder")
    return [*extra, package_models_dir()]


def shipped_models(folders: list[Path] | None = None) -> list[tuple[str, str, list[int]]]:
    """(weights path, game, player counts) of every model in the model folders (``folders``, else
    ``models_dirs()``), from their sidecars. A sidecar that cannot be read (too large, nested too
    deeply, not JSON: the checkpoint loader's checks) is skipped with one warning on stderr; a
    JSON file that is no sidecar (no ``game``) is passed over silently."""
    out = []
    for folder in models_dirs() if folders is None else folders:
        for sidecar in sorted(folder.glob("*.json")):
            if sidecar.name.endswith((".eval.json", ".probe.json", ".value.json")):  # not models that play
                continue
            try:
                meta = _read_sidecar_json(sidecar)
                if not isinstance(meta, dict) or "game" not in meta:
                    continue  # not a model sidecar
                out.append(
                    (
                        str(sidecar.with_suffix(".safetensors")),
                        str(meta["game"]),
                        [int(n) for n in meta["player_counts"]],
                    )
                )
            except (UserError, KeyError, TypeError, ValueError, OverflowError) as e:
                _warn_once(sidecar, str(e).splitlines()[0] if str(e) else type(e).__name__)
    return out


def _read_sidecar_json(sidecar: Path):
    """The sidecar's JSON, read with the checkpoint loader's size and depth checks (a hostile
    file in a model folder must not take down the scan: ``json.loads`` recurses per level)."""
    from cardzoo.training.agents.checkpoint import (
        MAX_SIDECAR_BYTES,
        CheckpointError,
        _BadJSON,
        _parse_json,
        _read_bounded,
    )

    data = _read_bounded(sidecar, MAX_SIDECAR_BYTES, "a checkpoint sidecar is a small JSON file")
    try:
        return _parse_json(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise CheckpointError("not UTF-8 text") from None
    except _BadJSON as e:
        raise CheckpointError(str(e)) from None


_WARNED: set[str] = set()  # sidecars already warned about (the scan runs on every catalog request)


def _warn_once(sidecar: Path, why: str) -> None:
    if str(sidecar) not in _WARNED:
        _WARNED.add(str(sidecar))
        print(
            f"cardzoo: warning: skipping {sidecar} (not a usable model sidecar: {why[:200]})",
            file=sys.stderr,
            flush=True,
        )


def shipped_model_file(game: str, players, folders: list[Path] | None = None) -> str | None:
    """The model that plays the game at that player count: from the first model folder
    (``folders``, else ``models_dirs()``) that has one whose sidecar lists the count, the one that
    lists the fewest counts — a specialist such as ``siantappo-3p`` before the general
    ``siantappo`` (ties: the first by name) — or None."""
    for folder in models_dirs() if folders is None else folders:
        fitting = [
            (len(counts), weights)
            for weights, g, counts in shipped_models([folder])
            if g == game and players in counts and os.path.isfile(weights)
        ]
        if fitting:
            return min(fitting)[1]
    return None


def shipped_model_path(game: str, players) -> str:
    """The model's path for the game and player count; a one-line error naming what there is."""
    path = shipped_model_file(game, players)
    if path is None:
        shipped = [
            f"{os.path.basename(w)[: -len('.safetensors')]} ({g} {','.join(map(str, c))}p)"
            for w, g, c in shipped_models()
        ]
        raise UserError(
            f"no shipped model for {game} with {players} players; shipped: "
            f"{', '.join(shipped) or 'none'} (or give a checkpoint path)"
        )
    return path
