"""The torch device a network runs on, from its name: ``auto`` (cuda where torch sees one, else
cpu), ``cpu`` or ``cuda``. The trainers' ``--device`` and the expert's ``CARDZOO_EXPERT_DEVICE``
both name it so; a device this machine lacks is one line, before anything runs."""

from __future__ import annotations

from cardzoo.envs.errors import UserError

DEVICES = ("auto", "cpu", "cuda")


def torch_device(name: str, what: str = "--device"):
    """The ``torch.device`` ``name`` means here; ``what`` (the flag or variable that gave it) names it
    in the error. torch is imported here, not with the module: settings name ``DEVICES`` without it."""
    import torch

    if name not in DEVICES:
        raise UserError(f"{what} must be one of {', '.join(DEVICES)}, got {name!r}")
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise UserError(
            f"{what} cuda: torch sees no CUDA device on this machine (torch {torch.__version__}); use cpu or auto"
        )
    return torch.device(name)
