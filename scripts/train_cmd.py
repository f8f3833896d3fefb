"""`cardzoo train`: self-play training that exports checkpoints.

Without ``--algo`` a game trains by its recipe (``cardzoo.training.recipes``: for all three games a
warm-started Deep Monte-Carlo move ranker, ``cardzoo.training.dmc.trainer``, sized to beat the rule
bot within 15 minutes on 2 cores). ``--algo ppo`` is cardzoo's batched self-play PPO
(``cardzoo.training.ppo.trainer``); ``--algo sb3`` runs sb3-contrib's MaskablePPO on the single-seat
gymnasium view (``cardzoo.training.sb3.selfplay_env.SelfPlayEnv``); ``--algo rllib`` RLlib's PPO.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from cardzoo.envs.errors import UserError
from cardzoo.scripts.options import add_option_flag, add_ray_flag, parse_options

S = argparse.SUPPRESS  # only flags the user gives are passed on (a resume refuses changed ones)


def register(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "train", help="self-play training (the game's recipe, or --algo dmc|ppo|sb3|rllib); writes safetensors checkpoints",
        description="Self-play training. Without --algo a game trains by its recipe: a Deep Monte-Carlo "
                    "move ranker warm-started on a scripted player, sized to beat the rule bot in about "
                    "15 minutes on 2 cores (docs/training.md). The dmc and ppo trainers play many matches "
                    "at once in worker processes. A run directory is resumable with --resume "
                    "(safetensors + JSON, nothing unpickled).",
        epilog="--algo sb3: MaskablePPO (sb3-contrib) on one seat; its --resume loads SB3's model.zip, "
               "which unpickles: resume only run directories you trust.")
    p.add_argument("game", help="siantappo, suipi or samsip")
    p.add_argument("--algo", "--backend", dest="algo", choices=("ppo", "sb3", "rllib", "dmc"), default=None,
                   help="trainer (default: the game's recipe, a warm-started dmc run that beats the rule bot "
                        "in about 15 minutes on 2 cores; docs/training.md); dmc = Deep Monte-Carlo move "
                        "ranker (DouZero-style); ppo = batched self-play PPO; rllib = multi-agent PPO on Ray "
                        "(needs the rllib extra); --resume without --algo continues the run in --out")
    p.add_argument("--players", default=S, metavar="N[,N...]",
                   help="player count(s); several are mixed in one run, e.g. 3,4,5,6 (default: the game's usual)")
    p.add_argument("--steps", type=int, default=S,
                   help="learner decisions to train for (ppo default 1000000; dmc: samples, default 2000000; "
                        "a recipe sets its own). Counted in whole iterations of whole matches (--batch), so a run "
                        "stops at the first iteration that reaches it: a tiny --steps still trains one iteration")
    p.add_argument("--out", default=None,
                   help="run directory (default: ppo runs/GAME-Np, N the --players list joined by '-' or "
                        "'default', e.g. runs/siantappo-3-4-5-6p; dmc (and a recipe) adds -dmc, e.g. "
                        "runs/suipi-defaultp-dmc; "
                        "sb3 adds -sb3; rllib runs/rllib-GAME-Np); the trained policy is OUT/final")
    p.add_argument("--seed", type=int, default=S, help="seed of the whole run (default 0)")
    p.add_argument("--resume", action="store_true", help="continue the run in --out")
    add_ray_flag(p, "ppo and dmc: collect on a Ray cluster, --workers actors of 1 CPU each, the learner here")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--imitate", type=int, default=S, metavar="MATCHES",
                   help="warm start: clone the rule bot on this many bot-only matches first")
    p.add_argument("--opponents", default=S, metavar="KIND=W,...",
                   help="opponent pool weights of snapshot, rules, random (default snapshot=0.5,rules=0.4,random=0.1)")
    p.add_argument("--eval-every", type=int, default=S, help="decisions between evaluations/checkpoints")
    p.add_argument("--eval-games", type=int, default=S, help="games per baseline at each evaluation (0: none)")
    p.add_argument("--lr", type=float, default=S, help="learning rate (default 3e-4)")
    p.add_argument("--ent", type=float, default=S, help="entropy coefficient (default 0.01)")
    add_option_flag(p)
    ppo = p.add_argument_group("PPO trainer (--algo ppo)")
    ppo.add_argument("--workers", type=int, default=S, help="rollout processes (default 2; 0 = in this process)")
    ppo.add_argument("--matches", type=int, default=S, help="matches played at once per worker (default 64)")
    ppo.add_argument("--batch", type=int, default=S, help="samples per iteration (default 16384; whole matches)")
    ppo.add_argument("--minibatch", type=int, default=S, help="minibatch size (default 4096)")
    ppo.add_argument("--epochs", type=int, default=S, help="epochs per iteration (default 2)")
    ppo.add_argument("--hidden", default=S, metavar="W,W", help="hidden layer widths (default 256,256)")
    ppo.add_argument("--activation", default=S, help="relu or tanh (default relu)")
    ppo.add_argument("--lr-schedule", default=S, help="linear (to 0) or constant (default linear)")
    ppo.add_argument("--gamma", type=float, default=S, help="discount (default 1.0)")
    ppo.add_argument("--gae-lambda", type=float, default=S, help="GAE lambda (default 0.95)")
    ppo.add_argument("--clip", type=float, default=S, help="PPO clip range (default 0.2)")
    ppo.add_argument("--vf-coef", type=float, default=S, help="value loss weight (default 0.5)")
    ppo.add_argument("--max-grad-norm", type=float, default=S, help="gradient clipping (default 0.5)")
    ppo.add_argument("--target-kl", type=float, default=S, help="early stop past this KL (default 0.05; 0 = off)")
    ppo.add_argument("--selfplay", type=float, default=S, help="share of pure self-play matches (default 0.7)")
    ppo.add_argument("--critic", choices=("seat", "perfect"), default=S,
                     help="the value's input: seat (its own observation, default) or perfect (every seat's, "
                          "during training only: PerfectDou's critic; the exported actor sees its seat alone)")
    ppo.add_argument("--snapshot-every", type=int, default=S, help="decisions between pool snapshots")
    ppo.add_argument("--max-snapshots", type=int, default=S, help="snapshots kept in the pool (default 8)")
    ppo.add_argument("--save-every", type=float, default=S, help="seconds between resumable saves (default 120)")
    ppo.add_argument("--max-minutes", type=float, default=S,
                     help="stop after this many minutes of training (saved, final checkpoint written; 0 = no limit)")
    ppo.add_argument("--threads", type=int, default=S, help="torch threads of the learner (default 1)")
    ray = p.add_argument_group("RLlib on Ray (--algo rllib; pip install -e '.[rllib]', see docs/integrations.md; "
                               "also takes --players (one count), --seed, --lr, --ent, --eval-games (default 60), "
                               "--batch (decisions per iteration, default 4000), -o)")
    ray.add_argument("--address", default=S, help="local (default: start Ray here) or a Ray address (ray://host:10001, auto)")
    ray.add_argument("--env-runners", type=int, default=S, help="RLlib env runners (default 1; 0 samples in the driver)")
    ray.add_argument("--iterations", type=int, default=S, help="RLlib PPO iterations (default 20)")
    ray.add_argument("--num-cpus", type=int, default=S, help="CPUs of a local Ray (default env runners + 1)")
    dmc = p.add_argument_group("Deep Monte-Carlo move ranker (--algo dmc; also takes --workers, --matches "
                               "(default 32), --batch (samples per iteration, default 8192), --minibatch "
                               "(default 1024), --hidden, --activation, --save-every, --max-minutes, --threads)")
    dmc.add_argument("--epsilon", type=float, default=S, help="exploration: random complete moves (default 0.05)")
    dmc.add_argument("--vs-rules", type=float, default=S,
                     help="share of matches against rule bots, or --opponent; self-play otherwise (default 0.5)")
    dmc.add_argument("--opponent", default=S, metavar="AGENT",
                     help="who plays the other seats of those matches, frozen: an agent spec such as a checkpoint, "
                          "model or teacher (default rules); with --vs-rules 1, an exploiter of that agent")
    dmc.add_argument("--replay", type=int, default=S, help="recent samples kept for learning (default 100000)")
    dmc.add_argument("--reuse", type=float, default=S, help="times each sample is learned on (default 2)")
    dmc.add_argument("--returns", choices=("match", "deal"), default=S,
                     help="a choice's return runs to the match's end (default) or to its deal's end "
                          "(games settled deal by deal: samsip)")
    dmc.add_argument("--imitate-from", choices=("rules", "teacher", "expert"), default=S,
                     help="whose moves the --imitate warm start copies: the rule bot (default), the game's "
                          "stronger teacher player (samsip: its lookahead player), or the expert (search over "
                          "the --init checkpoint, else the shipped model: expert iteration)")
    dmc.add_argument("--imitate-targets", choices=("choice", "values"), default=S,
                     help="what the warm start fits: the imitated player's choice (default), or with "
                          "--imitate-from expert the search's value of every move it searched")
    dmc.add_argument("--expert-answer", choices=("scripted", "model"), default=S,
                     help="with --imitate-from expert, who plays the other seats in the search's sampled deals: "
                          "the game's scripted player or the model searched with (default: the game's, "
                          "model in siantappo and suipi)")
    dmc.add_argument("--init", default=S, metavar="CKPT",
                     help="start the network from this checkpoint's weights (same --hidden/--activation), "
                          "e.g. a shipped model to improve on")
    dmc.add_argument("--trust", type=float, default=S,
                     help="trust margin written into the checkpoints: keep to the rule bot's move unless another "
                          "move's Q is higher by more than this (default 0; as `cardzoo model trust`)")
    sb3 = p.add_argument_group("SB3 trainer (--algo sb3)")
    sb3.add_argument("--envs", type=int, default=S, help="parallel episodes (default 4)")
    sb3.add_argument("--value-warmup", type=int, default=S, metavar="STEPS",
                     help="steps at the start that train only the value net (useful after --imitate)")
    return p


# flag name -> PPOSettings field, for flags whose names differ
_PPO_FIELDS = {"matches": "matches_per_worker", "ent": "ent_coef"}
_SB3_ONLY = ("envs", "value_warmup")
_RLLIB_ONLY = ("address", "env_runners", "iterations", "num_cpus")
_DMC_ONLY = ("epsilon", "vs_rules", "opponent", "replay", "reuse", "returns", "imitate_from", "imitate_targets", "expert_answer",
            "init", "trust")
_DMC_FLAGS = ("players", "steps", "seed", "imitate", "eval_every", "eval_games", "lr", "variants", "workers",
              "matches", "batch", "minibatch", "hidden", "activation", "save_every", "max_minutes",
              "threads") + _DMC_ONLY


def run(args) -> int:
    given = {k: v for k, v in vars(args).items()
             if k not in ("game", "algo", "out", "resume", "no_progress", "command", "option", "ray")
             and not k.startswith("_")}
    if args.option:
        given["variants"] = parse_options(args.option)
    args.recipe = {}
    if args.algo is None:
        args.algo = _algo_of_run(Path(args.out)) if args.resume and args.out else None
    if args.algo is None:  # the game's recipe: its settings are defaults that flags override
        from cardzoo.envs.registry import game_module
        from cardzoo.training.recipes import recipe

        chosen = recipe(game_module(args.game).GAME)
        args.algo, args.recipe = chosen.algo, dict(chosen.settings)
    if args.ray is not None and args.algo in ("sb3", "rllib"):
        raise UserError("--ray is a flag of --algo ppo and dmc (--algo rllib takes --address)")
    if args.ray is not None and given.get("workers") == 0:
        raise UserError("--ray needs --workers 1 or more (the workers are the Ray actors)")
    if args.algo == "sb3":
        return _run_sb3(args, given)
    if args.algo == "rllib":
        return _run_rllib(args, given)
    if args.algo == "dmc":
        return _run_dmc(args, given)
    bad = [k for k in given if k in _SB3_ONLY + _RLLIB_ONLY + _DMC_ONLY]
    if bad:
        owner = "sb3" if bad[0] in _SB3_ONLY else "rllib" if bad[0] in _RLLIB_ONLY else "dmc"
        raise UserError(f"--{bad[0].replace('_', '-')} is a flag of --algo {owner}")
    from cardzoo.training.ppo.trainer import PPOSettings, train  # torch loads only when training

    fields = {_PPO_FIELDS.get(k, k): v for k, v in given.items()}
    if "players" in fields:
        fields["players"] = parse_int_list(fields["players"], "--players")
    if "hidden" in fields:
        fields["hidden"] = parse_int_list(fields["hidden"], "--hidden")
    if "opponents" in fields:
        fields["opponents"] = parse_weights(fields["opponents"])
    settings = _settings(args, fields, PPOSettings, suffix="")
    train(settings, resume=args.resume, progress=not args.no_progress, ray=args.ray)
    return 0


def _algo_of_run(out: Path) -> str | None:
    """The trainer whose settings a run directory holds (their fields tell them apart), or None."""
    import dataclasses

    from cardzoo.training.common.settings import read_json
    from cardzoo.training.dmc.trainer import DMCSettings
    from cardzoo.training.ppo.trainer import PPOSettings

    path = out / "settings.json"
    if not path.is_file():
        return None
    keys = set(read_json(path))
    for algo, cls in (("ppo", PPOSettings), ("dmc", DMCSettings)):
        if keys == {f.name for f in dataclasses.fields(cls)}:
            return algo
    return None


def _settings(args, fields: dict, settings_class, suffix: str):
    """A new run's settings, or (``--resume``) the saved ones with the allowed flags applied; a new
    run without ``--algo`` starts from the game's recipe."""
    players = fields.get("players")
    out = args.out or f"runs/{args.game}-{'-'.join(map(str, players)) if players else 'default'}p{suffix}"
    if args.resume:
        from cardzoo.training.common.settings import resume_settings

        settings = resume_settings(settings_class, out, fields)
        if settings.game != settings_class(game=args.game).game:
            raise UserError(f"{out} holds a {settings.game} run, not {args.game}")
        return settings
    try:
        return settings_class(game=args.game, out=out, **{**getattr(args, "recipe", {}), **fields})
    except TypeError as e:
        raise UserError(str(e)) from None


def _run_dmc(args, given: dict) -> int:
    """Deep Monte-Carlo over complete moves (cardzoo.training.dmc.trainer)."""
    bad = [k for k in given if k not in _DMC_FLAGS]
    if bad:
        owner = "sb3" if bad[0] in _SB3_ONLY else "rllib" if bad[0] in _RLLIB_ONLY else "ppo"
        hint = ", the game's default trainer: name --algo to choose another" if args.recipe else ""
        raise UserError(f"--{bad[0].replace('_', '-')} is not a flag of --algo dmc{hint} (it is one of --algo {owner})")
    from cardzoo.training.dmc.trainer import DMCSettings, train

    fields = {("matches_per_worker" if k == "matches" else k): v for k, v in given.items()}
    for key in ("players", "hidden"):
        if key in fields:
            fields[key] = parse_int_list(fields[key], f"--{key}")
    settings = _settings(args, fields, DMCSettings, suffix="-dmc")
    train(settings, resume=args.resume, progress=not args.no_progress, ray=args.ray)
    return 0


def _run_rllib(args, given: dict) -> int:
    """Multi-agent PPO on Ray RLlib; the result is a cardzoo checkpoint (training/integrations).

    Bad input is refused before Ray is imported, so it is one line even where Ray is not installed."""
    from cardzoo.training.integrations.rllib_train import RLlibSettings, check_out_dir, train_rllib

    allowed = {"players", "seed", "lr", "ent", "variants", "eval_games", "batch", *_RLLIB_ONLY}
    bad = [k for k in given if k not in allowed]
    if bad:
        raise UserError(f"--{bad[0].replace('_', '-')} is not a flag of --algo rllib")
    if args.resume:
        raise UserError("--algo rllib runs are not resumable; start a new one with another --out")
    fields = {{"lr": "learning_rate", "ent": "entropy"}.get(k, k): v for k, v in given.items()}
    if "players" in fields:
        counts = parse_int_list(fields["players"], "--players")
        if len(counts) != 1:
            raise UserError("--algo rllib trains one player count at a time")
        fields["players"] = counts[0]
    if "batch" in fields:  # minibatches of 256, fewer when the batch is smaller
        fields["minibatch"] = min(256, fields["batch"]) if fields["batch"] > 0 else 256
    settings = RLlibSettings(game=args.game, out=args.out, **fields)
    check_out_dir(settings)
    try:
        import ray
        import ray.rllib  # noqa: F401  (Ray core alone, the `ray` extra, has no RLlib dependencies)
    except ImportError:
        raise UserError("--algo rllib needs Ray RLlib, which pins its own gymnasium: install cardzoo with the "
                        "rllib extra in a separate venv (pip install \"cardzoo[rllib]\"; in a source checkout "
                        "`make integrations-venv`, then .venv-integrations/bin/cardzoo; docs/integrations.md)") from None
    try:
        train_rllib(settings)
    finally:
        if ray.is_initialized():
            ray.shutdown()
    return 0


def _run_sb3(args, given: dict) -> int:
    from cardzoo.training.sb3.trainer import TrainSettings, train

    ppo_only = [k for k in given if k in _RLLIB_ONLY or k not in ("players", "steps", "seed", "imitate", "opponents", "eval_every",
                                              "eval_games", "lr", "ent", "variants", "envs", "value_warmup")]
    if ppo_only:
        raise UserError(f"--{ppo_only[0].replace('_', '-')} is a flag of the PPO trainer, not --algo sb3")
    players = given.get("players")
    if players is not None:
        counts = parse_int_list(players, "--players")
        if len(counts) != 1:
            raise UserError("--algo sb3 trains one player count at a time")
        players = counts[0]
    out = args.out or f"runs/{args.game}-{players or 'default'}p-sb3"
    fields = {"players": players, "steps": 200_000, "seed": 0, "envs": 4, "eval_every": 25_000,
              "eval_games": 60, "variants": {}, "imitation_matches": 0,
              "opponents": {"rules": 0.4, "random": 0.1, "snapshot": 0.5}, "learning_rate": 3e-4,
              "ent_coef": 0.01, "value_warmup": 0}
    saved_path = Path(out) / "settings.json"
    if args.resume and saved_path.is_file():  # unspecified flags keep the run's own values
        from cardzoo.training.common.settings import read_json

        saved = read_json(saved_path)
        fields.update({k: saved[k] for k in fields if k in saved})
    renamed = {"imitate": "imitation_matches", "lr": "learning_rate", "ent": "ent_coef"}
    for key, value in given.items():
        fields[renamed.get(key, key)] = value
    if players is not None:
        fields["players"] = players
    if isinstance(fields["opponents"], str):
        fields["opponents"] = parse_weights(fields["opponents"])
    settings = TrainSettings(game=args.game, out=out, snapshot_every=fields["eval_every"], **fields)
    train(settings, resume=args.resume, progress=not args.no_progress)
    return 0


def parse_int_list(text, flag: str) -> tuple[int, ...]:
    """'3,4,5' -> (3, 4, 5); a one-line error otherwise."""
    try:
        values = tuple(int(x) for x in str(text).split(","))
    except ValueError:
        raise UserError(f"{flag} wants integers separated by commas, got {text!r}") from None
    return values


def parse_weights(text: str) -> dict:
    """'rules=0.8,snapshot=0.2' -> {'rules': 0.8, 'snapshot': 0.2}."""
    out = {}
    for part in str(text).split(","):
        key, sep, value = part.partition("=")
        try:
            out[key.strip()] = float(value)
        except ValueError:
            sep = ""
        if not sep:
            raise UserError(f"--opponents wants KIND=WEIGHT,... (kinds rules, random, snapshot), got {part!r}")
    return out
