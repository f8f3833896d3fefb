"""cardzoo.agents, the public way to load an agent: the same moves as the agents ``cardzoo eval``
builds from the same spec and seed, given the observation dict or its arrays; the expert through
``env=``; one-line errors; no torch for the shipped models."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import cardzoo.agents
from cardzoo.envs.errors import UserError
from cardzoo.envs.registry import game_spec
from cardzoo.training.agents.shipped import shipped_model_path
from cardzoo.training.agents.specs import agent_move, make_agent

SHORT = {"siantappo": {"rounds": 1}, "suipi": {"match_deals": 1}, "samsip": {"bankroll": 3}}


def _match(game, n, seed, choose):
    """The moves of one match of ``game`` at ``n`` seats, each chosen by ``choose(env, seat, obs)``."""
    module = game_spec(game).module
    env = module.env(num_players=n, **SHORT[game])
    env.reset(seed=seed)
    moves = []
    for name in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        action = None if terminated or truncated else choose(env, env.unwrapped.agent_seat[name], obs)
        if action is not None:
            moves.append(int(action))
        env.step(action)
    return moves


@pytest.mark.parametrize(
    "game, n, spec",
    [
        ("siantappo", 4, "model"),
        ("suipi", 2, "model"),
        ("suipi", 4, "rules@5"),
        ("samsip", 4, "model"),
        ("samsip", 3, "random"),
        ("samsip", 5, "teacher"),
        ("siantappo", 3, "CHECKPOINT"),
    ],
)
def test_a_loaded_agent_plays_the_moves_of_the_agent_eval_builds(game, n, spec):
    if spec == "CHECKPOINT":
        spec = str(shipped_model_path(game, n))
    module = game_spec(game).module
    config = module.raw_env(num_players=n, **SHORT[game]).config
    for seed in (1, 2):
        ours = [cardzoo.agents.load(spec, game, n, seed=seed * 10 + s, **SHORT[game]) for s in range(n)]
        theirs = [make_agent(spec, module, config, seed=seed * 10 + s) for s in range(n)]
        for a, b in zip(ours, theirs):
            a.reset()
            b.reset()
        calls = [0]

        def loaded(env, seat, obs, ours=ours):
            calls[0] += 1  # the dict and the arrays in turn
            if calls[0] % 2:
                return ours[seat].act(obs)
            return ours[seat].act(obs["observation"], obs["action_mask"])

        def built(env, seat, obs, theirs=theirs):
            return theirs[seat].act(obs["observation"], obs["action_mask"])

        played = _match(game, n, seed, loaded)
        assert len(played) > 10 and played == _match(game, n, seed, built)


def test_the_expert_searches_the_env_it_is_given():
    game, n = "suipi", 2
    module = game_spec(game).module
    config = module.raw_env(num_players=n, **SHORT[game]).config
    ours = [cardzoo.agents.load("expert:1", game, n, seed=s, **SHORT[game]) for s in range(n)]
    theirs = [make_agent("expert:1", module, config, seed=s) for s in range(n)]

    def loaded(env, seat, obs):
        return ours[seat].act(obs, env=env)

    def built(env, seat, obs):
        return agent_move(theirs[seat], env.unwrapped, seat, obs["observation"], obs["action_mask"])

    assert _match(game, n, 4, loaded) == _match(game, n, 4, built)
    env = module.env(num_players=n)
    env.reset(seed=0)
    with pytest.raises(UserError, match=r"^expert:1 searches the match it plays in: call act\(observation, env=env\)"):
        ours[0].act(env.last()[0])


def test_bad_input_is_one_line():
    agent = cardzoo.agents.load("model", "siantappo", 4)
    obs = game_spec("siantappo").module.env(num_players=4)
    obs.reset(seed=0)
    o = obs.last()[0]
    assert agent.act(o) == agent.act(o["observation"], o["action_mask"])
    cases = [
        ((o["observation"],), "act: no action_mask; pass it, or the whole observation dict"),
        (({"observation": o["observation"]},), "act: an observation dict needs the keys"),
        ((o["observation"][:10], o["action_mask"]), r"act: observation must have shape \(633,\) .* got \(10,\)"),
        ((o["observation"], o["action_mask"][:-1]), r"act: action_mask must have shape \(368,\)"),
        ((o["observation"], np.zeros_like(o["action_mask"])), "act: the action mask has no legal action"),
        ((["a"] * 633, o["action_mask"]), "act: observation must be an array of 633 numbers"),
    ]
    for args, message in cases:
        with pytest.raises(UserError, match=message) as e:
            agent.act(*args)
        assert "\n" not in str(e.value)
    loads = [
        (("nobody", "siantappo", 4), "unknown agent 'nobody'"),
        (("model", "poker", 4), "unknown game 'poker'"),
        (("model", "siantappo", 9), "num_players"),
        (("missing/net.safetensors", "suipi", 2), "checkpoint file not found: missing/net.safetensors"),
        (("teacher", "siantappo", 4), "siantappo has no teacher agent"),
    ]
    for args, message in loads:
        with pytest.raises(ValueError, match=message):
            cardzoo.agents.load(*args)
    assert repr(cardzoo.agents.load("rules@3", "suipi")) == "<cardzoo agent rules@3>"


def test_the_shipped_models_play_without_torch():
    code = (
        "import sys, numpy as np, cardzoo, cardzoo.agents\n"
        "for game, n in (('siantappo', 4), ('suipi', 2), ('samsip', 4)):\n"
        "    a = cardzoo.agents.load('model', game, n)\n"
        "    env = getattr(cardzoo, game + '_v0').env(num_players=n); env.reset(seed=0); obs = env.last()[0]\n"
        "    assert obs['action_mask'][a.act(obs)] == 1\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('torch', 'stable_baselines3')]\n"
        "print(bad); sys.exit(1 if bad else 0)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
