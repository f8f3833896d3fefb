"""The expert (determinized search, training/agents/expert.py) and the resampling it stands on:
honest (a function of the seat's information and its seed), legal, reproducible."""

from __future__ import annotations

import random

import numpy as np
import pytest

from cardzoo.envs.errors import UserError
from cardzoo.envs.registry import game_spec
from cardzoo.training.agents.specs import agent_move, make_agent, parse_agent_spec

COUNTS = [("siantappo", 4), ("siantappo", 3), ("suipi", 2), ("suipi", 4), ("samsip", 2), ("samsip", 4)]
EVERY_COUNT = [(g, n) for g in ("siantappo", "suipi", "samsip") for n in game_spec(g).player_counts]


def _midgame(game: str, n: int, seed: int, steps: int):
    """An env ``steps`` random moves into a seeded match (or at its end, if sooner)."""
    env = game_spec(game).module.raw_env(num_players=n)
    env.begin(seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if env.engine.done:
            break
        env.advance(rng.choice(env.legal_now()))
    return env


def _expert(game: str, n: int, seed: int, samples: int = 2, kind: str = "expert"):
    module = game_spec(game).module
    config = module.raw_env(num_players=n).config
    return make_agent(parse_agent_spec(f"{kind}:{samples}"), module, config, seed=seed)


def _decisions(game: str, n: int, seed: int, steps: int):
    """Mid-game states where the acting seat has a real choice."""
    for k in range(40):
        env = _midgame(game, n, seed + k, steps + k)
        if not env.engine.done and len(env.legal_now()) > 1:
            yield env


def _plays_the_same_whatever_the_unseen_cards_are(game: str, n: int, kind: str, steps: int) -> None:
    found = 0
    for env in _decisions(game, n, 11, steps):
        seat = env.engine.acting_seat
        obs = env.encode_seat(seat)
        moved = env.engine.resample_hidden(seat, random.Random(5))  # the same to this seat, other cards elsewhere
        first = agent_move(_expert(game, n, seed=3, kind=kind), env, seat, obs, None)
        env.engine, env._legal_cache = moved, None
        assert env.encode_seat(seat).tobytes() == obs.tobytes()
        assert agent_move(_expert(game, n, seed=3, kind=kind), env, seat, obs, None) == first
        found += 1
        if found == 3:
            break
    assert found == 3


@pytest.mark.parametrize("game,n", COUNTS)
def test_the_expert_plays_the_same_whatever_the_unseen_cards_really_are(game, n):
    _plays_the_same_whatever_the_unseen_cards_are(game, n, "expert", 9)


BELIEF_COUNTS = [("siantappo", 4), ("siantappo", 3), ("suipi", 2), ("suipi", 4)]


@pytest.mark.parametrize("game,n", BELIEF_COUNTS)
@pytest.mark.parametrize("steps", [9, 130])
def test_the_belief_expert_plays_the_same_whatever_the_unseen_cards_really_are(game, n, steps):
    """The belief-aware sampler weighs worlds by the others' moves this round: still only from
    what the seat knows (130 random moves in: a later Siantappo round, after a swap)."""
    _plays_the_same_whatever_the_unseen_cards_are(game, n, "belief", steps)


SHORT = {"siantappo": {"rounds": 1}, "suipi": {}, "samsip": {"bankroll": 3}}  # short matches, same play


@pytest.mark.parametrize("game,n", EVERY_COUNT)
def test_an_expert_with_a_tiny_budget_plays_a_whole_legal_match_and_repeats_it(game, n):
    """expert:1 on seat 0 against rule bots, through the checked path (an illegal move raises);
    the same seed plays the same match again."""
    module = game_spec(game).module

    def play(seed: int) -> list[int]:
        env = module.raw_env(num_players=n, **SHORT[game])
        env.reset(seed=seed)
        agents = [make_agent(parse_agent_spec("expert:1"), module, env.config, seed=seed)]
        agents += [module.RuleBot(env.config, seed=seat) for seat in range(1, n)]
        moves = []
        while env.agents:
            name = env.agent_selection
            if env.terminations[name] or env.truncations[name]:
                env.step(None)
                continue
            seat = env.agent_seat[name]
            obs = env.observe(name)
            action = agent_move(agents[seat], env, seat, obs["observation"], obs["action_mask"])
            env.step(action)
            moves.append(action)
        return moves

    first = play(4)
    assert len(first) > 10 and play(4) == first


@pytest.mark.parametrize("game,n", [("suipi", 2), ("samsip", 2)])
def test_a_reseeded_expert_plays_as_a_fresh_one(game, n):
    """A tournament reuses an agent and reseeds it per game: its game must not depend on the games
    it played before (else results would depend on which worker played which game)."""
    module = game_spec(game).module

    def moves(agent, seed: int) -> list[int]:
        env = module.raw_env(num_players=n, **SHORT[game])
        env.begin(seed)
        bot = module.RuleBot(env.config, seed=1)
        agent.seed(seed)
        out = []
        while not env.engine.done:
            seat = env.acting_seat
            legal = env.legal_now()
            mask = np.zeros(env.num_actions, np.int8)
            mask[legal] = 1
            obs = env.encode_seat(seat)
            action = agent_move(agent, env, 0, obs, mask) if seat == 0 else bot.act(obs, mask)
            out.append(action)
            env.advance(action)
        return out

    used = _expert(game, n, seed=0, samples=1)
    moves(used, 8)
    assert moves(used, 9) == moves(_expert(game, n, seed=0, samples=1), 9)


def test_expert_specs():
    assert parse_agent_spec("expert").kind == "expert" and parse_agent_spec("expert").budget is None
    spec = parse_agent_spec("expert:16@3")
    assert (spec.kind, spec.budget, spec.seed, spec.label) == ("expert", 16, 3, "expert:16@3")
    with pytest.raises(UserError, match="budget"):
        parse_agent_spec("expert:0")
    with pytest.raises(UserError, match="unknown agent 'rules:3'"):
        parse_agent_spec("rules:3")


def test_the_expert_asks_for_the_match_not_an_observation():
    agent = _expert("samsip", 2, seed=0)
    with pytest.raises(UserError, match="act_in"):
        agent.act(np.zeros(3, np.float32), np.ones(3, np.int8))


def test_bench_agents_times_real_decisions(tmp_path, capsys):
    import json

    from cardzoo.benchmarks.report import render_agents
    from cardzoo.scripts.cli import main as cli

    out = tmp_path / "a.json"
    assert (
        cli(["bench", "samsip", "--players", "2", "--agents", "rules,random", "--matches", "1", "--json", str(out)])
        == 0
    )
    doc = json.loads(out.read_text())
    assert [(r["game"], r["players"], r["agent"]) for r in doc["agents"]] == [
        ("samsip", 2, "rules"),
        ("samsip", 2, "random"),
    ]
    assert all(r["decisions"] > 0 and 0 <= r["mean_ms"] <= r["p99_ms"] for r in doc["agents"])
    assert doc["command"] == "cardzoo bench samsip --agents rules,random --players 2 --matches 1"
    assert render_agents(doc) in capsys.readouterr().out


def test_the_expert_counts_the_searches_that_overrode_the_model():
    """``searches`` / ``departures``: the decisions it searched, and those where it played another
    complete move than the model's first choice (what ``cardzoo bench --agents`` reports)."""
    from cardzoo.training.evaluation.model_card import move_time

    agent, searched, departed = _expert("suipi", 2, seed=4), 0, 0
    for env in _decisions("suipi", 2, 31, 5):
        seat = env.engine.acting_seat
        obs = env.encode_seat(seat)
        moves = agent.model.advise(obs, env.mask_now())[: agent.width]  # each from here on
        done = tuple(agent.model.reader.read(obs).prefix)  # the sub-steps of this move already played
        agent.reset()  # a fresh choice, not the rest of a planned move
        agent_move(agent, env, seat, None, None)
        if len(moves) > 1:
            searched += 1
            departed += agent.planned_move() != done + tuple(moves[0][0])
    assert agent.searches == searched > 10 and agent.departures == departed
    assert departed > 0  # the search does override the model here (3 of the 14 decisions)
    row = move_time("expert:2", "suipi", 2, matches=1, seed=3, real_only=True)
    assert 0 <= row["departed"] <= row["searched"] <= row["decisions"]
    assert "searched" not in move_time("rules", "suipi", 2, matches=1, seed=3, real_only=True)


# ------------------------------------------------------------------ expert iteration: the warm start copies it
def test_the_warm_start_records_each_fresh_choice_of_the_expert(monkeypatch):
    """``imitate_from="expert"``: every seat is an expert, and each of its real choices becomes one
    sample whose chosen index is the expert's complete move among the reader's candidates; the
    other seats of its sampled deals are played by the answer asked for."""
    from cardzoo.training.agents import expert as expert_module
    from cardzoo.training.agents.net_agents import whole_moves_reader
    from cardzoo.training.dmc.warm_start import imitation_task

    made: dict[int, list] = {}  # seat -> [(observation, mask, chosen move)] in order
    answered: set[str] = set()  # the kinds of player that answered in the sampled deals
    original = expert_module.ExpertAgent.act_in

    def act_in(self, env, seat):
        answered.update(type(bot).__name__ for bot in self.bots)
        before = self.planned_move()
        action = original(self, env, seat)
        if self.planned_move() is not before:
            mask = np.zeros(env.num_actions, np.int8)
            mask[env.legal_now()] = 1
            made.setdefault(seat, []).append((env.encode_seat(seat), mask, self.planned_move()))
        return action

    monkeypatch.setattr(expert_module.ExpertAgent, "act_in", act_in)
    samples = imitation_task("suipi", (2,), {}, 1, seed=5, imitate_from="expert", answer="scripted")
    assert answered == {"RuleBot"}
    reader = whole_moves_reader("suipi", game_spec("suipi").raw_env(num_players=2).config)
    expected = []
    for seat in sorted(made):
        for obs, mask, move in made[seat]:
            seqs, rows = reader.candidates(reader.read(obs), mask)
            if len(seqs) > 1:
                expected.append((obs, rows, seqs.index(move)))
    assert len(samples) == len(expected) > 10
    for (obs, rows, chosen, _ret, _values), (e_obs, e_rows, e_chosen) in zip(samples, expected):
        assert np.array_equal(obs, e_obs) and np.array_equal(rows, e_rows) and chosen == e_chosen
    # the search's values of the moves it searched (at most its width), the chosen one among them
    searched = [~np.isnan(v) for *_, v in samples]
    assert all(len(v) == len(s[1]) and (not v.any() or v[s[2]]) for v, s in zip(searched, samples))
    assert all(v.sum() <= 5 for v in searched) and sum(v.sum() >= 2 for v in searched) > len(samples) // 2

    import torch

    from cardzoo.training.agents.ranker import MoveRankerNet
    from cardzoo.training.dmc.warm_start import imitation_loss

    torch.manual_seed(0)
    net = MoveRankerNet(len(samples[0][0]), samples[0][1].shape[1], [16], "relu", 0)
    loss, hits = imitation_loss(net, samples, "values")
    assert torch.isfinite(loss) and 0 <= hits <= len(samples)
    loss.backward()  # NaN targets (moves it did not search) are left out, so the gradient is finite
    assert all(p.grad is not None and torch.isfinite(p.grad).all() for p in net.parameters())


def test_init_starts_from_a_checkpoint_and_refuses_one_that_does_not_fit(tmp_path):
    import torch

    from cardzoo.scripts.cli import main
    from cardzoo.training.agents.checkpoint import save_checkpoint
    from cardzoo.training.agents.networks import load_checkpoint
    from cardzoo.training.agents.policy import MaskedPolicyNet
    from cardzoo.training.agents.ranker import MoveRankerNet
    from cardzoo.training.agents.shipped import shipped_model_path
    from cardzoo.training.dmc.trainer import DMCSettings, start_from

    path = shipped_model_path("suipi", 2)
    shipped, _ = load_checkpoint(path)
    net = MoveRankerNet(shipped.obs_size, shipped.move_features, [256, 256], "relu", shipped.num_actions)
    start_from(net, path, "suipi")
    assert all(torch.equal(a, b) for a, b in zip(net.state_dict().values(), shipped.state_dict().values()))
    with pytest.raises(UserError, match="a suipi checkpoint, not a siantappo one"):
        start_from(net, path, "siantappo")
    narrow = MoveRankerNet(shipped.obs_size, shipped.move_features, [64], "relu", shipped.num_actions)
    with pytest.raises(UserError, match=r"--init .*hidden layers \[256, 256\]"):
        start_from(narrow, path, "suipi")
    policy = tmp_path / "policy"  # a PPO policy checkpoint (found passing one: the message asked for --hidden)
    save_checkpoint(
        policy,
        MaskedPolicyNet(shipped.obs_size, shipped.num_actions, [8]),
        {"game": "suipi", "env": "suipi_v0", "player_counts": [2], "config": {"num_players": 2}, "name": "policy"},
    )
    with pytest.raises(UserError, match=r"a policy network .*not a move ranker"):
        start_from(net, str(policy), "suipi")
    out = tmp_path / "run"
    assert main(["train", "suipi", "--algo", "dmc", "--init", path, "--hidden", "64", "--out", str(out)]) == 2
    assert not out.exists()  # refused before the run directory was made: the same --out works next time
    with pytest.raises(UserError, match="--init: checkpoint file not found"):
        DMCSettings(game="suipi", players=(2,), init=str(tmp_path / "nothing"))
    with pytest.raises(UserError, match="--imitate-from must be one of rules, teacher, expert"):
        DMCSettings(game="suipi", players=(2,), imitate_from="oracle")
    with pytest.raises(UserError, match="--imitate-targets values needs --imitate-from expert"):
        DMCSettings(game="suipi", players=(2,), imitate_targets="values")


def test_who_answers_in_the_leaves():
    """Siantappo's and Suipi's experts let the model answer for the other seats (measured stronger
    there); Sam Sip's its lookahead player; an unknown answer is a one-line error. Expert iteration
    writes the answer it had into the run's settings."""
    from cardzoo.training.agents.net_agents import RankerAgent
    from cardzoo.training.dmc.trainer import DMCSettings

    assert all(isinstance(bot, RankerAgent) for bot in _expert("siantappo", 4, seed=0).bots)
    assert all(isinstance(bot, RankerAgent) for bot in _expert("suipi", 2, seed=0).bots)
    assert all(type(bot).__name__ == "LookaheadBot" for bot in _expert("samsip", 2, seed=0).bots)
    from cardzoo.training.agents.expert import ExpertAgent

    module = game_spec("suipi").module
    model = make_agent("model", module, module.raw_env(num_players=2).config, seed=0)
    with pytest.raises(UserError, match="answer must be one of"):
        ExpertAgent(module, model.reader.config, model, answer="oracle")
    scripted = ExpertAgent(module, model.reader.config, model, answer="scripted")
    assert all(type(b).__name__ == "RuleBot" for b in scripted.bots)
    assert DMCSettings(game="suipi", players=(2,), imitate_from="expert").expert_answer == "model"
    assert DMCSettings(game="samsip", players=(2,), imitate_from="expert").expert_answer == "scripted"
    settings = DMCSettings(game="suipi", players=(2,), imitate_from="expert", expert_answer="scripted")
    assert settings.expert_answer == "scripted"
    with pytest.raises(UserError, match="--expert-answer must be one of scripted, model"):
        DMCSettings(game="suipi", players=(2,), imitate_from="expert", expert_answer="oracle")
    with pytest.raises(UserError, match="--expert-answer needs --imitate-from expert"):
        DMCSettings(game="suipi", players=(2,), expert_answer="model")


def test_scripted_players_that_read_the_engine_leave_the_search_unchanged(monkeypatch):
    """In the leaves, a scripted player that reads the engine as its seat sees it (``act_seat``:
    Sam Sip's lookahead player, which plays every hand out) makes the moves it makes on the seat's
    observation: the searched values are the very same floats either way."""
    from cardzoo.envs.samsip.bot import RuleBot

    def search(env):
        expert = _expert("samsip", 3, seed=4)
        seat = env.engine.acting_seat
        agent_move(expert, env, seat, env.encode_seat(seat), None)
        return expert.searched

    envs = [env for env, _ in zip(_decisions("samsip", 3, 21, 12), range(3))]
    fast = [search(env) for env in envs]
    monkeypatch.delattr(RuleBot, "act_seat")
    slow = [search(env) for env in envs]
    assert fast == slow and any(len(values) > 1 for values in fast)


# ------------------------------------------------------------------ the belief-aware sampler
def _random_states(game: str, count: int, seed: int = 0):
    """Seeded states of random play at every count of the game, each with a seat to act."""
    counts = game_spec(game).player_counts
    for k in range(count):
        env = game_spec(game).module.raw_env(num_players=counts[k % len(counts)])
        env.begin(seed + k)
        rng = random.Random(seed + k)
        for _ in range(rng.randrange(1, 300)):
            if env.engine.done:
                break
            env.advance(rng.choice(env.legal_now()))
        if not env.engine.done:
            yield env


@pytest.mark.parametrize("game", ["siantappo", "suipi"])
def test_a_round_replayed_in_the_true_deal_is_the_round_that_was_played(game):
    """``round_replay`` run on the true engine: every move it replays is legal and is the one made,
    and it ends in the very state of now."""
    replayed = 0
    for env in _random_states(game, 50):
        e, last = env.engine, None
        for state, mover, _legal, chosen in e.round_replay(-1):  # -1: every seat's moves
            assert chosen >= 0 and mover == state.acting_seat
            last = state
        if last is None:
            continue
        replayed += 1
        assert last.acting_seat == e.acting_seat and [sorted(h) for h in last.hands] == [sorted(h) for h in e.hands]
        if game == "suipi":
            assert (last.floor, last.captured, last.suipis) == (e.floor, e.captured, e.suipis)
        else:
            assert (last.current, last.passed, last.trick, last.counts) == (e.current, e.passed, e.trick, e.counts)
    assert replayed > 35


def test_the_swap_facts_are_what_the_swap_rule_would_have_done():
    """Siantappo's ``consistent_with(seat)`` on dealt worlds agrees with the swap rule (T11) run
    again on each world's hands from before the swap: the lower placed seat gave its highest
    cards, the higher placed one its lowest."""
    outcomes = set()
    for env in _random_states("siantappo", 60, seed=100):
        e = env.engine
        if not e.round_places or e.phase != "play":
            continue
        for j in range(6):
            seat = (e.acting_seat + j) % e.n
            world = e.resample_hidden(seat, random.Random(j))
            start = world.round_start_hands()
            expected = True
            for high, low, count in world._swap_pairs():
                if seat not in (high, low):
                    continue
                given, received = world.swap_given[seat], world.swap_received[seat]
                if seat == high:  # low held, before the swap: what it holds now less what seat gave, plus received
                    before = sorted(k for k in start[low] if k not in given) + list(received)
                    expected &= sorted(before)[-count:] == sorted(received)
                elif not world.cfg.swap_choice:  # high held its own cards and seat's gift: it gave back its lowest
                    before = [k for k in start[high] if k not in given] + list(received)
                    expected &= sorted(before)[:count] == sorted(received)
            assert world.consistent_with(seat) == expected
            assert e.consistent_with(seat)  # the true deal always is
            outcomes.add(expected)
    assert outcomes == {True, False}


@pytest.mark.parametrize("game", ["siantappo", "suipi"])
def test_belief_draws_worlds_that_explain_the_moves_made_better_than_uniform_dealing(game):
    from cardzoo.training.agents.belief import log_likelihood, weighted_worlds

    module, gains, impossible = game_spec(game).module, [], 0
    for env in _random_states(game, 12, seed=300):
        e, seat = env.engine, env.engine.acting_seat
        scorer = module.RuleBot(env.config, seed=0)
        uniform = [e.resample_hidden(seat, random.Random(k)) for k in range(16)]
        worlds, times = weighted_worlds(e, seat, random.Random(1), 16, 4, scorer)
        assert sum(times) == 16 and len(worlds) == len(times) and all(t > 0 for t in times)
        plain = [log_likelihood(w, seat, scorer) for w in uniform]
        impossible += plain.count(float("-inf"))
        possible = [x for x in plain if x > float("-inf")] or [0.0]
        drawn = [log_likelihood(w, seat, scorer) for w in worlds]
        gains.append(np.average(drawn, weights=times) - np.mean(possible))
        assert min(drawn) > float("-inf") or not possible  # an impossible world is never drawn
    assert np.mean(gains) > 0.5 and min(gains) > -0.5  # (no moves yet this round: no gain to make)
    if game == "suipi":
        assert impossible > 0  # a move made that the dealt hand could not make: the world is dropped


def test_a_modelled_move_probability_is_a_distribution_that_prefers_better_scores():
    from cardzoo.training.agents.belief import move_probability

    scores = [2.0, 0.5, 3.0, 0.5]
    probs = [move_probability(scores, i) for i in range(4)]
    assert sum(probs) == pytest.approx(1.0) and probs[1] == probs[3] > probs[0] > probs[2] > 0
    out = [move_probability([1.0, float("-inf"), 0.0], i) for i in range(3)]
    assert sum(out) == pytest.approx(1.0) and out[1] > 0.9 and out[0] == out[2] > 0


def test_belief_specs():
    spec = parse_agent_spec("belief:16@3")
    assert (spec.kind, spec.budget, spec.sampler, spec.label) == ("expert", 16, "belief", "belief:16@3")
    assert parse_agent_spec("expert").sampler == "uniform"
    agent = _expert("suipi", 2, seed=0, samples=4, kind="belief")
    assert (agent.sampler, agent.samples) == ("belief", 4)
    with pytest.raises(UserError, match="the belief-aware expert needs the round's history, which samsip"):
        _expert("samsip", 2, seed=0, kind="belief")
