"""How much narrower luck adjustment makes a verdict: one duplicate-deal tournament of two agents
with the game's value network, and from the same games the raw and the luck-adjusted head-to-head
interval; their width ratio (adjusted / raw, at equal games), and where the luck was: the
variance of the per-deal advantage, raw and adjusted, and of each source's share of the
corrections (the first deal, stock draws, later deals and rounds, known policies).

Command: ``python experiments/luck_width.py samsip --players 4 --games 400 --seed 6161 --json out.json``
(docs/evaluation.md, "Luck adjustment").
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from cardzoo.training.evaluation.luck import SOURCES
from cardzoo.training.evaluation.tournament import run_tournament


def measure(game: str, players: int, games: int, seed: int, agents: str, workers: int) -> dict:
    res = run_tournament(
        game, agents.split(","), players=players, games=games, seed=seed, workers=workers, adjust="luck"
    )
    pair = res.report()["pairs"][0]
    raw, adjusted = (np.diff(pair[k])[0] for k in ("advantage_ci", "adjusted_advantage_ci"))
    per_deal: dict[int, list[np.ndarray]] = {}
    for g in res.games:
        assert g.adjusted_rewards is not None and g.luck_sources is not None
        rows = [g.seat_rewards, g.adjusted_rewards] + [g.luck_sources[k] for k in SOURCES]
        ab = []
        for seat_values in rows:
            fake = type(g)(g.deal, g.index, g.lineup, list(seat_values), g.side_scores, g.steps)
            r = fake.entrant_rewards(res.sides)
            ab.append(r[0] - r[1])
        per_deal.setdefault(g.deal, []).append(np.asarray(ab))
    deals = np.array([np.mean(v, axis=0) for v in per_deal.values()])
    var = deals.var(axis=0, ddof=1)
    return {
        "game": game,
        "players": players,
        "agents": agents,
        "games": len(res.games),
        "deals": len(deals),
        "seed": seed,
        "value_network": res.value,
        "advantage": pair["advantage"],
        "advantage_ci": pair["advantage_ci"],
        "adjusted_advantage": pair["adjusted_advantage"],
        "adjusted_advantage_ci": pair["adjusted_advantage_ci"],
        "width_ratio": float(adjusted / raw),
        "variance_per_deal": {"raw": float(var[0]), "adjusted": float(var[1])}
        | {f"corrections: {k}": float(v) for k, v in zip(SOURCES, var[2:])},
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("game")
    p.add_argument("--players", type=int, required=True)
    p.add_argument("--games", type=int, default=400)
    p.add_argument("--seed", type=int, default=6161)
    p.add_argument("--agents", default="model,rules")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--json", help="write the result here too")
    a = p.parse_args()
    out = measure(a.game, a.players, a.games, a.seed, a.agents, a.workers)
    text = json.dumps(out, indent=2)
    print(text)
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
