"""Chance in a match, card by card, as luck-adjusted evaluation sees it (docs/evaluation.md).

Chance is told one **slot** at a time: which of a few possibilities happened, each with its
probability under the rules. A card drawn from the stock is one slot over the cards it could be
(uniform over those nobody has seen and whose place nobody knows); a deal is told card by card in a
fixed card order, each slot saying where that card went, with probability proportional to the
places each hand (and the undealt rest) still has to fill — exactly the uniform shuffle, with at
most a few possibilities per slot. The expectation over each slot is then an exact enumeration.

A game's ``CHANCE`` (declared in its public module) is a ``ChanceModel``: it reads an engine as a
**state** — where every card is (a location code per card: ``0 .. n-1`` the hands of the seats,
``n`` the unseen cards (the pool), then the game's own public places) and a few numbers that chance does not
decide (scores, chips, dealer, round) — and lists the chance events of a match: the first deal
(``deal_events``) and those of each step (``step_events``). ``seat_view`` turns states into what a
value function sees from one seat (codes and numbers relative to that seat), the same for every
game.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Slot:
    """One thing chance decided: which of ``options`` (card, location) happened, option ``actual``;
    option i had probability ``weights[i] / sum(weights)``."""

    options: tuple[tuple[int, int], ...]
    weights: tuple[float, ...]
    actual: int

    @staticmethod
    def draw(card: int, dest: int, candidates) -> Slot:
        """A card drawn to ``dest``, uniform over ``candidates`` (which hold ``card``)."""
        cands = tuple(candidates)
        return Slot(tuple((c, dest) for c in cands), (1.0,) * len(cands), cands.index(card))


@dataclass
class ChanceEvent:
    """Cards dealt one after another from the state (``loc``, ``ctx``): each slot's card goes to
    its ``dest`` before the next slot is dealt."""

    loc: np.ndarray  # int location code per card before the first slot
    ctx: np.ndarray  # the numbers of the state (float)
    slots: list[Slot]
    before_step: bool = False  # the state is the one before the step (its reward still to come)


class ChanceModel:
    """What chance does in one game (see the module docstring). A subclass sets ``deck`` (cards),
    ``places`` (public places per seat), ``shared`` (public places of nobody), ``seat_numbers`` and
    ``shared_numbers`` (the state's numbers: a block per seat, then the shared ones) and implements
    ``state``, ``deal_events`` and ``step_events``."""

    deck = 52
    places = 0  # location codes per seat beyond its hand (e.g. what the seat captured)
    shared = 0  # location codes of nobody's public places (the table, the dead cards)
    seat_numbers = 1
    shared_numbers = 0

    def __init__(self, n: int):
        self.n = n
        self.pool = n  # location code of the unseen cards

    # ---------------------------------------------------------------- layout
    @property
    def codes(self) -> int:
        """Location codes: the n hands, the pool, ``places`` per seat, then the shared places."""
        return self.n + 1 + self.places * self.n + self.shared

    def place(self, kind: int, seat: int) -> int:
        """The location code of a seat's public place number ``kind`` (0 .. places-1)."""
        return self.n + 1 + kind * self.n + seat

    def shared_place(self, kind: int) -> int:
        return self.n + 1 + self.places * self.n + kind

    @property
    def numbers(self) -> int:
        return self.seat_numbers * self.n + self.shared_numbers

    def relative_codes(self, seat: int) -> np.ndarray:
        """Code -> the same place seen from ``seat`` (its own hand 0, the next seat's 1, ...)."""
        n = self.n
        out = np.arange(self.codes)
        out[:n] = (np.arange(n) - seat) % n
        for k in range(self.places):
            base = self.place(k, 0)
            out[base : base + n] = base + (np.arange(n) - seat) % n
        return out

    def seat_view(self, loc: np.ndarray, ctx: np.ndarray, seat: int) -> tuple[np.ndarray, np.ndarray]:
        """States (``loc`` (B, deck), ``ctx`` (B, numbers)) as ``seat`` sees them: location codes
        and per-seat numbers rotated so that the seat is seat 0."""
        rel = self.relative_codes(seat)[loc]
        k, n = self.seat_numbers, self.n
        per = np.roll(ctx[:, : k * n].reshape(len(ctx), n, k), -seat, axis=1)
        return rel, np.concatenate([per.reshape(len(ctx), k * n), ctx[:, k * n :]], axis=1)

    # ---------------------------------------------------------------- the game's part
    def state(self, engine) -> tuple[np.ndarray, np.ndarray]:
        """(location code per card, numbers) of a full-information state."""
        raise NotImplementedError

    def deal_events(self, engine) -> list[ChanceEvent]:
        """The chance events of the first deal of a freshly dealt ``engine``."""
        raise NotImplementedError

    def step_events(self, before, action: int, after) -> list[ChanceEvent]:
        """The chance events of the step that took ``before`` (a clone) to ``after`` by ``action``."""
        raise NotImplementedError

    def segment(self, engine) -> int:
        """The part of the match in progress whose rewards a value network predicts (a hand, a deal,
        a round: what one deal of the cards decides); the whole match by default."""
        return 0

    # ---------------------------------------------------------------- helpers for the games
    def empty(self) -> np.ndarray:
        return np.full(self.deck, self.pool, dtype=np.int64)

    def dealt(self, ctx: np.ndarray, dest_of: dict[int, int], start: np.ndarray | None = None) -> ChanceEvent:
        """A deal from a shuffled deck: the cards of ``dest_of`` (card -> location) went there, every
        other unseen card of ``start`` (default: all unseen) stays unseen. Told card by card in card
        order, where each card went: a location with probability of its places still to fill (the
        pool's: the unseen cards not dealt) over the cards still to tell, which is the uniform deal."""
        loc = self.empty() if start is None else start.copy()
        cards = [c for c in range(self.deck) if loc[c] == self.pool]
        room: dict[int, int] = {}
        for c in cards:
            d = dest_of.get(c, self.pool)
            room[d] = room.get(d, 0) + 1
        slots = []
        for c in cards:
            open_ = sorted(d for d, k in room.items() if k > 0)
            d = dest_of.get(c, self.pool)
            if len(open_) > 1:
                slots.append(Slot(tuple((c, x) for x in open_), tuple(float(room[x]) for x in open_), open_.index(d)))
            else:
                slots.append(Slot(((c, d),), (1.0,), 0))
            room[d] -= 1
        return ChanceEvent(loc, ctx, slots)
