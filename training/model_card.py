"""Publish a trained checkpoint into models/ with a model card (how trained, how strong).

    python -m training.model_card runs/siantappo-4p/final.safetensors --games 600

copies the checkpoint to models/<game>-<n>p.{safetensors,json}, evaluates it against the rule bot
and random (duplicate deals, 95% intervals) and writes models/<game>-<n>p.md.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from training.agents import MODELS_DIR
from training.checkpoint import checkpoint_paths, load_checkpoint
from training.evaluate import versus_baselines


def _row(baseline: str, e: dict) -> str:
    lo, hi = e["reward_ci"]
    wlo, whi = e["win_ci"]
    return (f"| {baseline} | {e['games']} | {e['mean_reward']:+.3f} [{lo:+.3f}, {hi:+.3f}] | "
            f"{e['win_rate']:.1%} [{wlo:.1%}, {whi:.1%}] |")


def publish(checkpoint: str, games: int, seed: int, workers: int = 2, command: str = "") -> Path:
    net, meta = load_checkpoint(checkpoint)
    game, players = meta["game"], meta["player_counts"][0]
    name = f"{game}-{players}p"
    out_dir = Path(MODELS_DIR)
    out_dir.mkdir(exist_ok=True)
    weights, sidecar = checkpoint_paths(checkpoint)
    shutil.copyfile(weights, out_dir / f"{name}.safetensors")
    shutil.copyfile(sidecar, out_dir / f"{name}.json")
    evaluation = versus_baselines(str(out_dir / f"{name}.safetensors"), game, players, games, seed,
                                  workers=workers, progress=True)
    rows = [_row(baseline, e) for baseline, e in evaluation.items()]
    meta = dict(meta, name=name, evaluation=evaluation, command=command)
    (out_dir / f"{name}.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    card = f"""# {name}: {game}, {players} players

A trained {game} policy for {players} players: `--seats model` (or the path
`models/{name}.safetensors`) in `cardzoo play`, `cardzoo eval` and the Python agent API.

## How it was trained

* {meta.get('algorithm', 'MaskablePPO self-play')}, warm-started by cloning the rule bot
  (`--imitate`), then self-play against an opponent pool ({meta.get('opponent_pool', '')}).
* {meta['training_steps']:,} learner steps, seed {meta.get('seed')}, MLP {meta['hidden']} ({meta['activation']}),
  observation {meta['obs_size']}, actions {meta['num_actions']}, default rules of `{meta['env']}`.
* Command: `{command or 'cardzoo train ...'}` (see [docs/training.md](../docs/training.md)).

## How strong

`python -m training.model_card` ran `cardzoo eval {game} --agents models/{name}.safetensors,BASELINE
--players {players} --games {games} --seed {seed}` (duplicate deals, all seatings, greedy play):

| opponent | games | mean reward per match [95% CI] | win rate [95% CI] |
|---|---:|---:|---:|
{chr(10).join(rows)}

Win = first place in the match (ties split); with two entrants an even chance is 50%.
"""
    (out_dir / f"{name}.md").write_text(card)
    return out_dir / f"{name}.safetensors"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("checkpoint")
    p.add_argument("--games", type=int, default=600)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--command", default="", help="the cardzoo train command that made it (for the card)")
    args = p.parse_args()
    print(publish(args.checkpoint, args.games, args.seed, args.workers, args.command))


if __name__ == "__main__":
    main()
