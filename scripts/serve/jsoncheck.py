"""The depth check that every JSON text from a browser passes before it is parsed.

``json.loads`` recurses once per level of ``[ ]`` / ``{ }``, so a few thousand nested brackets
raise RecursionError (a traceback and a dropped connection). The server checks the nesting first,
without parsing, and refuses deeper input in one line (docs/serve.md, Security).
"""

from __future__ import annotations

import re

import numpy as np

from cardzoo.scripts.serve.limits import MAX_DEPTH

# a string, or an unterminated one to the end (it always matches, so the scan is linear)
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def json_depth_ok(text: str, limit: int = MAX_DEPTH) -> bool:
    """Whether ``text`` nests brackets at most ``limit`` deep (outside JSON strings), found without
    parsing it: ``json.loads`` recurses once per level, so deep input would raise RecursionError.

    Linear time, in C: strings and everything but brackets are dropped by regexes, then the depth
    is the running sum of +1 per opening and -1 per closing bracket (numpy). Unbalanced or
    mismatched brackets are left to the parser, which refuses them as not JSON."""
    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    if len(brackets) <= limit:
        return True
    codes = np.frombuffer(brackets.encode("ascii"), dtype=np.uint8)
    steps = np.where((codes == ord("[")) | (codes == ord("{")), 1, -1).astype(np.int32)
    return int(np.cumsum(steps).max()) <= limit
