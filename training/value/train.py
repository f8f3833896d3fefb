"""Train a game's full-information value network on recorded matches (``cardzoo model value``).

The matches are a duplicate-deal tournament of the given agents (default the shipped model against
the rule bot: the comparison luck adjustment serves most); every state chance made in them (each
slot of ``cardzoo.envs.chance``, as ``LuckTracker`` meets them) is a sample, seen from every seat,
whose target is the reward that seat still earned after it in its hand, deal or round
(``ChanceModel.segment``). A few samples per match are kept
(they are alike within a match). Matches are split 90/10 into training and validation; the epoch
with the lowest validation error is kept, and its error is written into the sidecar.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import torch

from cardzoo.envs.config import config_dict
from cardzoo.envs.errors import UserError
from cardzoo.training.agents.checkpoint import checkpoint_paths, save_checkpoint
from cardzoo.training.agents.specs import parse_agent_spec
from cardzoo.training.agents.value import ValueNet
from cardzoo.training.evaluation.luck import chance_model
from cardzoo.training.evaluation.runner import Runner, Setup
from cardzoo.training.evaluation.schedule import schedule, sides_for

SAMPLES_PER_MATCH = 32  # states kept per match (they are alike within one)


@dataclass(frozen=True)
class ValueSettings:
    game: str
    players: int
    out: str
    agents: tuple[str, ...] = ("model", "rules")
    matches: int = 400
    hidden: tuple[int, ...] = (32,)
    activation: str = "linear"
    epochs: int = 30
    seed: int = 0
    force: bool = False


def train_value(s: ValueSettings, say=print) -> dict:
    """Record the matches, fit the network, save it to ``s.out`` (.safetensors + .json); returns
    the sidecar's evaluation (validation error, variance of the targets)."""
    model = chance_model(s.game, s.players)
    if model is None:
        raise UserError(f"{s.game} declares no chance model: it has no luck to adjust")
    weights, sidecar = checkpoint_paths(s.out)
    if not s.force and (weights.exists() or sidecar.exists()):
        raise UserError(f"{weights} exists: choose another --out, or --force to replace it")
    started = time.time()
    runner, data = _record(s, model, say)
    say(f"{len(data[0]):,} states from {s.matches} matches in {time.time() - started:.0f} s; fitting")
    net, evaluation = _fit(s, model, *data)
    meta = {
        "game": runner.module.GAME,
        "env": f"{runner.module.GAME}_v0",
        "player_counts": [s.players],
        "config": config_dict(runner.env.config),
        "algorithm": "full-information value network (regression on recorded matches) for luck-adjusted evaluation",
        "opponent_pool": f"recorded: {', '.join(s.agents)} (duplicate deals), {s.matches} matches",
        "training_steps": len(data[0]),
        "seed": s.seed,
        "evaluation": evaluation,
    }
    save_checkpoint(s.out, net, meta)
    return evaluation


def _record(s: ValueSettings, model, say):
    """(runner, (codes, numbers, targets, match ids)) of the recorded matches."""
    specs = tuple(parse_agent_spec(a) for a in s.agents)
    sides = sides_for(s.game, s.players)
    setup = Setup(s.game, s.players, {}, specs, tuple(sp.text for sp in specs), sides, s.seed, False)
    runner = Runner(setup)
    runner.check_agents()
    _, tasks = schedule(s.matches, len(specs), len(sides), None, True)
    rng = np.random.default_rng(s.seed)
    locs, ctxs, targets, ids = [], [], [], []
    for k, (deal, index, lineup) in enumerate(tasks[: s.matches]):
        states, wanted = runner.record(deal, index, lineup, model)
        for i in rng.permutation(len(states))[:SAMPLES_PER_MATCH]:
            locs.append(states[i][0])
            ctxs.append(states[i][1])
            targets.append(wanted[i])
            ids.append(k)
        if (k + 1) % max(1, s.matches // 10) == 0:
            say(f"  recorded {k + 1} of {s.matches} matches")
    return runner, (np.stack(locs), np.stack(ctxs), np.stack(targets), np.asarray(ids))


def _fit(s: ValueSettings, model, loc, ctx, targets, ids) -> tuple[ValueNet, dict]:
    """Every state from every seat's view; the best epoch on the held-out matches."""
    torch.manual_seed(s.seed)
    torch.set_num_threads(1)  # a small network: more threads only contend for the cores
    views = [model.seat_view(loc, ctx, seat) for seat in range(model.n)]
    codes = torch.as_tensor(np.concatenate([v[0] for v in views]), dtype=torch.long)
    numbers = torch.as_tensor(np.concatenate([v[1] for v in views]), dtype=torch.float32)
    y = torch.as_tensor(targets.T.reshape(-1), dtype=torch.float32)
    held = np.tile(ids % 10 == 9, model.n)
    train, val = np.flatnonzero(~held), np.flatnonzero(held)
    net = ValueNet(model.deck, model.codes, model.numbers, list(s.hidden), s.activation)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    best, best_state = math.inf, None
    order = np.random.default_rng(s.seed)
    for _ in range(s.epochs):
        net.train()
        for batch in np.array_split(order.permutation(train), max(1, len(train) // 512)):
            loss = torch.nn.functional.mse_loss(net(codes[batch], numbers[batch]), y[batch])
            opt.zero_grad()
            loss.backward()
            opt.step()
        net.eval()
        with torch.no_grad():
            err = float(torch.nn.functional.mse_loss(net(codes[val], numbers[val]), y[val]))
        if err < best:
            best, best_state = err, {k: v.clone() for k, v in net.state_dict().items()}
    assert best_state is not None
    net.load_state_dict(best_state)
    variance = float(y[val].var())
    return net, {
        "validation_mse": best,
        "target_variance": variance,
        "validation_r2": 1.0 - best / variance if variance > 0 else 0.0,
        "states": len(loc),
        "matches": int(ids.max() + 1),
    }
