"""What a tournament produces, as plain records: ``GameResult`` for one game (its deal, lineup,
rewards and scores, and optionally its game record) and ``TournamentResult`` for the whole
tournament (its settings and every finished game); ``TournamentResult.report()`` turns it into the
statistics (``summary.summarize``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cardzoo.training.agents.specs import AgentSpec
from cardzoo.training.evaluation.summary import summarize


@dataclass
class GameResult:
    deal: int
    index: int  # position in the deal's duplicate set
    lineup: tuple[int, ...]  # entrant per side
    seat_rewards: list[float]
    side_scores: list[float]  # what decides the winner (reward, or minus the rank in Sam Sip)
    steps: int
    record: dict | None = None
    adjusted_rewards: list[float] | None = None  # luck-adjusted seat rewards, where computed
    luck_sources: dict[str, list[float]] | None = None  # each seat's corrections by source (luck.SOURCES)

    def entrant_rewards(self, sides, adjusted: bool = False) -> dict[int, float]:
        """Each seated entrant's reward in this game: the mean over the sides it holds of the
        side's mean seat reward (``adjusted``: of the luck-adjusted seat rewards)."""
        rewards = self.adjusted_rewards if adjusted else self.seat_rewards
        assert rewards is not None, "no luck-adjusted rewards in this game"
        out = {}
        for ent in sorted(set(self.lineup)):
            held = [i for i, x in enumerate(self.lineup) if x == ent]
            out[ent] = float(np.mean([np.mean([rewards[s] for s in sides[i]]) for i in held]))
        return out


@dataclass
class TournamentResult:
    game: str
    players: int
    options: dict
    config: dict
    seed: int
    names: list[str]
    specs: list[AgentSpec]
    sides: list[list[int]]
    set_size: int
    planned: int
    games: list[GameResult] = field(default_factory=list)
    interrupted: bool = False
    seconds: float = 0.0
    mode: str = "field"
    bootstrap: int = 200
    sprt: dict | None = None  # the sequential test's outcome, when one decided when to stop
    value: str | None = None  # the value network of the luck adjustment (its file name), or None

    def report(self) -> dict:
        return summarize(self)
