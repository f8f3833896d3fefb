"""A rule-based Siantappo player that a casual player would find sensible.

It sees only its observation and mask. Its plan: split the hand into as few combinations as
possible; lead low and long; beat with the cheapest combination that does not break the hand up;
keep 2s and bombs until an opponent is close to going out or the bot itself is.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from cardzoo.envs.siantappo.actions import (
    ACTION_CARD_COUNT, ACTION_TOP_RANK, ACTION_TYPE, PAIR, PASS_ID, QUAD, RUN4, RUN5, SIANTAPPO, TWO,
)
from cardzoo.envs.siantappo.encoding import HAND_SIZE_SCALE, HAND_SIZES, NUM_PLAYERS, SWAP_PHASE, TABLE_TYPE, decode_hand
from cardzoo.envs.siantappo.engine import POP, fill_cards, hand_from_keys


def hand_pieces(counts) -> int:
    """How many plays a hand with these rank counts needs, roughly (fewer is better).

    Each rank is one play (single/pair/triple/quad); a run of >= 3 consecutive ranks (no 2s)
    may instead go out as one straight, taking one card of each rank, when that saves plays.
    """
    return _hand_pieces(tuple(counts))


@lru_cache(maxsize=1 << 16)
def _hand_pieces(counts: tuple) -> int:  # cached: the bot and the move features ask it ~10 times a move
    pieces = sum(1 for c in counts if c)
    r = 0
    while r < 12:
        if counts[r]:
            start = r
            while r < 12 and counts[r]:
                r += 1
            if r - start >= 3:
                run = counts[start:r]
                with_straight = 1 + sum(1 for c in run if c > 1)
                pieces -= max(0, (r - start) - with_straight)
        else:
            r += 1
    return pieces


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
        return self.scored_moves(observation, legal)[0]

    def scored_moves(self, observation, legal: list[int], hand: list[int] | None = None) -> tuple[np.ndarray, list]:
        """(``move_scores``, per legal action its (cards, rank counts after it, plays needed after
        it), or None for a pass and in the swap phase) — the work the move features share
        (``hand``: the observation's hand, when the caller has decoded it)."""
        scores = np.empty(len(legal))
        parts: list = [None] * len(legal)
        if observation[SWAP_PHASE] > 0:  # swap_choice: give away the lowest card
            scores[:] = legal
            return scores, parts
        hand = decode_hand(observation) if hand is None else hand
        n = 3 + int(np.argmax(observation[NUM_PLAYERS:NUM_PLAYERS + 4]))
        sizes = np.rint(observation[HAND_SIZES:HAND_SIZES + n] * HAND_SIZE_SCALE).astype(int)
        opponents = [int(x) for x in sizes[1:] if x > 0]
        endgame = any(x <= ENDGAME_CARDS for x in opponents) or len(hand) <= ENDGAME_OWN_CARDS
        rm = hand_from_keys(hand)
        counts = [POP[m] for m in rm]
        base = hand_pieces(counts)
        size = len(hand)
        bomb_quad = observation[TABLE_TYPE + PAIR] > 0  # a quad on a pair is a bomb
        for i, a in enumerate(legal):
            if a == PASS_ID:
                scores[i] = base + 0.6
                continue
            cards = fill_cards(a, rm)
            after = counts[:]
            for k in cards:
                after[k >> 2] -= 1
            if ACTION_CARD_COUNT[a] == size:
                scores[i] = -np.inf  # going out beats everything
                parts[i] = (cards, after, 0)
                continue
            pieces = _hand_pieces(tuple(after))
            parts[i] = (cards, after, pieces)
            score = pieces + _TOP_WEIGHT[a] - _COUNT_WEIGHT[a]
            if not endgame:
                kind = ACTION_TYPE[a]
                if kind in BOMB_TYPES or (kind == QUAD and bomb_quad):
                    score += 1.5
                if ACTION_TOP_RANK[a] == TWO:  # a 2 is always the top card of the move that spends it
                    score += 0.9
            scores[i] = score
        return scores, parts
