"""A rule-based Siantappo player that a casual player would find sensible.

It sees only its observation and mask. Its plan: split the hand into as few combinations as
possible; lead low and long; beat with the cheapest combination that does not break the hand up;
keep 2s and bombs until an opponent is close to going out or the bot itself is.
"""

from __future__ import annotations

import math

import numpy as np

from cardzoo.envs.siantappo.actions import (
    ACTION_CARD_COUNT,
    ACTION_TOP_RANK,
    ACTION_TYPE,
    PAIR,
    PASS_ID,
    QUAD,
    RUN4,
    RUN5,
    SIANTAPPO,
    TWO,
)
from cardzoo.envs.siantappo.encoding import (
    HAND_SIZE_SCALE,
    HAND_SIZES,
    NUM_PLAYERS,
    SWAP_PHASE,
    TABLE_TYPE,
    decode_hand,
)
from cardzoo.envs.siantappo.engine import fill_cards, hand_keys


def _runs(present: int) -> tuple:
    """The maximal runs of >= 3 consecutive ranks (3..A) of a 12-bit rank set, each as (its
    ranks' bits, its length - 1)."""
    runs, r = [], 0
    while r < 12:
        if present >> r & 1:
            start = r
            while r < 12 and present >> r & 1:
                r += 1
            if r - start >= 3:
                runs.append(((1 << r) - (1 << start), r - start - 1))
        else:
            r += 1
    return tuple(runs)


_RUNS = [_runs(p) for p in range(1 << 12)]


def pieces_of(present: int, multi: int) -> int:
    """How many plays a hand needs, roughly (fewer is better), from the ranks it holds (bit r: rank
    r) and those it holds twice or more: each rank is one play (single/pair/triple/quad); a run of
    L >= 3 consecutive ranks (no 2s), m of them held twice or more, may instead go out as one
    straight plus the m leftover plays, when that is fewer than its L plays."""
    pieces = present.bit_count()
    for run, spare in _RUNS[present & 0xFFF]:
        saved = spare - (multi & run).bit_count()
        if saved > 0:
            pieces -= saved
    return pieces


def _taken_ranks() -> list[tuple]:
    """Per action id: (rank, cards of that rank) of the cards it plays, which the id alone
    decides (only which suits fill it depends on the hand); () for the pass."""
    full = [15] * 13
    taken = []
    for a in range(len(ACTION_TYPE)):
        per_rank: dict[int, int] = {}
        for k in fill_cards(a, full) if a != PASS_ID else ():
            per_rank[k >> 2] = per_rank.get(k >> 2, 0) + 1
        taken.append(tuple(sorted(per_rank.items())))
    return taken


TAKEN_RANKS = _taken_ranks()


# per action id: the score's terms that the id alone decides (the top card's rank, the card count)
_TOP_WEIGHT = [0.04 * r for r in ACTION_TOP_RANK]
_COUNT_WEIGHT = [0.01 * c for c in ACTION_CARD_COUNT]
BOMB_TYPES = (SIANTAPPO, RUN4, RUN5)  # always bombs; a quad is one when played on a pair

ENDGAME_CARDS = 3  # an opponent this close to going out: spend 2s and bombs now
ENDGAME_OWN_CARDS = 4  # ... or the bot itself this close


class RuleBot:
    name = "rules"

    def __init__(self, config=None, seed: int | None = None):
        self.config = config
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        pass

    def act(self, observation, action_mask) -> int:
        legal = [int(a) for a in np.flatnonzero(action_mask)]
        if len(legal) == 1:
            return legal[0]
        scores = self.move_scores(observation, legal)
        return legal[int(np.argmin(scores))]  # the first of equal scores, as listed

    def move_scores(self, observation, legal: list[int]) -> np.ndarray:
        """The bot's score of each legal action (lower is better; going out is -inf).

        Move rankers (``cardzoo.envs.siantappo.whole_moves``) read these scores as a feature.
        """
        return np.asarray(self.scored_moves(observation, legal)[0], dtype=float)

    def scored_moves(self, observation, legal: list[int], hand: list[int] | None = None) -> tuple[list, list]:
        """(``move_scores`` as a list of floats, per legal action the plays the hand needs after it: 0 when it goes
        out, the hand's own count for the pass; empty in the swap phase) — the work the move
        features share (``hand``: the observation's hand, when the caller has decoded it)."""
        if observation[SWAP_PHASE] > 0:  # swap_choice: give away the lowest card
            return [float(a) for a in legal], []
        hand = decode_hand(observation) if hand is None else hand
        n = 3 + int(observation[NUM_PLAYERS : NUM_PLAYERS + 4].argmax())
        sizes = np.rint(observation[HAND_SIZES + 1 : HAND_SIZES + n] * HAND_SIZE_SCALE).astype(int).tolist()
        return score_moves(hand, sizes, observation[TABLE_TYPE + PAIR] > 0, legal)

    def seat_scores(self, engine, seat: int, legal: list[int]) -> list[float]:
        """``move_scores`` of ``seat``, read from ``engine`` as that seat sees it (its own hand,
        the others' card counts, the table): the belief-aware expert's model of how a seat plays
        (``cardzoo.training.agents.belief``). In the play phase only."""
        sizes = [engine.counts[(seat + i) % engine.n] for i in range(1, engine.n)]
        bomb_quad = engine.current >= 0 and ACTION_TYPE[engine.current] == PAIR
        return score_moves(hand_keys(engine.hands[seat]), sizes, bomb_quad, legal)[0]


def score_moves(hand: list[int], sizes: list[int], bomb_quad: bool, legal: list[int]) -> tuple[list, list]:
    """``RuleBot.scored_moves`` from what it reads: the hand's keys, the other seats' card counts
    and whether a quad on the table's pair is a bomb."""
    size = len(hand)
    endgame = any(0 < x <= ENDGAME_CARDS for x in sizes) or size <= ENDGAME_OWN_CARDS
    counts = [0] * 13
    present = multi = 0  # bit r: the hand holds rank r; ... twice or more
    for k in hand:
        r = k >> 2
        counts[r] += 1
        if present >> r & 1:
            multi |= 1 << r
        else:
            present |= 1 << r
    base = pieces_of(present, multi)
    pieces = [base] * len(legal)
    scores = [0.0] * len(legal)
    for i, a in enumerate(legal):
        if a == PASS_ID:
            scores[i] = base + 0.6
            continue
        if ACTION_CARD_COUNT[a] == size:
            scores[i] = -math.inf  # going out beats everything
            pieces[i] = 0
            continue
        p, m = present, multi
        for r, k in TAKEN_RANKS[a]:
            left = counts[r] - k
            if left < 2:
                m &= ~(1 << r)
                if not left:
                    p &= ~(1 << r)
        pieces[i] = after = pieces_of(p, m)
        score = after + _TOP_WEIGHT[a] - _COUNT_WEIGHT[a]
        if not endgame:
            kind = ACTION_TYPE[a]
            if kind in BOMB_TYPES or (kind == QUAD and bomb_quad):
                score += 1.5
            if ACTION_TOP_RANK[a] == TWO:  # a 2 is always the top card of the move that spends it
                score += 0.9
        scores[i] = score
    return scores, pieces
