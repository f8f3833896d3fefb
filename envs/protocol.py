"""The engine protocol: one language that every game's rules engine speaks.

Like OpenSpiel's ``State``, an engine is the whole state of one match and answers the same
questions for every game, so tools (the AEC env base, batched self-play collectors, search bots,
tests) need no game-specific code:

=============================  ================================================================
``acting_seat``                the seat that acts now (property)
``legal_actions()``            its legal action ids (never empty while the match goes on)
``apply_action(a)``            **trusted** path: apply a legal id, return a ``StepOutcome`` with
                               each seat's reward for it (rewards are the engine's business)
``play_action(a)``             **checked** path: the same after checking ``a``; an illegal id
                               raises ``IllegalMoveError`` and changes nothing
``done``                       the match is over
``clone()``                    an independent copy (cheap: for search and tests)
``ranking()``                  final rank of every seat, 1 = best, ties share the average place
``teams()``                    seats that share their results
``resample_hidden(seat, rng)`` a clone in which everything ``seat`` cannot know is dealt anew
                               (same counts, same public facts): what a seat's view must not see
``step_bound(config)``         steps no match of this configuration can exceed
=============================  ================================================================

The trusted path skips the legality check, so an illegal id there may leave a corrupt state; it
never loops forever (every loop in an engine is bounded). Callers that take actions from outside
(people, agents, files) use the checked path; the env's ``step`` is checked, ``advance`` trusted.

Pure Python: no gymnasium or pettingzoo imports here or in any engine.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from cardzoo.envs.errors import UserError

MAX_LISTED_MOVES = 20  # legal moves named in an error message before "… and N more"
MAX_REASON_CHARS = 300  # an error's reason is cut here (it may echo what the user typed)


class IllegalMoveError(UserError):
    """An illegal action or an unparseable move text.

    ``reason`` says what is wrong (without the listing, at most ``MAX_REASON_CHARS``), ``legal``
    holds the legal moves as text (all of them; the message lists at most ``MAX_LISTED_MOVES``).
    Callers read the fields; nothing needs to parse the message.
    """

    def __init__(self, reason: str, legal: Sequence[str] = ()):
        if len(reason) > MAX_REASON_CHARS:
            reason = reason[: MAX_REASON_CHARS - 1] + "…"
        self.reason = reason
        self.legal = list(legal)
        message = reason
        if self.legal:
            message += "; legal moves: " + list_moves(self.legal)
        super().__init__(message)


def list_moves(moves: Sequence[str], limit: int = MAX_LISTED_MOVES) -> str:
    """'a; b; c' for the first ``limit`` moves, then '… and N more'."""
    shown = "; ".join(moves[:limit])
    return shown + (f"; … and {len(moves) - limit} more" if len(moves) > limit else "")


@dataclass
class StepOutcome:
    """What one action produced."""

    rewards: dict[int, float] = field(default_factory=dict)  # seat -> reward earned now
    done: bool = False  # the match (episode) is over, by the rules or by the env's step cap
    eliminated: Sequence[int] = ()  # seats that leave the game now (Sam Sip)
    truncated: bool = False  # the env's step cap ended the match (``done`` is then True too)


def ranks_from_scores(scores: Sequence[float]) -> list[float]:
    """Rank per entry from scores (higher is better): 1 = best, ties share the average place."""
    return [1 + sum(o > x for o in scores) + (sum(o == x for o in scores) - 1) / 2 for x in scores]


class GameEngine:
    """Base class of the engines: the protocol above, with the checked path written once.

    A subclass sets ``n`` (players) and ``done`` and implements ``acting_seat``,
    ``legal_actions``, ``apply_action``, ``clone``, ``ranking``, ``resample_hidden`` and the
    static ``step_bound``; it overrides ``teams`` when seats play in partnerships.
    """

    n: int = 0
    done: bool = False

    @property
    def acting_seat(self) -> int:
        raise NotImplementedError

    def legal_actions(self) -> list[int]:
        raise NotImplementedError

    def apply_action(self, action: int) -> StepOutcome:
        raise NotImplementedError

    def play_action(self, action: int) -> StepOutcome:
        """Apply ``action`` if it is legal now; IllegalMoveError (nothing changes) otherwise."""
        if self.done:
            raise IllegalMoveError("the match is over: no action can be played")
        legal = self.legal_actions()
        if action not in legal:
            raise IllegalMoveError(
                f"action {action!r} is not legal for seat {self.acting_seat} now", [str(a) for a in sorted(legal)]
            )
        return self.apply_action(action)

    def clone(self) -> GameEngine:
        raise NotImplementedError

    def ranking(self) -> list[float]:
        raise NotImplementedError

    def teams(self) -> list[list[int]]:
        return [[s] for s in range(self.n)]

    def resample_hidden(self, seat: int, rng: random.Random) -> GameEngine:
        raise NotImplementedError

    @staticmethod
    def step_bound(config) -> int:
        raise NotImplementedError
