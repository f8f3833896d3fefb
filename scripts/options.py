"""Command-line pieces shared by the subcommands."""

from __future__ import annotations

import os
import re

from cardzoo.envs.errors import UserError
from cardzoo.training.agents.jsontext import BadJSON, parse_json


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


def parse_options(items) -> dict:
    """KEY=VALUE strings -> config keywords (values as JSON where they parse: 1, true, [8,4]).

    A value that starts like JSON (a number, ``[`` or ``{``) must be JSON the shared reader takes
    (``cardzoo.training.agents.jsontext``: nested at most 32 deep, numbers Python converts); any
    other text is a string. The player count is ``--players``, never a rule option."""
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key:
            raise UserError(f"--option {_brief(item)!r} must look like KEY=VALUE, e.g. rounds=1")
        if key in NOT_RULES:
            raise UserError(f"--option {_brief(key)}: {NOT_RULES[key]}")
        value = value.strip()
        try:
            parsed = parse_json(value)
        except BadJSON as e:
            if _JSON_START.match(value):
                raise UserError(f"--option {_brief(key)}: the value {_brief(value)!r} is {e}") from None
            parsed = {"True": True, "False": False}.get(value, value)
        out[key] = tuple(parsed) if isinstance(parsed, list) else parsed
    return out


# keywords the envs take beside their rule options, refused after -o with what to do instead
NOT_RULES = {
    "num_players": "give the number of players with --players, not as a rule option",
    "render_mode": "not a rule option (the command chooses how to show the game)",
}
# JSON that failed to parse is an error only where text was plainly meant as JSON: a list, an object
# or a number (`[8,4`, `1.2.3`); a word that starts with a digit (`13each`) is text
_JSON_START = re.compile(r"\s*([\[{]|[-+]?[\d.]+([eE][-+]?[\d.]*)?\s*$)")


def _brief(text: str, limit: int = 40) -> str:
    """A user's text in a one-line error, cut short (it may be thousands of characters)."""
    return text if len(text) <= limit else text[:limit] + "…"
