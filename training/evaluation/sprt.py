"""Stop a head-to-head comparison as soon as it is decided: a sequential probability ratio test
(SPRT) on the mean of per-deal results, as ``cardzoo eval --sprt`` and ``cardzoo ladder play --sprt``
run it.

The observations are the deals of a duplicate-deal tournament between two entrants A and B: one
deal's result is A's reward minus B's per game, averaged over the deal's seatings (the same number
``eval`` reports as the pair's ``advantage``, computed deal by deal, or its ``adjusted_advantage``
where the games are luck-adjusted; ``deal_results`` makes them). The test weighs

    H0: the mean advantage is ``adv0``   against   H1: it is ``adv1``   (adv0 < adv1)

with the generalized SPRT under a normal approximation (as fishtest's "normalized" SPRT, with the
variance left free under each hypothesis): after n deals x_1..x_n, with σ_k² the mean of
(x_i − adv_k)², the maximum-likelihood variance if the mean is adv_k,

    LLR = (n / 2) log(σ_0² / σ_1²)       (≈ n (adv1 − adv0)(2 x̄ − adv0 − adv1) / (2 s²) for large n)

and the test accepts H1 ("A is stronger by adv1") once LLR >= log((1 − beta) / alpha), H0 ("A is not
stronger than adv0") once LLR <= log(beta / (1 − alpha)). Wald's bounds keep the chance of accepting
H1 when H0 holds at most alpha, and of accepting H0 when H1 holds at most beta. The first
``MIN_DEALS`` deals only estimate the variance (one from a few deals is too often small, would
stop the test early and raise its error rates; tests/test_sprt.py measures them); a test that
reaches its cap of games undecided says so.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from cardzoo.envs.errors import UserError
from cardzoo.training.evaluation.results import GameResult

MIN_DEALS = 32  # deals before the first decision: the variance must be estimated first


@dataclass(frozen=True)
class SPRTBounds:
    """The hypotheses (mean advantage of A over B per game) and the error rates."""

    adv0: float = 0.0
    adv1: float = 0.25
    alpha: float = 0.05
    beta: float = 0.05

    def check(self) -> SPRTBounds:
        """These bounds, or a UserError that says which is out of range."""
        for name in ("adv0", "adv1", "alpha", "beta"):
            if not math.isfinite(getattr(self, name)):
                raise UserError(f"SPRT {name} must be a finite number, got {getattr(self, name)}")
        if not self.adv0 < self.adv1:
            raise UserError(
                f"SPRT needs adv0 < adv1 (H0: A's advantage is adv0, H1: it is adv1), got {self.adv0} and {self.adv1}"
            )
        for name in ("alpha", "beta"):
            if not 0.0 < getattr(self, name) < 0.5:
                raise UserError(f"SPRT {name} must be between 0 and 0.5, got {getattr(self, name)}")
        return self

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1.0 - self.beta) / self.alpha)


def llr_of(n, mean, square, bounds: SPRTBounds):
    """The log-likelihood ratio of H1 against H0 after ``n`` deals whose results have this mean and
    mean square; works on numpy arrays of them too. Results that sit exactly on one hypothesis
    make it infinite in that direction."""
    n, mean, square = (np.asarray(v, dtype=float) for v in (n, mean, square))
    s0, s1 = (np.maximum(square - 2.0 * a * mean + a * a, 0.0) for a in (bounds.adv0, bounds.adv1))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(s1 > 0.0, 0.5 * n * np.log(s0 / np.where(s1 > 0.0, s1, 1.0)), np.inf)


def llr(values: Sequence[float] | np.ndarray, bounds: SPRTBounds) -> float:
    """The log-likelihood ratio of H1 against H0 for these per-deal results (0 for fewer than 2)."""
    x = np.asarray(values, dtype=float)
    if x.size < 2:
        return 0.0
    return float(llr_of(x.size, x.mean(), np.mean(x * x), bounds))


def _decide(value: float, bounds: SPRTBounds) -> str | None:
    if value >= bounds.upper:
        return "H1"
    if value <= bounds.lower:
        return "H0"
    return None


def verdict(values: Sequence[float] | np.ndarray, bounds: SPRTBounds) -> str | None:
    """ "H1", "H0", or None while undecided (and during the first ``MIN_DEALS`` deals)."""
    if len(values) < MIN_DEALS:
        return None
    return _decide(llr(values, bounds), bounds)


def sequential(values: Sequence[float] | np.ndarray, bounds: SPRTBounds) -> tuple[str | None, int]:
    """Run the test over a stream of per-deal results: (what it accepted or None, deals it took,
    all of them when undecided). The same decisions as ``verdict`` after every deal, in one pass."""
    x = np.asarray(values, dtype=float)
    if x.size < MIN_DEALS:
        return None, int(x.size)
    n = np.arange(1, x.size + 1, dtype=float)
    values_llr = llr_of(n, np.cumsum(x) / n, np.cumsum(x * x) / n, bounds)[MIN_DEALS - 1 :]
    crossed = np.flatnonzero((values_llr >= bounds.upper) | (values_llr <= bounds.lower))
    if crossed.size == 0:
        return None, int(x.size)
    i = int(crossed[0])
    return _decide(float(values_llr[i]), bounds), i + MIN_DEALS


def deal_results(games: Sequence[GameResult], sides: Sequence[Sequence[int]], a: int = 0, b: int = 1) -> list[float]:
    """Per deal (in deal order), A's reward minus B's per game, averaged over the deal's games that
    seated both: the luck-adjusted rewards where every game has them (``eval --adjust luck``, the
    default where a value network ships), else the raw ones. The SPRT's observations."""
    per_deal: dict[int, list[float]] = {}
    adjusted = all(g.adjusted_rewards is not None for g in games)
    for g in games:
        rewards = g.entrant_rewards(sides, adjusted=adjusted)
        if a in rewards and b in rewards:
            per_deal.setdefault(g.deal, []).append(rewards[a] - rewards[b])
    return [float(np.mean(per_deal[d])) for d in sorted(per_deal)]


@dataclass
class SPRTWatch:
    """Follows a tournament game by game and says when the test has decided: after each deal whose
    ``set_size`` games are all in."""

    bounds: SPRTBounds
    sides: Sequence[Sequence[int]]
    set_size: int
    a: int = 0
    b: int = 1
    values: list[float] = field(default_factory=list)
    accepted: str | None = None
    games: int = 0
    adjusted: bool | None = None  # every deal's observation luck-adjusted (None: no deal yet)
    _open: dict[int, list[GameResult]] = field(default_factory=dict)  # deal -> its games so far

    def add(self, g: GameResult) -> bool:
        """Take one finished game; True once a hypothesis is accepted (stop playing)."""
        self.games += 1
        deal = self._open.setdefault(g.deal, [])
        deal.append(g)
        if len(deal) < self.set_size:
            return False
        games = self._open.pop(g.deal)
        self.adjusted = all(x.adjusted_rewards is not None for x in games) and self.adjusted is not False
        self.values.extend(deal_results(games, self.sides, self.a, self.b))
        self.accepted = verdict(self.values, self.bounds)
        return self.accepted is not None

    def report(self, names: Sequence[str]) -> dict:
        """The JSON-ready outcome: what was accepted after how many games and deals."""
        b = self.bounds
        x = np.asarray(self.values, dtype=float)
        a_name, b_name = names[self.a], names[self.b]
        said = {
            "H1": f"{a_name} is stronger than {b_name} by {b.adv1:+g} per game (H1 accepted)",
            "H0": f"{a_name} is not stronger than {b_name} by more than {b.adv0:+g} per game (H0 accepted)",
            None: "undecided: the games ran out before the LLR crossed a bound",
        }[self.accepted]
        return {
            "a": a_name,
            "b": b_name,
            "adv0": b.adv0,
            "adv1": b.adv1,
            "alpha": b.alpha,
            "beta": b.beta,
            "accepted": self.accepted,
            "verdict": said,
            "games": self.games,
            "deals": len(self.values),
            "llr": _finite(llr(self.values, b)),
            "bounds": [b.lower, b.upper],
            "mean_advantage": float(x.mean()) if x.size else None,
            "observations": "luck-adjusted" if self.adjusted else "raw",
            "min_deals": MIN_DEALS,
        }


def _finite(x: float) -> float:
    """JSON has no infinity: an infinite LLR is written as a large number of its sign."""
    return x if math.isfinite(x) else math.copysign(1e300, x)
