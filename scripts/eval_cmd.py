"""`cardzoo eval`: tournaments between agents, with confidence intervals and ratings.

    cardzoo eval siantappo --agents rules,random --players 4 --games 400
    cardzoo eval suipi --seats rules,random --games 200 --json out.json --plot out.png
    cardzoo eval samsip --agents rules,random,random@7 --records games.jsonl
    cardzoo eval suipi --agents model,rules --sprt --adv0 0 --adv1 0.25

See docs/evaluation.md.
"""

from __future__ import annotations

import argparse
import os

from cardzoo.envs.errors import UserError
from cardzoo.scripts.extras import require
from cardzoo.scripts.options import add_ray_flag, check_output_file, parse_options, ray_session_of
from cardzoo.training.agents.specs import parse_agent_list
from cardzoo.training.evaluation.luck import ADJUST_CHOICES
from cardzoo.training.evaluation.report import print_report, print_sprt, write_csv, write_json, write_plot
from cardzoo.training.evaluation.sprt import SPRTBounds
from cardzoo.training.evaluation.tournament import run_tournament

# Bounds of the numbers a tournament takes, checked before any game is played
MAX_GAMES = 1_000_000  # a model card plays 1,000 per player count; a million is hours of the rule bots
MAX_WORKERS = 256
MAX_BOOTSTRAP = 10_000
SPRT_GAMES = 20_000  # --sprt's default cap: a test that needs more is better rethought (wider bounds)


def register(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "eval",
        help="play a tournament between agents: mean reward, win rate, ratings with 95%% intervals",
        description="Play a tournament with seat rotation and duplicate deals (the same cards replayed with "
        "the seats permuted) and report per agent: mean reward, win rate and, for a field of 3 or "
        "more, Bradley-Terry ratings, each with a 95% interval. Agents: random, rules (the game's "
        "rule bot), teacher (its stronger scripted player, where it has one: Sam Sip), model (the "
        "trained model shipped in models/ for the game and player count), expert (search over deals "
        "sampled from what the seat has not seen, with the model; expert:N for N deals, default 8), "
        "belief[:N] (the same search, the deals drawn by how likely each makes the moves the others "
        "played: Siantappo and Suipi), or a "
        "checkpoint path "
        "(NAME.safetensors with its NAME.json sidecar next to it); add @SEED to fix an agent's "
        "own seed.",
    )
    p.add_argument("game", help="siantappo, suipi or samsip")
    who = p.add_mutually_exclusive_group(required=True)
    who.add_argument(
        "--agents",
        metavar="A,B,...",
        help="a field of entrants (comma-separated); seated in rotation, several per game",
    )
    who.add_argument(
        "--seats",
        metavar="A,B,...",
        help="one agent per seat in seat order (per team in Suipi 4p); rotated over the seats unless --no-rotate",
    )
    p.add_argument("--players", type=int, default=None, help="number of players (default: the game's usual)")
    p.add_argument(
        "--games",
        type=int,
        default=None,
        help=f"games to play, rounded up to whole duplicate sets, 1..{MAX_GAMES:,} (default 200; "
        f"with --sprt the most it may play, default {SPRT_GAMES:,})",
    )
    p.add_argument("--seed", type=int, default=0, help="tournament seed; same seed, same games (default 0)")
    p.add_argument(
        "--workers",
        type=int,
        default=min(2, os.cpu_count() or 1),
        help=f"worker processes, 1..{MAX_WORKERS} (default: 2 or the number of cores if fewer)",
    )
    add_ray_flag(p, "play the games on a Ray cluster, --workers actors of 1 CPU each; the same games")
    p.add_argument(
        "-o",
        "--option",
        "--rule",
        dest="option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="rule option of the game, repeatable (e.g. -o rounds=3)",
    )
    p.add_argument("--no-rotate", action="store_true", help="with --seats: keep every agent on its seat")
    p.add_argument("--json", metavar="FILE", help="write the full report as JSON")
    p.add_argument("--csv", metavar="FILE", help="write one row per agent as CSV")
    p.add_argument("--plot", metavar="FILE", help="draw ratings (or mean rewards) with 95%% intervals as PNG")
    p.add_argument(
        "--records", metavar="FILE", help="write every game as a JSON-lines game record (see `cardzoo replay`)"
    )
    p.add_argument(
        "--log",
        metavar="FILE",
        help="append every finished game to FILE; the same command with the same --log resumes "
        "an interrupted tournament",
    )
    p.add_argument(
        "--bootstrap",
        type=int,
        default=200,
        help=f"bootstrap resamples for rating intervals, 0..{MAX_BOOTSTRAP:,} (default 200; 0: no intervals)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_adjust_flag(p)
    add_sprt_flags(p)
    return p


def add_adjust_flag(p) -> None:
    """--adjust (shared with `cardzoo ladder play`)."""
    p.add_argument(
        "--adjust",
        choices=ADJUST_CHOICES,
        default=None,
        help="luck: also report every head-to-head advantage with the luck of the cards and of random "
        "players' choices taken out (unbiased; narrower intervals), with the game's value network; "
        "none: raw results only (default: luck where a value network ships for the game and count)",
    )


def add_sprt_flags(p) -> None:
    """--sprt and its bounds (shared with `cardzoo ladder play`)."""
    d = SPRTBounds()
    p.add_argument(
        "--sprt",
        action="store_true",
        help="two entrants: play deal by deal until a sequential probability ratio test decides "
        "whether the first is stronger by --adv1 (H1) or not by more than --adv0 (H0)",
    )
    p.add_argument(
        "--adv0",
        type=float,
        default=d.adv0,
        help=f"with --sprt: H0's advantage of the first agent, reward per game (default {d.adv0:g})",
    )
    p.add_argument(
        "--adv1",
        type=float,
        default=d.adv1,
        help=f"with --sprt: H1's advantage of the first agent, reward per game (default {d.adv1:g})",
    )
    p.add_argument(
        "--alpha",
        type=float,
        default=d.alpha,
        help=f"with --sprt: the chance of accepting H1 when H0 holds (default {d.alpha:g})",
    )
    p.add_argument(
        "--beta",
        type=float,
        default=d.beta,
        help=f"with --sprt: the chance of accepting H0 when H1 holds (default {d.beta:g})",
    )


def sprt_bounds_of(args) -> SPRTBounds | None:
    """The SPRT's bounds from the command line (checked), or None without --sprt."""
    if not args.sprt:
        return None
    return SPRTBounds(args.adv0, args.adv1, args.alpha, args.beta).check()


def run(args) -> int:
    seats = args.seats is not None
    specs = parse_agent_list(args.seats if seats else args.agents)
    if args.no_rotate and not seats:
        raise UserError("--no-rotate works with --seats only")
    if len(specs) < 2 or (seats and len({sp.text for sp in specs}) < 2):  # as found: one entrant "won" every game
        other = "random" if specs[0].kind == "rules" else "rules"
        raise UserError(
            f"{'--seats' if seats else '--agents'} names one entrant ({specs[0].text}): a tournament "
            f"needs two or more to compare, e.g. {specs[0].text},{other}"
        )
    sprt = sprt_bounds_of(args)
    if args.games is None:
        args.games = SPRT_GAMES if sprt else 200
    check_numbers(args)
    options = parse_options(args.option, args.game)
    for flag, path in (
        ("--json", args.json),
        ("--csv", args.csv),
        ("--plot", args.plot),
        ("--records", args.records),
        ("--log", args.log),
    ):
        if path:  # before the games: a tournament must not fail at its end for want of a place to write
            check_output_file(path, flag)
    if args.plot:
        require("matplotlib", "--plot")
    with ray_session_of(args):
        result = run_tournament(
            args.game,
            specs,
            players=args.players,
            games=args.games,
            seed=args.seed,
            workers=args.workers,
            options=options,
            seats=seats,
            rotate=not args.no_rotate,
            records=args.records,
            log=args.log,
            progress=not args.no_progress,
            bootstrap=args.bootstrap,
            ray=args.ray,
            sprt=sprt,
            adjust=args.adjust,
        )
    report = result.report()
    print_report(report)
    if report["sprt"]:
        print_sprt(report["sprt"])
    if args.json:
        write_json(report, args.json)
    if args.csv:
        write_csv(report, args.csv)
    if args.plot and report["games_played"]:
        write_plot(report, args.plot)
    written = [p for p in (args.json, args.csv, args.plot, args.records) if p]
    if written:
        print("wrote " + ", ".join(written))
    if result.interrupted:
        print(f"interrupted: reported the {report['games_played']} finished games")
        return 130
    return 0


def check_numbers(args) -> None:
    """--games, --workers and --bootstrap within their bounds (a tournament of 10**30 games, or a
    bootstrap that allocates 10**30 rows after all the games, is refused before it starts)."""
    for flag, value, lo, hi in (
        ("--games", args.games, 1, MAX_GAMES),
        ("--workers", args.workers, 1, MAX_WORKERS),
        ("--bootstrap", args.bootstrap, 0, MAX_BOOTSTRAP),
    ):
        if not lo <= value <= hi:
            raise UserError(f"{flag} must be {lo}..{hi:,}, got {value}")
