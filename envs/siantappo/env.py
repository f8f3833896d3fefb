"""Siantappo as a PettingZoo AEC environment (``cardzoo.envs.siantappo_v0``)."""

from __future__ import annotations

import random
from typing import Any, ClassVar

from cardzoo.envs.base import CardGameEnv, IllegalMoveError, StepOutcome, move_text
from cardzoo.envs.cards import parse_cards
from cardzoo.envs.config import build_config
from cardzoo.envs.seatview import article
from cardzoo.envs.siantappo.actions import (
    ACTION_TYPE,
    CARD_TO_KEY,
    GAME_RANK_NAMES,
    PASS_ID,
    QUAD,
    RUN4,
    RUN5,
    SIANTAPPO,
    TWO,
    TYPE_NAMES,
    action_name,
    classify,
    key_str,
    keys_str,
    num_actions,
)
from cardzoo.envs.siantappo.config import SiantappoConfig
from cardzoo.envs.siantappo.encoding import MAX_PLAYERS, OBS_SIZE, Encoder, obs_size
from cardzoo.envs.siantappo.engine import OVER, SWAP, SiantappoEngine, fill_cards, hand_keys

SQUEAL = "🐷 SQUEEEEAL! Siantappo!"


class SiantappoEnv(CardGameEnv):
    """Siantappo (docs/rules/siantappo.md) for 3-6 players; one episode is a match of K rounds.

    Reward: per round by place, (n + 1 - 2*place) / (n - 1), +1 for the winner, -1 for the loser.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "siantappo_v0",
        "render_modes": ["ansi", "human", "rgb_array"],
        "is_parallelizable": False,
        "render_fps": 1,
    }
    max_players = MAX_PLAYERS
    obs_size = OBS_SIZE
    game_name = "siantappo"

    def __init__(
        self,
        num_players: int = 4,
        rounds: int = 5,
        render_mode: str | None = None,
        max_steps: int | None = None,
        **variants,
    ):
        config = build_config(SiantappoConfig, "siantappo", num_players=num_players, rounds=rounds, **variants)
        self.num_actions = num_actions(config)
        self.obs_size = obs_size(config)
        super().__init__(config, render_mode, max_steps)
        # (seat, text) or (seat, action, hand before it, required key): see last_move_text
        self._last_move: tuple[int, str] | tuple[int, int, list[int], int] | None = None

    encoder_class = Encoder
    engine_class = SiantappoEngine
    engine: SiantappoEngine
    config: SiantappoConfig

    # hooks -------------------------------------------------------------------
    def _new_engine(self, rng: random.Random, deck) -> SiantappoEngine:
        self._last_move = None
        return SiantappoEngine(self.config, rng, deck)

    def _apply(self, action: int) -> StepOutcome:
        eng = self.engine
        seat = eng.acting
        keys = self._typed_keys  # the exact cards of play(text), when they are not the canonical ones
        if keys:
            self._last_move = (seat, keys_str(keys))
            return StepOutcome(eng.play_cards(keys), eng.phase == OVER)
        if eng.phase == SWAP:  # the receiver is known only now
            self._last_move = (seat, f"give {key_str(action)} to player_{eng.swap_queue[0][1]}")
        else:  # the text is made when asked for: trainers never ask, so no step pays for it
            self._last_move = (seat, action, list(eng.hands[eng.turn]), eng.required_key)
        return eng.apply_action(action)

    @property
    def last_move_text(self) -> str:
        """The last move as ``player_N: <cards>`` (``pass``, ``give <card> to player_M``)."""
        if self._last_move is None:
            return ""
        if len(self._last_move) == 2:
            seat, text = self._last_move
        else:  # the cards the action took from the hand it was played from
            seat, action, hand, required = self._last_move
            cards = None if action == PASS_ID else fill_cards(action, hand, required)
            text = "pass" if action == PASS_ID else keys_str(cards) if cards else action_name(action)
        return f"player_{seat}: {text}"

    def _action_text(self, action: int) -> str:
        eng = self.engine
        if eng is not None and eng.phase == SWAP and action < 52:
            _, receiver, _ = eng.swap_queue[0]
            return f"give {key_str(action)} to player_{receiver}"
        if action == PASS_ID:
            return "pass"
        if eng is None or eng.phase == OVER:
            return action_name(action)
        cards = eng.fill(action, eng.hands[eng.turn])
        if not cards or any(not eng.hands[eng.turn][k >> 2] >> (k & 3) & 1 for k in cards):  # not held: by name
            return action_name(action)
        return keys_str(cards)

    # moves as text --------------------------------------------------------------
    def legal_moves(self) -> list[tuple[int, str]]:
        return [(a, self._action_text(a)) for a in sorted(self._legal_actions())]

    def _move_to_action(self, text: str) -> int:
        """Accept 'pass', a listed move text, or the cards of a combination ('7h 7s', '10♦', '6 6').

        The typed cards must be in the acting seat's hand. The id is the canonical one (type and
        top card); ``play`` plays exactly the cards typed.
        """
        return self.typed_move(text)[0]

    def typed_move(self, text: str) -> tuple[int, tuple[int, ...]]:
        """(action id, the exact card keys) that a move text names for the acting seat.

        Cards must be held. A rank without a suit (``6 6``, ``q``) stands for a held card of that
        rank when exactly one reading is a legal move. Keys are () for a pass.
        Raises IllegalMoveError saying what is wrong.
        """
        text = move_text(text)
        eng = self.engine
        legal = self._legal_actions()
        t = " ".join(text.strip().lower().split())
        if t in ("pass", "p"):
            if PASS_ID in legal:
                return PASS_ID, ()
            raise IllegalMoveError(
                "you cannot pass now: you lead, and the leader plays a combination (rules T7)",
                [txt for _, txt in self.legal_moves()],
            )
        if eng.phase == SWAP and t.startswith("give "):
            t = t[5:].split(" to ")[0]
        exact, by_rank = _read_card_words(text, t)
        hand = eng.hands[eng.acting]
        if not by_rank and classify(exact) is None and eng.phase != SWAP:
            raise IllegalMoveError(_no_combination(text, exact))
        missing = [k for k in exact if not hand[k >> 2] >> (k & 3) & 1]
        if missing:
            raise IllegalMoveError(f"you do not hold {keys_str(missing)}")
        readings = _readings(exact, by_rank, hand)
        if eng.phase == SWAP:
            fits: list[tuple[int, tuple[int, ...]]] = [
                (keys[0], keys) for keys in readings if len(keys) == 1 and keys[0] in legal
            ]
            if len(fits) == 1:
                return fits[0]
            raise IllegalMoveError(f"{text!r}: give one card from your hand" + (" (name its suit)" if fits else ""))
        combos = [(a, keys) for keys in readings if (a := classify(keys)) is not None]
        if not combos:
            raise IllegalMoveError(_no_combination(text, readings[0] if readings else exact))
        req = eng.required_key
        fits = [(a, keys) for a, keys in combos if a in legal and (req < 0 or req in keys)]
        if len(fits) == 1:
            return fits[0]
        if fits:
            shown = [keys_str(keys) for _, keys in fits]
            raise IllegalMoveError(
                f"{text!r} could be {', '.join(shown[:-1])} or {shown[-1]}: "
                "name the suits, e.g. " + _ascii_cards(fits[-1][1])
            )
        raise self._not_playable(text, combos)

    def _not_playable(self, text: str, combos) -> IllegalMoveError:
        """Why no reading of ``text`` can be played now (``combos``: its (action, keys) readings),
        naming the rule of docs/rules/siantappo.md that forbids it."""
        eng = self.engine
        legal_texts = [txt for _, txt in self.legal_moves()]
        action, keys = combos[0]
        kind, cards = TYPE_NAMES[ACTION_TYPE[action]], keys_str(keys)
        if eng.required_key >= 0 and all(eng.required_key not in k for _, k in combos):
            return IllegalMoveError(
                f"the first lead must include {key_str(eng.required_key)} (rules T6, "
                "the variant first_lead_must_include_3c)",
                legal_texts,
            )
        bomb = ACTION_TYPE[action] in (SIANTAPPO, RUN4, RUN5)
        if eng.current < 0:
            if bomb:
                return IllegalMoveError(
                    f"{cards} is {article(kind)}: it is played only as a bomb, on a single 2 "
                    "(rules T8); it cannot lead (T4)",
                    legal_texts,
                )
            return self.not_legal_now(text)
        table, want = keys_str(eng.current_keys), TYPE_NAMES[ACTION_TYPE[eng.current]]
        on_two = eng.current_keys and all(k >> 2 == TWO for k in eng.current_keys)
        if bomb or (ACTION_TYPE[action] == QUAD and ACTION_TYPE[eng.current] != QUAD):
            if eng.passed[eng.turn]:
                return IllegalMoveError(
                    "you passed in this trick: a pass lasts for the rest of the trick (rules T7)", legal_texts
                )
            target = "a single 2" if bomb and kind == "siantappo" else "a pair of 2s"
            if not on_two or bomb != (len(eng.current_keys) == 1):
                return IllegalMoveError(
                    f"{cards} is {article(kind)}: as a bomb it beats only {target} (rules T8), not {table} ({want})",
                    legal_texts,
                )
        if kind == want and len(keys) == len(eng.current_keys):
            return IllegalMoveError(
                f"{cards} does not beat {table} on the table: the same combination must be higher (rules T5)",
                legal_texts,
            )
        return IllegalMoveError(
            f"{cards} ({kind}) cannot follow {table} ({want}): a play beats only the same "
            "type with the same number of cards (rules T5; bombs T8)",
            legal_texts,
        )

    def play(self, text: str) -> None:
        """Apply a move text with exactly the cards typed: ``9♦ 9♥`` plays those two nines even
        where the action id alone would play the lowest suits under the top card."""
        action, _ = self.typed_move(text)
        self.play_whole((action,), text)

    def chosen_cards(self, ids, cards: str) -> str | None:
        """A play's cards are the player's choice (rules: any cards making the combination): the
        action id keeps only the type and the top card, so ``cards`` say which suits go under it.
        None when they are the ones the id plays anyway (the lowest suits)."""
        action, keys = self.typed_move(cards)
        if (action,) != tuple(ids):
            shown = keys_str(keys) if keys else repr(cards)
            raise IllegalMoveError(f"{shown} is not the move {self.action_text(ids[-1])}")
        canonical = self.engine.action_cards(action) if keys else []
        return keys_str(keys) if sorted(keys) != sorted(canonical) else None

    def _play_chosen(self, cards: str) -> None:
        action, keys = self.typed_move(cards)
        self._typed_keys = tuple(sorted(keys))
        try:
            self.step(action)
        finally:
            self._typed_keys = None

    _typed_keys: tuple[int, ...] | None = None  # set by _play_chosen for _apply: the exact cards

    def is_squeal(self, action: int) -> bool:
        """True when the action is a bomb of consecutive pairs (the seed's pig squeal)."""
        return self.engine.phase != SWAP and ACTION_TYPE[action] in (SIANTAPPO, RUN4, RUN5)

    # rendering --------------------------------------------------------------------
    def _render_text(self) -> str:
        eng = self.engine
        n = eng.n
        lines = [
            f"Siantappo — round {min(eng.round_index + 1, self.config.rounds)}/{self.config.rounds}"
            + (" (match over)" if eng.phase == OVER else "")
        ]
        if eng.current >= 0:
            lines.append(
                f"Table: {keys_str(eng.current_keys)} ({TYPE_NAMES[ACTION_TYPE[eng.current]]}) "
                f"by player_{eng.current_player}"
            )
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
            lines.append(
                f"{mark} player_{s} [{eng.counts[s]:2d}] {keys_str(hand_keys(eng.hands[s]))}"
                + (f"  ({', '.join(status)})" if status else "")
                + f"  points {eng.match_points[s]}, pig {eng.pig_counts[s]}"
            )
        if self.last_move_text:
            lines.append(f"Last: {self.last_move_text}")
        return "\n".join(lines)


def _no_combination(text: str, keys) -> str:
    """Why the cards of ``text`` make no combination, with the rule (T4)."""
    ranks = sorted({k >> 2 for k in keys})
    if len(keys) >= 3 and TWO in ranks and len(ranks) > 1:
        return f"{text!r} is not a Siantappo combination: a straight has no 2s (rules T4)"
    return (
        f"{text!r} is not a Siantappo combination (rules T4: a single, pair, triple, four of a kind, a "
        "straight of 3 or more ranks in a row, or three pairs in a row as a bomb)"
    )


def _read_card_words(text: str, words: str) -> tuple[list[int], dict[int, int]]:
    """Keys of the fully named cards and, per game rank, how many cards were named by rank only."""
    exact: list[int] = []
    by_rank: dict[int, int] = {}
    for w in words.replace(",", " ").split():
        try:
            exact.append(CARD_TO_KEY[parse_cards(w)[0]])
            continue
        except ValueError as e:
            error = e
        try:  # a rank alone: read it with any suit, keep the rank
            rank = CARD_TO_KEY[parse_cards(w + "s")[0]] >> 2
        except ValueError:
            raise IllegalMoveError(f"{error}; type cards like 7h 7s (or 7 7), or pass") from None
        by_rank[rank] = by_rank.get(rank, 0) + 1
    if not exact and not by_rank:
        raise IllegalMoveError("type the cards of your combination (like 7h 7s), or pass")
    return exact, by_rank


MAX_READINGS = 4096  # rank-only words: more ways to read them than this is no longer a move


def _readings(exact: list[int], by_rank: dict[int, int], hand) -> list[tuple[int, ...]]:
    """Every held card set the words can mean (sorted keys); IllegalMoveError if none."""
    from itertools import combinations, product

    choices = []
    for rank, count in sorted(by_rank.items()):
        free = [4 * rank + s for s in range(4) if hand[rank] >> s & 1 and 4 * rank + s not in exact]
        if len(free) < count:
            held = len(free) + sum(1 for k in exact if k >> 2 == rank)
            how_many = ("no", "only one", "only two", "only three")[held]
            raise IllegalMoveError(f"you hold {how_many} {GAME_RANK_NAMES[rank]}{'s' if held > 1 else ''}")
        choices.append(list(combinations(free, count)))
    total = 1
    for c in choices:
        total *= len(c)
    if total > MAX_READINGS:
        raise IllegalMoveError("name the suits of your cards (like 7h 7s)")
    return [tuple(sorted(exact + [k for group in pick for k in group])) for pick in product(*choices)]


def _ascii_cards(keys) -> str:
    return " ".join(key_str(k).translate(_ASCII_SUITS).lower() for k in sorted(keys))


_ASCII_SUITS = str.maketrans("♠♣♦♥", "scdh")
