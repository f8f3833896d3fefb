"""Suipi rules engine (docs/rules/suipi.md S1-S18 and the variants table 1.5).

Pure Python, no gymnasium/pettingzoo imports. It speaks the engine protocol (envs/protocol.py)
with the sub-step action ids below: a move is composed by the same seat (hand card, floor items,
finish), and ``apply_action`` plays it when the finishing id comes. Cards are the shared small
ints of envs/cards.py (id = 4 * rank + suit, suits ♠ ♣ ♦ ♥); Suipi's card values and points are
in cards.py, legal-move generation in moves.py.

Floor items are immutable tuples ``(key, nval, cards, owner, locked, rep)``:

* ``key``    1..13: the value used by the unique-floor rule S12 (A=1 .. 10=10, J/Q/K = 11/12/13;
  in the 11-point game a loose court card has key 11..13 but no numeric value);
* ``nval``   numeric value (0 for a court card in the 11-point game); a build's value;
* ``cards``  tuple of card ids;
* ``owner``  -1 for a loose card, else the seat owning the build;
* ``locked`` True for a multiple build (two or more groups);
* ``rep``    the item's representative card = its lowest card id (used by the action encoding).

A complete move is a tuple ``(hand_card, mask, kind, value)`` (see moves.py).
"""

from __future__ import annotations

import random

from cardzoo.envs.cards import card_str
from cardzoo.envs.protocol import GameEngine, StepOutcome, ranks_from_scores
from cardzoo.envs.suipi.config import MAX_DEALS, SuipiConfig

# The card tables and move generation, re-exported for the callers that import them from here.
from cardzoo.envs.suipi.cards import (  # noqa: F401
    ACES, CARD_KEY, IS_SPADE, JACK_D, KING_D, NVAL_11, NVAL_23, POINTS_11, POINTS_23, QUEEN_D, TEN_D, TWO_S,
    card_points, card_values,
)
from cardzoo.envs.suipi.moves import (  # noqa: F401
    BUILD, CAPTURE, CARDS, DROP, KEY, LOCKED, NVAL, OWNER, REP, _loose_subsets, _unions, legal_moves,
)

# Action ids (119) of the sub-step protocol; the table is in encoding.py and docs/suipi.md.
N_ACTIONS = 119
ITEM0 = 52  # 52..103: add the floor item whose lowest card is id - 52
CAPTURE_ACTION = 104  # finish: capture the chosen items
BUILD0 = 104  # 105..117: finish: build to value id - 104
DROP_ACTION = 118  # finish: drop the hand card


def side_of(seat: int, num_players: int) -> int:
    """S1: with 4 players the partners sit opposite (seats 0, 2 and 1, 3); otherwise alone."""
    return seat % 2 if num_players == 4 else seat


def teams(num_players: int) -> list[list[int]]:
    """The seats of every side: [[0, 2], [1, 3]] with 4 players, one seat each otherwise."""
    sides: dict[int, list[int]] = {}
    for seat in range(num_players):
        sides.setdefault(side_of(seat, num_players), []).append(seat)
    return list(sides.values())


def item_str(item) -> str:
    """``3♦`` for a loose card, ``[8♠+2♥=10]`` for a build (``=7L`` when locked)."""
    if item[OWNER] < 0:
        return card_str(item[CARDS][0])
    inner = "+".join(card_str(c) for c in sorted(item[CARDS]))
    return f"[{inner}={item[NVAL]}{'L' if item[LOCKED] else ''}]"


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
        return (f"DealResult(cards={self.cards}, spades={self.spades}, points={self.points}, "
                f"suipis={self.suipis}, scores={self.scores})")


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
        self._trie = None
        self._start_deal(first_dealer, deck)

    def _start_deal(self, dealer: int, deck: list[int] | None) -> None:
        self.deal_index += 1
        self.dealer = dealer
        if deck is None:
            deck = list(range(52))
            self.rng.shuffle(deck)
        self.stock = list(deck)  # index 0 = top
        self.top = 0
        self.hands = [[] for _ in range(self.n)]
        self.floor = []
        self.captured = [[] for _ in range(self.ns)]
        self.suipis = [0] * self.ns
        self.lost: list[int] = []  # floor cards nobody took (no capture in the whole deal)
        self.last_capturer = -1
        self.round = -1
        self.rejected: list[tuple[int, int]] = []  # (card, stock index) sent to the bottom by S5 (public)
        sizes = self.config.deal_sizes
        if len(sizes) == 1:  # whole deck in one round: lay the floor first (documented)
            self._lay_floor()
            self._deal_round()
        else:
            self._deal_round()
            self._lay_floor()
        self._legal = None

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

    def clone(self) -> "SuipiEngine":
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

    def legal_moves(self) -> list:
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
        return (self.partial_card, *(ITEM0 + r for r in self.partial_items))

    def move_trie(self) -> tuple[dict, dict]:
        """(prefix -> sorted next ids, complete id sequence -> move) over the legal moves; built
        once per position (sub-steps of one move share it)."""
        if self._trie is None:
            floor = self.floor
            trie: dict[tuple, list] = {}
            full: dict[tuple, tuple] = {}
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
        if self.done:
            return []
        return self.move_trie()[0][self.partial_prefix()]

    def finishing_move(self, action: int):
        """The complete move that the finishing id ``action`` plays now."""
        return self.move_trie()[1][self.partial_prefix() + (action,)]

    def apply_action(self, action: int) -> StepOutcome:
        """Trusted: one legal sub-step. A finishing id plays the move; the deal it ends pays each
        seat its side's zero-sum score difference / point game (S17)."""
        if action < ITEM0:
            self.partial_card = action
            return StepOutcome()
        if action < CAPTURE_ACTION:
            self.partial_items.append(action - ITEM0)
            return StepOutcome()
        res = self.play_move(self.finishing_move(action))
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

    def resample_hidden(self, seat: int, rng: random.Random) -> "SuipiEngine":
        """A clone in which the other hands (the partner's too) and the stock are dealt anew,
        keeping what ``seat`` knows or can be sure of: the cards the initial-floor rule sent to
        the bottom of the stock, a card of each build's value in its owner's hand (S11), and the
        whole hand of another seat that is composing a move (its move stays legal)."""
        c = self.clone()
        fixed = {pos for _, pos in c.rejected if pos >= c.top}
        keep: list[set] = [set() for _ in range(c.n)]
        if c.partial_card is not None and c.turn != seat:
            keep[c.turn] = set(c.hands[c.turn])
        for it in c.floor:
            owner = it[OWNER]
            if owner >= 0 and owner != seat and not any(c.nv[x] == it[NVAL] for x in keep[owner]):
                keep[owner].add(next(x for x in c.hands[owner] if c.nv[x] == it[NVAL]))
        pool = [card for s in range(c.n) if s != seat for card in c.hands[s] if card not in keep[s]]
        pool += [c.stock[i] for i in range(c.top, len(c.stock)) if i not in fixed]
        rng.shuffle(pool)
        deal = iter(pool)
        for s in range(c.n):
            if s != seat:
                c.hands[s] = [card if card in keep[s] else next(deal) for card in c.hands[s]]
        for i in range(c.top, len(c.stock)):
            if i not in fixed:
                c.stock[i] = next(deal)
        c._legal = c._trie = None
        return c

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
        if kind == DROP:
            floor.append((CARD_KEY[h], self.nv[h], (h,), -1, False, h))
        elif kind == CAPTURE:
            side = self.side[seat]
            pile = self.captured[side]
            pile.append(h)
            keep = []
            for i, it in enumerate(floor):
                if mask >> i & 1:
                    pile.extend(it[CARDS])
                else:
                    keep.append(it)
            self.floor = floor = keep
            self.last_capturer = seat
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


def finish_action(kind: int, v: int) -> int:
    return CAPTURE_ACTION if kind == CAPTURE else DROP_ACTION if kind == DROP else BUILD0 + v


def move_actions(floor, move) -> tuple:
    """The sub-step action ids that play ``move`` on ``floor``."""
    h, mask, kind, v = move
    fin = CAPTURE_ACTION if kind == CAPTURE else DROP_ACTION if kind == DROP else BUILD0 + v
    if not mask:
        return (h, fin)
    acts = []
    i = 0
    while mask:
        if mask & 1:
            acts.append(ITEM0 + floor[i][REP])
        mask >>= 1
        i += 1
    acts.sort()
    return (h, *acts, fin)


def move_text(floor, move) -> str:
    """Canonical move text: ``5♣ take 3♦+2♠``, ``2♥ build 10 on 8♠``, ``J♣ drop``.
    Items are listed in increasing order of their representative (lowest) card."""
    h, mask, kind, v = move
    if kind == DROP:
        return f"{card_str(h)} drop"
    items = sorted((floor[i] for i in range(len(floor)) if mask >> i & 1), key=lambda it: it[REP])
    listing = "+".join(item_str(it) for it in items)
    if kind == CAPTURE:
        return f"{card_str(h)} take {listing}"
    return f"{card_str(h)} build {v} on {listing}"


def random_match(config: SuipiConfig, rng: random.Random) -> int:
    """Play one match with uniformly random legal moves; return the number of moves made."""
    e = SuipiEngine(config, rng)
    e.start_match()
    rand = rng.random
    while not e.done:
        moves = e.legal_moves()
        e.play_move(moves[int(rand() * len(moves))])
    return e.moves_made

