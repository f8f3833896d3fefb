"""`cardzoo replay`: show a recorded game move by move and check it replays to the same rewards.

    cardzoo eval siantappo --agents rules,random --games 8 --records games.jsonl
    cardzoo replay games.jsonl --game 3 --step

Records are JSON lines as written by `cardzoo eval --records` (see training/records.py).
"""

from __future__ import annotations

import argparse
import os
import time

from training.records import check_rewards, env_from_header, play_moves, read_records, reset_to_header


def register(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("replay", help="replay a recorded game in the terminal and check its rewards",
                       description="Replay one game of a JSON-lines record file (cardzoo eval --records) "
                                   "through the environment, showing the table after every move, and "
                                   "check that it ends with the recorded rewards.")
    p.add_argument("file", help="a JSON-lines file of game records")
    p.add_argument("--game", type=int, default=1, metavar="N", help="which game of the file, from 1 (default 1)")
    pace = p.add_mutually_exclusive_group()
    pace.add_argument("--step", action="store_true", help="wait for Enter after every move")
    pace.add_argument("--delay", type=float, default=0.0, metavar="SECONDS", help="pause after every move")
    p.add_argument("--quiet", action="store_true", help="show only the final table and the result")
    return p


def run(args) -> int:
    if not os.path.isfile(args.file):
        raise FileNotFoundError(f"record file not found: {args.file}")
    records = read_records(args.file)
    if not records:
        raise ValueError(f"{args.file}: no game records in the file")
    if not 1 <= args.game <= len(records):
        raise ValueError(f"--game must be 1..{len(records)} ({args.file} holds {len(records)} game(s)), "
                         f"got {args.game}")
    rec = records[args.game - 1]
    where = f"{args.file} game {args.game}"
    try:
        env = env_from_header(rec, render_mode="ansi")
        reset_to_header(env, rec)
    except (ValueError, TypeError, KeyError) as e:
        raise ValueError(f"{where}: cannot rebuild the game ({e})") from None
    agents = rec.get("agents") or [None] * env.num_players
    n = len(rec["moves"])
    head = f"{rec['game']} — {where}: seed {rec['seed']}, {n} moves"
    if any(agents):
        head += "; " + ", ".join(f"player_{i} = {a}" for i, a in enumerate(agents))
    print(head)
    if not args.quiet:
        print(env.render())

    def show(i, seat, action, text):
        if args.quiet:
            return
        who = f" ({agents[seat]})" if seat < len(agents) and agents[seat] else ""
        print(f"\n[{i + 1}/{n}] player_{seat}{who} plays: {text}")
        print(env.render())
        if args.step:
            input("-- Enter for the next move --")
        elif args.delay > 0:
            time.sleep(args.delay)

    try:
        totals = play_moves(env, rec["moves"], on_move=show)
        check_rewards(totals, rec["rewards"])
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None
    if args.quiet:
        print(env.render())
    print("\nrewards: " + ", ".join(f"player_{i} {r:+.3f}" for i, r in enumerate(totals)))
    print("the replay matches the recorded rewards")
    return 0
