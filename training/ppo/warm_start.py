"""PPO's warm start (``--imitate MATCHES``): the actor-critic fitted to the rule bot before self-play.

The actor learns the bot's action at every choice of MATCHES bot-only matches (cross-entropy over
the legal actions) and the value head the return that followed, so PPO starts at the bot's level
with a critic that knows that policy's values, and its first advantages do not undo the cloning.
The matches and the loop are ``cardzoo.training.common.imitation``'s.
"""

from __future__ import annotations

import torch

from cardzoo.training.common.imitation import accuracy, action_samples, fit, numbered_matches


def clone_rule_bot(
    net, game: str, players, variants: dict, matches: int, seed: int = 0, epochs: int = 8, log=print
) -> float:
    """Fit the ``ActorCritic`` ``net`` to the rule bot; returns how often its best action is the bot's."""
    obs, masks, actions, returns = action_samples(game, variants, numbered_matches(players, matches, seed))
    o_all, m_all = torch.from_numpy(obs), torch.from_numpy(masks)
    a_all, r_all = torch.from_numpy(actions), torch.from_numpy(returns)

    def loss_of(idx):
        idx = torch.from_numpy(idx)
        logits, value = net(o_all[idx])
        logp = torch.log_softmax(logits.masked_fill(~m_all[idx], -1e9), dim=1)
        hits = int((logp.argmax(1) == a_all[idx]).sum())
        return torch.nn.functional.nll_loss(logp, a_all[idx]) + 0.5 * (value - r_all[idx]).pow(2).mean(), hits

    fit(net.parameters(), len(actions), loss_of, epochs=epochs, batch_size=512, lr=1e-3, seed=seed, log=log)
    return accuracy(loss_of, len(actions))
