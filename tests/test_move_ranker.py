"""Move rankers: complete-move features of every game, the agent, its checkpoints, the DMC trainer."""

from __future__ import annotations

import itertools
import json
import random
import shutil
from typing import Any

import numpy as np
import pytest
import torch

from cardzoo.envs.registry import game_spec
from cardzoo.envs.suipi.whole_moves import MOVE_FEATURES, WholeMoves
from cardzoo.envs.suipi_v0 import raw_env
from cardzoo.scripts.cli import main as cli
from cardzoo.training.agents.checkpoint import CheckpointError, load_agent, save_checkpoint
from cardzoo.training.agents.net_agents import RankerAgent, whole_moves_reader
from cardzoo.training.agents.networks import load_checkpoint
from cardzoo.training.agents.ranker import MoveRankerNet
from cardzoo.training.agents.shipped import package_models_dir
from cardzoo.training.dmc.collector import DMCCollector, DMCRequest
from cardzoo.training.dmc.warm_start import imitation_task
from tests.run_helpers import kill_once_saved


def _net(env, seed=0):
    torch.manual_seed(seed)
    return MoveRankerNet(env.obs_size, MOVE_FEATURES, [32, 16], "relu", env.num_actions)


@pytest.mark.parametrize("players", [2, 4])
def test_candidates_are_exactly_the_envs_complete_moves(players):
    env = raw_env(num_players=players)
    reader = WholeMoves(env.config)
    rng = random.Random(players)
    env.begin(7)
    checked = 0
    for _ in range(400):
        seat = env.acting_seat
        obs, mask = env.encode_seat(seat), env.mask_now()
        state = reader.read(obs)
        seqs, rows = reader.candidates(state, mask)
        k = len(state.prefix)
        assert sorted(seq[k:] for seq in seqs) == sorted(ids for ids, _ in env.full_moves())
        assert rows.shape == (len(seqs), MOVE_FEATURES)
        for seq, row in zip(seqs, rows):
            assert row[seq[0]] == 1 and row[:52].sum() == 1  # the hand card played
            kind = {104: 0, 118: 2}.get(seq[-1], 1)  # capture / drop / build finish ids
            assert row[156 + kind] == 1 and row[156:159].sum() == 1
        checked += 1
        if env.advance(rng.choice(env.legal_now())).done:
            env.begin(rng.randrange(1000))
    assert checked == 400


@pytest.mark.parametrize("players", [2, 4])
def test_ranker_agent_plays_legal_matches_and_records_real_choices(players):
    env = raw_env(num_players=players)
    record: list = []
    agent = RankerAgent(_net(env), whole_moves_reader("suipi", env.config), seed=1, epsilon=0.2, record=record)
    env.begin(3)
    steps = 0
    while True:
        mask = env.mask_now()
        action = agent.act(env.encode_seat(env.acting_seat), mask)
        assert mask[action] == 1
        steps += 1
        if env.advance(action).done:
            break
    assert record and all(o.shape == (env.obs_size,) and r.shape == (MOVE_FEATURES,) for o, r in record)
    assert len(record) < steps  # forced moves and later sub-steps are no choices


def test_workers_return_monte_carlo_returns_of_whole_matches():
    env = raw_env(num_players=2)
    net = _net(env)
    weights = {k: v.numpy() for k, v in net.state_dict().items()}
    args = (env.obs_size, MOVE_FEATURES, [32, 16], "relu", env.num_actions)
    request = DMCRequest(weights, (5, 0, 0), min_samples=1, epsilon=0.1, selfplay=0.0)
    out = DMCCollector("suipi", (2,), {}, 2, args).collect(request)
    assert len(out.obs) == len(out.rows) == len(out.returns) > 0
    assert out.played == len(out.matches) == 2 and all(r["opponent"] == "rules" for r in out.matches)
    again = DMCCollector("suipi", (2,), {}, 2, args).collect(request)
    assert np.array_equal(out.returns, again.returns) and np.array_equal(out.rows, again.rows)  # seeded


@pytest.mark.parametrize(
    "game,counts,opponent",
    [
        ("suipi", (2, 4), "rules"),
        ("suipi", (2,), str(package_models_dir() / "suipi-2p.safetensors")),
        ("siantappo", (3, 4, 5, 6), "rules"),
        ("samsip", (2, 3), "rules"),
    ],
)
def test_every_move_the_collector_plays_is_legal(monkeypatch, game, counts, opponent):
    """The collector plays the rest of a chosen composed move without asking the env again (the
    trusted fast path): every move of seeded self-play and opponent matches is still legal."""
    spec = game_spec(game)
    env_class = type(spec.raw_env(num_players=counts[0]))
    played, real_advance = [], env_class.advance

    def checked_advance(self, action):
        assert action in self._legal_actions(), (game, self.acting_seat, action)
        played.append(action)
        return real_advance(self, action)

    monkeypatch.setattr(env_class, "advance", checked_advance)
    env = spec.raw_env(num_players=counts[0])
    reader = whole_moves_reader(game, env.config)
    args = (env.obs_size, reader.feature_size, [16], "relu", env.num_actions)
    torch.manual_seed(0)
    weights = {k: v.numpy() for k, v in MoveRankerNet(*args).state_dict().items()}
    request = DMCRequest(weights, (9, 0, 0), min_samples=300, epsilon=0.1, selfplay=0.5, opponents=opponent)
    out = DMCCollector(game, counts, {}, 4, args).collect(request)
    assert out.moves == len(played) > len(out.returns) > 0


def test_sparse_rows_give_back_the_dense_rows_exactly():
    from cardzoo.training.dmc.collector import SparseRows
    from cardzoo.training.dmc.replay import Replay

    rng = np.random.default_rng(3)
    dense = (rng.random((9, 40)) < 0.1) * rng.choice([1.0, 0.25, 1 / 3], (9, 40))
    dense[4] = 0.0  # an all-zero row
    rows = SparseRows(40)
    for row in dense.astype(np.float32):
        rows.append(row)
    rows.close()
    assert len(rows) == 9 and np.array_equal(rows.dense(), dense.astype(np.float32))
    assert len(rows.values) == np.count_nonzero(dense)
    replay = Replay(5, 40, 2)  # the newest 5 fit, written over a buffer that held other rows
    replay.add(np.full((5, 40), 7.0, np.float32), np.zeros((5, 2), np.float32), np.full(5, -1.0, np.float32))
    replay.add(rows, np.zeros((9, 2), np.float32), np.arange(9, dtype=np.float32))
    order = np.argsort(replay.returns)
    assert np.array_equal(replay.observations()[order], dense[4:].astype(np.float32))


def test_the_replay_is_saved_sparse_and_read_back_exactly_also_from_dense_states():
    from cardzoo.envs.errors import UserError
    from cardzoo.training.common.run_dir import RunState
    from cardzoo.training.dmc.replay import Replay

    rng = np.random.default_rng(5)
    replay = Replay(8, 30, 3)
    obs = ((rng.random((11, 30)) < 0.15) * rng.choice([1.0, 0.5, 1 / 7], (11, 30))).astype(np.float32)
    replay.add(obs, rng.random((11, 3)).astype(np.float32), rng.random(11).astype(np.float32))
    state = RunState(learner={})
    replay.to_state(state)
    kept = replay.observations()
    assert "replay_obs" not in state.arrays and len(state.arrays["replay_obs_values"]) == np.count_nonzero(kept)
    assert np.array_equal(kept, obs[3:])  # the newest 8 of 11, slot j holding the (3 + j)-th
    saved = dict(state.arrays)
    dense = dict(saved, replay_obs=kept[: replay.size].copy())  # the layout an earlier cardzoo wrote
    for name in ("replay_obs_starts", "replay_obs_columns", "replay_obs_values"):
        dense.pop(name)
    for arrays in (saved, dense):
        back = Replay(8, 30, 3)
        back.from_state(RunState(learner=dict(state.learner), arrays=dict(arrays)))
        assert np.array_equal(back.observations(), kept) and np.array_equal(back.rows, replay.rows)
        assert (back.size, back.next) == (replay.size, replay.next)
    bad = dict(saved, replay_obs_columns=saved["replay_obs_columns"] + 30)  # past the observation's width
    with pytest.raises(UserError, match="no replay buffer that fits"):
        Replay(8, 30, 3).from_state(RunState(learner=dict(state.learner), arrays=bad))


def test_a_minibatch_is_sparse_and_learns_as_its_dense_rows_would():
    from cardzoo.training.agents.ranker import sparse_csr
    from cardzoo.training.dmc.replay import Replay

    rng = np.random.default_rng(8)
    replay = Replay(64, 50, 4)
    for density in (0.05, 0.3, 0.6):  # ever wider rows: the buffer widens, keeping the rows it holds
        before = replay.observations()
        obs = ((rng.random((20, 50)) < density) * rng.random((20, 50))).astype(np.float32)
        replay.add(obs, rng.random((20, 4)).astype(np.float32), rng.random(20).astype(np.float32))
        assert np.array_equal(replay.observations()[: replay.size - 20], before[: replay.size - 20])
        assert np.array_equal(replay.observations()[replay.size - 20 : replay.size], obs)
    assert replay.columns.shape[1] >= np.count_nonzero(obs, axis=1).max()
    sparse, rows, returns = replay.sample(32, np.random.default_rng(1))
    dense = torch.from_numpy(replay.observations(np.random.default_rng(1).integers(replay.size, size=32)))
    assert sparse.layout == torch.sparse_csr and torch.equal(sparse.to_dense(), dense)
    net = MoveRankerNet(50, 4, [16, 16])
    grads = []
    for batch in (sparse, dense):
        net.zero_grad()
        q = net(batch, rows)
        torch.nn.functional.mse_loss(q, returns).backward()
        grads.append([q.detach()] + [_grad(p).clone() for p in net.parameters()])
    for a, b in zip(*grads):
        assert a.layout == b.layout == torch.strided and torch.allclose(a, b, atol=1e-6)
    sizes = torch.as_tensor([3, 1, 4])  # the warm start's candidates: the observation's share once per decision
    moves = torch.rand(8, 4)
    with torch.no_grad():
        each = net(dense[:3].repeat_interleave(sizes, dim=0), moves)
        assert torch.allclose(net.candidates_q(sparse_csr(dense[:3]), moves, sizes), each, atol=1e-6)
        assert torch.allclose(net.candidates_q(dense[:3], moves, sizes), each, atol=1e-6)


def test_imitation_samples_name_the_rule_bots_choice():
    samples = imitation_task("suipi", (2,), {}, matches=1, seed=0)
    assert samples
    for _obs, rows, chosen, _, values in samples:
        assert len(rows) > 1 and 0 <= chosen < len(rows) and values is None  # a bot that does not search
        # the bot's score is a feature: its choice is the best-scored candidate (up to its tie noise)
        assert rows[chosen, 175] >= rows[:, 175].max() - 1e-4
        assert WholeMoves(None).rule_bot_moves(rows)[chosen]  # what a trusting ranker defers to


def test_checkpoint_round_trip_and_bad_sidecars(tmp_path):
    env = raw_env(num_players=2)
    net = _net(env)
    meta = {"game": "suipi", "env": env.metadata["name"], "player_counts": [2, 4], "name": "ranker"}
    path = save_checkpoint(tmp_path / "r", net, meta)
    loaded, saved = load_checkpoint(path)
    assert saved["architecture"] == "move_ranker" and saved["move_features"] == MOVE_FEATURES
    assert all(torch.equal(a, b) for a, b in zip(net.state_dict().values(), loaded.state_dict().values()))
    agent = load_agent(path, env.config)
    assert isinstance(agent, RankerAgent)
    sidecar = tmp_path / "r.json"
    doc = json.loads(sidecar.read_text())
    changes: list[tuple[dict[str, Any], str]] = [
        ({"move_features": MOVE_FEATURES + 1}, "does not match the architecture"),
        ({"architecture": "transformer"}, "'architecture' must be"),
        ({"move_features": None}, "'move_features' must be"),
    ]
    for change, message in changes:
        sidecar.write_text(json.dumps({**doc, **change}))
        with pytest.raises(CheckpointError, match=message):
            load_checkpoint(path)
    del doc["move_features"]
    sidecar.write_text(json.dumps(doc))
    with pytest.raises(CheckpointError, match="needs the field 'move_features'"):
        load_checkpoint(path)


SMALL = [
    "--algo",
    "dmc",
    "--players",
    "2",
    "--workers",
    "1",
    "--matches",
    "3",
    "--batch",
    "64",
    "--minibatch",
    "64",
    "--replay",
    "2000",
    "--hidden",
    "32,16",
    "--eval-games",
    "0",
    "--no-progress",
]


def test_dmc_trains_warm_starts_and_resumes(tmp_path, capsys):
    out = tmp_path / "run"
    assert cli(["train", "suipi", *SMALL, "--steps", "200", "--imitate", "2", "--out", str(out)]) == 0
    log = capsys.readouterr().out
    assert "warm start epoch 6/6: picks the rule bot's move" in log
    agent = load_agent(out / "final", raw_env(num_players=2).config)
    assert isinstance(agent, RankerAgent) and agent.meta["training_steps"] >= 200
    first = agent.meta["training_steps"]
    assert (
        cli(["train", "suipi", "--resume", "--steps", str(first + 100), "--out", str(out), "--no-progress"]) == 0
    )  # no --algo: the run directory's settings say it is a dmc run
    assert "resuming" in capsys.readouterr().out
    assert load_checkpoint(out / "final")[1]["training_steps"] >= first + 100


@pytest.mark.parametrize(
    "argv,message",
    [
        (["train", "suipi", "--algo", "dmc", "--epsilon", "2"], "--epsilon 2.0 is out of range"),
        (
            ["train", "suipi", "--algo", "dmc", "--gamma", "0.9"],
            "--gamma is not a flag of --algo dmc (it is one of --algo ppo)",
        ),
        (
            ["train", "suipi", "--algo", "ppo", "--epsilon", "0.1"],
            "--epsilon is not a flag of --algo ppo (it is one of --algo dmc)",
        ),
        (["train", "suipi", "--ent", "0.1"], "--ent is not a flag of --algo dmc, the game's default trainer"),
        (["train", "suipi", "--algo", "dmc", "--players", "3"], "plays [2, 4] players, not 3"),
        (["train", "siantappo", "--algo", "dmc", "--returns", "deal"], "siantappo is not settled deal by deal"),
        (["train", "suipi", "--algo", "dmc", "--imitate-from", "teacher"], "suipi has no teacher"),
    ],
)
def test_dmc_bad_input_is_one_line(tmp_path, argv, message, capsys):
    assert cli([*argv, "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()


def test_dmc_warm_start_from_the_teacher_is_evaluated_at_zero_samples(tmp_path, capsys):
    out = tmp_path / "run"
    argv = [a for a in SMALL if a not in ("--eval-games", "0")]
    assert (
        cli(
            [
                "train",
                "samsip",
                *argv,
                "--steps",
                "50",
                "--imitate",
                "2",
                "--imitate-from",
                "teacher",
                "--eval-games",
                "10",
                "--eval-every",
                "1000000",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    log = capsys.readouterr().out
    assert "teacher choices from 2 matches" in log and "picks the teacher's move" in log
    assert "rule-bot" not in log
    evals = json.loads((out / "state" / "state.json").read_text())["state"]["evals"]
    assert [e["decisions"] for e in evals][:1] == [0] and (out / "learning_curve.png").is_file()


def test_replay_keeps_the_newest_samples_in_a_ring():
    from cardzoo.training.dmc.replay import Replay

    replay = Replay(capacity=5, obs_size=2, row_size=1)
    for start in (0, 3, 6):  # 9 samples through a 5-slot ring, then one batch larger than it
        values = np.arange(start, start + 3, dtype=np.float32)
        replay.add(np.stack([values, values], 1), values[:, None], values)
    assert replay.size == 5 and sorted(replay.returns) == [4, 5, 6, 7, 8]
    assert np.array_equal(replay.observations()[:, 0], replay.returns)
    assert np.array_equal(replay.rows[:, 0], replay.returns)
    big = np.arange(100, 107, dtype=np.float32)
    replay.add(np.stack([big, big], 1), big[:, None], big)
    assert sorted(replay.returns) == [102, 103, 104, 105, 106]


SINGLE_ACTION_GAMES = [("siantappo", n) for n in (3, 4, 5, 6)] + [("samsip", n) for n in (2, 3, 4, 5, 6)]
CHOICE_COLUMN = {"siantappo": 81, "samsip": 61}  # "the rule bot would make this move"


@pytest.mark.parametrize("game,players", SINGLE_ACTION_GAMES)
def test_single_action_readers_list_the_legal_moves_and_flag_the_rule_bots(game, players):
    spec = game_spec(game)
    env = spec.raw_env(num_players=players)
    reader = whole_moves_reader(game, env.config)
    bot = spec.rule_bot(env.config, seed=0)
    rng = random.Random(players)
    env.begin(players)
    for _ in range(300):
        obs, mask = env.encode_seat(env.acting_seat), env.mask_now()
        seqs, rows = reader.candidates(reader.read(obs), mask)
        assert seqs == [(a,) for a in sorted(env.legal_now())]
        assert rows.shape == (len(seqs), reader.feature_size) and np.isfinite(rows).all()
        again = reader.candidates(reader.read(obs.copy()), mask)[1]
        assert np.array_equal(rows, again)  # a function of what the seat sees, nothing else
        choice = bot.act(obs, mask)
        assert rows[seqs.index((choice,)), CHOICE_COLUMN[game]] == 1
        assert reader.rule_bot_moves(rows)[seqs.index((choice,))]  # what a trusting ranker defers to
        if game == "siantappo":  # type one-hot; the cards played agree with the count column
            assert rows[:, 52:61].sum(1).tolist() == [1] * len(seqs)
            played = [a for (a,) in seqs if a != 367]
            assert all(round(rows[seqs.index((a,)), 74] * 12) == rows[seqs.index((a,)), :52].sum() for a in played)
        else:
            assert rows[:, 53:57].sum(1).tolist() == [1] * len(seqs)
        if env.advance(choice if rng.random() < 0.5 else rng.choice(env.legal_now())).done:
            env.begin(rng.randrange(1000))


@pytest.mark.parametrize("game,players", [("siantappo", "3,4"), ("samsip", "2,5")])
def test_dmc_trains_single_action_games_into_loadable_rankers(tmp_path, game, players):
    small = [players if a == "2" and SMALL[i - 1] == "--players" else a for i, a in enumerate(SMALL)]
    assert cli(["train", game, *small, "--steps", "150", "--imitate", "1", "--out", str(tmp_path / "run")]) == 0
    spec = game_spec(game)
    for n in map(int, players.split(",")):
        env = spec.raw_env(num_players=n)
        agent = load_agent(tmp_path / "run" / "final", env.config)
        assert isinstance(agent, RankerAgent)
        env.begin(n)
        moves = 0
        while True:  # a whole match of the ranker at every seat, every move legal
            mask = env.mask_now()
            action = agent.act(env.encode_seat(env.acting_seat), mask)
            assert mask[action] == 1, (moves, action)
            moves += 1
            if env.advance(action).done:
                break
        assert moves > n


def test_dmc_on_a_game_without_a_move_reader_is_one_line(tmp_path, monkeypatch, capsys):
    import cardzoo.envs.siantappo_v0

    monkeypatch.delattr(cardzoo.envs.siantappo_v0, "WHOLE_MOVES")
    assert cli(["train", "siantappo", "--algo", "dmc", "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert "declares no WHOLE_MOVES reader" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()


class _TwoDeals:
    """Two seats alternate 6 moves; deal 0 is settled at move 3 (seat 0 +1), deal 1 at move 6 (-1)."""

    num_actions = 1

    def begin(self, seed):
        self.moves, self.deal = 0, 0

    @property
    def acting_seat(self):
        return self.moves % 2

    def legal_now(self):
        return [0]

    def mask_now(self):
        return np.ones(1, np.int8)

    def encode_seat(self, seat):
        return np.zeros(1, np.float32)

    def advance(self, action):
        from types import SimpleNamespace

        self.moves += 1
        rewards = {3: {0: 1.0, 1: -1.0}, 6: {0: -1.0, 1: 1.0}}.get(self.moves, {})
        if self.moves == 3:
            self.deal = 1
        return SimpleNamespace(rewards=rewards, done=self.moves == 6)


@pytest.mark.parametrize(
    "deal_of,seat0,seat1",
    [
        (lambda env: 0, [0.0, 0.0, -1.0], [0.0, 1.0, 1.0]),  # to the match's end: the deals cancel out
        (lambda env: env.deal, [1.0, 1.0, -1.0], [-1.0, 1.0, 1.0]),  # to the end of each choice's deal
    ],
)
def test_returns_run_to_the_end_of_the_match_or_of_the_choices_deal(deal_of, seat0, seat1):
    from cardzoo.training.common.imitation import play_match

    class Quiet:
        def reset(self):
            pass

    def record(bot, env, seat):  # keeps every decision (its move number), always plays action 0
        return 0, env.moves

    kept = play_match(_TwoDeals(), [Quiet(), Quiet()], 0, record, deal_of)
    assert [move for _, move, _ in kept] == list(range(6)) and [seat for seat, _, _ in kept] == [0, 1] * 3
    assert [ret for seat, _, ret in kept if seat == 0] == seat0 and [ret for seat, _, ret in kept if seat == 1] == seat1


def test_sam_sip_deal_returns_are_one_hands_reward():
    """2 players, stake-normalised rewards: one hand pays at most 1 either way; a match much more."""
    spec = game_spec("samsip")
    env = spec.raw_env(num_players=2)
    reader = whole_moves_reader("samsip", env.config)
    torch.manual_seed(0)
    net = MoveRankerNet(env.obs_size, reader.feature_size, [16], "relu", env.num_actions)
    weights = {k: v.numpy() for k, v in net.state_dict().items()}
    args = (env.obs_size, reader.feature_size, [16], "relu", env.num_actions)
    by_mode = {
        mode: DMCCollector("samsip", (2,), {}, 3, args).collect(DMCRequest(weights, (5,), 1, 0.05, 0.5, mode))
        for mode in ("match", "deal")
    }
    match, deal = by_mode["match"].returns, by_mode["deal"].returns
    assert np.array_equal(by_mode["match"].obs.dense(), by_mode["deal"].obs.dense())  # the same matches
    assert len(deal) > 100 and np.abs(deal).max() <= 1 + 1e-6 and np.abs(match).max() > 2
    assert set(np.round(deal, 6)) >= {-1.0, 1.0}


def _grad(p: torch.Tensor) -> torch.Tensor:
    """A parameter's gradient, which backward() has just written."""
    assert p.grad is not None
    return p.grad


class _FixedQ:
    """A stand-in network whose Q of the candidates is given."""

    def __init__(self, q):
        self.q = np.asarray(q, np.float32)

    def scores(self, observation, moves):
        return self.q


class _ThreeMoves:
    """Three single-action candidates (actions 0, 1, 2); the rule bot would play action 1."""

    def read(self, observation):
        from cardzoo.envs.whole_moves import SeatState

        return SeatState(observation, (), None)

    def candidates(self, state, mask):
        return [(0,), (1,), (2,)], np.eye(3, dtype=np.float32)

    def rule_bot_moves(self, rows):
        return rows[:, 1] > 0


@pytest.mark.parametrize(
    "q,trust,played",
    [
        ([0.30, 0.25, 0.0], 0.0, 0),  # no trust: the highest Q
        ([0.30, 0.25, 0.0], 0.1, 1),  # 0.05 ahead of the bot's move: within the margin, the bot's move
        ([0.40, 0.25, 0.0], 0.1, 0),  # 0.15 ahead: beyond it
        ([0.10, 0.25, 0.0], 0.1, 1),  # the bot's move is the best anyway
    ],
)
def test_a_trusting_ranker_departs_from_the_rule_bot_only_by_more_than_its_margin(q, trust, played):
    # _FixedQ stands in for the network: it has the one method RankerAgent calls
    agent = RankerAgent(_FixedQ(q), _ThreeMoves(), trust=trust)
    assert agent.act(np.zeros(4, np.float32), np.ones(3, np.int8)) == played


def test_trust_is_written_into_a_checkpoint_copy_and_loaded(tmp_path, capsys):
    env = raw_env(num_players=2)
    meta = {"game": "suipi", "env": env.metadata["name"], "player_counts": [2, 4], "name": "ranker"}
    path = save_checkpoint(tmp_path / "r", _net(env), meta)
    assert cli(["model", "trust", str(path), "--trust", "0.05", "--out", str(tmp_path / "t")]) == 0
    assert capsys.readouterr().out == f"wrote {tmp_path / 't.safetensors'} (trust 0.05)\n"
    assert json.loads((tmp_path / "t.json").read_text())["trust"] == 0.05
    # an --out name with a dot of its own
    assert cli(["model", "trust", str(path), "--trust", "0.1", "--out", str(tmp_path / "t0.1")]) == 0
    assert capsys.readouterr().out == f"wrote {tmp_path / 't0.1.safetensors'} (trust 0.1)\n"
    assert load_agent(tmp_path / "t0.1", env.config).trust == 0.1 and not (tmp_path / "t0.safetensors").exists()
    agent = load_agent(tmp_path / "t", env.config)
    assert agent.trust == 0.05 and load_agent(path, env.config).trust == 0.0
    assert all(
        np.array_equal(a, b)
        for a, b in zip(agent.net.state_dict().values(), load_agent(path, env.config).net.state_dict().values())
    )
    env.begin(4)  # plays a legal match
    while not env.advance(agent.act(env.encode_seat(env.acting_seat), env.mask_now())).done:
        pass
    capsys.readouterr()
    assert cli(["model", "trust", str(path), "--trust", "-1", "--out", str(tmp_path / "u")]) == 2
    assert capsys.readouterr().err == "cardzoo model: error: --trust must be in 0..100, got -1.0\n"
    assert not (tmp_path / "u.json").exists()
    sidecar = tmp_path / "t.json"
    sidecar.write_text(json.dumps({**json.loads(sidecar.read_text()), "trust": "high"}))
    with pytest.raises(CheckpointError, match=r"'trust' must be a number in 0\.\.100"):
        load_checkpoint(tmp_path / "t")


DMC_RUN = [
    "--algo",
    "dmc",
    "--players",
    "2",
    "--workers",
    "1",
    "--matches",
    "4",
    "--batch",
    "150",
    "--minibatch",
    "64",
    "--replay",
    "1000",
    "--hidden",
    "32,16",
    "--eval-games",
    "0",
    "--imitate",
    "2",
    "--no-progress",
]


def _final_weights(out):
    from safetensors.numpy import load_file

    return load_file(str(out / "final.safetensors"))


def test_a_seeded_dmc_run_reproduces(tmp_path):
    for name in ("a", "b"):
        assert cli(["train", "suipi", *DMC_RUN, "--steps", "900", "--out", str(tmp_path / name)]) == 0
    a, b = _final_weights(tmp_path / "a"), _final_weights(tmp_path / "b")
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def test_a_killed_dmc_run_resumes_to_the_same_weights(tmp_path):
    """SIGKILL part-way (saves at every iteration boundary), --resume: the weights of an uninterrupted run."""
    steps = ["--steps", "2400"]
    assert cli(["train", "suipi", *DMC_RUN, *steps, "--out", str(tmp_path / "whole")]) == 0
    killed = tmp_path / "killed"
    saved = kill_once_saved(
        ["train", "suipi", *DMC_RUN, *steps, "--save-every", "1e-6", "--out", str(killed)], killed, 600
    )
    assert 600 <= saved < 2400 and not (killed / "final.safetensors").exists()
    assert cli(["train", "suipi", "--algo", "dmc", "--resume", "--out", str(killed), "--no-progress"]) == 0
    a, b = _final_weights(tmp_path / "whole"), _final_weights(killed)
    assert all(np.array_equal(a[k], b[k]) for k in a)


def test_ctrl_c_saves_a_dmc_run_at_its_iteration_boundary(tmp_path, monkeypatch, capsys):
    """Ctrl-C between iterations saves the run (not only the periodic saves), and --resume ends
    with the weights of the uninterrupted run."""
    from cardzoo.training.dmc import trainer

    steps = ["--steps", "1200", "--save-every", "1e9"]  # no periodic save after the start
    assert cli(["train", "suipi", *DMC_RUN, *steps, "--out", str(tmp_path / "whole")]) == 0
    logged, log_iteration = [], trainer._log_iteration

    def interrupt_on_the_third(*args, **kwargs):
        log_iteration(*args, **kwargs)
        logged.append(1)
        if len(logged) == 3:
            raise KeyboardInterrupt

    monkeypatch.setattr(trainer, "_log_iteration", interrupt_on_the_third)
    stopped = tmp_path / "stopped"
    capsys.readouterr()
    assert cli(["train", "suipi", *DMC_RUN, *steps, "--out", str(stopped)]) == 130
    assert "saved; continue with --resume" in capsys.readouterr().out
    saved = json.loads((stopped / "state" / "state.json").read_text())["state"]["decisions"]
    assert 450 <= saved < 1200 and not (stopped / "final.safetensors").exists()
    monkeypatch.setattr(trainer, "_log_iteration", log_iteration)
    assert cli(["train", "suipi", "--algo", "dmc", "--resume", "--out", str(stopped), "--no-progress"]) == 0
    a, b = _final_weights(tmp_path / "whole"), _final_weights(stopped)
    assert all(np.array_equal(a[k], b[k]) for k in a)


def test_a_dmc_run_stopped_in_its_warm_start_resumes_from_the_finished_parts(tmp_path, capsys):
    """A run stopped before its first save (during the warm start) continues with --resume: the
    warm-start parts it finished are read back (a damaged one is played again), and the weights
    are those of the uninterrupted run."""
    whole = tmp_path / "whole"
    argv = [*DMC_RUN, "--imitate", "8", "--steps", "300"]  # the last --imitate counts
    assert cli(["train", "suipi", *argv, "--out", str(whole)]) == 0
    parts = sorted((whole / "warm_start").glob("part-*.safetensors"))
    assert len(parts) == 8
    stopped = tmp_path / "stopped"
    shutil.copytree(whole, stopped)
    settings = json.loads((stopped / "settings.json").read_text())
    (stopped / "settings.json").write_text(json.dumps({**settings, "out": str(stopped)}))
    for gone in ("state", "checkpoints", "final.safetensors", "final.json"):
        shutil.rmtree(stopped / gone) if (stopped / gone).is_dir() else (stopped / gone).unlink()
    for i in (5, 6, 7):
        (stopped / "warm_start" / f"part-{i}.safetensors").unlink()
    damaged = stopped / "warm_start" / "part-1.safetensors"
    damaged.write_bytes(damaged.read_bytes()[:100])
    capsys.readouterr()
    assert cli(["train", "suipi", "--algo", "dmc", "--resume", "--out", str(stopped), "--no-progress"]) == 0
    log = capsys.readouterr().out
    assert "stopped before its first save" in log and "4 of 8 parts reused" in log
    a, b = _final_weights(whole), _final_weights(stopped)
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert cli(["train", "suipi", "--algo", "dmc", "--resume", "--out", str(tmp_path / "none"), "--no-progress"]) == 2


def test_train_without_algo_follows_the_games_recipe(tmp_path):
    """``cardzoo train GAME``: the recipe's trainer and settings; flags given win over them."""
    from cardzoo.training.recipes import RECIPES

    out = tmp_path / "run"
    tiny = [
        "--workers",
        "0",
        "--matches",
        "2",
        "--batch",
        "64",
        "--minibatch",
        "64",
        "--replay",
        "500",
        "--hidden",
        "16",
        "--eval-games",
        "0",
        "--imitate",
        "1",
        "--steps",
        "60",
        "--no-progress",
    ]
    assert cli(["train", "samsip", *tiny, "--out", str(out)]) == 0
    settings = json.loads((out / "settings.json").read_text())
    recipe = RECIPES["samsip"]
    assert recipe.algo == "dmc" and settings["imitate_from"] == "teacher" and settings["returns"] == "deal"
    assert settings["max_minutes"] == recipe.settings["max_minutes"] and settings["imitate"] == 1
    assert (out / "final.safetensors").is_file()


def test_dmc_max_minutes_ends_the_run_with_a_final_checkpoint(tmp_path, capsys):
    out = tmp_path / "run"
    assert cli(["train", "suipi", *DMC_RUN, "--steps", "10000000", "--max-minutes", "0.001", "--out", str(out)]) == 0
    assert "--max-minutes 0.001 reached" in capsys.readouterr().out
    assert 0 < load_checkpoint(out / "final")[1]["training_steps"] < 10_000_000


def test_a_run_continued_with_init_records_what_it_started_from_and_the_totals(tmp_path, capsys):
    """--init writes the earlier checkpoint's name, digest and training into the sidecar
    (``started_from``), with the totals of a whole chain of continued runs; the card states them."""
    from cardzoo.training.evaluation.model_card import _started_from

    runs = [tmp_path / name for name in ("a", "b", "c")]
    assert cli(["train", "suipi", *SMALL, "--steps", "100", "--imitate", "0", "--out", str(runs[0])]) == 0
    for earlier, run in itertools.pairwise(runs):
        assert (
            cli(
                [
                    "train",
                    "suipi",
                    *SMALL,
                    "--steps",
                    "100",
                    "--imitate",
                    "0",
                    "--init",
                    str(earlier / "final.safetensors"),
                    "--out",
                    str(run),
                ]
            )
            == 0
        )
    metas = [load_checkpoint(run / "final")[1] for run in runs]
    assert "started_from" not in metas[0]
    b, c = metas[1]["started_from"], metas[2]["started_from"]
    assert b["path"] == str(runs[0] / "final.safetensors") and b["weights_sha256"] == metas[0]["weights_sha256"]
    assert b["training_steps"] == b["total_training_steps"] == metas[0]["training_steps"]
    assert c["training_steps"] == metas[1]["training_steps"]
    assert c["total_training_steps"] == metas[0]["training_steps"] + metas[1]["training_steps"]
    assert c["total_training_matches"] == metas[0]["training_matches"] + metas[1]["training_matches"]
    line = _started_from(metas[2])
    total = sum(m["training_steps"] for m in metas)
    assert f"in all {total:,} learner decisions" in line and metas[1]["weights_sha256"][:12] in line
    assert _started_from(metas[0]) == ""
