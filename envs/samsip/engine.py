"""Sam Sip rules engine (docs/rules/samsip.md P1-P13, variants 2.5). Pure Python, no gym imports.

It speaks the engine protocol (envs/protocol.py); ``step`` / ``play`` are its older names for the
trusted / checked path that return the HandResult of a finished hand.

Cards are the shared ids of ``cardzoo.envs.cards``: 0..51 standard, 52/53/54 jokers. Moves are the
action ids of actions.py (discard 0..51 / 52 a joker, 53 draw stock, 54 take the discard, 55
declare).

Seats are numbered in play order (the next player is seat+1, skipping eliminated seats).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from cardzoo.envs.cards import JOKERS, NUM_STANDARD
from cardzoo.envs.protocol import GameEngine, StepOutcome
from cardzoo.envs.samsip.actions import DECLARE, DISCARD_JOKER, DRAW_STOCK, TAKE_DISCARD
from cardzoo.envs.samsip.config import DECK_SIZE, HAND_SIZE, JOKER_KIND, SamSipConfig

PHASE_DRAW, PHASE_DISCARD = 0, 1

VOID_STOCK, VOID_STALL = "stock", "stall"  # why a hand was void: P11 empty stock, P11a stalled hand
STALL_TURNS_PER_PLAYER = 3  # P11a default: 3 x n_active turns in a row may go without a stock draw

WIN_NONE, WIN_PAIRS, WIN_ACES, WIN_FLUSH = 0, 1, 2, 3
WIN_NAMES = {WIN_PAIRS: "three pairs", WIN_ACES: "three aces + three of a kind", WIN_FLUSH: "six of one suit"}

# Pairing tokens of the three-pair key: 0..12 natural rank (A..K), 13 wild, 14 dead (Khi scheme).
TOK_WILD, TOK_DEAD = 13, 14
# Rank index of the natural partner for A..9 (value x pairs with 10 - x); 10, J, Q, K pair with
# themselves. Index: A=0, 2=1, ..., 9=8, 10=9, J=10, Q=11, K=12.
PARTNER = tuple([8 - r for r in range(9)] + [9, 10, 11, 12])


def kind_of(card: int) -> int:
    """Card kind: the card id for standard cards, 52 for any joker."""
    return card if card < NUM_STANDARD else JOKER_KIND


# ----------------------------------------------------------------------------- hand evaluation
def natural_matching(counts) -> int:
    """Maximum matching among natural cards (rules P9): counts[r] = cards of rank index r.

    The natural relation splits the ranks into the classes {A,9} {2,8} {3,7} {4,6} {5} {10} {J}
    {Q} {K}, so the maximum matching is the sum of min(c_x, c_10-x) plus floor(c/2) for 5, 10, J,
    Q and K.
    """
    c = counts
    return (
        min(c[0], c[8])
        + min(c[1], c[7])
        + min(c[2], c[6])
        + min(c[3], c[5])
        + (c[4] >> 1)
        + (c[9] >> 1)
        + (c[10] >> 1)
        + (c[11] >> 1)
        + (c[12] >> 1)
    )


def pairs_formed(counts, wild: int, dead: int = 0) -> int:
    """Most disjoint pairs the cards can form: natural matching, wilds with leftovers, then wilds
    with each other."""
    m = natural_matching(counts)
    unmatched = sum(counts) + dead - 2 * m
    used = min(unmatched, wild)
    return m + used + (wild - used) // 2


def is_three_pairs(counts, wild: int, dead: int = 0) -> bool:
    """P9(a) on a 6-card hand: u = 6 - w - 2m unmatched naturals must each take a wild card."""
    m = natural_matching(counts)
    return sum(counts) + dead - 2 * m <= wild


def is_special_aces(rank_counts, wild: int = 0) -> bool:
    """P9(b) on 6 cards: three aces + three of a kind of another rank.

    ``rank_counts`` has 14 entries (13 ranks + 13 = joker, which has no rank) and counts only the
    cards that may not substitute; the ``wild`` others may stand for anything.
    """
    if rank_counts[13] or rank_counts[0] > 3:
        return False
    others = [c for c in rank_counts[1:13] if c]
    if len(others) > 1 or (others and others[0] > 3):
        return False
    return sum(rank_counts) + wild == 6


def is_special_flush(suit_counts, wild: int = 0) -> bool:
    """P9(c) on 6 cards: six of one suit. ``suit_counts``: 4 suits + joker (no suit)."""
    if suit_counts[4]:
        return False
    return sum(1 for c in suit_counts[:4] if c) <= 1 and sum(suit_counts) + wild == 6


def _unpack(key: int, n: int) -> list[int]:
    return [(key >> (3 * i)) & 7 for i in range(n)]


# Memo tables keyed by packed counts (3 bits per token). Every 6-card key is computed once, by
# the matching method above, so the per-draw win test is a dict lookup.
_TP: dict[int, bool] = {}
_SP_ACES: dict[int, bool] = {}
_SP_FLUSH: dict[int, bool] = {}


def _tp_lookup(key: int) -> bool:
    v = _TP.get(key)
    if v is None:
        c = _unpack(key, 15)
        v = _TP[key] = is_three_pairs(c[:13], c[TOK_WILD], c[TOK_DEAD])
    return v


def _aces_lookup(key: int, wild: int) -> bool:
    k = key | (wild << 60)
    v = _SP_ACES.get(k)
    if v is None:
        v = _SP_ACES[k] = is_special_aces(_unpack(key, 14), wild)
    return v


def _flush_lookup(key: int, wild: int) -> bool:
    k = key | (wild << 60)
    v = _SP_FLUSH.get(k)
    if v is None:
        v = _SP_FLUSH[k] = is_special_flush(_unpack(key, 5), wild)
    return v


def wild_sets(indicator: int, wild_scheme: str = "indicator") -> tuple[frozenset, frozenset]:
    """(wild cards, dead cards) for an indicator card (P7 and the Khi variant)."""
    if indicator >= NUM_STANDARD:
        return frozenset(j for j in JOKERS if j != indicator), frozenset()
    r = indicator >> 2
    same = frozenset(4 * r + s for s in range(4)) - {indicator}
    if wild_scheme == "indicator":
        return frozenset(JOKERS) | same, frozenset()
    # Khi: the indicator's rank is dead; the complement rank 10-x is wild where it is a
    # different rank (A..4, 6..9); for 5, 10, J, Q, K only the jokers are wild.
    wild = set(JOKERS)
    if r <= 8 and r != 4:
        wild |= {4 * (8 - r) + s for s in range(4)}
    return frozenset(wild), same


def classify(cards, wild=frozenset(), dead=frozenset(), wild_in_specials=False, special_multiplier=1) -> int:
    """Win kind of a 6-card hand given explicit wild/dead sets (reference entry point)."""
    if len(cards) != 6:
        return WIN_NONE
    counts = [0] * 13
    w = d = 0
    rc = [0] * 14
    sc = [0] * 5
    for c in cards:
        if c in wild:
            w += 1
        elif c in dead:
            d += 1
        else:
            counts[c >> 2] += 1
        if wild_in_specials and c in wild:
            continue
        if c >= NUM_STANDARD:
            rc[13] += 1
            sc[4] += 1
        else:
            rc[c >> 2] += 1
            sc[c & 3] += 1
    sw = w if wild_in_specials else 0
    special = WIN_ACES if is_special_aces(rc, sw) else WIN_FLUSH if is_special_flush(sc, sw) else WIN_NONE
    pairs = is_three_pairs(counts, w, d)
    if special and (special_multiplier > 1 or not pairs):
        return special
    return WIN_PAIRS if pairs else WIN_NONE


@dataclass
class HandResult:
    """How a hand ended. ``winner`` is None for a void hand."""

    hand_no: int
    winner: int | None
    kind: int  # WIN_* (WIN_NONE for void)
    stake: int  # the hand's stake
    amount: int  # what each payer owed (stake, or k x stake for a special hand)
    deltas: list[int]  # chip change per seat
    eliminated: list[int]  # seats eliminated by this hand
    n_active: int  # active players when the hand was played
    winning_hand: list[int] = field(default_factory=list)
    done: bool = False  # the match is over
    void_reason: str = ""  # for a void hand: VOID_STOCK (P11) or VOID_STALL (P11a)
    wild: frozenset = frozenset()  # the hand's wild and dead cards (the next hand has its own)
    dead: frozenset = frozenset()


class SamSipEngine(GameEngine):
    """One Sam Sip match. ``step(move)`` trusts the move is legal; ``play(move)`` checks it."""

    def __init__(self, config: SamSipConfig, rng: random.Random, deck=None):
        self.config = config
        self.rng = rng
        n = self.n = config.num_players
        self.chips = [config.bankroll] * n
        self.active = [True] * n
        self.n_active = n
        self.stake = config.base_stake
        self.hand_no = 0
        self.dealer = config.first_dealer if config.first_dealer >= 0 else rng.randrange(n)
        self.elim_hand = [0] * n  # hand number of each seat's elimination (0: still in)
        self.elim_balance = [0] * n  # balance before that hand
        self.done = False
        self.moves = 0
        self.last_result: HandResult | None = None
        self.results: list[HandResult] = []
        self._start_hand(deck)

    # ------------------------------------------------------------------ dealing
    def _start_hand(self, deck=None) -> None:
        cfg = self.config
        n = self.n
        self.hand_no += 1
        if deck is None:
            deck = list(range(DECK_SIZE))
            self.rng.shuffle(deck)
        order = self.play_order(self.dealer)
        hands: list[list[int]] = [[] for _ in range(n)]
        pos = 0
        for _ in range(HAND_SIZE):
            for s in order:
                hands[s].append(deck[pos])
                pos += 1
        stock = deck[pos:]
        stock.reverse()  # top of the stock is the end of the list
        indicator = stock.pop()
        self.buried: list[int] = []
        while indicator >= NUM_STANDARD and cfg.joker_indicator == "redraw":
            stock.insert(0, indicator)  # bury the joker at the bottom of the stock
            self.buried.append(indicator)
            indicator = stock.pop()
        self.hands = hands
        self.stock = stock
        self.indicator = indicator
        self.wild, self.dead = wild_sets(indicator, cfg.wild_scheme)
        tpw = [0] * DECK_SIZE
        rw = [0] * DECK_SIZE
        sw = [0] * DECK_SIZE
        for c in range(DECK_SIZE):
            if c in self.wild:
                tok = TOK_WILD
            elif c in self.dead:
                tok = TOK_DEAD
            else:
                tok = c >> 2
            tpw[c] = 1 << (3 * tok)
            if cfg.wild_in_specials and c in self.wild:
                continue  # wild cards stand for anything: they count in neither key
            if c >= NUM_STANDARD:
                rw[c], sw[c] = 1 << 39, 1 << 12
            else:
                rw[c], sw[c] = 1 << (3 * (c >> 2)), 1 << (3 * (c & 3))
        self._tpw, self._rw, self._sw = tpw, rw, sw
        self._rekey()
        # public record of this hand
        self.events: list[list[int]] = []  # discards in order: [seat, kind, taker or -1]
        self.known: list[list[int]] = [[] for _ in range(n)]  # kinds known to be in each hand
        self.dead_cards: list[int] = []  # discards that can no longer be taken
        self.live = -1  # the discard that may be taken, or -1
        self.live_for = -1  # the seat it lies in front of
        self.last_draw = [-1] * n  # this hand: 0 drew from the stock, 1 took the discard
        self.draws = [[0, 0] for _ in range(n)]  # this hand: [stock draws, discards taken]
        self.reshuffles = 0
        self.stalled_turns = 0  # P11a: turns in a row in which the discard was taken (stock untouched)
        self.stall_limit = cfg.stall_turns or STALL_TURNS_PER_PLAYER * self.n_active  # P11a
        self.turn = self.dealer
        self.phase = PHASE_DRAW
        self.pending = WIN_NONE  # win available to declare (auto_declare=False)

    def deal(self, deck) -> None:
        """Re-deal the current hand from a stacked deck of 55 card ids (same hand number and
        dealer); for tests, puzzles and analysis. Chips, stake and eliminations are kept."""
        if sorted(deck) != list(range(DECK_SIZE)):
            raise ValueError("deck must be the 55 card ids 0..54, each once")
        self.hand_no -= 1
        self._start_hand(list(deck))

    def play_order(self, start: int) -> list[int]:
        return [s for s in (list(range(start, self.n)) + list(range(start))) if self.active[s]]

    def next_active(self, seat: int) -> int:
        n = self.n
        s = (seat + 1) % n
        while not self.active[s]:
            s = (s + 1) % n
        return s

    # ----------------------------------------------------------------- queries
    def win_kind(self, seat: int) -> int:
        """Win kind of ``seat``'s current hand (WIN_NONE unless it holds 6 winning cards)."""
        if len(self.hands[seat]) != 6:
            return WIN_NONE
        pairs = _tp_lookup(self._tpkey[seat])
        mult = self.config.special_multiplier
        if pairs and mult == 1:
            return WIN_PAIRS
        w = (self._tpkey[seat] >> (3 * TOK_WILD)) & 7 if self.config.wild_in_specials else 0
        if _aces_lookup(self._rkey[seat], w):
            return WIN_ACES
        if _flush_lookup(self._skey[seat], w):
            return WIN_FLUSH
        return WIN_PAIRS if pairs else WIN_NONE

    # ----------------------------------------------------------------- the engine protocol
    @property
    def acting_seat(self) -> int:
        return self.turn

    def legal_actions(self) -> list[int]:
        return sorted(self.legal())

    def apply_action(self, action: int) -> StepOutcome:
        """Trusted: apply a legal move; a hand it ends pays rewards (``hand_rewards``) and may
        eliminate seats."""
        res = self.step(action)
        if res is None:
            return StepOutcome()
        return StepOutcome(self.hand_rewards(res), res.done, tuple(res.eliminated))

    def hand_rewards(self, res: HandResult) -> dict[int, float]:
        """Rewards for a finished hand (rules 2.6), by ``config.reward``:

        * ``stake`` (default): dchips / (stake x (n_active - 1)); the winner of a normal hand
          gets +1 when everybody pays in full, each payer -1/(n_active - 1); zero-sum.
        * ``bankroll``: dchips / bankroll (reflects stake growth); zero-sum.
        * ``rank``: 0 per hand; at elimination (n + 1 - 2 rank) / (n - 1) for the eliminated, and
          the same for the survivors when the match ends; zero-sum over the match.
        """
        mode = self.config.reward
        if mode == "rank":
            ranks = self.ranking()
            n = self.n
            seats = set(res.eliminated)
            if res.done:
                seats.update(range(n))
                seats -= {s for s in range(n) if not self.active[s] and s not in res.eliminated}
            return {s: (n + 1 - 2 * ranks[s]) / (n - 1) for s in seats}
        if res.winner is None:
            return {}
        if mode == "bankroll":
            scale = float(self.config.bankroll)
        else:
            scale = float(res.stake * (res.n_active - 1))
        return {s: d / scale for s, d in enumerate(res.deltas) if d}

    def resample_hidden(self, seat: int, rng: random.Random) -> SamSipEngine:
        """A clone in which the other active hands, the stock and the later hands' shuffles are
        dealt anew, keeping what ``seat`` knows: the discards each player took and still holds
        (rules 2.7)."""
        c = self.clone()
        slots: list[tuple[list[int], int]] = []
        for s in range(c.n):
            if s == seat or not c.active[s]:
                continue
            known = list(c.known[s])
            for i, card in enumerate(c.hands[s]):
                k = kind_of(card)
                if k in known:
                    known.remove(k)  # a tracked card stays where everybody saw it go
                else:
                    slots.append((c.hands[s], i))
        slots += [(c.stock, i) for i in range(len(c.stock))]
        cards = sorted(where[i] for where, i in slots)  # which cards are unseen, not where they are
        rng.shuffle(cards)
        c.rng = random.Random(rng.getrandbits(64))  # the later hands' shuffles are unknown too
        for (where, i), card in zip(slots, cards):
            where[i] = card
        c._rekey()
        return c

    def _rekey(self) -> None:
        """Recompute every hand's packed count keys (after cards moved outside play)."""
        self._tpkey = [sum(self._tpw[c] for c in h) for h in self.hands]
        self._rkey = [sum(self._rw[c] for c in h) for h in self.hands]
        self._skey = [sum(self._sw[c] for c in h) for h in self.hands]

    def legal(self) -> list[int]:
        """Legal moves of the acting seat (see the module docstring)."""
        if self.done:
            return []
        if self.phase == PHASE_DRAW:
            return [DRAW_STOCK, TAKE_DISCARD] if self.live >= 0 else [DRAW_STOCK]
        moves = []
        joker = False
        for c in self.hands[self.turn]:
            if c < NUM_STANDARD:
                moves.append(c)
            else:
                joker = True
        if joker:
            moves.append(DISCARD_JOKER)
        if self.pending:
            moves.append(DECLARE)
        return moves

    def accounted_cards(self) -> list[int]:
        """Every card of the deck, wherever it is (for invariant checks)."""
        out = [c for h in self.hands for c in h] + self.stock + self.dead_cards + [self.indicator]
        if self.live >= 0:
            out.append(self.live)
        return out

    def ranking(self) -> list[float]:
        """Rank of every seat (1 = best; ties share the average rank), per P13."""
        n = self.n
        groups: list[list[int]] = []
        alive = sorted((s for s in range(n) if self.active[s]), key=lambda s: -self.chips[s])
        groups += _tie_groups(alive, lambda s: self.chips[s])
        out = [s for s in range(n) if not self.active[s]]
        out.sort(key=lambda s: -self.elim_hand[s])
        by_hand = _tie_groups(out, lambda s: self.elim_hand[s])
        for g in by_hand:
            if self.config.elimination_tiebreak == "balance":
                g.sort(key=lambda s: -self.elim_balance[s])
                groups += _tie_groups(g, lambda s: self.elim_balance[s])
            else:
                groups.append(g)
        ranks = [0.0] * n
        pos = 1
        for g in groups:
            r = pos + (len(g) - 1) / 2
            for s in g:
                ranks[s] = r
            pos += len(g)
        return ranks

    # ----------------------------------------------------------------- moves
    def play(self, move: int) -> HandResult | None:
        """Apply a move after checking it is legal (ValueError otherwise)."""
        if self.done:
            raise ValueError("the match is over")
        if move not in self.legal():
            raise ValueError(f"illegal move {move}; legal: {self.legal()}")
        return self.step(move)

    def step(self, move: int) -> HandResult | None:
        """Apply a legal move. Returns the HandResult when this move ended a hand."""
        self.moves += 1
        s = self.turn
        if self.phase == PHASE_DRAW:
            if move == DRAW_STOCK:
                c = self.stock.pop()
                if self.live >= 0:  # the passed-over discard is dead now
                    self.dead_cards.append(self.live)
                    self.live = -1
                self.last_draw[s] = 0
                self.draws[s][0] += 1
                self.stalled_turns = 0
            else:
                c = self._take(s)
                self.stalled_turns += 1
            self.hands[s].append(c)
            self._tpkey[s] += self._tpw[c]
            self._rkey[s] += self._rw[c]
            self._skey[s] += self._sw[c]
            kind = self.win_kind(s)
            if kind:
                if self.config.auto_declare:
                    return self._win(s, kind)
                self.pending = kind
            self.phase = PHASE_DISCARD
            return None
        if move == DECLARE:
            return self._win(s, self.pending)
        hand = self.hands[s]
        if move == DISCARD_JOKER:
            c = min(x for x in hand if x >= NUM_STANDARD)
        else:
            c = move
        hand.remove(c)
        self._tpkey[s] -= self._tpw[c]
        self._rkey[s] -= self._rw[c]
        self._skey[s] -= self._sw[c]
        k = c if c < NUM_STANDARD else JOKER_KIND
        kn = self.known[s]
        if k in kn:
            kn.remove(k)
        self.events.append([s, k, -1])
        self.pending = WIN_NONE
        nxt = self.next_active(s)
        self.live = c
        self.live_for = nxt
        self.turn = nxt
        self.phase = PHASE_DRAW
        if self.stalled_turns >= self.stall_limit:  # P11a: this turn was the limit-th without a stock draw
            return self._void_hand(VOID_STALL)
        if not self.stock:
            return self._stock_empty(nxt)
        return None

    def _take(self, s: int) -> int:
        c = self.live
        self.live = -1
        self.live_for = -1
        self.events[-1][2] = s
        self.known[s].append(c if c < NUM_STANDARD else JOKER_KIND)
        self.last_draw[s] = 1
        self.draws[s][1] += 1
        return c

    def _stock_empty(self, s: int) -> HandResult | None:
        """P11: ``s`` must draw but the stock is empty."""
        cfg = self.config
        if cfg.on_stock_empty == "reshuffle" and self.dead_cards and self.reshuffles < cfg.max_reshuffles:
            self.stock = self.dead_cards
            self.dead_cards = []
            self.rng.shuffle(self.stock)
            self.reshuffles += 1
            return None
        # Only a winning take is allowed; a player always takes it (automatic in both modes).
        c = self.live
        self._tpkey[s] += self._tpw[c]
        self._rkey[s] += self._rw[c]
        self._skey[s] += self._sw[c]
        self.hands[s].append(c)
        kind = self.win_kind(s)
        self.hands[s].pop()
        self._tpkey[s] -= self._tpw[c]
        self._rkey[s] -= self._rw[c]
        self._skey[s] -= self._sw[c]
        if kind:
            self._take(s)
            self.hands[s].append(c)
            self._tpkey[s] += self._tpw[c]
            self._rkey[s] += self._rw[c]
            self._skey[s] += self._sw[c]
            return self._win(s, kind)
        return self._void_hand(VOID_STOCK)

    def _void_hand(self, reason: str) -> HandResult:
        """P11 / P11a: no payments, the stake is unchanged and the same dealer deals again."""
        return self._end_hand(
            HandResult(self.hand_no, None, WIN_NONE, self.stake, 0, [0] * self.n, [], self.n_active, void_reason=reason)
        )

    def _win(self, s: int, kind: int) -> HandResult:
        cfg = self.config
        n = self.n
        stake = self.stake
        amount = stake * (cfg.special_multiplier if kind in (WIN_ACES, WIN_FLUSH) else 1)
        deltas = [0] * n
        elim = []
        chips = self.chips
        for p in range(n):
            if p == s or not self.active[p]:
                continue
            if chips[p] <= amount:
                pay = chips[p]
                elim.append(p)
            else:
                pay = amount
            chips[p] -= pay
            deltas[p] = -pay
            deltas[s] += pay
        chips[s] += deltas[s]
        n_active = self.n_active
        for p in elim:
            self.active[p] = False
            self.elim_hand[p] = self.hand_no
            self.elim_balance[p] = -deltas[p]
        self.n_active -= len(elim)
        if elim:
            self.stake = cfg.base_stake
        elif cfg.stake_progression == "double":
            self.stake = stake * 2
        else:
            self.stake = stake + cfg.base_stake
        self.dealer = s
        return self._end_hand(
            HandResult(
                self.hand_no,
                s,
                kind,
                stake,
                amount,
                deltas,
                elim,
                n_active,
                sorted(self.hands[s]),
                wild=frozenset(self.wild),
                dead=frozenset(self.dead),
            )
        )

    def _end_hand(self, res: HandResult) -> HandResult:
        self.pending = WIN_NONE
        if self.n_active <= 1 or self.hand_no >= self.config.max_hands:
            self.done = True
        res.done = self.done
        self.last_result = res
        self.results.append(res)
        if not self.done:
            self._start_hand()
        return res

    @staticmethod
    def step_bound(config: SamSipConfig) -> int:
        """Most steps a match can take. A hand has at most ``draws`` stock draws (the first stock
        plus every reshuffle of at most 55 cards) and, after each, at most the stall limit
        (P11a) turns without one (the limit-th voids the hand); a turn is two steps; a match has at
        most ``max_hands`` hands."""
        n = config.num_players
        draws = DECK_SIZE - 1 - HAND_SIZE * 2  # the largest first stock (2 players)
        if config.on_stock_empty == "reshuffle":
            draws += DECK_SIZE * config.max_reshuffles
        stall = max(config.stall_turns, STALL_TURNS_PER_PLAYER * n)
        return config.max_hands * 2 * (draws + 1) * (stall + 1)

    def clone(self) -> SamSipEngine:
        g = SamSipEngine.__new__(SamSipEngine)
        d = self.__dict__.copy()
        g.__dict__ = d
        rng = random.Random()
        rng.setstate(self.rng.getstate())
        g.rng = rng
        for name in (
            "chips",
            "active",
            "elim_hand",
            "elim_balance",
            "results",
            "stock",
            "dead_cards",
            "last_draw",
            "_tpkey",
            "_rkey",
            "_skey",
            "buried",
        ):
            d[name] = list(d[name])
        g.hands = [list(h) for h in self.hands]
        g.known = [list(k) for k in self.known]
        g.events = [list(e) for e in self.events]
        g.draws = [list(x) for x in self.draws]
        return g


def _tie_groups(seats, key) -> list[list[int]]:
    groups: list[list[int]] = []
    for s in seats:
        if groups and key(groups[-1][0]) == key(s):
            groups[-1].append(s)
        else:
            groups.append([s])
    return groups


def random_match(config: SamSipConfig, rng: random.Random) -> int:
    """Play one whole match with uniformly random legal moves; return the number of moves."""
    g = SamSipEngine(config, rng)
    rand = rng.random
    while not g.done:
        moves = g.legal()
        g.step(moves[int(rand() * len(moves))])
    return g.moves
