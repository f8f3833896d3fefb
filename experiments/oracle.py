"""How far from perfect: what a player that sees every hand (not the stock) scores against the rule
bot, beside the shipped model and the expert (docs/evaluation.md, "How far from perfect").

The oracle is the expert (``cardzoo.training.agents.expert``: search over the model's best moves,
the model valuing the leaves, the same width, answers and budget) searching the *true* deal:
every hand as it really is, only the order of the stock and the later deals drawn anew — what no
player could know even seeing every hand. It cheats by design, so it lives here, outside the
package: no agent spec names it and no table can seat it; this script plays it in its own
process. Duplicate deals through ``cardzoo eval``'s tournament (the same seeds give the same deals
as ``cardzoo eval GAME --agents expert,rules``), one worker, the report printed as ``eval`` prints
it, the oracle's row named ``oracle``.

Command: ``python experiments/oracle.py siantappo --players 4 --games 200 --seed 6301``
"""

from __future__ import annotations

import argparse
import random

from cardzoo.envs.registry import game_spec
from cardzoo.training.agents.expert import DEFAULT_SAMPLES, ExpertAgent
from cardzoo.training.agents.specs import AgentSpec, make_agent
from cardzoo.training.evaluation import runner as runner_module
from cardzoo.training.evaluation.report import print_report, write_json
from cardzoo.training.evaluation.tournament import run_tournament


def true_world(engine, rng: random.Random):
    """A copy of the match with every hand as it is; the stock's order (Suipi: but for the cards
    sent to its bottom face up) and the later deals' shuffles drawn anew."""
    world = engine.clone()
    world.rng = random.Random(rng.getrandbits(64))
    stock = getattr(world, "stock", None)
    if stock is None:  # Siantappo deals every card: nothing more is unseen
        return world
    top = getattr(world, "top", 0)  # Suipi keeps its dealt cards in the list; Sam Sip pops them
    fixed = {pos for _, pos in getattr(world, "rejected", ())}
    places = [i for i in range(top, len(stock)) if i not in fixed]
    cards = [stock[i] for i in places]
    rng.shuffle(cards)
    for i, card in zip(places, cards):
        stock[i] = card
    if hasattr(world, "_legal"):  # Suipi: its cached moves stay right (the hands are the same), dropped to be sure
        world._legal = world._trie = None
    return world


class OracleAgent(ExpertAgent):
    """The expert, its determinizations replaced by the true deal (``true_world``)."""

    def worlds(self, engine, seat: int) -> tuple[list, list[int]]:
        return [true_world(engine, self.rng) for _ in range(self.samples)], [1] * self.samples


class OracleSpec(AgentSpec):
    """The oracle entrant of this script's tournament (labelled ``oracle``)."""

    @property
    def label(self) -> str:
        return "oracle"


def _make_agent(spec, game_module, config=None, seed=None):
    """``make_agent``, with the oracle entrant built as an ``OracleAgent``."""
    if isinstance(spec, OracleSpec):
        model = make_agent("model", game_module, config, seed=seed)
        return OracleAgent(game_module, config, model, seed=seed, samples=DEFAULT_SAMPLES)
    return make_agent(spec, game_module, config, seed=seed)


def measure(game: str, players: int, games: int, seed: int, json_path: str | None = None) -> dict:
    """The oracle against the rule bot: the tournament's report (``cardzoo eval``'s)."""
    entrants = [OracleSpec("expert", text="oracle"), AgentSpec("rules", text="rules")]
    original, runner_module.make_agent = runner_module.make_agent, _make_agent  # the runner builds the oracle
    try:
        report = run_tournament(game, entrants, players=players, games=games, seed=seed, workers=1).report()
    finally:
        runner_module.make_agent = original
    if json_path:
        write_json(report, json_path)
    return report


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("game", choices=["siantappo", "suipi", "samsip"])
    p.add_argument("--players", type=int, help="default: the game's default count")
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", metavar="FILE", help="write the full report as JSON")
    args = p.parse_args(argv)
    players = args.players or game_spec(args.game).module.DEFAULT_PLAYERS
    print_report(measure(args.game, players, args.games, args.seed, args.json))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
