"""A digest of every candidate move's feature row over seeded matches, per game.

The move rankers' features are part of every shipped checkpoint's contract: a model trained on
one version of a ``WHOLE_MOVES`` reader plays badly on another. ``tests/test_move_features.py``
compares these digests with the ones recorded when the readers were made fast, so any change
of a feature (a rewrite, an optimisation) shows as a failure, bit for bit.

    python -m tests.move_features_digest   # prints the digests of the current readers
"""

from __future__ import annotations

import hashlib

import numpy as np

from cardzoo.envs.registry import game_spec
from cardzoo.training.agents.net_agents import whole_moves_reader

MATCHES = {"siantappo": 4, "suipi": 6, "samsip": 2}  # per player count


def digest(game: str, matches: int | None = None) -> tuple[int, str]:
    """(candidate rows, sha256 prefix) over seeded matches at every player count of ``game``:
    rule bots play, with a random move 30% of the time (so that moves a bot never makes appear)."""
    spec = game_spec(game)
    h = hashlib.sha256()
    rows_seen = 0
    for n in spec.player_counts:
        env = spec.raw_env(num_players=n)
        reader = whole_moves_reader(game, env.config)
        bots = [spec.rule_bot(env.config, seed=s) for s in range(n)]
        rng = np.random.default_rng(n)
        for g in range(matches or MATCHES[game]):
            env.begin(1000 * n + g)
            while True:
                seat = env.acting_seat
                legal = env.legal_now()
                mask = np.zeros(env.num_actions, np.int8)
                mask[legal] = 1
                obs = env.encode_seat(seat)
                if len(legal) > 1:
                    seqs, rows = reader.candidates(reader.read(obs), mask)
                    h.update(repr(seqs).encode())
                    h.update(np.ascontiguousarray(rows, np.float32).tobytes())
                    rows_seen += len(rows)
                if rng.random() < 0.7:
                    action = int(bots[seat].act(obs, mask))
                else:
                    action = int(legal[rng.integers(len(legal))])
                if env.advance(action).done:
                    break
    return rows_seen, h.hexdigest()[:24]


if __name__ == "__main__":
    for game in MATCHES:
        print(game, *digest(game))
