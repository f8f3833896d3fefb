"""Suipi rules engine (docs/rules/suipi.md S1-S18 and the variants table 1.5).

Pure Python, no gymnasium/pettingzoo imports. It speaks the engine protocol (envs/protocol.py)
with the sub-step action ids of actions.py: a move is composed by the same seat (hand card, floor
items, finish), and ``apply_action`` plays it when the finishing id comes. Cards are the shared
small ints of envs/cards.py (id = 4 * rank + suit, suits ♠ ♣ ♦ ♥); Suipi's card tables (values S2,
keys S12, points S16) and the legal-move generation are here too.

Floor items are immutable tuples ``(key, nval, cards, owner, locked, rep)``:

* ``key``    1..13: the value used by the unique-floor rule S12 (A=1 .. 10=10, J/Q/K = 11/12/13;
  in the 11-point game a loose court card has key 11..13 but no numeric value);
* ``nval``   numeric value (0 for a court card in the 11-point game); a build's value;
* ``cards``  tuple of card ids;
* ``owner``  -1 for a loose card, else the seat owning the build;
* ``locked`` True for a multiple build (two or more groups);
* ``rep``    the item's representative card = its lowest card id (used by the action ids).

A complete move is a tuple ``(hand_card, mask, kind, value)`` (see actions.py).
"""

from __future__ import annotations

import random
from typing import Any

from cardzoo.envs.protocol import GameEngine, StepOutcome, ranks_from_scores
from cardzoo.envs.suipi.actions import (
    BUILD,
    BUILD0,
    CAPTURE,
    CAPTURE_ACTION,
    CARDS,
    DROP,
    DROP_ACTION,
    ITEM0,
    KEY,
    LOCKED,
    NVAL,
    OWNER,
    REP,
    Item,
    Move,
    move_actions,
    move_text,
)
from cardzoo.envs.suipi.config import MAX_DEALS, SuipiConfig

# ------------------------------------------------------------------ card tables
CARD_KEY = tuple((c >> 2) + 1 for c in range(52))  # S12 key: A=1 .. K=13
NVAL_11 = tuple(((c >> 2) + 1) if (c >> 2) <= 9 else 0 for c in range(52))
NVAL_23 = CARD_KEY
IS_SPADE = tuple(1 if (c & 3) == 0 else 0 for c in range(52))
ACES = (0, 1, 2, 3)
TEN_D = 4 * 9 + 2
TWO_S = 4 * 1 + 0
JACK_D, QUEEN_D, KING_D = 4 * 10 + 2, 4 * 11 + 2, 4 * 12 + 2
POINTS_11 = tuple(1 if c in ACES else 2 if c == TEN_D else 1 if c == TWO_S else 0 for c in range(52))
POINTS_23 = tuple(
    POINTS_11[c] + (3 if c == JACK_D else 4 if c == QUEEN_D else 5 if c == KING_D else 0) for c in range(52)
)


def card_values(config: SuipiConfig) -> tuple:
    """Numeric value of every card id (0 for a valueless court card in the 11-point game)."""
    return NVAL_23 if config.court_values else NVAL_11


def card_points(config: SuipiConfig) -> tuple:
    """S16 points of every card id."""
    return POINTS_23 if config.court_values else POINTS_11


def side_of(seat: int, num_players: int) -> int:
    """S1: with 4 players the partners sit opposite (seats 0, 2 and 1, 3); otherwise alone."""
    return seat % 2 if num_players == 4 else seat


def teams(num_players: int) -> list[list[int]]:
    """The seats of every side: [[0, 2], [1, 3]] with 4 players, one seat each otherwise."""
    sides: dict[int, list[int]] = {}
    for seat in range(num_players):
        sides.setdefault(side_of(seat, num_players), []).append(seat)
    return list(sides.values())


# ------------------------------------------------------------------ legal-move generation
# S8-S13 and the variants. A move is ``(hand_card, mask, kind, value)`` (actions.py). Equivalent
# outcomes are listed once: a capture is the set of items taken (how they split into groups does
# not matter), a build the set of items used plus the value. ``legal_moves`` is one function on
# purpose: it is the engine's hot path, where capture / build / drop helpers would add calls and
# pass its many locals around; its three sections are marked instead.
def _subsets(floor, vmax):
    """(bitmask, sum, size) of every subset of the loose numeric floor items with sum <= vmax,
    the empty one first, in a fixed order (each item in turn joins the subsets made so far)."""
    subs = [(0, 0, 0)]
    for i, it in enumerate(floor):
        v = it[NVAL]
        if it[OWNER] < 0 and v:
            bit = 1 << i
            subs += [(m | bit, s + v, k + 1) for m, s, k in subs if s + v <= vmax]
    return subs


def _loose_subsets(floor, vmax):
    """Subsets of loose numeric floor items by sum: (all sizes, sizes >= 2, size == 2), each a
    list indexed by the sum 0..vmax of bitmask lists."""
    all_s: list[list[int]] = [[] for _ in range(vmax + 1)]
    multi: list[list[int]] = [[] for _ in range(vmax + 1)]
    pair: list[list[int]] = [[] for _ in range(vmax + 1)]
    for m, s, k in _subsets(floor, vmax)[1:]:
        all_s[s].append(m)
        if k >= 2:
            multi[s].append(m)
            if k == 2:
                pair[s].append(m)
    return all_s, multi, pair


def _subsets_by_sum(floor, vmax, pairs_only):
    """``_loose_subsets`` as ``legal_moves`` reads it: (all sizes, the sum groups: sizes >= 2,
    or exactly 2 with ``pairs_only``), and a sum no subset has holds an empty tuple (a list is
    made only for the sums that have subsets: most sums have none)."""
    all_s = [()] * (vmax + 1)
    groups = [()] * (vmax + 1)
    for m, s, k in _subsets(floor, vmax)[1:]:
        if all_s[s]:
            all_s[s].append(m)
        else:
            all_s[s] = [m]
        if k == 2 or (k > 2 and not pairs_only):
            if groups[s]:
                groups[s].append(m)
            else:
                groups[s] = [m]
    return all_s, groups


def _unions(groups):
    """All non-empty unions of pairwise disjoint subfamilies of ``groups`` (bitmasks)."""
    if len(groups) <= 1:
        return list(groups)
    acc = [0]
    seen = {0}
    for g in groups:
        for m in acc[:]:
            if not m & g:
                u = m | g
                if u not in seen:
                    seen.add(u)
                    acc.append(u)
    acc.pop(0)
    return acc


def legal_moves(config: SuipiConfig, hand, floor, seat: int) -> list[Move]:
    """Every distinct legal move of ``seat`` holding ``hand`` with this ``floor``."""
    nv = NVAL_23 if config.court_values else NVAL_11  # card_values(config), without the call
    vmax = config.vmax
    unique = config.unique_floor_during_play
    all_s, sumgroups = _subsets_by_sum(floor, vmax, config.sum_group_size == "exactly_2")
    # numeric value -> bits of items with that value (a list once there is one)
    key_items: list[Any] = [()] * 14
    court_items: dict[int, list[int]] = {}  # key -> bits of loose valueless court cards (11-point game)
    keys_on_floor = set()
    owned = []  # (bit, value) of builds owned by seat
    unlocked = []  # (bit, value) of unlocked builds
    bit = 1
    for it in floor:
        v = it[NVAL]
        if v:
            if key_items[v]:
                key_items[v].append(bit)
            else:
                key_items[v] = [bit]
            keys_on_floor.add(v)
        else:
            court_items.setdefault(it[KEY], []).append(bit)
            keys_on_floor.add(it[KEY])
        if it[OWNER] >= 0:
            if it[OWNER] == seat:
                owned.append((bit, v))
            if not it[LOCKED]:
                unlocked.append((bit, v))
        bit <<= 1
    count = [0] * 14
    for c in hand:
        count[nv[c]] += 1
    held = [v for v in range(1, vmax + 1) if count[v]]  # the numeric values in the hand, ascending
    max_owned = config.max_owned_builds
    maximal = config.maximal_capture
    forced = config.forced_capture
    builds_on = config.builds_enabled
    multi_on = config.multi_builds
    U = [None] * 14  # capture unions per value (lazy)

    moves: list[Move] = []
    append = moves.append
    for h in hand:
        hv = nv[h]
        # ---------------- captures
        if hv:
            caps = U[hv]
            if caps is None:
                caps = U[hv] = _unions((*key_items[hv], *sumgroups[hv]))
        else:
            caps = court_items.get(CARD_KEY[h], ())  # one same-rank court card
        if caps:
            if owned or maximal:
                grps = (*key_items[hv], *sumgroups[hv]) if (hv and maximal) else None
                for m in caps:
                    ok = True
                    for b, w in owned:
                        if not m & b and count[w] - (hv == w) < 1:
                            ok = False
                            break
                    if ok and grps is not None:
                        for g in grps:
                            if not g & m:
                                ok = False
                                break
                    if ok:
                        append((h, m, CAPTURE, 0))
            else:
                for m in caps:
                    append((h, m, CAPTURE, 0))
        # ---------------- builds
        if hv and builds_on:
            for v in held:  # a build's value must be held by another card
                if v < hv or (v == hv and count[v] < 2):
                    continue
                t = v - hv
                if multi_on:
                    actives = list(all_s[t]) if t else [0]
                    for bbit, bv in unlocked:
                        r = t - bv
                        if r == 0:
                            actives.append(bbit)
                        elif r > 0:
                            actives.extend([bbit | m for m in all_s[r] if not m & bbit])
                    extras = U[v]
                    if extras is None:
                        extras = U[v] = _unions((*key_items[v], *sumgroups[v]))
                    results: set[int] | list[int]
                    if extras:
                        results = set()
                        for a in actives:
                            if a:
                                results.add(a)
                            for e in extras:
                                if not a & e:
                                    results.add(a | e)
                    else:
                        results = [a for a in actives if a]
                else:
                    if t == 0:
                        continue
                    results = []
                    b = 1
                    for it in floor:
                        if it[NVAL] == t and not (it[OWNER] >= 0 and it[LOCKED]):
                            results.append(b)
                        b <<= 1
                if not results:
                    continue
                need = key_items[v][0] if (unique and key_items[v]) else 0
                for m in results:
                    if need and not m & need:
                        continue  # S12: the item of value v must be absorbed
                    if owned:
                        ok = True
                        n_owned = 1
                        for b, w in owned:
                            if not m & b:
                                n_owned += 1
                                if count[w] - (hv == w) < 1:
                                    ok = False
                                    break
                        if not ok or (max_owned and n_owned > max_owned):
                            continue
                    append((h, m, BUILD, v))
        # ---------------- drop
        if owned:
            continue
        if unique and CARD_KEY[h] in keys_on_floor:
            continue
        if forced and caps:
            continue
        append((h, 0, DROP, 0))
    return moves


# ------------------------------------------------------------------ engine
class DealResult:
    """Scoring of one finished deal (per side)."""

    __slots__ = ("cards", "spades", "card_points", "points", "suipis", "totals", "scores", "deltas")

    def __init__(self, cards, spades, card_points, points, suipis, totals, scores, deltas):
        self.cards = cards  # cards taken per side
        self.spades = spades
        self.card_points = card_points  # points from point cards only
        self.points = points  # S16 points (majorities + point cards)
        self.suipis = suipis
        self.totals = totals  # points + suipis
        self.scores = scores  # S17 deal score per side (only the leading side scores)
        self.deltas = deltas  # zero-sum signed difference per side (2 sides: +-Delta)

    def __repr__(self):
        return (
            f"DealResult(cards={self.cards}, spades={self.spades}, points={self.points}, "
            f"suipis={self.suipis}, scores={self.scores})"
        )


def score_deal(config: SuipiConfig, captured, suipis) -> DealResult:
    """S16/S17 from the captured cards and suipi counts of each side."""
    pts_table = card_points(config)
    ns = len(captured)
    cards = [len(p) for p in captured]
    spades = [sum(IS_SPADE[c] for c in p) for p in captured]
    cpts = [sum(pts_table[c] for c in p) for p in captured]
    points = list(cpts)
    for arr, bonus in ((cards, 3), (spades, 1)):
        best = max(arr)
        if arr.count(best) == 1:
            points[arr.index(best)] += bonus
    totals = [points[s] + suipis[s] for s in range(ns)]
    order = sorted(range(ns), key=lambda s: -totals[s])
    scores = [0] * ns
    margin = totals[order[0]] - totals[order[1]]
    if margin > 0:
        scores[order[0]] = margin
    # zero-sum signed difference: n/(n-1) * (score - mean score); = +-Delta with two sides
    mean = sum(scores) / ns
    deltas = [(scores[s] - mean) * ns / (ns - 1) for s in range(ns)]
    if ns == 2:
        deltas = [totals[0] - totals[1], totals[1] - totals[0]]
    return DealResult(cards, spades, cpts, points, list(suipis), totals, scores, deltas)


class SuipiEngine(GameEngine):
    """The Suipi state machine for one match of ``config.num_deals`` deals.

    Complete moves: ``legal_moves()`` / ``play_move(move)``. The engine protocol composes them
    from sub-step ids: ``legal_actions()`` / ``apply_action(id)``, with the move being composed in
    ``partial_card`` / ``partial_items``.
    """

    def __init__(self, config: SuipiConfig, rng: random.Random | None = None):
        self.config = config
        self.rng = rng or random.Random()
        self.n = config.num_players
        self.ns = config.num_sides
        self.nv = card_values(config)
        self.side = tuple(side_of(s, self.n) for s in range(self.n))

    # -------------------------------------------------------------- lifecycle
    def start_match(self, deck: list[int] | None = None, first_dealer: int | None = None) -> None:
        """Start a match. ``deck`` stacks the first deal (index 0 = top); with a stacked deck
        the first dealer is the last seat unless ``first_dealer`` is given."""
        n = self.n
        if first_dealer is None:
            first_dealer = n - 1 if deck is not None else self.rng.randrange(n)
        self.match_scores = [0] * self.ns
        self.deal_index = -1
        self.deal_results: list[DealResult] = []
        self.done = False
        self.moves_made = 0
        self.partial_card: int | None = None  # the hand card of the move being composed
        self.partial_items: list[int] = []  # the floor items chosen so far (representative cards)
        self._trie: tuple[dict[tuple[int, ...], list[int]], dict[tuple[int, ...], Move]] | None = None
        self._start_deal(first_dealer, deck)

    def _start_deal(self, dealer: int, deck: list[int] | None) -> None:
        self.deal_index += 1
        self.dealer = dealer
        if deck is None:
            deck = list(range(52))
            self.rng.shuffle(deck)
        self.stock = list(deck)  # index 0 = top
        self.top = 0
        self.hands: list[list[int]] = [[] for _ in range(self.n)]
        self.floor: list[Item] = []
        self.captured: list[list[int]] = [[] for _ in range(self.ns)]
        self.suipis = [0] * self.ns
        self.lost: list[int] = []  # floor cards nobody took (no capture in the whole deal)
        self.last_capturer = -1
        self.last_capture: tuple[int, tuple[int, ...]] = (-1, ())  # (seat, the card played + what it took)
        self.round = -1
        self.rejected: list[tuple[int, int]] = []  # (card, stock index) sent to the bottom by S5 (public)
        sizes = self.config.deal_sizes
        if len(sizes) == 1:  # whole deck in one round: lay the floor first (documented)
            self._lay_floor()
            self._deal_round()
        else:
            self._deal_round()
            self._lay_floor()
        self._legal: list[Move] | None = None
        self._mark_round()

    def _mark_round(self) -> None:
        """Remember the public state as the hands are dealt, and start the round's list of moves:
        what ``round_replay`` plays again."""
        self.round_start = (
            tuple(self.floor),
            tuple(tuple(p) for p in self.captured),
            tuple(self.suipis),
            self.last_capturer,
            self.last_capture,
            tuple(self.lost),
            self.turn,
        )
        self.round_moves: list[tuple[int, Move]] = []  # (seat, complete move) since the hands were dealt

    def _deal_round(self) -> None:
        self.round += 1
        size = self.config.deal_sizes[self.round]
        n, d = self.n, self.dealer
        s, t = self.stock, self.top
        for i in range(size * n):
            self.hands[(d + 1 + i) % n].append(s[t + i])
        self.top = t + size * n
        self.turn = (d + 1) % n

    def _draw(self) -> int:
        c = self.stock[self.top]
        self.top += 1
        return c

    def _reject(self, c: int) -> None:
        self.rejected.append((c, len(self.stock)))
        self.stock.append(c)

    def _lay_floor(self) -> None:
        """S5 (and the floor_dup_rule variants): 4 floor cards of 4 different ranks."""
        rule = self.config.floor_dup_rule
        pts = card_points(self.config)
        kept: list[int] = []
        streak = 0  # consecutive rejections, guards against a cycling stock
        while len(kept) < 4:
            c = self._draw()
            relax = streak > (len(self.stock) - self.top) + 1
            if rule == "no_point_cards" and pts[c] and not relax:
                self._reject(c)
                streak += 1
                continue
            clash = next((k for k in kept if (k >> 2) == (c >> 2)), None)
            if clash is None:
                kept.append(c)
                streak = 0
                continue
            new_wins = False
            if rule == "spade":
                new_wins = IS_SPADE[c] == 1
            elif rule == "lower_value":
                new_wins = (pts[c], IS_SPADE[c]) > (pts[clash], IS_SPADE[clash])
            elif rule == "point_card":
                new_wins = pts[c] > 0 and pts[clash] == 0
            if new_wins:
                kept[kept.index(clash)] = c
                self._reject(clash)
                streak = 0
            else:
                self._reject(c)
                streak += 1
        nv = self.nv
        self.floor = [(CARD_KEY[c], nv[c], (c,), -1, False, c) for c in kept]

    def clone(self) -> SuipiEngine:
        e = SuipiEngine.__new__(SuipiEngine)
        e.__dict__.update(self.__dict__)
        e.rng = random.Random()
        e.rng.setstate(self.rng.getstate())
        e.match_scores = list(self.match_scores)
        e.deal_results = list(self.deal_results)
        e.stock = list(self.stock)
        e.hands = [list(h) for h in self.hands]
        e.floor = list(self.floor)
        e.captured = [list(p) for p in self.captured]
        e.suipis = list(self.suipis)
        e.lost = list(self.lost)
        e.rejected = list(self.rejected)
        e.partial_items = list(self.partial_items)
        e.round_moves = list(self.round_moves)
        e._card_tries = None  # filled in place: never shared with the original
        return e

    @staticmethod
    def step_bound(config: SuipiConfig) -> int:
        """Most env steps a match can take: 48 moves per deal (every card but the 4 floor cards
        is played from a hand), each at most 2 + 52 sub-steps (hand card, floor items, finish);
        ``num_deals`` deals, or up to MAX_DEALS when the match plays to a target or breaks ties."""
        deals = MAX_DEALS if (config.target_score or config.break_ties) else config.num_deals
        return deals * 48 * (2 + 52)

    # -------------------------------------------------------------- queries
    @property
    def stock_size(self) -> int:
        return len(self.stock) - self.top

    def rejected_in_stock(self) -> list[int]:
        """Cards the initial-floor rule sent to the bottom that are still in the stock (public)."""
        return [c for c, pos in self.rejected if pos >= self.top]

    def legal_moves(self) -> list[Move]:
        if self._legal is None:
            self._legal = legal_moves(self.config, self.hands[self.turn], self.floor, self.turn)
            if not self._legal:  # S13 guarantees a move; never observed
                raise RuntimeError("no legal move: engine bug")
        return self._legal

    def move_text(self, move) -> str:
        return move_text(self.floor, move)

    # -------------------------------------------------------------- the engine protocol
    @property
    def acting_seat(self) -> int:
        return self.turn

    def partial_prefix(self) -> tuple:
        """The sub-step ids played so far of the move being composed."""
        if self.partial_card is None:
            return ()
        return (self.partial_card, *[ITEM0 + r for r in self.partial_items])

    def move_trie(self) -> tuple[dict[tuple[int, ...], list[int]], dict[tuple[int, ...], Move]]:
        """(prefix -> sorted next ids, complete id sequence -> move) over the legal moves; built
        once per position (sub-steps of one move share it)."""
        if self._trie is None:
            floor = self.floor
            trie: dict[tuple[int, ...], list[int]] = {}
            full: dict[tuple[int, ...], Move] = {}
            for mv in self.legal_moves():
                seq = move_actions(floor, mv)
                full[seq] = mv
                for k in range(len(seq)):
                    nxt = trie.get(seq[:k])
                    if nxt is None:
                        trie[seq[:k]] = [seq[k]]
                    elif seq[k] not in nxt:
                        nxt.append(seq[k])
            for v in trie.values():
                v.sort()
            self._trie = (trie, full)
        return self._trie

    def legal_actions(self) -> list[int]:
        """The next sub-step ids of the legal moves that extend the move being composed: the
        ``move_trie`` entry of the prefix, from a trie of the chosen card's moves only."""
        if self.done:
            return []
        return self._card_steps(self.partial_card)[0][self.partial_prefix()]

    def finishing_move(self, action: int):
        """The complete move that the finishing id ``action`` plays now."""
        return self._card_steps(self.partial_card)[1][self.partial_prefix() + (action,)]

    def _composed_move(self, action: int) -> tuple:
        """The complete move that the finishing id ``action`` plays now, written out from the
        move being composed (trusted: it is legal); ``finishing_move`` without the card's trie,
        which the collectors' queued sub-steps never need."""
        chosen = self.partial_items
        mask = 0
        if chosen:
            for i, it in enumerate(self.floor):
                if it[REP] in chosen:
                    mask |= 1 << i
        if action == CAPTURE_ACTION:
            return (self.partial_card, mask, CAPTURE, 0)
        if action == DROP_ACTION:
            return (self.partial_card, 0, DROP, 0)
        return (self.partial_card, mask, BUILD, action - BUILD0)

    def _card_steps(self, card: int | None) -> tuple[dict, dict]:
        """(prefix -> sorted next ids, complete ids -> move) of the legal moves that play ``card``
        (None: the first step, the cards that have a move), made once per position and card. A
        policy picks the card first, so the other cards' moves are never spelled out."""
        cache = self._card_tries
        legal = self._legal
        if legal is None or cache is None or cache[0] is not legal:
            legal = self.legal_moves()
            cache = self._card_tries = (legal, {})
        steps = cache[1].get(card)
        if steps is None:
            if card is None:
                steps = ({(): sorted({move[0] for move in legal})}, {})
            else:
                full = {move_actions(self.floor, mv): mv for mv in legal if mv[0] == card}
                trie: dict[tuple, list] = {}
                for seq in full:
                    for k in range(1, len(seq)):
                        nxt = trie.setdefault(seq[:k], [])
                        if seq[k] not in nxt:
                            nxt.append(seq[k])
                for ids in trie.values():
                    ids.sort()
                steps = (trie, full)
            cache[1][card] = steps
        return steps

    _card_tries: tuple[list, dict] | None = None  # (the legal moves they were made from, card -> tries)

    def apply_action(self, action: int) -> StepOutcome:
        """Trusted: one legal sub-step. A finishing id plays the move; the deal it ends pays each
        seat its side's zero-sum score difference / point game (S17)."""
        if action < ITEM0:
            self.partial_card = action
            return StepOutcome()
        if action < CAPTURE_ACTION:
            self.partial_items.append(action - ITEM0)
            return StepOutcome()
        res = self.play_move(self._composed_move(action))
        if res is None:
            return StepOutcome(done=self.done)
        pg = float(self.config.point_game)
        side = self.side
        return StepOutcome({s: res.deltas[side[s]] / pg for s in range(self.n)}, self.done)

    def ranking(self) -> list[float]:
        """S18: seats ranked by their side's match score (1 = best); partners tie, so they share
        the average of their places (4 players: 1.5 for the winners, 3.5 for the others)."""
        return ranks_from_scores([self.match_scores[self.side[s]] for s in range(self.n)])

    def teams(self) -> list[list[int]]:
        return teams(self.n)

    def resample_hidden(self, seat: int, rng: random.Random) -> SuipiEngine:
        """A clone in which the other hands (the partner's too), the stock and the later deals'
        shuffles are dealt anew, keeping what ``seat`` knows or can be sure of: the cards the
        initial-floor rule sent to the bottom of the stock, a card of each build's value in its
        owner's hand (S11: some card of that value, not the one really held), and the whole hand
        of another seat that is composing a move (its move stays legal). Which cards are unseen
        matters, not where they really are: the same worlds come out of any arrangement."""
        c = self.clone()
        fixed = {pos for _, pos in c.rejected if pos >= c.top}
        keep: list[set] = [set() for _ in range(c.n)]
        if c.partial_card is not None and c.turn != seat:
            keep[c.turn] = set(c.hands[c.turn])
        need = []  # (owner, value): a card of this value goes to that hand
        for it in c.floor:
            owner = it[OWNER]
            if (
                owner >= 0
                and owner != seat
                and (owner, it[NVAL]) not in need
                and not any(c.nv[x] == it[NVAL] for x in keep[owner])
            ):
                need.append((owner, it[NVAL]))
        pool = [card for s in range(c.n) if s != seat for card in c.hands[s] if card not in keep[s]]
        pool += [c.stock[i] for i in range(c.top, len(c.stock)) if i not in fixed]
        pool.sort()
        rng.shuffle(pool)
        given: list[list[int]] = [[] for _ in range(c.n)]
        for owner, value in need:  # the first of the shuffled cards with that value
            given[owner].append(pool.pop(next(i for i, x in enumerate(pool) if c.nv[x] == value)))
        c.rng = random.Random(rng.getrandbits(64))  # the later deals' shuffles are unknown too
        deal = iter(pool)
        for s in range(c.n):
            if s != seat:
                mine = given[s]
                c.hands[s] = [card if card in keep[s] else mine.pop() if mine else next(deal) for card in c.hands[s]]
        for i in range(c.top, len(c.stock)):
            if i not in fixed:
                c.stock[i] = next(deal)
        c._legal = c._trie = None
        return c

    def round_replay(self, seat: int):
        """The moves made since the hands were last dealt, made again from that point in this
        engine's world (for a world from ``resample_hidden``: its hands, not the true ones): yields
        ``(engine, mover, legal moves, index of the move made)`` before each move of a seat other
        than ``seat`` (index -1: the move is not legal in this world, which then cannot be the
        true one; nothing more is yielded), the one scratch engine then stepped on (read it
        before the next). Besides the hands it reads only public facts: the floor, piles and
        scores as the hands were dealt, and the moves made since."""
        if not self.round_moves:
            return
        c = self.clone()
        for mover, move in self.round_moves:
            c.hands[mover].append(move[0])
        floor, captured, suipis, c.last_capturer, c.last_capture, lost, c.turn = self.round_start
        c.floor, c.captured, c.suipis, c.lost = list(floor), [list(p) for p in captured], list(suipis), list(lost)
        c.partial_card, c.partial_items = None, []
        c._legal = c._trie = c._card_tries = None
        for mover, move in self.round_moves:
            if mover != seat:
                legal = c.legal_moves()
                chosen = legal.index(move) if move in legal else -1
                yield c, mover, legal, chosen
                if chosen < 0:
                    return
            c.play_move(move)

    def consistent_with(self, seat: int) -> bool:
        """What ``seat`` knows beyond the cards it saw is kept by ``resample_hidden`` itself here
        (the build owners' cards); the moves' legality is checked in ``round_replay``."""
        return True

    # -------------------------------------------------------------- play
    def play_move(self, move) -> DealResult | None:
        """Play one complete move of the acting seat. Returns the DealResult when the move ended
        a deal (the next deal is already dealt unless the match is over)."""
        h, mask, kind, v = move
        seat = self.turn
        hand = self.hands[seat]
        hand.remove(h)
        floor = self.floor
        self.moves_made += 1
        self.round_moves.append((seat, move))
        if kind == DROP:
            floor.append((CARD_KEY[h], self.nv[h], (h,), -1, False, h))
        elif kind == CAPTURE:
            side = self.side[seat]
            pile = self.captured[side]
            pile.append(h)
            taken = 0
            keep = []
            for i, it in enumerate(floor):
                if mask >> i & 1:
                    pile.extend(it[CARDS])
                    taken += len(it[CARDS])
                else:
                    keep.append(it)
            self.floor = floor = keep
            self.last_capturer = seat
            self.last_capture = (seat, tuple(pile[len(pile) - taken - 1 :]))
            if not keep:
                final = self.top >= len(self.stock) and not any(self.hands)
                if not final or self.config.final_capture_is_suipi:
                    self.suipis[side] += 1
        else:  # BUILD
            cards = [h]
            total = self.nv[h]
            keep = []
            for i, it in enumerate(floor):
                if mask >> i & 1:
                    cards.extend(it[CARDS])
                    total += it[NVAL]
                else:
                    keep.append(it)
            keep.append((v, v, tuple(cards), seat, total > v, min(cards)))
            self.floor = floor = keep
        self._legal = self._trie = None
        if self.partial_card is not None:  # the move composed through apply_action is played
            self.partial_card = None
            self.partial_items = []
        # advance
        self.turn = (seat + 1) % self.n
        if self.turn == (self.dealer + 1) % self.n and not any(self.hands):
            if self.top < len(self.stock):
                self._deal_round()
                self._mark_round()
            else:
                return self._end_deal()
        return None

    def _end_deal(self) -> DealResult:
        rest = [c for it in self.floor for c in it[CARDS]]
        if self.last_capturer >= 0:
            self.captured[self.side[self.last_capturer]].extend(rest)
        else:
            self.lost.extend(rest)
        self.floor = []
        res = score_deal(self.config, self.captured, self.suipis)
        for s in range(self.ns):
            self.match_scores[s] += res.scores[s]
        self.deal_results.append(res)
        self.last_result_state = (self.captured, self.suipis, self.lost)
        if self._match_over():
            self.done = True
        else:
            self._start_deal((self.dealer + 1) % self.n, None)
        return res

    def _match_over(self) -> bool:
        cfg = self.config
        played = self.deal_index + 1
        if played >= MAX_DEALS:
            return True
        ms = self.match_scores
        best = max(ms)
        tied = ms.count(best) > 1
        if cfg.target_score:
            return best >= cfg.target_score and not tied
        if played < cfg.num_deals:
            return False
        return not (cfg.break_ties and tied)

    def winner_sides(self) -> list[int]:
        best = max(self.match_scores)
        return [s for s in range(self.ns) if self.match_scores[s] == best]


def random_match(config: SuipiConfig, rng: random.Random) -> int:
    """Play one match with uniformly random legal moves; return the number of moves made."""
    e = SuipiEngine(config, rng)
    e.start_match()
    rand = rng.random
    while not e.done:
        moves = e.legal_moves()
        e.play_move(moves[int(rand() * len(moves))])
    return e.moves_made
