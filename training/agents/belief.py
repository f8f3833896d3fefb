"""Belief-aware determinization: the worlds a seat could be in, drawn in proportion to how likely
each makes the moves the other seats actually played.

``weighted_worlds(engine, seat, rng, count, candidates, scorer)`` deals ``count * candidates``
candidate worlds with the engine's ``resample_hidden(seat)`` (every card the seat has not seen
dealt anew), drops those that break a hard fact the seat knows beyond its own cards
(``consistent_with(seat)``: in Siantappo, what its own swap showed), weighs each of the rest by
the likelihood of the other seats' moves this round — replayed in that world from the round's
start (``round_replay()``) — and draws ``count`` of them, with replacement, in proportion to the
weights. A seat's move is scored by a softened rule bot (``scorer.seat_scores``, lower is better):
probability ``(1 - EPSILON) * softmax(-SOFTNESS * score) + EPSILON / moves``, the mix keeping
any move possible for an opponent that plays otherwise.

Honest by construction: only worlds from ``resample_hidden(seat)`` are read, and in them only
what that seat could know as well (the played cards, the order of play, its swap): the true
engine's other fields never reach the weights (tests/test_expert.py permutes the unseen cards).
The engines that keep their round's history offer it (``round_replay``): Siantappo's.
"""

from __future__ import annotations

import math
import random
from collections import Counter

from cardzoo.envs.errors import UserError

SOFTNESS = 3.0  # how sharply the modelled seats prefer the rule bot's best-scored moves (fitted, below)
EPSILON = 0.1  # the share of every move played at random in that model
DEFAULT_CANDIDATES = 4  # candidate worlds dealt per world drawn


def check_supported(scorer, game: str) -> None:
    """A one-line error unless the game's rule bot scores a seat's moves from an engine
    (``seat_scores``): the games whose engines keep their round's history (``round_replay``)."""
    if not hasattr(scorer, "seat_scores"):
        raise UserError(
            f"the belief-aware expert needs the round's history, which {game} does not keep yet "
            "(siantappo does); use expert"
        )


def move_probability(scores: list[float], index: int) -> float:
    """The modelled probability of the move at ``index`` among moves scored ``scores``."""
    best = min(scores)
    if best == -math.inf:  # going out: the rule bot's certain choice
        soft = [1.0 if s == -math.inf else 0.0 for s in scores]
    else:
        soft = [math.exp(-SOFTNESS * (s - best)) for s in scores]
    return (1 - EPSILON) * soft[index] / sum(soft) + EPSILON / len(scores)


def log_likelihood(world, seat: int, scorer) -> float:
    """The log-probability, under the softened rule bot, of every move the other seats made since
    their hands were dealt, replayed in ``world`` (-inf where one of them is not legal there)."""
    total = 0.0
    for state, mover, legal, chosen in world.round_replay(seat):
        if chosen < 0:
            return -math.inf
        if len(legal) > 1:
            total += math.log(move_probability(scorer.seat_scores(state, mover, legal), chosen))
    return total


def weighted_worlds(engine, seat: int, rng: random.Random, count: int, candidates: int, scorer):
    """``count`` worlds for ``seat`` drawn from ``count * candidates`` by their likelihood (the
    module's docstring; uniform among the candidates if every one breaks a known fact), as
    (the distinct worlds drawn, how many times each was drawn)."""
    pool = [engine.resample_hidden(seat, rng) for _ in range(count * candidates)]
    kept = [w for w in pool if w.consistent_with(seat)]
    logs = [log_likelihood(w, seat, scorer) for w in kept]
    if not logs or max(logs) == -math.inf:
        kept, logs = pool, [0.0] * len(pool)
    top = max(logs)
    drawn = Counter(rng.choices(range(len(kept)), weights=[math.exp(x - top) for x in logs], k=count))
    return [kept[i] for i in sorted(drawn)], [drawn[i] for i in sorted(drawn)]
