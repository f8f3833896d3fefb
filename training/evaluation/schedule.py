"""Who sits where in a tournament: the sides of a game (the seat groups one entrant controls), the
duplicate set of lineups that replays each deal with the entrants permuted over the sides, and the
list of (deal, index, lineup) tasks a tournament of a given size plays. Pure arithmetic on indices;
nothing here plays a game.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from cardzoo.envs.registry import game_spec

_COMBO_LIMIT = 100_000

Task = tuple[int, int, tuple[int, ...]]  # (deal, index in the deal's duplicate set, lineup)


def sides_for(game: str, players: int) -> tuple[tuple[int, ...], ...]:
    """The sides (seat groups one entrant controls): the game's teams at that player count."""
    return tuple(tuple(team) for team in game_spec(game).teams(players))


def duplicate_set(
    deal: int, n_entrants: int, n_sides: int, base: Sequence[int] | None = None, rotate: bool = True
) -> list[tuple[int, ...]]:
    """The lineups (entrant index per side) that play deal ``deal``.

    * field of E entrants, S sides, E <= S: the field repeated around the table (entrant (i + k) mod E
      on side i, for every shift k < E) and every rotation of that, without repeats. E = S: the S
      rotations; rules+random at 4 seats: ABAB and BABA; at 3 seats: ABA, BAA, AAB, BAB, ABB, BBA.
    * field of E > S entrants: deal d seats the (d mod C(E, S))-th subset of S entrants, in all S
      rotations.
    * explicit seats (``base``): the given lineup in all its distinct rotations (or as given
      with ``rotate=False``).
    """

    def rotations(seq):
        out = []
        for r in range(n_sides if rotate else 1):
            lu = tuple(seq[(i + r) % n_sides] for i in range(n_sides))
            if lu not in out:
                out.append(lu)
        return out

    if base is not None:
        return rotations(tuple(base))
    if n_entrants <= n_sides:
        out: list[tuple[int, ...]] = []
        for k in range(n_entrants):
            for lu in rotations(tuple((i + k) % n_entrants for i in range(n_sides))):
                if lu not in out:
                    out.append(lu)
        return out
    n_combos = math.comb(n_entrants, n_sides)
    if n_combos <= _COMBO_LIMIT:
        combo = _nth_combination(n_entrants, n_sides, deal % n_combos)
    else:
        rng = np.random.default_rng(deal)
        combo = tuple(sorted(int(x) for x in rng.choice(n_entrants, n_sides, replace=False)))
    return rotations(combo)


def _nth_combination(n: int, k: int, index: int) -> tuple[int, ...]:
    """The index-th k-subset of range(n) in lexicographic order (itertools.combinations order)."""
    out, start = [], 0
    for slot in range(k):
        for x in range(start, n):
            count = math.comb(n - x - 1, k - slot - 1)
            if index < count:
                out.append(x)
                start = x + 1
                break
            index -= count
    return tuple(out)


def schedule(
    games: int, n_entrants: int, n_sides: int, base: Sequence[int] | None, rotate: bool
) -> tuple[int, list[Task]]:
    """(games per deal, every task): ``games`` rounded up to whole duplicate sets, deal by deal."""
    set_size = len(duplicate_set(0, n_entrants, n_sides, base, rotate))
    n_deals = -(-int(games) // set_size)
    tasks = [
        (d, i, lu) for d in range(n_deals) for i, lu in enumerate(duplicate_set(d, n_entrants, n_sides, base, rotate))
    ]
    return set_size, tasks
