"""A Sam Sip player that looks a few draws ahead: the teacher of the Sam Sip move ranker.

It decides from the observation and the mask only, like the rule bot, and differs where the
rule bot guesses: it keeps the 5 cards with the best chance of completing three pairs within its
next ``depth`` draws (``cardzoo.envs.samsip.outs``, over the cards it has not seen; a completion a draw
later counts ``gamma`` times less, since the other players race for theirs), and it takes the
discard in front of it only when that chance beats drawing from the stock. Equal chances are
broken by the rule bot's discard score (which also avoids giving away wild cards and feeding the
next player). Measured against the rule bot in docs/samsip.md.
"""

from __future__ import annotations

import numpy as np

from cardzoo.envs.samsip.actions import DISCARD_JOKER, DRAW_STOCK, TAKE_DISCARD
from cardzoo.envs.samsip.bot import RuleBot
from cardzoo.envs.samsip.config import JOKER_KIND
from cardzoo.envs.samsip.engine import TOK_DEAD, TOK_WILD
from cardzoo.envs.samsip.outs import NUM_TYPES, Chances, card_type, tables

_RANK_OF_KIND = tuple(kind >> 2 for kind in range(JOKER_KIND + 1))  # a kind's pairing type when neither wild nor dead
_TIE = 1e-6  # weight of the rule bot's score: it only breaks ties between equal chances


class LookaheadBot(RuleBot):
    name = "lookahead"

    def __init__(self, config=None, seed: int | None = None, depth: int = 2, gamma: float = 0.85):
        super().__init__(config, seed)
        self.depth, self.gamma = depth, gamma
        tables()  # built once per process (about a second) when a player is made, not on its first move

    def draw_probabilities(self, d: dict) -> np.ndarray:
        """Chance that a card this seat has not seen is of each pairing type."""
        types = list(_RANK_OF_KIND)  # card_type of every kind
        for kind in d["dead"]:
            types[kind] = TOK_DEAD
        for kind in d["wild"]:
            types[kind] = TOK_WILD
        counts = [0] * NUM_TYPES
        for kind, n in enumerate(self._unseen(d, d["hand"])):
            counts[types[kind]] += n
        p = np.array(counts, dtype=np.float32)
        total = p.sum()  # counts: exact in float32
        return p / total if total else p

    @staticmethod
    def hand_index(d: dict, kinds) -> int:
        return tables().index5[tables().key([card_type(k, d["wild"], d["dead"]) for k in kinds])]

    def _choose_draw(self, d: dict, legal: list[int]) -> int:
        if TAKE_DISCARD in legal and self._take_beats_stock(d, self.draw_probabilities(d)):
            return TAKE_DISCARD
        return DRAW_STOCK

    def _choose_discard(self, d: dict, hand: list[int], legal: list[int]) -> int:
        discards = [a for a in legal if a <= DISCARD_JOKER]
        return self.best(discards, self.discard_values(d, discards))

    def discard_values(self, d: dict, discards: list[int]) -> np.ndarray:
        """The value of each discard of the hand in ``d``: the chance the cards kept complete,
        ties broken by the rule bot's score."""
        kept, _ = kept_indices(d, discards)
        chances = Chances(self.draw_probabilities(d), self.gamma).of(self.depth, kept)
        return chances + _TIE * np.asarray(self.discard_scores(d, discards))

    def best(self, moves: list[int], value: np.ndarray) -> int:
        """The move of highest value; equals broken at random."""
        best = [a for a, v in zip(moves, value) if v >= value.max() - 1e-12]
        return best[0] if len(best) == 1 else self.rng.choice(best)

    def _take_beats_stock(self, d: dict, p: np.ndarray) -> bool:
        hand, live = d["hand"], d["live"]
        if self._wins(hand + [live]):
            return True
        here = self.hand_index(d, hand)
        keeps = tables().kept[tables().draw[here, card_type(live, d["wild"], d["dead"])]]
        # the hands a take keeps are filled at depth `self.depth` as reachable from `here`, except
        # at depth 1 (filled where depth 2 is): asked with it there
        asked = [here] if self.depth > 1 else [here, *keeps]
        solved = Chances(p, self.gamma).solve(self.depth + 1, asked)
        take = self.gamma * solved[self.depth - 1][keeps].max()
        stock = solved[self.depth][here]
        return take > stock + 1e-9


def kept_indices(d: dict, discards: list[int], itself: bool = False) -> tuple[list[int], int]:
    """(the ``hand_index`` of the hand each of ``discards`` leaves; with ``itself``, that of the
    5-card hand itself, else -1), from the hand's counts by pairing type (the tables' key): one
    card of the discarded kind's type fewer for each discard."""
    index5, wild, dead = tables().index5, d["wild"], d["dead"]
    counts = [0] * NUM_TYPES
    for kind in d["hand"]:
        counts[card_type(kind, wild, dead)] += 1
    kept = []
    for a in discards:
        gone = card_type(JOKER_KIND if a == DISCARD_JOKER else a, wild, dead)
        counts[gone] -= 1
        kept.append(index5[tuple(counts)])
        counts[gone] += 1
    return kept, index5[tuple(counts)] if itself else -1
