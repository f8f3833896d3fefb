"""How likely a Sam Sip hand is to complete three pairs within its next few draws (pure numpy).

For three pairs (rules P9a) only a card's *pairing type* matters: its rank (A..K), wild, or dead
(Khi scheme). A 5-card hand is then a multiset of 5 types out of 15, a 6-card hand one of 6, and
there are few of them (11,628 and 38,760), so every hand gets an index and the moves between
them (draw a type, discard a type) are lookup tables built once.

``Chances(p, gamma).of(depth, hands)`` gives, for 5-card hands, the chance of completing within
``depth`` own draws when each draw is a type drawn with probabilities ``p`` (the cards this seat
has not seen), discarding to the best hand after every miss; a completion ``k`` draws away counts
``gamma ** (k - 1)`` because the other players race for the same hand. Draws are treated as
independent (the stock is large next to a few draws) and the discards offered by the other
players are ignored: it is a single-player estimate (the lookahead player's guide and a
move-ranker feature).
Special hands (P9b, P9c) are not counted here: the engine still declares them.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations_with_replacement

import numpy as np

from cardzoo.envs.samsip.engine import TOK_DEAD, TOK_WILD, is_three_pairs

NUM_TYPES = 15  # 13 natural ranks, wild, dead


def card_type(kind: int, wild, dead) -> int:
    """The pairing type of a card kind (52 = a joker) under the deal's wild and dead sets."""
    if kind in wild:
        return TOK_WILD
    if kind in dead:
        return TOK_DEAD
    return kind >> 2


class HandTables:
    """Indices of every 5- and 6-type hand and the draw / discard moves between them."""

    def __init__(self):
        five = [self._counts(h) for h in combinations_with_replacement(range(NUM_TYPES), 5)]
        six = [self._counts(h) for h in combinations_with_replacement(range(NUM_TYPES), 6)]
        self.index5 = {c: i for i, c in enumerate(five)}
        index6 = {c: i for i, c in enumerate(six)}
        self.wins6 = np.array([is_three_pairs(c[:13], c[TOK_WILD], c[TOK_DEAD]) for c in six], dtype=bool)
        # draw[i5, t]: the 6-card hand after drawing type t; discard[i6, t]: the 5-card hand after
        # discarding type t, or -1 where the hand holds no card of that type
        self.draw = np.array([[index6[self._plus(c, t, 1)] for t in range(NUM_TYPES)] for c in five], dtype=np.int32)
        self.discard = np.array([[self.index5[self._plus(c, t, -1)] if c[t] else -1 for t in range(NUM_TYPES)]
                                 for c in six], dtype=np.int32)
        self.draw_wins = self.wins6[self.draw].astype(np.float32)
        # the 332 distinct rows of draw_wins: one-draw chances are summed once per pattern
        patterns, pattern_of = np.unique(self.draw_wins, axis=0, return_inverse=True)
        self.win_patterns, self.win_pattern_of = patterns, pattern_of.reshape(-1)
        # kept[i6]: the 5-card hands a 6-card hand can keep, one per type it holds (at most 6),
        # the first repeated where it holds fewer types (a maximum over them is the same)
        self.kept = np.array([self._keeps(row) for row in self.discard], dtype=np.int32)

    @staticmethod
    def _counts(hand) -> tuple:
        c = [0] * NUM_TYPES
        for t in hand:
            c[t] += 1
        return tuple(c)

    @staticmethod
    def _plus(c: tuple, t: int, k: int) -> tuple:
        out = list(c)
        out[t] += k
        return tuple(out)

    @staticmethod
    def _keeps(discards) -> list[int]:
        keeps = [int(i) for i in discards if i >= 0]
        return keeps + keeps[:1] * (6 - len(keeps))

    def key(self, types) -> tuple:
        return self._counts(types)


@lru_cache(maxsize=1)
def tables() -> HandTables:
    """The tables, built on first use (about a second) and shared."""
    return HandTables()


def expected(values: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``values @ p`` over the last axis (the 15 draw types), as float32, with each row's result
    depending on that row alone: a matrix product's rounding depends on how many rows share the
    batch (BLAS blocks them differently), which made a hand's chance depend on the other hands
    asked with it. Here the terms are added in float64, type by type, in one fixed order (a
    running sum along the row; ``+ 0.0`` as the first term's addition to zero would)."""
    terms = np.asarray(values, dtype=np.float64) * np.asarray(p, dtype=np.float64)
    return (np.cumsum(terms, axis=-1)[..., -1] + 0.0).astype(np.float32)


class Chances:
    """Completion chances for one draw distribution ``p`` (15 types) and discount ``gamma``.

    ``of(depth, hands)``: the discounted chance that each 5-card hand index completes within
    ``depth`` draws. The one-draw chance is computed for every hand at once (one table product);
    deeper draws only over the hands reachable from ``hands``, so depth 3 costs about a
    millisecond. ``best_kept(depth, hands6)``: the same for the best 5 cards to keep of 6.
    Each hand's chance depends on that hand alone, so every one computed is kept (per depth) and
    asked again costs a lookup: the moves of one decision share most of their reachable hands.
    """

    def __init__(self, p: np.ndarray, gamma: float):
        self.t = tables()
        self.p = np.asarray(p, dtype=np.float32)
        self.gamma = np.float32(gamma)
        self.one = expected(self.t.win_patterns, self.p)[self.t.win_pattern_of]  # every hand's one-draw chance
        self.known: dict[int, np.ndarray] = {}  # depth >= 2 -> chance per hand index, NaN until computed

    def of(self, depth: int, hands) -> np.ndarray:
        hands = np.asarray(hands, dtype=np.int64)
        if depth <= 1:
            return self.one[hands]
        known = self.known.get(depth)
        if known is None:
            known = self.known[depth] = np.full(len(self.one), np.nan, dtype=np.float32)
        values = known[hands]
        missing = np.isnan(values)
        if missing.any():
            todo = np.unique(hands[missing])
            rows = self.t.draw[todo]  # [hand, draw type] -> 6-card hand
            known[todo] = expected(np.where(self.t.wins6[rows], np.float32(1.0),
                                            self.gamma * self.best_kept(depth - 1, rows)), self.p)
            values = known[hands]
        return values

    def best_kept(self, depth: int, hands6) -> np.ndarray:
        return self.of(depth, self.t.kept[hands6]).max(axis=-1)
