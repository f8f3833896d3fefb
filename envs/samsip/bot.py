"""A rule-based Sam Sip player that decides from the observation vector and the mask only.

* Declares a win whenever ``declare`` is legal.
* Draw: takes the discard in front of it when that completes a pair (or a win, or it is wild);
  otherwise draws from the stock.
* Discard: keeps the cards that pair. It discards the card whose removal leaves the most pairs,
  then the best chance of pairing the leftover singles (counting the partner cards and wild cards
  it has not seen), avoiding a card that pairs with one the next player is known to hold.
"""

from __future__ import annotations

import random

import numpy as np

from cardzoo.envs.samsip.actions import DECLARE, DISCARD_JOKER, DRAW_STOCK, TAKE_DISCARD
from cardzoo.envs.samsip.config import JOKER_KIND, SamSipConfig
from cardzoo.envs.samsip.encoding import decode, view_of
from cardzoo.envs.samsip.engine import PARTNER, classify, pairs_formed

_CLASSES = tuple(r for r in range(13) if PARTNER[r] >= r)  # each pairing class by its lower rank


class RuleBot:
    name = "rules"

    def __init__(self, config: SamSipConfig | None = None, seed: int | None = None):
        self.config = config or SamSipConfig()
        self.rng = random.Random(seed)

    def reset(self) -> None:
        pass

    def act(self, observation, action_mask) -> int:
        return self._act(action_mask, lambda: decode(observation))

    def act_seat(self, engine, seat: int, action_mask) -> int:
        """``act(encode(engine, seat), action_mask)`` without the vector: the same move, read from
        the view of what ``seat`` sees (``encoding.view_of``, equal to the decoded observation key
        for key); the fast path of the collectors' and the expert's scripted players."""
        return self._act(action_mask, lambda: view_of(engine, seat))

    def _act(self, action_mask, read_view) -> int:
        legal = [int(a) for a in np.flatnonzero(action_mask)]
        if not legal:
            raise ValueError(f"{type(self).__name__} got an empty action mask: this seat is not acting")
        if DECLARE in legal:
            return DECLARE
        if len(legal) == 1:
            return legal[0]
        return self.choose(read_view(), legal)

    def choose(self, d: dict, legal: list[int]) -> int:
        """The move for the decoded view ``d`` (``decode``) among the ids ``legal``."""
        if DECLARE in legal:
            return DECLARE
        self._wild = d["wild"]
        self._dead = d["dead"]
        if TAKE_DISCARD in legal or DRAW_STOCK in legal:
            return self._choose_draw(d, legal)
        return self._choose_discard(d, d["hand"], legal)

    def _choose_draw(self, d: dict, legal: list[int]) -> int:
        hand, live = d["hand"], d["live"]
        if TAKE_DISCARD in legal and live >= 0:
            with_live = hand + [live]
            if live in self._wild or self._wins(with_live):
                return TAKE_DISCARD
            if self._pairs(with_live) > self._pairs(hand):
                return TAKE_DISCARD
        return DRAW_STOCK

    # ------------------------------------------------------------------ helpers
    def _split(self, kinds):
        counts = [0] * 13
        w = dead = 0
        for k in kinds:
            if k in self._wild:
                w += 1
            elif k in self._dead:
                dead += 1
            else:
                counts[k >> 2] += 1
        return counts, w, dead

    def _pairs(self, kinds) -> int:
        counts, w, dead = self._split(kinds)
        return pairs_formed(counts, w, dead)

    def _wins(self, kinds) -> bool:
        cfg = self.config
        return bool(classify(kinds, self._wild, self._dead, cfg.wild_in_specials, cfg.special_multiplier))

    def _unseen(self, d, hand) -> list[int]:
        unseen = [1] * JOKER_KIND + [3]
        seen = list(hand) + d["dead_pile"] + [d["indicator"]]
        if d["live"] >= 0:
            seen.append(d["live"])
        for kn in d["known"]:
            seen += kn
        for k in seen:
            unseen[k] = max(0, unseen[k] - 1)
        return unseen

    def _score(self, counts, w: int, dead: int, unseen_rank, unseen_wild, classes=_CLASSES) -> tuple[int, float]:
        """(pairs formed, the score: pairs, then the chance of pairing the leftover singles) of the
        cards split as ``_split`` does; ``classes``: the pairing classes (each rank r with its
        partner p >= r) to look at, by default all, or those of a hand that holds these cards."""
        pairs = pairs_formed(counts, w, dead)
        singles: list[int] = []  # outs for each leftover single (sorted below: their order is free)
        for r in classes:
            p = PARTNER[r]
            left = counts[r] % 2 if p == r else max(0, counts[r] - counts[p])
            singles += [unseen_rank[p] + unseen_wild] * left
            if p != r:
                singles += [unseen_rank[r] + unseen_wild] * max(0, counts[p] - counts[r])
        singles += [unseen_wild] * dead
        singles.sort()
        singles = singles[w:]  # wild cards pair the hardest singles
        potential = sum(singles) / (1 + len(singles))
        return pairs, pairs * 100 + potential

    def discard_scores(self, d: dict, legal: list[int]) -> list[float]:
        """The bot's score of each legal discard of the decoded view ``d`` (higher is better)."""
        return self.discard_facts(d, legal)[0]

    def discard_facts(self, d: dict, legal: list[int]) -> tuple[list[float], list[int], list[bool]]:
        """Of each legal discard of the decoded view ``d``: the bot's score (higher is better), the
        pairs the cards kept form, and whether the card pairs with one the next player is known to
        hold. Move rankers (``cardzoo.envs.samsip.whole_moves``) read all three as features."""
        hand = d["hand"]
        self._wild, self._dead = d["wild"], d["dead"]
        unseen = self._unseen(d, hand)
        unseen_wild = sum(unseen[k] for k in self._wild)
        unseen_rank = [0] * 13
        for k in range(JOKER_KIND):
            if k not in self._wild and k not in self._dead:
                unseen_rank[k >> 2] += unseen[k]
        nxt_known = d["known"][1] if d["num_players"] > 1 else []
        nxt_pairs = self._pairs(nxt_known) if nxt_known else 0
        counts, w, dead = self._split(hand)  # the whole hand's, one card taken off per discard below
        classes = sorted({min(r, PARTNER[r]) for r in range(13) if counts[r]})  # the only ones with singles
        scores, pairs, feeds = [], [], []
        for a in legal:
            card = JOKER_KIND if a == DISCARD_JOKER else a
            kept = list(counts)
            if card in self._wild:
                p, score = self._score(kept, w - 1, dead, unseen_rank, unseen_wild, classes)
                score -= 50  # never give away a wild card while another choice is as good
            elif card in self._dead:
                p, score = self._score(kept, w, dead - 1, unseen_rank, unseen_wild, classes)
            else:
                kept[card >> 2] -= 1
                p, score = self._score(kept, w, dead, unseen_rank, unseen_wild, classes)
            feeding = bool(nxt_known) and self._pairs(nxt_known + [card]) > nxt_pairs
            if feeding:
                score -= 5
            scores.append(score)
            pairs.append(p)
            feeds.append(feeding)
        return scores, pairs, feeds

    def _choose_discard(self, d, hand, legal) -> int:
        best, best_score = [], None
        for a, score in zip(legal, self.discard_scores(d, legal)):
            if best_score is None or score > best_score + 1e-9:
                best, best_score = [a], score
            elif abs(score - best_score) <= 1e-9:
                best.append(a)
        return best[0] if len(best) == 1 else self.rng.choice(best)
