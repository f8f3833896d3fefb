"""Command-line pieces shared by the subcommands."""

from __future__ import annotations

import json

from cardzoo.envs.errors import UserError


def add_option_flag(parser, example: str = "rounds=1") -> None:
    parser.add_argument("-o", "--option", action="append", default=[], metavar="KEY=VALUE",
                        help=f"rule option of the game, repeatable (e.g. {example})")


def add_ray_flag(parser, what: str) -> None:
    parser.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                        help=f"{what} (pip install -e '.[ray]'); ADDRESS auto or HOST:PORT; without one, the "
                             "cluster `ray start` made on this machine, else a new local one "
                             "(docs/training.md, Several machines)")


def ray_session_of(args):
    """Joined to the Ray cluster of ``--ray`` for the whole command, or nothing to do."""
    import contextlib

    if args.ray is None:
        return contextlib.nullcontext()
    from cardzoo.training.parallel.ray_actors import ray_session

    return ray_session(args.ray)


def parse_options(items) -> dict:
    """KEY=VALUE strings -> config keywords (values as JSON where they parse: 1, true, [8,4])."""
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key:
            raise UserError(f"--option {item!r} must look like KEY=VALUE, e.g. rounds=1")
        value = value.strip()
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError:
            parsed = {"True": True, "False": False}.get(value, value)
        out[key] = tuple(parsed) if isinstance(parsed, list) else parsed
    return out
