"""`cardzoo demo`: the main job in a few seconds — a rule-bot match shown in the terminal."""

from __future__ import annotations

import argparse

from envs.registry import DEFAULT_PLAYERS, game_module


def register(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("demo", help="watch bots play a match in the terminal, then a results table")
    p.add_argument("--game", default="siantappo", help="siantappo, suipi or samsip (default siantappo)")
    p.add_argument("--players", type=int, default=None, help="number of players (default: the game's usual)")
    p.add_argument("--seed", type=int, default=0, help="seed of the match (default 0)")
    p.add_argument("--quiet", action="store_true", help="print only the results table")
    return p


def run(args) -> int:
    module = game_module(args.game)
    players = args.players or DEFAULT_PLAYERS[module.GAME]
    env = module.raw_env(num_players=players, render_mode="ansi")
    env.reset(seed=args.seed)
    bots = [module.RuleBot(env.config, seed=args.seed + i) for i in range(players)]
    totals = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = bots[env.agent_seat[agent]].act(obs["observation"], obs["action_mask"])
        if not args.quiet:
            print(env.render())
            print(f"{agent} plays: {env.action_text(action)}\n")
        env.step(action)
        for a, r in env.rewards.items():
            totals[a] += r
    if not args.quiet:
        print(env.render())
    print(f"\nResults ({module.GAME}, {players} players, seed {args.seed}): total reward per seat")
    print(f"{'seat':<10} {'agent':<8} {'reward':>8}")
    for a in env.possible_agents:
        print(f"{a:<10} {'rules':<8} {totals[a]:>+8.2f}")
    return 0


