"""Would PPO's collector lose speed as a client of ``cardzoo.vector``? Its self-play collection beside
the same collection written over ``cardzoo.vector.SelfPlay``, alternated in one process.

    python -m cardzoo.benchmarks.collector_vs_vector siantappo 4 --runs 3

Both sides play pure self-play (every seat the learner, the collector's most common match) at 64
tables with the same 256-256 actor-critic: one batched forward pass per tick over every table that
has a choice, a move sampled from each masked policy, a row recorded per decision and its reward
filled in as it comes. The collector (``training/ppo/collector.py``) steps the envs itself; the
client steps ``SelfPlay(play_forced=True)`` and keeps one open row per (table, seat) as
docs/own-trainer.md describes. Each side collects 8,192 samples (one worker's share of PPO's default
16,384 over 2 workers); the collector then finishes the matches it has begun (whole episodes, its
design), the client stops (SelfPlay's tables cannot pause: finishing would cost it moves nobody
uses). Each side is timed in CPU seconds (``time.process_time``, so a busy machine slows both alike),
decisions are every move, forced ones included, and the ratio is the client's decisions per CPU
second over the collector's, the median of the runs.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import torch

import cardzoo.vector
from cardzoo.envs.registry import game_spec
from cardzoo.training.ppo.actor_critic import ActorCritic
from cardzoo.training.ppo.collector import Collector, CollectRequest

TABLES = 64
HIDDEN = (256, 256)


def collector_rate(game: str, players: int, weights: dict, samples: int, seed: int) -> float:
    env = game_spec(game).raw_env(num_players=players)
    collector = Collector(game, (players,), {}, TABLES, lambda: ActorCritic(env.obs_size, env.num_actions, HIDDEN))
    request = CollectRequest(weights, (seed,), samples, 1.0, {"rules": 1.0})
    start = time.process_time()
    rollout = collector.collect(request)
    return rollout.decisions / (time.process_time() - start)


def client_rate(game: str, players: int, weights: dict, samples: int, seed: int) -> float:
    sp = cardzoo.vector.SelfPlay(game, TABLES, num_players=players, seed=seed, play_forced=True)
    net = ActorCritic(sp.tables.obs_size, sp.tables.num_actions, HIDDEN)
    net.load_state_dict({k: torch.as_tensor(v) for k, v in weights.items()})
    net.eval()
    rng = np.random.default_rng(seed)
    rows: dict[str, list] = {k: [] for k in ("obs", "masks", "actions", "logprobs", "values")}
    rewards: list[float] = []
    dones: list[bool] = []
    pending: dict[tuple[int, int], int] = {}  # (table, seat) -> its open row
    start = time.process_time()
    turn = sp.reset()
    moves0 = sp.tables.moves
    with torch.no_grad():
        while len(rewards) < samples:
            mask = turn.action_mask.astype(bool)
            logits, value = net(torch.from_numpy(turn.observation))
            logp = torch.log_softmax(logits.masked_fill(~torch.from_numpy(mask), -1e9), dim=1).numpy()
            cum = np.cumsum(np.exp(logp), axis=1, dtype=np.float64)
            acts = np.minimum((cum > (rng.random(len(mask)) * cum[:, -1])[:, None]).argmax(axis=1), mask.shape[1] - 1)
            for key, part in zip(rows, (turn.observation, mask, acts, logp[np.arange(len(acts)), acts], value.numpy())):
                rows[key].append(part.copy())
            for i, seat in enumerate(turn.seat.tolist()):
                pending[i, seat] = len(rewards)
                rewards.append(0.0)
                dones.append(False)
            turn = sp.step(acts)
            for i, seat in enumerate(turn.seat.tolist()):  # the acting seat's previous row is closed
                row = pending.get((i, seat))
                if row is not None and not turn.done[i]:
                    rewards[row] += turn.rewards[i, seat]
            for i, s in zip(*np.nonzero(turn.ended)):  # and every seat whose match ended
                row = pending.pop((int(i), int(s)), None)
                if row is not None:
                    rewards[row] += turn.rewards[i, s]
                    dones[row] = True
    return (sp.tables.moves - moves0) / (time.process_time() - start)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game")
    parser.add_argument("players", type=int)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--samples", type=int, default=8192)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    torch.manual_seed(0)
    env = game_spec(args.game).raw_env(num_players=args.players)
    weights = {k: v.numpy() for k, v in ActorCritic(env.obs_size, env.num_actions, HIDDEN).state_dict().items()}
    collector_rate(args.game, args.players, weights, 300, 99)  # warm-up of both sides
    client_rate(args.game, args.players, weights, 300, 99)
    ratios = []
    for run in range(args.runs):
        ours = collector_rate(args.game, args.players, weights, args.samples, run)
        client = client_rate(args.game, args.players, weights, args.samples, run)
        ratios.append(client / ours)
        print(
            f"run {run + 1}: collector {ours:,.0f}, SelfPlay client {client:,.0f} decisions per CPU second: "
            f"{client / ours:.2f}x",
            flush=True,
        )
    print(f"{args.game} {args.players}p: the client / the collector = {statistics.median(ratios):.2f}x (median)")


if __name__ == "__main__":
    main()
