"""`cardzoo demo`: the main job in a few minutes — train briefly, evaluate against the baselines,
then show the trained agent playing a match against the rule bots."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from cardzoo.envs.errors import UserError
from cardzoo.envs.registry import DEFAULT_PLAYERS, PLAYER_COUNTS, game_module
from cardzoo.scripts.eval_cmd import MAX_GAMES
from cardzoo.training.agents.shipped import shipped_model_file
from cardzoo.training.agents.specs import make_agent

DEMO_MARK = ".cardzoo-demo"  # written into each run directory a demo makes: only such a folder is reused
# what a demo's training run writes into its folder (cardzoo.training.common.run_dir), replaced by the next demo
DEMO_WRITES = (
    "settings.json",
    "state",
    "pool",
    "checkpoints",
    "warm_start",
    "tb",
    "final.safetensors",
    "final.json",
    "learning_curve.png",
    "learning_curve.tmp.png",
)


def register(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("demo", help="train briefly, evaluate against random and the rule bot, show a game")
    p.add_argument("--game", default="siantappo", help="siantappo, suipi or samsip (default siantappo)")
    p.add_argument("--players", type=int, default=None, help="number of players (default: the game's usual)")
    p.add_argument(
        "--steps",
        type=int,
        default=150_000,
        help="samples (real choices) to train on after the warm start (default 150000; with the "
        "warm start about a minute on 2 cores)",
    )
    p.add_argument("--games", type=int, default=48, help=f"evaluation games, 1..{MAX_GAMES:,} (default 48)")
    p.add_argument(
        "--out",
        default="runs/demo",
        help="run directory: a new or empty folder, or one an earlier demo made, whose run is "
        "replaced (default runs/demo); any other folder is refused",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of training, evaluation and the shown match")
    p.add_argument("--quiet", action="store_true", help="do not print the shown match move by move")
    return p


def run(args) -> int:
    module = game_module(args.game)
    game = module.GAME
    players = DEFAULT_PLAYERS[game] if args.players is None else args.players  # --players 0 is refused, not the default
    if players not in PLAYER_COUNTS[game]:
        raise UserError(f"{game} is played by {', '.join(map(str, PLAYER_COUNTS[game]))} players, not {players}")
    if not 1 <= args.games <= MAX_GAMES:  # checked before training, not after it
        raise UserError(f"--games must be 1..{MAX_GAMES:,}, got {args.games}")
    if args.steps < 1:
        raise UserError(f"--steps must be >= 1, got {args.steps}")
    final = _train(args, game, players)
    shipped = shipped_model_file(game, players) is not None
    _evaluate(args, game, players, final, shipped)
    _show_match(args, module, players, final, shipped)
    return 0


def _train(args, game: str, players: int) -> Path:
    """Step 1: the game's own training route (cardzoo.training.recipes), in miniature: a shorter
    warm start and run, no evaluations during training (step 2 is the evaluation). A run this short
    takes small steps: at Adam 1e-4 its first 150k samples undo the warm start (Siantappo: -2.3 per
    match against the rule bot, 48 games), at 3e-5 it keeps the rule bot's play it copied."""
    from cardzoo.training.dmc.trainer import DMCSettings, train
    from cardzoo.training.recipes import recipe

    out = Path(args.out)
    _fresh_out(out)
    route = {k: v for k, v in recipe(game).settings.items() if k in ("imitate_from", "returns", "selfplay", "reuse")}
    route["lr"] = min(recipe(game).settings.get("lr", 3e-5), 3e-5)
    print(
        f"== 1/3 Training a {game} move ranker: a warm start on 100 bot-only matches, then Deep Monte-Carlo "
        f"self-play for {args.steps:,} samples ({players} players) =="
    )
    settings = DMCSettings(
        game=game,
        players=(players,),
        steps=args.steps,
        out=str(out),
        seed=args.seed,
        imitate=100,
        eval_games=0,
        **route,
    )
    return train(settings, progress=True)


def _fresh_out(out: Path) -> None:
    """Make ``out`` ready for a new demo run. An earlier demo's folder (it holds ``DEMO_MARK``) loses
    the run a demo writes there and nothing else; any other folder that is not empty is refused, so
    a demo never deletes a training run or a user's own files."""
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out} is a file, not a folder")
    try:
        if out.is_dir() and any(out.iterdir()):
            if not (out / DEMO_MARK).is_file():
                raise UserError(
                    f"--out {out} is not empty and was not made by `cardzoo demo`: give a new or empty folder"
                )
            for name in DEMO_WRITES:
                path = out / name
                if path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path)
                elif path.exists() or path.is_symlink():
                    path.unlink()
        out.mkdir(parents=True, exist_ok=True)
        (out / DEMO_MARK).write_text("made by `cardzoo demo`: a later demo with this --out replaces its run\n")
    except OSError as e:
        raise UserError(f"cannot use --out {out} ({e.strerror or e})") from None


def _evaluate(args, game: str, players: int, final: Path, shipped: bool) -> None:
    """Step 2: one head-to-head tournament per opponent (the trained agent against that opponent
    alone, as `cardzoo eval --agents CKPT,rules` measures it): a field of all of them would seat
    random players at every table, where a ranker warm-started on rule-bot matches has seen little."""
    from cardzoo.training.evaluation.report import print_report
    from cardzoo.training.evaluation.tournament import run_tournament

    opponents = ["rules", "model", "random"] if shipped else ["rules", "random"]  # model: trained for much longer
    print(
        f"\n== 2/3 Evaluating against {', '.join(opponents)} ({args.games} games each, seats rotated, "
        f"duplicate deals) =="
    )
    for opponent in opponents:
        result = run_tournament(
            game, [str(final), opponent], players=players, games=args.games, seed=args.seed, workers=2, progress=True
        )
        report = result.report()
        print_report(report)
        pair = report["pairs"][0]
        if opponent == "rules" and pair["advantage"] == 0 and pair["advantage_ci"] == [0, 0]:
            print(
                "Level in every game: the trained agent made the rule bot's move wherever these matches asked it "
                "to choose. The warm start copies the bot, and a run this short keeps close to what it copied."
            )
    print(f"A first model that beats the rule bot: `cardzoo train {game}` (about 15 minutes; docs/training.md).")


def _show_match(args, module, players: int, final: Path, shipped: bool) -> None:
    """Step 3: one match of the trained agent against rule bots, move by move (``--quiet``: the result)."""
    game = module.GAME
    print("\n== 3/3 The trained agent (player_0) against rule bots ==")
    env = module.raw_env(num_players=players, render_mode="ansi")
    env.reset(seed=args.seed)
    seats = [make_agent(str(final), module, env.config)] + [
        module.RuleBot(env.config, seed=args.seed + i) for i in range(1, players)
    ]
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = seats[env.agent_seat[agent]].act(obs["observation"], obs["action_mask"])
        if not args.quiet:
            print(env.render())
            print(f"{agent} plays: {env.action_text(action)}\n")
        env.step(action)
        for a, r in env.rewards.items():
            totals[a] += r
    print(env.render())
    print(f"\nMatch result ({game}, {players} players, seed {args.seed}): total reward per seat")
    for a in env.possible_agents:
        who = "trained" if a == "player_0" else "rules"
        print(f"  {a:<10} {who:<8} {totals[a]:+.2f}")
    seats_text = ",".join(["human", str(final)] + ["rules"] * (players - 2))
    print(f"\nPlay against it:  cardzoo play {game} --seats {seats_text}")
    if shipped:
        print(
            f"Play against the shipped model:  cardzoo play {game} --seats "
            + ",".join(["human"] + ["model"] * (players - 1))
        )
