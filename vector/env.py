"""A learner against opponents at N tables: a Gymnasium 1.x ``VectorEnv`` (``cardzoo.vector.make``).

Each of the ``num_envs`` sub-environments is one table. The learner holds ``learner_seats``
(seat 0 by default); every other seat is an opponent (``opponents.py``) that plays inside
``step`` until a learner seat is to act again. What a step returns, per table:

* ``observation``: ``{"observation": float32 [N, obs_size], "action_mask": int8 [N, num_actions]}``,
  the acting learner seat's view and legal actions, exactly the AEC env's ``observe``;
* ``reward``: everything the learner's seats earned since its previous decision, the moves of
  every other seat included (the engine pays Suipi's partners each their side's share); rewards
  earned before its first decision of a match come with its first step;
* ``terminated``: the match is over, or every learner seat has been knocked out (Sam Sip: a
  knocked-out seat never acts again); ``truncated``: the env's step cap ended the match. A match
  the learner is knocked out of before its first decision is skipped (no decision to credit).

Autoreset is **same-step** (``metadata["autoreset_mode"]`` is ``AutoresetMode.SAME_STEP``): the step
that ends a table's match already returns the first observation of its next match, with the
finished match's last observation in ``info["final_obs"]`` and ``info["final_info"]["ranks"]``
every seat's place in it (1 = best, ties share the average place: who won), so every
row of every batch is a real decision with at least one legal action. An illegal action raises a
one-line ``IllegalMoveError`` naming the table (``illegal="raise"``, the default, before any
table moves), or ends that table's match with ``illegal_reward`` added to the learner's reward
(``illegal="terminate"``, as PettingZoo's ``env()`` wrapper does; ``info["illegal_action"]``).

With ``play_forced=True`` a learner decision with a single legal action is played for the learner
(as our own trainers do): every row is then a real choice, and what the forced move earns goes to
the learner's next decision.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from cardzoo.envs.errors import UserError
from cardzoo.vector.opponents import Opponents
from cardzoo.vector.tables import Tables, check_illegal_mode, check_seats, table_seeds

MAX_SKIPPED_MATCHES = 1000  # matches in a row in which the learner never gets to act (a bug, not a deal)


class TablesEnv(VectorEnv):
    """``num_envs`` tables of ``game``: the learner at ``learner_seats``, ``opponents`` elsewhere."""

    # Gymnasium declares metadata an instance attribute of its base class, so no ClassVar here
    metadata = {  # noqa: RUF012
        "autoreset_mode": AutoresetMode.SAME_STEP,
        "render_modes": ["ansi", "rgb_array"],
        "render_fps": 1,
    }

    def __init__(
        self,
        game: str,
        num_envs: int,
        *,
        num_players: int | None = None,
        opponents="rules",
        learner_seats=(0,),
        seed=None,
        illegal: str = "raise",
        illegal_reward: float = -1.0,
        play_forced: bool = False,
        render_mode: str | None = None,
        autoreset: bool = True,
        **config,
    ):
        self.autoreset = autoreset  # False: a finished table waits for reset() (``TableEnv``, one table)
        self.play_forced = bool(play_forced)
        self.illegal_reward = check_illegal_mode(illegal, illegal_reward)
        self.illegal = illegal
        self.tables = t = Tables(game, num_envs, num_players, render_mode, **config)
        self.learner_seats = check_seats(learner_seats, t.num_players, "learner_seats")
        # per table, the seats the learner holds in its match: ``learner_seats`` everywhere here; a
        # subclass may seat each match its own way in ``_start`` (the SB3 trainer draws a team)
        self._learners = [self.learner_seats] * t.num_tables
        others = [s for s in range(t.num_players) if s not in self.learner_seats]
        self._seeds = table_seeds(seed, t.num_tables)  # the first reset's, unless it is given one
        self.opponents = Opponents(opponents, t, others, self._seeds) if others else None
        self.game = t.spec.name
        self.num_envs = t.num_tables
        self.render_mode = render_mode
        agent_env = t.envs[0]
        self.single_observation_space = agent_env.observation_space(agent_env.possible_agents[0])
        self.single_action_space = spaces.Discrete(t.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = spaces.MultiDiscrete(np.full(self.num_envs, t.num_actions, np.int64))
        self._obs = np.zeros((self.num_envs, t.obs_size), np.float32)
        self._mask = np.zeros((self.num_envs, t.num_actions), np.int8)
        self._seat = np.zeros(self.num_envs, np.int64)  # the learner seat each table waits for
        self._started = False
        self._over = np.zeros(self.num_envs, bool)  # finished tables waiting for reset() (autoreset=False)

    # ----------------------------------------------------------------- Gymnasium
    def reset(self, *, seed=None, options=None):
        """Every table starts a match: from ``seed`` (an int seeds table i with ``seed + i``, a list
        one seed per table), else from the seed given to ``make`` the first time, else each table's
        own stream. ``options`` are not used."""
        if seed is not None:
            self._seeds = table_seeds(seed, self.num_envs)
        seeds, self._seeds = self._seeds, [None] * self.num_envs
        if self.opponents is not None and any(s is not None for s in seeds):
            self.opponents.build(seeds)
        for i in range(self.num_envs):
            self._start(i, seeds[i])
        self._write(list(range(self.num_envs)))
        self._started = True
        self._over[:] = False
        return self._observations(), {"seat": self._seat.copy(), "_seat": np.ones(self.num_envs, bool)}

    def step(self, actions):
        if not self._started:
            raise UserError("step() before reset(): call reset() first")
        if not self.autoreset and self._over.any():
            raise UserError(f"table {int(np.flatnonzero(self._over)[0])}: its match is over; call reset() first")
        acts, illegal = self.tables.checked_actions(actions, self._mask, self.illegal)
        rewards = np.zeros(self.num_envs, np.float64)
        terminated = np.zeros(self.num_envs, bool)
        truncated = np.zeros(self.num_envs, bool)
        infos: dict = {}
        since, learners, play = self.tables.since, self._learners, self.tables.play
        rows = []
        for i, (a, bad) in enumerate(zip(acts.tolist(), illegal.tolist())):
            term, trunc = (True, False) if bad else self._until_learner(i, play(i, a))
            got = since[i]
            reward = 0.0
            for s in learners[i]:
                reward += got[s]
                got[s] = 0.0
            final_info: dict[str, Any] = {"ranks": self.tables.ranks(i)} if term or trunc else {}
            if bad:
                reward += self.illegal_reward
                final_info["illegal_action"] = True
            rewards[i] = reward
            if term or trunc:
                terminated[i], truncated[i] = term, trunc
                if self._finish(i, infos, final_info):
                    continue
            rows.append(i)
        self._write(rows)
        infos["seat"], infos["_seat"] = self._seat.copy(), np.ones(self.num_envs, bool)
        return self._observations(), rewards, terminated, truncated, infos

    def table(self, i: int):
        """The AEC env of table ``i`` (read it, do not step it): ``action_text(a)``, ``last_move_text``,
        ``legal_moves()``, ``render()`` of the match in progress."""
        return self.tables.envs[i]

    def render(self):
        if self.render_mode is None:
            return None
        return tuple(env.render() for env in self.tables.envs)

    def close_extras(self, **kwargs) -> None:
        pass

    # ----------------------------------------------------------------- tables
    def _start(self, i: int, seed) -> None:
        """A new match at table ``i``, played up to the learner's first decision."""
        for _ in range(MAX_SKIPPED_MATCHES):
            self.tables.restart(i, seed)
            if self.opponents is not None:
                self.opponents.reset(i)
            term, trunc = self._until_learner(i, None)
            if not (term or trunc):
                return
            seed = None  # the learner was out before its first move (its rewards are lost): the next match
        raise RuntimeError(f"table {i}: the learner did not get a move in {MAX_SKIPPED_MATCHES} matches")

    def _until_learner(self, i: int, out) -> tuple[bool, bool]:
        """Table ``i``'s opponents play up to the learner's next decision (after the move that
        gave ``out``, or from the start of a match): (terminated, truncated) for the learner."""
        tables, seats = self.tables, self._learners[i]
        env, active = tables.envs[i], tables.active[i]
        while True:
            if out is not None:
                if out.done:
                    return not out.truncated, bool(out.truncated)
                if out.eliminated and not any(active[s] for s in seats):
                    return True, False  # every learner seat knocked out: its match is over
            seat = env.acting_seat
            if seat not in seats:
                # a seat that is not the learner's means there are opponents: self.opponents is set
                out = tables.play(i, self.opponents.move(i, seat))  # type: ignore[union-attr]
            elif self.play_forced and len(env.legal_now()) == 1:
                out = tables.play(i, env.legal_now()[0])  # no choice: played for the learner
            else:
                self._seat[i] = seat
                return False, False

    def _finish(self, i: int, infos: dict, final_info: dict) -> bool:
        """Table ``i``'s match is over for the learner: its last observation (no legal move) to
        ``final_obs`` and the next match started (same-step autoreset). Without autoreset that
        observation is the table's row, already written (True), and ``final_info`` its info."""
        obs = self.tables.envs[i].encode_seat(int(self._seat[i]))
        if not self.autoreset:
            self._obs[i], self._mask[i] = obs, 0
            self._over[i] = True
            self._add_info(infos, final_info, i)
            return True
        final = {"observation": obs, "action_mask": np.zeros(self.tables.num_actions, np.int8)}
        self._add_info(infos, {"final_obs": final, "final_info": final_info}, i)
        self._start(i, None)
        return False

    def _write(self, rows: list[int]) -> None:
        self.tables.write(rows, self._seat[rows].tolist(), self._obs, self._mask)

    def _observations(self) -> dict:
        return {"observation": self._obs.copy(), "action_mask": self._mask.copy()}


def make(
    game: str,
    num_envs: int,
    *,
    num_players: int | None = None,
    opponents="rules",
    learner_seats=(0,),
    seed=None,
    illegal: str = "raise",
    illegal_reward: float = -1.0,
    play_forced: bool = False,
    **config,
) -> TablesEnv:
    """``num_envs`` tables of ``game`` as a Gymnasium vector env: the learner at ``learner_seats``
    against ``opponents`` (agent specs or a callable), the game's rule options in ``config``.
    See ``TablesEnv`` and docs/own-trainer.md."""
    return TablesEnv(
        game,
        num_envs,
        num_players=num_players,
        opponents=opponents,
        learner_seats=learner_seats,
        seed=seed,
        illegal=illegal,
        illegal_reward=illegal_reward,
        play_forced=play_forced,
        **config,
    )
