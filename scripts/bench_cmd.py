"""`cardzoo bench`: engine and AEC throughput of our games, next to reference environments.

    cardzoo bench                          # all games, all player counts, references if installed
    cardzoo bench siantappo --players 4    # one game, one player count
    cardzoo bench --quick --json out.json  # a few seconds; proves the pipeline works
    cardzoo bench --profile                # + cProfile of the raw AEC loop per game
    cardzoo bench --train [--quick]        # training decisions/s: our PPO vs the SB3 path
    cardzoo bench --vector [--quick]       # cardzoo.vector at 1, 64, 256 tables vs the raw AEC loop

The measurement lives in benchmarks/ (timing.py: the loops; games.py, references.py, floor.py,
profiles.py, machine.py, schema.py; report.py: what it prints, from the JSON it writes);
docs/benchmarks.md has the latest figures (docs/benchmarks-env.json).
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import sys
import time
from typing import Any

from cardzoo.benchmarks.floor import bench_floor
from cardzoo.benchmarks.games import bench_game, load_game
from cardzoo.benchmarks.machine import limit_threads, machine_info, pin_one_core, restore_affinity
from cardzoo.benchmarks.profiles import hook_breakdown, profile_raw
from cardzoo.benchmarks.references import REFERENCES, bench_reference, reference_available
from cardzoo.benchmarks.report import render_report
from cardzoo.benchmarks.schema import SCHEMA, Settings, ratios
from cardzoo.benchmarks.timing import maxrss_kib
from cardzoo.envs.errors import UserError
from cardzoo.envs.registry import GAME_MODULES
from cardzoo.scripts.options import add_ray_flag, check_output_file, ray_session_of
from cardzoo.training.agents.device import DEVICES, torch_device
from cardzoo.training.agents.jsontext import read_json_file

# Bounds of the command's numbers (a typo of 10**9 runs is refused rather than measured for ever)
MAX_RUNS, MAX_MATCHES, MAX_WORKERS, MAX_SECONDS = 1000, 10_000, 256, 3600.0


def register(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "bench",
        help="measure engine / AEC steps per second on one core, against reference environments",
        description="Random legal play on one core: engine moves/s, raw and wrapped AEC steps/s, games/s, "
        "memory; the same loop over RLCard / PettingZoo classic / OpenSpiel references when "
        "they are installed (pip install -e '.[bench]'). Prints tables, optionally writes JSON.",
    )
    p.add_argument(
        "games",
        nargs="*",
        metavar="GAME",
        help=f"games to measure (default: all of {', '.join(GAME_MODULES)} that are available)",
    )
    p.add_argument(
        "--players",
        default=None,
        help="player counts, comma-separated (default: every count the game supports; "
        "with --quick: the game's default)",
    )
    p.add_argument(
        "--quick", action="store_true", help="a few seconds in all: 1 short run per section (figures are rough)"
    )
    p.add_argument(
        "--runs",
        type=int,
        default=None,
        help="timed runs per section (default 5; quick 1); with --train: PPO and DMC runs per game, "
        "alternated, DMC / PPO their median ratio (default 1)",
    )
    p.add_argument("--seconds", type=float, default=None, help="seconds per timed run (default 1.0; quick 0.05)")
    p.add_argument("--warmup", type=float, default=None, help="warm-up seconds per section (default 0.5)")
    p.add_argument(
        "--clock",
        choices=("cpu", "wall"),
        default="cpu",
        help="rates per CPU second of this process (default; robust on a shared machine) or per wall-clock second",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the random play (default 0)")
    p.add_argument("--json", dest="json_path", default=None, metavar="OUT.json", help="write all results as JSON")
    p.add_argument("--no-reference", action="store_true", help="skip the reference environments")
    p.add_argument(
        "--references",
        default=None,
        metavar="NAMES",
        help="only these references, comma-separated substrings (e.g. doudizhu,leduc)",
    )
    p.add_argument(
        "--profile",
        action="store_true",
        help="also cProfile the raw and wrapped AEC loops of each game (default player count)",
    )
    p.add_argument("--profile-seconds", type=float, default=None, help="seconds per profile (default 2; quick 0.1)")
    p.add_argument("--cpu", type=int, default=None, help="pin to this CPU (default: the last CPU this process may use)")
    p.add_argument("--no-pin", action="store_true", help="do not pin the process to one CPU")
    p.add_argument(
        "--no-floor", action="store_true", help="skip the null game (the cost of envs/base.py + PettingZoo alone)"
    )
    p.add_argument("--no-memory", action="store_true", help="skip the tracemalloc pass of each section")
    p.add_argument(
        "--train",
        action="store_true",
        help="measure training instead: decisions/s of the batched PPO trainer and of the SB3 path, "
        "same run, each game at its default player count",
    )
    p.add_argument(
        "--vector",
        action="store_true",
        help="measure the vector API instead: random legal play through cardzoo.vector at 1, 64 and 256 "
        "tables (against random opponents, and self-play) beside the raw AEC loop of the same game "
        "in the same run, one core, each game at its default player count (or --players)",
    )
    p.add_argument("--workers", type=int, default=None, help="with --train: PPO rollout workers (default 2)")
    p.add_argument(
        "--device",
        choices=DEVICES,
        default=None,
        help="with --train: the learners' torch device, as cardzoo train's --device (default auto)",
    )
    p.add_argument(
        "--agents",
        metavar="A,B,...",
        help="measure agents instead: milliseconds per real decision (more than one legal move) on "
        "one core, holding seat 0 against rule bots, at each game's default count (or --players); "
        "e.g. --agents model,expert",
    )
    p.add_argument("--matches", type=int, default=5, help="with --agents: matches per game and count (default 5)")
    add_ray_flag(
        p, "with --train: PPO and DMC a second time with their workers as Ray actors, and the bytes per iteration"
    )
    p.add_argument(
        "--show",
        metavar="FILE.json",
        default=None,
        help="measure nothing: print the tables of a kept --json result again (env or --train; "
        "docs/benchmarks.md and README.md paste them)",
    )
    return p


def _settings(args) -> Settings:
    s = Settings.quick() if args.quick else Settings()
    if args.runs is not None:
        s.runs = args.runs
    if args.seconds is not None:
        s.seconds = args.seconds
    if args.warmup is not None:
        s.warmup = args.warmup
    s.seed = args.seed
    s.clock = args.clock
    s.memory = not args.no_memory
    return s


def _parse_players(text: str | None) -> list[int] | None:
    if text is None:
        return None
    try:
        counts = [int(x) for x in text.replace(" ", "").split(",") if x]
    except ValueError:
        raise UserError(f"--players must be comma-separated integers, got {text!r}") from None
    if not counts:
        raise UserError("--players is empty")
    return counts


def _check_some_game_plays(games: list[str], counts: list[int] | None) -> None:
    """A one-line error when none of ``games`` is played by any of ``counts`` (nothing of ours to measure)."""
    from cardzoo.envs.registry import game_spec

    played = {g: game_spec(g).player_counts for g in games}
    if counts and not any(n in c for c in played.values() for n in counts):
        which = "; ".join(f"{g} {', '.join(map(str, c))}" for g, c in played.items())
        raise UserError(
            f"--players {','.join(map(str, counts))}: no game measured here is played by that many ({which})"
        )


def _games(names: list[str]) -> tuple[list[str], bool]:
    if not names:
        return list(GAME_MODULES), False
    out = []
    for n in names:
        key = n.lower().replace("-", "").replace("_", "").removesuffix("v0")
        if key not in GAME_MODULES:
            raise UserError(f"unknown game {n!r}; games are: {', '.join(GAME_MODULES)}")
        if key not in out:
            out.append(key)
    return out, True


def check_numbers(args) -> None:
    """Every count and duration within its bounds, before anything is measured."""
    for flag, value, lo, hi in (
        ("--runs", args.runs, 1, MAX_RUNS),
        ("--matches", args.matches, 1, MAX_MATCHES),
        ("--workers", args.workers, 0, MAX_WORKERS),
        ("--seed", args.seed, 0, 2**32 - 1),
    ):
        if value is not None and not lo <= value <= hi:
            raise UserError(f"{flag} must be {lo}..{hi:,}, got {value}")
    for flag, value, zero_ok in (
        ("--seconds", args.seconds, False),
        ("--warmup", args.warmup, True),
        ("--profile-seconds", args.profile_seconds, False),
    ):
        if value is not None and not ((value >= 0 if zero_ok else value > 0) and value <= MAX_SECONDS):  # NaN too
            raise UserError(
                f"{flag} must be {'>= 0' if zero_ok else '> 0'} and at most {MAX_SECONDS:g} seconds, got {value:g}"
            )


def run(args) -> int:
    if args.ray is not None and not args.train:
        raise UserError("--ray works with --train only")
    if args.device is not None:  # a device this machine lacks: one line before anything is measured
        if not args.train:
            raise UserError("--device works with --train only")
        torch_device(args.device)
    if args.show:
        return run_show(args.show)
    check_numbers(args)
    if args.json_path:  # before measuring: a long run must not fail at its end for want of a place to write
        check_output_file(args.json_path, "--json")
    if args.train:
        return run_train(args)
    if args.vector:
        return run_vector(args)
    if args.agents:
        return run_agents(args)
    settings = _settings(args)
    skipped: list[dict] = []
    handles, refs = _our_games(args, skipped), _references(args, skipped)
    if not handles and not refs:
        raise UserError("nothing to measure: " + "; ".join(f"{s['name']}: {s['reason']}" for s in skipped))
    started = time.time()
    measured = _measure(args, settings, handles, refs)
    elapsed = time.time() - started
    for h, _ in handles:
        for p in h.problems:
            print(f"note: {h.name}: {p}", file=sys.stderr)
    ours, ref_entries = measured["ours"], measured["references"]
    result = {
        "schema": SCHEMA,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": command_line(args),
        "settings": {
            "runs": settings.runs,
            "seconds": settings.seconds,
            "warmup": settings.warmup,
            "clock": settings.clock,
            "seed": settings.seed,
            "quick": bool(args.quick),
            "memory": settings.memory,
        },
        "machine": measured["machine"],
        "elapsed_s": round(elapsed, 2),
        "ours": [e.to_json() for e in ours],
        "references": [e.to_json() for e in ref_entries],
        "floor": measured["floor"].to_json() if measured["floor"] else None,
        "ratios": ratios(ours, ref_entries),
        "skipped": skipped,
        "profiles": measured["profiles"],
        "hook_breakdown": measured["hook_breakdown"],
        "peak_rss_kib": maxrss_kib(),
    }
    print(render_report(result))
    _write_json(args.json_path, result)
    return 0


def _our_games(args, skipped: list[dict]) -> list[tuple]:
    """(game handle, player counts) to measure; games that cannot be measured yet go to ``skipped``
    (a one-line error when the command named them)."""
    games, explicit = _games(args.games)
    players_wanted = _parse_players(args.players)
    if not explicit:  # a game named on the command line says which counts it supports below
        _check_some_game_plays(games, players_wanted)
    handles = []
    for g in games:
        h = load_game(g)
        if not h.usable:
            why = "; ".join(h.problems)
            if explicit:
                raise UserError(f"{g} cannot be benchmarked yet: {why}")
            skipped.append({"name": g, "reason": why})
            continue
        if players_wanted:
            bad = [n for n in players_wanted if n not in h.players]
            if bad and explicit:
                raise UserError(f"{g} supports {', '.join(map(str, h.players))} players, not {bad[0]}")
            counts = [n for n in players_wanted if n in h.players]
        else:
            counts = [h.default_players] if args.quick else list(h.players)
        if counts:
            handles.append((h, counts))
    return handles


def _references(args, skipped: list[dict]) -> list:
    """The reference environments to measure (``--references`` picks by name); those not installed
    go to ``skipped``."""
    if args.no_reference:
        return []
    wanted = [w.strip().lower() for w in args.references.split(",")] if args.references else None
    refs = []
    for ref in REFERENCES:
        if wanted and not any(w and w in ref.name.lower() for w in wanted):
            continue
        why = reference_available(ref)
        if why:
            skipped.append({"name": ref.name, "reason": why})
        else:
            refs.append(ref)
    return refs


def _measure(args, settings: Settings, handles: list[tuple], refs: list) -> dict:
    """Every measurement, on one pinned core (or with the math libraries held to one thread)."""

    def progress(msg: str) -> None:
        print(f"  measuring {msg}", file=sys.stderr, flush=True)

    previous, cpu = (None, None) if args.no_pin else pin_one_core(args.cpu)
    if args.no_pin:
        limit_threads()
    # Park everything imported so far (torch etc. when another subcommand pulled it in) in the
    # permanent generation: collections during the runs then only see what the loops allocate,
    # whatever else the process has loaded.
    gc.collect()
    gc.freeze()
    try:
        out: dict[str, Any] = {
            "machine": machine_info(cpu),
            "ours": [bench_game(h, n, settings, progress) for h, counts in handles for n in counts],
            "floor": None if args.no_floor else bench_floor(settings, progress),
            "references": [bench_reference(r, settings, progress) for r in refs],
            "profiles": [],
            "hook_breakdown": [],
        }
        if args.profile:
            secs = args.profile_seconds or (0.1 if args.quick else 2.0)
            for h, counts in handles:
                if h.raw_env is None:
                    continue
                n = h.default_players if h.default_players in counts else counts[0]
                progress(f"{h.name} {n}p: hook timings")
                out["hook_breakdown"].append(hook_breakdown(h, n, secs, seed=settings.seed))
                for wrapped in (False, True):
                    progress(f"{h.name} {n}p: profile {'wrapped' if wrapped else 'raw'}")
                    out["profiles"].append(profile_raw(h, n, secs, wrapped=wrapped, seed=settings.seed))
        return out
    finally:
        gc.unfreeze()
        restore_affinity(previous)


def run_show(path: str) -> int:
    """The tables of a kept result, as the run that wrote it printed them, and README's share of them."""
    from cardzoo.benchmarks.report import readme_speed, render_agents
    from cardzoo.benchmarks.training_speed import render_table

    result = read_json_file(path, "--show")
    kind = _kind_of(result)
    if kind is None:
        raise UserError(f"--show: {path} is not a result of cardzoo bench --json (of the engines, --train or --agents)")
    try:
        if kind == "train":
            text = render_table(result)
        elif kind == "vector":
            from cardzoo.benchmarks.vector import render_vector

            text = render_vector(result)
        elif kind == "agents":
            text = render_agents(result)
        else:
            text = render_report(result) + "\n\nREADME.md's speed section:\n\n" + readme_speed(result)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
        raise UserError(f"--show: {path} is a damaged cardzoo bench result ({type(e).__name__}: {e})") from None
    print(text)
    return 0


def _kind_of(result) -> str | None:
    """Which ``cardzoo bench --json`` wrote ``result``: "env" (the engines), "train", "agents" or "vector"."""
    if not isinstance(result, dict):
        return None
    if result.get("schema") == SCHEMA:
        return "env"
    for kind in ("train", "agents", "vector"):
        if isinstance(result.get(kind), list):
            return kind
    return None


def _write_json(path: str | None, result: dict) -> None:
    if path:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=1)
            f.write("\n")
        print(f"\nwrote {path}")


def run_train(args) -> int:
    from cardzoo.benchmarks.training_speed import bench_training, render_table

    games, _ = _games(args.games)
    if args.ray is not None and args.workers == 0:
        raise UserError("--ray needs --workers 1 or more")
    started = time.time()
    with ray_session_of(args):
        result = bench_training(
            games,
            quick=args.quick,
            workers=args.workers,
            ray=args.ray,
            runs=args.runs or 1,
            device=args.device or "auto",
        )
    print("\n" + render_table(result))
    print(f"peak memory (largest process): {result['peak_memory_mib']:,.0f} MiB; {time.time() - started:.0f} s in all")
    result.update(
        created=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        command=" ".join(
            ["cardzoo", "bench", "--train", *args.games]
            + (["--quick"] if args.quick else [])
            + (["--workers", str(args.workers)] if args.workers is not None else [])
            + (["--runs", str(args.runs)] if args.runs is not None else [])
            + (["--device", args.device] if args.device is not None else [])
            + (["--ray"] + ([args.ray] if args.ray else []) if args.ray is not None else [])
        ),
        machine=machine_info(None),
    )
    _write_json(args.json_path, result)
    failed = [r for r in result["train"] if "error" in r]
    if failed:
        names = ", ".join(f"{r['game']} {r['algo']}" for r in failed)
        print(
            f"cardzoo bench: {len(failed)} row(s) failed ({names}); the others were measured and kept", file=sys.stderr
        )
        return 1
    return 0


def run_vector(args) -> int:
    """``--vector``: cardzoo.vector's decisions/s beside the raw AEC loop, game by game."""
    from cardzoo.benchmarks.vector import bench_vector, render_vector
    from cardzoo.envs.registry import game_spec

    settings = _settings(args)
    games, _ = _games(args.games)
    wanted = _parse_players(args.players)
    _check_some_game_plays(games, wanted)

    def progress(msg: str) -> None:
        print(f"  measuring {msg}", file=sys.stderr, flush=True)

    previous, cpu = (None, None) if args.no_pin else pin_one_core(args.cpu)
    gc.collect()
    gc.freeze()
    try:
        rows = []
        for game in games:
            spec = game_spec(game)
            for n in [p for p in (wanted or [spec.default_players]) if p in spec.player_counts]:
                rows += bench_vector(game, n, settings, progress)
        machine = machine_info(cpu)
    finally:
        gc.unfreeze()
        restore_affinity(previous)
    command = command_line(args).replace("cardzoo bench", "cardzoo bench --vector", 1)
    result = {
        "vector": rows,
        "machine": machine,
        "command": command,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "settings": {
            "runs": settings.runs,
            "seconds": settings.seconds,
            "warmup": settings.warmup,
            "clock": settings.clock,
            "seed": settings.seed,
        },
    }
    print("\n" + render_vector(result))
    _write_json(args.json_path, result)
    return 0


def run_agents(args) -> int:
    """``--agents``: each agent's thinking time per real decision, game by game."""
    from cardzoo.benchmarks.report import render_agents
    from cardzoo.envs.registry import game_spec
    from cardzoo.training.agents.specs import parse_agent_list
    from cardzoo.training.evaluation.model_card import move_time

    specs = [sp.text for sp in parse_agent_list(args.agents)]
    games, _ = _games(args.games)
    wanted = _parse_players(args.players)
    _check_some_game_plays(games, wanted)
    rows = []
    for game in games:
        spec = game_spec(game)
        for n in [p for p in (wanted or [spec.default_players]) if p in spec.player_counts]:
            for agent in specs:
                t = move_time(agent, game, n, matches=args.matches, seed=args.seed, real_only=True)
                rows.append({"game": game, "players": n, "agent": agent, **t})
                print(render_agents({"agents": rows}).splitlines()[-1], flush=True)
    print("\n" + render_agents({"agents": rows}))
    _write_json(
        args.json_path,
        {
            "agents": rows,
            "machine": machine_info(None),
            "command": " ".join(
                [
                    "cardzoo",
                    "bench",
                    *args.games,
                    "--agents",
                    args.agents,
                    *(["--players", args.players] if args.players else []),
                    "--matches",
                    str(args.matches),
                ]
            ),
        },
    )
    return 0


def command_line(args) -> str:
    """The command that reproduces this run (from the parsed arguments)."""
    parts = ["cardzoo", "bench", *args.games]
    for flag, value in (
        ("--players", args.players),
        ("--runs", args.runs),
        ("--seconds", args.seconds),
        ("--warmup", args.warmup),
        ("--references", args.references),
        ("--profile-seconds", args.profile_seconds),
        ("--cpu", args.cpu),
    ):
        if value is not None:
            parts += [flag, str(value)]
    if args.seed:
        parts += ["--seed", str(args.seed)]
    if args.clock != "cpu":
        parts += ["--clock", args.clock]
    for flag, on in (
        ("--quick", args.quick),
        ("--no-reference", args.no_reference),
        ("--no-floor", args.no_floor),
        ("--profile", args.profile),
        ("--no-pin", args.no_pin),
        ("--no-memory", args.no_memory),
    ):
        if on:
            parts.append(flag)
    if args.json_path:
        parts += ["--json", args.json_path]
    return " ".join(parts)
