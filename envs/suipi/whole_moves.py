"""Suipi's complete moves as feature rows, for agents that rank whole moves (pure numpy).

The env composes a move in sub-steps (hand card, floor items, finish), so a policy over action
ids must get several choices right in a row to play one move. A move ranker instead scores each
complete legal move (as the rule bot does) and then plays it sub-step by sub-step. Everything here
is read from the seat's own observation vector and action mask, so it sees what the seat sees.

A move's feature row (``MOVE_FEATURES`` floats):

========  ==================================================================================
offset    meaning
========  ==================================================================================
0..51     the hand card played
52..103   cards this move takes into my captured pile (the hand card included)
104..155  cards of the build this move makes (the hand card included)
156..158  kind: capture / build / drop
159..171  build value 1..13 (builds only)
172       the capture takes the whole floor (a suipi, by the rule bot's reading of S14)
173       floor items left after the move / 12
174       card points taken / 11
175       the rule bot's score of the move / 50
========  ==================================================================================
"""

from __future__ import annotations

import numpy as np

from cardzoo.envs.layout import float_view
from cardzoo.envs.suipi import encoding as enc
from cardzoo.envs.suipi.actions import BUILD, CAPTURE, CARDS, ITEM0, REP, move_actions
from cardzoo.envs.suipi.bot import RuleBot
from cardzoo.envs.suipi.config import SuipiConfig
from cardzoo.envs.suipi.engine import card_points, legal_moves
from cardzoo.envs.whole_moves import SeatState

MOVE_FEATURES = 176
_TAKEN, _BUILD, _KIND, _VALUE, _SWEEP, _LEFT, _POINTS, _SCORE = 52, 104, 156, 159, 172, 173, 174, 175


class WholeMoves:
    """Reads a Suipi seat's observation into its complete legal moves and their feature rows."""

    feature_size = MOVE_FEATURES

    def __init__(self, config: SuipiConfig | dict | None = None):
        self.bot = RuleBot(config)  # its move scores are one of the features
        self.config = self.bot.config

    def read(self, observation) -> SeatState:
        return self._state(enc.decode(observation, self.config))

    def read_seat(self, engine, seat: int) -> SeatState:
        """``read(encode(engine, seat))`` without encoding and decoding: the same state, built
        from what the seat sees (``encoding.view_of``); the collectors' fast path."""
        return self._state(enc.view_of(engine, seat))

    @staticmethod
    def _state(view) -> SeatState:
        prefix = ()
        if view.partial_hand is not None:
            prefix = (view.partial_hand, *(ITEM0 + r for r in view.partial_items))
        signature = (tuple(view.hand), tuple(it[REP] for it in view.floor))
        return SeatState(view, prefix, signature)

    def rule_bot_moves(self, rows: np.ndarray) -> np.ndarray:
        """Which candidates the rule bot would play: its best-scored moves (it breaks ties closer
        than 0.001 at random, so all of those)."""
        score = rows[:, _SCORE]
        return score >= score.max() - 1e-3 / 50.0

    def candidates(self, state: SeatState, action_mask) -> tuple[list[tuple[int, ...]], np.ndarray]:
        """(action-id sequences of the complete moves that extend the current prefix, feature rows)."""
        view, prefix = state.view, state.prefix
        cfg = self.bot._config_for(view)
        points = card_points(cfg)
        floor = view.floor
        k = len(prefix)
        seqs, moves = [], []
        for mv in legal_moves(cfg, view.hand, floor, 0):
            seq = move_actions(floor, mv)
            if seq[:k] == prefix and action_mask[seq[k]]:
                seqs.append(seq)
                moves.append(mv)
        rows = np.zeros((len(moves), MOVE_FEATURES), dtype=np.float32)
        flat = float_view(rows).cast("B").cast("f")  # item writes: cheaper than numpy's, same float32 rounding
        scores = self.bot.scores(cfg, view, moves)
        for at, mv, score in zip(range(0, len(moves) * MOVE_FEATURES, MOVE_FEATURES), moves, scores):
            h, mask, kind, v = mv
            used = [c for i, it in enumerate(floor) if mask >> i & 1 for c in it[CARDS]]
            left = len(floor) - bin(mask).count("1")
            flat[at + h] = 1.0
            if kind == CAPTURE:
                flat[at + _TAKEN + h] = 1.0
                for c in used:
                    flat[at + _TAKEN + c] = 1.0
                flat[at + _SWEEP] = float(left == 0)
                flat[at + _POINTS] = (points[h] + sum(points[c] for c in used)) / 11.0
            elif kind == BUILD:
                flat[at + _BUILD + h] = 1.0
                for c in used:
                    flat[at + _BUILD + c] = 1.0
                flat[at + _VALUE + v - 1] = 1.0
                left += 1
            else:
                left += 1
            flat[at + _KIND + kind] = 1.0
            flat[at + _LEFT] = left / 12.0
            flat[at + _SCORE] = score / 50.0
        return seqs, rows
