"""Rule-based Suipi bot. It decides from the observation vector and the action mask only.

It decodes its hand and the floor from the observation (encoding.decode), enumerates its legal
complete moves with the engine's pure move generator, scores each one and plays the best one
sub-step by sub-step. The plan is kept between calls and re-derived from the observation's
partial move, so the emitted sub-steps always form one consistent move.

Scoring (in "card points x 10" units):
* capture: 10 per point card, 1 per card, 1.5 per spade, +25 for a suipi;
* build: 0.7 x the value of capturing it next turn, minus the chance an opponent holds its value;
* drop: minus the value of the card given away (point cards, spades) and a small base cost;
* every move: minus the risk of leaving the next opponent an easy suipi (the whole floor taken by
  one card value), weighted by the chance they hold such a card, and minus exposed point cards.
"""

from __future__ import annotations

import random

import numpy as np

from cardzoo.envs.suipi import encoding as enc
from cardzoo.envs.suipi.actions import BUILD, CAPTURE, CARDS, ITEM0, NVAL, OWNER, REP, move_actions
from cardzoo.envs.suipi.config import SuipiConfig
from cardzoo.envs.suipi.engine import (
    CARD_KEY,
    IS_SPADE,
    POINTS_11,
    POINTS_23,
    _loose_subsets,
    _unions,
    card_points,
    card_values,
    legal_moves,
)

SUIPI_BONUS = 25.0


class RuleBot:
    name = "rules"

    def __init__(self, config: SuipiConfig | dict | None = None, seed: int | None = None):
        if isinstance(config, dict):
            config = SuipiConfig(**config)
        self.config = config
        self.rng = random.Random(seed)
        # (the position's signature, the planned move's sub-step ids)
        self._plan: tuple[tuple[tuple[int, ...], tuple[int, ...]], tuple[int, ...]] | None = None
        self._rest: tuple[int, ...] = ()  # the sub-steps of the plan after the one ``act`` last returned
        self._cfg_cache: dict[tuple[int, int], SuipiConfig] = {}

    def reset(self) -> None:
        self._plan = None
        self._rest = ()

    # --------------------------------------------------------------- helpers
    def _config_for(self, view) -> SuipiConfig:
        cfg = self.config
        if cfg is not None and cfg.num_players == view.num_players and cfg.point_game == view.point_game:
            return cfg
        key = (view.num_players, view.point_game)
        if key not in self._cfg_cache:
            base = {} if cfg is None else {f: getattr(cfg, f) for f in cfg.__dataclass_fields__}
            base.update(num_players=view.num_players, point_game=view.point_game)
            self._cfg_cache[key] = SuipiConfig(**base)
        return self._cfg_cache[key]

    def act(self, observation, action_mask) -> int:
        return self._act(action_mask, lambda: enc.decode(observation, self.config))

    def act_seat(self, engine, seat: int, action_mask) -> int:
        """``act(encode(engine, seat), action_mask)`` without the vector: the same move, read from
        the view of what ``seat`` sees (``encoding.view_of``, equal to the decoded observation
        field for field); the collectors' fast path for rule-bot opponents."""
        return self._act(action_mask, lambda: enc.view_of(engine, seat))

    def _act(self, action_mask, read_view) -> int:
        mask = np.asarray(action_mask)
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError("RuleBot got an empty action mask: this seat is not acting")
        self._rest = ()
        if legal.size == 1:
            return int(legal[0])
        view = read_view()
        prefix: tuple[int, ...] = ()
        if view.partial_hand is not None:
            prefix = (view.partial_hand, *(ITEM0 + r for r in view.partial_items))
        sig = (tuple(view.hand), tuple(it[REP] for it in view.floor))
        plan = self._plan
        if plan is not None and plan[0] == sig and plan[1][: len(prefix)] == prefix:
            nxt = plan[1][len(prefix)]
            if mask[nxt]:
                self._rest = plan[1][len(prefix) + 1 :]
                return int(nxt)
        cfg = self._config_for(view)
        floor = view.floor
        seqs, moves = [], []
        for mv in legal_moves(cfg, view.hand, floor, 0):
            seq = move_actions(floor, mv)
            if seq[: len(prefix)] == prefix and mask[seq[len(prefix)]]:
                seqs.append(seq)
                moves.append(mv)
        best, best_score = None, None
        for seq, score in zip(seqs, self.scores(cfg, view, moves)):
            s = score + self.rng.random() * 1e-3
            if best_score is None or s > best_score:
                best, best_score = seq, s
        if best is None:  # should not happen; stay legal
            return int(legal[self.rng.randrange(legal.size)])
        self._plan = (sig, best)
        self._rest = best[len(prefix) + 1 :]
        return int(best[len(prefix)])

    def pending_steps(self) -> tuple:
        """The sub-steps the bot will play next, in order, whatever it is shown (the rest of the
        move its last ``act`` began or continued); () when it must be asked again. Batched
        collectors play them without decoding the observation again."""
        return tuple(int(a) for a in self._rest)

    def planned_move(self) -> tuple | None:
        """Action ids of the complete move the bot is playing (the plan of its last real choice;
        None before its first). Move-ranking trainers read the bot's choice from it."""
        return None if self._plan is None else self._plan[1]

    def seat_scores(self, engine, seat: int, moves: list) -> list[float]:
        """The bot's scores of ``moves`` (complete moves of ``seat`` on ``engine``'s floor), read
        from the view of what ``seat`` sees, negated: lower is better, as the belief-aware
        expert's model of how a seat plays reads them (``cardzoo.training.agents.belief``)."""
        view = enc.view_of(engine, seat)  # its floor sorted by representative card
        order = sorted(range(len(engine.floor)), key=lambda i: engine.floor[i][REP])
        where = [0] * len(order)
        for j, i in enumerate(order):
            where[i] = j
        seen = [
            (h, sum(1 << where[i] for i in range(len(where)) if mask >> i & 1), kind, v) for h, mask, kind, v in moves
        ]
        return [-score for score in self.scores(self._config_for(view), view, seen)]

    # --------------------------------------------------------------- scoring
    def _card_value(self, cfg, cards) -> float:
        """10 per point, 1 per card, 1.5 per spade: each card's worth from a table, summed in order."""
        return sum(map(_WORTH[cfg.court_values].__getitem__, cards))

    def odds(self, view, cfg) -> _Odds:
        """What ``scores`` needs of the unseen cards, computed once per decision."""
        nxt = view.hand_sizes[1] if len(view.hand_sizes) > 1 else 1  # the next player's cards
        return _Odds(self._unknown(view), card_values(cfg), max(1, nxt))

    def scores(self, cfg, view, moves: list, odds: _Odds | None = None) -> list[float]:
        """The score of each of ``moves`` (complete moves on ``view``'s floor; the scheme in the
        module docstring). What a move leaves on the floor is read from per-item facts worked out
        once per decision (the sweep test's key of each item, its exposed points)."""
        floor = view.floor
        n = len(floor)
        odds = odds or self.odds(view, cfg)
        nv, worth, pts = odds.nv, _WORTH[cfg.court_values], card_points(cfg)
        sweep_keys = [(it[0], it[NVAL], it[OWNER] < 0) for it in floor]
        exposed_of = [pts[it[CARDS][0]] if it[OWNER] < 0 else 0 for it in floor]
        out = []
        for h, mask, kind, v in moves:
            kept = [i for i in range(n) if not mask >> i & 1]  # the items the move leaves
            cards = [h]  # the hand card and the items the move takes or builds on
            for i in range(n):
                if mask >> i & 1:
                    cards.extend(floor[i][CARDS])
            keys = [sweep_keys[i] for i in kept]
            exposed = sum(exposed_of[i] for i in kept)  # loose point cards left (an int: exact)
            added = None  # the item the move lays on the floor
            if kind == CAPTURE:
                score = sum(map(worth.__getitem__, cards)) + 2.0
                if not kept and (not self._final_capture(view) or cfg.final_capture_is_suipi):
                    score += SUIPI_BONUS
            elif kind == BUILD:
                score = 0.7 * sum(map(worth.__getitem__, cards)) * (1.0 - 0.8 * odds.p_holds(v)) - 0.5
                added = (v, v, tuple(cards), 0, True, min(cards))
                keys.append((v, v, False))
            else:  # DROP
                score = -(0.6 * worth[h] + 1.0)
                key = (h >> 2) + 1
                added = (key, nv[h], (h,), -1, False, h)
                keys.append((key, nv[h], True))
                exposed += pts[h]
            if keys:
                sweep_vals = self._sweep_values(cfg, keys, floor, kept, added)  # an easy suipi left to the next player?
                if sweep_vals:
                    p = min(1.0, sum(odds.p_holds(w, key=w) for w in sweep_vals))
                    rest = _left(floor, kept, added)
                    floor_val = self._card_value(cfg, [c for it in rest for c in it[CARDS] if it[OWNER] != 0])
                    score -= p * (SUIPI_BONUS + 0.5 * floor_val)
                score -= 1.5 * exposed  # exposed point cards in loose form
            out.append(score)
        return out

    @staticmethod
    def _final_capture(view) -> bool:
        """Whether a capture now is the deal's last move, by what the seat sees (a suipi then
        only where the ``final_capture_is_suipi`` variant says so)."""
        return (
            view.stock == 0
            and all(s <= 1 for s in view.hand_sizes)
            and len(view.hand) == 1
            and all(s == 0 for s in view.hand_sizes[1:])
        )

    @staticmethod
    def _unknown(view) -> set[int]:
        """The cards the seat has not seen (not in its hand, on the floor or in a captured pile)."""
        unseen = set(_DECK)
        unseen.difference_update(view.hand, *[it[CARDS] for it in view.floor], *view.captured)
        return unseen

    @staticmethod
    def _sweep_values(cfg, keys: list, floor, kept: list, added) -> tuple[int, ...]:
        """Values w such that one card of value w could take every item a move leaves on the floor
        (``_left``): a function of those items' ``keys`` (key, value, loose) and two rule
        options, remembered by them."""
        key = (cfg.vmax, cfg.sum_group_size, *keys)
        out = _SWEEPS.get(key)
        if out is None:
            if len(_SWEEPS) >= _SWEEPS_KEPT:
                _SWEEPS.clear()
            out = _SWEEPS[key] = tuple(RuleBot._find_sweep_values(cfg, _left(floor, kept, added)))
        return out

    @staticmethod
    def _find_sweep_values(cfg, items) -> list[int]:
        if len(items) == 1 and items[0][NVAL] == 0:
            return [items[0][0]]  # a lone court card: same rank sweeps it
        if any(it[NVAL] == 0 for it in items):
            return []
        total = sum(it[NVAL] for it in items)
        full = (1 << len(items)) - 1
        out = []
        _, multi, pair = _loose_subsets(items, cfg.vmax)
        sg = pair if cfg.sum_group_size == "exactly_2" else multi
        for w in range(1, cfg.vmax + 1):
            if total % w:
                continue
            groups = [1 << i for i, it in enumerate(items) if it[NVAL] == w] + sg[w]
            if full in _unions(groups):
                out.append(w)
        return out


def _left(floor, kept: list, added) -> list:
    """The floor items a move leaves: those at ``kept``, then the one it lays (``added``, or None)."""
    return [floor[i] for i in kept] + ([added] if added else [])


_DECK = range(52)
_WORTH = {
    courts: tuple(10.0 * pts[c] + 1.0 + 1.5 * IS_SPADE[c] for c in range(52))
    for courts, pts in ((False, POINTS_11), (True, POINTS_23))
}  # card_points(cfg) by cfg.court_values
_SWEEPS: dict[tuple, tuple[int, ...]] = {}  # _sweep_values by its key (a cache, cleared when full)
_SWEEPS_KEPT = 50_000


class _Odds:
    """The unseen cards of one decision, counted by value and by rank: ``p_holds`` is the rough
    chance that the next opponent's ``k`` cards hold a card of value ``v`` (or of the court rank
    ``key``)."""

    __slots__ = ("nv", "k", "total", "by_value", "by_rank")

    def __init__(self, unknown, nv, k: int):
        self.nv, self.k, self.total = nv, k, len(unknown)
        by_value, by_rank = [0] * 14, [0] * 14  # unseen cards per numeric value (0: valueless) / per rank key
        for c in unknown:
            by_value[nv[c]] += 1
            by_rank[CARD_KEY[c]] += 1
        self.by_value, self.by_rank = by_value, by_rank

    def p_holds(self, v: int, key: int | None = None) -> float:
        if not self.total:
            return 0.0
        if key is not None and key > 10 and self.nv[4 * (key - 1)] == 0:
            cnt = self.by_rank[key]
        else:
            cnt = self.by_value[v]
        return min(1.0, self.k * cnt / self.total)
