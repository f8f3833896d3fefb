"""JSON from files and command lines, parsed without the two ways ``json.loads`` fails badly.

``json.loads`` recurses once per level of ``[ ]`` / ``{ }``, so a few thousand nested brackets
raise RecursionError, and Python refuses to convert an integer literal of more than 4,300 digits
(a plain ValueError from inside the parser). Every JSON a user hands to cardzoo (checkpoint
sidecars, game records, tournament logs, bench results, ``-o KEY=VALUE``) is parsed here: the
nesting is counted first without recursing, and each failure is one line (``BadJSON``, or a
``UserError`` naming the file). The browser's JSON has its own vectorised depth check
(``cardzoo.scripts.serve.jsoncheck``), run on every request before this parser.
"""

from __future__ import annotations

import json
import re
import sys

from cardzoo.envs.errors import UserError

MAX_DEPTH = 32  # nesting of [ ] and { } (a checkpoint sidecar, a game record or a bench result needs under 8)
MAX_FILE_BYTES = (
    64 << 20
)  # a whole JSON file read at once (bench results, a tournament log's lines are read one by one)

# a string, or an unterminated one to the end (which the parser refuses before any bracket after it)
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]")


class BadJSON(ValueError):
    """Why a text is not acceptable JSON (callers add where it came from)."""


def _brief(text: str, limit: int = 100) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def json_depth(text: str) -> int:
    """How deeply arrays/objects nest, counted without recursing (brackets in strings do not count)."""
    depth = peak = 0
    for c in _NOT_BRACKET.sub("", _JSON_STRING.sub("", text)):
        depth += 1 if c in "[{" else -1
        peak = max(peak, depth)
    return peak


def parse_json(text: str, max_depth: int = MAX_DEPTH):
    """``json.loads(text)``, or ``BadJSON`` with a one-line reason: too deep, not JSON, a number
    Python will not convert."""
    depth = json_depth(text)
    if depth > max_depth:
        raise BadJSON(f"nested {depth} levels deep, at most {max_depth} allowed")
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise BadJSON(f"not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    except ValueError as e:  # an integer literal longer than Python converts, or the like
        why = str(e).splitlines()[0] if str(e) else type(e).__name__
        if "integer string conversion" in why:
            why = f"a number of more than {sys.get_int_max_str_digits():,} digits"
        raise BadJSON(f"not valid JSON: {_brief(why)}") from None


def read_json_file(path, what: str = "", limit: int = MAX_FILE_BYTES, max_depth: int = MAX_DEPTH):
    """The JSON in the file ``path``, or a one-line ``UserError`` naming the file (``what``, e.g.
    "--show", goes in front)."""
    where = f"{what}: {path}" if what else str(path)
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as e:
        raise UserError(f"{what + ': ' if what else ''}cannot read {path} ({e.strerror or e})") from None
    if len(data) > limit:
        raise UserError(f"{where}: larger than {limit:,} bytes")
    try:
        return parse_json(data.decode("utf-8"), max_depth)
    except UnicodeDecodeError:
        raise UserError(f"{where}: not UTF-8 text") from None
    except BadJSON as e:
        raise UserError(f"{where}: {e}") from None
