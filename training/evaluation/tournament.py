"""Tournaments between agents: fair seating, duplicate deals, statistics, reports.

    from cardzoo.training.evaluation.tournament import run_tournament
    result = run_tournament("siantappo", ["rules", "random"], players=4, games=400, seed=1, workers=2)
    report = result.report()          # plain dict (what --json writes)

Terms
-----
* **side**: the seats one entrant controls in a game: one seat, or a team's seats (Suipi 4 players:
  seats {0, 2} and {1, 3}, partners play as one entrant).
* **lineup**: which entrant sits on each side in one game.
* **deal**: one episode seed. Every deal is played once per lineup of its *duplicate set*, the same
  cards with the entrants permuted over the sides, so the luck of the deal cancels out.

Duplicate sets
--------------
* field of E entrants, S sides, E <= S: the field repeated around the table (entrant (i + k) mod E
  on side i, for every shift k < E) and every rotation of that, without repeats. E = S: the S
  rotations; rules+random at 4 seats: ABAB and BABA; at 3 seats: ABA, BAA, AAB, BAB, ABB, BBA.
* field of E > S entrants: deal d seats the (d mod C(E, S))-th subset of S entrants, in all S
  rotations.
* explicit seats (``seats=True``): the given lineup in all its distinct rotations (or as given
  with ``rotate=False``).

Everything random derives from one tournament seed (deal seeds, each agent's seed per game), so
results are identical for any number of worker processes.

Scores and winners
------------------
An entrant's reward in a game is the mean total reward of its sides (a side's reward is the mean
over its seats). First place ("win") per game: Siantappo the highest total match reward, Suipi
the side with the higher cumulative reward, Sam Sip the best final rank (the survivor, or the top
of the ranking when the hand cap ends the match); ties split the win. Pairwise results (for
ratings) compare two entrants' scores in every game both played.
"""

from __future__ import annotations

from cardzoo.envs.errors import UserError

import contextlib
import csv
import dataclasses
import itertools
import json
import math
import multiprocessing as mp
import signal
import sys
import time
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from cardzoo.envs.config import config_dict
from cardzoo.envs.registry import DEFAULT_PLAYERS, PLAYER_COUNTS, game_module, game_spec
from cardzoo.training.agents.specs import AgentSpec, make_agent, parse_agent_spec
from cardzoo.training.evaluation.ratings import bootstrap_ratings, clustered_mean_ci, elo_ratings, wilson_ci

MAX_STEPS = 2_000_000  # safety net against a game that never ends
_COMBO_LIMIT = 100_000


def sides_for(game: str, players: int) -> tuple[tuple[int, ...], ...]:
    """The sides (seat groups one entrant controls): the game's teams at that player count."""
    return tuple(tuple(team) for team in game_spec(game).teams(players))


def _seed_int(*words: int) -> int:
    """A 63-bit seed derived from integers (numpy's SeedSequence hashing)."""
    a, b = np.random.SeedSequence([int(w) & 0xFFFFFFFFFFFFFFFF for w in words]).generate_state(2)
    return (int(a) << 31 | int(b) >> 1) & 0x7FFFFFFFFFFFFFFF


# ------------------------------------------------------------------- schedule
def duplicate_set(deal: int, n_entrants: int, n_sides: int, base: Sequence[int] | None = None,
                  rotate: bool = True) -> list[tuple[int, ...]]:
    """The lineups (entrant index per side) that play deal ``deal``."""
    def rotations(seq):
        out = []
        for r in range(n_sides if rotate else 1):
            lu = tuple(seq[(i + r) % n_sides] for i in range(n_sides))
            if lu not in out:
                out.append(lu)
        return out

    if base is not None:
        return rotations(tuple(base))
    if n_entrants <= n_sides:
        out: list[tuple[int, ...]] = []
        for k in range(n_entrants):
            for lu in rotations(tuple((i + k) % n_entrants for i in range(n_sides))):
                if lu not in out:
                    out.append(lu)
        return out
    n_combos = math.comb(n_entrants, n_sides)
    if n_combos <= _COMBO_LIMIT:
        combo = _nth_combination(n_entrants, n_sides, deal % n_combos)
    else:
        rng = np.random.default_rng(deal)
        combo = tuple(sorted(int(x) for x in rng.choice(n_entrants, n_sides, replace=False)))
    return rotations(combo)


def _nth_combination(n: int, k: int, index: int) -> tuple[int, ...]:
    """The index-th k-subset of range(n) in lexicographic order (itertools.combinations order)."""
    out, start = [], 0
    for slot in range(k):
        for x in range(start, n):
            count = math.comb(n - x - 1, k - slot - 1)
            if index < count:
                out.append(x)
                start = x + 1
                break
            index -= count
    return tuple(out)


# ------------------------------------------------------------------ one game
@dataclass
class GameResult:
    deal: int
    index: int  # position in the deal's duplicate set
    lineup: tuple[int, ...]  # entrant per side
    seat_rewards: list[float]
    side_scores: list[float]  # what decides the winner (reward, or minus the rank in Sam Sip)
    steps: int
    record: dict | None = None


@dataclass(frozen=True)
class _Setup:
    game: str
    players: int
    options: dict
    specs: tuple[AgentSpec, ...]
    names: tuple[str, ...]
    sides: tuple[tuple[int, ...], ...]
    seed: int
    records: bool


class _Runner:
    """Plays single games of a tournament (one per worker process)."""

    def __init__(self, setup: _Setup):
        self.s = setup
        self.module = game_module(setup.game)
        self.env = self.module.raw_env(num_players=setup.players, **setup.options)
        self.seat_side = {seat: i for i, side in enumerate(setup.sides) for seat in side}
        self.bare = [dataclasses.replace(sp, seed=None) for sp in setup.specs]
        self._loaded: dict[tuple[int, int], object] = {}  # (entrant, seat) -> checkpoint agent

    def _agent(self, entrant: int, seat: int, seed: int):
        """A fresh agent for one game; checkpoint agents are loaded once per worker and seat,
        then reseeded every game (so results do not depend on which worker plays the game)."""
        spec = self.bare[entrant]
        if spec.kind not in ("checkpoint", "model"):  # networks load once, then are reseeded
            return make_agent(spec, self.module, self.env.config, seed=seed)
        agent = self._loaded.get((entrant, seat))
        if agent is None:
            agent = self._loaded[(entrant, seat)] = make_agent(spec, self.module, self.env.config, seed=seed)
        _reseed(agent, seed)
        return agent

    def check_agents(self) -> None:
        """Build every entrant once, so bad specs fail before any game is played."""
        for sp in self.bare:
            make_agent(sp, self.module, self.env.config, seed=0)

    def play(self, deal: int, index: int, lineup: tuple[int, ...]) -> GameResult:
        s, env = self.s, self.env
        env.reset(seed=_seed_int(s.seed, 1, deal))
        agents = []
        for seat in range(s.players):
            e = lineup[self.seat_side[seat]]
            base = s.specs[e].seed if s.specs[e].seed is not None else s.seed
            agent = self._agent(e, seat, _seed_int(base, 2, deal, index, seat))
            if hasattr(agent, "reset"):
                agent.reset()
            agents.append(agent)
        totals = [0.0] * s.players
        moves = [] if s.records else None
        steps = 0
        while env.agents:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                if all(env.terminations[a] or env.truncations[a] for a in env.agents):
                    break
                env.step(None)  # an eliminated seat leaves (PettingZoo dead step)
                continue
            seat = env.agent_seat[agent]
            obs = env.observe(agent)
            action = int(agents[seat].act(obs["observation"], obs["action_mask"]))
            if moves is not None:
                moves.append({"seat": seat, "action": action, "text": env.action_text(action)})
            env.step(action)
            steps += 1
            for a, r in env.rewards.items():
                if r:
                    totals[env.agent_seat[a]] += r
            if steps > MAX_STEPS:
                raise RuntimeError(f"{s.game}: a game ran past {MAX_STEPS} steps")
        seat_scores = self._seat_scores(totals)
        side_scores = [float(np.mean([seat_scores[x] for x in side])) for side in s.sides]
        record = None
        if moves is not None:
            best = max(side_scores)
            record = env.record_header()
            record.update({
                "moves": moves,
                "rewards": totals,
                "agents": [s.names[lineup[self.seat_side[seat]]] for seat in range(s.players)],
                "winners": [seat for i, side in enumerate(s.sides) if side_scores[i] == best for seat in side],
                "deal": deal,
                "tournament_seed": s.seed,
            })
        return GameResult(deal, index, tuple(lineup), totals, side_scores, steps, record)

    def _seat_scores(self, totals: list[float]) -> list[float]:
        return game_spec(self.s.game).match_scores(self.env, totals)


def _reseed(agent, seed: int) -> None:
    """Give a reused agent a new seed: its ``seed(seed)`` method, else a fresh numpy ``rng``."""
    if callable(getattr(agent, "seed", None)):
        agent.seed(seed)
    elif isinstance(getattr(agent, "rng", None), np.random.Generator):
        agent.rng = np.random.default_rng(seed)


_WORKER: _Runner | None = None


def _init_worker(setup: _Setup) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    if "torch" in sys.modules:  # one thread per worker process: the workers are the parallelism
        sys.modules["torch"].set_num_threads(1)
    global _WORKER
    _WORKER = _Runner(setup)


def _work(task) -> GameResult:
    return _WORKER.play(*task)


# ------------------------------------------------------------------ tournament
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


def run_tournament(game: str, agents: Sequence[str | AgentSpec], players: int | None = None,
                   games: int = 200, seed: int = 0, workers: int = 1, options: dict | None = None,
                   seats: bool = False, rotate: bool = True, records: str | None = None,
                   progress: bool = False, bootstrap: int = 200, log: str | None = None) -> TournamentResult:
    """Play a tournament and return its games (``.report()`` for the statistics).

    ``agents`` is a field of entrants, or with ``seats=True`` one agent per side in seat order.
    ``games`` is rounded up to whole duplicate sets. ``records`` writes every game as JSON lines.
    Ctrl-C stops early; the result then holds the finished games and ``interrupted=True``.
    ``log`` appends every finished game to a file; running the same tournament with the same
    log again skips the games it already holds (resume after Ctrl-C or a crash).
    """
    module = game_module(game)
    game = module.GAME
    counts = PLAYER_COUNTS[game]
    players = DEFAULT_PLAYERS[game] if players is None else int(players)
    if players not in counts:
        raise UserError(f"{game} is played by {', '.join(map(str, counts))} players, not {players}")
    if games < 1:
        raise UserError(f"games must be at least 1, got {games}")
    if workers < 1:
        raise UserError(f"workers must be at least 1, got {workers}")
    options = dict(options or {})
    if "num_players" in options:
        raise UserError("give the number of players with players=/--players, not as a rule option")
    specs = [a if isinstance(a, AgentSpec) else parse_agent_spec(a) for a in agents]
    if not specs:
        raise UserError("no agents given; use e.g. rules,random")
    sides = sides_for(game, players)
    n_sides = len(sides)
    team = " (partners play as one entrant)" if any(len(sd) > 1 for sd in sides) else ""
    if seats:
        if len(specs) != n_sides:
            raise UserError(f"{game} with {players} players has {n_sides} seats{team}; "
                             f"got {len(specs)} agent(s): {','.join(sp.text for sp in specs)}")
        keys, base, entrant_specs = [], [], []
        for sp in specs:  # the same agent on several seats is one entrant
            key = (sp.kind, sp.path, sp.seed)
            if key not in keys:
                keys.append(key)
                entrant_specs.append(sp)
            base.append(keys.index(key))
        names = _field_names(entrant_specs)
        mode = "seats" if rotate else "fixed seats"
    else:
        names, entrant_specs, base = _field_names(specs), specs, None
        mode = "field"
    setup = _Setup(game, players, options, tuple(entrant_specs), tuple(names), sides, int(seed),
                   records is not None)
    runner = _Runner(setup)  # validates the rule options
    runner.check_agents()  # and every agent spec, before any game starts
    set_size = len(duplicate_set(0, len(names), n_sides, base, rotate))
    n_deals = -(-int(games) // set_size)
    tasks = [(d, i, lu) for d in range(n_deals)
             for i, lu in enumerate(duplicate_set(d, len(names), n_sides, base, rotate))]
    result = TournamentResult(game, players, options, config_dict(runner.env.config), int(seed), names,
                              entrant_specs, [list(sd) for sd in sides], set_size, len(tasks), mode=mode,
                              bootstrap=bootstrap)
    log_key = {"game": game, "players": players, "options": config_dict(runner.env.config),
               "agents": [sp.text for sp in entrant_specs], "base": base, "mode": mode, "seed": int(seed),
               "tasks": len(tasks)}
    done = _read_log(log, log_key) if log is not None else []
    result.games.extend(done)
    finished = {(g.deal, g.index) for g in done}
    tasks = [t for t in tasks if (t[0], t[1]) not in finished]
    workers = max(1, min(int(workers), max(len(tasks), 1)))
    out = open(records, "a" if done else "w", encoding="utf-8") if records is not None else None
    log_out = _open_log(log, log_key, done) if log is not None else None
    t0 = time.perf_counter()
    bar = _progress_bar(len(tasks) + len(done), f"{game} {players}p", progress)
    bar.update(len(done))
    try:
        def take(res: GameResult) -> None:
            result.games.append(res)
            if out is not None:
                out.write(json.dumps(res.record, ensure_ascii=False, separators=(",", ":")) + "\n")
                res.record = None
            if log_out is not None:
                log_out.write(json.dumps(_game_to_json(res)) + "\n")
                log_out.flush()
            bar.update(1)

        if workers == 1:
            try:
                with _one_torch_thread():
                    for task in tasks:
                        take(runner.play(*task))
            except KeyboardInterrupt:
                result.interrupted = True
        else:
            _run_pool(setup, tasks, workers, take, result)
    finally:
        bar.close()
        for f in (out, log_out):
            if f is not None:
                f.close()
        result.seconds = time.perf_counter() - t0
    result.games.sort(key=lambda g: (g.deal, g.index))
    return result


def versus_baselines(agent: str, game: str, players: int, games: int, seed: int, options: dict | None = None,
                     workers: int = 1, progress: bool = False) -> dict:
    """How one agent fares against the rule bot and against random: per baseline, a two-entrant
    tournament; returns {baseline: {games, mean_reward, reward_ci, win_rate, win_ci}}."""
    out = {}
    for baseline in ("rules", "random"):
        res = run_tournament(game, [agent, baseline], players=players, games=games, seed=seed, workers=workers,
                             options=options, progress=progress)
        me = res.report()["entrants"][0]
        out[baseline] = {k: me[k] for k in ("games", "mean_reward", "reward_ci", "win_rate", "win_ci")}
    return out


# ------------------------------------------------------------------ resumable log
def _game_to_json(g: GameResult) -> dict:
    return {"deal": g.deal, "index": g.index, "lineup": list(g.lineup), "seat_rewards": g.seat_rewards,
            "side_scores": g.side_scores, "steps": g.steps}


def _read_log(path: str, key: dict) -> list[GameResult]:
    """Finished games of the same tournament from a log; [] if the file does not exist yet."""
    try:
        lines = open(path, encoding="utf-8").read().splitlines()
    except FileNotFoundError:
        return []
    if not lines:
        return []
    try:
        head = json.loads(lines[0])
        if head.get("tournament") != key:
            raise UserError(f"{path} logs a different tournament; use another --log file or the same settings")
        games = []
        for line in lines[1:]:
            if not line.strip():
                continue
            try:
                d = json.loads(line)
            except json.JSONDecodeError:
                break  # a line cut short by a crash: that game is played again
            games.append(GameResult(int(d["deal"]), int(d["index"]), tuple(d["lineup"]),
                                    [float(x) for x in d["seat_rewards"]], [float(x) for x in d["side_scores"]],
                                    int(d["steps"])))
    except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as e:
        raise UserError(f"{path} is not a cardzoo tournament log ({type(e).__name__})") from None
    return games


def _open_log(path: str, key: dict, done: list[GameResult]):
    """(Re)write the log with the games kept (dropping any line cut short) and keep it open."""
    f = open(path, "w", encoding="utf-8")
    f.write(json.dumps({"tournament": key}) + "\n")
    for g in done:
        f.write(json.dumps(_game_to_json(g)) + "\n")
    f.flush()
    return f


@contextlib.contextmanager
def _one_torch_thread():
    """Play in-process on one torch thread, as the pool workers do: an agent's network is small,
    and extra threads only contend for the cores (measured on a busy machine: a Sam Sip ranker took
    8.6 ms per move on one thread, 15 ms on two)."""
    torch = sys.modules.get("torch")
    before = torch.get_num_threads() if torch else 0
    if torch:
        torch.set_num_threads(1)
    try:
        yield
    finally:
        if torch:
            torch.set_num_threads(before)


def _run_pool(setup: _Setup, tasks, workers: int, take, result: TournamentResult) -> None:
    method = "fork" if "fork" in mp.get_all_start_methods() else "spawn"
    ctx = mp.get_context(method)
    chunk = max(1, min(8, len(tasks) // (workers * 16)))
    pool = ctx.Pool(workers, initializer=_init_worker, initargs=(setup,))
    try:
        for res in pool.imap(_work, tasks, chunksize=chunk):  # in task order: reproducible output
            take(res)
        pool.close()
    except KeyboardInterrupt:
        result.interrupted = True
        pool.terminate()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()


def _field_names(specs: Sequence[AgentSpec]) -> list[str]:
    labels = [sp.label for sp in specs]
    names = []
    for i, lab in enumerate(labels):
        if labels.count(lab) > 1:
            lab = f"{lab}#{labels[:i + 1].count(lab)}"
        names.append(lab)
    return names


class _NoBar:
    def update(self, n=1):
        pass

    def close(self):
        pass


def _progress_bar(total: int, desc: str, enabled: bool):
    if not enabled:
        return _NoBar()
    from tqdm import tqdm
    return tqdm(total=total, desc=desc, unit="game", file=sys.stderr, dynamic_ncols=True, smoothing=0.1)


# ------------------------------------------------------------------ statistics
def summarize(res: TournamentResult) -> dict:
    """The statistics of a tournament as a JSON-ready dict."""
    e = len(res.names)
    deals = sorted({g.deal for g in res.games})
    deal_pos = {d: i for i, d in enumerate(deals)}
    per_reward: list[list[float]] = [[] for _ in range(e)]
    per_deal: list[list[int]] = [[] for _ in range(e)]
    wins = np.zeros(e)
    deal_wins = np.zeros((len(deals), e, e))
    pair_diff: dict[tuple[int, int], tuple[list[float], list[int]]] = {}
    for g in res.games:
        present = sorted(set(g.lineup))
        best = max(g.side_scores)
        winners = [i for i, sc in enumerate(g.side_scores) if sc == best]
        rew, score = {}, {}
        for ent in present:
            idx = [i for i, x in enumerate(g.lineup) if x == ent]
            rew[ent] = float(np.mean([np.mean([g.seat_rewards[s] for s in res.sides[i]]) for i in idx]))
            score[ent] = float(np.mean([g.side_scores[i] for i in idx]))
            wins[ent] += sum(1.0 / len(winners) for i in idx if i in winners)
            per_reward[ent].append(rew[ent])
            per_deal[ent].append(g.deal)
        k = deal_pos[g.deal]
        for a, b in itertools.combinations(present, 2):
            if score[a] > score[b]:
                deal_wins[k, a, b] += 1
            elif score[b] > score[a]:
                deal_wins[k, b, a] += 1
            else:
                deal_wins[k, a, b] += 0.5
                deal_wins[k, b, a] += 0.5
            lst = pair_diff.setdefault((a, b), ([], []))
            lst[0].append(rew[a] - rew[b])
            lst[1].append(g.deal)

    entrants = []
    for i, name in enumerate(res.names):
        n = len(per_reward[i])
        mean, lo, hi = clustered_mean_ci(per_reward[i], per_deal[i])
        wlo, whi = wilson_ci(wins[i], n)
        entrants.append({
            "name": name, "spec": res.specs[i].text, "games": n,
            "mean_reward": _num(mean), "reward_ci": [_num(lo), _num(hi)],
            "wins": _num(wins[i]), "win_rate": _num(wins[i] / n if n else float("nan")),
            "win_ci": [_num(wlo), _num(whi)],
        })

    pairs = []
    total_w = deal_wins.sum(axis=0)
    for (a, b), (diffs, dls) in sorted(pair_diff.items()):
        mean, lo, hi = clustered_mean_ci(diffs, dls)
        comps = total_w[a, b] + total_w[b, a]
        pairs.append({"a": res.names[a], "b": res.names[b], "games": len(diffs),
                      "advantage": _num(mean), "advantage_ci": [_num(lo), _num(hi)],
                      "a_score": _num(total_w[a, b] / comps if comps else float("nan"))})

    ratings = None
    if e >= 3 and res.games:
        anchor = next((i for i, sp in enumerate(res.specs) if sp.kind == "random"), 0)
        r = elo_ratings(total_w, anchor=anchor)
        lo, hi = bootstrap_ratings(deal_wins, anchor=anchor, samples=res.bootstrap, seed=res.seed)
        for i, ent in enumerate(entrants):
            ent["rating"] = _num(r[i])
            ent["rating_ci"] = [_num(lo[i]), _num(hi[i])]
        ratings = {"method": "Bradley-Terry (MM fit) from pairwise results of every game",
                   "scale": "Elo: 400 * log10(strength); +400 = 10:1 odds in a head-to-head comparison",
                   "anchor": res.names[anchor], "prior": "one virtual draw per pair that met",
                   "interval": f"95% percentile bootstrap over deals ({res.bootstrap} resamples)"}

    return {
        "game": res.game, "players": res.players, "config": res.config, "options": res.options,
        "seed": res.seed, "mode": res.mode,
        "sides": res.sides, "games_planned": res.planned, "games_played": len(res.games),
        "deals": len(deals), "games_per_deal": res.set_size, "interrupted": res.interrupted,
        "seconds": round(res.seconds, 3), "win_rule": game_spec(res.game).win_rule,
        "entrants": entrants, "pairs": pairs, "ratings": ratings,
    }


def _num(x) -> float | None:
    x = float(x)
    return None if math.isnan(x) else x


# ------------------------------------------------------------------ output
def _fmt(x, spec="+.3f") -> str:
    return "—" if x is None else format(x, spec)


def _ci(lohi, spec="+.3f") -> str:
    lo, hi = lohi
    return "" if lo is None or hi is None else f"[{format(lo, spec)}, {format(hi, spec)}]"


def print_report(report: dict, console=None) -> None:
    """Print the result tables with rich."""
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    g, n = report["game"], report["players"]
    title = (f"{g}, {n} players — {report['games_played']} games "
             f"({report['deals']} deals x {report['games_per_deal']} seatings), seed {report['seed']}")
    if report["interrupted"]:
        title += f" — INTERRUPTED after {report['games_played']} of {report['games_planned']} games"
    t = Table(title=title, title_justify="left")
    t.add_column("agent", no_wrap=True)
    t.add_column("games", justify="right", no_wrap=True)
    t.add_column("mean reward [95% CI]", justify="right", no_wrap=True)
    t.add_column("win rate [95% CI]", justify="right", no_wrap=True)
    has_rating = report["ratings"] is not None
    if has_rating:
        t.add_column("rating [95% CI]", justify="right", no_wrap=True)
    anchor = report["ratings"]["anchor"] if has_rating else None
    for ent in report["entrants"]:
        row = [ent["name"], str(ent["games"]),
               f"{_fmt(ent['mean_reward'], '+.2f')} {_ci(ent['reward_ci'], '+.2f')}",
               f"{_fmt(ent['win_rate'], '.0%')} {_ci(ent['win_ci'], '.0%')}"]
        if has_rating:
            if ent["name"] == anchor:
                row.append("0 (anchor)")
            else:
                row.append(f"{_fmt(ent.get('rating'), '+.0f')} {_ci(ent.get('rating_ci', (None, None)), '+.0f')}")
        t.add_row(*row)
    console.print(t)
    if report["pairs"] and len(report["pairs"]) <= 28:
        p = Table(title="head to head (games both played)", title_justify="left")
        for col, just in (("a", "left"), ("b", "left"), ("games", "right"),
                          ("a − b reward [95% CI]", "right"), ("a ahead", "right")):
            p.add_column(col, justify=just, no_wrap=True)
        for pr in report["pairs"]:
            p.add_row(pr["a"], pr["b"], str(pr["games"]),
                      f"{_fmt(pr['advantage'], '+.2f')} {_ci(pr['advantage_ci'], '+.2f')}",
                      _fmt(pr["a_score"], ".0%"))
        console.print(p)
    notes = [f"win = {report['win_rule']}"]
    if has_rating:
        notes.append(f"ratings: Bradley–Terry on the Elo scale, {report['ratings']['anchor']} = 0")
    console.print("; ".join(notes) + f"; {report['seconds']:.1f} s", style="dim")


def write_json(report: dict, path: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=2, ensure_ascii=False)
        f.write("\n")


CSV_FIELDS = ("game", "players", "agent", "spec", "games", "mean_reward", "reward_ci_low", "reward_ci_high",
              "wins", "win_rate", "win_ci_low", "win_ci_high", "rating", "rating_ci_low", "rating_ci_high")


def write_csv(report: dict, path: str) -> None:
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(CSV_FIELDS)
        for ent in report["entrants"]:
            rci = ent.get("rating_ci") or (None, None)
            row = [report["game"], report["players"], ent["name"], ent["spec"], ent["games"],
                   ent["mean_reward"], *ent["reward_ci"], ent["wins"], ent["win_rate"], *ent["win_ci"],
                   ent.get("rating"), *rci]
            w.writerow(["" if x is None else x for x in row])


def write_plot(report: dict, path: str) -> None:
    """PNG: ratings with 95% intervals (field of >= 3), else mean reward with 95% intervals."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ents = report["entrants"]
    names = [e["name"] for e in ents]
    if report["ratings"] is not None:
        key, ci_key = "rating", "rating_ci"
        label = f"Bradley–Terry rating (Elo scale, {report['ratings']['anchor']} = 0)"
    else:
        key, ci_key = "mean_reward", "reward_ci"
        label = "mean reward per game"
    vals = np.array([np.nan if e.get(key) is None else e[key] for e in ents], dtype=float)
    lo = np.array([np.nan if e[ci_key][0] is None else e[ci_key][0] for e in ents], dtype=float)
    hi = np.array([np.nan if e[ci_key][1] is None else e[ci_key][1] for e in ents], dtype=float)
    err = np.vstack([np.nan_to_num(vals - lo), np.nan_to_num(hi - vals)]).clip(min=0)
    fig, ax = plt.subplots(figsize=(max(4.0, 1.1 * len(names) + 2), 3.6), dpi=120)
    x = np.arange(len(names))
    ax.bar(x, np.nan_to_num(vals), color="#4c78a8", alpha=0.8)
    ax.errorbar(x, np.nan_to_num(vals), yerr=err, fmt="none", ecolor="black", capsize=5, lw=1.2)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xticks(x, names, rotation=20 if len(names) > 4 else 0)
    ax.set_ylabel(label)
    ax.set_title(f"{report['game']}, {report['players']} players, {report['games_played']} games "
                 f"(95% intervals)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
