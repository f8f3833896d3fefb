"""Behaviour cloning from the rule bot: a warm start for self-play training.

PPO from scratch spends most of a short run learning what the rule bot already knows (lead low,
keep the 2s, take the points). Cloning the bot first — on decisions from bot-vs-bot matches,
cross-entropy over the legal actions — starts PPO at the bot's level, and self-play improves
from there.
"""

from __future__ import annotations

import numpy as np
import torch

from cardzoo.envs.registry import game_module


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


def _fit(params, n: int, loss_of, epochs: int, batch_size: int, lr: float, seed: int, log) -> None:
    """Adam over shuffled minibatches of the n cloned decisions; ``loss_of(indices)`` is the loss."""
    opt = torch.optim.Adam(params, lr=lr)
    rng = np.random.default_rng(seed)
    for epoch in range(epochs):
        order = rng.permutation(n)
        total = 0.0
        for start in range(0, n, batch_size):
            idx = order[start:start + batch_size]
            loss = loss_of(idx)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        log(f"imitation epoch {epoch + 1}/{epochs}: loss {total / max(n, 1):.3f} on {n} rule-bot decisions")


def clone_rule_bot(policy, game: str, env_kwargs: dict, matches: int, epochs: int = 4, batch_size: int = 256,
                   lr: float = 1e-3, seed: int = 0, log=print) -> float:
    """Train an SB3 MaskableActorCriticPolicy's actor to imitate the rule bot; returns the final
    accuracy on the cloned decisions (how often the policy's best action is the bot's)."""
    obs, masks, actions = rule_bot_decisions(game, env_kwargs, matches, seed)
    n = len(actions)
    device = policy.device

    def loss_of(idx):
        o = torch.as_tensor(obs[idx], device=device)
        a = torch.as_tensor(actions[idx], device=device)
        m = torch.as_tensor(masks[idx], device=device)
        _, log_prob, _ = policy.evaluate_actions(o, a, action_masks=m)
        return -log_prob.mean()

    _fit(policy.parameters(), n, loss_of, epochs, batch_size, lr, seed, log)
    with torch.no_grad():
        hits = 0
        for start in range(0, n, 4096):
            o = torch.as_tensor(obs[start:start + 4096], device=device)
            m = torch.as_tensor(masks[start:start + 4096], device=device)
            dist = policy.get_distribution(o, action_masks=m.cpu().numpy())
            best = dist.distribution.probs.argmax(dim=1).cpu().numpy()
            hits += int((best == actions[start:start + 4096]).sum())
    return hits / max(n, 1)


# ------------------------------------------------------------- warm start for the PPO trainer
def rule_bot_episodes(game: str, players, variants: dict, matches: int, seed: int = 0):
    """Every choice (more than one legal action) of rule-bot-only matches, with the return that
    followed it: (observations, masks, actions, returns). Played through the envs' fast path."""
    from cardzoo.envs.registry import game_spec

    module = game_spec(game).module
    envs = {n: module.raw_env(num_players=n, **variants) for n in players}
    obs_rows, mask_rows, actions, start_totals, seats, match_of = [], [], [], [], [], []
    finals = []
    for m in range(matches):
        n = list(players)[m % len(players)]
        env = envs[n]
        env.begin(seed * 100_003 + m)
        bots = [module.RuleBot(env.config, seed=seed + 31 * m + s) for s in range(n)]
        totals = [0.0] * n
        while True:
            seat = env.acting_seat
            legal = env.legal_now()
            mask = env.mask_now()
            obs = env.encode_seat(seat)
            action = int(bots[seat].act(obs, mask))
            if len(legal) > 1:
                obs_rows.append(obs)
                mask_rows.append(mask.astype(bool))
                actions.append(action)
                start_totals.append(totals[seat])
                seats.append(seat)
                match_of.append(m)
            out = env.advance(action)
            for s, r in out.rewards.items():
                totals[s] += r
            if out.done or getattr(out, "truncated", False):
                break
        finals.append(totals)
    returns = [finals[m][s] - t for m, s, t in zip(match_of, seats, start_totals)]
    return (np.asarray(obs_rows, np.float32), np.asarray(mask_rows, bool), np.asarray(actions, np.int64),
            np.asarray(returns, np.float32))


def clone_into(net, game: str, players, variants: dict, matches: int, epochs: int = 8, batch_size: int = 512,
               lr: float = 1e-3, seed: int = 0, log=print) -> float:
    """Fit an ``ActorCritic`` to the rule bot: its actor by cross-entropy over the legal actions,
    its value head to the returns that followed (so PPO starts with a critic that knows the
    cloned policy's values, and its first advantages do not undo the cloning). Returns how often
    the net's best action is the bot's."""
    obs, masks, actions, returns = rule_bot_episodes(game, players, variants, matches, seed)
    n = len(actions)
    o_all, m_all = torch.from_numpy(obs), torch.from_numpy(masks)
    a_all, r_all = torch.from_numpy(actions), torch.from_numpy(returns)

    def loss_of(idx):
        idx = torch.from_numpy(idx)
        logits, value = net(o_all[idx])
        logp = torch.log_softmax(logits.masked_fill(~m_all[idx], -1e9), dim=1)
        return torch.nn.functional.nll_loss(logp, a_all[idx]) + 0.5 * (value - r_all[idx]).pow(2).mean()

    _fit(net.parameters(), n, loss_of, epochs, batch_size, lr, seed, log)
    with torch.no_grad():
        hits = 0
        for start in range(0, n, 8192):
            logits, _ = net(o_all[start:start + 8192])
            best = logits.masked_fill(~m_all[start:start + 8192], -1e9).argmax(1).numpy()
            hits += int((best == actions[start:start + 8192]).sum())
    return hits / max(n, 1)
