"""N tables of one game side by side on the engines' trusted path: the core of ``cardzoo.vector``.

Each table is one raw AEC env driven through its fast path (``begin``-style ``reset``,
``legal_now``, ``encode_seat``, ``advance``: the incremental encoder, no PettingZoo dicts), as the
collectors drive theirs. ``Tables`` keeps, per table, every seat's reward since that seat last
acted (``since``, what the engine paid each seat on every move: Suipi's partners are each paid
their side's share) and which seats are still in the match (Sam Sip's knock-outs), and writes a
seat's observation and action mask into rows of preallocated arrays.

Seeding: table ``i`` is its env, reset with ``seed + i`` (or the seed of a list) and then reset
without a seed for every later episode, so its deals are exactly those of
``raw_env(...).reset(seed=seed + i)`` followed by ``reset()`` calls.

Actions given from outside are checked here (``checked_actions``): a batch of the wrong shape or
type, or an illegal action, is one ``UserError`` line naming the table, before any table moves.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np

from cardzoo.envs.base import IllegalMoveError
from cardzoo.envs.config import ConfigError, integer
from cardzoo.envs.errors import UserError
from cardzoo.envs.registry import game_spec

ILLEGAL_MODES = ("raise", "terminate")
MAX_TABLES = 1_000_000  # a typo such as 10**9 tables is refused rather than allocated


def table_seeds(seed, num_tables: int) -> list[int | None]:
    """Per table, the seed of its next reset: ``seed + i`` for an int, the list's own entries for a
    list of ``num_tables`` ints, None for every table when ``seed`` is None."""
    if seed is None:
        return [None] * num_tables
    if isinstance(seed, (list, tuple)):
        if len(seed) != num_tables or any(integer(s) is None for s in seed):
            raise ConfigError(
                f"seed must be an integer, None or a list of {num_tables} integers (one per table), got {short(seed)}"
            )
        return [integer(s) for s in seed]
    first = integer(seed)
    if first is None:
        raise ConfigError(f"seed must be an integer, None or a list of {num_tables} integers, got {short(seed)}")
    return [first + i for i in range(num_tables)]


def short(value) -> str:
    """A bad value as Python writes it, cut to fit one line."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


class Tables:
    """``num_tables`` tables of ``game`` at ``num_players`` seats (the game's default count when
    None), each with the rule options ``config``."""

    def __init__(
        self, game: str, num_tables: int, num_players: int | None = None, render_mode: str | None = None, **config
    ):
        self.spec = game_spec(game)
        if integer(num_tables) is None or not 1 <= num_tables <= MAX_TABLES:
            raise ConfigError(f"the number of tables must be an integer 1..{MAX_TABLES:,}, got {short(num_tables)}")
        n = self.spec.default_players if num_players is None else num_players
        if integer(n) is None:
            raise ConfigError(f"num_players must be an integer, got {short(n)}")
        self.num_tables = int(num_tables)
        first = self.spec.raw_env(num_players=int(n), render_mode=render_mode, **config)
        self.envs = [first] + [
            self.spec.raw_env(num_players=int(n), render_mode=render_mode, **config) for _ in range(self.num_tables - 1)
        ]
        self.num_players = first.num_players
        self.obs_size, self.num_actions = first.obs_size, first.num_actions
        self.since = [[0.0] * self.num_players for _ in range(self.num_tables)]  # reward since the seat last acted
        self.totals = [[0.0] * self.num_players for _ in range(self.num_tables)]  # reward in the match so far
        self.active = [[True] * self.num_players for _ in range(self.num_tables)]  # still in the match
        self.ended_now: list[list[int]] = [[] for _ in range(self.num_tables)]  # seats whose match ended this move
        self.moves = 0  # moves played at all tables, by every seat (what a benchmark counts)

    @property
    def config(self):
        return self.envs[0].config

    # ----------------------------------------------------------------- episodes
    def restart(self, i: int, seed: int | None = None) -> None:
        """A new match at table ``i``: from ``seed`` when given, else the next of the table's stream."""
        self.envs[i].reset(seed=seed)
        self.since[i] = [0.0] * self.num_players
        self.totals[i] = [0.0] * self.num_players
        self.active[i] = [True] * self.num_players
        self.ended_now[i] = []

    def play(self, i: int, action: int):
        """Table ``i`` plays the (legal) ``action``; every seat's reward is added to what it earned
        since it last acted, a knocked-out seat leaves (``ended_now``). The move's ``StepOutcome``."""
        out = self.envs[i].advance(action)
        self.moves += 1
        since, active = self.since[i], self.active[i]
        for s, r in out.rewards.items():
            if active[s]:  # a seat that has left is paid nothing more (as in the AEC env)
                since[s] += r
                self.totals[i][s] += r
        for s in out.eliminated:
            if active[s]:
                active[s] = False
                self.ended_now[i].append(s)
        if out.done:
            for s in range(self.num_players):
                if active[s]:
                    active[s] = False
                    self.ended_now[i].append(s)
        return out

    # ----------------------------------------------------------------- views
    def seat(self, i: int) -> int:
        return self.envs[i].acting_seat

    def ranks(self, i: int) -> np.ndarray:
        """Every seat's place in table ``i``'s match as it stands (1 = best, ties share the average
        place; by the game's rule of who wins, ``GameSpec.final_ranking``): final once it is over."""
        return np.asarray(self.spec.final_ranking(self.envs[i], self.totals[i]), np.float64)

    def write(self, rows: list[int], seats: list[int], obs: np.ndarray, mask: np.ndarray) -> None:
        """Each ``seats[k]``'s observation and action mask at table ``rows[k]`` into that row of
        ``obs`` and ``mask`` (no legal action for a seat that is not to act); one scatter for all
        the masks."""
        ids: list[int] = []
        at: list[int] = []
        envs, active = self.envs, self.active
        for i, seat in zip(rows, seats):
            env = envs[i]
            obs[i] = env.encode_seat(seat)
            if active[i][seat] and env.acting_seat == seat:
                legal = env.legal_now()
                ids += legal
                at += [i] * len(legal)
        mask[rows] = 0
        mask[at, ids] = 1

    # ----------------------------------------------------------------- input
    def checked_actions(self, actions, mask: np.ndarray, illegal: str) -> tuple[np.ndarray, np.ndarray]:
        """``actions`` as an int64 array of one action per table and where each is illegal under
        ``mask`` (the masks the caller was shown). A batch of the wrong shape or type is a
        UserError; an illegal action too when ``illegal="raise"``, naming its table."""
        n = self.num_tables
        try:
            arr = np.asarray(actions)
        except Exception as e:  # noqa: BLE001  anything numpy cannot read as an array (a user's __array__ may raise any)
            raise UserError(
                f"actions must be an array of {n} integer action ids (one per table), got {type(actions).__name__}: {e}"
            ) from None
        if arr.shape != (n,):
            raise UserError(f"actions must have shape ({n},): one action id per table, got shape {arr.shape}")
        if arr.dtype.kind not in "iu":
            raise UserError(f"actions must be integer action ids, got dtype {arr.dtype}")
        arr = arr.astype(np.int64, copy=False)
        inside = (arr >= 0) & (arr < self.num_actions)
        bad = ~inside
        bad[inside] = mask[np.flatnonzero(inside), arr[inside]] == 0
        if illegal == "raise" and bad.any():
            raise self.illegal_error(int(np.flatnonzero(bad)[0]), int(arr[np.flatnonzero(bad)[0]]))
        return arr, bad

    def illegal_error(self, i: int, action: int) -> IllegalMoveError:
        """The one-line error of an illegal ``action`` at table ``i``: the table, the move, the legal moves."""
        env = self.envs[i]
        e = env._illegal_action_error(action, env.legal_now())
        return IllegalMoveError(f"table {i}: {e.reason}", e.legal)


def check_illegal_mode(illegal: str, illegal_reward) -> float:
    if illegal not in ILLEGAL_MODES:
        raise ConfigError(f"illegal must be one of {', '.join(map(repr, ILLEGAL_MODES))}, got {short(illegal)}")
    try:
        value = float(illegal_reward)
    except (TypeError, ValueError):
        value = float("nan")
    if not np.isfinite(value) or isinstance(illegal_reward, bool):
        raise ConfigError(f"illegal_reward must be a finite number, got {short(illegal_reward)}")
    return value


def check_seats(seats: int | Sequence[int], num_players: int, what: str) -> tuple[int, ...]:
    """``seats`` (one seat or several) as a sorted tuple of distinct seat numbers 0..num_players-1
    (ConfigError otherwise)."""
    listed = (seats,) if isinstance(seats, (str, bytes)) or not isinstance(seats, Sequence) else seats
    out = tuple(integer(s) for s in listed)
    if not out or any(s is None or not 0 <= s < num_players for s in out) or len(set(out)) != len(out):
        raise ConfigError(f"{what} must be distinct seats 0..{num_players - 1}, got {short(listed)}")
    return tuple(sorted(cast("tuple[int, ...]", out)))  # every seat checked an int just above
