"""`cardzoo train`: self-play training that exports checkpoints.

Without ``--algo`` a game trains by its recipe (``cardzoo.training.recipes``: for all three games a
warm-started Deep Monte-Carlo move ranker, ``cardzoo.training.dmc.trainer``, sized to beat the rule
bot within 15 minutes on 2 cores). ``--algo ppo`` is cardzoo's batched self-play PPO
(``cardzoo.training.ppo.trainer``); ``--algo sb3`` runs sb3-contrib's MaskablePPO on ``cardzoo.vector``'s tables
(``cardzoo.training.sb3.vec_env``: an SB3 ``VecEnv``); ``--algo rllib`` RLlib's PPO.

The flags declared here are the command's own (the game, the trainer, the run directory, -o);
each trainer's flags, their defaults and help come from its settings dataclass
(``cardzoo.scripts.train_flags``).
"""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path

from cardzoo.envs.errors import UserError
from cardzoo.scripts.options import add_option_flag, add_ray_flag, parse_options
from cardzoo.scripts.train_flags import add_settings_flags, shown_value
from cardzoo.training.common.flags import flag_name, settings_fields, taken_flags
from cardzoo.training.common.settings import TrainerSettings
from cardzoo.training.dmc.settings import DMCSettings
from cardzoo.training.integrations.rllib_train import RLlibSettings
from cardzoo.training.ppo.settings import PPOSettings
from cardzoo.training.sb3.settings import SB3Settings

# --algo -> the trainer's settings class (its flags) and the module whose train(settings) runs it
TRAINERS: dict[str, type[TrainerSettings]] = {
    "dmc": DMCSettings,
    "ppo": PPOSettings,
    "sb3": SB3Settings,
    "rllib": RLlibSettings,
}
TRAIN_MODULES = {
    "dmc": "cardzoo.training.dmc.trainer",
    "ppo": "cardzoo.training.ppo.trainer",
    "sb3": "cardzoo.training.sb3.trainer",
}
OUT_SUFFIX = {"ppo": "", "dmc": "-dmc", "sb3": "-sb3"}  # the default --out: runs/GAME-Np plus this


def register(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "train",
        help="self-play training (the game's recipe, or --algo dmc|ppo|sb3|rllib); writes safetensors checkpoints",
        description="Self-play training. Without --algo a game trains by its recipe: a Deep Monte-Carlo "
        "move ranker warm-started on a scripted player, sized to beat the rule bot in about "
        "15 minutes on 2 cores (docs/training.md). The dmc and ppo trainers play many matches "
        "at once in worker processes. A run directory is resumable with --resume "
        "(safetensors + JSON, nothing unpickled).",
        epilog=f"{recipes_help()} --algo sb3: MaskablePPO (sb3-contrib) on one seat; its --resume loads SB3's "
        "model.zip, which unpickles: resume only run directories you trust.",
    )
    p.add_argument("game", help="siantappo, suipi or samsip")
    p.add_argument(
        "--algo",
        "--backend",
        dest="algo",
        choices=tuple(TRAINERS),
        default=None,
        help="trainer (default: the game's recipe, a warm-started dmc run that beats the rule bot "
        "in about 15 minutes on 2 cores; docs/training.md); dmc = Deep Monte-Carlo move "
        "ranker (DouZero-style); ppo = batched self-play PPO; rllib = multi-agent PPO on Ray "
        "(needs the rllib extra); --resume without --algo continues the run in --out with "
        "its own trainer",
    )
    p.add_argument(
        "--out",
        default=None,
        help="run directory (default: ppo runs/GAME-Np, N the --players list joined by '-' or "
        "'default', e.g. runs/siantappo-3-4-5-6p; dmc (and a recipe) adds -dmc, e.g. "
        "runs/suipi-defaultp-dmc; "
        "sb3 adds -sb3; rllib runs/rllib-GAME-Np); the trained policy is OUT/final",
    )
    p.add_argument("--resume", action="store_true", help="continue the run in --out")
    add_ray_flag(p, "ppo and dmc: collect on a Ray cluster, --workers actors of 1 CPU each, the learner here")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_option_flag(p)
    p.set_defaults(_settings_flags=frozenset(add_settings_flags(p, TRAINERS)))
    return p


def recipes_help() -> str:
    """What each game's recipe sets, as the flags that would set it (from cardzoo.training.recipes)."""
    from cardzoo.training.recipes import RECIPES

    said = []
    for game, chosen in RECIPES.items():
        cls = TRAINERS[chosen.algo]
        flags = " ".join(f"{cls.flag(k)} {shown_value(v)}" for k, v in chosen.settings.items())
        said.append(f"{game}: --algo {chosen.algo} {flags}")
    return f"Recipes (cardzoo train GAME without --algo; flags given win): {'; '.join(said)}."


def run(args) -> int:
    given = {k: v for k, v in vars(args).items() if k in args._settings_flags}
    algo, recipe = _trainer(args)
    if args.ray is not None and algo in ("sb3", "rllib"):
        raise UserError("--ray is a flag of --algo ppo and dmc (--algo rllib takes --address)")
    if args.ray is not None and given.get("workers") == 0:
        raise UserError("--ray needs --workers 1 or more (the workers are the Ray actors)")
    cls = TRAINERS[algo]
    _refuse_others_flags(algo, given, bool(recipe))
    fields = settings_fields(cls, given)
    if args.option:
        fields["variants"] = parse_options(args.option, args.game)
    if algo == "rllib":
        return _run_rllib(args, fields)
    settings = _settings(args, algo, fields, recipe)
    train = importlib.import_module(TRAIN_MODULES[algo]).train  # torch loads only when training
    ray = {} if algo == "sb3" else {"ray": args.ray}
    train(settings, resume=args.resume, progress=not args.no_progress, **ray)
    return 0


def _trainer(args) -> tuple[str, dict]:
    """The trainer (--algo, else the resumed run's, else the game's recipe's) and the recipe's settings."""
    if args.algo is not None:
        return args.algo, {}
    found = _algo_of_run(Path(args.out)) if args.resume and args.out else None
    if found is not None:
        return found, {}
    from cardzoo.envs.registry import game_module
    from cardzoo.training.recipes import recipe

    chosen = recipe(game_module(args.game).GAME)
    return chosen.algo, dict(chosen.settings)


def _refuse_others_flags(algo: str, given: dict, by_recipe: bool) -> None:
    """One line for a flag the trainer does not take, naming the trainers that do."""
    own = taken_flags(TRAINERS[algo])
    bad = [d for d in given if d not in own]
    if bad:
        owners = [a for a, cls in TRAINERS.items() if bad[0] in taken_flags(cls)]
        hint = ", the game's default trainer: name --algo to choose another" if by_recipe else ""
        raise UserError(
            f"{flag_name(bad[0])} is not a flag of --algo {algo}{hint} (it is one of --algo {', '.join(owners)})"
        )


def _algo_of_run(out: Path) -> str | None:
    """The trainer whose settings a run directory holds (their fields tell them apart), or None."""
    import dataclasses

    from cardzoo.training.common.settings import read_json

    path = out / "settings.json"
    if not path.is_file():
        return None
    doc = read_json(path)
    for algo, cls in TRAINERS.items():
        names = {cls.RENAMED.get(k, (k,))[0] for k in doc}  # earlier names as today's
        if names == {f.name for f in dataclasses.fields(cls) if f.name not in cls.UNRECORDED}:
            return algo
    return None


def _settings(args, algo: str, fields: dict, recipe: dict):
    """A new run's settings (a recipe's, where it has one, with the flags given), or (``--resume``)
    the saved ones with the allowed flags applied."""
    cls = TRAINERS[algo]
    players = fields.get("players")
    counts = players if isinstance(players, tuple) else (players,) if players else ()
    out = args.out or f"runs/{args.game}-{'-'.join(map(str, counts)) if counts else 'default'}p{OUT_SUFFIX[algo]}"
    if args.resume:
        from cardzoo.training.common.settings import resume_settings

        settings = resume_settings(cls, out, fields)
        if settings.game != cls(game=args.game).game:
            raise UserError(f"{out} holds a {settings.game} run, not {args.game}")
        return settings
    try:
        return cls(game=args.game, out=out, **{**recipe, **fields})
    except TypeError as e:
        raise UserError(str(e)) from None


def _run_rllib(args, fields: dict) -> int:
    """Multi-agent PPO on Ray RLlib; the result is a cardzoo checkpoint (training/integrations).

    Bad input is refused before Ray is imported, so it is one line even where Ray is not installed."""
    from cardzoo.training.integrations.rllib_train import check_out_dir, train_rllib

    if args.resume:
        raise UserError("--algo rllib runs are not resumable; start a new one with another --out")
    settings = RLlibSettings(game=args.game, out=args.out, **fields)
    check_out_dir(settings)
    try:
        import ray
        import ray.rllib  # RLlib itself: Ray core alone (the `ray` extra) has no RLlib dependencies
    except ImportError:
        raise UserError(
            "--algo rllib needs Ray RLlib, which pins its own gymnasium: install cardzoo with the "
            'rllib extra in a separate venv (pip install "cardzoo[rllib]"; in a source checkout '
            "`make integrations-venv`, then .venv-integrations/bin/cardzoo; docs/integrations.md)"
        ) from None
    try:
        train_rllib(settings)
    finally:
        if ray.is_initialized():
            ray.shutdown()
    return 0
