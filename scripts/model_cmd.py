"""`cardzoo model`: work on trained checkpoints — give a move ranker a trust margin, publish a model card.

    cardzoo model trust runs/d/final --trust 0.05 --out runs/d/trusting
    cardzoo model card runs/s/final.safetensors --name siantappo --games 1000 --seed 2027 \\
        --train-command "cardzoo train siantappo --players 3,4,5,6 ..."
    cardzoo model card --readme-table
    cardzoo model probe models/suipi-2p.safetensors --players 2 --minutes 30 --seed 5301 --name suipi-2p

The work is done in training/agents/trust.py (``with_trust``), training/evaluation/model_card.py
(``publish``, ``readme_table``, ``attach_probe``) and training/dmc/exploit.py (``probe``); this module
only reads the command line.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from cardzoo.envs.errors import UserError
from cardzoo.scripts.options import add_ray_flag, check_output_file, ray_session_of


def register(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "model",
        help="trained checkpoints: a move ranker's trust margin, model cards in models/",
        description="Tools for trained checkpoints: `trust` writes a move ranker's copy with a "
        "trust margin, `card` publishes a checkpoint into models/ with a measured "
        "model card (or prints README's models table).",
    )
    actions = p.add_subparsers(dest="model_action", required=True, metavar="ACTION")
    _register_trust(actions)
    _register_card(actions)
    _register_probe(actions)
    _register_value(actions)
    return p


def _register_value(actions) -> None:
    p = actions.add_parser(
        "value",
        help="train a game's full-information value network for luck-adjusted evaluation",
        description="Play recorded matches (default: the shipped model against the rule bot, duplicate "
        "deals) and fit a value network that sees every hand to the rewards each seat still "
        "earned after every state chance made. Put it in models/ as GAME-Np.value to make "
        "`cardzoo eval --adjust luck` the default for that game and count (docs/evaluation.md).",
    )
    p.add_argument("game", help="siantappo, suipi or samsip")
    p.add_argument("--players", type=int, required=True, help="the player count it is for")
    p.add_argument("--out", help="where to write it, without suffix (default runs/value/GAME-Np.value)")
    p.add_argument("--agents", default="model,rules", help="the agents of the recorded matches (default model,rules)")
    p.add_argument("--matches", type=int, default=400, help="recorded matches, 10..1,000,000 (default 400)")
    p.add_argument("--hidden", default="32", help="hidden layer widths (default 32)")
    p.add_argument(
        "--activation",
        choices=("linear", "relu"),
        default="linear",
        help="linear (default): the value is linear in every card's place, so that a deal told card by card "
        "telescopes exactly; relu: a nonlinear network",
    )
    p.add_argument("--epochs", type=int, default=30, help="passes over the recorded states, 1..1000 (default 30)")
    p.add_argument("--seed", type=int, default=0, help="the matches' and the fit's seed (default 0)")
    p.add_argument("--force", action="store_true", help="replace an existing file at --out")


def _register_trust(actions) -> None:
    p = actions.add_parser(
        "trust",
        help="copy a move-ranker checkpoint with a trust margin over the rule bot's move",
        description="Write a copy of a move-ranker checkpoint (same weights, a new sidecar with "
        "\"trust\"): it keeps to the rule bot's move unless another move's estimated "
        "Q is higher by more than the margin.",
    )
    p.add_argument("checkpoint", help="a move-ranker checkpoint (path with or without .safetensors)")
    p.add_argument("--trust", type=float, required=True, help="Q margin over the rule bot's move (0..100)")
    p.add_argument("--out", required=True, help="where to write the copy (path without suffix)")


def _register_card(actions) -> None:
    p = actions.add_parser(
        "card",
        help="publish a checkpoint into models/ with a measured model card",
        description="Copy a checkpoint into models/NAME.{safetensors,json,png}, measure it at "
        "every player count it plays (against the rule bot, random and a ratings "
        "field; models/NAME.eval.json) and write models/NAME.md from those "
        "measurements. Use a seed that training and selection never used.",
        epilog="cardzoo model card --readme-table prints README's models table",
    )
    p.add_argument("checkpoint", nargs="?", help="the checkpoint to publish")
    p.add_argument("--name", help="file name in models/ (e.g. siantappo, suipi-2p)")
    p.add_argument("--games", type=int, default=1000, help="games against the rule bot per player count")
    p.add_argument("--other-games", type=int, default=200, help="games against random and in the field")
    p.add_argument("--seed", type=int, help="a seed never used in training or selection")
    p.add_argument("--workers", type=int, default=2, help="worker processes, or Ray actors with --ray (default 2)")
    add_ray_flag(p, "play the games on a Ray cluster")
    p.add_argument("--train-command", help="the cardzoo train command that made it")
    p.add_argument(
        "--field",
        default="",
        help="extra entrants of the ratings field, comma-separated "
        "(earlier checkpoints, or agent specs such as teacher)",
    )
    p.add_argument("--notes", default="", help="a file with the card's 'where it is still weak' text")
    p.add_argument(
        "--readme-table",
        action="store_true",
        help="print README's trained-models table from models/*.eval.json instead",
    )


def _register_probe(actions) -> None:
    p = actions.add_parser(
        "probe",
        help="exploitability probe: train exploiters of a checkpoint and of the rule bot",
        description="Train a Deep Monte-Carlo exploiter against the checkpoint (every other side "
        "played by it, frozen) and one against the rule bot, with the same wall "
        "clock each, and measure each against its target. Run it again to resume "
        "or to finish; with --name the result goes on models/NAME's card.",
    )
    p.add_argument("checkpoint", help="the model to probe (a move ranker or policy checkpoint)")
    p.add_argument("--players", type=int, required=True, help="the player count to probe at")
    p.add_argument(
        "--minutes", type=float, default=30.0, help="wall clock per exploiter, warm start included (default 30)"
    )
    p.add_argument("--games", type=int, default=400, help="games of each exploiter against its target (default 400)")
    p.add_argument("--seed", type=int, required=True, help="the exploiters' seed (their evaluation uses seed + 1)")
    p.add_argument("--out", help="the probe's folder (default runs/probe-NAME-Np)")
    p.add_argument("--workers", type=int, default=2, help="collector and evaluation processes (default 2)")
    p.add_argument("--name", help="also put the result on models/NAME's card (models/NAME.probe.json)")
    p.add_argument(
        "--stage",
        choices=("model", "rules"),
        help="train and measure only this exploiter (run the two "
        "side by side, one process each, to give them the same machine; the result is whole once both are)",
    )


def run(args) -> int:
    if args.model_action == "value":
        return _run_value(args)
    if args.model_action == "trust":
        return _run_trust(args)
    if args.model_action == "probe":
        return _run_probe(args)
    return _run_card(args)


def _run_value(args) -> int:
    from cardzoo.envs.registry import game_module
    from cardzoo.training.evaluation.luck import value_name
    from cardzoo.training.value.train import ValueSettings, train_value

    game = game_module(args.game).GAME
    if not 10 <= args.matches <= 1_000_000 or not 1 <= args.epochs <= 1000:
        raise UserError(f"--matches must be 10..1,000,000 and --epochs 1..1000, got {args.matches} and {args.epochs}")
    try:
        hidden = tuple(int(h) for h in args.hidden.split(","))
    except ValueError:
        raise UserError(f"--hidden must be comma-separated widths such as 128,64, got {args.hidden!r}") from None
    if not hidden or not all(1 <= h <= 4096 for h in hidden):
        raise UserError(f"--hidden widths must be 1..4096, got {args.hidden!r}")
    out = args.out or f"runs/value/{value_name(game, args.players)}"
    settings = ValueSettings(
        game,
        args.players,
        out,
        tuple(args.agents.split(",")),
        args.matches,
        hidden,
        args.activation,
        args.epochs,
        args.seed,
        args.force,
    )
    ev = train_value(settings)
    print(
        f"wrote {out}.safetensors: validation error {ev['validation_mse']:.4f} against a target variance of "
        f"{ev['target_variance']:.4f} (R² {ev['validation_r2']:.3f})"
    )
    return 0


def _run_probe(args) -> int:
    from cardzoo.training.dmc.exploit import probe
    from cardzoo.training.evaluation.model_card import attach_probe

    for flag, value, lo in (
        ("--minutes", args.minutes, 1e-9),
        ("--games", args.games, 1),
        ("--workers", args.workers, 1),
        ("--players", args.players, 1),
    ):
        if not value >= lo:
            raise UserError(f"{flag} must be >= {lo:g}, got {value}")
    stem = Path(args.checkpoint).name.removesuffix(".safetensors").removesuffix(".json")
    out = args.out or f"runs/probe-{stem}-{args.players}p"
    stages = (args.stage,) if args.stage else ("model", "rules")
    result = probe(args.checkpoint, args.players, args.minutes, args.games, args.seed, out, args.workers, stages=stages)
    for target, r in result["exploiters"].items():
        lo, hi = r["advantage_ci"]
        print(
            f"exploiter of {target}: {r['advantage']:+.3f} [{lo:+.3f}, {hi:+.3f}] per match over {r['games']} "
            f"games, after {r['samples']:,} samples in {r['minutes']:g} minutes"
        )
    if len(result["exploiters"]) < 2:
        print(f"the other exploiter is not done yet: run the probe again (with its --stage, or none) to finish {out}")
    elif args.name:
        print(attach_probe(args.name, result, _probe_command(args)))
    return 0


def _probe_command(args) -> str:
    """The command as a reader would retype it (--out only says where the runs are kept)."""
    return (
        f"cardzoo model probe {args.checkpoint} --players {args.players} --minutes {args.minutes:g} "
        f"--games {args.games} --seed {args.seed} --workers {args.workers}"
    )


def _run_trust(args) -> int:
    from cardzoo.training.agents.checkpoint import checkpoint_paths
    from cardzoo.training.agents.trust import with_trust

    if not Path(args.out).name:
        raise UserError(f"--out {args.out!r} names no file: give a path such as runs/d/trusting")
    for path in checkpoint_paths(args.out):  # the weights and the sidecar, both writable before the copy is made
        check_output_file(str(path), "--out")
    saved = with_trust(args.checkpoint, args.trust, args.out)
    print(f"wrote {saved} (trust {args.trust:g})")
    return 0


def _run_card(args) -> int:
    from cardzoo.training.evaluation.model_card import publish, readme_table

    if args.readme_table:
        if args.checkpoint is not None:
            raise UserError("--readme-table takes no checkpoint")
        print(readme_table())
        return 0
    missing = [
        flag
        for flag, value in (
            ("CHECKPOINT", args.checkpoint),
            ("--name", args.name),
            ("--seed", args.seed),
            ("--train-command", args.train_command),
        )
        if value is None
    ]
    if missing:
        raise UserError(f"publishing a model card needs {', '.join(missing)} (or --readme-table alone)")
    for flag, value, lo in (
        ("--games", args.games, 1),
        ("--other-games", args.other_games, 1),
        ("--workers", args.workers, 1),
    ):
        if value < lo:
            raise UserError(f"{flag} must be >= {lo}, got {value}")
    try:
        notes = Path(args.notes).read_text() if args.notes else ""
    except OSError as e:
        raise UserError(f"--notes: cannot read {args.notes} ({e.strerror or e})") from None
    field = [f for f in args.field.split(",") if f]
    with ray_session_of(args):
        print(
            publish(
                args.checkpoint,
                args.name,
                args.games,
                args.seed,
                args.train_command,
                field,
                notes,
                args.workers,
                args.other_games,
                ray=args.ray,
            )
        )
    return 0
