"""A ladder that remembers (``cardzoo ladder``): every pair of entrants plays head-to-head
duplicate-deal matches at a game and player count, every match is stored as it finishes
(``ladder_store``), and ratings come from all stored matches.

A pair's deals are its own: their seeds are hashed from the game, the player count, the rules and
the two entrants' keys, so a pair's k-th match is the same match whichever ladder or process plays
it, and ``play`` only plays the matches a pair does not have yet (a new entrant plays its new pairs;
a killed run goes on where it stopped). With an SPRT a pair stops once the test has decided.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Callable

import numpy as np

from cardzoo.envs.config import config_dict
from cardzoo.envs.errors import UserError
from cardzoo.envs.registry import DEFAULT_PLAYERS, PLAYER_COUNTS, game_module
from cardzoo.training.agents.specs import make_agent
from cardzoo.training.evaluation.ladder_store import Entrant, Match, entrants, matches, store_match
from cardzoo.training.evaluation.luck import resolve_adjust
from cardzoo.training.evaluation.pool import play_tasks
from cardzoo.training.evaluation.ratings import bootstrap_ratings, elo_ratings
from cardzoo.training.evaluation.results import GameResult
from cardzoo.training.evaluation.runner import Runner, Setup, episode_seed
from cardzoo.training.evaluation.schedule import schedule, sides_for
from cardzoo.training.evaluation.sprt import SPRTBounds, SPRTWatch


class _Decided(Exception):
    """A pair's SPRT has decided: stop its matches."""


def pair_seed(game: str, players: int, rules: str, a: Entrant, b: Entrant) -> int:
    """The seed of a pair's matches: the same for the same pair and table wherever it is played."""
    digest = hashlib.sha256(json.dumps([game, players, rules, a.key, b.key]).encode()).digest()
    return int.from_bytes(digest[:8], "big") & 0x7FFFFFFFFFFFFFFF


def play(
    con,
    game: str,
    players: int | None,
    games: int,
    options: dict | None = None,
    workers: int = 1,
    sprt: SPRTBounds | None = None,
    ray: str | None = None,
    say: Callable[[str], None] = print,
    adjust: str | None = None,
) -> int:
    """Play every pair of the ladder's entrants that can sit at this game up to ``games`` matches
    (fewer where the SPRT decides); returns the number of matches played now. ``adjust`` as
    ``run_tournament``'s: every new match also stores its luck-adjusted rewards (the default where
    a value network ships), which the SPRT then weighs where all of a pair's matches have them."""
    module = game_module(game)
    game = module.GAME
    players = DEFAULT_PLAYERS[game] if players is None else int(players)
    if players not in PLAYER_COUNTS[game]:
        raise UserError(f"{game} is played by {', '.join(map(str, PLAYER_COUNTS[game]))} players, not {players}")
    env = module.raw_env(num_players=players, **(options or {}))
    rules = json.dumps(config_dict(env.config), sort_keys=True)
    field = [e for e in entrants(con) if _can_sit(e, module, env.config, say)]
    if len(field) < 2:
        raise UserError(
            f"the ladder has {len(field)} entrant(s) that can play {game} with {players} players; "
            f"add more with `cardzoo ladder add SPEC...`"
        )
    value = resolve_adjust(adjust, game, players)
    played = 0
    for a, b in itertools.combinations(field, 2):
        played += _play_pair(
            con, game, players, dict(options or {}), rules, a, b, games, workers, sprt, ray, say, value
        )
    return played


def _can_sit(e: Entrant, module, config, say) -> bool:
    """Whether the entrant can play this game (a checkpoint of another game, or the model where
    none ships, cannot); says why not."""
    try:
        make_agent(e.agent, module, config, seed=0)
    except (UserError, ValueError, OSError) as err:
        say(f"skipping {e.name}: {str(err).splitlines()[0] if str(err) else type(err).__name__}")
        return False
    return True


def _play_pair(
    con,
    game,
    players,
    options,
    rules,
    a: Entrant,
    b: Entrant,
    games: int,
    workers: int,
    sprt: SPRTBounds | None,
    ray: str | None,
    say,
    value: str | None = None,
) -> int:
    sides = sides_for(game, players)
    setup = Setup(
        game,
        players,
        options,
        (a.agent, b.agent),
        (a.name, b.name),
        sides,
        pair_seed(game, players, rules, a, b),
        False,
        value,
    )
    set_size, tasks = schedule(games, 2, len(sides), None, True)
    stored = matches(con, game, players, rules, (a.id, b.id))
    watch = None
    if sprt is not None:
        watch = SPRTWatch(sprt, sides, set_size)
        for m in stored:
            watch.add(_result(m, a, b))
        if watch.accepted is not None:
            return 0
    have = {(m.deal, m.seating) for m in stored}
    todo = [t for t in tasks if (t[0], t[1]) not in have]
    if not todo:
        return 0
    say(f"{game} {players}p: {a.name} vs {b.name}: {len(todo)} matches to play ({len(have)} stored)")
    count = 0

    def take(res: GameResult) -> None:
        nonlocal count
        seat_of = {seat: i for i, side in enumerate(sides) for seat in side}
        seats = [(a.id, b.id)[res.lineup[seat_of[s]]] for s in range(players)]
        store_match(
            con,
            Match(
                game,
                players,
                rules,
                a.id,
                b.id,
                res.deal,
                res.index,
                episode_seed(setup.seed, res.deal),
                seats,
                list(res.seat_rewards),
                list(res.side_scores),
                res.steps,
                adjusted_rewards=res.adjusted_rewards,
            ),
        )
        count += 1
        if watch is not None and watch.add(res):
            raise _Decided

    runner = Runner(setup)
    try:
        if play_tasks(setup, runner, todo, max(1, min(workers, len(todo))), take, ray):
            raise KeyboardInterrupt  # Ctrl-C: every finished match is stored; stop the whole play
    except _Decided:
        assert watch is not None  # only a watch decides
        say(f"  SPRT: {watch.report([a.name, b.name])['verdict']}")
    return count


def _result(m: Match, a: Entrant, b: Entrant) -> GameResult:
    """A stored match as the tournament's game result (entrant 0 = a, 1 = b per side)."""
    sides = sides_for(m.game, m.players)
    lineup = tuple(0 if m.seats[side[0]] == a.id else 1 for side in sides)
    adjusted = None if m.adjusted_rewards is None else list(m.adjusted_rewards)
    return GameResult(m.deal, m.seating, lineup, list(m.rewards), list(m.scores), m.steps, None, adjusted)


def standings(con, bootstrap: int = 200, seed: int = 0) -> list[dict]:
    """Per table (game, players, rules): every entrant's Bradley-Terry rating on the Elo scale with a
    95% bootstrap interval (resampling a pair's deals), its matches and its score against the field."""
    by_id = {e.id: e for e in entrants(con)}
    tables: dict[tuple, list[Match]] = {}
    for m in matches(con):
        tables.setdefault((m.game, m.players, m.rules), []).append(m)
    return [_table(key, ms, by_id, bootstrap, seed) for key, ms in tables.items()]


def _table(key, ms: list[Match], by_id: dict, bootstrap: int, seed: int) -> dict:
    game, players, rules = key
    sides = sides_for(game, players)
    ids = sorted({x for m in ms for x in (m.a, m.b)})
    pos = {e: i for i, e in enumerate(ids)}
    clusters = sorted({(m.a, m.b, m.deal) for m in ms})
    cpos = {c: i for i, c in enumerate(clusters)}
    deal_wins = np.zeros((len(clusters), len(ids), len(ids)))
    count = np.zeros(len(ids))
    for m in ms:
        i, j = pos[m.a], pos[m.b]
        sa = np.mean([m.scores[k] for k, side in enumerate(sides) if m.seats[side[0]] == m.a])
        sb = np.mean([m.scores[k] for k, side in enumerate(sides) if m.seats[side[0]] == m.b])
        w = 1.0 if sa > sb else 0.0 if sa < sb else 0.5
        deal_wins[cpos[(m.a, m.b, m.deal)], i, j] += w
        deal_wins[cpos[(m.a, m.b, m.deal)], j, i] += 1.0 - w
        count[[i, j]] += 1
    total = deal_wins.sum(axis=0)
    anchor = next((pos[e] for e in ids if by_id[e].spec == "random"), 0)
    r = elo_ratings(total, anchor=anchor)
    lo, hi = bootstrap_ratings(deal_wins, anchor=anchor, samples=bootstrap, seed=seed)
    rows = [
        {
            "entrant": by_id[e].name,
            "key": by_id[e].key,
            "matches": int(count[pos[e]]),
            "score": _num(total[pos[e]].sum() / count[pos[e]]) if count[pos[e]] else None,
            "rating": _num(r[pos[e]]),
            "rating_ci": [_num(lo[pos[e]]), _num(hi[pos[e]])],
        }
        for e in ids
    ]
    rows.sort(key=lambda row: -(row["rating"] if row["rating"] is not None else -1e9))
    config = json.loads(rules)
    default = config_dict(game_module(game).raw_env(num_players=players).config)
    changed = {k: v for k, v in config.items() if default.get(k) != v}
    return {
        "game": game,
        "players": players,
        "rules": config,
        "options": changed,
        "matches": len(ms),
        "anchor": by_id[ids[anchor]].name,
        "entrants": rows,
    }


def _num(x) -> float | None:
    x = float(x)
    return None if np.isnan(x) else round(x, 3)


def export(con, bootstrap: int = 200) -> dict:
    """The whole ladder as a JSON-ready dict: entrants, every match, the standings."""
    ents = entrants(con)
    return {
        "format": "cardzoo-ladder",
        "version": 1,
        "entrants": [{"id": e.id, "key": e.key, "spec": e.spec, "sha256": e.sha256, "name": e.name} for e in ents],
        "matches": [
            {
                "game": m.game,
                "players": m.players,
                "rules": json.loads(m.rules),
                "a": m.a,
                "b": m.b,
                "deal": m.deal,
                "seating": m.seating,
                "deal_seed": m.deal_seed,
                "seats": m.seats,
                "rewards": m.rewards,
                "scores": m.scores,
                "adjusted_rewards": m.adjusted_rewards,
                "steps": m.steps,
            }
            for m in matches(con)
        ],
        "standings": standings(con, bootstrap=bootstrap),
    }
