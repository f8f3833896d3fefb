"""cardzoo.vector against the AEC env it batches: the same deals, moves, observations, masks and
rewards for the same seed, at every game and player count; seeding, autoreset, bad input,
knock-outs (Sam Sip), the opponents' moves, and the registered ids under the libraries' checkers."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import gymnasium
import numpy as np
import pettingzoo
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import cardzoo.vector as cv
from cardzoo.envs.base import IllegalMoveError
from cardzoo.envs.errors import UserError
from cardzoo.envs.registry import game_spec
from cardzoo.training.agents.specs import make_agent
from cardzoo.vector.opponents import opponent_seed

GAME_COUNTS = [(g, n) for g in ("siantappo", "suipi", "samsip") for n in game_spec(g).player_counts]
GAMES = ("siantappo", "suipi", "samsip")
# matches that end soon
SHORT: dict[str, dict[str, Any]] = {"siantappo": {"rounds": 1}, "suipi": {"match_deals": 1}, "samsip": {"bankroll": 3}}


class AecTable:
    """The AEC env of one table, driven as the vector API drives it: the learner's moves given from
    outside, every other seat by its agent (built from the same spec and seed), reset() after
    each match. ``to_learner`` plays up to the learner's next decision."""

    def __init__(self, game, n, seed, opponents, learner=(0,), play_forced=False, **config):
        self.play_forced = play_forced
        self.module = game_spec(game).module
        self.env = self.module.raw_env(num_players=n, **config)
        self.learner = set(learner)
        self.env.reset(seed=seed)
        self.agents = {
            s: make_agent(opponents, self.module, self.env.config, seed=opponent_seed(seed, s))
            for s in range(n)
            if s not in self.learner
        }
        self._new_match()

    def _new_match(self):
        for agent in self.agents.values():
            agent.reset()
        self.earned = 0.0  # the learner's reward since its last decision
        self.totals = [0.0] * self.env.num_players  # every seat's reward in the match

    def _learner_out(self):
        env = self.env
        return all(
            env.possible_agents[s] not in env.terminations
            or env.terminations[env.possible_agents[s]]
            or env.truncations[env.possible_agents[s]]
            for s in self.learner
        )

    def _play(self, action):
        env = self.env
        env.step(action)
        for name, r in env.rewards.items():
            self.totals[env.agent_seat[name]] += r
            if env.agent_seat[name] in self.learner:
                self.earned += r

    def to_learner(self):
        """Plays the opponents; (observation dict, seat) at the learner's next decision, or None when
        the learner's match is over."""
        env = self.env
        while not self._learner_out():
            name = env.agent_selection
            if env.terminations[name] or env.truncations[name]:
                env.step(None)
                continue
            seat = env.agent_seat[name]
            obs = env.observe(name)
            if seat in self.learner and self.play_forced and obs["action_mask"].sum() == 1:
                self._play(int(np.flatnonzero(obs["action_mask"])[0]))
                continue
            if seat in self.learner:
                return obs, seat
            self._play(self.agents[seat].act(obs["observation"], obs["action_mask"]))
        return None

    def learner_moves(self, action):
        """The learner plays ``action``: (reward since its previous decision, match over)."""
        self._play(action)
        at = self.to_learner()
        reward, self.earned = self.earned, 0.0
        if at is None:
            self.ranks = game_spec(self.env.metadata["name"].removesuffix("_v0")).final_ranking(self.env, self.totals)
            while True:  # a match the learner is knocked out of before it acts is skipped
                self.env.reset()
                self._new_match()
                if self.to_learner() is not None:
                    return reward, True
        return reward, False


def _random_actions(rng, mask):
    return np.array([rng.choice(np.flatnonzero(row)) for row in mask], np.int64)


@pytest.mark.parametrize(
    "game, n, opponents, play_forced",
    [(g, n, "rules", False) for g, n in GAME_COUNTS]
    + [(g, game_spec(g).default_players, "random", True) for g in GAMES],
)
def test_a_table_plays_the_aec_env_move_for_move(game, n, opponents, play_forced):
    """Table i of a vector env seeded s is the AEC env reset(seed=s + i) then reset() for every later
    match, its opponents the same agents: the same observations, masks, rewards and match ends."""
    seed, tables = 11, 2
    envs = cv.make(game, tables, num_players=n, opponents=opponents, seed=seed, play_forced=play_forced, **SHORT[game])
    aec = [AecTable(game, n, seed + i, opponents, play_forced=play_forced, **SHORT[game]) for i in range(tables)]
    obs, info = envs.reset()
    starts = [t.to_learner() for t in aec]
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(150):
        for i, (o, seat) in enumerate(starts):
            assert info["seat"][i] == seat
            np.testing.assert_array_equal(obs["observation"][i], o["observation"])
            np.testing.assert_array_equal(obs["action_mask"][i], o["action_mask"])
            assert not play_forced or o["action_mask"].sum() > 1
        actions = _random_actions(rng, obs["action_mask"])
        obs, rewards, terminated, truncated, info = envs.step(actions)
        for i, t in enumerate(aec):
            reward, over = t.learner_moves(int(actions[i]))
            assert rewards[i] == pytest.approx(reward, abs=1e-9)
            assert terminated[i] == over and not truncated[i]
            if over:  # who won: every seat's place, by the game's rule
                np.testing.assert_allclose(info["final_info"]["ranks"][i], t.ranks)
            ends += over
            starts[i] = t.to_learner()
    assert ends >= 1  # autoreset was crossed


def _aec_to_decision(env, play_forced, totals, left):
    """Dead steps (and, with ``play_forced``, moves without a choice) up to the next real decision
    or the end of the match; each seat's rewards into ``totals``, seats that leave into ``left``.
    True while the match goes on."""
    while env.agents:
        name = env.agent_selection
        if env.terminations[name] or env.truncations[name]:
            if all(env.terminations[a] or env.truncations[a] for a in env.agents):
                return False
            env.step(None)
            continue
        legal = np.flatnonzero(env.observe(name)["action_mask"])
        if not (play_forced and len(legal) == 1):
            return True
        _aec_step(env, int(legal[0]), totals, left)
    return False


def _aec_step(env, action, totals, left):
    env.step(action)
    for name, r in env.rewards.items():
        totals[env.agent_seat[name]] += r
    left.update(env.agent_seat[a] for a in env.agents if env.terminations[a] or env.truncations[a])


@pytest.mark.parametrize(
    "game, n, play_forced",
    [(g, n, False) for g, n in GAME_COUNTS] + [(g, game_spec(g).default_players, True) for g in GAMES],
)
def test_selfplay_plays_the_aec_env_and_its_rewards_sum_to_the_aec_totals(game, n, play_forced):
    seed = 5
    sp = cv.SelfPlay(game, 2, num_players=n, seed=seed, play_forced=play_forced, **SHORT[game])
    envs = [game_spec(game).module.raw_env(num_players=n, **SHORT[game]) for _ in range(2)]
    totals = np.zeros((2, n))  # the AEC env's rewards in the match in progress
    given = np.zeros((2, n))  # the rewards SelfPlay has reported in it
    lefts: list[set[int]] = [set(), set()]
    for i, env in enumerate(envs):
        env.reset(seed=seed + i)
        assert _aec_to_decision(env, play_forced, totals[i], lefts[i])
    turn = sp.reset()
    rng = np.random.default_rng(1)
    matches = 0
    for _ in range(400):
        for i, env in enumerate(envs):
            o = env.observe(env.agent_selection)
            assert turn.seat[i] == env.agent_seat[env.agent_selection]
            np.testing.assert_array_equal(turn.observation[i], o["observation"])
            np.testing.assert_array_equal(turn.action_mask[i], o["action_mask"])
            assert not play_forced or o["action_mask"].sum() > 1
        actions = _random_actions(rng, turn.action_mask)
        turn = sp.step(actions)
        for i, env in enumerate(envs):
            lefts[i] = set()
            _aec_step(env, int(actions[i]), totals[i], lefts[i])
            going = _aec_to_decision(env, play_forced, totals[i], lefts[i])
            given[i] += turn.rewards[i]
            assert sorted(np.flatnonzero(turn.ended[i])) == sorted(lefts[i])
            assert turn.done[i] == (not going)
            if turn.done[i]:
                np.testing.assert_allclose(given[i], totals[i], atol=1e-9)
                given[i] = totals[i] = 0
                env.reset()
                while not _aec_to_decision(env, play_forced, totals[i], set()):
                    env.reset()
                matches += 1
    assert matches >= 1


def test_seeding_and_autoreset_reproduce():
    def run(seed_at_make, seed_at_reset):
        envs = cv.make("samsip", 3, num_players=4, opponents="random", seed=seed_at_make)
        obs, _ = envs.reset(seed=seed_at_reset)
        rng = np.random.default_rng(2)
        out = [obs["observation"].copy()]
        for _ in range(120):
            obs, r, term, _trunc, _info = envs.step(_random_actions(rng, obs["action_mask"]))
            out += [obs["observation"].copy(), r.copy(), term.copy()]
        return out

    a, b, c = run(7, None), run(None, 7), run(8, None)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c))
    assert sum(t.sum() for t in a[3::3]) >= 2  # matches ended and restarted inside the run
    envs = cv.make("siantappo", 2, num_players=3, opponents="random")
    first = envs.reset(seed=[4, 9])[0]["observation"]
    again = envs.reset(seed=[4, 9])[0]["observation"]
    np.testing.assert_array_equal(first, again)
    np.testing.assert_array_equal(
        first[1], cv.make("siantappo", 1, num_players=3, opponents="random", seed=9).reset()[0]["observation"][0]
    )


def test_a_model_opponent_plays_as_in_the_aec_env():
    seed = 3
    envs = cv.make("siantappo", 2, num_players=4, opponents="model", seed=seed)
    aec = [AecTable("siantappo", 4, seed + i, "model") for i in range(2)]
    obs, _ = envs.reset()
    starts = [t.to_learner() for t in aec]
    rng = np.random.default_rng(3)
    for _ in range(40):
        for i, (o, _seat) in enumerate(starts):
            np.testing.assert_array_equal(obs["observation"][i], o["observation"])
        actions = _random_actions(rng, obs["action_mask"])
        obs, rewards, *_ = envs.step(actions)
        for i, t in enumerate(aec):
            assert rewards[i] == pytest.approx(t.learner_moves(int(actions[i]))[0], abs=1e-9)
            starts[i] = t.to_learner()


def test_a_callable_opponent_is_asked_with_the_observation_and_mask():
    seen = []

    def lowest(observation, action_mask):
        seen.append((observation.shape, action_mask.dtype))
        return int(np.flatnonzero(action_mask)[0])

    envs = cv.make("suipi", 2, num_players=4, opponents=lowest, learner_seats=(0, 2), seed=0)
    obs, info = envs.reset()
    assert set(info["seat"]) <= {0, 2}
    for _ in range(30):
        obs, *_rest, info = envs.step(_random_actions(np.random.default_rng(0), obs["action_mask"]))
        assert set(info["seat"]) <= {0, 2}
    space = envs.single_observation_space
    assert isinstance(space, gymnasium.spaces.Dict)
    observation = space["observation"]
    assert isinstance(observation, gymnasium.spaces.Box)
    assert seen and seen[0] == ((observation.shape[0],), np.int8)
    bad = cv.make("suipi", 2, num_players=2, opponents=lambda o, m: -1, seed=0)

    def play_bad():
        obs, _ = bad.reset()
        for _ in range(5):
            obs, *_ = bad.step(_random_actions(np.random.default_rng(0), obs["action_mask"]))

    with pytest.raises(UserError, match=r"^table 0: the opponent at seat 1 \(<lambda>\) chose -1, not a legal"):
        play_bad()


def test_bad_actions_are_one_line_errors_naming_the_table_and_change_nothing():
    envs = cv.make("siantappo", 3, num_players=4, opponents="rules", seed=1)
    obs, _ = envs.reset()
    good = _random_actions(np.random.default_rng(0), obs["action_mask"])
    for actions, pattern in (
        (good[:2], r"shape \(3,\): one action id per table, got shape \(2,\)"),
        (good.astype(float), "integer action ids, got dtype float64"),
        ("x", r"shape \(3,\)"),
    ):
        with pytest.raises(UserError, match=pattern) as e:
            envs.step(actions)
        assert "\n" not in str(e.value)
    illegal = good.copy()
    illegal[1] = int(np.flatnonzero(obs["action_mask"][1] == 0)[0])
    with pytest.raises(IllegalMoveError, match=rf"^table 1: illegal action {illegal[1]} \(") as e:
        envs.step(illegal)
    assert "\n" not in str(e.value) and e.value.legal
    out_of_range = good.copy()
    out_of_range[2] = 10_000
    with pytest.raises(IllegalMoveError, match=r"^table 2: illegal action 10000 \(out of range"):
        envs.step(out_of_range)
    twin = cv.make("siantappo", 3, num_players=4, opponents="rules", seed=1)
    twin.reset()
    a, b = envs.step(good), twin.step(good)  # the refused batches changed nothing
    np.testing.assert_array_equal(a[0]["observation"], b[0]["observation"])
    np.testing.assert_array_equal(a[1], b[1])


def test_illegal_terminate_ends_the_match_with_the_penalty():
    envs = cv.make("samsip", 2, num_players=3, opponents="rules", seed=4, illegal="terminate", illegal_reward=-2.5)
    obs, _ = envs.reset()
    actions = _random_actions(np.random.default_rng(0), obs["action_mask"])
    actions[0] = int(np.flatnonzero(obs["action_mask"][0] == 0)[0])
    obs2, rewards, terminated, _truncated, info = envs.step(actions)
    assert terminated.tolist() == [True, False] and rewards[0] == -2.5
    assert info["_final_info"].tolist() == [True, False] and info["final_info"]["illegal_action"][0]
    assert info["final_obs"][0]["action_mask"].sum() == 0 and obs2["action_mask"][0].sum() > 0
    sp = cv.SelfPlay("samsip", 1, num_players=3, seed=0, illegal="terminate")
    turn = sp.reset()
    seat = turn.seat[0]
    turn = sp.step([int(np.flatnonzero(turn.action_mask[0] == 0)[0])])
    assert turn.done[0] and turn.illegal[0] and turn.ended[0].all() and turn.rewards[0, seat] == -1.0
    with pytest.raises(UserError, match="illegal must be one of 'raise', 'terminate'"):
        cv.make("samsip", 1, illegal="ignore")


def _knock_out_run(envs, obs, steps, check):
    rng = np.random.default_rng(0)
    for _ in range(steps):
        obs, _rewards, terminated, _truncated, info = envs.step(_random_actions(rng, obs["action_mask"]))
        check(obs, terminated, info)
    return obs


def test_a_knocked_out_seat_stops_acting():
    """Sam Sip: a seat knocked out never acts again in that match; the learner's match ends when
    all its seats are out, and the table goes on with a new match."""
    sp = cv.SelfPlay("samsip", 4, num_players=6, seed=2, bankroll=3)
    turn = sp.reset()
    out = np.zeros((4, 6), bool)
    knocked = 0
    rng = np.random.default_rng(4)
    for _ in range(3000):
        assert not out[np.arange(4), turn.seat].any()
        turn = sp.step(_random_actions(rng, turn.action_mask))
        knocked += (turn.ended & ~turn.done[:, None]).sum()
        out |= turn.ended
        out[turn.done] = False
    assert knocked > 10

    envs = cv.make("samsip", 4, num_players=6, opponents="random", learner_seats=(0, 3), seed=1, bankroll=3)
    obs, _ = envs.reset()
    solo = []

    def check(obs, terminated, info):
        assert set(info["seat"]) <= {0, 3}
        assert (obs["action_mask"].sum(axis=1) > 0).all()
        solo.append(terminated.sum())

    _knock_out_run(envs, obs, 400, check)
    assert sum(solo) > 3


def test_the_registered_ids_pass_the_libraries_checkers():
    for game in GAMES:
        spec = game_spec(game)
        aec = pettingzoo.make("aec", f"cardzoo/{game}-v0", num_players=spec.default_players)
        api_test(aec, num_cycles=100)
    for name in ("Siantappo", "Suipi", "SamSip"):
        env = gymnasium.make(f"cardzoo/{name}-v0", opponents="rules")
        with pytest.warns(UserWarning, match="different from the unwrapped version"):
            check_env(env)  # as a user calls it: Gymnasium's wrappers on, every render mode drawn
        vec = gymnasium.make_vec(f"cardzoo/{name}-v0", num_envs=3)
        assert isinstance(vec.unwrapped, cv.TablesEnv) and vec.num_envs == 3
        assert vec.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
        obs, _ = vec.reset(seed=0)
        assert obs in vec.observation_space
    env = gymnasium.make("cardzoo/Siantappo-v0", num_players=3, rounds=1, render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert isinstance(frame, np.ndarray) and frame.shape[2] == 3


def test_one_table_env_is_the_first_table_of_the_vector_env():
    one = gymnasium.make("cardzoo/Suipi-v0", opponents="random", num_players=4, illegal="raise").unwrapped
    many = cv.make("suipi", 1, num_players=4, opponents="random", seed=6)
    o1, _ = one.reset(seed=6)
    o2, _ = many.reset()
    rng = np.random.default_rng(5)
    for _ in range(200):
        np.testing.assert_array_equal(o1["observation"], o2["observation"][0])
        a = int(rng.choice(np.flatnonzero(o1["action_mask"])))
        o1, r1, t1, _, _ = one.step(a)
        o2, r2, t2, _, info = many.step([a])
        assert r1 == r2[0] and t1 == t2[0]
        if t1:
            np.testing.assert_array_equal(o1["observation"], info["final_obs"][0]["observation"])
            o1, _ = one.reset()
    with pytest.raises(IllegalMoveError, match="action must be an integer action id"):
        one.step("1S")


@pytest.mark.parametrize("first", ["cardzoo", "gymnasium, pettingzoo"])
def test_import_cardzoo_registers_without_importing_the_registries(first):
    code = (
        f"import sys; import {first}; import cardzoo; "
        "assert 'cardzoo' in sys.modules; "
        "heavy = [m for m in sys.modules if m.split('.')[0] in ('gymnasium', 'pettingzoo', 'numpy')]; "
        f"assert {first!r} != 'cardzoo' or not heavy, heavy; "
        "import gymnasium, pettingzoo; "
        "print(type(pettingzoo.make('aec', 'cardzoo/samsip-v0', num_players=3).unwrapped).__name__, "
        "type(gymnasium.make('cardzoo/Suipi-v0').unwrapped).__name__)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.split() == ["SamSipEnv", "TableEnv"], r.stdout + r.stderr


def test_bad_settings_are_one_line_errors():
    for kwargs, pattern in (
        ({"learner_seats": (0, 9)}, "learner_seats must be distinct seats 0..3"),
        ({"opponents": ["rules"]}, "1 given for the 3 seats"),
        ({"opponents": "nobody"}, "unknown agent 'nobody'"),
        ({"seed": "x"}, "seed must be an integer"),
    ):
        with pytest.raises(UserError, match=pattern):
            cv.make("siantappo", 2, num_players=4, **kwargs)
    with pytest.raises(UserError, match="number of tables"):
        cv.make("siantappo", 0)
    with pytest.raises(UserError, match="step\\(\\) before reset"):
        cv.SelfPlay("suipi", 1).step([0])
