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
(``cardzoo.training.integrations.rllib_train.rllib_train_speed``). With ``ray`` (``--train --ray``)
the PPO and DMC trainers run a second time with the same workers as Ray actors, and their rows
say the bytes that crossed to and from the workers per iteration.
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any, overload

from cardzoo.envs.registry import game_spec

FULL = {"ppo": 400_000, "sb3": 40_000, "dmc": 300_000, "example": 131_072}
QUICK = {"ppo": 1_500, "sb3": 1_000, "dmc": 1_000, "example": 1_024}
# The single-file example on cardzoo.vector (a source checkout's, not in the wheel): its row is run as
# a reader runs it, `python examples/ppo_vector.py`, and reads the rate it prints.
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "ppo_vector.py"


def _peak_mib() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, children) / 1024


def _traffic(tb: Path) -> dict:
    """Mean bytes per iteration to and from the workers (logged by the trainers on Ray)."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    ea = EventAccumulator(str(tb))
    ea.Reload()
    out = {}
    for way in ("to_workers", "from_workers"):
        values = [e.value for e in ea.Scalars(f"network/bytes_{way}")]
        out[way] = round(sum(values) / max(len(values), 1))
    return out


def _via(row: dict, ray: str | None, tb: Path) -> dict:
    if ray is not None:
        row.update(via="ray", bytes_per_iteration=_traffic(tb))
    return row


def bench_ppo(
    game: str, players: int, decisions: int, workers: int, quick: bool, ray: str | None = None, device: str = "auto"
) -> dict:
    from cardzoo.training.ppo.trainer import PPOSettings, train

    out = Path(tempfile.mkdtemp(prefix="cardzoo-bench-"))
    try:
        extra: dict[str, Any] = {"matches_per_worker": 4, "batch": 512, "minibatch": 256} if quick else {}
        s = PPOSettings(
            game=game,
            players=(players,),
            steps=decisions,
            out=str(out / "run"),
            workers=workers,
            eval_games=0,
            eval_every=10**12,
            snapshot_every=10**12,
            save_every=10**7,
            device=device,
            **extra,
        )
        start = time.perf_counter()
        final = train(s, progress=False, log=lambda *a: None, ray=ray)
        elapsed = time.perf_counter() - start
        import json

        done = json.loads(final.with_suffix(".json").read_text())["training_steps"]
        row = {
            "game": game,
            "players": players,
            "algo": "ppo",
            "workers": workers,
            "decisions": done,
            "seconds": round(elapsed, 2),
            "decisions_per_s": round(done / elapsed, 1),
        }
        return _via(row, ray, out / "run" / "tb")
    finally:
        shutil.rmtree(out, ignore_errors=True)


def bench_dmc(
    game: str, players: int, samples: int, workers: int, quick: bool, ray: str | None = None, device: str = "auto"
) -> dict:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from cardzoo.training.dmc.trainer import DMCSettings, train

    out = Path(tempfile.mkdtemp(prefix="cardzoo-bench-"))
    try:
        extra: dict[str, Any] = (
            {"matches_per_worker": 4, "batch": 256, "minibatch": 128, "replay": 1024} if quick else {}
        )
        s = DMCSettings(
            game=game,
            players=(players,),
            steps=samples,
            out=str(out / "run"),
            workers=workers,
            imitate=0,
            eval_games=0,
            save_every=10**7,
            device=device,
            **extra,
        )
        start = time.perf_counter()
        train(s, progress=False, log=lambda *a: None, ray=ray)
        elapsed = time.perf_counter() - start
        ea = EventAccumulator(str(out / "run" / "tb"))
        ea.Reload()
        waits = [e.value for e in ea.Scalars("speed/wait_s")]
        learns = [e.value for e in ea.Scalars("speed/learn_s")]
        decisions = sum(e.value for e in ea.Scalars("speed/learner_decisions_per_iteration"))
        import json

        done = json.loads((out / "run" / "final.json").read_text())["training_steps"]
        row = {
            "game": game,
            "players": players,
            "algo": "dmc",
            "workers": workers,
            "samples": done,
            "decisions": int(decisions),
            "seconds": round(elapsed, 2),
            "samples_per_s": round(done / elapsed, 1),
            "decisions_per_s": round(decisions / elapsed, 1),
            "wait_s": round(sum(waits), 2),
            "learn_s": round(sum(learns), 2),
        }
        return _via(row, ray, out / "run" / "tb")
    finally:
        shutil.rmtree(out, ignore_errors=True)


def bench_sb3(game: str, players: int, decisions: int, device: str = "auto") -> dict:
    from cardzoo.training.sb3.trainer import SB3Settings, train

    out = Path(tempfile.mkdtemp(prefix="cardzoo-bench-"))
    try:
        s = SB3Settings(
            game=game,
            players=players,
            steps=decisions,
            out=str(out / "run"),
            eval_games=0,
            eval_every=10**9,
            snapshot_every=10**9,
            device=device,
        )
        start = time.perf_counter()
        train(s, progress=False, log=lambda *a: None)
        elapsed = time.perf_counter() - start
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return {
        "game": game,
        "players": players,
        "algo": "sb3",
        "env": "vector",  # SB3Tables over cardzoo.vector (reports before it ran SB3 on one table per env)
        "workers": 0,
        "decisions": decisions,
        "seconds": round(elapsed, 2),
        "decisions_per_s": round(decisions / elapsed, 1),
    }


def bench_example(game: str, players: int, decisions: int, quick: bool) -> dict:
    """examples/ppo_vector.py against the rule bots: the training loop's decisions/s as it prints them
    (its real choices: it plays forced moves for the learner, ``play_forced``)."""
    import re
    import subprocess

    if not EXAMPLE.is_file():
        raise FileNotFoundError(f"{EXAMPLE} is not here: the example comes with a source checkout, not the wheel")
    size = ["--short"] if quick else ["--total-decisions", str(decisions), "--eval-matches", "1"]
    argv = [sys.executable, str(EXAMPLE), "--game", game, "--players", str(players), *size]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError((done.stderr.strip().splitlines() or ["no output"])[-1])
    rate = float(re.findall(r"trained at ([\d,]+) decisions/s", done.stdout)[-1].replace(",", ""))
    trained = int(re.findall(r"update \d+: ([\d,]+) decisions", done.stdout)[-1].replace(",", ""))
    return {
        "game": game,
        "players": players,
        "algo": "example",
        "workers": 0,
        "decisions": trained,
        "seconds": round(trained / rate, 2),
        "decisions_per_s": round(rate, 1),
    }


def bench_rllib(game: str, players: int, decisions: int, env_runners: int) -> dict | None:
    try:
        from cardzoo.training.integrations.rllib_train import rllib_train_speed
    except ImportError:
        return None
    try:
        rate = rllib_train_speed(game, players, decisions, env_runners)
    except ImportError:  # Ray itself is not installed
        return None
    return {
        "game": game,
        "players": players,
        "algo": "rllib",
        "workers": env_runners,
        "decisions": decisions,
        "decisions_per_s": round(rate, 1),
    }


def bench_training(
    games: list[str],
    quick: bool = False,
    workers: int | None = None,
    log=print,
    ray: str | None = None,
    runs: int = 1,
    device: str = "auto",
) -> dict:
    """{"train": [rows], "ratios": [...], "peak_memory_mib": ...} for the given games; with ``ray``
    (a cluster address, "" for this machine's) PPO and DMC also on Ray, beside their process runs.
    With ``runs`` > 1, PPO and DMC train that many times each, alternated (PPO, DMC, PPO, DMC, ...),
    every run a row of its own (``"run"``: 1, 2, ...), and DMC / PPO is the median of the runs'
    ratios (each DMC run over the PPO run just before it), with every run's ratio beside it: a
    whole run's speed drifts by up to a quarter on a shared machine, a ratio of neighbours less.
    A row whose trainer fails holds its ``"error"`` instead of figures; the other rows go on.
    ``device`` is the learners' ``--device`` (auto, cpu, cuda), the same for every trainer."""
    budget = QUICK if quick else FULL
    workers = workers if workers is not None else min(2, os.cpu_count() or 1)
    rows, ratios = [], []
    for game in games:
        players = game_spec(game).default_players
        sb3 = _row(
            log,
            {"game": game, "players": players, "algo": "sb3", "workers": 0},
            bench_sb3,
            game,
            players,
            budget["sb3"],
            device=device,
        )
        example = _row(
            log,
            {"game": game, "players": players, "algo": "example", "workers": 0},
            bench_example,
            game,
            players,
            budget["example"],
            quick,
        )
        pairs = [_ppo_then_dmc(game, players, budget, workers, quick, log, device) for _ in range(runs)]
        if runs > 1:
            for k, pair in enumerate(pairs, 1):
                for row in pair:
                    row["run"] = k
        rows += [pairs[0][0], sb3, example, pairs[0][1]] + [row for pair in pairs[1:] for row in pair]
        ratios.append(_ratios(game, players, sb3, pairs, runs, log))
        if not _failed(sb3, example):
            ratios[-1]["example_over_sb3"] = round(example["decisions_per_s"] / sb3["decisions_per_s"], 2)
        if ray is not None:
            for base, bench in zip(pairs[0], (bench_ppo, bench_dmc)):
                row = _row(
                    log,
                    {**_head(base), "via": "ray"},
                    bench,
                    game,
                    players,
                    budget[base["algo"]],
                    workers,
                    quick,
                    ray=ray,
                    device=device,
                )
                rows.append(row)
                if not _failed(base, row):
                    key = f"{base['algo']}_ray_over_processes"
                    ratios[-1][key] = round(row["decisions_per_s"] / base["decisions_per_s"], 2)
                    log(
                        f"{game} {players}p  {base['algo']} on Ray: {row['decisions_per_s']:>9,.0f} decisions/s, "
                        f"{ratios[-1][key]:.2f}x the processes' ({_traffic_text(row)} per iteration)"
                    )
        if not quick:
            for runners in (1, 2):
                rllib_row = _row(
                    log,
                    {"game": game, "players": players, "algo": "rllib", "workers": runners},
                    bench_rllib,
                    game,
                    players,
                    budget["sb3"],
                    runners,
                )
                if rllib_row:
                    rows.append(rllib_row)
    return {"train": rows, "ratios": ratios, "peak_memory_mib": round(_peak_mib(), 1), "device": device}


@overload
def _row(log, head: dict, measure: Callable[..., dict], *args, **kwargs) -> dict: ...
@overload
def _row(log, head: dict, measure: Callable[..., dict | None], *args, **kwargs) -> dict | None: ...
def _row(log, head: dict, measure: Callable[..., dict | None], *args, **kwargs) -> dict | None:
    """``measure(*args, **kwargs)``, the row it measured logged; where it fails, ``head`` with the
    error instead of figures (its traceback on stderr), so that one failing row loses no other."""
    try:
        row = measure(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - kept in the row and printed in full; the other rows go on
        why = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}".rstrip(": ")[:300]
        traceback.print_exc(file=sys.stderr)
        log(f"{head['game']} {head['players']}p  {head['algo']}: failed ({why})")
        return {**head, "error": why}
    if row is not None:
        log(f"{row['game']} {row['players']}p  {_row_text(row)}")
    return row


def _row_text(row: dict) -> str:
    """A measured row as a log line (after the game and count)."""
    if row["algo"] == "dmc":
        return (
            f"dmc: {row['samples_per_s']:>9,.0f} samples/s, {row['decisions_per_s']:,.0f} decisions/s "
            f"({row['samples']:,} samples in {row['seconds']} s: {row['wait_s']} s waiting for the collectors, "
            f"{row['learn_s']} s learning; {row['workers']} workers)"
        )
    if row["algo"] == "rllib":
        return f"rllib ({row['workers']} env runners): {row['decisions_per_s']:,.0f} decisions/s"
    workers = f", {row['workers']} workers" if row["algo"] == "ppo" else ""
    return (
        f"{row['algo']}: {row['decisions_per_s']:>9,.0f} decisions/s "
        f"({row['decisions']:,} in {row['seconds']} s{workers})"
    )


def _head(row: dict) -> dict:
    return {k: row[k] for k in ("game", "players", "algo", "workers")}


def _failed(*rows: dict) -> bool:
    return any("error" in r for r in rows)


def _ratios(game: str, players: int, sb3: dict, pairs: list, runs: int, log) -> dict:
    """PPO / SB3 and DMC / PPO of one game, from the rows that were measured."""
    out = {"game": game, "players": players}
    ppo_rates = [p["decisions_per_s"] for p, _ in pairs if not _failed(p)]
    if ppo_rates and not _failed(sb3):
        out["ppo_over_sb3"] = round(statistics.median(ppo_rates) / sb3["decisions_per_s"], 2)
    each = [d["decisions_per_s"] / p["decisions_per_s"] for p, d in pairs if not _failed(p, d)]
    if each:
        out["dmc_over_ppo"] = round(statistics.median(each), 2)
        if runs > 1:
            out["dmc_over_ppo_runs"] = [round(x, 2) for x in each]
    ppo_sb3 = f"{out['ppo_over_sb3']:.1f}x" if "ppo_over_sb3" in out else "–"
    dmc_ppo = f"{out['dmc_over_ppo']:.2f}x" if "dmc_over_ppo" in out else "–"
    log(
        f"{game} {players}p  ppo / sb3 = {ppo_sb3}, dmc / ppo (decisions/s) = {dmc_ppo}"
        + (f" (median of {', '.join(f'{x:.2f}' for x in each)})" if runs > 1 else "")
    )
    return out


def _ppo_then_dmc(
    game: str, players: int, budget: dict, workers: int, quick: bool, log, device: str
) -> tuple[dict, dict]:
    head = {"game": game, "players": players, "workers": workers}
    ppo = _row(log, {**head, "algo": "ppo"}, bench_ppo, game, players, budget["ppo"], workers, quick, device=device)
    dmc = _row(log, {**head, "algo": "dmc"}, bench_dmc, game, players, budget["dmc"], workers, quick, device=device)
    return ppo, dmc


def _runs_text(ratio: dict) -> str:
    each = ratio.get("dmc_over_ppo_runs")
    return f" (the median of the runs' {', '.join(f'{x:.2f}' for x in each)})" if each else ""


def _traffic_text(row: dict) -> str:
    b = row["bytes_per_iteration"]
    return f"{b['to_workers'] / 2**20:.2f} MiB out, {b['from_workers'] / 2**20:.2f} MiB back"


def render_table(result: dict) -> str:
    """The Markdown table ``cardzoo bench --train`` prints (docs paste it)."""
    rows = [
        "| game | players | trainer | decisions/s | decisions | DMC samples/s | seconds |",
        "|---|---:|---|---:|---:|---:|---:|",
    ]
    for r in result["train"]:
        who = {
            "ppo": f"cardzoo PPO ({r['workers']} workers)",
            "sb3": "SB3 MaskablePPO" + (" (cardzoo.vector tables)" if r.get("env") == "vector" else ""),
            "example": "examples/ppo_vector.py (cardzoo.vector)",
            "dmc": f"cardzoo DMC ({r['workers']} workers)",
            "rllib": f"RLlib PPO ({r['workers']} env runners)",
        }[r["algo"]]
        if r.get("via") == "ray":
            who = who.replace(
                "workers)", "Ray actors)" if "error" in r else f"Ray actors; {_traffic_text(r)} per iteration)"
            )
        if "run" in r:
            who += f", run {r['run']}"
        if "error" in r:
            rows.append(f"| {r['game']} | {r['players']} | {who} | failed: {r['error']} | – | – | – |")
            continue
        samples = f"{r['samples_per_s']:,.0f}" if "samples_per_s" in r else "–"
        rows.append(
            f"| {r['game']} | {r['players']} | {who} | {r['decisions_per_s']:,.0f} | {r['decisions']:,} | "
            f"{samples} | {r.get('seconds', '–')} |"
        )
    ratios = ", ".join(f"{x['game']} {x['ppo_over_sb3']:.1f}×" for x in result["ratios"] if "ppo_over_sb3" in x)
    example = ", ".join(
        f"{x['game']} {x['example_over_sb3']:.1f}×" for x in result["ratios"] if "example_over_sb3" in x
    )
    dmc = ", ".join(
        f"{x['game']} {x['dmc_over_ppo']:.2f}×" + _runs_text(x) for x in result["ratios"] if "dmc_over_ppo" in x
    )
    on_ray = "; ".join(
        f"{x['game']} PPO {x['ppo_ray_over_processes']:.2f}×, DMC {x['dmc_ray_over_processes']:.2f}×"
        for x in result["ratios"]
        if "ppo_ray_over_processes" in x
    )
    on_ray = f"; on Ray / with processes (decisions/s, same workers): {on_ray}" if on_ray else ""
    example = f"example / SB3: {example}; " if example else ""  # reports from before the example have none
    return (
        "\n".join(rows) + f"\n\nPPO / SB3 in the same run: {ratios}; {example}DMC / PPO decisions/s: {dmc}{on_ray}; "
        f"peak memory {result['peak_memory_mib']:,.0f} MiB."
    )


def render_ray_table(result: dict) -> str:
    """docs/training.md's "Several machines" table: each trainer with processes and on Ray (same
    workers, same run), the bytes per iteration, and DMC's learner-bound ceiling."""
    rows = [
        (
            "| game | trainer | decisions/s, processes | decisions/s, Ray | Ray / processes | "
            "MiB to the workers / iteration | MiB back / iteration |"
        ),
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    plain = {(r["game"], r["algo"]): r for r in result["train"] if r.get("via") != "ray" and "error" not in r}
    ceilings = []
    for r in (
        r for r in result["train"] if r.get("via") == "ray" and "error" not in r and (r["game"], r["algo"]) in plain
    ):
        base, b = plain[(r["game"], r["algo"])], r["bytes_per_iteration"]
        rows.append(
            f"| {r['game']} {r['players']}p | {r['algo'].upper()} ({r['workers']} workers) | "
            f"{base['decisions_per_s']:,.0f} | {r['decisions_per_s']:,.0f} | "
            f"{r['decisions_per_s'] / base['decisions_per_s']:.2f}× | {b['to_workers'] / 2**20:.2f} | "
            f"{b['from_workers'] / 2**20:.2f} |"
        )
        if r["algo"] == "dmc" and r.get("learn_s"):
            ceilings.append(f"{r['game']} {r['decisions'] / r['learn_s']:,.0f}")
    ceiling = (
        (
            "\n\nDMC's learner-bound ceiling (decisions over its learning seconds, the rate at which "
            f"collection would no longer be the wait): {', '.join(ceilings)} decisions/s."
        )
        if ceilings
        else ""
    )
    return "\n".join(rows) + ceiling
