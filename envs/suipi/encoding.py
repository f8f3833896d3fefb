"""Suipi action ids and observation vector (pure functions; tables also in docs/suipi.md).

Actions (119 ids). A move is composed in sub-steps by the same seat:

====================  =========================================================================
id                    meaning
====================  =========================================================================
0..51                 step 1: play hand card ``c = id`` (card id = 4*rank + suit)
52..103               step 2 (repeatable): add the floor item whose representative (lowest)
                      card is ``c = id - 52``; items are added in strictly increasing ``c``
104                   finish: capture the chosen items
105..117              finish: build to value ``v = id - 104`` (1..13) with the chosen items
118                   finish: drop (trail) the hand card (no items chosen)
====================  =========================================================================

The mask allows an action only if some legal complete move extends the current prefix, so every
distinct legal outcome is reachable and nothing illegal is.

Observation (``OBS_SIZE`` float32 values in [-1, 1]); seats are relative to the observer
(0 = me, 1 = next to play after me, ...), sides relative (0 = my side), padded to 4 seats / 3 sides.
Per-card planes, 52 values each, card id order:

==  ==========================================================================================
 0  own hand
 1  loose card on the floor
 2  card inside a build on the floor
 3  floor item id of the card: (rep + 1) / 52, rep = lowest card of its item (0 if not on floor)
 4  build value / 13 (build cards only)
 5  build is locked (build cards only)
 6-9  build owner, relative seat one-hot (build cards only)
10-12  captured this deal by relative side 0/1/2
13  rejected to the bottom of the stock by the initial-floor rule and still in the stock
14  partial move: the chosen hand card (acting seat only)
15  partial move: cards of the chosen floor items (acting seat only)
==  ==========================================================================================

Scalars from offset ``SCALARS`` (= 832): see ``SCALAR_LAYOUT``.
"""

from __future__ import annotations

import numpy as np

from cardzoo.envs.cards import card_str
from cardzoo.envs.suipi.config import POINT_GAME_COURTS, POINT_GAME_PLAIN
from cardzoo.envs.suipi.engine import (  # noqa: F401 - the action ids are re-exported for callers of encoding
    BUILD0, CAPTURE_ACTION, CARDS, DROP_ACTION, ITEM0, JACK_D, KING_D, LOCKED, N_ACTIONS, NVAL, OWNER, QUEEN_D,
    REP, TEN_D, TWO_S, finish_action, item_str, move_actions,
)

P_HAND, P_LOOSE, P_BUILD, P_ITEM, P_BVAL, P_LOCK, P_OWNER = 0, 1, 2, 3, 4, 5, 6
P_CAPT, P_REJECTED, P_PART_HAND, P_PART_ITEMS = 10, 13, 14, 15
N_PLANES = 16
SCALARS = N_PLANES * 52

# Scales that keep every value inside [-1, 1]. The defaults (hands of at most 12 cards, at most 3
# rounds per deal) give the same numbers as always; larger variants (deal_sizes_2p=[24]) scale down.
HAND_SCALE = 12.0
ROUND_SCALE = 3.0
STOCK_SCALE = 48.0  # 52 cards minus the 4 floor cards


def hand_scale(config) -> float:
    return max(HAND_SCALE, config.max_round_size) if config is not None else HAND_SCALE


def round_scale(config) -> float:
    return max(ROUND_SCALE, len(config.deal_sizes)) if config is not None else ROUND_SCALE

SCALAR_LAYOUT = [  # (name, width, meaning)
    ("num_players", 3, "one-hot 2/3/4 players"),
    ("point_game_23", 1, "1 in the 23-point game"),
    ("dealer", 4, "dealer, relative seat one-hot"),
    ("to_move", 4, "acting seat, relative one-hot"),
    ("hand_sizes", 4, "cards in hand per relative seat / max(12, largest round size)"),
    ("stock", 1, "stock size / 48"),
    ("round", 1, "round index / max(3, rounds per deal)"),
    ("deal", 1, "deal index / number of deals (clipped)"),
    ("suipis", 3, "suipis this deal per relative side / 10 (clipped)"),
    ("match_score", 3, "cumulative match score per relative side / (point game * deals) (clipped)"),
    ("captured_summary", 24, "per relative side: cards/52, spades/13, aces/4, 10♦, 2♠, J♦, Q♦, K♦"),
    ("last_capturer", 5, "relative seat one-hot, or slot 4 = nobody yet"),
    ("partial", 2, "hand card chosen (1/0), number of items chosen / 13 (acting seat only)"),
]
_off = SCALARS
OFFSETS = {}
for _name, _w, _ in SCALAR_LAYOUT:
    OFFSETS[_name] = _off
    _off += _w
OBS_SIZE = _off


def action_text(action: int, floor=None) -> str:
    """Sub-step text: ``play 5♣``, ``with 3♦`` / ``with [8♠+2♥=10]``, ``take``, ``build 10``, ``drop``."""
    if 0 <= action < 52:
        return f"play {card_str(action)}"
    if action < 104:
        c = action - ITEM0
        if floor is not None:
            for it in floor:
                if it[REP] == c:
                    return f"with {item_str(it)}"
        return f"with {card_str(c)}"
    if action == CAPTURE_ACTION:
        return "take"
    if action == DROP_ACTION:
        return "drop"
    if action < N_ACTIONS:
        return f"build {action - BUILD0}"
    return f"action {action}"


_SPADE = [1 if (c & 3) == 0 else 0 for c in range(52)]
_PILE_CACHE: dict = {}


def _pile_summary(pile, r, courts):
    """Observation entries of one captured pile seen as relative side ``r`` (memoised: piles are
    small sets that recur across steps)."""
    key = (tuple(pile), r, courts)
    hit = _PILE_CACHE.get(key)
    if hit is not None:
        return hit
    base = OFFSETS["captured_summary"] + 8 * r
    off = (P_CAPT + r) * 52
    ones = [off + c for c in pile]
    vpos = [base, base + 1]
    vv = [len(pile) / 52.0, sum([_SPADE[c] for c in pile]) / 13.0]
    aces = sum([1 for c in pile if c < 4])
    if aces:
        vpos.append(base + 2)
        vv.append(aces / 4.0)
    for j, special in ((3, TEN_D), (4, TWO_S), (5, JACK_D), (6, QUEEN_D), (7, KING_D)):
        if (j < 5 or courts) and special in pile:
            ones.append(base + j)
    if len(_PILE_CACHE) > 4096:
        _PILE_CACHE.clear()
    hit = _PILE_CACHE[key] = (ones, vpos, vv)
    return hit


def encode(engine, seat: int, partial: bool = True, out: np.ndarray | None = None) -> np.ndarray:
    """Observation of ``seat``; with ``partial`` it includes the move the acting seat is composing
    (``engine.partial_card`` / ``partial_items``, shown to the acting seat only)."""
    o = np.zeros(OBS_SIZE, dtype=np.float32) if out is None else out
    if out is not None:
        o.fill(0.0)
    n = engine.n
    ns = engine.ns
    my_side = engine.side[seat]
    idx = list(engine.hands[seat])  # plane 0; positions set to 1.0
    vidx: list[int] = []  # positions with other values
    vals: list[float] = []
    for it in engine.floor:
        cards = it[CARDS]
        rep = it[REP]
        owner = it[OWNER]
        rv = (rep + 1) / 52.0
        if owner < 0:
            idx.append(52 + rep)
            vidx.append(156 + rep)
            vals.append(rv)
        else:
            val = it[NVAL] / 13.0
            ob = (P_OWNER + (owner - seat) % n) * 52
            lk = it[LOCKED]
            for c in cards:
                idx.append(104 + c)
                idx.append(ob + c)
                if lk:
                    idx.append(260 + c)
                vidx.append(156 + c)
                vals.append(rv)
                vidx.append(208 + c)
                vals.append(val)
    b1, b2 = OFFSETS["suipis"], OFFSETS["match_score"]
    cfg = engine.config
    courts = cfg.court_values
    norm = float(cfg.point_game * cfg.num_deals)
    for s in range(ns):
        pile = engine.captured[s]
        r = (s - my_side) % ns
        if pile:
            ones, vpos, vv = _pile_summary(pile, r, courts)
            idx.extend(ones)
            vidx.extend(vpos)
            vals.extend(vv)
        vidx.append(b1 + r)
        vals.append(min(1.0, engine.suipis[s] / 10.0))
        vidx.append(b2 + r)
        vals.append(min(1.0, engine.match_scores[s] / norm))
    if engine.rejected:
        top = engine.top
        for c, pos in engine.rejected:
            if pos >= top:  # still in the stock (not yet dealt)
                idx.append(P_REJECTED * 52 + c)
    # scalars
    idx.append(OFFSETS["num_players"] + n - 2)
    if courts:
        idx.append(OFFSETS["point_game_23"])
    idx.append(OFFSETS["dealer"] + (engine.dealer - seat) % n)
    if not engine.done:
        idx.append(OFFSETS["to_move"] + (engine.turn - seat) % n)
    b = OFFSETS["hand_sizes"]
    hands = engine.hands
    hs = hand_scale(cfg)
    for s in range(n):
        vidx.append(b + (s - seat) % n)
        vals.append(len(hands[s]) / hs)
    vidx.append(OFFSETS["stock"])
    vals.append(engine.stock_size / STOCK_SCALE)
    vidx.append(OFFSETS["round"])
    vals.append(engine.round / round_scale(cfg))
    vidx.append(OFFSETS["deal"])
    vals.append(min(1.0, engine.deal_index / max(1, cfg.num_deals)))
    lc = engine.last_capturer
    idx.append(OFFSETS["last_capturer"] + ((lc - seat) % n if lc >= 0 else 4))
    o[idx] = 1.0
    o[vidx] = vals
    if partial:
        add_partial(o, engine, seat)
    return o


def add_partial(o: np.ndarray, engine, seat: int) -> np.ndarray:
    """Write the move being composed (planes 14-15 and the ``partial`` scalars) into ``o`` when
    ``seat`` is the acting seat; other seats never see it."""
    card = engine.partial_card
    if card is None or seat != engine.turn or engine.done:
        return o
    o[P_PART_HAND * 52 + card] = 1.0
    chosen = engine.partial_items
    if chosen:
        for it in engine.floor:
            if it[REP] in chosen:
                for c in it[CARDS]:
                    o[P_PART_ITEMS * 52 + c] = 1.0
    o[OFFSETS["partial"]] = 1.0
    o[OFFSETS["partial"] + 1] = len(chosen) / 13.0
    return o


# ------------------------------------------------------------------ decoding (for bots)
class ObsView:
    """What a seat sees, decoded from its observation vector."""

    __slots__ = ("num_players", "point_game", "hand", "floor", "captured", "rejected",
                 "partial_hand", "partial_items", "hand_sizes", "stock", "suipis", "dealer",
                 "to_move", "round")

    def __repr__(self):
        return f"ObsView(hand={self.hand}, floor={self.floor}, partial=({self.partial_hand}, {self.partial_items}))"


def decode(obs, config=None) -> ObsView:
    """Rebuild hand, floor items (as engine tuples, owner = relative seat) and the partial move
    from an observation vector. Exact: uses only the planes documented above. ``config`` gives
    the scales of hand sizes and rounds (the defaults when None)."""
    o = np.asarray(obs, dtype=np.float32)
    v = ObsView()
    v.num_players = int(np.argmax(o[OFFSETS["num_players"]:OFFSETS["num_players"] + 3])) + 2
    v.point_game = POINT_GAME_COURTS if o[OFFSETS["point_game_23"]] > 0.5 else POINT_GAME_PLAIN
    n = v.num_players
    v.hand = [int(c) for c in np.flatnonzero(o[0:52] > 0.5)]
    on_floor = np.flatnonzero(o[156:208] > 0)
    groups: dict[int, list[int]] = {}
    for c in on_floor:
        rep = int(round(float(o[156 + c]) * 52)) - 1
        groups.setdefault(rep, []).append(int(c))
    floor = []
    for rep in sorted(groups):
        cards = tuple(sorted(groups[rep]))
        if o[52 + rep] > 0.5 and len(cards) == 1:
            c = cards[0]
            key = (c >> 2) + 1
            nval = key if (v.point_game == POINT_GAME_COURTS or key <= 10) else 0
            floor.append((key, nval, cards, -1, False, rep))
        else:
            val = int(round(float(o[208 + rep]) * 13))
            owner = int(np.argmax(o[P_OWNER * 52 + rep:(P_OWNER + 4) * 52:52]))
            floor.append((val, val, cards, owner, bool(o[260 + rep] > 0.5), rep))
    v.floor = floor
    v.captured = [np.flatnonzero(o[(P_CAPT + r) * 52:(P_CAPT + r + 1) * 52] > 0.5).tolist() for r in range(3)]
    v.rejected = np.flatnonzero(o[P_REJECTED * 52:(P_REJECTED + 1) * 52] > 0.5).tolist()
    ph = np.flatnonzero(o[P_PART_HAND * 52:(P_PART_HAND + 1) * 52] > 0.5)
    v.partial_hand = int(ph[0]) if len(ph) else None
    chosen = set(np.flatnonzero(o[P_PART_ITEMS * 52:(P_PART_ITEMS + 1) * 52] > 0.5).tolist())
    v.partial_items = [it[REP] for it in floor if it[REP] in chosen]
    b = OFFSETS["hand_sizes"]
    v.hand_sizes = [int(round(float(o[b + r]) * hand_scale(config))) for r in range(n)]
    v.stock = int(round(float(o[OFFSETS["stock"]]) * STOCK_SCALE))
    v.suipis = [int(round(float(o[OFFSETS["suipis"] + r]) * 10)) for r in range(3)]
    v.dealer = int(np.argmax(o[OFFSETS["dealer"]:OFFSETS["dealer"] + 4]))
    v.to_move = int(np.argmax(o[OFFSETS["to_move"]:OFFSETS["to_move"] + 4]))
    v.round = int(round(float(o[OFFSETS["round"]]) * round_scale(config)))
    return v
