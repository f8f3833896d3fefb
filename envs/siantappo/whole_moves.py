"""Siantappo moves as feature rows, for agents that rank moves (pure numpy; DouZero's setting).

Every Siantappo move is one action (a combination or a pass), so the candidates are the legal
action ids (``cardzoo.envs.whole_moves.SingleActionMoves``). A row describes what the move does to the
seat's hand, read from its own observation only:

========  ==================================================================================
offset    meaning
========  ==================================================================================
0..51     the cards played, by key (3♠=0 ... 2♥=51); in the swap phase the card given
52..60    type: single, pair, triple, four of a kind, straight, siantappo, 4-run, 5-run, pass
61..73    game rank of the top card (3..2)
74        cards played / 12
75        plays the hand needs after the move (the rule bot's count) / 13
76        cards left in hand after the move / 20
77        the move goes out
78        the move is a bomb (a siantappo or longer pair run, or four of a kind on a pair)
79        the move spends a 2
80        the rule bot's score of the move / 13 (lower is better; 0 when it goes out)
81        the rule bot would play this move
========  ==================================================================================
"""

from __future__ import annotations

import math

import numpy as np

from cardzoo.envs.layout import float_view
from cardzoo.envs.siantappo.actions import (
    ACTION_CARD_COUNT,
    ACTION_TOP_RANK,
    ACTION_TYPE,
    EXTENDED_ACTIONS,
    PAIR,
    PASS_ID,
    QUAD,
    TWO,
)
from cardzoo.envs.siantappo.bot import BOMB_TYPES, RuleBot
from cardzoo.envs.siantappo.encoding import SWAP_PHASE, TABLE_TYPE, decode_hand
from cardzoo.envs.siantappo.engine import fill_cards, hand_from_keys
from cardzoo.envs.whole_moves import SingleActionMoves

MOVE_FEATURES = 82
_TYPE, _RANK, _COUNT, _PIECES, _LEFT, _OUT, _BOMB, _TWO, _SCORE, _CHOICE = 52, 61, 74, 75, 76, 77, 78, 79, 80, 81
_PASS_TYPE = 8


def _static_rows() -> np.ndarray:
    """Each action's row as far as the action id alone decides it (type, top rank, card count,
    a pair run's bombness, a 2): a candidate's row starts as a copy of its action's."""
    rows = np.zeros((EXTENDED_ACTIONS, MOVE_FEATURES), dtype=np.float32)
    rows[PASS_ID, _TYPE + _PASS_TYPE] = 1.0
    for a, (kind, top) in enumerate(zip(ACTION_TYPE, ACTION_TOP_RANK)):
        if a == PASS_ID:
            continue
        rows[a, _TYPE + kind] = 1.0
        rows[a, _RANK + top] = 1.0  # the top card's rank: the fillers are below it
        rows[a, _COUNT] = ACTION_CARD_COUNT[a] / 12.0
        rows[a, _BOMB] = float(kind in BOMB_TYPES)  # a quad is one only on a pair: set per decision
        rows[a, _TWO] = float(top == TWO)  # a 2 is always the top card of the move that spends it
    return rows


_STATIC = _static_rows()


class WholeMoves(SingleActionMoves):
    """Reads a Siantappo seat's observation into its legal moves' feature rows."""

    feature_size = MOVE_FEATURES
    choice_column = _CHOICE

    def __init__(self, config=None):
        self.bot = RuleBot(config)  # its move scores are features

    def features(self, observation: np.ndarray, legal: list[int]) -> np.ndarray:
        hand = decode_hand(observation)
        scores, pieces = self.bot.scored_moves(observation, legal, hand)
        if observation[SWAP_PHASE] > 0:  # choosing a card to give: the action id is its key
            rows = np.zeros((len(legal), MOVE_FEATURES), dtype=np.float32)
            rows[int(np.argmin(scores)), _CHOICE] = 1.0
            rows[:, _SCORE] = np.where(np.isfinite(scores), scores, 0.0) / 13.0
            legal_ids = np.asarray(legal)
            each = np.arange(len(legal))
            rows[each, legal_ids] = rows[:, _TYPE] = 1.0
            rows[each, _RANK + (legal_ids >> 2)] = 1.0
            rows[:, _LEFT] = (len(hand) - 1) / 20.0
            return rows
        rows = _STATIC[legal]
        flat = float_view(rows).cast("B").cast("f")  # item writes: cheaper than numpy's, same float32 rounding
        size = len(hand)
        rm = hand_from_keys(hand)
        bomb_quad = observation[TABLE_TYPE + PAIR] > 0  # a quad on a pair is a bomb
        best, low = 0, scores[0]
        for i, a in enumerate(legal):
            at = i * MOVE_FEATURES
            score = scores[i]
            if score < low:  # the first of the lowest scores, as the rule bot picks
                best, low = i, score
            flat[at + _SCORE] = score / 13.0 if score != -math.inf else 0.0
            flat[at + _PIECES] = pieces[i] / 13.0
            played = ACTION_CARD_COUNT[a]
            flat[at + _LEFT] = (size - played) / 20.0
            if played == size:
                flat[at + _OUT] = 1.0
            if a != PASS_ID:
                for card in fill_cards(a, rm):
                    flat[at + card] = 1.0
                if bomb_quad and ACTION_TYPE[a] == QUAD:
                    flat[at + _BOMB] = 1.0
        flat[best * MOVE_FEATURES + _CHOICE] = 1.0
        return rows
