"""Suipi legal-move generation (S8-S13 and the variants), pure Python.

A move is a tuple ``(hand_card, mask, kind, value)``: ``mask`` is a bitmask over indices of
``floor`` (the items used), ``kind`` is CAPTURE / BUILD / DROP and ``value`` the build value (0
otherwise). Equivalent outcomes are listed once: a capture is the set of items taken (how they
split into groups does not matter), a build the set of items used plus the value.

``legal_moves`` is one function on purpose: it is the engine's hot path, and splitting it into
capture / build / drop helpers cost 10-25% of its speed (measured); its three sections are
marked instead.
"""

from __future__ import annotations

from cardzoo.envs.suipi.cards import CARD_KEY, NVAL_11, NVAL_23
from cardzoo.envs.suipi.config import SuipiConfig

CAPTURE, BUILD, DROP = 0, 1, 2
KEY, NVAL, CARDS, OWNER, LOCKED, REP = 0, 1, 2, 3, 4, 5  # fields of a floor item


def _loose_subsets(floor, vmax):
    """Subsets of loose numeric floor items by sum: (all sizes, sizes >= 2, size == 2), each a
    list indexed by the sum 0..vmax of bitmask lists."""
    subs = [(0, 0, 0)]
    for i, it in enumerate(floor):
        v = it[NVAL]
        if it[OWNER] < 0 and v:
            bit = 1 << i
            subs += [(m | bit, s + v, k + 1) for m, s, k in subs if s + v <= vmax]
    all_s = [[] for _ in range(vmax + 1)]
    multi = [[] for _ in range(vmax + 1)]
    pair = [[] for _ in range(vmax + 1)]
    for m, s, k in subs[1:]:
        all_s[s].append(m)
        if k >= 2:
            multi[s].append(m)
            if k == 2:
                pair[s].append(m)
    return all_s, multi, pair


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


def legal_moves(config: SuipiConfig, hand, floor, seat: int) -> list:
    """Every distinct legal move of ``seat`` holding ``hand`` with this ``floor``."""
    nv = NVAL_23 if config.court_values else NVAL_11  # card_values(config), without the call
    vmax = config.vmax
    unique = config.unique_floor_during_play
    all_s, multi, pair = _loose_subsets(floor, vmax)
    sumgroups = pair if config.sum_group_size == "exactly_2" else multi
    key_items = [[] for _ in range(14)]  # numeric value -> bits of items with that value
    court_items = {}  # key -> bits of loose valueless court cards (11-point game)
    keys_on_floor = set()
    owned = []  # (bit, value) of builds owned by seat
    unlocked = []  # (bit, value) of unlocked builds
    bit = 1
    for it in floor:
        v = it[NVAL]
        if v:
            key_items[v].append(bit)
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
    max_owned = config.max_owned_builds
    maximal = config.maximal_capture
    forced = config.forced_capture
    builds_on = config.builds_enabled
    multi_on = config.multi_builds
    U = [None] * 14  # capture unions per value (lazy)

    moves = []
    append = moves.append
    for h in hand:
        hv = nv[h]
        # ---------------- captures
        if hv:
            caps = U[hv]
            if caps is None:
                caps = U[hv] = _unions(key_items[hv] + sumgroups[hv])
        else:
            caps = court_items.get(CARD_KEY[h], ())  # one same-rank court card
        if caps:
            if owned or maximal:
                grps = key_items[hv] + sumgroups[hv] if (hv and maximal) else None
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
            for v in range(hv, vmax + 1):
                if count[v] - (hv == v) < 1:
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
                        extras = U[v] = _unions(key_items[v] + sumgroups[v])
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
