"""Command-line pieces shared by the subcommands."""

from __future__ import annotations

import dataclasses
import difflib
import os
import re

from cardzoo.envs.errors import UserError


def add_option_flag(parser, example: str = "rounds=1") -> None:
    parser.add_argument(
        "-o",
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help=f"rule option of the game, repeatable (e.g. {example})",
    )


def add_ray_flag(parser, what: str) -> None:
    parser.add_argument(
        "--ray",
        nargs="?",
        const="",
        default=None,
        metavar="ADDRESS",
        help=f"{what} (pip install -e '.[ray]'); ADDRESS auto or HOST:PORT; without one, the "
        "cluster `ray start` made on this machine, else a new local one "
        "(docs/training.md, Several machines)",
    )


def ray_session_of(args):
    """Joined to the Ray cluster of ``--ray`` for the whole command, or nothing to do."""
    import contextlib

    if args.ray is None:
        return contextlib.nullcontext()
    from cardzoo.training.parallel.ray_actors import ray_session

    return ray_session(args.ray)


def check_output_file(path: str, flag: str) -> None:
    """A one-line error unless ``path`` can be written, found before any work is done (a long
    tournament must not fail at its end): an existing file is opened for appending and closed,
    its content untouched; a new one is created and removed again."""
    if os.path.isdir(path):
        raise UserError(f"{flag} {path} is a folder; give a file name")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UserError(f"{flag} {path}: the folder {folder} does not exist")
    try:
        if os.path.exists(path):
            with open(path, "ab"):
                pass
        else:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            os.unlink(path)
    except OSError as e:
        raise UserError(f"{flag} {path}: cannot write there ({e.strerror or e})") from None


def parse_options(items, game: str) -> dict:
    """KEY=VALUE strings -> ``game``'s config keywords, each value read as its option's type:

    a yes/no option takes true/false (yes/no, on/off, 1/0); a number takes a whole number; a
    list of round sizes takes ``8,4`` or ``[8,4]``; an option with a few values (the config's
    ``CHOICES``) takes one of them. Anything else is a one-line UserError that names the option
    and what it takes; the config then checks ranges and combinations. The player count is
    ``--players``, never a rule option. The same reader serves play, eval, train, ladder and
    the browser's new-game form."""
    from cardzoo.envs.registry import game_spec

    spec = game_spec(game)
    config = spec.module.Config
    defaults = {f.name: f.default for f in dataclasses.fields(config) if f.name != "num_players"}
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key:
            raise UserError(f"--option {_brief(item)!r} must look like KEY=VALUE, e.g. rounds=1")
        if key in NOT_RULES:
            raise UserError(f"--option {_brief(key)}: {NOT_RULES[key]}")
        if key not in defaults:
            close = difflib.get_close_matches(key, list(defaults), n=1)
            meant = f" (did you mean {close[0]}?)" if close else ""
            raise UserError(
                f"--option {_brief(key)}: unknown option for {spec.name}{meant}; options are: {', '.join(defaults)}"
            )
        out[key] = read_value(key, value.strip(), defaults[key], config.CHOICES.get(key))
    return out


def read_value(key: str, text: str, default, choices: tuple | None):
    """``text`` as option ``key``'s value: the type of its ``default``, one of its ``choices``."""
    if choices is not None:
        found = [c for c in choices if str(c).lower() == text.lower()]
        if not found:
            raise UserError(
                f"--option {key}: {_brief(text)!r} is not one of its values: {', '.join(map(str, choices))}"
            )
        return found[0]
    if isinstance(default, bool):
        if text.lower() not in _BOOLS:
            raise UserError(f"--option {key}: {_brief(text)!r} is not true or false (yes/no, on/off, 1/0 work too)")
        return _BOOLS[text.lower()]
    if isinstance(default, int):
        if not _INT.fullmatch(text):
            raise UserError(f"--option {key}: {_brief(text)!r} is not a whole number (e.g. {key}={default})")
        return int(text)
    if isinstance(default, tuple):
        parts = text.strip("[]() ").replace(",", " ").split()
        if not parts or not all(_INT.fullmatch(p) for p in parts) or len(parts) > MAX_LIST:
            example = ",".join(map(str, default))
            raise UserError(f"--option {key}: {_brief(text)!r} is not a list of whole numbers (e.g. {key}={example})")
        return tuple(int(p) for p in parts)
    return text


_BOOLS = {"true": True, "yes": True, "on": True, "1": True, "false": False, "no": False, "off": False, "0": False}
_INT = re.compile(r"[-+]?\d{1,12}")
MAX_LIST = 64  # numbers in a list option (the longest list a rule takes is a few round sizes)
# keywords the envs take beside their rule options, refused after -o with what to do instead
NOT_RULES = {
    "num_players": "give the number of players with --players, not as a rule option",
    "render_mode": "not a rule option (the command chooses how to show the game)",
}


def _brief(text: str, limit: int = 40) -> str:
    """A user's text in a one-line error, cut short (it may be thousands of characters)."""
    return text if len(text) <= limit else text[:limit] + "…"
