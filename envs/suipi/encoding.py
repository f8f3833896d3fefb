"""Suipi's observation: what one seat may know (rules 1.7), as a float32 vector in [-1, 1].

Seats are relative to the observer (0 = me, 1 = next to play after me, ...), sides relative
(0 = my side), padded to 4 seats / 3 sides. Sixteen per-card planes of 52 values (card id order,
index ``plane * 52 + card``) come first, then the scalars. The pieces are declared once, in
``LAYOUT`` below (docs/suipi.md shows its ``table()``). ``encode`` writes an observation (the
definition, from scratch), ``Encoder`` gives the same vectors faster (see its docstring),
``decode`` reads one back into an ``ObsView`` (exactly: the rule bot uses it).
"""

from __future__ import annotations

from bisect import bisect_left

import numpy as np

from cardzoo.envs.layout import Layout, Piece, float_view
from cardzoo.envs.suipi.actions import CARDS, LOCKED, NVAL, OWNER, REP, Item
from cardzoo.envs.suipi.config import POINT_GAME_COURTS, POINT_GAME_PLAIN
from cardzoo.envs.suipi.engine import JACK_D, KING_D, QUEEN_D, TEN_D, TWO_S, SuipiEngine

LAYOUT = Layout(
    [
        # per-card planes
        Piece("hand", 52, "own hand"),
        Piece("loose", 52, "loose card on the floor"),
        Piece("build", 52, "card inside a build"),
        Piece("item", 52, "floor item id: (rep + 1)/52 where rep = lowest card of the card's item"),
        Piece("build_value", 52, "build value / 13 (build cards)"),
        Piece("locked", 52, "build locked (build cards)"),
        Piece("owner", 4 * 52, "build owner, relative seat one-hot (build cards)", blocks=4),
        Piece("captured", 3 * 52, "captured this deal by relative side 0/1/2 (captures are public)", blocks=3),
        Piece("rejected", 52, "rejected to the bottom by S5 and still in the stock (public)"),
        Piece("partial_hand", 52, "partial move: the chosen hand card (acting seat only)"),
        Piece("partial_items", 52, "partial move: cards of the chosen items (acting seat only)"),
        # scalars
        Piece("num_players", 3, "number of players one-hot (2, 3, 4)"),
        Piece("point_game_23", 1, "23-point game"),
        Piece("dealer", 4, "dealer, relative seat one-hot"),
        Piece("to_move", 4, "acting seat, relative one-hot"),
        Piece("hand_sizes", 4, "hand sizes per relative seat / max(12, the largest round of the deal)"),
        Piece("stock", 1, "stock size / 48"),
        Piece("round", 1, "round index / max(3, rounds per deal)"),
        Piece("deal", 1, "deal index / number of deals (clipped)"),
        Piece("suipis", 3, "suipis this deal per relative side / 10 (clipped)"),
        Piece("match_score", 3, "match score per relative side / (point game · deals) (clipped)"),
        Piece(
            "captured_summary",
            3 * 8,
            "per relative side: cards/52, spades/13, aces/4, 10♦, 2♠, J♦, Q♦, K♦ (the last three in the 23-point game)",
            blocks=3,
        ),
        Piece("last_capturer", 5, "last capturer, relative seat one-hot; slot 4 = nobody yet"),
        Piece("partial", 2, "partial move: hand card chosen, items chosen / 13 (acting seat only)"),
    ]
)


def layout(config=None) -> Layout:
    """The layout of every configuration."""
    return LAYOUT


OBS_SIZE = LAYOUT.size  # 888
OFFSETS = {p.name: LAYOUT.offset(p.name) for p in LAYOUT}
# Plane numbers (a plane is 52 values: ``plane * 52 + card``) of the per-card pieces
P_HAND, P_LOOSE, P_BUILD, P_ITEM, P_BVAL, P_LOCK, P_OWNER = (
    OFFSETS[p] // 52 for p in ("hand", "loose", "build", "item", "build_value", "locked", "owner")
)
P_CAPT, P_REJECTED, P_PART_HAND, P_PART_ITEMS = (
    OFFSETS[p] // 52 for p in ("captured", "rejected", "partial_hand", "partial_items")
)
O_HAND, O_LOOSE, O_BUILD, O_ITEM, O_BVAL, O_LOCK = (
    OFFSETS[p] for p in ("hand", "loose", "build", "item", "build_value", "locked")
)
SCALARS = OFFSETS["num_players"]  # where the per-card planes end (832)
N_PLANES = SCALARS // 52

# Scales that keep every value inside [-1, 1]. The defaults (hands of at most 12 cards, at most 3
# rounds per deal) give the same numbers as always; larger variants (deal_sizes_2p=[24]) scale down.
HAND_SCALE = 12.0
ROUND_SCALE = 3.0
STOCK_SCALE = 48.0  # 52 cards minus the 4 floor cards


def hand_scale(config) -> float:
    return max(HAND_SCALE, config.max_round_size) if config is not None else HAND_SCALE


def round_scale(config) -> float:
    return max(ROUND_SCALE, len(config.deal_sizes)) if config is not None else ROUND_SCALE


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
    idx = list(engine.hands[seat])  # the hand (offset 0); positions set to 1.0
    vidx: list[int] = []  # positions with other values
    vals: list[float] = []
    for it in engine.floor:
        cards = it[CARDS]
        rep = it[REP]
        owner = it[OWNER]
        rv = (rep + 1) / 52.0
        if owner < 0:
            idx.append(O_LOOSE + rep)
            vidx.append(O_ITEM + rep)
            vals.append(rv)
        else:
            val = it[NVAL] / 13.0
            ob = (P_OWNER + (owner - seat) % n) * 52
            lk = it[LOCKED]
            for c in cards:
                idx.append(O_BUILD + c)
                idx.append(ob + c)
                if lk:
                    idx.append(O_LOCK + c)
                vidx.append(O_ITEM + c)
                vals.append(rv)
                vidx.append(O_BVAL + c)
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


class Encoder:
    """The observations of one engine, kept up to date as its moves are played.

    Per seat it keeps a vector with the constants and the captured piles (their planes and
    summaries), which only grow during a deal: each captured card is written once. Per position
    (complete move) it makes the acting seat's vector once — the kept one plus the hand, the
    floor and the scalars — which the sub-steps of that move share; each step adds the move being
    composed to a copy (``add_partial``).

    It reads the engine only, so moves applied to it directly (search) are seen too: positions are
    told apart by ``engine.moves_made`` (and the deal's hands), piles by identity and length. ``observe(seat)`` always
    equals ``encode(engine, seat)`` (tests/test_encoders.py).
    """

    def __init__(self, engine: SuipiEngine):
        self.engine = engine
        self._seats: list[_SeatVector | None] = [None] * engine.n
        self._position: tuple | None = None  # (moves made, the deal's hands, seat, vector)
        cfg = engine.config  # the scales, once (not a min/max call per observation)
        self._hand_scale, self._round_scale = hand_scale(cfg), round_scale(cfg)
        self._deals, self._score_scale = max(1, cfg.num_deals), float(cfg.point_game * cfg.num_deals)

    def observe(self, seat: int) -> np.ndarray:
        e = self.engine
        pos = self._position
        if pos is None or pos[0] != e.moves_made or pos[1] is not e.hands or pos[2] != seat:
            pos = self._position = (e.moves_made, e.hands, seat, self._position_vector(seat))
        return add_partial(pos[3].copy(), e, seat)

    def _position_vector(self, seat: int) -> np.ndarray:
        """``encode(engine, seat, partial=False)``: the kept vector brought up to date, plus the
        pieces that change with every move."""
        e = self.engine
        sv = self._seats[seat]
        if sv is None:
            sv = self._seats[seat] = _SeatVector(e, seat)
        sv.follow(e)
        vec = sv.vec.copy()
        v = float_view(vec)  # item writes through it: cheaper than numpy's, same float32 rounding
        n = e.n
        for c in e.hands[seat]:
            v[c] = 1.0
        for it in e.floor:
            rep = it[REP]
            owner = it[OWNER]
            rv = (rep + 1) / 52.0
            if owner < 0:
                v[O_LOOSE + rep] = 1.0
                v[O_ITEM + rep] = rv
            else:
                val = it[NVAL] / 13.0
                ob = (P_OWNER + (owner - seat) % n) * 52
                lk = it[LOCKED]
                for c in it[CARDS]:
                    v[O_BUILD + c] = 1.0
                    v[ob + c] = 1.0
                    if lk:
                        v[O_LOCK + c] = 1.0
                    v[O_ITEM + c] = rv
                    v[O_BVAL + c] = val
        ns, my_side = e.ns, e.side[seat]
        for s in range(ns):  # x if x < 1.0 else 1.0 is min(1.0, x), without the call
            r = (s - my_side) % ns
            x = e.suipis[s] / 10.0
            v[_SUIPIS + r] = x if x < 1.0 else 1.0
            x = e.match_scores[s] / self._score_scale
            v[_MATCH_SCORE + r] = x if x < 1.0 else 1.0
        if e.rejected:
            top = e.top
            for c, where in e.rejected:
                if where >= top:  # still in the stock (not yet dealt)
                    v[P_REJECTED * 52 + c] = 1.0
        v[_DEALER + (e.dealer - seat) % n] = 1.0
        if not e.done:
            v[_TO_MOVE + (e.turn - seat) % n] = 1.0
        hands, hs = e.hands, self._hand_scale
        for s in range(n):
            v[_HAND_SIZES + (s - seat) % n] = len(hands[s]) / hs
        v[_STOCK] = (len(e.stock) - e.top) / STOCK_SCALE
        v[_ROUND] = e.round / self._round_scale
        x = e.deal_index / self._deals
        v[_DEAL] = x if x < 1.0 else 1.0
        lc = e.last_capturer
        v[_LAST_CAPTURER + ((lc - seat) % n if lc >= 0 else 4)] = 1.0
        return vec


_SUIPIS, _MATCH_SCORE, _DEALER, _TO_MOVE, _HAND_SIZES, _STOCK, _ROUND, _DEAL, _LAST_CAPTURER, _SUMMARY = (
    OFFSETS[p]
    for p in (
        "suipis",
        "match_score",
        "dealer",
        "to_move",
        "hand_sizes",
        "stock",
        "round",
        "deal",
        "last_capturer",
        "captured_summary",
    )
)
# captured_summary flags: card -> entry of the 8 per side (J♦ Q♦ K♦ only in the 23-point game)
_FLAGS = {TEN_D: 3, TWO_S: 4}
_COURT_FLAGS = {TEN_D: 3, TWO_S: 4, JACK_D: 5, QUEEN_D: 6, KING_D: 7}


class _SeatVector:
    """One seat's kept vector: the constants and the captured piles as far as written."""

    __slots__ = ("vec", "mem", "seat", "piles")

    def __init__(self, e: SuipiEngine, seat: int):
        self.vec = np.zeros(OBS_SIZE, dtype=np.float32)
        self.mem = float_view(self.vec)  # for item writes (see Encoder._position_vector)
        self.seat = seat
        self.vec[OFFSETS["num_players"] + e.n - 2] = 1.0
        if e.config.court_values:
            self.vec[OFFSETS["point_game_23"]] = 1.0
        self.piles: list[list] = [[None, 0, 0, 0] for _ in range(e.ns)]  # per side: pile, cards written, spades, aces

    def follow(self, e: SuipiEngine) -> None:
        """Write the cards captured since the last call (a new deal's piles start afresh)."""
        v = self.mem
        ns = e.ns
        my_side = e.side[self.seat]
        flags = _COURT_FLAGS if e.config.court_values else _FLAGS
        for s in range(ns):
            pile = e.captured[s]
            kept = self.piles[s]
            if kept[0] is pile and kept[1] == len(pile):
                continue
            r = (s - my_side) % ns
            plane = (P_CAPT + r) * 52
            summary = _SUMMARY + 8 * r
            if kept[0] is not pile:  # a new deal
                self.vec[plane : plane + 52] = 0.0
                self.vec[summary : summary + 8] = 0.0
                kept[:] = [pile, 0, 0, 0]
            spades, aces = kept[2], kept[3]
            for c in pile[kept[1] :]:
                v[plane + c] = 1.0
                spades += _SPADE[c]
                if c < 4:
                    aces += 1
                j = flags.get(c)
                if j is not None:
                    v[summary + j] = 1.0
            kept[1:] = [len(pile), spades, aces]
            v[summary] = len(pile) / 52.0
            v[summary + 1] = spades / 13.0
            v[summary + 2] = aces / 4.0


# ------------------------------------------------------------------ decoding (for bots)
class ObsView:
    """What a seat sees, decoded from its observation vector."""

    __slots__ = (
        "num_players",
        "point_game",
        "hand",
        "floor",
        "captured",
        "rejected",
        "partial_hand",
        "partial_items",
        "hand_sizes",
        "stock",
        "suipis",
        "dealer",
        "to_move",
        "round",
    )
    num_players: int
    point_game: int
    hand: list[int]
    floor: list[Item]  # owners as relative seats
    captured: list[list[int]]  # by relative side
    rejected: list[int]
    partial_hand: int | None
    partial_items: list[int]
    hand_sizes: list[int]  # by relative seat
    stock: int
    suipis: list[int]  # by relative side
    dealer: int
    to_move: int
    round: int

    def __repr__(self):
        return f"ObsView(hand={self.hand}, floor={self.floor}, partial=({self.partial_hand}, {self.partial_items}))"


_S = {p.name: LAYOUT.slice(p.name) for p in LAYOUT}  # the pieces' slices, for decode


def decode(obs, config=None) -> ObsView:
    """Rebuild hand, floor items (as engine tuples, owner = relative seat) and the partial move
    from an observation vector. Exact: uses only the pieces of ``LAYOUT``. ``config`` gives
    the scales of hand sizes and rounds (the defaults when None)."""
    o = np.asarray(obs, dtype=np.float32)
    v = ObsView()
    v.num_players = int(np.argmax(o[_S["num_players"]])) + 2
    v.point_game = POINT_GAME_COURTS if o[OFFSETS["point_game_23"]] > 0.5 else POINT_GAME_PLAIN
    n = v.num_players
    on = np.flatnonzero(o > 0.5).tolist()  # one scan for every 0/1 piece below (a hot path of the bots)

    def ones(piece: slice) -> list[int]:
        return [i - piece.start for i in on[bisect_left(on, piece.start) : bisect_left(on, piece.stop)]]

    v.hand = ones(_S["hand"])
    item_piece = _S["item"]
    on_floor = np.flatnonzero(o[item_piece] > 0)
    reps = np.rint(o[item_piece][on_floor].astype(np.float64) * 52).astype(int) - 1
    groups: dict[int, list[int]] = {}
    for c, rep in zip(on_floor.tolist(), reps.tolist()):
        groups.setdefault(rep, []).append(c)
    loose, locked = o[_S["loose"]], o[_S["locked"]]
    bval, owner_start = o[_S["build_value"]], _S["owner"].start
    floor: list[Item] = []
    for rep in sorted(groups):
        cards = tuple(sorted(groups[rep]))
        if loose[rep] > 0.5 and len(cards) == 1:
            c = cards[0]
            key = (c >> 2) + 1
            nval = key if (v.point_game == POINT_GAME_COURTS or key <= 10) else 0
            floor.append((key, nval, cards, -1, False, rep))
        else:
            val = round(float(bval[rep]) * 13)
            owner = int(np.argmax(o[owner_start + rep : owner_start + 4 * 52 : 52]))
            floor.append((val, val, cards, owner, bool(locked[rep] > 0.5), rep))
    v.floor = floor
    captured = _S["captured"]
    v.captured = [ones(slice(captured.start + 52 * k, captured.start + 52 * (k + 1))) for k in range(3)]
    v.rejected = ones(_S["rejected"])
    ph = ones(_S["partial_hand"])
    v.partial_hand = ph[0] if ph else None
    chosen = set(ones(_S["partial_items"]))
    v.partial_items = [it[REP] for it in floor if it[REP] in chosen]
    hs = hand_scale(config)
    v.hand_sizes = [round(float(x) * hs) for x in o[_S["hand_sizes"]][:n]]
    v.stock = round(float(o[OFFSETS["stock"]]) * STOCK_SCALE)
    v.suipis = [round(float(x) * 10) for x in o[_S["suipis"]]]
    v.dealer = int(np.argmax(o[_S["dealer"]]))
    v.to_move = int(np.argmax(o[_S["to_move"]]))
    v.round = round(float(o[OFFSETS["round"]]) * round_scale(config))
    return v


def view_of(engine: SuipiEngine, seat: int) -> ObsView:
    """``decode(encode(engine, seat))`` without the vector: the same ``ObsView``, field for field
    (tests/test_encoders.py checks it after every move), built from the public state and the seat's
    own hand only — the pieces ``encode`` writes for this seat. The collectors read their learner
    seats' moves through it (``WholeMoves.read_seat``); everyone else decodes the observation."""
    e = engine
    n, ns = e.n, e.ns
    v = ObsView()
    v.num_players = n
    courts = e.config.court_values
    v.point_game = POINT_GAME_COURTS if courts else POINT_GAME_PLAIN
    v.hand = sorted(e.hands[seat])
    floor: list[Item] = []
    for it in sorted(e.floor, key=lambda item: item[REP]):
        rep = it[REP]
        if it[OWNER] < 0:
            key = (rep >> 2) + 1
            floor.append((key, key if (courts or key <= 10) else 0, (rep,), -1, False, rep))
        else:
            val = it[NVAL]
            floor.append((val, val, tuple(sorted(it[CARDS])), (it[OWNER] - seat) % n, bool(it[LOCKED]), rep))
    v.floor = floor
    captured: list[list[int]] = [[], [], []]
    my_side = e.side[seat]
    for s in range(ns):
        captured[(s - my_side) % ns] = sorted(e.captured[s])
    v.captured = captured
    top = e.top
    v.rejected = sorted(c for c, where in e.rejected if where >= top)
    acting = seat == e.turn and not e.done and e.partial_card is not None
    v.partial_hand = e.partial_card if acting else None
    chosen = set(e.partial_items) if acting else ()
    v.partial_items = [it[REP] for it in floor if it[REP] in chosen]
    v.hand_sizes = [len(e.hands[(seat + k) % n]) for k in range(n)]
    v.stock = e.stock_size
    suipis = [0, 0, 0]
    for s in range(ns):
        suipis[(s - my_side) % ns] = min(10, e.suipis[s])
    v.suipis = suipis
    v.dealer = (e.dealer - seat) % n
    v.to_move = 0 if e.done else (e.turn - seat) % n
    v.round = e.round
    return v
