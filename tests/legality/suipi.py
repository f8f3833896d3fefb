"""Suipi legality from docs/rules/suipi.md S2, S6-S13 and the variants of 1.5 (with the readings
docs/suipi.md gives for them). A move's outcome is (hand card, set of floor items used, kind,
value): how the items split into groups does not matter (docs/suipi.md).

Cards: id = 4 * rank + suit (A=0 .. K=12). A floor item is read as (cards, owner, locked, value):
a loose card has owner -1; a build has its value and its owner seat.
"""

from __future__ import annotations

from cardzoo.envs.suipi.actions import BUILD, CAPTURE, CARDS, DROP, LOCKED, NVAL, OWNER, move_actions

COURT = (10, 11, 12)  # J, Q, K


def card_value(card: int, courts_numeric: bool) -> int:
    """S2: A=1 .. 10=10; J/Q/K 11/12/13 in the 23-point game, no value (0) in the 11-point game."""
    rank = card // 4
    if rank in COURT and not courts_numeric:
        return 0
    return rank + 1


class Item:
    def __init__(self, index, raw, courts_numeric):
        self.index = index
        self.cards = tuple(raw[CARDS])
        self.owner = raw[OWNER]
        self.locked = raw[LOCKED]
        self.build = self.owner >= 0
        if self.build:
            self.value = raw[NVAL]
            self.key = self.value
        else:
            (card,) = self.cards
            self.value = card_value(card, courts_numeric)
            self.key = card // 4 + 1  # S12: value, or a court card's rank
        self.loose_numeric = not self.build and self.value > 0


def _sum_groups(items, v, exactly_2):
    """Sets (frozensets of indices) of >= 2 loose numeric items summing to v (S8.3)."""
    loose = [it for it in items if it.loose_numeric and it.value < v]
    out = []

    def rec(start, chosen, total):
        if total == v and len(chosen) >= 2:
            out.append(frozenset(chosen))
            return
        if exactly_2 and len(chosen) >= 2:
            return
        for i in range(start, len(loose)):
            it = loose[i]
            if total + it.value <= v:
                rec(i + 1, chosen + [it.index], total + it.value)

    rec(0, [], 0)
    return out


def _disjoint_unions(groups):
    """Every union of pairwise disjoint groups (including the empty union)."""
    out: set[frozenset[int]] = {frozenset()}
    for g in groups:
        out |= {u | g for u in out if not (u & g)}
    return out


def capture_groups(items, h, cfg):
    """The groups a capture with hand card h may take (S8)."""
    courts_numeric = cfg.point_game == 23
    v = card_value(h, courts_numeric)
    if v == 0:  # a court card takes one loose card of its rank
        return [frozenset([it.index]) for it in items if not it.build and it.cards[0] // 4 == h // 4]
    groups = [frozenset([it.index]) for it in items if it.value == v and (it.build or it.loose_numeric)]
    return groups + _sum_groups(items, v, cfg.sum_group_size == "exactly_2")


def legal_moves(engine) -> set[tuple]:
    cfg = engine.config
    seat = engine.turn
    hand = list(engine.hands[seat])
    courts_numeric = cfg.point_game == 23
    vmax = 13 if courts_numeric else 10
    items = [Item(i, raw, courts_numeric) for i, raw in enumerate(engine.floor)]
    unique = cfg.unique_floor_during_play
    mine = [it for it in items if it.build and it.owner == seat]
    moves = set()

    def obligations_ok(rest_hand, used, new_build_value=None):
        """S11: every build the mover owns after the move is matched by a card in hand."""
        values = [it.value for it in mine if it.index not in used]
        if new_build_value is not None:
            values.append(new_build_value)
        have = {card_value(c, courts_numeric) for c in rest_hand}
        return all(x in have for x in values)

    def mask(used):
        return sum(1 << i for i in used)

    for h in set(hand):
        rest = list(hand)
        rest.remove(h)
        hv = card_value(h, courts_numeric)
        # ---- capture (S8)
        groups = capture_groups(items, h, cfg)
        captures = {u for u in _disjoint_unions(groups) if u}
        if hv == 0:
            captures = {u for u in captures if len(u) == 1}
        if cfg.maximal_capture:
            captures = {u for u in captures if not any(not (g & u) for g in groups)}
        for u in captures:
            if obligations_ok(rest, u):
                moves.add((h, mask(u), CAPTURE, 0))
        # ---- drop (S10)
        can_drop = not mine
        if unique and any(it.key == h // 4 + 1 for it in items):
            can_drop = False
        if cfg.forced_capture and groups:
            can_drop = False
        if can_drop:
            moves.add((h, 0, DROP, 0))
        # ---- build (S9)
        if not cfg.builds_enabled or hv == 0:
            continue
        for v in range(1, vmax + 1):
            if v not in {card_value(c, courts_numeric) for c in rest}:
                continue  # (b) a card of value v must remain in hand
            # active group: h + loose numeric cards + at most one unlocked build, summing to v
            loose = [it for it in items if it.loose_numeric]
            builds = [it for it in items if it.build and not it.locked]
            actives = []

            def rec(start, chosen, total):
                if total == v:
                    actives.append(frozenset(chosen))
                    return
                for i in range(start, len(loose)):
                    it = loose[i]
                    if total + it.value <= v:
                        rec(i + 1, chosen + [it.index], total + it.value)

            rec(0, [], hv)
            for b in builds:
                if hv + b.value <= v:
                    actives_b = []

                    def recb(start, chosen, total):
                        if total == v:
                            actives_b.append(frozenset(chosen + [b.index]))
                            return
                        for i in range(start, len(loose)):
                            it = loose[i]
                            if total + it.value <= v:
                                recb(i + 1, chosen + [it.index], total + it.value)

                    recb(0, [], hv + b.value)
                    actives += actives_b
            extra = [frozenset([it.index]) for it in items if it.value == v and (it.build or it.loose_numeric)]
            extra += _sum_groups(items, v, cfg.sum_group_size == "exactly_2")
            extras = _disjoint_unions(extra)
            for a in actives:
                if not cfg.multi_builds:
                    if len(a) == 1:
                        candidates = [a]
                    else:
                        continue
                else:
                    candidates = [a | u for u in extras if not (a & u) and (a or u)]
                    if not a:  # h alone: value(h) = v and at least one other group
                        candidates = [c for c in candidates if c]
                for used in candidates:
                    if not used:
                        continue  # (a) at least one floor item
                    after_keys = [it.key for it in items if it.index not in used] + [v]
                    if unique and len(after_keys) != len(set(after_keys)):
                        continue  # (c) S12
                    if not obligations_ok(rest, used, v):
                        continue  # (d) S11
                    if cfg.max_owned_builds:
                        owned = sum(1 for it in mine if it.index not in used) + 1
                        if owned > cfg.max_owned_builds:
                            continue
                    moves.add((h, mask(used), BUILD, v))
    return moves


def next_actions(engine, moves) -> set[int]:
    """The sub-step ids that extend the prefix composed so far toward one of ``moves``."""
    prefix = engine.partial_prefix()
    out = set()
    for m in moves:
        seq = move_actions(engine.floor, m)
        if seq[: len(prefix)] == prefix and len(seq) > len(prefix):
            out.add(seq[len(prefix)])
    return out


def legal_actions(engine) -> set[int]:
    """The mask the rules allow now; at the first sub-step the engine's complete moves must be
    exactly the checker's."""
    moves = legal_moves(engine)
    if not engine.partial_prefix():
        engine_moves = set(engine.legal_moves())
        assert engine_moves == moves, (
            f"engine-only {sorted(engine_moves - moves)}, checker-only {sorted(moves - engine_moves)}; "
            f"floor {engine.floor}, hand {engine.hands[engine.turn]}"
        )
    return next_actions(engine, moves)
