"""``cardzoo bench --vector``: random legal play through ``cardzoo.vector`` beside the raw AEC loop.

For each game (at its default player count, or ``--players``) the same run measures, on one core:

* ``raw``: the raw AEC loop of ``cardzoo bench`` (``timing.aec_player``), every seat's decision;
* ``opponents``: ``cardzoo.vector.make(game, tables, opponents="random")``, the learner's actions
  drawn uniformly from the batch of masks in numpy; the random opponents play inside ``step``;
* ``selfplay``: ``cardzoo.vector.SelfPlay(game, tables)``, every seat's action drawn from the masks;

at 1, 64 and 256 tables. Decisions are counted as the raw loop counts them: every move of every
seat (the opponents' too). A row's ``ratio_to_raw_aec`` divides its decisions/s by the raw loop's
of the same game and count in the same run. Rates are per CPU second (``timing.measure``).
"""

from __future__ import annotations

import dataclasses
import functools
import time

import numpy as np

from cardzoo.benchmarks.schema import Settings
from cardzoo.benchmarks.timing import aec_player, measure
from cardzoo.envs.registry import game_spec

TABLES = (1, 64, 256)
APIS = ("opponents", "selfplay")


def random_legal(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row of a batch of masks."""
    counts = np.cumsum(mask, axis=1, dtype=np.int32)
    k = (rng.random(len(mask)) * counts[:, -1]).astype(np.int32)
    return (counts > k[:, None]).argmax(axis=1)


def vector_player(game: str, players: int, tables: int, api: str, seed: int):
    """A ``timing`` player over ``tables`` tables: each call plays batches until the deadline and
    returns the moves played (no episode ends: a vector env never stops)."""
    import cardzoo.vector as cv

    rng = np.random.default_rng(seed)
    if api == "selfplay":
        selfplay = cv.SelfPlay(game, tables, num_players=players, seed=seed)
        state = {"mask": selfplay.reset().action_mask}
        counted = selfplay.tables

        def step():
            state["mask"] = selfplay.step(random_legal(rng, state["mask"])).action_mask
    else:
        vec = cv.make(game, tables, num_players=players, opponents="random", seed=seed)
        state = {"mask": vec.reset()[0]["action_mask"]}
        counted = vec.tables

        def step():
            state["mask"] = vec.step(random_legal(rng, state["mask"]))[0]["action_mask"]

    clock = time.perf_counter

    def play(_rng, deadline: float) -> tuple[int, bool]:
        start = counted.moves
        step()
        while clock() < deadline:
            step()
        return counted.moves - start, False

    return play


def bench_vector(game: str, players: int, settings: Settings, progress=None) -> list[dict]:
    """The raw AEC loop and every (api, tables) row of one game at one player count."""
    spec = game_spec(game)
    quiet = dataclasses.replace(settings, memory=False)

    def timed(label, factory):
        if progress:
            progress(f"{game} {players}p: {label}")
        return measure(label, "steps", factory, quiet)

    raw = timed("raw AEC", lambda: aec_player(lambda: spec.raw_env(num_players=players), settings.seed))
    rows = [
        {
            "game": game,
            "players": players,
            "api": "raw_aec",
            "tables": 1,
            "decisions_per_s": round(raw.median, 1),
            "runs": [round(r, 1) for r in raw.rates],
            "ratio_to_raw_aec": 1.0,
        }
    ]
    for api in APIS:
        for tables in TABLES:
            s = timed(f"{api} x{tables}", functools.partial(vector_player, game, players, tables, api, settings.seed))
            rows.append(
                {
                    "game": game,
                    "players": players,
                    "api": api,
                    "tables": tables,
                    "decisions_per_s": round(s.median, 1),
                    "runs": [round(r, 1) for r in s.rates],
                    "ratio_to_raw_aec": round(s.median / raw.median, 3) if raw.median else None,
                }
            )
    return rows


def render_vector(result: dict) -> str:
    """``cardzoo bench --vector``'s table, from its JSON."""
    from cardzoo.benchmarks.report import fmt_rate

    rows = ["| game | players | api | tables | decisions/s | × raw AEC |", "|---|---:|---|---:|---:|---:|"]
    for r in result["vector"]:
        ratio = "–" if r["ratio_to_raw_aec"] is None else f"{r['ratio_to_raw_aec']:.2f}"
        rows.append(
            f"| {r['game']} | {r['players']} | {r['api']} | {r['tables']} | "
            f"{fmt_rate(r['decisions_per_s'])} | {ratio} |"
        )
    return "\n".join(rows)
