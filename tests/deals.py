"""Match seeds of the scenarios the play and serve tests were written on.

A match's seed is its episode seed (``envs.seatview.deal_match``: the seed `cardzoo play` prints
is the one a record keeps and `cardzoo replay` shows). Before that, ``reset(seed=n)`` dealt the
episode seed drawn from ``random.Random(n)``; ``dealt_by(n)`` is that episode seed, so a test
found on ``--seed n`` still plays the same deals.
"""

from __future__ import annotations

import random


def dealt_by(n: int) -> int:
    """The match seed that deals what ``reset(seed=n)`` deals."""
    return random.Random(n).getrandbits(63)
