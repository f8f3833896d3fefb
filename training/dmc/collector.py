"""Deep Monte-Carlo match play, batched: many matches at once, one forward pass per tick.

The worker side of ``cardzoo.training.dmc.trainer``, the way ``cardzoo.training.ppo.collector`` is
PPO's: a ``DMCCollector`` plays ``num_matches`` matches side by side through the envs' trusted
fast path, in rounds. Each round plays every unfinished match up to its next choice that needs a
network: forced moves, the later sub-steps of a chosen composed move (Suipi; legal as the move
was, so the env is not asked again; a learner seat's complete moves are read once, at the move's
first sub-step), the rule bots' seats and explored moves go on the way; every
learner seat with a real choice reads its candidates (the game's ``WHOLE_MOVES`` reader, from the
seat's own observation) and ONE forward pass of the move ranker scores the candidates of all of
them. Epsilon-greedy over complete moves, as ``RankerAgent`` plays.

A sample is one real choice of a learner seat: its observation, the chosen move's feature row and
the seat's return from that choice to the end of the match — or, with ``returns="deal"`` in a game
settled deal by deal, to the end of that choice's deal (rewards are summed as they arrive, also
during the other seats' moves; partners share rewards, so a seat's return is its team's). In
self-play every seat is the learner's and every seat's choices are samples; a rule-bot match seats
the learner as one team. A collection stops starting matches once it has ``min_samples`` and
finishes the ones in progress, so every return is a whole Monte-Carlo return, and the rollout is
a pure function of the request (weights, seed): runs reproduce and resume exactly.

An ``ImitationRequest`` is a part of the warm start (``cardzoo.training.dmc.warm_start``): bot-only
matches whose real choices keep all their candidates' rows and which one the bot chose.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import torch

from cardzoo.envs.registry import game_spec
from cardzoo.envs.whole_moves import read_state
from cardzoo.training.agents.net_agents import RankerAgent, whole_moves_reader
from cardzoo.training.agents.ranker import MoveRankerNet
from cardzoo.training.agents.specs import agent_move
from cardzoo.training.common.opponents import OpponentAgents, OpponentDraw
from cardzoo.training.dmc.warm_start import ImitationRequest, imitation_task

MAX_MOVES_PER_MATCH = 50_000  # a last line of defence: the envs end every match far sooner


@dataclass
class DMCRequest:
    """Everything a collection depends on (so it is reproducible from this alone)."""

    weights: dict  # the ranker's state_dict as numpy arrays
    seed: tuple  # entropy for numpy's SeedSequence: (run seed, iteration, worker)
    min_samples: int  # stop starting matches once this many samples are collected
    epsilon: float
    selfplay: float  # probability that a match is pure self-play (every seat the learner)
    returns: str = "match"  # or "deal"
    opponents: dict | str = "rules"  # the other matches': label -> weight ("rules", "random"), or one agent spec


class SparseRows:
    """Rows of a mostly-zero float32 matrix as their nonzero entries: a rollout's observations
    (a seat sees few of its entries set), so that what a worker holds and sends is a
    fraction of the dense rows; ``dense()`` and ``write_into`` give them back exactly."""

    def __init__(self, width: int):
        self.width = width
        self._columns: list[np.ndarray] = []
        self._values: list[np.ndarray] = []
        self._counts: list[np.ndarray] = []  # entries per appended row, a chunk per call
        self.starts = np.zeros(1, np.int64)
        self.columns = np.zeros(0, np.int32)
        self.values = np.zeros(0, np.float32)

    def append(self, row: np.ndarray) -> None:
        self.extend(np.asarray(row)[None])

    def extend(self, matrix: np.ndarray) -> None:
        """Append the rows of a dense [K, width] matrix (one ``np.nonzero`` for all of them)."""
        at, columns = np.nonzero(matrix)
        self._columns.append(columns.astype(np.int32))
        self._values.append(matrix[at, columns].astype(np.float32))
        self._counts.append(np.bincount(at, minlength=len(matrix)))

    def close(self) -> SparseRows:
        """Pack the appended rows (call once, after the last ``append`` or ``extend``)."""
        if self._columns:
            self.starts = np.concatenate([[0], np.cumsum(np.concatenate(self._counts))]).astype(np.int64)
            self.columns, self.values = np.concatenate(self._columns), np.concatenate(self._values)
        self._columns, self._values, self._counts = [], [], []
        return self

    @classmethod
    def of_dense(cls, matrix: np.ndarray) -> SparseRows:
        """The rows of a dense [N, width] matrix (the same entries ``append`` would keep)."""
        at, columns = np.nonzero(matrix)
        counts = np.bincount(at, minlength=len(matrix))
        return cls.of_parts(matrix.shape[1], np.concatenate([[0], np.cumsum(counts)]), columns, matrix[at, columns])

    @classmethod
    def of_parts(cls, width: int, starts: np.ndarray, columns: np.ndarray, values: np.ndarray) -> SparseRows:
        """Rows from their saved parts; ValueError unless they describe rows of ``width`` entries."""
        starts, columns, values = np.asarray(starts), np.asarray(columns), np.asarray(values)
        if (
            starts.ndim != 1
            or len(starts) < 1
            or starts[0] != 0
            or np.any(np.diff(starts) < 0)
            or starts[-1] != len(columns)
            or len(columns) != len(values)
            or (len(columns) and (columns.min() < 0 or columns.max() >= width))
        ):
            raise ValueError("inconsistent sparse rows")
        out = cls(width)
        out.starts, out.columns, out.values = (
            starts.astype(np.int64),
            columns.astype(np.int32),
            values.astype(np.float32),
        )
        return out

    def __len__(self) -> int:
        return len(self.starts) - 1

    def write_into(self, target: np.ndarray, at: np.ndarray, first: int = 0) -> None:
        """``target[at[j]]`` = row ``first + j`` for every j (the rows from ``first`` on); ``target``
        a C-ordered float32 matrix."""
        if not target.flags.c_contiguous:
            raise ValueError("write_into needs a C-ordered target")
        lo, hi = self.starts[first], self.starts[first + len(at)]
        target[at] = 0.0
        counts = np.diff(self.starts[first : first + len(at) + 1])
        flat = target.reshape(
            -1
        )  # a view (a C-ordered 2-D target): one scatter by flat index, much cheaper than a 2-D one
        flat[np.repeat(np.asarray(at, np.int64) * target.shape[1], counts) + self.columns[lo:hi]] = self.values[lo:hi]

    def dense(self) -> np.ndarray:
        out = np.zeros((len(self), self.width), np.float32)
        self.write_into(out, np.arange(len(self)))
        return out


@dataclass
class DMCRollout:
    obs: SparseRows  # [N, obs_size]: the observation of each sample
    rows: np.ndarray  # float32 [N, move_features]: the chosen move's feature row
    returns: np.ndarray  # float32 [N]
    decisions: int  # every learner move, forced ones and later sub-steps included
    moves: int  # every move of every seat
    played: int  # matches finished
    matches: list  # per finished match against an opponent: {"opponent", "learner_reward", "learner_won"}


class _Match:
    __slots__ = (
        "env",
        "reader",
        "bots",
        "mine",
        "queued",
        "parted",
        "totals",
        "ends",
        "deal",
        "samples",
        "moves",
        "opponent",
    )
    env: Any  # the game's raw engine
    reader: Any  # its whole-moves reader
    bots: list  # per seat: None for a learner seat, else the opponent agent
    mine: list[bool]
    queued: list[tuple]
    parted: list
    totals: list[float]
    ends: dict[int, list[float]]
    deal: int
    samples: list[tuple]
    moves: int
    opponent: str | None  # None in self-play


class _Collection:
    """One ``play``: its request, random stream, match slots and what it has gathered."""

    def __init__(self, request: DMCRequest, rng: np.random.Generator, obs_size: int):
        self.request, self.rng = request, rng
        self.draw = OpponentDraw(request.selfplay, request.opponents, selfplay_first=False)
        self.matches: list[_Match] = []
        self.obs = SparseRows(obs_size)
        self.rows: list[np.ndarray] = []
        self.returns: list[float] = []
        self.results: list[dict] = []
        self.decisions = self.moves = self.played = 0
        # this round's choices whose feature rows wait for one ``features_many`` call per player
        # count: (reader, observation, legal ids, players); the explored ones' (row in ``rows``,
        # choice, candidate)
        self.unread: list[tuple] = []
        self.explored: list[tuple] = []


class DMCCollector:
    """Plays matches of one game (any of ``player_counts``) with the given rule variants."""

    def __init__(self, game: str, player_counts, variants: dict, num_matches: int, net_args: tuple):
        self.game = game
        self.spec = game_spec(game)
        self.player_counts = list(player_counts)
        self.variants = dict(variants)
        self.num_matches = num_matches
        self.net = MoveRankerNet(*net_args)
        self.net.eval()
        self.tables: dict[tuple[int, int], tuple] = {}  # (slot, players) -> (env, reader), reused
        self.composed = not hasattr(whole_moves_reader(game), "features_many")  # moves in sub-steps (Suipi)
        self.opponents = OpponentAgents(game)

    def collect(self, request):
        if isinstance(request, ImitationRequest):
            return imitation_task(
                self.game,
                tuple(self.player_counts),
                self.variants,
                request.matches,
                request.seed,
                request.returns,
                request.imitate_from,
                request.model,
                request.answer,
            )
        return self.play(request)

    # ------------------------------------------------------------------ matches
    def _table(self, slot: int, n: int) -> tuple:
        if (slot, n) not in self.tables:
            env = self.spec.raw_env(num_players=n, **self.variants)
            self.tables[slot, n] = (env, whole_moves_reader(self.game, env.config))
        return self.tables[slot, n]

    def _new_match(self, slot: int, c: _Collection) -> _Match:
        m, rng = _Match(), c.rng
        n = int(rng.choice(self.player_counts))
        m.env, m.reader = self._table(slot, n)
        label, mine = c.draw.draw(rng, self.spec.teams(n))
        m.opponent = label
        m.mine = [s in mine for s in range(n)]
        m.bots = [
            None if label is None or m.mine[s] else self.opponents.make(label, m.env.config, int(rng.integers(2**31)))
            for s in range(n)
        ]
        m.env.begin(int(rng.integers(2**63 - 1)))
        m.queued = [()] * n  # per seat: the sub-steps of its chosen composed move still to play
        m.parted = [None] * n  # per learner seat: its complete moves, read where they part (``_composed_turn``)
        m.totals = [0.0] * n
        m.ends = {}  # deal -> every seat's total reward when that deal ended
        m.deal = self._deal_of(m.env)
        m.samples = []  # (sample index, seat, the seat's total at the choice, deal)
        m.moves = 0
        return m

    # ------------------------------------------------------------------ collect
    @torch.no_grad()
    def play(self, request: DMCRequest) -> DMCRollout:
        """Each round runs every unfinished match up to its next choice that needs a network (the
        moves that need none — forced, the rest of a chosen composed move, the rule bots', explored
        — are played on the way), then ONE forward pass scores the candidates of all of them."""
        self.net.load_state_dict({k: torch.as_tensor(v) for k, v in request.weights.items()})
        deal_index = self.spec.deal_index if request.returns == "deal" else None
        self._deal_of = deal_index or (lambda env: 0)
        c = _Collection(request, np.random.default_rng(np.random.SeedSequence(list(request.seed))), self.net.obs_size)
        c.matches = [self._new_match(i, c) for i in range(self.num_matches)]
        running = list(range(self.num_matches))
        while running:
            queued: list[tuple] = []
            frozen: list[int] = []
            for i in running:
                self._run_up(c, i, queued, frozen)
            self._read(c, queued)
            chosen: dict[int, int] = {}
            self._score(c, queued, chosen)
            self._score_frozen(frozen, chosen, c.matches)
            running = [i for i in sorted(chosen) if self._step(c, i, chosen[i])]
        return DMCRollout(
            obs=c.obs.close(),
            rows=np.stack(c.rows) if c.rows else np.zeros((0, self.net.move_features), np.float32),
            returns=np.asarray(c.returns, np.float32),
            decisions=c.decisions,
            moves=c.moves,
            played=c.played,
            matches=c.results,
        )

    def _run_up(self, c: _Collection, i: int, queued: list, frozen: list) -> None:
        """Play match slot ``i`` until a choice waits for a network (queued) or the slot is done."""
        while True:
            action = self._decide(c, c.matches[i], i, queued, frozen)
            if action is None or not self._step(c, i, action):
                return

    def _decide(self, c: _Collection, m: _Match, i: int, queued: list, frozen: list) -> int | None:
        """The acting seat's move when it needs no network (forced, the rest of a chosen composed
        move, a bot's, explored); else None, with the choice queued: the learner's as (match slot,
        observation, candidate sequences, rows, prefix length), a frozen checkpoint opponent's as
        (match slot, its agent, its pending decision)."""
        env = m.env
        seat = env.acting_seat
        rest = m.queued[seat]
        if rest:  # a composed move's next sub-step: legal, as the move was (the seat acts until it is made)
            m.queued[seat] = rest[1:]
            return rest[0]
        if self.composed and m.mine[seat]:
            return self._composed_turn(c, m, i, seat, queued)
        legal = env.legal_now()
        if len(legal) == 1:
            return legal[0]
        mask = env.mask_now()
        if not m.mine[seat]:
            bot = m.bots[seat]
            fast = getattr(bot, "act_seat", None)  # a bot that reads the engine from the seat's view (Suipi's)
            if fast is not None:
                move = fast(env.engine, seat, mask)
                m.queued[seat] = _rest_of_move(bot)
                return move
            obs = env.encode_seat(seat)
            if isinstance(bot, RankerAgent):  # a frozen checkpoint: its Q in one pass with the others'
                move, pending = bot.prepare(obs, mask)
                if pending is not None:
                    frozen.append((i, bot, pending))
                    return None
            else:
                move = agent_move(bot, env, seat, obs, mask)
            m.queued[seat] = _rest_of_move(bot)
            return move
        obs = env.encode_seat(seat)
        ids = sorted(legal)  # one action per move: the candidates' order is the mask's
        c.unread.append((m.reader, read_state(m.reader, env.engine, seat, obs).view, ids, len(m.mine)))
        return self._choose(c, m, i, seat, queued, obs, [(a,) for a in ids], len(c.unread) - 1, 0)

    def _composed_turn(self, c: _Collection, m: _Match, i: int, seat: int, queued: list) -> int | None:
        """A learner seat's move in a game that composes moves in sub-steps (Suipi), as
        ``_decide``'s: its complete moves are read from its view once, at the move's first
        sub-step, without asking the env for its legal ids. The sub-steps that every move starts
        with are forced (played without a sample, as the env's one legal id would be); the
        choice is made where the moves part, from the seat's observation there, with the same
        candidates and rows (``candidates`` of a later sub-step keeps those that extend it)."""
        env = m.env
        parted, m.parted[seat] = m.parted[seat], None
        if parted is None:
            obs = env.encode_seat(seat)
            state = read_state(m.reader, env.engine, seat, obs)
            seqs, rows = m.reader.candidates(state, _any_action(env.num_actions))
            if len(seqs) == 1:
                return self._play(m, seat, seqs[0], 0)
            k = _shared_steps(seqs)
            if k:
                m.parted[seat] = seqs, rows, k
                m.queued[seat] = seqs[0][1:k]
                return seqs[0][0]
        else:
            seqs, rows, k = parted
            obs = env.encode_seat(seat)
        return self._choose(c, m, i, seat, queued, obs, seqs, rows, k)

    def _choose(
        self, c: _Collection, m: _Match, i: int, seat: int, queued: list, obs, seqs: list, rows, k: int
    ) -> int | None:
        """A learner's choice among ``seqs`` (sub-step ``k`` on; ``rows``: their feature rows, or
        the index of the round's unread rows that will hold them): explored at once with
        probability epsilon, else queued for the round's forward pass (None)."""
        if c.request.epsilon and c.rng.random() < c.request.epsilon:
            best = int(c.rng.integers(len(seqs)))
            c.obs.append(np.asarray(obs, np.float32))
            if isinstance(rows, int):
                c.explored.append((len(c.rows), rows, best))
                self._record(c, m, seat, None)
            else:
                self._record(c, m, seat, rows[best])
            return self._play(m, seat, seqs[best], k)
        queued.append((i, obs, seqs, rows, k))
        return None

    @staticmethod
    def _read(c: _Collection, queued: list) -> None:
        """The feature rows of the round's choices left unread, one ``features_many`` call per
        player count (the match slots' readers of one count are alike: a row is a function of the
        observation and the legal moves; Sam Sip's completion chances are solved for all of them
        together, the same rows as one by one, tests/test_move_features.py): into the queued
        choices and the explored samples."""
        if not c.unread:
            return
        rows: list = [None] * len(c.unread)
        by_count: dict[int, list[int]] = {}
        for j, (_, _, _, players) in enumerate(c.unread):
            by_count.setdefault(players, []).append(j)
        for js in by_count.values():
            reader = c.unread[js[0]][0]
            read = reader.features_many([c.unread[j][1] for j in js], [c.unread[j][2] for j in js])
            for j, r in zip(js, read):
                rows[j] = r
        for at, j, best in c.explored:
            c.rows[at] = rows[j][best]
        for n, (i, obs, seqs, unread, k) in enumerate(queued):
            if isinstance(unread, int):
                queued[n] = (i, obs, seqs, rows[unread], k)
        c.unread.clear()
        c.explored.clear()

    @staticmethod
    def _play(m: _Match, seat: int, seq: tuple, k: int) -> int:
        """Sub-step ``k`` of the complete move ``seq``, the rest queued for the seat's next turns."""
        m.queued[seat] = tuple(int(a) for a in seq[k + 1 :])
        return int(seq[k])

    def _step(self, c: _Collection, i: int, action: int) -> bool:
        """Play ``action`` in match slot ``i``; False when the slot is done (its match over and no
        new one started, enough samples being collected)."""
        m = c.matches[i]
        c.decisions += m.mine[m.env.acting_seat]
        c.moves += 1
        if not self._advance(m, action):
            return True
        self._settle(c, m)
        c.played += 1
        if len(c.returns) >= c.request.min_samples:
            return False
        c.matches[i] = self._new_match(i, c)
        return True

    def _score(self, c: _Collection, queued: list, chosen: dict) -> None:
        """One forward pass over the candidates of every queued choice; each plays its best."""
        if not queued:
            return
        observations = np.stack([q[1] for q in queued])
        q_all, starts = self.net.batch_scores(observations, [q[3] for q in queued])
        c.obs.extend(observations)  # every queued choice is a sample, in this order
        for (i, _, seqs, cand, k), start in zip(queued, starts):
            best = int(np.argmax(q_all[start : start + len(seqs)]))
            m = c.matches[i]
            seat = m.env.acting_seat
            self._record(c, m, seat, cand[best])
            chosen[i] = self._play(m, seat, seqs[best], k)

    @staticmethod
    def _score_frozen(frozen: list, chosen: dict, matches: list) -> None:
        """The frozen opponents' pending decisions: one forward pass per network (the same weights
        as the agent's own ``act``; a batch's float rounding may differ from one decision's in the
        last bit)."""
        by_net: dict[int, list] = {}
        for item in frozen:
            by_net.setdefault(id(item[1].net), []).append(item)
        for items in by_net.values():
            net = items[0][1].net
            q_all, starts = net.batch_scores(np.stack([p[0] for _, _, p in items]), [p[1] for _, _, p in items])
            for (i, agent, pending), start in zip(items, starts):
                chosen[i] = agent.finish(pending, q_all[start : start + len(pending[2])])
                m = matches[i]
                m.queued[m.env.acting_seat] = _rest_of_move(agent)

    @staticmethod
    def _record(c: _Collection, m: _Match, seat: int, row) -> None:
        """A sample of ``seat``'s choice ``row`` (the caller has appended its observation to ``c.obs``)."""
        m.samples.append((len(c.returns), seat, m.totals[seat], m.deal))
        c.rows.append(row)
        c.returns.append(0.0)  # filled in when the choice's deal (or the match) ends

    def _advance(self, m: _Match, action: int) -> bool:
        """Play one move; True when the match is over."""
        outcome = m.env.advance(action)
        m.moves += 1
        for s, r in outcome.rewards.items():
            m.totals[s] += r
        now = self._deal_of(m.env)
        over = outcome.done or getattr(outcome, "truncated", False) or m.moves >= MAX_MOVES_PER_MATCH
        if over or now != m.deal:
            m.ends[m.deal] = list(m.totals)
        m.deal = now
        return over

    def _settle(self, c: _Collection, m: _Match) -> None:
        """A finished match: its samples' returns, and how the learner fared against its opponent."""
        for index, seat, total, deal in m.samples:
            c.returns[index] = m.ends[deal][seat] - total
        if m.opponent is not None:
            n = len(m.mine)
            me = m.mine.index(True)
            scores = self.spec.match_scores(m.env, m.totals)
            best_other = max(scores[s] for s in range(n) if not m.mine[s])
            c.results.append(
                {"opponent": m.opponent, "learner_reward": m.totals[me], "learner_won": float(scores[me] > best_other)}
            )


@cache
def _any_action(num_actions: int) -> np.ndarray:
    """An action mask that allows every id: the first sub-step's candidates are all the moves."""
    mask = np.ones(num_actions, bool)
    mask.flags.writeable = False
    return mask


def _shared_steps(seqs: list) -> int:
    """How many sub-steps all the complete moves ``seqs`` (two or more) start with."""
    k = 0
    first = seqs[0]
    while all(seq[k] == first[k] for seq in seqs):
        k += 1
    return k


def _rest_of_move(agent) -> tuple:
    """The sub-steps an opponent will play after the one it just chose, without deciding again
    (players of composed moves say it: ``pending_steps``); () for the others."""
    pending = getattr(agent, "pending_steps", None)
    return pending() if pending is not None else ()
