"""Sam Sip's observation: what one seat may know (rules 2.7), as a float32 vector in [-1, 1].

Seats are *relative*: rel 0 is the observing seat, rel k the k-th seat after it in play order
(seat ``(me + k) mod n``); slots for rel >= n are zero (padding to 6 players).
A *kind* block has 53 entries: entry c for standard card c, entry 52 for "a joker", which holds a
count / 3 where several jokers can be meant. The pieces are declared once, in ``LAYOUT`` below
(docs/samsip.md shows its ``table()``). ``encode`` computes a seat's vector from scratch (the
definition), ``Encoder`` gives the same vectors faster (see its docstring), ``decode`` reads one
back for the bots, and ``view_of`` reads the same from the engine without a vector.
"""

from __future__ import annotations

import math
from bisect import bisect_left

import numpy as np

from cardzoo.envs.cards import NUM_STANDARD
from cardzoo.envs.layout import Layout, Piece, float_view
from cardzoo.envs.samsip.config import JOKER_KIND, NUM_KINDS
from cardzoo.envs.samsip.engine import PHASE_DRAW, SamSipEngine

K = NUM_KINDS
MAX_PLAYERS = 6

LAYOUT = Layout(
    [
        Piece("hand", K, "own hand"),
        Piece("indicator", K, "the indicator card"),
        Piece("wild", K, "wild cards (jokers: entry 52 = 1)"),
        Piece("dead_rank", K, "dead cards (Khi scheme: the indicator's rank cannot pair)"),
        Piece("live", K, "the discard now lying face up that may still be taken"),
        Piece("dead_pile", K, "dead discards (passed over; reshuffled away under `on_stock_empty`)"),
        Piece("known", 5 * K, "known in the hand of rel seat 1..5: discards they took and still hold", blocks=5),
        Piece("discarded", 6 * K, "discarded this hand by rel seat 0..5", blocks=6),
        Piece("taken", 6 * K, "taken this hand by rel seat 0..5", blocks=6),
        Piece("recency", K, "recency of each kind's latest discard: (its index + 1) / discards so far"),
        Piece("num_players", 5, "number of players one-hot (2..6)"),
        Piece("phase", 2, "phase one-hot: draw, discard"),
        Piece("present", MAX_PLAYERS, "rel seat is in the match (not eliminated)"),
        Piece("eliminated", MAX_PLAYERS, "rel seat is eliminated"),
        Piece("dealer", MAX_PLAYERS, "rel seat is the dealer"),
        Piece("to_move", MAX_PLAYERS, "rel seat is to move"),
        Piece("live_for", MAX_PLAYERS, "the takeable discard lies in front of rel seat"),
        Piece("drew_stock", MAX_PLAYERS, "rel seat's last draw this hand came from the stock"),
        Piece("drew_take", MAX_PLAYERS, "rel seat's last draw this hand was a taken discard"),
        Piece("chips", MAX_PLAYERS, "chips of rel seat / (n · bankroll)"),
        Piece("stake", 1, "stake / (n · bankroll), at most 1"),
        Piece("stake_log", 1, "log2(stake / base_stake) / 20, at most 1"),
        Piece("stock", 1, "stock size / 54"),
        Piece("dead_count", 1, "dead discards / 54"),
        Piece("hand_no", 1, "hand number / max_hands"),
        Piece("discards", 1, "discards this hand / 100, at most 1"),
    ]
)


def layout(config=None) -> Layout:
    """The layout of every configuration."""
    return LAYOUT


# The offsets the encoder writes to, from LAYOUT
(
    O_HAND,
    O_INDICATOR,
    O_WILD,
    O_DEADRANK,
    O_LIVE,
    O_DEADPILE,
    O_KNOWN,
    O_DISC,
    O_TAKEN,
    O_RECENCY,
    O_NPLAYERS,
    O_PHASE,
    O_PRESENT,
    O_ELIM,
    O_DEALER,
    O_TOMOVE,
    O_LIVEFOR,
    O_DREWSTOCK,
    O_DREWTAKE,
    O_CHIPS,
    O_STAKE,
    O_STAKELOG,
    O_STOCK,
    O_DEADCOUNT,
    O_HANDNO,
    O_NDISC,
) = (LAYOUT.offset(p.name) for p in LAYOUT)
OBS_SIZE = LAYOUT.size
assert OBS_SIZE == 1333


# ------------------------------------------------------------------------------ observation
def _hand_static(g: SamSipEngine) -> list[int]:
    """The entries of the hand's constants that are 1: indicator, wild cards, dead rank."""
    idx = [O_INDICATOR + min(g.indicator, JOKER_KIND)]
    idx += [O_WILD + k for k in sorted({min(c, JOKER_KIND) for c in g.wild})]
    idx += [O_DEADRANK + c for c in g.dead]
    return idx


def encode(g: SamSipEngine, seat: int) -> np.ndarray:
    """The observation vector of ``seat``, from scratch (``Encoder`` must give exactly this)."""
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    n = g.n
    idx = _hand_static(g)
    vidx: list[int] = []
    vals: list[float] = []
    rel = [(s - seat) % n for s in range(n)]

    j = 0
    for c in g.hands[seat]:
        if c < NUM_STANDARD:
            idx.append(c)
        else:
            j += 1
    if j:
        vidx.append(O_HAND + JOKER_KIND)
        vals.append(j / 3)
    if g.live >= 0:
        idx.append(O_LIVE + min(g.live, JOKER_KIND))
        idx.append(O_LIVEFOR + rel[g.live_for])
    j = 0
    for c in g.dead_cards:
        if c < NUM_STANDARD:
            idx.append(O_DEADPILE + c)
        else:
            j += 1
    if j:
        vidx.append(O_DEADPILE + JOKER_KIND)
        vals.append(j / 3)
    for s in range(n):
        kn = g.known[s]
        if kn and s != seat:
            base = O_KNOWN + (rel[s] - 1) * K
            j = 0
            for k in kn:
                if k < JOKER_KIND:
                    idx.append(base + k)
                else:
                    j += 1
            if j:
                vidx.append(base + JOKER_KIND)
                vals.append(j / 3)
    ev = g.events
    ne = len(ev)
    if ne:
        recency = {}
        for i, (s, k, t) in enumerate(ev, 1):
            idx.append(O_DISC + rel[s] * K + k)
            if t >= 0:
                idx.append(O_TAKEN + rel[t] * K + k)
            recency[k] = i
        for k, i in recency.items():
            vidx.append(O_RECENCY + k)
            vals.append(i / ne)
    idx.append(O_NPLAYERS + n - 2)
    idx.append(O_PHASE + (0 if g.phase == PHASE_DRAW else 1))
    active = g.active
    total = n * g.config.bankroll
    for s in range(n):
        r = rel[s]
        if active[s]:
            idx.append(O_PRESENT + r)
            ld = g.last_draw[s]
            if ld == 0:
                idx.append(O_DREWSTOCK + r)
            elif ld == 1:
                idx.append(O_DREWTAKE + r)
        else:
            idx.append(O_ELIM + r)
        if g.chips[s]:
            vidx.append(O_CHIPS + r)
            vals.append(g.chips[s] / total)
    idx.append(O_DEALER + rel[g.dealer])
    if not g.done:
        idx.append(O_TOMOVE + rel[g.turn])
    stake = g.stake
    vidx += [O_STAKE, O_STAKELOG, O_STOCK, O_DEADCOUNT, O_HANDNO, O_NDISC]
    vals += [
        min(1.0, stake / total),
        min(1.0, math.log2(stake / g.config.base_stake) / 20),
        len(g.stock) / 54,
        len(g.dead_cards) / 54,
        g.hand_no / g.config.max_hands,
        min(1.0, ne / 100),
    ]
    obs[idx] = 1.0
    obs[vidx] = vals
    return obs


class Encoder:
    """The observations of one engine, kept up to date as its moves are played.

    Per seat it keeps a vector holding what changes only with the hand (its constants, chips,
    stake, dealer, who is in) and what changes with a few moves only: the discards and takes
    (from the engine's event list, each written once), the dead pile, the known hands, the seat's
    hand and each seat's last draw. The recency of each kind, the same for every seat, is kept
    once and divided by the discard count when a discard is made. ``observe`` brings the seat's
    vector up to date, copies it and writes the few entries of the step: the live discard, phase,
    turn and counts.

    It reads the engine only, so moves applied to it directly (search) are seen too. A new hand (a
    new event list), the end of the match or a new engine starts a seat's vector afresh;
    ``observe(seat)`` always equals ``encode(engine, seat)`` (tests/test_encoders.py).
    """

    def __init__(self, engine: SamSipEngine):
        self.engine = engine
        self._seats: list[_SeatVector | None] = [None] * engine.n
        self._recency_of: list | None = None  # the event list the recency follows
        self._recency_seen = 0  # its events written into _recency_raw
        self._recency_raw = np.zeros(K, dtype=np.float64)  # latest discard of each kind, 1-based
        self._recency = np.zeros(K, dtype=np.float32)  # the piece: raw / discards

    def observe(self, seat: int) -> np.ndarray:
        g = self.engine
        sv = self._seats[seat]
        if sv is None or sv.events is not g.events or sv.done != g.done:
            sv = self._seats[seat] = _SeatVector(g, seat)
        sv.follow(g)
        v = sv.vec.copy()
        if g.events:
            v[O_RECENCY : O_RECENCY + K] = self._recency_now()
        _write_the_step(float_view(v), g, seat)
        return v

    def _recency_now(self) -> np.ndarray:
        """The recency piece: for each kind, (index of its latest discard + 1) / discards."""
        ev = self.engine.events
        if ev is not self._recency_of:  # a new hand
            self._recency_of, self._recency_seen = ev, 0
            self._recency_raw[:] = 0.0
        ne = len(ev)
        if ne != self._recency_seen:
            raw = self._recency_raw
            for i in range(self._recency_seen, ne):
                raw[ev[i][1]] = i + 1
            self._recency_seen = ne
            self._recency = (raw / ne).astype(np.float32)  # as the definition: i / ne in double
        return self._recency


class _SeatVector:
    """One seat's kept vector and how far it has followed the engine's hand."""

    __slots__ = (
        "vec",
        "mem",
        "seat",
        "events",
        "done",
        "seen",
        "last_taker",
        "known",
        "hand",
        "last_draw",
        "dead",
        "dead_seen",
        "dead_jokers",
    )

    def __init__(self, g: SamSipEngine, seat: int):
        """The hand's constants; ``follow`` writes the rest."""
        self.vec = v = np.zeros(OBS_SIZE, dtype=np.float32)
        self.mem = float_view(v)  # item writes through it: cheaper than numpy's, same float32 rounding
        self.seat, self.events, self.done = seat, g.events, g.done
        self.seen, self.last_taker = 0, -1  # events written, and the taker of the last one
        self.known: list[list[int]] = [[] for _ in range(g.n)]  # each seat's known cards as written
        self.hand: list[int] = []  # the seat's hand as written
        self.last_draw = [-1] * g.n  # each seat's last draw as written (-1: none this hand)
        self.dead, self.dead_seen, self.dead_jokers = g.dead_cards, 0, 0
        n = g.n
        v[_hand_static(g)] = 1.0
        v[O_NPLAYERS + n - 2] = 1.0
        total = n * g.config.bankroll
        for s in range(n):
            r = (s - seat) % n
            if g.active[s]:
                v[O_PRESENT + r] = 1.0
            else:
                v[O_ELIM + r] = 1.0
            if g.chips[s]:
                v[O_CHIPS + r] = g.chips[s] / total
        v[O_DEALER + (g.dealer - seat) % n] = 1.0
        stake = g.stake
        v[O_STAKE] = min(1.0, stake / total)
        v[O_STAKELOG] = min(1.0, math.log2(stake / g.config.base_stake) / 20)
        v[O_HANDNO] = g.hand_no / g.config.max_hands

    def follow(self, g: SamSipEngine) -> None:
        """Write what changed since the last call."""
        self._follow_events(g)
        if g.dead_cards is not self.dead or len(g.dead_cards) != self.dead_seen:
            self._follow_dead(g.dead_cards)
        seat = self.seat
        for s in range(g.n):  # a take adds to a seat's known cards, a discard of one removes it
            if g.known[s] != self.known[s] and s != seat:
                self._write_known(g, s)
        if g.hands[seat] != self.hand:
            self._write_hand(g.hands[seat])
        if g.last_draw != self.last_draw:
            self._write_draws(g)

    def _follow_events(self, g: SamSipEngine) -> None:
        """The discards since the last call, and a take of the last one seen."""
        v, seat, n = self.mem, self.seat, g.n
        ev = g.events
        if self.seen and ev[self.seen - 1][2] != self.last_taker:
            _s, k, t = ev[self.seen - 1]
            v[O_TAKEN + (t - seat) % n * K + k] = 1.0
        for i in range(self.seen, len(ev)):
            s, k, t = ev[i]
            v[O_DISC + (s - seat) % n * K + k] = 1.0
            if t >= 0:
                v[O_TAKEN + (t - seat) % n * K + k] = 1.0
        self.seen = len(ev)
        if ev:
            self.last_taker = ev[-1][2]

    def _follow_dead(self, dead: list[int]) -> None:
        """The dead discards since the last call (a reshuffle into the stock starts afresh)."""
        v = self.mem
        if dead is not self.dead:
            self.vec[O_DEADPILE : O_DEADPILE + K] = 0.0
            self.dead, self.dead_seen, self.dead_jokers = dead, 0, 0
        for c in dead[self.dead_seen :]:
            if c < NUM_STANDARD:
                v[O_DEADPILE + c] = 1.0
            else:
                self.dead_jokers += 1
                v[O_DEADPILE + JOKER_KIND] = self.dead_jokers / 3
        self.dead_seen = len(dead)

    def _write_hand(self, hand: list[int]) -> None:
        """The seat's hand: the cards that left it and came into it since it was last written."""
        v, old = self.mem, self.hand
        for c in old:
            if c < NUM_STANDARD and c not in hand:
                v[c] = 0.0
        jokers = 0
        for c in hand:
            if c >= NUM_STANDARD:
                jokers += 1
            elif c not in old:
                v[c] = 1.0
        v[O_HAND + JOKER_KIND] = jokers / 3
        self.hand = list(hand)

    def _write_known(self, g: SamSipEngine, s: int) -> None:
        """The known block of seat ``s`` (rewritten, with the jokers' count)."""
        v, kn = self.mem, g.known[s]
        base = O_KNOWN + ((s - self.seat) % g.n - 1) * K
        self.vec[base : base + K] = 0.0
        j = 0
        for k in kn:
            if k < JOKER_KIND:
                v[base + k] = 1.0
            else:
                j += 1
        if j:
            v[base + JOKER_KIND] = j / 3
        self.known[s] = list(kn)

    def _write_draws(self, g: SamSipEngine) -> None:
        """Each active seat's last draw this hand (stock or taken discard), where it changed."""
        v, seat, n = self.mem, self.seat, g.n
        for s in range(n):
            ld = g.last_draw[s]
            if ld != self.last_draw[s] and g.active[s]:
                r = (s - seat) % n
                v[O_DREWSTOCK + r] = 1.0 if ld == 0 else 0.0
                v[O_DREWTAKE + r] = 1.0 if ld == 1 else 0.0
        self.last_draw = list(g.last_draw)


def _write_the_step(v: memoryview[float], g: SamSipEngine, seat: int) -> None:
    """Write what ``Encoder`` does not keep into ``v``, a copy of the kept vector (where these
    entries are all zero)."""
    n = g.n
    live = g.live
    if live >= 0:  # the kind of the live card (x if x < y else y is min(x, y), without the call)
        v[O_LIVE + (live if live < JOKER_KIND else JOKER_KIND)] = 1.0
        v[O_LIVEFOR + (g.live_for - seat) % n] = 1.0
    v[O_PHASE + (0 if g.phase == PHASE_DRAW else 1)] = 1.0
    if not g.done:
        v[O_TOMOVE + (g.turn - seat) % n] = 1.0
    v[O_STOCK] = len(g.stock) / 54
    v[O_DEADCOUNT] = len(g.dead_cards) / 54
    x = len(g.events) / 100
    v[O_NDISC] = x if x < 1.0 else 1.0


# ------------------------------------------------------------------------------ decoding
def _kinds(obs, off, on=None) -> list[int]:
    """Multiset of kinds in a kind block (jokers repeated by count). ``on``: the sorted indices of
    the observation's entries above 0.5, when the caller has them (``decode`` scans once)."""
    if on is None:
        block = obs[off : off + K]
        out = [int(c) for c in np.flatnonzero(block[:JOKER_KIND] > 0.5)]
    else:
        out = [i - off for i in on[bisect_left(on, off) : bisect_left(on, off + JOKER_KIND)]]
    out += [JOKER_KIND] * round(float(obs[off + JOKER_KIND]) * 3)
    return out


def _ones(on: list[int], off: int, size: int) -> list[int]:
    """The entries above 0.5 of the block at ``off``, relative to it."""
    return [i - off for i in on[bisect_left(on, off) : bisect_left(on, off + size)]]


def _kinds_of(cards) -> list[int]:
    """Cards as ``decode`` reads a kind block back: the standard ones in order, a joker kind per joker."""
    return sorted(c for c in cards if c < NUM_STANDARD) + [JOKER_KIND] * sum(c >= NUM_STANDARD for c in cards)


def view_of(engine: SamSipEngine, seat: int) -> dict:
    """``decode(encode(engine, seat))`` without the vector: the same dict, key for key
    (tests/test_encoders.py checks it after every move), built from the public state and the seat's
    own hand only — what ``encode`` writes for this seat. The bots' ``act_seat`` reads it."""
    g, n = engine, engine.n
    known: list[list[int]] = [[] for _ in range(MAX_PLAYERS)]
    for r in range(1, n):
        known[r] = _kinds_of(g.known[(seat + r) % n])
    live = g.live
    return {
        "num_players": n,
        "phase": "draw" if g.phase == PHASE_DRAW else "discard",
        "hand": _kinds_of(g.hands[seat]),
        "indicator": min(g.indicator, JOKER_KIND),
        "wild": {min(c, JOKER_KIND) for c in g.wild},
        "dead": set(g.dead),
        "live": min(live, JOKER_KIND) if live >= 0 else -1,
        "live_for": (g.live_for - seat) % n if live >= 0 else -1,
        "dead_pile": _kinds_of(g.dead_cards),
        "known": known,
        "present": [r < n and g.active[(seat + r) % n] for r in range(MAX_PLAYERS)],
        "stock": len(g.stock),
    }


def decode(obs) -> dict:
    """The parts of an observation a rule bot needs, as plain Python values."""
    obs = np.asarray(obs, dtype=np.float32)
    on = np.flatnonzero(obs > 0.5).tolist()  # one scan for every 0/1 block (a hot path of the bots)
    n = int(np.argmax(obs[O_NPLAYERS : O_NPLAYERS + 5])) + 2
    live = _ones(on, O_LIVE, K)
    live_for = _ones(on, O_LIVEFOR, 6)
    known: list[list[int]] = [[] for _ in range(MAX_PLAYERS)]
    for r in range(1, n):
        known[r] = _kinds(obs, O_KNOWN + (r - 1) * K, on)
    present = set(_ones(on, O_PRESENT, 6))
    return {
        "num_players": n,
        "phase": "draw" if obs[O_PHASE] > 0.5 else "discard",
        "hand": _kinds(obs, O_HAND, on),
        "indicator": int(np.argmax(obs[O_INDICATOR : O_INDICATOR + K])),
        "wild": set(_ones(on, O_WILD, K)),
        "dead": set(_ones(on, O_DEADRANK, K)),
        "live": live[0] if live else -1,
        "live_for": live_for[0] if live_for else -1,
        "dead_pile": _kinds(obs, O_DEADPILE, on),
        "known": known,
        "present": [r in present for r in range(6)],
        "stock": round(float(obs[O_STOCK]) * 54),
    }
