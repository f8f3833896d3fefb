"""Siantappo as a PettingZoo AEC environment (``envs.siantappo_v0``)."""

from __future__ import annotations

import random

import numpy as np

from envs.base import CardGameEnv, IllegalMoveError, StepOutcome
from envs.cards import parse_cards, validate_deck
from envs.config import build_config
from envs.siantappo.config import SiantappoConfig
from envs.siantappo.encoding import MAX_PLAYERS, OBS_SIZE, encode
from envs.siantappo.engine import OVER, SWAP, SiantappoEngine, hand_keys
from envs.siantappo.moves import (
    ACTION_TYPE, BASE_ACTIONS, CARD_TO_KEY, EXTENDED_ACTIONS, PASS_ID, RUN4, RUN5, SIANTAPPO,
    TYPE_NAMES, action_name, classify, key_str, keys_str,
)

SQUEAL = "🐷 SQUEEEEAL! Siantappo!"


class SiantappoEnv(CardGameEnv):
    """Siantappo (rules/siantappo.md) for 3-6 players; one episode is a match of K rounds.

    Reward: per round by place, (n + 1 - 2*place) / (n - 1), +1 for the winner, -1 for the loser.
    """

    metadata = {"name": "siantappo_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False,
                "render_fps": 1}
    max_players = MAX_PLAYERS
    obs_size = OBS_SIZE
    game_name = "siantappo"

    def __init__(self, num_players: int = 4, rounds: int = 5, render_mode: str | None = None,
                 max_steps: int | None = None, **variants):
        config = build_config(SiantappoConfig, "siantappo", num_players=num_players, rounds=rounds, **variants)
        self.num_actions = EXTENDED_ACTIONS if config.long_pair_runs else BASE_ACTIONS
        super().__init__(config, render_mode, max_steps)
        self.engine: SiantappoEngine | None = None
        self.last_move_text = ""

    # hooks -------------------------------------------------------------------
    def _validate_deck(self, deck):
        return validate_deck(deck, 52)

    def _start(self, rng: random.Random, deck):
        self.engine = SiantappoEngine(self.config, rng, deck)
        self.last_move_text = ""

    def _acting_seat(self) -> int:
        return self.engine.acting

    def _step_bound(self) -> int:
        return SiantappoEngine.step_bound(self.config)

    def _legal_actions(self) -> list[int]:
        return self.engine.legal_actions()

    def _encode(self, seat: int) -> np.ndarray:
        return encode(self.engine, seat)

    def _apply(self, action: int) -> StepOutcome:
        seat = self.engine.acting
        self.last_move_text = f"player_{seat}: {self._action_text(action)}"
        rewards = self.engine.step(action)
        return StepOutcome(rewards=rewards, done=self.engine.phase == OVER)

    def _action_text(self, action: int) -> str:
        eng = self.engine
        if eng is not None and eng.phase == SWAP and action < 52:
            giver, receiver, _ = eng.swap_queue[0]
            return f"give {key_str(action)} to player_{receiver}"
        if action == PASS_ID:
            return "pass"
        if eng is None or eng.phase == OVER:
            return action_name(action)
        cards = eng.fill(action, eng.hands[eng.turn])
        if cards is None or any(not eng.hands[eng.turn][k >> 2] >> (k & 3) & 1 for k in cards):
            return action_name(action)
        return keys_str(cards)

    # moves as text --------------------------------------------------------------
    def legal_moves(self) -> list[tuple[int, str]]:
        return [(a, self._action_text(a)) for a in sorted(self._legal_actions())]

    def move_to_action(self, text: str) -> int:
        """Accept 'pass', a listed move text, or the cards of a combination ('7h 7s', '10♦')."""
        t = text.strip().lower()
        if t in ("pass", "p"):
            if PASS_ID in self._legal_actions():
                return PASS_ID
            raise IllegalMoveError("you cannot pass now: you must lead a combination")
        eng = self.engine
        if t.startswith("give "):
            t = t[5:].split(" to ")[0]
        try:
            keys = [CARD_TO_KEY[c] for c in parse_cards(t)]
        except ValueError as e:
            raise IllegalMoveError(f"{text!r}: {e}") from None
        legal = self._legal_actions()
        if eng.phase == SWAP:
            if len(keys) == 1 and keys[0] in legal:
                return keys[0]
            raise IllegalMoveError(f"{text!r}: give one card from your hand")
        action = classify(keys)
        if action is None:
            raise IllegalMoveError(f"{text!r} is not a Siantappo combination")
        if action not in legal:
            raise self.not_legal_now(text)
        return action

    def is_squeal(self, action: int) -> bool:
        """True when the action is a bomb of consecutive pairs (the seed's pig squeal)."""
        return self.engine.phase != SWAP and ACTION_TYPE[action] in (SIANTAPPO, RUN4, RUN5)

    # rendering --------------------------------------------------------------------
    def _render_text(self) -> str:
        eng = self.engine
        n = eng.n
        lines = [f"Siantappo — round {min(eng.round_index + 1, self.config.rounds)}/{self.config.rounds}"
                 + (" (match over)" if eng.phase == OVER else "")]
        if eng.current >= 0:
            lines.append(f"Table: {keys_str(eng.current_keys)} ({TYPE_NAMES[ACTION_TYPE[eng.current]]}) "
                         f"by player_{eng.current_player}")
        elif eng.phase == SWAP:
            giver, receiver, left = eng.swap_queue[0]
            lines.append(f"Swap: player_{giver} gives {left} card(s) to player_{receiver}")
        elif eng.phase != OVER:
            lines.append(f"Table: empty — player_{eng.turn} leads")
        for s in range(n):
            mark = "→" if eng.phase != OVER and eng.acting == s else " "
            status = []
            if eng.passed[s]:
                status.append("passed")
            if s in eng.finish_top:
                status.append(f"out #{eng.finish_top.index(s) + 1}")
            lines.append(f"{mark} player_{s} [{eng.counts[s]:2d}] {keys_str(hand_keys(eng.hands[s]))}"
                         + (f"  ({', '.join(status)})" if status else "")
                         + f"  points {eng.match_points[s]}, pig {eng.pig_counts[s]}")
        if self.last_move_text:
            lines.append(f"Last: {self.last_move_text}")
        return "\n".join(lines)


def stacked_deck_doc() -> str:
    return ("deck[i] is dealt to seat i mod n (seat n-1 deals round 1); with deal='13each' the "
            "cards after 13*n are set aside. Later rounds are shuffled from the episode RNG.")
