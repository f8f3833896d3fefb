"""SB3's warm start (``--imitate MATCHES``): a ``MaskableActorCriticPolicy``'s actor cloned from the
rule bot on every decision of MATCHES bot-only matches (cross-entropy over the legal actions).
The matches and the loop are ``cardzoo.training.common.imitation``'s.
"""

from __future__ import annotations

import torch

from cardzoo.training.common.imitation import accuracy, action_samples, fit, numbered_matches


def clone_rule_bot(
    policy, game: str, env_kwargs: dict, matches: int, epochs: int = 4, seed: int = 0, log=print
) -> float:
    """Train ``policy``'s actor to imitate the rule bot in the env of ``env_kwargs``; returns how
    often its best action is the bot's."""
    variants = dict(env_kwargs)
    players = (variants.pop("num_players"),)
    plans = numbered_matches(players, matches, seed, reset_seeds=True)
    obs, masks, actions, _ = action_samples(game, variants, plans, every=True)
    device = policy.device

    def loss_of(idx):
        o = torch.as_tensor(obs[idx], device=device)
        a = torch.as_tensor(actions[idx], device=device)
        dist = policy.get_distribution(o, action_masks=torch.as_tensor(masks[idx], device=device))
        hits = int((dist.distribution.logits.argmax(dim=1) == a).sum())
        return -dist.log_prob(a).mean(), hits

    fit(policy.parameters(), len(actions), loss_of, epochs=epochs, batch_size=256, lr=1e-3, seed=seed, log=log)
    return accuracy(loss_of, len(actions))
