"""`cardzoo train`: self-play training that exports a checkpoint."""

from __future__ import annotations

import argparse

from scripts.options import add_option_flag, parse_options


def register(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("train", help="self-play training (MaskablePPO); writes safetensors checkpoints")
    p.add_argument("game", help="siantappo, suipi or samsip")
    p.add_argument("--players", type=int, default=None, help="number of players (default: the game's usual)")
    p.add_argument("--steps", type=int, default=200_000, help="learner decisions to train for (default 200000)")
    p.add_argument("--out", default=None, help="run directory (default runs/GAME-Np)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--envs", type=int, default=4, help="parallel episodes (default 4)")
    p.add_argument("--eval-every", type=int, default=25_000, help="steps between evaluations/checkpoints")
    p.add_argument("--eval-games", type=int, default=60, help="games per baseline at each evaluation (0: none)")
    p.add_argument("--imitate", type=int, default=0, metavar="MATCHES",
                   help="warm start: clone the rule bot on this many bot-vs-bot matches first (default 0)")
    p.add_argument("--value-warmup", type=int, default=0, metavar="STEPS",
                   help="steps at the start that train only the value net (useful after --imitate)")
    p.add_argument("--opponents", default="rules=0.4,random=0.1,snapshot=0.5",
                   help="opponent pool weights (default rules=0.4,random=0.1,snapshot=0.5)")
    p.add_argument("--lr", type=float, default=3e-4, help="learning rate (default 3e-4)")
    p.add_argument("--ent", type=float, default=0.01, help="entropy coefficient (default 0.01)")
    p.add_argument("--resume", action="store_true", help="continue the run in --out")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_option_flag(p)
    return p


def run(args) -> int:
    from training.train import TrainSettings, train  # torch loads only when training

    settings = TrainSettings(
        game=args.game, players=args.players, steps=args.steps, seed=args.seed, envs=args.envs,
        out=args.out or f"runs/{args.game}-{args.players or 'default'}p",
        eval_every=args.eval_every, snapshot_every=args.eval_every, eval_games=args.eval_games,
        variants=parse_options(args.option), imitation_matches=args.imitate,
        opponents=parse_weights(args.opponents), learning_rate=args.lr, ent_coef=args.ent,
        value_warmup=args.value_warmup,
    )
    train(settings, resume=args.resume, progress=not args.no_progress)
    return 0


def parse_weights(text: str) -> dict:
    """'rules=0.8,snapshot=0.2' -> {'rules': 0.8, 'snapshot': 0.2}."""
    out = {}
    for part in text.split(","):
        key, sep, value = part.partition("=")
        try:
            out[key.strip()] = float(value)
        except ValueError:
            sep = ""
        if not sep:
            raise ValueError(f"--opponents wants KIND=WEIGHT,... (kinds rules, random, snapshot), got {part!r}")
    return out
