"""What reading the next player's hand is worth in Sam Sip: how often a discard hands the next
player the hand, and how much a player gains by not discarding it.

Many of the hands the lookahead teacher plays against itself are won on the card the player
before discarded (``TAKE_DISCARD``; docs/samsip.md has how many). ``GuardedBot`` is that teacher with one more term in
its discard: the chance that the card completes the next player's hand, times ``weight``,
read one of two ways:

* ``source="estimate"`` (honest): the next player's hand dealt ``samples`` times from the cards
  the seat has not seen (their known cards kept), keeping only hands that would not have won on
  the card they discarded last (they drew to six and did not declare, and they have not drawn
  since);
* ``source="true"``: their true cards (a cheat: the bound of any reading of that hand).

``measure`` plays duplicate hands: each deal once with the guarded player at every seat (the
teacher at the others) and once with the teacher at every seat, and compares the same seats.
Command: ``python experiments/samsip_feeding.py --players 2 --deals 1000``
(docs/samsip.md, "Reading the next hand").
"""

from __future__ import annotations

import argparse
import random
import statistics

import numpy as np

from cardzoo.envs.base import action_mask
from cardzoo.envs.errors import UserError
from cardzoo.envs.samsip.actions import DISCARD_JOKER, NUM_ACTIONS, TAKE_DISCARD
from cardzoo.envs.samsip.config import DECK_SIZE, JOKER_KIND, SamSipConfig
from cardzoo.envs.samsip.engine import SamSipEngine, classify, kind_of
from cardzoo.envs.samsip.lookahead import LookaheadBot

SOURCES = ("estimate", "true")


class GuardedBot(LookaheadBot):
    """The lookahead teacher that also avoids discarding what completes the next player's hand
    (module docstring). It reads the engine (``act_seat``): the next player's last discard and
    known cards are public, the rest is its own hand, or with ``source="true"`` theirs."""

    name = "guarded"

    def __init__(
        self, config=None, seed: int | None = None, source: str = "estimate", weight: float = 1.0, samples: int = 200
    ):
        if source not in SOURCES:
            raise UserError(f"guarded: source must be one of {', '.join(SOURCES)}, got {source!r}")
        super().__init__(config, seed)
        self.source, self.weight, self.samples = source, weight, samples
        self.deals = random.Random(seed)  # the estimate's own stream: tie breaks stay the teacher's
        self._at: tuple[SamSipEngine, int] | None = None  # (engine, seat) of the decision being made

    def act(self, observation, action_mask) -> int:
        raise UserError("the guarded player reads the table it plays at: call act_seat(engine, seat, mask)")

    def act_seat(self, engine, seat: int, action_mask) -> int:
        self._at = (engine, seat)
        return super().act_seat(engine, seat, action_mask)

    def _choose_discard(self, d: dict, hand: list[int], legal: list[int]) -> int:
        discards = [a for a in legal if a <= DISCARD_JOKER]
        value = self.discard_values(d, discards) - self.weight * self.feeding(discards)
        return self.best(discards, value)

    def feeding(self, discards: list[int]) -> np.ndarray:
        """For each discard, the chance that it completes the next player's hand."""
        assert self._at is not None, "feeding is asked inside act_seat"
        engine, seat = self._at
        nxt = engine.next_active(seat)
        if self.source == "true":
            hands = [list(engine.hands[nxt])]
        else:
            hands = next_hands(engine, seat, self.deals, self.samples)
        joker = min((c for c in engine.hands[seat] if c >= JOKER_KIND), default=JOKER_KIND)
        cards = [joker if a == DISCARD_JOKER else a for a in discards]
        wins = np.zeros(len(cards))
        for h in hands:
            for i, c in enumerate(cards):
                wins[i] += wins_with(engine, h, c)
        return wins / max(1, len(hands))


def wins_with(engine: SamSipEngine, hand: list[int], card: int) -> bool:
    """Whether five cards and one more win in ``engine``'s hand (its wild and dead cards, its
    rule options)."""
    cfg = engine.config
    return bool(classify(hand + [card], engine.wild, engine.dead, cfg.wild_in_specials, cfg.special_multiplier))


def next_hands(engine: SamSipEngine, seat: int, rng: random.Random, samples: int) -> list[list[int]]:
    """Hands the next player may hold, as ``seat`` sees the table: their known cards plus cards
    dealt from those ``seat`` has not seen, without the hands that would have won on their last
    discard. Reads only ``seat``'s hand and the public record."""
    nxt = engine.next_active(seat)
    seen = set(engine.hands[seat]) | set(engine.dead_cards) | set(engine.buried) | {engine.indicator}
    pool = [c for c in range(DECK_SIZE) if c not in seen]
    held = []  # the next player's known cards (a joker's kind stands for any unseen joker)
    for s in range(engine.n):
        if s == seat or not engine.active[s]:
            continue
        for k in engine.known[s]:
            card = next(c for c in pool if kind_of(c) == k)
            pool.remove(card)
            if s == nxt:
                held.append(card)
    last = [kind for who, kind, _ in engine.events if who == nxt]
    shown = None
    if last:
        shown = last[-1] if last[-1] < JOKER_KIND else min(c for c in engine.wild if c >= JOKER_KIND)
    out = []
    for _ in range(samples):
        h = held + rng.sample(pool, 5 - len(held))
        if shown is None or not wins_with(engine, h, shown):
            out.append(h)
    return out


def _play_hand(config: SamSipConfig, deck: list[int], dealer: int, players: list) -> tuple[int | None, int | None]:
    """Play one hand from ``deck``: (its winner or None, the seat whose discard was taken to win
    or None)."""
    engine = SamSipEngine(config, random.Random(0))
    engine.dealer = dealer
    engine.deal(deck)
    while True:
        legal = engine.legal_actions()
        s = engine.acting_seat
        a = legal[0] if len(legal) == 1 else players[s].act_seat(engine, s, action_mask(NUM_ACTIONS, legal))
        # whose discard a win takes: a discard itself wins for the next seat only where the stock is out (P11)
        fed_by = engine.events[-1][0] if a == TAKE_DISCARD else s
        result = engine.step(a)
        if result is not None:
            return result.winner, fed_by if result.winner not in (None, fed_by) else None


def measure(players: int, deals: int, source: str, weight: float = 1.0, seed: int = 0) -> dict:
    """Duplicate hands, guarded player against the teacher (module docstring): per hand played, the
    hands the guarded seat won and the hands won on its discard, beside the same seats' with the
    teacher there; the difference in hands won with a 95% interval over deals."""
    config = SamSipConfig(num_players=players)
    won = [0, 0]  # guarded, teacher (the same seats)
    fed = [0, 0]
    diffs = []
    for i in range(deals):
        rng = random.Random(seed * 1_000_003 + i)
        deck = list(range(DECK_SIZE))
        rng.shuffle(deck)
        dealer = rng.randrange(players)
        seeds = [rng.getrandbits(32) for _ in range(players)]  # each seat's, in every seating
        base_winner, base_fed = _play_hand(config, deck, dealer, [LookaheadBot(config, x) for x in seeds])
        here = 0
        for pos in range(players):
            seated = [
                GuardedBot(config, x, source, weight) if s == pos else LookaheadBot(config, x)
                for s, x in enumerate(seeds)
            ]
            winner, fed_by = _play_hand(config, deck, dealer, seated)
            here += (winner == pos) - (base_winner == pos)
            won[0] += winner == pos
            fed[0] += fed_by == pos
        won[1] += base_winner is not None
        fed[1] += base_fed is not None
        diffs.append(here / players)
    hands = deals * players
    half = 1.96 * statistics.stdev(diffs) / deals**0.5 if deals > 1 else float("nan")
    gain = statistics.fmean(diffs)
    return {
        "players": players,
        "deals": deals,
        "source": source,
        "weight": weight,
        "seed": seed,
        "won": round(won[0] / hands, 4),
        "teacher_won": round(won[1] / hands, 4),
        "gain": round(gain, 4),
        "gain_ci": [round(gain - half, 4), round(gain + half, 4)],
        "fed": round(fed[0] / hands, 4),
        "teacher_fed": round(fed[1] / hands, 4),
    }


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--weight", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    if not 2 <= args.players <= 6 or args.deals < 2:
        raise SystemExit("feeding: --players must be 2..6 and --deals at least 2")
    for source in SOURCES:
        r = measure(args.players, args.deals, source, args.weight, args.seed)
        print(
            f"{source:>8}: hands won {r['won']:.3f} (teacher at the same seats {r['teacher_won']:.3f}), "
            f"gain {r['gain']:+.3f} [{r['gain_ci'][0]:+.3f}, {r['gain_ci'][1]:+.3f}]; "
            f"won on its discard {r['fed']:.3f} (teacher {r['teacher_fed']:.3f})",
            flush=True,
        )


if __name__ == "__main__":
    main()
