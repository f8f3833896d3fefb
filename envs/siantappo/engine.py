"""Siantappo rules engine (docs/rules/siantappo.md T1-T12 and the variants of 3.5).

Pure Python: no gym/pettingzoo imports. It speaks the engine protocol (envs/protocol.py).
Hands are kept as 13 four-bit suit masks per seat (index = game rank 3..2), which makes
legal-move generation a few table look-ups. Moves are the action ids of ``actions.py`` (type x top
card, lowest fillers); ``play_cards`` also accepts an exact card set, e.g. for a person who wants
particular suits.
"""

from __future__ import annotations

import random
from typing import overload

from cardzoo.envs.cards import parse_card
from cardzoo.envs.protocol import GameEngine, IllegalMoveError, StepOutcome, ranks_from_scores
from cardzoo.envs.siantappo.actions import (
    ACTION_KEY,
    ACTION_SPAN,
    ACTION_TOP_RANK,
    ACTION_TOP_SUIT,
    ACTION_TYPE,
    CARD_TO_KEY,
    PAIR,
    PAIR_BASE,
    PASS_ID,
    QUAD,
    QUAD_BASE,
    RUN4,
    RUN5,
    SIANTAPPO,
    SINGLE,
    STRAIGHT,
    STRAIGHT_ID,
    TRIPLE,
    TRIPLE_BASE,
    TWO,
    classify,
    key_str,
    pair_id,
    run_id,
)
from cardzoo.envs.siantappo.config import SiantappoConfig

# Tables over a 4-bit suit mask
POP = [bin(m).count("1") for m in range(16)]
SUITS = [[s for s in range(4) if m >> s & 1] for m in range(16)]
PAIR_TOPS = [[s for s in range(1, 4) if m >> s & 1 and m & ((1 << s) - 1)] for m in range(16)]
LOW_BELOW = [[next((t for t in range(s) if m >> t & 1), -1) for s in range(4)] for m in range(16)]
LOWEST = [next((t for t in range(4) if m >> t & 1), -1) for m in range(16)]
# straight ids as STRAIGHT_TABLE[length][top_rank][suit]
STRAIGHT_TABLE = [[[STRAIGHT_ID.get((L, r, s), -1) for s in range(4)] for r in range(13)] for L in range(13)]
RUN_KINDS = {3: SIANTAPPO, 4: RUN4, 5: RUN5}

PLAY, SWAP, OVER = "play", "swap", "over"
NO_CARD = 52  # a key above every card (the lowest card of an empty hand)


def hand_from_keys(keys) -> list[int]:
    rm = [0] * 13
    for k in keys:
        rm[k >> 2] |= 1 << (k & 3)
    return rm


def hand_keys(rm) -> list[int]:
    return [4 * r + s for r in range(13) for s in SUITS[rm[r]]]


@overload
def fill_cards(action: int, rm) -> list[int]: ...
@overload
def fill_cards(action: int, rm, req: int) -> list[int] | None: ...
def fill_cards(action: int, rm, req: int = -1) -> list[int] | None:
    """The canonical cards of an action id for a hand: the top card plus the lowest fillers.

    While ``req`` is set (first lead must include the starter card) the starter
    replaces a filler of its rank; None if the id cannot contain it.
    """
    t = ACTION_TYPE[action]
    r, s = ACTION_TOP_RANK[action], ACTION_TOP_SUIT[action]
    if t == SINGLE:
        keys = [action]
    elif t == PAIR:
        keys = [4 * r + LOW_BELOW[rm[r]][s], 4 * r + s]
    elif t == TRIPLE:
        keys = [4 * r + x for x in SUITS[rm[r]][:3]]
    elif t == QUAD:
        keys = [4 * r, 4 * r + 1, 4 * r + 2, 4 * r + 3]
    elif t == STRAIGHT:
        keys = [4 * q + LOWEST[rm[q]] for q in range(r - ACTION_SPAN[action] + 1, r)] + [4 * r + s]
    else:
        keys = []
        for q in range(r - ACTION_SPAN[action] + 1, r):
            keys.extend(4 * q + x for x in SUITS[rm[q]][:2])
        keys += [4 * r + LOW_BELOW[rm[r]][s], 4 * r + s]
    if req >= 0 and req not in keys:
        top = max(keys) if t not in (TRIPLE, QUAD) else -1
        same = [k for k in keys if k >> 2 == req >> 2 and k != top]
        if not same or (req >> 2 == r and t in (PAIR, SIANTAPPO, RUN4, RUN5) and req > 4 * r + s):
            return None
        keys[keys.index(max(same))] = req
    return keys


class SiantappoEngine(GameEngine):
    """The state of one Siantappo match. Build with ``SiantappoEngine(config, rng, deck)``."""

    def __init__(self, config: SiantappoConfig, rng: random.Random, deck: list[int] | None = None):
        self.cfg = config
        self.n = config.num_players
        self.rng = rng
        self.starter_key = CARD_TO_KEY[parse_card(config.starter_card)]
        self.round_index = 0
        self.match_points = [0] * self.n  # placement points n-1 .. 0 per round (T12)
        self.pig_counts = [0] * self.n
        self.round_places: list[list[int]] = []  # per finished round: place (1..n) of each seat
        self.total_rewards = [0.0] * self.n
        # With a stacked deck seat n-1 deals round 1, so deck[i] goes to seat i mod n.
        self.dealer = self.n - 1 if deck is not None else rng.randrange(self.n)
        self._start_round(deck)

    # ----------------------------------------------------------------- rounds
    def _start_round(self, deck: list[int] | None) -> None:
        n = self.n
        keys = [CARD_TO_KEY[c] for c in deck] if deck is not None else self._shuffled()
        dealt = 13 * n if self.cfg.deal == "13each" else 52
        hands: list[list[int]] = [[] for _ in range(n)]
        for i in range(dealt):
            hands[(self.dealer + 1 + i) % n].append(keys[i])
        self.hands = [hand_from_keys(h) for h in hands]
        self.counts = [len(h) for h in hands]
        self.aside = keys[dealt:]
        self.played = [0] * n  # 52-bit mask of keys each seat played this round
        self.log: list[tuple[int, int, int, tuple[int, ...]]] = []  # (seat, trick, action, keys)
        self.trick = 0
        self.current = -1  # action id on the table, -1 = a lead is due
        self.current_keys: tuple[int, ...] = ()
        self.current_player = -1
        self.passed = [False] * n
        self.finish_top: list[int] = []
        self.finish_bottom: list[int] = []  # no_finish_on_2: first entry is placed last
        self.swap_given: list[list[int]] = [[] for _ in range(n)]
        self.swap_received: list[list[int]] = [[] for _ in range(n)]
        self.swap_queue: list[tuple[int, int, int]] = []  # (giver, receiver, cards still to give)
        self.required_key = -1
        self.phase = PLAY
        if self.round_index == 0:
            holder = self._holder(self.starter_key)
            if holder is None:  # starter card set aside (13-each deal): lowest dealt card leads
                holder = min(range(n), key=lambda s: min(hand_keys(self.hands[s]), default=NO_CARD))
            elif self.cfg.first_lead_must_include_3c:
                self.required_key = self.starter_key
            self.turn = holder
        else:
            self._swap()
            self.turn = self.dealer  # the previous loser deals and leads
            if self.swap_queue:
                self.phase = SWAP

    def _shuffled(self) -> list[int]:
        keys = list(range(52))
        self.rng.shuffle(keys)
        return keys

    def _holder(self, key: int) -> int | None:
        for s in range(self.n):
            if self.hands[s][key >> 2] >> (key & 3) & 1:
                return s
        return None

    def _swap(self) -> None:
        """T11 swaps from the previous round's placings, computed on the post-deal hands."""
        for high, low, count in self._swap_pairs():
            # Sequential exchanges; they only interact in the literal 'third' variant with n = 3.
            given_up = sorted(hand_keys(self.hands[low]))[-count:]  # low player's best cards
            self._move(low, high, given_up)
            if self.cfg.swap_choice:
                self.swap_queue.append((high, low, count))
            else:
                back = sorted(k for k in hand_keys(self.hands[high]) if k not in given_up)[:count]
                self._move(high, low, back)

    def _swap_pairs(self) -> list[tuple[int, int, int]]:
        """T11's exchanges this round, from the previous round's placings: (the higher placed
        seat, the lower placed one, how many cards each gives), in the order they are made."""
        places = self.round_places[-1]
        by_place = sorted(range(self.n), key=lambda s: places[s])
        pairs = [(by_place[0], by_place[-1], 2)]
        if self.cfg.swap_second_with == "third":
            pairs.append((by_place[1], by_place[2], 1))
        elif self.n >= 4:
            pairs.append((by_place[1], by_place[-2], 1))
        return pairs

    def _move(self, giver: int, receiver: int, keys) -> None:
        for k in keys:
            self.hands[giver][k >> 2] &= ~(1 << (k & 3))
            self.hands[receiver][k >> 2] |= 1 << (k & 3)
        self.counts[giver] -= len(keys)
        self.counts[receiver] += len(keys)
        self.swap_given[giver].extend(keys)
        self.swap_received[receiver].extend(keys)

    # ------------------------------------------------------------ legal moves
    @property
    def acting(self) -> int:
        return self.swap_queue[0][0] if self.phase == SWAP else self.turn

    acting_seat = acting  # the protocol's name

    @property
    def done(self) -> bool:  # type: ignore[override]  # derived from the phase here, never set
        return self.phase == OVER

    def legal_actions(self) -> list[int]:
        if self.phase == SWAP:
            return hand_keys(self.hands[self.swap_queue[0][0]])  # "give this card" uses single ids
        rm = self.hands[self.turn]
        if self.current < 0:
            moves = self._lead_moves(rm)
            if self.required_key >= 0:
                moves = [a for a in moves if self.fill(a, rm) is not None]
            return moves
        moves = self._follow_moves(rm, self.current)
        if self.passed[self.turn]:  # bomb_after_pass: a seat that passed may only bomb
            moves = self._bombs(moves)
        moves.append(PASS_ID)
        return moves

    def _lead_moves(self, rm) -> list[int]:
        out = []
        for r in range(13):
            m = rm[r]
            if m:
                base = 4 * r
                for s in SUITS[m]:
                    out.append(base + s)
        for r in range(13):
            m = rm[r]
            if POP[m] >= 2:
                base = PAIR_BASE - 1 + 3 * r  # pair_id(r, s) = base + s
                for s in PAIR_TOPS[m]:
                    out.append(base + s)
                if POP[m] >= 3:
                    out.append(TRIPLE_BASE + r)
                    if m == 15:
                        out.append(QUAD_BASE + r)
        run = 0
        for r in range(12):
            if rm[r]:
                run += 1
                if run >= 3:
                    suits = SUITS[rm[r]]
                    for L in range(3, run + 1):
                        row = STRAIGHT_TABLE[L][r]
                        for s in suits:
                            out.append(row[s])
            else:
                run = 0
        if self.cfg.siantappo_as_lead:
            out.extend(self._pair_runs(rm, 3, -1))
        return out

    def _pair_runs(self, rm, pairs: int, above_key: int) -> list[int]:
        """Ids of `pairs` consecutive pairs (no 2s) whose top key is above `above_key`."""
        out = []
        kind = RUN_KINDS[pairs]
        start = max(pairs - 1, above_key >> 2 if above_key >= 0 else 0)
        for r in range(start, 12):
            if all(POP[rm[r - i]] >= 2 for i in range(pairs)):
                for s in PAIR_TOPS[rm[r]]:
                    if 4 * r + s > above_key:
                        out.append(run_id(kind, r, s))
        return out

    def _follow_moves(self, rm, current: int) -> list[int]:
        t = ACTION_TYPE[current]
        key = ACTION_KEY[current]
        out: list[int] = []
        cfg = self.cfg
        if t == SINGLE:
            for r in range(key >> 2, 13):
                m = rm[r]
                for s in SUITS[m]:
                    if 4 * r + s > key:
                        out.append(4 * r + s)
            if key >> 2 == TWO:
                out.extend(self._pair_runs(rm, 3, -1))
                if cfg.quad_beats_single_2:
                    out.extend(QUAD_BASE + r for r in range(13) if rm[r] == 15)
                if cfg.long_pair_runs:
                    out.extend(self._pair_runs(rm, 4, -1))
                    out.extend(self._pair_runs(rm, 5, -1))
        elif t == PAIR:
            for r in range(key >> 2, 13):
                for s in PAIR_TOPS[rm[r]]:
                    if 4 * r + s > key:
                        out.append(pair_id(r, s))
            if key >> 2 == TWO:
                out.extend(QUAD_BASE + r for r in range(13) if rm[r] == 15)
                if cfg.long_pair_runs:
                    out.extend(self._pair_runs(rm, 4, -1))
                    out.extend(self._pair_runs(rm, 5, -1))
        elif t == TRIPLE:
            out.extend(TRIPLE_BASE + r for r in range(key + 1, 13) if POP[rm[r]] >= 3)
            if key == TWO and cfg.long_pair_runs:
                out.extend(self._pair_runs(rm, 5, -1))
        elif t == QUAD:
            out.extend(QUAD_BASE + r for r in range(key + 1, 13) if rm[r] == 15)
        elif t == STRAIGHT:
            L = ACTION_SPAN[current]
            for r in range(key >> 2, 12):
                if all(rm[r - i] for i in range(L)):
                    row = STRAIGHT_TABLE[L][r]
                    for s in SUITS[rm[r]]:
                        if 4 * r + s > key:
                            out.append(row[s])
        else:  # SIANTAPPO, RUN4, RUN5: only a higher one of the same length
            out.extend(self._pair_runs(rm, ACTION_SPAN[current], key))
        return out

    def _bombs(self, moves: list[int]) -> list[int]:
        """The bombs among follow moves: pair runs, and quads played on something other than a quad."""
        current_is_quad = ACTION_TYPE[self.current] == QUAD
        return [
            a
            for a in moves
            if ACTION_TYPE[a] in (SIANTAPPO, RUN4, RUN5) or (ACTION_TYPE[a] == QUAD and not current_is_quad)
        ]

    def _can_bomb(self, seat: int) -> bool:
        """bomb_after_pass: does a seat that passed hold a bomb over the current play?"""
        return bool(self._bombs(self._follow_moves(self.hands[seat], self.current)))

    # ------------------------------------------------------------ card sets
    def fill(self, action: int, rm) -> list[int] | None:
        return fill_cards(action, rm, self.required_key)

    def action_cards(self, action: int) -> list[int]:
        """Keys the acting seat would play with this action (empty for pass)."""
        if action == PASS_ID or self.phase == SWAP:
            return [action] if self.phase == SWAP else []
        # None only for an id that cannot hold the required starter card: never a legal one
        return self.fill(action, self.hands[self.turn])  # type: ignore[return-value]

    # ---------------------------------------------------------------- steps
    def apply_action(self, action: int) -> StepOutcome:
        """The protocol's trusted path: apply a legal action id (see ``step``)."""
        rewards = self.step(action)
        return StepOutcome(rewards, self.phase == OVER)

    def step(self, action: int) -> dict[int, float]:
        """Apply a legal action id of the acting seat; returns rewards earned (seat -> reward)."""
        if self.phase == SWAP:
            self._give(action)
            return {}
        if action == PASS_ID:
            if self.current < 0:  # nobody to pass to: every seat would pass forever
                raise IllegalMoveError("pass is not legal on a lead: the table is empty")
            self.passed[self.turn] = True
            self._advance()
            return {}
        return self._play(action, self.fill(action, self.hands[self.turn]))

    def play_cards(self, keys) -> dict[int, float]:
        """Play an exact card set (keys); raises ValueError if it is not a legal play now."""
        keys = sorted(keys)
        action = classify(keys)
        rm = self.hands[self.turn]
        if self.phase != PLAY:
            raise ValueError("cards cannot be played during the swap")
        missing = [k for k in keys if not rm[k >> 2] >> (k & 3) & 1]
        if missing:
            raise ValueError(f"you do not hold {' '.join(key_str(k) for k in missing)}")
        if action is None:
            raise ValueError(f"{' '.join(key_str(k) for k in keys)} is not a combination")
        if action not in self.legal_actions() or (self.required_key >= 0 and self.required_key not in keys):
            raise ValueError(f"{' '.join(key_str(k) for k in keys)} does not beat the table or is not allowed now")
        return self._play(action, keys)

    def _give(self, key: int) -> None:
        giver, receiver, left = self.swap_queue[0]
        self._move(giver, receiver, [key])
        if left > 1:
            self.swap_queue[0] = (giver, receiver, left - 1)
        else:
            self.swap_queue.pop(0)
            if not self.swap_queue:
                self.phase = PLAY

    def _play(self, action: int, keys) -> dict[int, float]:
        seat = self.turn
        rm = self.hands[seat]
        bits = 0
        for k in keys:
            rm[k >> 2] &= ~(1 << (k & 3))
            bits |= 1 << k
        self.counts[seat] -= len(keys)
        self.played[seat] |= bits
        self.log.append((seat, self.trick, action, tuple(keys)))
        self.current = action
        self.current_keys = tuple(keys)
        self.current_player = seat
        self.required_key = -1
        if self.counts[seat] == 0:
            if self.cfg.no_finish_on_2 and any(k >> 2 == TWO for k in keys):
                self.finish_bottom.append(seat)
            else:
                self.finish_top.append(seat)
            holders = [s for s in range(self.n) if self.counts[s]]
            if len(holders) <= 1:
                return self._end_round(holders)
        self._advance()
        return {}

    def _advance(self) -> None:
        # Bounded: a combination is on the table (``step`` refuses a pass on a lead), so within
        # n - 1 seats either someone may act or play returns to the trick's player.
        n, s = self.n, self.turn
        while True:
            s = (s + 1) % n
            if s == self.current_player:
                self._new_trick(s)
                return
            if not self.counts[s]:
                continue
            if not self.passed[s] or (self.cfg.bomb_after_pass and self._can_bomb(s)):
                self.turn = s
                return

    def _new_trick(self, winner: int) -> None:
        self.trick += 1
        self.current = -1
        self.current_keys = ()
        self.current_player = -1
        self.passed = [False] * self.n
        s = winner
        while not self.counts[s]:  # T9: the winner is out, the next holder leads
            s = (s + 1) % self.n
        self.turn = s

    def _end_round(self, holders: list[int]) -> dict[int, float]:
        n = self.n
        order = self.finish_top + holders + self.finish_bottom[::-1]
        places = [0] * n
        for p, seat in enumerate(order):
            places[seat] = p + 1
        self.round_places.append(places)
        loser = order[-1]
        self.pig_counts[loser] += 1
        if self.cfg.reward == "place":
            rewards = {s: (n + 1 - 2 * places[s]) / (n - 1) for s in range(n)}
        else:
            rewards = {s: (-1.0 if s == loser else 1.0 / (n - 1)) for s in range(n)}
        for s in range(n):
            self.match_points[s] += n - places[s]
            self.total_rewards[s] += rewards[s]
        self.round_index += 1
        if self.round_index >= self.cfg.rounds:
            self.phase = OVER
        else:
            self.dealer = loser
            self._start_round(None)
        return rewards

    # ------------------------------------------------------------ utilities
    @staticmethod
    def step_bound(config: SiantappoConfig) -> int:
        """Most steps a match can take: per round at most 52 plays (a play takes >= 1 card), at
        most n - 1 passes after each play (the trick ends when play returns to its player), and
        at most 3 swap gifts."""
        return config.rounds * (52 * config.num_players + 3)

    def ranking(self) -> list[float]:
        """T12: by total reward in the match (1 = best; ties share the average place)."""
        return ranks_from_scores(self.total_rewards)

    # ------------------------------------------------------ the round's history
    def round_start_hands(self) -> list[list[int]]:
        """Each seat's cards (keys) as the round's play began, after the swap: what it holds now
        and what it played since (public)."""
        return [
            sorted(hand_keys(self.hands[s]) + [k for k in range(52) if self.played[s] >> k & 1]) for s in range(self.n)
        ]

    def round_replay(self, seat: int):
        """The round's plays and passes so far, made again from the round's start in this
        engine's world (for a world from ``resample_hidden``: its hands, not the true ones):
        yields ``(engine, mover, legal actions, index of the action taken)`` before each move of a
        seat other than ``seat``, the one scratch engine then stepped on (read it before the
        next). Besides the hands it reads only public facts: the log of plays, who led, the turn
        order (a seat skipped between two plays passed). Nothing before the first play of the
        round (the swap) is replayed; the moves after the last play are the passes up to the
        seat acting now. Every play is legal in every world (the cards are the ones played)."""
        if self.phase != PLAY or not self.log:
            return
        c = self.clone()
        c.hands = [hand_from_keys(keys) for keys in self.round_start_hands()]
        c.counts = [sum(len(SUITS[m]) for m in h) for h in c.hands]
        c.played, c.log, c.trick, c.passed = [0] * self.n, [], 0, [False] * self.n
        c.current, c.current_keys, c.current_player = -1, (), -1
        c.finish_top, c.finish_bottom = [], []
        first_lead = self.round_index == 0 and self.cfg.first_lead_must_include_3c
        c.required_key = self.starter_key if first_lead else -1
        c.turn = self.log[0][0]  # the leader cannot pass: the first play is the lead
        for mover, trick, action, keys in [*self.log, (self.turn, self.trick, -1, ())]:
            for _ in range(2 * self.n):  # bounded: passes end a trick within n - 1 turns
                if c.turn == mover and c.trick == trick:
                    break
                if c.turn != seat:
                    legal = c.legal_actions()
                    yield c, c.turn, legal, legal.index(PASS_ID)
                c.step(PASS_ID)
            if action >= 0:  # the play; the last entry is the seat acting now
                if mover != seat:
                    legal = c.legal_actions()
                    yield c, mover, legal, legal.index(action)
                c._play(action, keys)

    def consistent_with(self, seat: int) -> bool:
        """Whether this world agrees with what ``seat`` learned from its own swap (T11): the lower
        placed seat gives its highest cards, so when ``seat`` received them that seat held nothing
        higher; the higher placed seat gives back its lowest (unless it chooses, ``swap_choice``),
        so when ``seat`` received those that seat held nothing lower. Exact for the default
        exchanges (not for the 'third' variant, where one seat gives twice)."""
        if not self.round_places or self.cfg.swap_second_with == "third":
            return True
        start = self.round_start_hands()
        received, given = self.swap_received[seat], set(self.swap_given[seat])
        for high, low, _ in self._swap_pairs():
            if not received or seat not in (high, low):
                continue
            if seat == high:  # low gave its highest: it held nothing higher
                if any(k >= min(received) for k in start[low] if k not in given):
                    return False
            elif not self.cfg.swap_choice and any(k <= max(received) for k in start[high] if k not in given):
                return False  # high gave back its lowest: it held nothing lower
        return True

    def resample_hidden(self, seat: int, rng: random.Random) -> SiantappoEngine:
        """A clone in which the other seats' cards, the cards set aside and the later rounds' deals
        are dealt anew, except what ``seat`` knows: the cards it gave in the swap, and before the
        first play the starter card (its holder leads)."""
        c = self.clone()
        known = set(c.swap_given[seat])
        if c.required_key >= 0 or (c.round_index == 0 and not c.log):
            known.add(c.starter_key)
        others = [s for s in range(c.n) if s != seat]
        held = {s: hand_keys(c.hands[s]) for s in others}
        pool = [k for s in others for k in held[s] if k not in known] + [k for k in c.aside if k not in known]
        pool.sort()  # where the unseen cards really are must not matter, only which they are
        rng.shuffle(pool)
        c.rng = random.Random(rng.getrandbits(64))  # the next rounds' deals are unknown too
        deal = iter(pool)
        for s in others:
            c.hands[s] = hand_from_keys([k if k in known else next(deal) for k in held[s]])
        c.aside = [k if k in known else next(deal) for k in c.aside]
        return c

    def clone(self) -> SiantappoEngine:
        c = object.__new__(SiantappoEngine)
        c.__dict__.update(self.__dict__)
        c.rng = random.Random()
        c.rng.setstate(self.rng.getstate())
        for name in (
            "match_points",
            "pig_counts",
            "total_rewards",
            "counts",
            "aside",
            "played",
            "log",
            "passed",
            "finish_top",
            "finish_bottom",
            "swap_queue",
        ):
            setattr(c, name, list(getattr(self, name)))
        c.hands = [list(h) for h in self.hands]
        c.round_places = [list(p) for p in self.round_places]
        c.swap_given = [list(x) for x in self.swap_given]
        c.swap_received = [list(x) for x in self.swap_received]
        return c


def random_match(config: SiantappoConfig, rng: random.Random) -> int:
    """Play one match with uniformly random legal moves; returns the number of moves made."""
    eng = SiantappoEngine(config, rng)
    moves = 0
    choice = rng.choice
    while eng.phase != OVER:
        eng.step(choice(eng.legal_actions()))
        moves += 1
    return moves
