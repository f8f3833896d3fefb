"""The move rankers' features are fixed, bit for bit, and the batched DMC collector plays what a
per-move ranker would."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from cardzoo.envs.registry import game_spec
from cardzoo.training.agents.net_agents import whole_moves_reader
from cardzoo.training.agents.ranker import MoveRankerNet
from cardzoo.training.dmc.collector import DMCCollector, DMCRequest
from tests.move_features_digest import digest

# Recorded from the per-move readers before they were made fast (commit 681a094); every shipped
# move-ranker checkpoint was trained on these features. Sam Sip's was re-recorded when its completion
# chances were made independent of the batch they are computed in (issue 27): the chance columns
# moved by at most 2.4e-7 (float32 rounding), nothing else changed.
GOLDEN = {
    "siantappo": (17256, "7ab661cf5c8d88f90b643d58"),
    "suipi": (9456, "393e100df839580a0b3bacbe"),
    "samsip": (8689, "e10d00c58908fa6ddb98ffc9"),
}


@pytest.mark.parametrize("game", sorted(GOLDEN))
def test_move_features_are_bit_for_bit_the_recorded_ones(game):
    assert digest(game) == GOLDEN[game]


@pytest.mark.parametrize("game,players", [("siantappo", 4), ("suipi", 2), ("suipi", 4), ("samsip", 3)])
def test_the_batched_collector_records_what_a_per_move_ranker_reads_and_chooses(game, players, monkeypatch):
    """Every sample's row is one of the reader's candidates for that observation, and (greedy) the
    one a per-move ``MoveRankerNet.scores`` ranks best; the batch scores each decision alike."""
    spec = game_spec(game)
    env = spec.raw_env(num_players=players)
    reader = whole_moves_reader(game, env.config)
    torch.manual_seed(players)
    args = (env.obs_size, reader.feature_size, [32, 16], "relu", env.num_actions)
    net = MoveRankerNet(*args)
    weights = {k: v.numpy() for k, v in net.state_dict().items()}
    seen = _record_reads(monkeypatch, reader, env.num_actions)
    out = DMCCollector(game, (players,), {}, 4, args).collect(DMCRequest(weights, (3,), 200, 0.0, 0.5))
    fresh = whole_moves_reader(game, env.config)
    monkeypatch.undo()  # the fresh reads below are not the collector's
    real = [(m, r) for m, r, _ in seen if len(r) > 1]
    assert len(real) == len(out.rows) > 0
    for (mask, rows), obs, row in zip(real, out.obs.dense(), out.rows):
        _, again = fresh.candidates(fresh.read(obs), mask)
        assert np.array_equal(again, rows)  # the features of this observation, read afresh
        q = net.scores(obs, rows)
        picked = [j for j in range(len(rows)) if np.array_equal(rows[j], row)]
        assert picked and max(q[j] for j in picked) >= q.max() - 1e-5
    if game == "suipi":  # some choices come after forced sub-steps: read at the move's first, made where they part
        assert any(fresh.read(obs).prefix for obs in out.obs.dense())


def _record_reads(monkeypatch, reader, num_actions: int) -> list:
    """(mask, rows, observation or None) of every decision the collector reads, in the order it
    reads them: through ``candidates``, or (one action per move) ``features_many``, one round's
    decisions at once."""
    seen: list = []
    if hasattr(reader, "features_many"):
        original_many = type(reader).features_many

        def features_many(self, observations, legals):
            read = original_many(self, observations, legals)
            for obs, legal, rows in zip(observations, legals, read):
                mask = np.zeros(num_actions, np.int8)
                mask[legal] = 1
                seen.append((mask, rows.copy(), obs if isinstance(obs, dict) else np.array(obs)))
            return read

        monkeypatch.setattr(type(reader), "features_many", features_many)
        return seen
    original = type(reader).candidates

    def candidates(self, state, mask):
        seqs, rows = original(self, state, mask)
        seen.append((np.asarray(mask).copy(), rows.copy(), None))
        return seqs, rows

    monkeypatch.setattr(type(reader), "candidates", candidates)
    return seen


@pytest.mark.parametrize("game,players,matches", [("siantappo", 3, 6), ("samsip", 3, 3)])
def test_explored_samples_get_their_rows_from_the_rounds_batch(game, players, matches, monkeypatch):
    """With exploration, a one-action-per-move game's explored choices are recorded before their
    round's rows are read together: each sample's row is a candidate row of its own observation,
    and those rows are what a fresh reader reads one by one; a seed gives the same collection."""
    env = game_spec(game).raw_env(num_players=players)
    reader = whole_moves_reader(game, env.config)
    torch.manual_seed(players)
    args = (env.obs_size, reader.feature_size, [32, 16], "relu", env.num_actions)
    weights = {k: v.numpy() for k, v in MoveRankerNet(*args).state_dict().items()}
    request = DMCRequest(weights, (5,), 100, 0.5, 0.5)
    again = DMCCollector(game, (players,), {}, matches, args).collect(request)
    seen = _record_reads(monkeypatch, reader, env.num_actions)
    out = DMCCollector(game, (players,), {}, matches, args).collect(request)
    assert np.array_equal(out.rows, again.rows) and np.array_equal(out.returns, again.returns)
    monkeypatch.undo()  # the fresh reads below are not the collector's
    assert len(seen) == len(out.rows) >= 100  # every read choice is one sample
    fresh = whole_moves_reader(game, env.config)
    decode = getattr(game_spec(game).part("encoding"), "decode", None)  # Sam Sip's: what a view is read from
    for mask, rows, obs in seen:  # an observation, or (Sam Sip) its decoded view read from the engine
        assert np.array_equal(rows, fresh.features(obs, np.flatnonzero(mask).tolist()))

    for obs, row in zip(out.obs.dense(), out.rows):
        view = decode(obs) if decode is not None else None  # once per sample, not once per read

        def read_for(read) -> bool:
            """Was ``read`` (what the reader got) the decision of this sample's observation?"""
            return read == view if isinstance(read, dict) else np.array_equal(read, obs)

        assert any(read_for(read) and any(np.array_equal(row, r) for r in rows) for _, rows, read in seen)
