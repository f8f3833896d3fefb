"""Siantappo's action ids: the exact action-id table, id <-> cards and id -> text (and the cards
in game order, the ids' domain).

Game order (rules T2): ranks 3 < 4 < ... < K < A < 2, suits ♠ < ♣ < ♦ < ♥, and
key(card) = 4 * game_rank + suit, so 3♠ = 0 and 2♥ = 51. The engine works on keys.

Action ids (one per combination type x top card; the non-top cards are filled with the lowest
suits the player holds, which loses nothing because every comparison uses the top card only):

| ids       | count | move                                                                 |
|-----------|-------|----------------------------------------------------------------------|
| 0-51      | 52    | single, id = key of the card                                        |
| 52-90     | 39    | pair: 52 + 3*rank + (top_suit-1), top suit ♣/♦/♥ (♠ is never on top) |
| 91-103    | 13    | triple: 91 + rank (the three lowest suits held)                      |
| 104-116   | 13    | four of a kind: 104 + rank                                           |
| 117-336   | 220   | straight: by length 3..12, then top rank (5..A), then top suit       |
| 337-366   | 30    | siantappo (three consecutive pairs): 337 + 3*(top_rank-2) + top_suit-1 |
| 367       | 1     | pass                                                                 |
| 368-394   | 27    | only with long_pair_runs: four consecutive pairs, 368 + 3*(top_rank-3) + top_suit-1 |
| 395-418   | 24    | only with long_pair_runs: five consecutive pairs, 395 + 3*(top_rank-4) + top_suit-1 |

Here rank is the game rank 0..12 (3..2); straights and pair runs never contain a 2 (rank 12).
"""

from __future__ import annotations

from cardzoo.envs.cards import SUIT_SYMBOLS, make_card

# Combination types
SINGLE, PAIR, TRIPLE, QUAD, STRAIGHT, SIANTAPPO, RUN4, RUN5, PASS = range(9)
TYPE_NAMES = (
    "single",
    "pair",
    "triple",
    "four of a kind",
    "straight",
    "siantappo",
    "four-pair run",
    "five-pair run",
    "pass",
)
NUM_TYPES = 8  # combination types (pass excluded)

GAME_RANK_NAMES = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")
TWO = 12  # game rank of the 2
ACE = 11

# key <-> shared card id (cardzoo.envs.cards)
KEY_TO_CARD = [make_card((k // 4 + 2) % 13, k % 4) for k in range(52)]
CARD_TO_KEY = [0] * 52
for _k, _c in enumerate(KEY_TO_CARD):
    CARD_TO_KEY[_c] = _k

PASS_ID = 367
BASE_ACTIONS = 368
EXTENDED_ACTIONS = 419


def num_actions(config) -> int:
    """Action ids of a configuration: the pair-run ids only with ``long_pair_runs``."""
    return EXTENDED_ACTIONS if config.long_pair_runs else BASE_ACTIONS


# Per action id: (type, top_rank, top_suit, number of ranks spanned)
ACTION_TYPE: list[int] = []
ACTION_TOP_RANK: list[int] = []
ACTION_TOP_SUIT: list[int] = []
ACTION_SPAN: list[int] = []  # distinct ranks in the combination


def _add(t, r, s, span):
    ACTION_TYPE.append(t)
    ACTION_TOP_RANK.append(r)
    ACTION_TOP_SUIT.append(s)
    ACTION_SPAN.append(span)


for _k in range(52):
    _add(SINGLE, _k // 4, _k % 4, 1)
for _r in range(13):
    for _s in (1, 2, 3):
        _add(PAIR, _r, _s, 1)
for _r in range(13):
    _add(TRIPLE, _r, 3, 1)
for _r in range(13):
    _add(QUAD, _r, 3, 1)
STRAIGHT_ID: dict[tuple[int, int, int], int] = {}
for _L in range(3, 13):
    for _r in range(_L - 1, 12):
        for _s in range(4):
            STRAIGHT_ID[(_L, _r, _s)] = len(ACTION_TYPE)
            _add(STRAIGHT, _r, _s, _L)
for _r in range(2, 12):
    for _s in (1, 2, 3):
        _add(SIANTAPPO, _r, _s, 3)
assert len(ACTION_TYPE) == PASS_ID
_add(PASS, -1, -1, 0)
for _r in range(3, 12):
    for _s in (1, 2, 3):
        _add(RUN4, _r, _s, 4)
for _r in range(4, 12):
    for _s in (1, 2, 3):
        _add(RUN5, _r, _s, 5)
assert len(ACTION_TYPE) == EXTENDED_ACTIONS

# Comparison key of each action (only compared within one type and span)
ACTION_KEY = [
    (4 * r + s if t not in (TRIPLE, QUAD) else r) if t != PASS else -1
    for t, r, s in zip(ACTION_TYPE, ACTION_TOP_RANK, ACTION_TOP_SUIT)
]
ACTION_CARD_COUNT = []
for _t, _span in zip(ACTION_TYPE, ACTION_SPAN):
    ACTION_CARD_COUNT.append(
        {SINGLE: 1, PAIR: 2, TRIPLE: 3, QUAD: 4, STRAIGHT: _span, SIANTAPPO: 6, RUN4: 8, RUN5: 10, PASS: 0}[_t]
    )

PAIR_BASE, TRIPLE_BASE, QUAD_BASE, SIANTAPPO_BASE, RUN4_BASE, RUN5_BASE = 52, 91, 104, 337, 368, 395


def pair_id(rank: int, top_suit: int) -> int:
    return PAIR_BASE + 3 * rank + top_suit - 1


def run_id(kind: int, top_rank: int, top_suit: int) -> int:
    if kind == SIANTAPPO:
        return SIANTAPPO_BASE + 3 * (top_rank - 2) + top_suit - 1
    if kind == RUN4:
        return RUN4_BASE + 3 * (top_rank - 3) + top_suit - 1
    return RUN5_BASE + 3 * (top_rank - 4) + top_suit - 1


def key_str(key: int) -> str:
    return GAME_RANK_NAMES[key >> 2] + SUIT_SYMBOLS[key & 3]


def keys_str(keys) -> str:
    return " ".join(key_str(k) for k in sorted(keys))


def action_name(action: int) -> str:
    """Short description of an action id without a hand (e.g. 'pair, top 9♥')."""
    t = ACTION_TYPE[action]
    if t == PASS:
        return "pass"
    r, s = ACTION_TOP_RANK[action], ACTION_TOP_SUIT[action]
    top = GAME_RANK_NAMES[r] + SUIT_SYMBOLS[s]
    if t == SINGLE:
        return top
    if t in (TRIPLE, QUAD):
        return f"{TYPE_NAMES[t]} of {GAME_RANK_NAMES[r]}s"
    if t == STRAIGHT:
        return f"straight {GAME_RANK_NAMES[r - ACTION_SPAN[action] + 1]}-{GAME_RANK_NAMES[r]}, top {top}"
    return f"{TYPE_NAMES[t]}, top {top}"


def classify(keys) -> int | None:
    """Action id of an exact card set (list of keys), or None if it is no combination.

    Bombs of consecutive pairs map to their siantappo/run ids; quads to their quad id.
    """
    keys = sorted(keys)
    n = len(keys)
    if n == 0 or len(set(keys)) != n:
        return None
    ranks = [k >> 2 for k in keys]
    top = keys[-1]
    if n == 1:
        return top
    if len(set(ranks)) == 1:
        if n == 2:
            return pair_id(ranks[0], top & 3)
        if n == 3:
            return TRIPLE_BASE + ranks[0]
        if n == 4:
            return QUAD_BASE + ranks[0]
        return None
    distinct = sorted(set(ranks))
    consecutive = distinct == list(range(distinct[0], distinct[0] + len(distinct)))
    if not consecutive or TWO in distinct:
        return None
    if n == len(distinct) and n >= 3:
        return STRAIGHT_ID[(n, top >> 2, top & 3)]
    if n == 2 * len(distinct) and all(ranks.count(r) == 2 for r in distinct):
        kind = {3: SIANTAPPO, 4: RUN4, 5: RUN5}.get(len(distinct))
        if kind is not None:
            return run_id(kind, top >> 2, top & 3)
    return None
