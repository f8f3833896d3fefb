"""Masked PPO on Siantappo (4 players) against the rule bots, in one file, through cardzoo.vector.

    python examples/ppo_vector.py                 # the full run
    python examples/ppo_vector.py --short         # a few seconds: the pipeline works (CI runs this)
    python examples/ppo_vector.py --help          # every setting below is a flag

CleanRL's PPO, with the action mask applied to the logits. The learner holds seat 0 of each of
``num_envs`` tables; the rule bots play the other seats inside ``envs.step``, so every reward is
everything seat 0 earned since its previous decision; a move without a choice is played for it
(``play_forced``), so every decision is a real one. Autoreset is same-step: the observation after a
match's last step is already the next match's, ``terminated`` marks the boundary.
"""

import argparse
import dataclasses
import time
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn

import cardzoo.vector


@dataclass
class Settings:
    game: str = "siantappo"
    players: int = 4
    opponents: str = "rules"  # any agent spec: random, rules, model, a checkpoint path
    num_envs: int = 64  # tables stepped together
    num_steps: int = 64  # decisions per table per rollout
    total_decisions: int = 1_000_000
    learning_rate: float = 3e-4
    gamma: float = 1.0  # a match is short and its reward is what counts
    gae_lambda: float = 0.95
    update_epochs: int = 4
    num_minibatches: int = 4
    clip_coef: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: int = 256
    eval_matches: int = 200  # matches against the opponents at the end, greedy
    seed: int = 1
    threads: int = 1  # torch threads: small batches run fastest on one
    short: bool = False  # a few seconds: tiny batches, a few updates, a short evaluation

    def __post_init__(self):
        if self.short:
            self.num_envs, self.num_steps, self.total_decisions, self.eval_matches = 16, 32, 1024, 8


def parse_settings() -> Settings:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for f in dataclasses.fields(Settings):
        flag = "--" + f.name.replace("_", "-")
        if isinstance(f.default, bool):
            parser.add_argument(flag, action="store_true")
        else:
            parser.add_argument(flag, type=type(f.default), default=f.default, help=f"default {f.default}")
    return Settings(**vars(parser.parse_args()))


class Agent(nn.Module):
    def __init__(self, obs_size: int, num_actions: int, hidden: int):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_size, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())
        self.actor = nn.Linear(hidden, num_actions)
        self.critic = nn.Linear(hidden, 1)

    def value(self, obs):
        return self.critic(self.body(obs)).squeeze(-1)

    def act(self, obs, mask, action=None, greedy=False):
        h = self.body(obs)
        logits = self.actor(h).masked_fill(~mask, -1e9)  # illegal actions get no probability
        dist = torch.distributions.Categorical(logits=logits)
        if action is None:
            action = logits.argmax(-1) if greedy else dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.critic(h).squeeze(-1)


def tensors(obs):
    return torch.from_numpy(obs["observation"]), torch.from_numpy(obs["action_mask"].astype(bool))


def train(s: Settings, envs, agent: Agent) -> float:
    """PPO updates until ``total_decisions``; the learner's decisions per second."""
    optimizer = torch.optim.Adam(agent.parameters(), lr=s.learning_rate, eps=1e-5)
    T, N = s.num_steps, s.num_envs
    obs_buf = torch.zeros((T, N, envs.single_observation_space["observation"].shape[0]))
    mask_buf = torch.zeros((T, N, envs.single_action_space.n), dtype=torch.bool)
    actions, logprobs, rewards, dones, values = (torch.zeros((T, N)) for _ in range(5))
    obs, _ = envs.reset(seed=s.seed)
    next_obs, next_mask = tensors(obs)
    next_done = torch.zeros(N)
    batch = T * N
    minibatch = batch // s.num_minibatches
    start, decisions, running, finished = time.perf_counter(), 0, np.zeros(N), []
    for update in range(1, max(1, s.total_decisions // batch) + 1):
        for t in range(T):
            obs_buf[t], mask_buf[t], dones[t] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.act(next_obs, next_mask)
            actions[t], logprobs[t], values[t] = action, logprob, value
            obs, reward, terminated, truncated, _ = envs.step(action.numpy())
            rewards[t] = torch.from_numpy(reward).float()
            next_obs, next_mask = tensors(obs)
            next_done = torch.from_numpy(terminated | truncated).float()
            running += reward
            ended = np.flatnonzero(terminated | truncated)
            finished += running[ended].tolist()
            running[ended] = 0.0
        decisions += batch
        with torch.no_grad():  # generalized advantage estimation, matches cut at their ends
            next_value = agent.value(next_obs)
            advantages = torch.zeros_like(rewards)
            last = 0.0
            for t in reversed(range(T)):
                not_done = 1.0 - (next_done if t == T - 1 else dones[t + 1])
                following = next_value if t == T - 1 else values[t + 1]
                delta = rewards[t] + s.gamma * following * not_done - values[t]
                advantages[t] = last = delta + s.gamma * s.gae_lambda * not_done * last
            returns = advantages + values
        b_obs, b_mask = obs_buf.reshape(batch, -1), mask_buf.reshape(batch, -1)
        b_act, b_logp, b_adv, b_ret = (x.reshape(-1) for x in (actions, logprobs, advantages, returns))
        for _ in range(s.update_epochs):
            for idx in torch.randperm(batch).split(minibatch):
                _, logp, entropy, value = agent.act(b_obs[idx], b_mask[idx], b_act[idx].long())
                ratio = (logp - b_logp[idx]).exp()
                adv = (b_adv[idx] - b_adv[idx].mean()) / (b_adv[idx].std() + 1e-8)
                pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - s.clip_coef, 1 + s.clip_coef)).mean()
                v_loss = 0.5 * ((value - b_ret[idx]) ** 2).mean()
                loss = pg_loss - s.ent_coef * entropy.mean() + s.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), s.max_grad_norm)
                optimizer.step()
        rate = decisions / (time.perf_counter() - start)
        per_match = f"{np.mean(finished):+.3f}" if finished else "-"
        print(
            f"update {update}: {decisions:,} decisions, {rate:,.0f} decisions/s, {len(finished)} matches, "
            f"reward per match {per_match}",
            flush=True,
        )
        finished = []
    return decisions / (time.perf_counter() - start)


@torch.no_grad()
def evaluate(s: Settings, agent: Agent) -> tuple[float, float, float]:
    """The greedy policy at seat 0 for ``eval_matches`` matches: mean reward, mean place, first places."""
    n = min(s.eval_matches, s.num_envs)
    envs = cardzoo.vector.make(
        s.game, n, num_players=s.players, opponents=s.opponents, seed=s.seed + 10_000, play_forced=True
    )
    obs, _ = envs.reset()
    totals, rewards, places = np.zeros(n), [], []
    while len(places) < s.eval_matches:
        action, *_ = agent.act(*tensors(obs), greedy=True)
        obs, reward, terminated, truncated, info = envs.step(action.numpy())
        totals += reward
        for i in np.flatnonzero(terminated | truncated):
            rewards.append(totals[i])
            places.append(info["final_info"]["ranks"][i][0])
            totals[i] = 0.0
    rewards, places = np.array(rewards[: s.eval_matches]), np.array(places[: s.eval_matches])
    return float(rewards.mean()), float(places.mean()), float((places == 1).mean())


def main() -> None:
    s = parse_settings()
    torch.manual_seed(s.seed)
    torch.set_num_threads(s.threads)
    envs = cardzoo.vector.make(s.game, s.num_envs, num_players=s.players, opponents=s.opponents, play_forced=True)
    agent = Agent(envs.single_observation_space["observation"].shape[0], envs.single_action_space.n, s.hidden)
    rate = train(s, envs, agent)
    reward, place, firsts = evaluate(s, agent)
    print(
        f"trained at {rate:,.0f} decisions/s; against {s.opponents} over {s.eval_matches} matches: "
        f"reward per match {reward:+.3f}, mean place {place:.2f} of {s.players}, first place {firsts:.0%}"
    )


if __name__ == "__main__":
    main()
