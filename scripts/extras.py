"""What the core install leaves out, and the one line that says what to install for it.

``pip install cardzoo`` is the envs, the bots, evaluation, ``play``, ``replay`` and the shipped
models (played by numpy). The rest comes with extras (pyproject.toml): ``train`` (torch,
stable-baselines3, sb3-contrib, TensorBoard, matplotlib), ``plot`` (matplotlib, for ``eval
--plot``), ``web`` (``serve``), ``ray`` (``--ray``). A command that reaches a missing one stops
with one line naming the extra (``cardzoo.scripts.cli`` turns the ``ModuleNotFoundError``).
"""

from __future__ import annotations

import importlib.util

from cardzoo.envs.errors import UserError

TORCH = "torch==2.13.0"  # the torch every install here is tested with (Makefile, README)
EXTRA_OF = {
    "torch": "train",
    "stable_baselines3": "train",
    "sb3_contrib": "train",
    "tensorboard": "train",
    "matplotlib": "plot",
    "starlette": "web",
    "uvicorn": "web",
    "websockets": "web",
    "ray": "ray",
}


def install_line(extra: str) -> str:
    """The pip command that brings an extra (torch pinned with the training stack)."""
    pinned = f" {TORCH}" if extra == "train" else ""
    return f'pip install "cardzoo[{extra}]"{pinned} (in a source checkout: pip install -e ".[{extra}]"{pinned})'


def missing_extra(error: ModuleNotFoundError) -> UserError | None:
    """The one-line error for a module an extra brings, or None for any other missing module."""
    module = (error.name or "").partition(".")[0]
    extra = EXTRA_OF.get(module)
    if extra is None:
        return None
    return UserError(f"{module} is not installed: {install_line(extra)}")


def require(module: str, what: str) -> None:
    """Refuse ``what`` at once (before any work) where ``module`` is not installed."""
    if importlib.util.find_spec(module) is None:
        raise UserError(f"{what} needs {module}, which is not installed: {install_line(EXTRA_OF[module])}")
