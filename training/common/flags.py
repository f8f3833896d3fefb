"""``cardzoo train``'s trainer flags, generated from the settings dataclasses' fields (declared with
``cardzoo.training.common.settings.setting``): argparse flags whose help says each trainer's
default, and the given flags' text turned into a trainer's settings fields.

A flag several trainers take is one argparse flag; its help says every trainer's default (and
every trainer's meaning where they differ). Flags are added with no default of argparse's own,
so only the flags the user gives reach a trainer: a resume refuses the ones that would change
its run, and a recipe's values stand where no flag is given.
"""

from __future__ import annotations

import argparse
from dataclasses import MISSING, Field, fields

from cardzoo.envs.errors import UserError


def flag_fields(cls) -> dict[str, Field]:
    """The settings class's fields that are flags, by argparse dest (``lr``, ``matches``...)."""
    return {(f.metadata.get("flag") or f.name).replace("-", "_"): f for f in fields(cls) if "help" in f.metadata}


def flag_name(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def add_settings_flags(parser: argparse.ArgumentParser, trainers: dict[str, type]) -> set[str]:
    """Every trainer's flags on ``parser``: one group for the flags of several trainers, one per
    trainer for its own; the dests added."""
    owners: dict[str, dict[str, Field]] = {}  # dest -> {algo: field}
    for algo, cls in trainers.items():
        for dest, f in flag_fields(cls).items():
            owners.setdefault(dest, {})[algo] = f
    shared = [d for d, by in owners.items() if len(by) > 1]
    group = parser.add_argument_group(
        "flags of several trainers", "each trainer's default is said; a recipe (cardzoo train GAME without "
                                     "--algo) sets its own values, listed at the end")
    for dest in shared:
        _add(group, dest, owners[dest])
    for algo, cls in trainers.items():
        theirs = [flag_name(d) for d in shared if algo in owners[d]]
        group = parser.add_argument_group(cls.TITLE, f"also takes {', '.join(theirs)}" if theirs else None)
        for dest, by in owners.items():
            if list(by) == [algo]:
                _add(group, dest, by)
    return set(owners)


def _add(group, dest: str, by: dict[str, Field]) -> None:
    f = next(iter(by.values()))
    base = str(f.type).split(" |")[0]  # num_cpus: int | None
    kind = {"int": int, "float": float}.get(base) if f.metadata.get("parse") is None else None
    group.add_argument(flag_name(dest), dest=dest, type=kind, default=argparse.SUPPRESS,
                       metavar=f.metadata.get("metavar"), choices=f.metadata.get("choices"), help=flag_help(by))


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
    value = f.default_factory() if f.default is MISSING else f.default
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


def settings_fields(cls, given: dict) -> dict:
    """The flags ``given`` (dest -> value as argparse parsed it) as ``cls``'s settings fields, their
    text parsed (``3,4`` -> ``(3, 4)``); one line for a value that does not parse."""
    own = flag_fields(cls)
    out = {}
    for dest, value in given.items():
        f = own[dest]
        parse = f.metadata.get("parse") or (int_list if str(f.type).startswith("tuple") else None)
        out[f.name] = parse(value, flag_name(dest)) if parse and isinstance(value, str) else value
    return cls.from_flags(out)


def int_list(text, flag: str) -> tuple[int, ...]:
    """'3,4,5' -> (3, 4, 5); a one-line error otherwise."""
    try:
        values = tuple(int(x) for x in str(text).split(","))
    except ValueError:
        raise UserError(f"{flag} wants integers separated by commas, got {text!r}") from None
    return values


def one_count(text, flag: str) -> int:
    """'4' -> 4, for a trainer that plays one player count per run."""
    counts = int_list(text, flag)
    if len(counts) != 1:
        raise UserError(f"{flag} {text}: this trainer trains one player count at a time")
    return counts[0]


def weights(text, flag: str) -> dict:
    """'rules=0.8,snapshot=0.2' -> {'rules': 0.8, 'snapshot': 0.2}."""
    out = {}
    for part in str(text).split(","):
        key, sep, value = part.partition("=")
        try:
            out[key.strip()] = float(value)
        except ValueError:
            sep = ""
        if not sep:
            raise UserError(f"{flag} wants KIND=WEIGHT,... (kinds rules, random, snapshot), got {part!r}")
    return out
