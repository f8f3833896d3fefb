"""How well the belief-aware expert's model of the other players fits the shipped model's play:
the mean log-probability of the model's real moves (its own seats, the true hands) under the rule
bot's scores softened, ``(1 - EPSILON) * softmax(-SOFTNESS * score) + EPSILON / moves``, over a
grid of the two constants (``cardzoo.training.agents.belief``).

The model plays every seat of ``--games`` matches; at the last move of each round before the hands
are dealt again, the round is replayed on the true engine (``round_replay``), and each move with
a choice counts once. The constants in ``belief.py`` are the best cell, within noise, of both games.

Command: ``python experiments/belief_fit.py siantappo --players 4 --games 12`` (and ``suipi
--players 2 --games 15``; docs/evaluation.md, "Belief-aware search")
"""

from __future__ import annotations

import argparse
import math

from cardzoo.envs.registry import game_spec
from cardzoo.training.agents import belief
from cardzoo.training.agents.specs import make_agent

SOFTNESSES = (0.25, 0.5, 1.0, 2.0, 3.0, 5.0)
EPSILONS = (0.02, 0.05, 0.1, 0.2, 0.3)


def _round_id(engine) -> tuple:
    return tuple(getattr(engine, name, None) for name in ("round_index", "deal_index", "round"))


def model_moves(game: str, players: int, games: int, seed: int) -> list[tuple[list[float], int]]:
    """(the rule bot's scores of the legal moves, the index of the model's move) of every move
    with a choice of the model's self-play, as replayed at each round's end."""
    module = game_spec(game).module
    env = module.raw_env(num_players=players)
    scorer, model = module.RuleBot(env.config, seed=0), make_agent("model", module, env.config, seed=seed)
    out: list[tuple[list[float], int]] = []
    for g in range(games):
        env.begin(seed + g)
        while not env.engine.done:
            before = env.engine.clone()
            seat = env.engine.acting_seat
            env.advance(model.act(env.encode_seat(seat), env.mask_now()))
            if env.engine.done or _round_id(env.engine) != _round_id(before):
                for state, mover, legal, chosen in before.round_replay(-1):
                    if len(legal) > 1:
                        out.append((scorer.seat_scores(state, mover, legal), chosen))
    return out


def fit(moves: list[tuple[list[float], int]]) -> dict[tuple[float, float], float]:
    """The mean log-probability of the moves at every cell of the grid."""
    table = {}
    for softness in SOFTNESSES:
        for epsilon in EPSILONS:
            belief.SOFTNESS, belief.EPSILON = softness, epsilon
            table[softness, epsilon] = sum(math.log(belief.move_probability(s, i)) for s, i in moves) / len(moves)
    return table


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("game", choices=["siantappo", "suipi"])
    p.add_argument("--players", type=int, required=True)
    p.add_argument("--games", type=int, default=12)
    p.add_argument("--seed", type=int, default=500)
    args = p.parse_args(argv)
    moves = model_moves(args.game, args.players, args.games, args.seed)
    table = fit(moves)
    print(f"{args.game} {args.players}p: {len(moves)} moves with a choice; mean log-probability")
    print("softness \\ epsilon " + " ".join(f"{e:>7}" for e in EPSILONS))
    for softness in SOFTNESSES:
        print(f"{softness:>18} " + " ".join(f"{table[softness, e]:7.3f}" for e in EPSILONS))
    best = max(table, key=table.__getitem__)
    print(f"best: softness {best[0]}, epsilon {best[1]} ({table[best]:.3f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
