"""Shared pieces of the complete-move readers that move-ranking agents use (pure numpy).

A game opts into move rankers (``cardzoo.training.agents.ranker``, the Deep Monte-Carlo trainer) with a
``WHOLE_MOVES = "module:Class"`` reader. The reader turns a seat's own observation and action mask
into its complete legal moves, each as a sequence of action ids plus a feature row, so it sees
exactly what the seat sees. Suipi composes a move in sub-steps (``cardzoo.envs.suipi.whole_moves``); in
Siantappo and Sam Sip every move is one action, and ``SingleActionMoves`` is their common base.
"""

from __future__ import annotations

import numpy as np


class SeatState:
    """One decision point as the seat sees it: its decoded view and the move being composed."""

    __slots__ = ("view", "prefix", "signature")

    def __init__(self, view, prefix: tuple, signature):
        self.view, self.prefix, self.signature = view, prefix, signature


class SingleActionMoves:
    """Readers of games whose every move is one action: the candidates are the legal action ids.

    Subclasses set ``feature_size`` and implement ``features(observation, legal)`` -> [K, F].
    """

    feature_size: int
    choice_column: int  # the feature "the rule bot would make this move"

    def read(self, observation) -> SeatState:
        return SeatState(np.asarray(observation, dtype=np.float32), (), None)

    def candidates(self, state: SeatState, action_mask) -> tuple[list[tuple[int, ...]], np.ndarray]:
        """(one-action sequences of the legal moves, their feature rows)."""
        legal = np.flatnonzero(action_mask).tolist()
        return [(a,) for a in legal], self.features(state.view, legal)

    def features(self, observation: np.ndarray, legal: list[int]) -> np.ndarray:
        raise NotImplementedError

    def features_many(self, observations: list, legals: list) -> list[np.ndarray]:
        """``features`` of several decisions (a reader may share work between them: Sam Sip's)."""
        return [self.features(o, legal) for o, legal in zip(observations, legals)]

    def rule_bot_moves(self, rows: np.ndarray) -> np.ndarray:
        """Which candidates the rule bot would play (bool per row), read from their feature rows."""
        return rows[:, self.choice_column] > 0


def read_state(reader, engine, seat: int, observation) -> SeatState:
    """``seat``'s state at its decision in ``engine``: ``reader.read(observation)``, or the same
    state from the reader's ``read_seat(engine, seat)`` where it has one (Suipi, Sam Sip: the view
    built from what the seat sees, without decoding the vector: tests/test_encoders.py checks the
    view after every move, tests/test_move_features.py the rows the collector records).
    ``observation`` is ``seat``'s encoding of ``engine``."""
    fast = getattr(reader, "read_seat", None)
    return fast(engine, seat) if fast is not None else reader.read(observation)
