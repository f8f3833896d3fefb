"""`cardzoo ladder`: a ladder of agents kept in one SQLite file, that plays only the matches it lacks.

    cardzoo ladder add rules random model
    cardzoo ladder play --game suipi --players 2 --games 200
    cardzoo ladder add runs/x/final.safetensors && cardzoo ladder play --game suipi --players 2 --games 200
    cardzoo ladder show --plot ladder.png
    cardzoo ladder export --json ladder.json

See docs/evaluation.md (A ladder that remembers).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os

from cardzoo.envs.errors import UserError
from cardzoo.scripts.eval_cmd import MAX_GAMES, MAX_WORKERS, add_adjust_flag, add_sprt_flags, sprt_bounds_of
from cardzoo.scripts.options import add_option_flag, add_ray_flag, check_output_file, parse_options, ray_session_of
from cardzoo.training.agents.specs import parse_agent_spec

MAX_BOOTSTRAP = 10_000


def register(sub) -> argparse.ArgumentParser:
    from cardzoo.training.evaluation.ladder_store import default_path

    p = sub.add_parser(
        "ladder",
        help="a ladder of agents in one SQLite file: add entrants, play their missing matches, show ratings",
        description="Keep entrants (agent specs; checkpoints by their SHA-256) and every match they played in one "
        "SQLite file, so that adding an agent plays only its new pairs. Ratings: Bradley-Terry on the "
        "Elo scale over the head-to-head results, with 95%% bootstrap intervals.",
    )
    p.add_argument(
        "--db", metavar="FILE", default=None, help=f"the ladder file (default $CARDZOO_LADDER, else {default_path()})"
    )
    steps = p.add_subparsers(dest="step", required=True, metavar="STEP")
    add = steps.add_parser("add", help="put agents on the ladder (random, rules, model, expert, a checkpoint path)")
    add.add_argument("specs", nargs="+", metavar="SPEC", help="agent specs, as `cardzoo eval` takes them")
    play = steps.add_parser("play", help="play every pair of entrants up to --games matches at one game and count")
    play.add_argument("--game", required=True, help="siantappo, suipi or samsip")
    play.add_argument("--players", type=int, default=None, help="number of players (default: the game's usual)")
    play.add_argument(
        "--games",
        type=int,
        default=200,
        help=f"matches per pair, rounded up to whole duplicate sets, 1..{MAX_GAMES:,} (default 200); "
        "only those a pair lacks are played",
    )
    play.add_argument(
        "--workers",
        type=int,
        default=min(2, os.cpu_count() or 1),
        help=f"worker processes, 1..{MAX_WORKERS} (default: 2 or the number of cores if fewer)",
    )
    add_option_flag(play)
    add_ray_flag(play, "play the matches on a Ray cluster, --workers actors of 1 CPU each; the same matches")
    add_adjust_flag(play)
    add_sprt_flags(play)
    show = steps.add_parser("show", help="ratings with 95%% intervals, per game and player count")
    show.add_argument("--plot", metavar="FILE", help="draw the ratings with their intervals as PNG")
    show.add_argument(
        "--bootstrap",
        type=int,
        default=200,
        help=f"bootstrap resamples for the intervals, 0..{MAX_BOOTSTRAP:,} (default 200)",
    )
    export = steps.add_parser("export", help="the whole ladder (entrants, every match, standings) as JSON")
    export.add_argument("--json", metavar="FILE", required=True, help="where to write it ('-': standard output)")
    return p


def run(args) -> int:
    from cardzoo.training.evaluation import ladder_store

    if args.db is not None and not args.db.strip():
        raise UserError("--db needs a file name")
    path = ladder_store.default_path() if args.db is None else args.db
    if args.step == "add":
        specs = [parse_agent_spec(text) for text in args.specs]  # every spec checked before the file is touched
        with contextlib.closing(ladder_store.open_ladder(path, create=True)) as con:
            for spec in specs:
                entrant, new = ladder_store.add_entrant(con, spec)
                print(f"{'added' if new else 'already on the ladder'}: {entrant.name}")
        return 0
    if args.step == "play":
        return _play(args, path)
    if args.step == "show":
        return _show(args, path)
    return _export(args, path)


def _play(args, path: str) -> int:
    from cardzoo.training.evaluation import ladder, ladder_store

    for flag, value, hi in (("--games", args.games, MAX_GAMES), ("--workers", args.workers, MAX_WORKERS)):
        if not 1 <= value <= hi:
            raise UserError(f"{flag} must be 1..{hi:,}, got {value}")
    sprt = sprt_bounds_of(args)
    options = parse_options(args.option, args.game)
    with contextlib.closing(ladder_store.open_ladder(path, create=False)) as con, ray_session_of(args):
        played = ladder.play(
            con,
            args.game,
            args.players,
            args.games,
            options=options,
            workers=args.workers,
            sprt=sprt,
            ray=args.ray,
            adjust=args.adjust,
        )
    print(f"played {played} matches; the ladder is in {path}")
    return 0


def _show(args, path: str) -> int:
    from cardzoo.training.evaluation import ladder, ladder_store

    if not 0 <= args.bootstrap <= MAX_BOOTSTRAP:
        raise UserError(f"--bootstrap must be 0..{MAX_BOOTSTRAP:,}, got {args.bootstrap}")
    if args.plot:
        check_output_file(args.plot, "--plot")
    with contextlib.closing(ladder_store.open_ladder(path, create=False)) as con:
        tables = ladder.standings(con, bootstrap=args.bootstrap)
    if not tables:
        print(f"no matches on the ladder {path} yet; play some with `cardzoo ladder play --game GAME`")
    for t in tables:
        options = "".join(f" -o {k}={json.dumps(v)}" for k, v in sorted(t["options"].items()))
        print(f"\n{t['game']}, {t['players']} players{options} — {t['matches']} matches; Elo scale, {t['anchor']} = 0")
        for row in t["entrants"]:
            lo, hi = row["rating_ci"]
            ci = "" if lo is None else f" [{lo:+.0f}, {hi:+.0f}]"
            rating = "—" if row["rating"] is None else f"{row['rating']:+.0f}"
            print(f"  {row['entrant']:<32} {rating:>6}{ci:<14} {row['matches']:>6} matches, score {row['score']:.3f}")
    if args.plot and tables:
        _plot(tables, args.plot)
        print(f"wrote {args.plot}")
    return 0


def _plot(tables: list[dict], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    fig, axes = plt.subplots(
        len(tables), 1, figsize=(7, 2.2 + 0.45 * sum(len(t["entrants"]) for t in tables)), dpi=110, squeeze=False
    )
    for ax, t in zip(axes[:, 0], tables):
        rows = t["entrants"][::-1]
        y = np.arange(len(rows))
        val = np.array([np.nan if r["rating"] is None else r["rating"] for r in rows], dtype=float)
        lo = np.array([np.nan if r["rating_ci"][0] is None else r["rating_ci"][0] for r in rows], dtype=float)
        hi = np.array([np.nan if r["rating_ci"][1] is None else r["rating_ci"][1] for r in rows], dtype=float)
        err = np.vstack([np.nan_to_num(val - lo), np.nan_to_num(hi - val)]).clip(min=0)
        ax.errorbar(np.nan_to_num(val), y, xerr=err, fmt="o", color="#4c78a8", capsize=4)
        ax.set_yticks(y, [r["entrant"] for r in rows])
        ax.axvline(0, color="grey", lw=0.8)
        ax.set_title(
            f"{t['game']}, {t['players']} players — {t['matches']} matches "
            f"(Elo scale, {t['anchor']} = 0, 95% intervals)",
            fontsize=9,
        )
    fig.tight_layout()
    fig.savefig(path, format="png")  # PNG whatever the file name says
    plt.close(fig)


def _export(args, path: str) -> int:
    from cardzoo.training.evaluation import ladder, ladder_store

    if args.json != "-":
        check_output_file(args.json, "--json")
    with contextlib.closing(ladder_store.open_ladder(path, create=False)) as con:
        data = ladder.export(con)
    text = json.dumps(data, indent=1, ensure_ascii=False)
    if args.json == "-":
        print(text)
    else:
        with open(args.json, "w", encoding="utf-8") as f:
            f.write(text + "\n")
        print(f"wrote {args.json}")
    return 0
