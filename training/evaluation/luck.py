"""Luck-adjusted results (AIVAT-style control variates; docs/evaluation.md, "Luck adjustment").

A match's raw result for a seat is its total reward. At every chance event (``cardzoo.envs.chance``:
each card of a deal, each stock draw) and at every decision of an agent whose policy is known and
stochastic (``action_probs``: ``random``), a value function V of the full-information state says
how much the outcome that happened was worth against the outcomes that could have happened:

    correction = V(what happened) - sum over the possibilities p * V(possibility)

with the possibilities and their probabilities enumerated exactly (the rules' chance, the agent's
own policy). The adjusted result is the raw result minus the sum of a match's corrections. Each
correction has expectation zero given everything before it, whatever V is, so the adjusted result
has the raw result's expectation (it is unbiased); the better V predicts results, the more of the
luck it takes out. V predicts, for every seat at once, the reward still to come in the segment in
progress (``ChanceModel.segment``: the hand, deal or round that one deal of the cards decides; from
the state before the step where the event starts there, so that the step's own reward counts).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from cardzoo.envs.chance import ChanceEvent, ChanceModel
from cardzoo.envs.errors import UserError
from cardzoo.envs.registry import game_module

# V: (location codes [B, deck], numbers [B, m]) -> the value of each state for every seat [B, n]
ValueFn = Callable[[np.ndarray, np.ndarray], np.ndarray]

ADJUST_CHOICES = ("luck", "none")
SOURCES = ("first deal", "draws", "later deals", "policy")  # where a correction's luck came from


def chance_model(game: str, players: int) -> ChanceModel | None:
    """The game's chance model at this player count, or None where the game declares none."""
    cls = getattr(game_module(game), "CHANCE", None)
    return None if cls is None else cls(players)


class NetValue:
    """A value network (numpy ``ValueMLP``) as a ``ValueFn``: each seat's view in turn."""

    def __init__(self, net, model: ChanceModel):
        if (net.deck, net.codes, net.numbers) != (model.deck, model.codes, model.numbers):
            raise UserError(
                f"the value network reads {net.deck} cards x {net.codes} places + {net.numbers} numbers, "
                f"the game's chance model {model.deck} x {model.codes} + {model.numbers}"
            )
        self.net, self.model = net, model

    def __call__(self, loc: np.ndarray, ctx: np.ndarray) -> np.ndarray:
        out = np.empty((len(loc), self.model.n))
        for seat in range(self.model.n):
            codes, numbers = self.model.seat_view(loc, ctx, seat)
            out[:, seat] = self.net.values(codes, numbers)
        return out


class LuckTracker:
    """The corrections of one match, step by step: ``start(engine)`` after the deal, then
    ``step(before, action, after, probs)`` for every step (``before`` a clone of the engine
    before it, ``probs`` the acting agent's policy over action ids where it is known, else None).
    ``corrections`` per seat; ``samples`` (when ``record``) the states V was asked about with the
    rewards earned before each, for training a value network."""

    def __init__(self, model: ChanceModel, value: ValueFn, record: bool = False):
        self.model, self.value = model, value
        self.corrections = np.zeros(model.n)
        self.sources = {k: np.zeros(model.n) for k in SOURCES}  # the corrections by where the luck came from
        self.earned = np.zeros(model.n)  # rewards so far (the step's own not yet)
        self.samples: list[tuple[np.ndarray, np.ndarray, np.ndarray, int]] | None = [] if record else None
        self.segment = 0  # the segment in progress (ChanceModel.segment) and the rewards at each one's end
        self.segment_end: dict[int, np.ndarray] = {}

    def start(self, engine) -> None:
        self.segment = self.model.segment(engine)
        for ev in self.model.deal_events(engine):
            self._chance(ev, "first deal", self.segment)

    def step(self, before, action: int, after, rewards: dict[int, float], probs: np.ndarray | None = None) -> None:
        """One step: ``rewards`` what it paid each seat."""
        if probs is not None:
            self._policy(before, action, probs)
        paid = False
        for ev in self.model.step_events(before, action, after):
            if not ev.before_step and not paid:
                self._earn(rewards)
                paid = True
            segment = self.model.segment(before if ev.before_step else after)
            self._chance(ev, "draws" if ev.before_step else "later deals", segment)
        if not paid:
            self._earn(rewards)
        segment = self.model.segment(after)
        if segment != self.segment:
            self.segment_end[self.segment] = self.earned.copy()
            self.segment = segment

    def _earn(self, rewards: dict[int, float]) -> None:
        for seat, r in rewards.items():
            self.earned[seat] += r

    def _chance(self, ev: ChanceEvent, source: str, segment: int) -> None:
        """Every slot of the event at once: one batch of V over all their possibilities."""
        loc = ev.loc.copy()
        rows: list[np.ndarray] = []
        slots = []
        for slot in ev.slots:
            if len(slot.options) > 1:
                slots.append((len(rows), slot))
                for card, dest in slot.options:
                    row = loc.copy()
                    row[card] = dest
                    rows.append(row)
            card, dest = slot.options[slot.actual]
            loc[card] = dest
        if not rows:
            return
        values = self.value(np.stack(rows), np.repeat(ev.ctx[None], len(rows), axis=0))
        for first, slot in slots:
            w = np.asarray(slot.weights)
            v = values[first : first + len(w)]
            c = v[slot.actual] - w @ v / w.sum()
            self.corrections += c
            self.sources[source] += c
            self._record(rows[first + slot.actual], ev.ctx, segment)

    def _policy(self, before, action: int, probs: np.ndarray) -> None:
        """A known policy's decision: Q of each action it could take: V of the state after it (or
        of the state its first chance event starts from), plus the step's reward where that state
        comes after the step."""
        acts = np.flatnonzero(probs)
        if len(acts) < 2:
            return
        locs, ctxs, paid = [], [], np.zeros((len(acts), self.model.n))
        for i, a in enumerate(acts):
            eng = before.clone()
            out = eng.apply_action(int(a))
            events = self.model.step_events(before, int(a), eng)
            loc, ctx = (events[0].loc, events[0].ctx) if events else self.model.state(eng)
            if not (events and events[0].before_step):
                for seat, r in out.rewards.items():
                    paid[i, seat] = r
            locs.append(loc)
            ctxs.append(ctx)
        q = paid + self.value(np.stack(locs), np.stack(ctxs))
        p = probs[acts] / probs[acts].sum()
        c = q[int(np.flatnonzero(acts == action)[0])] - p @ q
        self.corrections += c
        self.sources["policy"] += c

    def _record(self, loc: np.ndarray, ctx: np.ndarray, segment: int) -> None:
        if self.samples is not None:
            self.samples.append((loc, ctx, self.earned.copy(), segment))

    def targets(self, totals) -> np.ndarray:
        """What a value network learns for each recorded state (the match over, ``totals`` its
        rewards): every seat's reward from the state to the end of its segment."""
        assert self.samples is not None
        ends = [self.segment_end.get(seg, np.asarray(totals, dtype=float)) for _, _, _, seg in self.samples]
        return np.array([end - earned for end, (_, _, earned, _) in zip(ends, self.samples)])


# ---------------------------------------------------------------- the shipped value networks


def value_name(game: str, players: int) -> str:
    """The file name (without suffix) of a game's value network at a player count."""
    return f"{game}-{players}p.value"


def find_value_net(game: str, players: int) -> Path | None:
    """The value network's weights for the game and count in the model folders, or None."""
    from cardzoo.training.agents.shipped import models_dirs

    for folder in models_dirs():
        path = folder / (value_name(game, players) + ".safetensors")
        if path.is_file():
            return path
    return None


def load_value(path: str | Path, game: str, players: int) -> NetValue:
    """A checked value network as the ``ValueFn`` of the game at this count (a UserError if it is
    no value network of this game)."""
    from cardzoo.training.agents.checkpoint import read_checkpoint
    from cardzoo.training.agents.numpy_nets import ValueMLP

    state, meta = read_checkpoint(path)
    if (
        meta.get("architecture") != ValueMLP.architecture
        or meta["game"] != game
        or players not in meta["player_counts"]
    ):
        raise UserError(f"{path} is not a {game} value network for {players} players")
    model = chance_model(game, players)
    if model is None:
        raise UserError(f"{game} declares no chance model: no luck adjustment")
    return NetValue(ValueMLP.from_state(meta, state), model)


def resolve_adjust(adjust: str | None, game: str, players: int) -> str | None:
    """The value network's path that ``--adjust`` asks for: ``None`` (the default) means luck where a
    value network ships for the game and count, ``"none"`` no adjustment, ``"luck"`` one that
    must exist."""
    if adjust not in (None, *ADJUST_CHOICES):
        raise UserError(f"--adjust must be one of {', '.join(ADJUST_CHOICES)}, got {adjust!r}")
    if adjust == "none":
        return None
    path = find_value_net(game, players) if chance_model(game, players) is not None else None
    if path is None and adjust == "luck":
        raise UserError(
            f"no value network for {game} at {players} players: no luck adjustment "
            f"(train one: cardzoo value train {game} --players {players}; or --adjust none)"
        )
    return None if path is None else str(path)
