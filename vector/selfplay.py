"""Every seat a learner: N tables where the caller chooses every move (``cardzoo.vector.SelfPlay``).

``reset`` and ``step(actions)`` return a ``Turn``: per table the seat to act, its observation and
action mask, and per seat what it earned since it last acted, reported once, when it matters:

* ``rewards[i, s]`` is seat s's reward since its previous decision at table i, given when s is to
  act again (``seat[i] == s``) or when its match ends (``ended[i, s]``: the match is over, or s
  was knocked out); 0 everywhere else. What a seat earns before its first decision of a match
  comes with its second turn (added to its first decision's reward), so the rewards a seat is
  given over a match sum to its AEC env total.
* ``done[i]``: table i's match ended at this step (``truncated[i]`` also when the env's step cap
  ended it). Autoreset is same-step: ``seat``, ``observation`` and ``action_mask`` of a done table
  already belong to its next match, while ``rewards[i]`` and ``ended[i]`` close the one that ended.

With ``play_forced=True`` a move without a choice (a single legal action) is played for its seat
and not returned; what it earns goes to that seat's next decision.

So a self-play trainer keeps one open transition per (table, seat): at every step it closes the
acting seat's open transition with ``rewards[i, seat[i]]`` and every ended seat's with
``rewards[i, s]`` (and done), then opens a new one for the acting seat. Seeding, illegal actions and
the observation are those of ``TablesEnv`` (``env.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cardzoo.envs.errors import UserError
from cardzoo.envs.protocol import StepOutcome
from cardzoo.vector.tables import Tables, check_illegal_mode, table_seeds

MAX_FORCED_MATCHES = 1000  # matches in a row decided before any choice (a bug, not a deal)


@dataclass
class Turn:
    """What ``SelfPlay.reset`` and ``step`` return (fresh arrays every call)."""

    seat: np.ndarray  # int64 [N]: the seat to act at each table
    observation: np.ndarray  # float32 [N, obs_size]: its observation
    action_mask: np.ndarray  # int8 [N, num_actions]: its legal actions (1 = legal)
    rewards: np.ndarray  # float64 [N, num_players]: each seat's reward since it last acted (see the module)
    ended: np.ndarray  # bool [N, num_players]: the seats whose match ended at this step
    done: np.ndarray  # bool [N]: the table's match ended at this step (its next one has begun)
    truncated: np.ndarray  # bool [N]: ... ended by the env's step cap
    illegal: np.ndarray  # bool [N]: ... ended by an illegal action (illegal="terminate")


class SelfPlay:
    """``num_envs`` tables of ``game``, every seat played by the caller."""

    def __init__(
        self,
        game: str,
        num_envs: int,
        *,
        num_players: int | None = None,
        seed=None,
        illegal: str = "raise",
        illegal_reward: float = -1.0,
        play_forced: bool = False,
        **config,
    ):
        self.illegal_reward = check_illegal_mode(illegal, illegal_reward)
        self.illegal = illegal
        self.play_forced = bool(play_forced)
        self.tables = t = Tables(game, num_envs, num_players, **config)
        self.game, self.num_envs, self.num_players = t.spec.name, t.num_tables, t.num_players
        self.obs_size, self.num_actions = t.obs_size, t.num_actions
        self._seeds = table_seeds(seed, t.num_tables)
        self._seat = np.zeros(t.num_tables, np.int64)
        self._obs = np.zeros((t.num_tables, t.obs_size), np.float32)
        self._mask = np.zeros((t.num_tables, t.num_actions), np.int8)
        self._acted = [[False] * t.num_players for _ in range(t.num_tables)]  # a decision of this match so far
        self._started = False

    def reset(self, *, seed=None) -> Turn:
        """Every table starts a match (seeds as ``TablesEnv.reset``)."""
        if seed is not None:
            self._seeds = table_seeds(seed, self.num_envs)
        seeds, self._seeds = self._seeds, [None] * self.num_envs
        for i in range(self.num_envs):
            self._start(i, seeds[i])
        self.tables.write(list(range(self.num_envs)), self._seat.tolist(), self._obs, self._mask)
        self._started = True
        n, p = self.num_envs, self.num_players
        return self._turn(
            np.zeros((n, p)), np.zeros((n, p), bool), np.zeros(n, bool), np.zeros(n, bool), np.zeros(n, bool)
        )

    def step(self, actions) -> Turn:
        """Each table's acting seat plays its action (checked as ``TablesEnv.step`` checks them)."""
        if not self._started:
            raise UserError("step() before reset(): call reset() first")
        tables = self.tables
        acts, illegal = tables.checked_actions(actions, self._mask, self.illegal)
        n, p = self.num_envs, self.num_players
        rewards, ended = np.zeros((n, p)), np.zeros((n, p), bool)
        done, truncated = np.zeros(n, bool), np.zeros(n, bool)
        seats = self._seat.tolist()
        for i, (a, bad) in enumerate(zip(acts.tolist(), illegal.tolist())):
            seat, since, acted = seats[i], tables.since[i], self._acted[i]
            if acted[seat]:
                since[seat] = 0.0  # reported at this turn; what it earns from now is its new decision's
            acted[seat] = True
            if bad:
                since[seat] += self.illegal_reward
                tables.ended_now[i] = [s for s in range(p) if tables.active[i][s]]
                over = True
            else:
                out = tables.play(i, a)
                if self.play_forced:
                    out = self._forced(i, out)
                over = out.done
                if over:
                    truncated[i] = out.truncated
            if tables.ended_now[i]:
                for s in tables.ended_now[i]:
                    rewards[i, s], ended[i, s] = since[s], True
                    since[s] = 0.0
                tables.ended_now[i] = []
            if over:
                done[i] = True
                self._start(i, None)
                seats[i] = int(self._seat[i])
                continue
            seat = seats[i] = tables.seat(i)
            if acted[seat]:
                rewards[i, seat] = since[seat]
        self._seat[:] = seats
        tables.write(list(range(n)), seats, self._obs, self._mask)
        return self._turn(rewards, ended, done, truncated, illegal & done)

    def _forced(self, i: int, out):
        """Table ``i``'s moves without a choice, played (``play_forced``): the last one's outcome."""
        env = self.tables.envs[i]
        while not out.done and len(env.legal_now()) == 1:
            out = self.tables.play(i, env.legal_now()[0])
        return out

    def _start(self, i: int, seed) -> None:
        for _ in range(MAX_FORCED_MATCHES):
            self.tables.restart(i, seed)
            if not self.play_forced or not self._forced(i, StepOutcome()).done:
                break
            seed = None  # a match decided before anybody had a choice: the next one
        self._acted[i] = [False] * self.num_players
        self._seat[i] = self.tables.seat(i)

    def _turn(self, rewards, ended, done, truncated, illegal) -> Turn:
        return Turn(
            self._seat.copy(),
            self._obs.copy(),
            self._mask.copy(),
            rewards,
            ended,
            done,
            truncated,
            np.asarray(illegal, bool),
        )
