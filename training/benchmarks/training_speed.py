"""Training speed: cardzoo's batched PPO and Deep Monte-Carlo next to the SB3 MaskablePPO path, in
the same run.

For each game (its default player count) every trainer trains from scratch for a fixed budget,
and the wall clock of the whole run (collection and learning, warm start and evaluation off)
gives decisions per second. A decision is a move by a seat the learner controls, forced moves
included — what SB3 counts as a timestep. DMC's budget is in samples (its real choices: a
decision with more than one complete move, counted once per move, not per Suipi sub-step);
its rows give both rates, and how its iterations split between waiting for the collectors and
learning. Peak memory is the largest resident set of the trainer
and of its worker processes. RLlib rows are added when Ray is installed
(``cardzoo.training.integrations.rllib_train.rllib_train_speed``).
"""

from __future__ import annotations

import os
import resource
import shutil
import tempfile
import time
from pathlib import Path

from cardzoo.envs.registry import game_spec

FULL = {"ppo": 400_000, "sb3": 40_000, "dmc": 300_000}
QUICK = {"ppo": 1_500, "sb3": 1_000, "dmc": 1_000}


def _peak_mib() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, children) / 1024


def bench_ppo(game: str, players: int, decisions: int, workers: int, quick: bool) -> dict:
    from cardzoo.training.ppo.trainer import PPOSettings, train

    out = Path(tempfile.mkdtemp(prefix="cardzoo-bench-"))
    try:
        extra = {"matches_per_worker": 4, "batch": 512, "minibatch": 256} if quick else {}
        s = PPOSettings(game=game, players=(players,), steps=decisions, out=str(out / "run"), workers=workers,
                        eval_games=0, eval_every=10**12, snapshot_every=10**12, save_every=10**7, **extra)
        start = time.perf_counter()
        final = train(s, progress=False, log=lambda *a: None)
        elapsed = time.perf_counter() - start
        import json

        done = json.loads(final.with_suffix(".json").read_text())["training_steps"]
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return {"game": game, "players": players, "algo": "ppo", "workers": workers, "decisions": done,
            "seconds": round(elapsed, 2), "decisions_per_s": round(done / elapsed, 1)}


def bench_dmc(game: str, players: int, samples: int, workers: int, quick: bool) -> dict:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from cardzoo.training.dmc.trainer import DMCSettings, train

    out = Path(tempfile.mkdtemp(prefix="cardzoo-bench-"))
    try:
        extra = {"matches_per_worker": 4, "batch": 256, "minibatch": 128, "replay": 1024} if quick else {}
        s = DMCSettings(game=game, players=(players,), steps=samples, out=str(out / "run"), workers=workers,
                        imitate=0, eval_games=0, save_every=10**7, **extra)
        start = time.perf_counter()
        train(s, progress=False, log=lambda *a: None)
        elapsed = time.perf_counter() - start
        ea = EventAccumulator(str(out / "run" / "tb"))
        ea.Reload()
        waits = [e.value for e in ea.Scalars("speed/wait_s")]
        learns = [e.value for e in ea.Scalars("speed/learn_s")]
        decisions = sum(e.value for e in ea.Scalars("speed/learner_decisions_per_iteration"))
        import json

        done = json.loads((out / "run" / "final.json").read_text())["training_steps"]
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return {"game": game, "players": players, "algo": "dmc", "workers": workers, "samples": done,
            "decisions": int(decisions), "seconds": round(elapsed, 2), "samples_per_s": round(done / elapsed, 1),
            "decisions_per_s": round(decisions / elapsed, 1), "wait_s": round(sum(waits), 2),
            "learn_s": round(sum(learns), 2)}


def bench_sb3(game: str, players: int, decisions: int) -> dict:
    from cardzoo.training.sb3.trainer import TrainSettings, train

    out = Path(tempfile.mkdtemp(prefix="cardzoo-bench-"))
    try:
        s = TrainSettings(game=game, players=players, steps=decisions, out=str(out / "run"), eval_games=0,
                          eval_every=10**9, snapshot_every=10**9)
        start = time.perf_counter()
        train(s, progress=False, log=lambda *a: None)
        elapsed = time.perf_counter() - start
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return {"game": game, "players": players, "algo": "sb3", "workers": 0, "decisions": decisions,
            "seconds": round(elapsed, 2), "decisions_per_s": round(decisions / elapsed, 1)}


def bench_rllib(game: str, players: int, decisions: int, env_runners: int) -> dict | None:
    try:
        from cardzoo.training.integrations.rllib_train import rllib_train_speed
    except ImportError:
        return None
    try:
        rate = rllib_train_speed(game, players, decisions, env_runners)
    except ImportError:  # Ray itself is not installed
        return None
    return {"game": game, "players": players, "algo": "rllib", "workers": env_runners, "decisions": decisions,
            "decisions_per_s": round(rate, 1)}


def bench_training(games: list[str], quick: bool = False, workers: int | None = None, log=print) -> dict:
    """{"train": [rows], "ratios": [...], "peak_memory_mib": ...} for the given games."""
    budget = QUICK if quick else FULL
    workers = workers if workers is not None else min(2, os.cpu_count() or 1)
    rows, ratios = [], []
    for game in games:
        players = game_spec(game).default_players
        ppo = bench_ppo(game, players, budget["ppo"], workers, quick)
        log(f"{game} {players}p  ppo: {ppo['decisions_per_s']:>9,.0f} decisions/s "
            f"({ppo['decisions']:,} in {ppo['seconds']} s, {workers} workers)")
        sb3 = bench_sb3(game, players, budget["sb3"])
        log(f"{game} {players}p  sb3: {sb3['decisions_per_s']:>9,.0f} decisions/s "
            f"({sb3['decisions']:,} in {sb3['seconds']} s)")
        dmc = bench_dmc(game, players, budget["dmc"], workers, quick)
        log(f"{game} {players}p  dmc: {dmc['samples_per_s']:>9,.0f} samples/s, {dmc['decisions_per_s']:,.0f} "
            f"decisions/s ({dmc['samples']:,} samples in {dmc['seconds']} s: {dmc['wait_s']} s waiting for the "
            f"collectors, {dmc['learn_s']} s learning; {workers} workers)")
        rows += [ppo, sb3, dmc]
        ratio = ppo["decisions_per_s"] / sb3["decisions_per_s"]
        dmc_ratio = dmc["decisions_per_s"] / ppo["decisions_per_s"]
        ratios.append({"game": game, "players": players, "ppo_over_sb3": round(ratio, 2),
                       "dmc_over_ppo": round(dmc_ratio, 2)})
        log(f"{game} {players}p  ppo / sb3 = {ratio:.1f}x, dmc / ppo (decisions/s) = {dmc_ratio:.2f}x")
        if not quick:
            for runners in (1, 2):
                row = bench_rllib(game, players, budget["sb3"], runners)
                if row:
                    rows.append(row)
                    log(f"{game} {players}p  rllib ({runners} env runners): {row['decisions_per_s']:,.0f} decisions/s")
    return {"train": rows, "ratios": ratios, "peak_memory_mib": round(_peak_mib(), 1)}


def render_table(result: dict) -> str:
    """The Markdown table ``cardzoo bench --train`` prints (docs paste it)."""
    rows = ["| game | players | trainer | decisions/s | decisions | DMC samples/s | seconds |",
            "|---|---:|---|---:|---:|---:|---:|"]
    for r in result["train"]:
        who = {"ppo": f"cardzoo PPO ({r['workers']} workers)", "sb3": "SB3 MaskablePPO",
               "dmc": f"cardzoo DMC ({r['workers']} workers)",
               "rllib": f"RLlib PPO ({r['workers']} env runners)"}[r["algo"]]
        samples = f"{r['samples_per_s']:,.0f}" if "samples_per_s" in r else "–"
        rows.append(f"| {r['game']} | {r['players']} | {who} | {r['decisions_per_s']:,.0f} | {r['decisions']:,} | "
                    f"{samples} | {r.get('seconds', '–')} |")
    ratios = ", ".join(f"{x['game']} {x['ppo_over_sb3']:.1f}×" for x in result["ratios"])
    dmc = ", ".join(f"{x['game']} {x['dmc_over_ppo']:.2f}×" for x in result["ratios"] if "dmc_over_ppo" in x)
    return ("\n".join(rows) + f"\n\nPPO / SB3 in the same run: {ratios}; DMC / PPO decisions/s: {dmc}; "
            f"peak memory {result['peak_memory_mib']:,.0f} MiB.")
