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

import numpy as np

from cardzoo.envs.siantappo.actions import ACTION_TYPE, PAIR, PASS_ID, QUAD, RUN4, RUN5, SIANTAPPO, TWO
from cardzoo.envs.siantappo.bot import RuleBot, hand_pieces
from cardzoo.envs.siantappo.encoding import SWAP_PHASE, TABLE_TYPE, decode_hand
from cardzoo.envs.siantappo.engine import hand_from_keys
from cardzoo.envs.whole_moves import SingleActionMoves

MOVE_FEATURES = 82
_TYPE, _RANK, _COUNT, _PIECES, _LEFT, _OUT, _BOMB, _TWO, _SCORE, _CHOICE = 52, 61, 74, 75, 76, 77, 78, 79, 80, 81
_PASS_TYPE = 8
_BOMBS = (SIANTAPPO, RUN4, RUN5)  # the bomb types; a quad is one on a pair (``bot.is_bomb``)


class WholeMoves(SingleActionMoves):
    """Reads a Siantappo seat's observation into its legal moves' feature rows."""

    feature_size = MOVE_FEATURES
    choice_column = _CHOICE

    def __init__(self, config=None):
        self.bot = RuleBot(config)  # its move scores are features

    def features(self, observation: np.ndarray, legal: list[int]) -> np.ndarray:
        rows = np.zeros((len(legal), MOVE_FEATURES), dtype=np.float32)
        scores, parts = self.bot.scored_moves(observation, legal)
        rows[int(np.argmin(scores)), _CHOICE] = 1.0
        rows[:, _SCORE] = np.where(np.isfinite(scores), scores, 0.0) / 13.0
        hand = decode_hand(observation)
        if observation[SWAP_PHASE] > 0:  # choosing a card to give: the action id is its key
            legal_ids = np.asarray(legal)
            at = np.arange(len(legal))
            rows[at, legal_ids] = rows[:, _TYPE] = 1.0
            rows[at, _RANK + (legal_ids >> 2)] = 1.0
            rows[:, _LEFT] = (len(hand) - 1) / 20.0
            return rows
        on_pair = observation[TABLE_TYPE + PAIR] > 0
        for row, a, part in zip(rows, legal, parts):
            if a == PASS_ID:
                row[_TYPE + _PASS_TYPE] = 1.0
                row[_PIECES] = hand_pieces(hand_counts(hand)) / 13.0
                row[_LEFT] = len(hand) / 20.0
                continue
            cards, _after, pieces = part
            row[cards] = 1.0
            kind = ACTION_TYPE[a]
            row[_TYPE + kind] = 1.0
            row[_RANK + (max(cards) >> 2)] = 1.0
            row[_COUNT] = len(cards) / 12.0
            row[_PIECES] = pieces / 13.0
            row[_LEFT] = (len(hand) - len(cards)) / 20.0
            row[_OUT] = float(len(hand) == len(cards))
            row[_BOMB] = float(kind in _BOMBS or (kind == QUAD and on_pair))
            row[_TWO] = float(max(cards) >> 2 == TWO)
        return rows


def hand_counts(hand: list[int]) -> list[int]:
    """Cards of each rank in a hand of keys."""
    return [bin(m).count("1") for m in hand_from_keys(hand)]
