"""The flags of a trainer's settings (fields declared with ``cardzoo.training.common.settings.setting``):
their names, and the text a user gave turned into the settings' fields. ``cardzoo train`` generates
its argparse flags from the same fields (``cardzoo.scripts.train_flags``).
"""

from __future__ import annotations

from dataclasses import Field, fields

from cardzoo.envs.errors import UserError


def flag_fields(cls) -> dict[str, Field]:
    """The settings class's fields that are flags, by argparse dest (``lr``, ``matches``...)."""
    return {(f.metadata.get("flag") or f.name).replace("-", "_"): f for f in fields(cls) if "help" in f.metadata}


def flag_name(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def taken_flags(cls) -> set[str]:
    """The dests of every flag ``cls`` takes: its fields' and the earlier spellings (``RENAMED``)."""
    return set(flag_fields(cls)) | set(cls.RENAMED)


def settings_fields(cls, given: dict) -> dict:
    """The flags ``given`` (dest -> value as argparse parsed it) as ``cls``'s settings fields, their
    text parsed (``3,4`` -> ``(3, 4)``, an earlier spelling's value converted); one line for a
    value that does not parse."""
    own = flag_fields(cls)
    out = {}
    for dest, value in given.items():
        if dest in cls.RENAMED:
            old, (new, convert, _) = dest, cls.RENAMED[dest]
            try:
                value = convert(value)
            except ValueError:
                raise UserError(f"{flag_name(dest)} {value!r}: {cls.RENAMED[dest][2]}") from None
            dest = next(d for d, f in own.items() if f.name == new)
            if dest in given:
                raise UserError(f"{flag_name(old)} and {flag_name(dest)} say the same: give {flag_name(dest)}")
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
