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
_FEW = 256  # up to this many hands `expected` sums in one call, beyond it one draw type at a time


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
        self.discard = np.array(
            [[self.index5[self._plus(c, t, -1)] if c[t] else -1 for t in range(NUM_TYPES)] for c in six], dtype=np.int32
        )
        self.draw_wins = self.wins6[self.draw]  # [i5, t]: drawing type t completes three pairs
        # the 332 distinct rows of draw_wins: one-draw chances are summed once per pattern
        patterns, pattern_of = np.unique(self.draw_wins.astype(np.float32), axis=0, return_inverse=True)
        self.win_patterns, self.win_pattern_of = np.ascontiguousarray(patterns.T), pattern_of.reshape(-1)
        # kept[i6]: the 5-card hands a 6-card hand can keep, one per type it holds (at most 6),
        # the first repeated where it holds fewer types (a maximum over them is the same)
        self.kept = np.array([self._keeps(row) for row in self.discard], dtype=np.int32)
        # after_draw[j][i5, t]: the j-th hand kept of the 6-card hand drawing type t makes; the two
        # lookups of every deeper chance (draw, then keep) done once here
        self.after_draw = np.ascontiguousarray(self.kept[self.draw].transpose(2, 0, 1), dtype=np.intp)
        # Two draws from the end a 6-card hand that misses is worth its best kept hand's one-draw
        # chance: the most of the one-draw chances of the patterns it can keep. keep_sets[:, s]:
        # each distinct set of them (1,739, padded by repeating one), set_after_draw[i5, t]: the
        # set of the 6-card hand drawing type t makes (any, where it wins)
        keep_sets = [
            sorted(set(row)) if not win else [0]
            for row, win in zip(self.win_pattern_of[self.kept].tolist(), self.wins6)
        ]
        sets, set_of_six = np.unique([k + k[:1] * (6 - len(k)) for k in keep_sets], axis=0, return_inverse=True)
        self.keep_sets = np.ascontiguousarray(sets.T, dtype=np.intp)  # [6, set]
        self.set_after_draw = np.ascontiguousarray(set_of_six.reshape(-1)[self.draw], dtype=np.intp)

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
    """``sum_t values[t] * p[t]`` over the first axis (the 15 draw types), as float32, with each
    column's result depending on that column alone: a matrix product's rounding depends on how
    many rows share the batch (BLAS blocks them differently), which made a hand's chance depend on
    the other hands asked with it. Here the terms are added in float64, type by type, in one fixed
    order (``+ 0.0`` at the end turns a -0.0 into 0.0, as adding the first term to zero would).
    ``p``: one distribution [15], or one per column (any shape whose rows broadcast against
    ``values[t]``)."""
    p = np.asarray(p, dtype=np.float64)
    if p.ndim == 1 and values.shape[-1] <= _FEW:  # one call: a running sum down the columns (slow on wide arrays)
        total = np.add.accumulate(values * p.reshape((-1,) + (1,) * (values.ndim - 1)), axis=0)[-1]
    else:  # the same sums, one draw type at a time over every column
        total = values[0] * p[0]  # float32 times float64: the float64 product
        for t in range(1, len(p)):
            total += values[t] * p[t]
    return (total + 0.0).astype(np.float32)


class Chances:
    """Completion chances for draw distributions ``p`` (15 types; [D, 15]: D decisions' at once)
    and discount ``gamma``.

    ``levels(depth, hands)``: the discounted chance that each 5-card hand index completes within
    1, 2, ..., ``depth`` draws (one row per depth). The one-draw chance is one sum per pattern of
    completing draws (332 of them); the two-draw chance of a miss is the best one-draw chance
    among the patterns its 6 cards can keep, found once per set of them; a deeper one is computed
    for the hands asked and those reachable from them, level by level from the deepest: the hands
    whose chance within ``d`` draws is needed are gathered once, deduplicated in a table of every
    hand, and each level is a handful of array operations over all of them. ``of(depth, hands)``
    is the last row, ``best_kept(depth, hands6)`` the same for the best 5 cards to keep of 6.
    Each hand's chance is a function of that hand and its own ``p`` alone, rounded the same way
    whatever is asked with it: a miss's value is ``gamma`` times the best kept hand's (float32)
    and the 15 draws' terms are added in float64 in one fixed order (``expected``). So D
    decisions solved together (``solve_each``, the collector's batch) give each the very bits it
    gets alone, in a few array operations for all of them instead of a few per decision.
    """

    def __init__(self, p: np.ndarray, gamma: float):
        self.t = tables()
        self.p = np.asarray(p, dtype=np.float32)
        self.gamma = np.float32(gamma)
        self.hands = len(self.t.index5)  # a table holds every hand, D tables one after the other
        self.size = self.p.size // NUM_TYPES * self.hands
        p64 = self.p.reshape(-1, NUM_TYPES).T.astype(np.float64)[:, :, None]  # [type, decision, 1]
        one = expected(self.t.win_patterns, p64 if self.p.ndim > 1 else self.p)  # [D, pattern] (or [pattern])
        self.patterns = self.t.win_patterns.shape[1]
        self.one_by_pattern = one.reshape(-1)  # each pattern's one-draw chance, D rows one after the other

    def solve(self, depth: int, hands) -> list[np.ndarray]:
        """The chance within 1, 2, ..., ``depth`` draws as one table of every hand per depth,
        filled (at depth ``d`` >= 2) at ``hands`` and every hand reachable from them within
        ``depth - d`` draws (a draw, then a hand kept), and at depth 1 where depth 2 is (at
        ``hands`` when ``depth`` is 1); the other entries are undefined. With D distributions
        the tables hold D tables one after the other, ``hands`` indexes them (decision d's hand h
        at ``d * self.hands + h``, as ``solve_each`` asks)."""
        hands = np.asarray(hands, dtype=np.int64).reshape(-1)
        t = self.t
        needed = [np.unique(hands)]  # where the tables of depth, depth - 1, ..., 2 are needed
        for _ in range(depth - 2):
            mark = np.zeros(self.size, dtype=bool)
            mark[hands] = True
            local, decision = self._split(needed[-1])
            reach = t.kept[t.draw[local]]  # [hand, draw type, kept]
            mark[reach if decision is None else reach + (decision * self.hands)[:, None, None]] = True
            needed.append(np.flatnonzero(mark))
        solved = [self._one(needed[-1])]
        if depth > 1:
            solved.append(self._second(needed[-1]))
            for at in reversed(needed[:-1]):
                solved.append(self._deeper(solved[-1], at))
        return solved

    def solve_each(self, depth: int, asked: list) -> list[np.ndarray]:
        """``solve`` for D distributions at once, ``asked[d]`` the hands decision d asks: per
        depth a [D, hands] table, row d filled where ``Chances(p[d], gamma).solve`` fills its
        table, with the same bits."""
        at = [np.asarray(h, dtype=np.int64).reshape(-1) + d * self.hands for d, h in enumerate(asked)]
        return [table.reshape(-1, self.hands) for table in self.solve(depth, np.concatenate(at))]

    def _split(self, at: np.ndarray) -> tuple:
        """Table positions as (hand indices, each one's decision: the table it is in, or None with
        one table)."""
        if self.size == self.hands:
            return at, None
        return at % self.hands, at // self.hands

    def levels(self, depth: int, hands) -> np.ndarray:
        """[depth, len(hands)]: each hand's chance within 1, 2, ..., ``depth`` draws."""
        hands = np.asarray(hands, dtype=np.int64).reshape(-1)
        return np.stack([table[hands] for table in self.solve(depth, hands)])

    def _one(self, at: np.ndarray) -> np.ndarray:
        """The one-draw chance table, filled at ``at``."""
        hands, decision = self._split(at)
        pattern = self.t.win_pattern_of[hands]
        value = np.empty(self.size, dtype=np.float32)
        value[at] = self.one_by_pattern[pattern if decision is None else pattern + decision * self.patterns]
        return value

    def _second(self, at: np.ndarray) -> np.ndarray:
        """The two-draw chance table, filled at ``at``: a miss is worth ``gamma`` times the best
        one-draw chance among the patterns the 6-card hand can keep (the same float32 values as
        ``_deeper`` of the one-draw table reads, so the same bits): found once per set of them
        for every distribution when the draws asked are more than half as many as the sets (the
        collector's batch, where a draw by draw lookup would repeat the sets' work), else draw
        by draw (a lookahead's few discards)."""
        t = self.t
        hands, decision = self._split(at)
        sets = t.set_after_draw[hands]  # [hand, draw type]
        count = t.keep_sets.shape[1]
        if 2 * sets.size < count * (self.size // self.hands):
            offset = 0 if decision is None else (decision * self.patterns)[:, None]
            best = self.one_by_pattern[t.keep_sets[0][sets] + offset]
            for column in t.keep_sets[1:]:
                np.maximum(best, self.one_by_pattern[column[sets] + offset], out=best)
            return self._miss_or_win(at, hands, decision, best)
        one = self.one_by_pattern.reshape(-1, self.patterns)
        by_set = one[:, t.keep_sets[0]]  # [D, set]: the best one-draw chance a set keeps
        for column in t.keep_sets[1:]:
            np.maximum(by_set, one[:, column], out=by_set)
        best = by_set.reshape(-1)[sets if decision is None else sets + (decision * count)[:, None]]
        return self._miss_or_win(at, hands, decision, best)

    def _deeper(self, table: np.ndarray, at: np.ndarray) -> np.ndarray:
        """Every hand's chance one draw deeper than ``table``'s (filled at ``at`` only; the
        table must hold every hand a draw from them can keep)."""
        t = self.t
        hands, decision = self._split(at)
        column = 0 if decision is None else (decision * self.hands)[:, None]
        best = table[t.after_draw[0][hands] + column]  # [hand, draw type]: the best hand to keep after it
        for keep in t.after_draw[1:]:
            np.maximum(best, table[keep[hands] + column], out=best)
        return self._miss_or_win(at, hands, decision, best)

    def _miss_or_win(self, at, hands, decision, best: np.ndarray) -> np.ndarray:
        """The table filled at ``at``: each hand's draws summed, a winning draw worth 1, a miss
        ``gamma`` times ``best`` [hand, draw type], the value of the hand kept after it."""
        miss = np.where(self.t.draw_wins[hands], np.float32(1.0), self.gamma * best)
        p = self.p.reshape(-1) if decision is None else self.p[decision].T  # [type, hand] with D
        value = np.empty(self.size, dtype=np.float32)
        value[at] = expected(miss.T, p)
        return value

    def of(self, depth: int, hands) -> np.ndarray:
        return self.levels(depth, hands)[-1]

    def best_kept(self, depth: int, hands6) -> np.ndarray:
        hands6 = np.asarray(hands6, dtype=np.int64)
        kept = self.t.kept[hands6]
        return self.of(depth, kept).reshape(kept.shape).max(axis=-1)
