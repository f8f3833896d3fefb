"""What a tournament produces, as plain records: ``GameResult`` for one game (its deal, lineup,
rewards and scores, and optionally its game record) and ``TournamentResult`` for the whole
tournament (its settings and every finished game); ``TournamentResult.report()`` turns it into the
statistics (``summary.summarize``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

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

    def report(self) -> dict:
        return summarize(self)
