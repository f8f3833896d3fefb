"""``cardzoo train``'s trainer flags, generated from the settings dataclasses' fields (declared with
``cardzoo.training.common.settings.setting``): argparse flags whose help says each trainer's default.

A flag several trainers take is one argparse flag; its help says every trainer's default (and
every trainer's meaning where they differ). Flags are added with no default of argparse's own,
so only the flags the user gives reach a trainer: a resume refuses the ones that would change
its run, and a recipe's values stand where no flag is given.
"""

from __future__ import annotations

import argparse
from dataclasses import MISSING, Field
from typing import TYPE_CHECKING

from cardzoo.training.common.flags import flag_fields, flag_name

if TYPE_CHECKING:
    from cardzoo.training.common.settings import TrainerSettings


def add_settings_flags(parser: argparse.ArgumentParser, trainers: dict[str, type[TrainerSettings]]) -> set[str]:
    """Every trainer's flags on ``parser``: one group for the flags of several trainers, one per
    trainer for its own; the dests added."""
    owners: dict[str, dict[str, Field]] = {}  # dest -> {algo: field}
    for algo, cls in trainers.items():
        for dest, f in flag_fields(cls).items():
            owners.setdefault(dest, {})[algo] = f
    shared = [d for d, by in owners.items() if len(by) > 1]
    group = parser.add_argument_group(
        "flags of several trainers",
        "each trainer's default is said; a recipe (cardzoo train GAME without "
        "--algo) sets its own values, listed at the end",
    )
    for dest in shared:
        _add(group, dest, owners[dest])
    earlier = set()
    for algo, cls in trainers.items():
        theirs = [flag_name(d) for d in shared if algo in owners[d]]
        group = parser.add_argument_group(cls.TITLE, f"also takes {', '.join(theirs)}" if theirs else None)
        for dest, by in owners.items():
            if list(by) == [algo]:
                _add(group, dest, by)
        for dest, (_, _, note) in cls.RENAMED.items():  # an earlier spelling, kept for scripts that use it
            group.add_argument(flag_name(dest), dest=dest, default=argparse.SUPPRESS, help=f"earlier spelling: {note}")
            earlier.add(dest)
    return set(owners) | earlier


def _add(group, dest: str, by: dict[str, Field]) -> None:
    f = next(iter(by.values()))
    base = str(f.type).split(" |")[0]  # num_cpus: int | None
    kind = {"int": int, "float": float}.get(base) if f.metadata.get("parse") is None else None
    group.add_argument(
        flag_name(dest),
        dest=dest,
        type=kind,
        default=argparse.SUPPRESS,
        metavar=f.metadata.get("metavar"),
        choices=f.metadata.get("choices"),
        help=flag_help(by),
    )


def flag_help(by: dict[str, Field]) -> str:
    """A flag's help: its meaning (each trainer's, where they differ) and each trainer's default."""
    helps: dict[str, list[str]] = {}
    for algo, f in by.items():
        helps.setdefault(f.metadata["help"], []).append(algo)
    if len(helps) == 1:
        text = next(iter(helps))
    else:
        text = "; ".join(f"{', '.join(algos)}: {h}" for h, algos in helps.items())
    text = text.replace("%", "%%")  # argparse formats help with %
    defaults = {algo: shown_default(f) for algo, f in by.items()}
    if len(set(defaults.values())) == 1:
        return f"{text} (default {next(iter(defaults.values()))})"
    return f"{text} (default: {', '.join(f'{algo} {d}' for algo, d in defaults.items())})"


def shown_default(f: Field) -> str:
    """A field's default as its flag would be given, or what an empty one means."""
    value = f.default if f.default_factory is MISSING else f.default_factory()
    if value in ((), None, "", {}):
        return f.metadata.get("unset") or "none"
    return shown_value(value)


def shown_value(value) -> str:
    """A setting's value as its flag would be given (``256,256``, ``rules=0.4,random=0.1``, ``0.0003``)."""
    if isinstance(value, (tuple, list)):
        return ",".join(map(str, value))
    if isinstance(value, dict):
        return ",".join(f"{k}={v:g}" for k, v in value.items())
    return f"{value:g}" if isinstance(value, float) else str(value)
