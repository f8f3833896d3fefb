"""Tournaments between agents: fair seating, duplicate deals, statistics, reports.

    from cardzoo.training.evaluation.tournament import run_tournament
    result = run_tournament("siantappo", ["rules", "random"], players=4, games=400, seed=1, workers=2)
    report = result.report()          # plain dict (what --json writes)

This module runs a tournament end to end (``run_tournament``, and ``versus_baselines`` for one agent
against the rule bot and random); the parts live next to it: ``schedule`` (sides, duplicate sets,
tasks), ``runner`` (one game), ``pool`` (in-process or worker processes), ``log`` (the resumable
log), ``results`` (``GameResult``, ``TournamentResult``), ``summary`` (the statistics) and
``report`` (console, JSON, CSV, plot).

Terms
-----
* **side**: the seats one entrant controls in a game: one seat, or a team's seats (Suipi 4 players:
  seats {0, 2} and {1, 3}, partners play as one entrant).
* **lineup**: which entrant sits on each side in one game.
* **deal**: one episode seed. Every deal is played once per lineup of its *duplicate set*, the same
  cards with the entrants permuted over the sides, so the luck of the deal cancels out
  (``schedule.duplicate_set`` says which lineups).

Everything random derives from one tournament seed (deal seeds, each agent's seed per game), so
results are identical for any number of worker processes. How scores and winners are counted:
``summary.summarize``.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from cardzoo.envs.config import config_dict
from cardzoo.envs.errors import UserError
from cardzoo.envs.registry import DEFAULT_PLAYERS, PLAYER_COUNTS, game_module
from cardzoo.training.agents.specs import AgentSpec, parse_agent_spec
from cardzoo.training.evaluation.log import log_key, open_log, read_log, write_game
from cardzoo.training.evaluation.luck import resolve_adjust
from cardzoo.training.evaluation.pool import play_tasks
from cardzoo.training.evaluation.results import GameResult, TournamentResult
from cardzoo.training.evaluation.runner import Runner, Setup
from cardzoo.training.evaluation.schedule import Task, schedule, sides_for
from cardzoo.training.evaluation.sprt import SPRTBounds, SPRTWatch

__all__ = ["GameResult", "TournamentResult", "run_tournament", "versus_baselines"]


def run_tournament(
    game: str,
    agents: Sequence[str | AgentSpec],
    players: int | None = None,
    games: int = 200,
    seed: int = 0,
    workers: int = 1,
    options: dict | None = None,
    seats: bool = False,
    rotate: bool = True,
    records: str | None = None,
    progress: bool = False,
    bootstrap: int = 200,
    log: str | None = None,
    ray: str | None = None,
    sprt: SPRTBounds | None = None,
    adjust: str | None = None,
) -> TournamentResult:
    """Play a tournament and return its games (``.report()`` for the statistics).

    ``agents`` is a field of entrants, or with ``seats=True`` one agent per side in seat order.
    ``games`` is rounded up to whole duplicate sets. ``records`` writes every game as JSON lines.
    Ctrl-C stops early; the result then holds the finished games and ``interrupted=True``.
    ``log`` appends every finished game to a file; running the same tournament with the same
    log again skips the games it already holds (resume after Ctrl-C or a crash). ``ray``: play on
    ``workers`` actors of the Ray cluster at that address ("" for this machine's); the same games.
    ``sprt`` (two entrants): stop as soon as the sequential test decides between its hypotheses on
    the first entrant's advantage over the second (``games`` is then the cap); the outcome is in
    ``result.sprt``. Not with ``log``. ``adjust``: ``"luck"`` (every game also luck-adjusted with the
    game's value network, ``evaluation.luck``), ``"none"``, or None for luck where a value network
    ships for the game and count; the SPRT then weighs the adjusted results.
    """
    game, players, options, specs = _check_arguments(game, agents, players, games, workers, options)
    sides = sides_for(game, players)
    names, entrant_specs, base, mode = _entrants(game, players, specs, sides, seats, rotate)
    value = resolve_adjust(adjust, game, players)
    setup = Setup(
        game, players, options, tuple(entrant_specs), tuple(names), sides, int(seed), records is not None, value
    )
    runner = Runner(setup)  # validates the rule options
    runner.check_agents()  # and every agent spec, before any game starts
    set_size, tasks = schedule(games, len(names), len(sides), base, rotate)
    result = TournamentResult(
        game,
        players,
        options,
        config_dict(runner.env.config),
        int(seed),
        names,
        entrant_specs,
        [list(sd) for sd in sides],
        set_size,
        len(tasks),
        mode=mode,
        bootstrap=bootstrap,
        value=None if value is None else Path(value).name,
    )
    key = log_key(
        game,
        players,
        config_dict(runner.env.config),
        [sp.text for sp in entrant_specs],
        base,
        mode,
        int(seed),
        len(tasks),
        result.value,
    )
    done = read_log(log, key) if log is not None else []
    result.games.extend(done)
    finished = {(g.deal, g.index) for g in done}
    tasks = [t for t in tasks if (t[0], t[1]) not in finished]
    workers = max(1, min(int(workers), max(len(tasks), 1)))  # on Ray too: no idle actors
    watch = _sprt_watch(sprt, names, sides, set_size, log)
    _play(
        setup,
        runner,
        tasks,
        workers,
        result,
        done,
        records=records,
        log=log,
        key=key,
        progress=progress,
        ray=ray,
        stop=watch.add if watch else None,
    )
    if watch is not None:
        result.sprt = watch.report(names)
    result.games.sort(key=lambda g: (g.deal, g.index))
    return result


def _check_arguments(
    game: str, agents: Sequence[str | AgentSpec], players: int | None, games: int, workers: int, options: dict | None
) -> tuple[str, int, dict, list[AgentSpec]]:
    """The game's name, the player count, the rule options and the parsed agent specs, or a
    UserError that says what is wrong."""
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
    return game, players, options, specs


def _entrants(game: str, players: int, specs: list[AgentSpec], sides, seats: bool, rotate: bool):
    """(names, entrant specs, base lineup or None, mode) of a field, or of explicit seats."""
    n_sides = len(sides)
    team = " (partners play as one entrant)" if any(len(sd) > 1 for sd in sides) else ""
    if not seats:
        return _field_names(specs), specs, None, "field"
    if len(specs) != n_sides:
        raise UserError(
            f"{game} with {players} players has {n_sides} seats{team}; "
            f"got {len(specs)} agent(s): {','.join(sp.text for sp in specs)}"
        )
    keys, base, entrant_specs = [], [], []
    for sp in specs:  # the same agent on several seats is one entrant
        key = (sp.kind, sp.path, sp.seed, sp.budget)
        if key not in keys:
            keys.append(key)
            entrant_specs.append(sp)
        base.append(keys.index(key))
    return _field_names(entrant_specs), entrant_specs, base, "seats" if rotate else "fixed seats"


def _sprt_watch(sprt: SPRTBounds | None, names: list[str], sides, set_size: int, log: str | None) -> SPRTWatch | None:
    if sprt is None:
        return None
    if len(names) != 2:
        raise UserError(f"an SPRT compares two entrants, got {len(names)}: {', '.join(names)}")
    if log is not None:
        raise UserError("an SPRT decides as the games come in; it does not resume from a --log")
    return SPRTWatch(sprt.check(), sides, set_size)


class _Decided(Exception):
    """Raised from a game's callback when the SPRT has decided: stop playing."""


def _play(
    setup: Setup,
    runner: Runner,
    tasks: list[Task],
    workers: int,
    result: TournamentResult,
    done: list[GameResult],
    records: str | None,
    log: str | None,
    key: dict,
    progress: bool,
    ray: str | None = None,
    stop: Callable[[GameResult], bool] | None = None,
) -> None:
    """Play the remaining tasks into ``result``; every finished game goes to the records file and the
    log as it comes. Sets ``result.interrupted`` on Ctrl-C and ``result.seconds``; ends early once
    ``stop`` (called with every game in task order) says so."""
    out = open(records, "a" if done else "w", encoding="utf-8") if records is not None else None  # noqa: SIM115 - closed below
    log_out = open_log(log, key, done) if log is not None else None
    t0 = time.perf_counter()
    bar = _progress_bar(len(tasks) + len(done), f"{setup.game} {setup.players}p", progress)
    bar.update(len(done))
    try:

        def take(res: GameResult) -> None:
            result.games.append(res)
            if out is not None:
                out.write(json.dumps(res.record, ensure_ascii=False, separators=(",", ":")) + "\n")
                res.record = None
            if log_out is not None:
                write_game(log_out, res)
                log_out.flush()
            bar.update(1)
            if stop is not None and stop(res):
                raise _Decided

        try:
            if play_tasks(setup, runner, tasks, workers, take, ray):
                result.interrupted = True
        except _Decided:
            pass
    finally:
        bar.close()
        for f in (out, log_out):
            if f is not None:
                f.close()
        result.seconds = time.perf_counter() - t0


def versus_baselines(
    agent: str,
    game: str,
    players: int,
    games: int,
    seed: int,
    options: dict | None = None,
    workers: int = 1,
    progress: bool = False,
) -> dict:
    """How one agent fares against the rule bot and against random: per baseline, a two-entrant
    tournament; returns {baseline: {games, mean_reward, reward_ci, win_rate, win_ci}}."""
    out = {}
    for baseline in ("rules", "random"):
        res = run_tournament(
            game,
            [agent, baseline],
            players=players,
            games=games,
            seed=seed,
            workers=workers,
            options=options,
            progress=progress,
            adjust="none",  # per-entrant means only: luck adjustment is for head-to-head advantages
        )
        me = res.report()["entrants"][0]
        out[baseline] = {k: me[k] for k in ("games", "mean_reward", "reward_ci", "win_rate", "win_ci")}
    return out


def _field_names(specs: Sequence[AgentSpec]) -> list[str]:
    labels = [sp.label for sp in specs]
    names = []
    for i, lab in enumerate(labels):
        if labels.count(lab) > 1:
            lab = f"{lab}#{labels[: i + 1].count(lab)}"
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
