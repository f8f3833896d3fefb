"""Behaviour cloning from the rule bot: a warm start for self-play training.

PPO from scratch spends most of a short run learning what the rule bot already knows (lead low,
keep the 2s, take the points). Cloning the bot first — on decisions from bot-vs-bot matches,
cross-entropy over the legal actions — starts PPO at the bot's level, and self-play improves
from there.
"""

from __future__ import annotations

import numpy as np
import torch

from envs.registry import game_module


def rule_bot_decisions(game: str, env_kwargs: dict, matches: int, seed: int = 0):
    """(observations, masks, actions) of every decision in rule-bot-only matches."""
    module = game_module(game)
    env = module.raw_env(**env_kwargs)
    obs_rows, mask_rows, actions = [], [], []
    for m in range(matches):
        env.reset(seed=seed * 100_003 + m)
        bots = [module.RuleBot(env.config, seed=seed + 31 * m + s) for s in range(env.num_players)]
        for agent in env.agent_iter():
            _, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            obs = env.observe(agent)
            action = bots[env.agent_seat[agent]].act(obs["observation"], obs["action_mask"])
            obs_rows.append(obs["observation"])
            mask_rows.append(obs["action_mask"])
            actions.append(action)
            env.step(action)
    return np.asarray(obs_rows, np.float32), np.asarray(mask_rows, bool), np.asarray(actions, np.int64)


def clone_rule_bot(policy, game: str, env_kwargs: dict, matches: int, epochs: int = 4, batch_size: int = 256,
                   lr: float = 1e-3, seed: int = 0, log=print) -> float:
    """Train an SB3 MaskableActorCriticPolicy's actor to imitate the rule bot; returns the final
    accuracy on the cloned decisions (how often the policy's best action is the bot's)."""
    obs, masks, actions = rule_bot_decisions(game, env_kwargs, matches, seed)
    n = len(actions)
    opt = torch.optim.Adam(policy.parameters(), lr=lr)
    rng = np.random.default_rng(seed)
    device = policy.device
    for epoch in range(epochs):
        order = rng.permutation(n)
        total = 0.0
        for start in range(0, n, batch_size):
            idx = order[start:start + batch_size]
            o = torch.as_tensor(obs[idx], device=device)
            a = torch.as_tensor(actions[idx], device=device)
            m = torch.as_tensor(masks[idx], device=device)
            _, log_prob, _ = policy.evaluate_actions(o, a, action_masks=m)
            loss = -log_prob.mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        log(f"imitation epoch {epoch + 1}/{epochs}: loss {total / n:.3f} on {n} rule-bot decisions")
    with torch.no_grad():
        hits = 0
        for start in range(0, n, 4096):
            o = torch.as_tensor(obs[start:start + 4096], device=device)
            m = torch.as_tensor(masks[start:start + 4096], device=device)
            dist = policy.get_distribution(o, action_masks=m.cpu().numpy())
            best = dist.distribution.probs.argmax(dim=1).cpu().numpy()
            hits += int((best == actions[start:start + 4096]).sum())
    return hits / max(n, 1)
