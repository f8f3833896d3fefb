"""Sam Sip's observation: what one seat may know (rules 2.7), as a float32 vector in [-1, 1].

Seats are *relative*: rel 0 is the observing seat, rel k the k-th seat after it in play order
(seat ``(me + k) mod n``); slots for rel >= n are zero (padding to 6 players).
A *kind* block has 53 entries: entry c for standard card c, entry 52 for "a joker", which holds a
count / 3 where several jokers can be meant. The pieces are declared once, in ``LAYOUT`` below
(docs/samsip.md shows its ``table()``). ``observation`` computes a seat's vector incrementally,
``observation_reference`` from scratch (they are equal), ``decode`` reads one back for the bots.
"""

from __future__ import annotations

import math
from bisect import bisect_left

import numpy as np

from cardzoo.envs.cards import NUM_STANDARD
from cardzoo.envs.layout import Layout, Piece
from cardzoo.envs.samsip.config import JOKER_KIND, NUM_KINDS
from cardzoo.envs.samsip.engine import PHASE_DRAW, SamSipEngine

K = NUM_KINDS
MAX_PLAYERS = 6

LAYOUT = Layout([
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
])


def layout(config=None) -> Layout:
    """The layout of every configuration."""
    return LAYOUT


# The offsets the encoder writes to, from LAYOUT
(O_HAND, O_INDICATOR, O_WILD, O_DEADRANK, O_LIVE, O_DEADPILE, O_KNOWN, O_DISC, O_TAKEN, O_RECENCY,
 O_NPLAYERS, O_PHASE, O_PRESENT, O_ELIM, O_DEALER, O_TOMOVE, O_LIVEFOR, O_DREWSTOCK, O_DREWTAKE, O_CHIPS,
 O_STAKE, O_STAKELOG, O_STOCK, O_DEADCOUNT, O_HANDNO, O_NDISC) = (LAYOUT.offset(p.name) for p in LAYOUT)
OBS_SIZE = LAYOUT.size
assert OBS_SIZE == 1333


# ------------------------------------------------------------------------------ observation
def _hand_static(g: SamSipEngine) -> tuple:
    """Per-hand constant indices (indicator, wild, dead rank), cached on the game."""
    cache = g.__dict__.get("_enc_static")
    if cache is not None and cache[0] == g.hand_no and cache[1] == g.indicator:
        return cache[2]
    idx = [O_INDICATOR + min(g.indicator, JOKER_KIND)]
    wk = sorted({min(c, JOKER_KIND) for c in g.wild})
    idx += [O_WILD + k for k in wk]
    idx += [O_DEADRANK + c for c in g.dead]
    g._enc_static = (g.hand_no, g.indicator, idx)
    return idx


def observation_reference(g: SamSipEngine, seat: int) -> np.ndarray:
    """The observation vector of ``seat``, computed from scratch (the plain, slow definition;
    ``observation`` must equal it)."""
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    n = g.n
    idx = list(_hand_static(g))
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
        i = 0
        for s, k, t in ev:
            i += 1
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
    vals += [min(1.0, stake / total), min(1.0, math.log2(stake / g.config.base_stake) / 20),
             len(g.stock) / 54, len(g.dead_cards) / 54, g.hand_no / g.config.max_hands,
             min(1.0, ne / 100)]
    obs[idx] = 1.0
    obs[vidx] = vals
    return obs



# Fast path: the public part is kept in an *absolute-seat* layout on the game object and updated
# incrementally (new discards, new dead discards); a precomputed gather turns it into the
# observer's relative layout, then the private hand is written in.
# The absolute layout is LAYOUT with the known hands of all 6 seats (the observer's too), the
# scalars as one piece, and a value that is always 0.
_SEAT_PIECES = ("present", "eliminated", "dealer", "to_move", "live_for", "drew_stock", "drew_take", "chips")
_SCALAR_PIECES = ("stake", "stake_log", "stock", "dead_count", "hand_no", "discards")
PUBLIC_LAYOUT = Layout([
    *(LAYOUT.piece(p) for p in ("hand", "indicator", "wild", "dead_rank", "live", "dead_pile")),
    Piece("known", 6 * K, "known in the hand of absolute seat 0..5", blocks=6),
    *(LAYOUT.piece(p) for p in ("discarded", "taken", "recency", "num_players", "phase", *_SEAT_PIECES)),
    Piece("scalars", len(_SCALAR_PIECES), "the scalars of LAYOUT, stake .. discards (recency divided after the gather)"),
    Piece("zero", 1, "always 0: the source of padded slots"),
])
assert [LAYOUT.offset(p) - O_STAKE for p in _SCALAR_PIECES] == list(range(len(_SCALAR_PIECES)))
assert LAYOUT.offset("phase") == O_NPLAYERS + 5 and PUBLIC_LAYOUT.offset("phase") == PUBLIC_LAYOUT.offset("num_players") + 5
(A_KNOWN, A_DISC, A_TAKEN, A_RECENCY, A_NPLAYERS, A_PHASE, A_PRESENT, A_ELIM, A_DEALER, A_TOMOVE, A_LIVEFOR,
 A_DREWSTOCK, A_DREWTAKE, A_CHIPS, A_SCALARS, A_ZERO) = (
    PUBLIC_LAYOUT.offset(p) for p in ("known", "discarded", "taken", "recency", "num_players", "phase",
                                      *_SEAT_PIECES, "scalars", "zero"))
A_SIZE = PUBLIC_LAYOUT.size
_SEAT_VECTORS = ((O_PRESENT, A_PRESENT), (O_ELIM, A_ELIM), (O_DEALER, A_DEALER), (O_TOMOVE, A_TOMOVE),
                 (O_LIVEFOR, A_LIVEFOR), (O_DREWSTOCK, A_DREWSTOCK), (O_DREWTAKE, A_DREWTAKE),
                 (O_CHIPS, A_CHIPS))
_PERMS: dict[tuple[int, int], np.ndarray] = {}


def _perm(n: int, seat: int) -> np.ndarray:
    p = _PERMS.get((n, seat))
    if p is not None:
        return p
    p = np.arange(OBS_SIZE)
    p[O_HAND:O_HAND + K] = A_ZERO
    for r in range(MAX_PLAYERS):
        s = (seat + r) % n
        valid = r < n
        if r >= 1:
            dst = O_KNOWN + (r - 1) * K
            p[dst:dst + K] = np.arange(A_KNOWN + s * K, A_KNOWN + s * K + K) if valid else A_ZERO
        for o, a in ((O_DISC, A_DISC), (O_TAKEN, A_TAKEN)):
            p[o + r * K:o + r * K + K] = np.arange(a + s * K, a + s * K + K) if valid else A_ZERO
        for o, a in _SEAT_VECTORS:
            p[o + r] = a + s if valid else A_ZERO
    p[O_RECENCY:O_RECENCY + K] = np.arange(A_RECENCY, A_RECENCY + K)
    p[O_NPLAYERS:O_NPLAYERS + 7] = np.arange(A_NPLAYERS, A_NPLAYERS + 7)
    p[O_STAKE:O_STAKE + 6] = np.arange(A_SCALARS, A_SCALARS + 6)
    _PERMS[(n, seat)] = p
    return p


def _public(g: SamSipEngine) -> np.ndarray:
    """The public state in absolute layout, brought up to date (cached on the game)."""
    st = g.__dict__.get("_enc")
    if st is None or st[1] is not g.events:  # a new hand (or a clone): start afresh
        arr = np.zeros(A_SIZE, dtype=np.float32)
        arr[_hand_static(g)] = 1.0
        arr[A_NPLAYERS + g.n - 2] = 1.0
        # arr, events list, events seen, dead discards seen, dead jokers seen, dead list
        # arr, events list, events seen, dead discards seen, dead jokers seen, dead list,
        # known-hands version, live discard written
        st = g._enc = [arr, g.events, 0, 0, 0, g.dead_cards, None, -1]
    arr = st[0]
    ev = g.events
    ne = len(ev)
    # the last event already seen may have been taken since; then the new events
    for i in range(max(0, st[2] - 1), ne):
        s, k, t = ev[i]
        arr[A_DISC + s * K + k] = 1.0
        if t >= 0:
            arr[A_TAKEN + t * K + k] = 1.0
        arr[A_RECENCY + k] = i + 1  # raw index; divided by the count after the gather
    st[2] = ne
    dead = g.dead_cards
    nd = len(dead)
    if nd != st[3] or st[5] is not dead:
        if nd < st[3] or st[5] is not dead:  # reshuffled into the stock
            st[5] = dead
            arr[O_DEADPILE:O_DEADPILE + K] = 0.0
            st[3] = st[4] = 0
        for c in dead[st[3]:]:
            if c < NUM_STANDARD:
                arr[O_DEADPILE + c] = 1.0
            else:
                st[4] += 1
                arr[O_DEADPILE + JOKER_KIND] = st[4] / 3
        st[3] = nd
    # the known hands change only with the discards (a take marks the last one)
    version = (ne, ev[-1][2] if ne else -1)
    if version != st[6]:
        st[6] = version
        arr[A_KNOWN:A_DISC] = 0.0
        for s in range(g.n):
            kn = g.known[s]
            if kn:
                base = A_KNOWN + s * K
                j = 0
                for k in kn:
                    if k < JOKER_KIND:
                        arr[base + k] = 1.0
                    else:
                        j += 1
                if j:
                    arr[base + JOKER_KIND] = j / 3
    live = g.live
    old = st[7]
    if old != live:
        if old >= 0:
            arr[O_LIVE + min(old, JOKER_KIND)] = 0.0
        if live >= 0:
            arr[O_LIVE + min(live, JOKER_KIND)] = 1.0
        st[7] = live
    # the small per-step part (phase .. scalars) is written in one go
    n = g.n
    dyn = [0.0] * (A_ZERO - A_PHASE)
    dyn[0 if g.phase == PHASE_DRAW else 1] = 1.0
    dyn[A_DEALER - A_PHASE + g.dealer] = 1.0
    if live >= 0:
        dyn[A_LIVEFOR - A_PHASE + g.live_for] = 1.0
    if not g.done:
        dyn[A_TOMOVE - A_PHASE + g.turn] = 1.0
    active = g.active
    last_draw = g.last_draw
    cfg = g.config
    total = n * cfg.bankroll
    chips = g.chips
    for s in range(n):
        if active[s]:
            dyn[A_PRESENT - A_PHASE + s] = 1.0
            ld = last_draw[s]
            if ld == 0:
                dyn[A_DREWSTOCK - A_PHASE + s] = 1.0
            elif ld == 1:
                dyn[A_DREWTAKE - A_PHASE + s] = 1.0
        else:
            dyn[A_ELIM - A_PHASE + s] = 1.0
        dyn[A_CHIPS - A_PHASE + s] = chips[s] / total
    stake = g.stake
    dyn[A_SCALARS - A_PHASE:] = (min(1.0, stake / total), min(1.0, math.log2(stake / cfg.base_stake) / 20),
                                 len(g.stock) / 54, nd / 54, g.hand_no / cfg.max_hands, min(1.0, ne / 100))
    arr[A_PHASE:A_ZERO] = dyn
    return arr


def observation(g: SamSipEngine, seat: int) -> np.ndarray:
    """The observation vector of ``seat`` (see the module docstring)."""
    arr = _public(g)
    obs = arr[_perm(g.n, seat)]
    ne = len(g.events)
    if ne:
        obs[O_RECENCY:O_RECENCY + K] /= ne
    hand = g.hands[seat]
    j = 0
    for c in hand:
        if c >= NUM_STANDARD:
            j += 1
    if j:
        obs[[c for c in hand if c < NUM_STANDARD]] = 1.0
        obs[JOKER_KIND] = j / 3
    else:
        obs[hand] = 1.0
    return obs


# ------------------------------------------------------------------------------ decoding
def _kinds(obs, off, on=None) -> list[int]:
    """Multiset of kinds in a kind block (jokers repeated by count). ``on``: the sorted indices of
    the observation's entries above 0.5, when the caller has them (``decode`` scans once)."""
    if on is None:
        block = obs[off:off + K]
        out = [int(c) for c in np.flatnonzero(block[:JOKER_KIND] > 0.5)]
    else:
        out = [i - off for i in on[bisect_left(on, off):bisect_left(on, off + JOKER_KIND)]]
    out += [JOKER_KIND] * int(round(float(obs[off + JOKER_KIND]) * 3))
    return out


def _ones(on: list[int], off: int, size: int) -> list[int]:
    """The entries above 0.5 of the block at ``off``, relative to it."""
    return [i - off for i in on[bisect_left(on, off):bisect_left(on, off + size)]]


def decode(obs) -> dict:
    """The parts of an observation a rule bot needs, as plain Python values."""
    obs = np.asarray(obs, dtype=np.float32)
    on = np.flatnonzero(obs > 0.5).tolist()  # one scan for every 0/1 block (a hot path of the bots)
    n = int(np.argmax(obs[O_NPLAYERS:O_NPLAYERS + 5])) + 2
    live = _ones(on, O_LIVE, K)
    live_for = _ones(on, O_LIVEFOR, 6)
    known = [[] for _ in range(MAX_PLAYERS)]
    for r in range(1, n):
        known[r] = _kinds(obs, O_KNOWN + (r - 1) * K, on)
    present = set(_ones(on, O_PRESENT, 6))
    return {
        "num_players": n,
        "phase": "draw" if obs[O_PHASE] > 0.5 else "discard",
        "hand": _kinds(obs, O_HAND, on),
        "indicator": int(np.argmax(obs[O_INDICATOR:O_INDICATOR + K])),
        "wild": set(_ones(on, O_WILD, K)),
        "dead": set(_ones(on, O_DEADRANK, K)),
        "live": live[0] if live else -1,
        "live_for": live_for[0] if live_for else -1,
        "dead_pile": _kinds(obs, O_DEADPILE, on),
        "known": known,
        "present": [r in present for r in range(6)],
        "stock": int(round(float(obs[O_STOCK]) * 54)),
    }
