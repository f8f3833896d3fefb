"""Deep Monte-Carlo match play, batched: many matches at once, one forward pass per tick.

The worker side of ``cardzoo.training.dmc.trainer``, the way ``cardzoo.training.ppo.collector`` is
PPO's: a ``DMCCollector`` plays ``num_matches`` matches side by side through the envs' trusted
fast path, and each tick every unfinished match makes one move. Forced moves and the later
sub-steps of a composed move (Suipi) are played at once; rule bots answer their own seats; every
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

``ImitationRequest``: rule bots (or the game's teacher, or the expert) play every seat, and each
real choice keeps all its candidates' rows and which one the bot chose (``cardzoo.training.dmc.play``),
the warm start.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from cardzoo.envs.registry import game_spec
from cardzoo.training.agents.checkpoint import check_fits, load_checkpoint
from cardzoo.training.agents.ranker import MoveRankerNet, RankerAgent, whole_moves_reader
from cardzoo.training.agents.shipped import shipped_model_path
from cardzoo.training.agents.specs import agent_move, make_agent, parse_agent_spec
from cardzoo.training.dmc.play import imitation_task

MAX_MOVES_PER_MATCH = 50_000  # a last line of defence: the envs end every match far sooner


@dataclass
class DMCRequest:
    """Everything a collection depends on (so it is reproducible from this alone)."""

    weights: dict  # the ranker's state_dict as numpy arrays
    seed: tuple  # entropy for numpy's SeedSequence: (run seed, iteration, worker)
    min_samples: int  # stop starting matches once this many samples are collected
    epsilon: float
    vs_rules: float  # probability that a match pits the learner against the opponent (rule bots by default)
    returns: str = "match"  # or "deal"
    opponent: str = "rules"  # agent spec of every seat not the learner's in the vs_rules matches (frozen)


@dataclass
class ImitationRequest:
    matches: int
    seed: int
    returns: str = "match"
    imitate_from: str = "rules"
    model: str = ""  # the checkpoint the expert searches with (imitate_from="expert"; default: the shipped model)


@dataclass
class DMCRollout:
    obs: np.ndarray  # float32 [N, obs_size]
    rows: np.ndarray  # float32 [N, move_features]: the chosen move's feature row
    returns: np.ndarray  # float32 [N]
    decisions: int  # every learner move, forced ones and later sub-steps included
    moves: int  # every move of every seat
    played: int  # matches finished
    matches: list  # per finished match against the opponent: {"opponent", "reward", "won"}; none in self-play


class _Match:
    __slots__ = ("env", "reader", "bots", "mine", "plans", "totals", "ends", "deal", "samples", "moves", "vs_rules")


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
        self.frozen: dict[tuple[str, int], tuple] = {}  # (checkpoint spec, players) -> (net, meta), loaded once

    def collect(self, request):
        if isinstance(request, ImitationRequest):
            return imitation_task(self.game, tuple(self.player_counts), self.variants, request.matches,
                                  request.seed, request.returns, request.imitate_from, request.model)
        return self.play(request)

    # ------------------------------------------------------------------ matches
    def _table(self, slot: int, n: int) -> tuple:
        if (slot, n) not in self.tables:
            env = self.spec.raw_env(num_players=n, **self.variants)
            self.tables[slot, n] = (env, whole_moves_reader(self.game, env.config))
        return self.tables[slot, n]

    def _new_match(self, slot: int, rng: np.random.Generator, request: DMCRequest) -> _Match:
        m = _Match()
        n = int(rng.choice(self.player_counts))
        m.env, m.reader = self._table(slot, n)
        m.vs_rules = bool(rng.random() < request.vs_rules)
        teams = self.spec.teams(n)
        mine = set(teams[int(rng.integers(len(teams)))]) if m.vs_rules else set(range(n))
        m.mine = [s in mine for s in range(n)]
        m.bots = [None if m.mine[s] else self._opponent(request.opponent, m.env.config, int(rng.integers(2**31)))
                  for s in range(n)]
        m.env.begin(int(rng.integers(2**63 - 1)))
        m.plans = [None] * n  # per learner seat: (seat-state signature, action ids of the chosen move)
        m.totals = [0.0] * n
        m.ends = {}  # deal -> every seat's total reward when that deal ended
        m.deal = self._deal_of(m.env)
        m.samples = []  # (sample index, seat, the seat's total at the choice, deal)
        m.moves = 0
        return m

    def _opponent(self, text: str, config, seed: int):
        """A fresh opponent agent of spec ``text`` (``--opponent``), seeded: a checkpoint (or the
        shipped model) is read from disk once per player count and then only handed out."""
        if text == "rules":
            return self.spec.rule_bot(config, seed=seed)
        spec = parse_agent_spec(text)
        if spec.kind not in ("checkpoint", "model"):
            return make_agent(spec, self.spec.module, config, seed=seed)
        key = (text, config.num_players)
        if key not in self.frozen:
            path = spec.path if spec.kind == "checkpoint" else shipped_model_path(self.game, config.num_players)
            net, meta = load_checkpoint(path)
            check_fits(meta, config, str(path))
            net.eval()
            self.frozen[key] = net, meta
        net, meta = self.frozen[key]
        return net.agent(meta, config, seed if spec.seed is None else spec.seed)

    # ------------------------------------------------------------------ collect
    @torch.no_grad()
    def play(self, request: DMCRequest) -> DMCRollout:
        self.net.load_state_dict({k: torch.as_tensor(v) for k, v in request.weights.items()})
        rng = np.random.default_rng(np.random.SeedSequence(list(request.seed)))
        deal_index = self.spec.deal_index if request.returns == "deal" else None
        self._deal_of = deal_index or (lambda env: 0)
        self._versus = request.opponent
        matches = [self._new_match(i, rng, request) for i in range(self.num_matches)]
        active = list(range(self.num_matches))
        obs_out: list[np.ndarray] = []
        rows_out: list[np.ndarray] = []
        returns: list[float] = []
        results: list[dict] = []
        decisions = moves = played = 0
        while active:
            chosen, queued, frozen = self._choose(matches, active, rng, request.epsilon, obs_out, rows_out, returns)
            self._score(matches, queued, chosen, obs_out, rows_out, returns)
            self._score_frozen(frozen, chosen)
            still = []
            for i in active:
                m = matches[i]
                decisions += m.mine[m.env.acting_seat]
                moves += 1
                if self._advance(m, chosen[i]):
                    self._settle(m, returns, results)
                    played += 1
                    if len(returns) < request.min_samples:
                        matches[i] = self._new_match(i, rng, request)
                        still.append(i)
                else:
                    still.append(i)
            active = still
        width = self.net.obs_size, self.net.move_features
        return DMCRollout(
            obs=np.stack(obs_out) if obs_out else np.zeros((0, width[0]), np.float32),
            rows=np.stack(rows_out) if rows_out else np.zeros((0, width[1]), np.float32),
            returns=np.asarray(returns, np.float32), decisions=decisions, moves=moves, played=played,
            matches=results)

    def _choose(self, matches, active, rng, epsilon, obs_out, rows_out, returns) -> tuple[dict, list, list]:
        """Every move that needs no network (forced, planned, the bots', explored); the rest queued:
        the learner's as (match, observation, candidate sequences, rows, prefix length, signature),
        a frozen checkpoint opponent's as (match, its agent, its pending decision)."""
        chosen: dict[int, int] = {}
        queued, frozen = [], []
        for i in active:
            m = matches[i]
            env = m.env
            seat = env.acting_seat
            legal = env.legal_now()
            if len(legal) == 1:
                chosen[i] = legal[0]
                continue
            mask = np.zeros(env.num_actions, np.int8)
            mask[legal] = 1
            obs = env.encode_seat(seat)
            if not m.mine[seat]:
                bot = m.bots[seat]
                if isinstance(bot, RankerAgent):  # a frozen checkpoint: its Q in one pass with the others'
                    move, pending = bot.prepare(obs, mask)
                    if pending is not None:
                        frozen.append((i, bot, pending))
                        continue
                    chosen[i] = move
                else:
                    chosen[i] = agent_move(bot, env, seat, obs, mask)
                continue
            state = m.reader.read(obs)
            k = len(state.prefix)
            plan = m.plans[seat]
            if plan is not None and k:  # part-way through a composed move: keep to the plan
                signature, seq = plan
                if signature == state.signature and seq[:k] == state.prefix and len(seq) > k and mask[seq[k]]:
                    chosen[i] = int(seq[k])
                    continue
            seqs, rows = m.reader.candidates(state, mask)
            if len(seqs) == 1:
                m.plans[seat] = (state.signature, seqs[0])
                chosen[i] = int(seqs[0][k])
            elif epsilon and rng.random() < epsilon:
                best = int(rng.integers(len(seqs)))
                self._record(m, seat, obs, rows[best], obs_out, rows_out, returns)
                m.plans[seat] = (state.signature, seqs[best])
                chosen[i] = int(seqs[best][k])
            else:
                queued.append((i, obs, seqs, rows, k, state.signature))
        return chosen, queued, frozen

    def _score(self, matches, queued, chosen, obs_out, rows_out, returns) -> None:
        """One forward pass over the candidates of every queued choice; each plays its best."""
        if not queued:
            return
        q_all, starts = self.net.batch_scores(np.stack([q[1] for q in queued]), [q[3] for q in queued])
        for (i, ob, seqs, cand, k, signature), start in zip(queued, starts):
            best = int(np.argmax(q_all[start:start + len(seqs)]))
            m = matches[i]
            seat = m.env.acting_seat
            self._record(m, seat, ob, cand[best], obs_out, rows_out, returns)
            m.plans[seat] = (signature, seqs[best])
            chosen[i] = int(seqs[best][k])

    @staticmethod
    def _score_frozen(frozen: list, chosen: dict) -> None:
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
                chosen[i] = agent.finish(pending, q_all[start:start + len(pending[2])])

    @staticmethod
    def _record(m: _Match, seat: int, obs, row, obs_out, rows_out, returns) -> None:
        m.samples.append((len(returns), seat, m.totals[seat], m.deal))
        obs_out.append(np.asarray(obs, np.float32))
        rows_out.append(row)
        returns.append(0.0)  # filled in when the choice's deal (or the match) ends

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

    def _settle(self, m: _Match, returns: list, results: list) -> None:
        """A finished match: its samples' returns, and how the learner fared against rule bots."""
        for index, seat, total, deal in m.samples:
            returns[index] = m.ends[deal][seat] - total
        if m.vs_rules:
            n = len(m.mine)
            me = m.mine.index(True)
            scores = self.spec.match_scores(m.env, m.totals)
            best_other = max(scores[s] for s in range(n) if not m.mine[s])
            results.append({"opponent": self._versus, "reward": m.totals[me],
                            "won": float(scores[me] > best_other)})
