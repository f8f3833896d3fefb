"""Sam Sip encodings: action id <-> move text, observation vector of one seat, and decoding.

Action ids (56, the same numbers as the engine's moves)
-------------------------------------------------------
=========  ===============================================================
id         move
=========  ===============================================================
0..51      ``discard <card>``: card id = 4*rank + suit (A..K x ♠ ♣ ♦ ♥)
52         ``discard Jk``: discard a joker (jokers are interchangeable)
53         ``draw stock``: draw the top card of the stock
54         ``take <card>``: take the discard lying in front of you
55         ``declare``: declare a winning 6-card hand (``auto_declare=False`` only)
=========  ===============================================================

The draw phase allows 53 (and 54 when a discard lies in front of the seat); the discard phase,
taken by the same seat, allows the held cards (and 55 when the 6-card hand wins and the win is not
declared automatically).

Observation (float32, values in [-1, 1], size ``OBS_SIZE`` = 1333)
-----------------------------------------------------------------
Seats are *relative*: rel 0 is the observing seat, rel k the k-th seat after it in play order
(seat ``(me + k) mod n``); slots for rel >= n are zero (padding to 6 players).
A *kind* block has 53 entries: entry c for standard card c, entry 52 for "a joker", which holds a
count / 3 where several jokers can be meant.

=============  ======  ==================================================================
offset         size    meaning (only what this seat may know, rules 2.7)
=============  ======  ==================================================================
0              53      own hand
53             53      the indicator card
106            53      wild cards (jokers: entry 52 = 1)
159            53      dead cards (Khi scheme: the indicator's rank cannot pair)
212            53      the discard now lying face up that may still be taken
265            53      dead discards (passed over; reshuffled away under ``on_stock_empty``)
318            5x53    known in the hand of rel seat 1..5: discards they took and still hold
583            6x53    discarded this hand by rel seat 0..5
901            6x53    taken this hand by rel seat 0..5
1219           53      recency of each kind's latest discard: (index + 1) / discards so far
1272           5       number of players one-hot (2..6)
1277           2       phase one-hot: draw, discard
1279           6       rel seat is in the match (not eliminated)
1285           6       rel seat is eliminated
1291           6       rel seat is the dealer
1297           6       rel seat is to move
1303           6       the takeable discard lies in front of rel seat
1309           6       rel seat's last draw this hand came from the stock
1315           6       rel seat's last draw this hand was a taken discard
1321           6       chips of rel seat / (n x bankroll)
1327           1       stake / (n x bankroll), at most 1
1328           1       log2(stake / base_stake) / 20, at most 1
1329           1       stock size / 54
1330           1       dead discards / 54
1331           1       hand number / max_hands
1332           1       discards this hand / 100, at most 1
=============  ======  ==================================================================
"""

from __future__ import annotations

import math

import numpy as np

from cardzoo.envs.cards import NUM_STANDARD, card_str, parse_card
from cardzoo.envs.samsip.engine import (
    DECLARE,
    DISCARD_JOKER,
    DRAW_STOCK,
    JOKER_KIND,
    NUM_KINDS,
    NUM_MOVES,
    PHASE_DRAW,
    TAKE_DISCARD,
    SamSipGame,
)

K = NUM_KINDS
MAX_PLAYERS = 6
NUM_ACTIONS = NUM_MOVES

O_HAND = 0
O_INDICATOR = O_HAND + K
O_WILD = O_INDICATOR + K
O_DEADRANK = O_WILD + K
O_LIVE = O_DEADRANK + K
O_DEADPILE = O_LIVE + K
O_KNOWN = O_DEADPILE + K  # rel seats 1..5
O_DISC = O_KNOWN + 5 * K  # rel seats 0..5
O_TAKEN = O_DISC + 6 * K  # rel seats 0..5
O_RECENCY = O_TAKEN + 6 * K
O_NPLAYERS = O_RECENCY + K
O_PHASE = O_NPLAYERS + 5
O_PRESENT = O_PHASE + 2
O_ELIM = O_PRESENT + 6
O_DEALER = O_ELIM + 6
O_TOMOVE = O_DEALER + 6
O_LIVEFOR = O_TOMOVE + 6
O_DREWSTOCK = O_LIVEFOR + 6
O_DREWTAKE = O_DREWSTOCK + 6
O_CHIPS = O_DREWTAKE + 6
O_STAKE = O_CHIPS + 6
O_STAKELOG = O_STAKE + 1
O_STOCK = O_STAKELOG + 1
O_DEADCOUNT = O_STOCK + 1
O_HANDNO = O_DEADCOUNT + 1
O_NDISC = O_HANDNO + 1
OBS_SIZE = O_NDISC + 1
assert OBS_SIZE == 1333


# ------------------------------------------------------------------------------ actions
def action_text(action: int, live: int = -1) -> str:
    """Text of an action id. ``live`` is the takeable discard (for ``take <card>``)."""
    if 0 <= action < NUM_STANDARD:
        return "discard " + card_str(action)
    if action == DISCARD_JOKER:
        return "discard Jk"
    if action == DRAW_STOCK:
        return "draw stock"
    if action == TAKE_DISCARD:
        return "take " + card_str(live) if live >= 0 else "take discard"
    if action == DECLARE:
        return "declare"
    raise ValueError(f"action must be 0..{NUM_ACTIONS - 1}, got {action}")


_DRAW_WORDS = {"draw", "stock", "draw stock", "d", "s", "draw from stock"}
_DECLARE_WORDS = {"declare", "win", "declare win"}


def text_to_action(text: str, live: int = -1) -> int:
    """Parse a move text (``draw stock``, ``take 7♥``, ``take``, ``discard 7h``, ``7h``, ``Jk``,
    ``declare``) to an action id, without checking legality. ValueError if unreadable."""
    t = " ".join(str(text).replace(",", " ").split()).lower()
    if not t:
        raise ValueError("empty move text")
    if t in _DRAW_WORDS:
        return DRAW_STOCK
    if t in _DECLARE_WORDS:
        return DECLARE
    if t in ("take", "take discard", "t", "pick", "pick up"):
        return TAKE_DISCARD
    words = t.split()
    if words[0] in ("take", "pick"):
        card = parse_card(words[-1])
        if live < 0 or min(card, JOKER_KIND) != min(live, JOKER_KIND):
            shown = card_str(live) if live >= 0 else "nothing"
            raise ValueError(f"cannot take {card_str(card)}: the discard in front of you is {shown}")
        return TAKE_DISCARD
    if words[0] in ("discard", "throw", "drop") and len(words) == 2:
        t = words[1]
    elif len(words) != 1:
        raise ValueError(f"{text!r} is not a move: say 'draw stock', 'take', 'discard 7h' or 'declare'")
    card = parse_card(t)
    return card if card < NUM_STANDARD else DISCARD_JOKER


# ------------------------------------------------------------------------------ observation
def _hand_static(g: SamSipGame) -> tuple:
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


def observation_reference(g: SamSipGame, seat: int) -> np.ndarray:
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
A_KNOWN = O_KNOWN  # 6 blocks by absolute seat
A_DISC = A_KNOWN + 6 * K
A_TAKEN = A_DISC + 6 * K
A_RECENCY = A_TAKEN + 6 * K
A_NPLAYERS = A_RECENCY + K
A_PHASE = A_NPLAYERS + 5
A_PRESENT = A_PHASE + 2
A_ELIM = A_PRESENT + 6
A_DEALER = A_ELIM + 6
A_TOMOVE = A_DEALER + 6
A_LIVEFOR = A_TOMOVE + 6
A_DREWSTOCK = A_LIVEFOR + 6
A_DREWTAKE = A_DREWSTOCK + 6
A_CHIPS = A_DREWTAKE + 6
A_SCALARS = A_CHIPS + 6  # stake, stake log, stock, dead count, hand number, discards
A_ZERO = A_SCALARS + 6  # always 0: the source of padded slots
A_SIZE = A_ZERO + 1
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


def _public(g: SamSipGame) -> np.ndarray:
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


def observation(g: SamSipGame, seat: int) -> np.ndarray:
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
def _kinds(obs, off) -> list[int]:
    """Multiset of kinds in a kind block (jokers repeated by count)."""
    block = obs[off:off + K]
    out = [int(c) for c in np.flatnonzero(block[:JOKER_KIND] > 0.5)]
    out += [JOKER_KIND] * int(round(float(block[JOKER_KIND]) * 3))
    return out


def decode(obs) -> dict:
    """The parts of an observation a rule bot needs, as plain Python values."""
    obs = np.asarray(obs, dtype=np.float32)
    n = int(np.argmax(obs[O_NPLAYERS:O_NPLAYERS + 5])) + 2
    live = np.flatnonzero(obs[O_LIVE:O_LIVE + K] > 0.5)
    live_for = np.flatnonzero(obs[O_LIVEFOR:O_LIVEFOR + 6] > 0.5)
    known = [[] for _ in range(MAX_PLAYERS)]
    for r in range(1, n):
        known[r] = _kinds(obs, O_KNOWN + (r - 1) * K)
    return {
        "num_players": n,
        "phase": "draw" if obs[O_PHASE] > 0.5 else "discard",
        "hand": _kinds(obs, O_HAND),
        "indicator": int(np.argmax(obs[O_INDICATOR:O_INDICATOR + K])),
        "wild": set(int(c) for c in np.flatnonzero(obs[O_WILD:O_WILD + K] > 0.5)),
        "dead": set(int(c) for c in np.flatnonzero(obs[O_DEADRANK:O_DEADRANK + K] > 0.5)),
        "live": int(live[0]) if live.size else -1,
        "live_for": int(live_for[0]) if live_for.size else -1,
        "dead_pile": _kinds(obs, O_DEADPILE),
        "known": known,
        "present": [bool(x > 0.5) for x in obs[O_PRESENT:O_PRESENT + 6]],
        "stock": int(round(float(obs[O_STOCK]) * 54)),
    }
