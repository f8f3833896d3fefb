"""Fuzzing every game at every player count (issue 10): random rule variants, random and
adversarial agents, bad actions. Every match must end by the rules (never by the env's step cap),
and the contract's invariants must hold after every step.

The default run is bounded by a fixed number of steps per game and player count (it takes well
under a minute); ``pytest -m slow`` runs the long version (>= 1,000,000 steps per game). Both
print one summary line per game and fail with the list of failures, if any.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np
import pytest

from cardzoo.envs.base import IllegalMoveError
from cardzoo.envs.registry import GAME_MODULES, game_spec


# ------------------------------------------------------------------ agents
def random_policy(env, obs, rng):
    legal = np.flatnonzero(obs["action_mask"])
    return int(legal[rng.randrange(len(legal))])


def first_legal(env, obs, rng):
    return int(np.flatnonzero(obs["action_mask"])[0])


def last_legal(env, obs, rng):
    return int(np.flatnonzero(obs["action_mask"])[-1])


PASSIVE = ("pass", "drop")


def passive(env, obs, rng):
    """Pass whenever allowed (Siantappo), drop a card rather than capture (Suipi), else the first
    legal action."""
    legal = np.flatnonzero(obs["action_mask"])
    for a in legal:
        if env.action_text(int(a)) in PASSIVE:
            return int(a)
    return int(legal[0])


def take_and_return(env, obs, rng):
    """Take the discard whenever possible and throw the same card back (the Sam Sip stall)."""
    from cardzoo.envs.samsip.actions import DISCARD_JOKER, TAKE_DISCARD
    from cardzoo.envs.samsip.engine import PHASE_DRAW

    g = env.engine
    if g.phase == PHASE_DRAW:
        return TAKE_DISCARD if obs["action_mask"][TAKE_DISCARD] else first_legal(env, obs, rng)
    card = g.hands[g.turn][-1]
    return card if card < DISCARD_JOKER else DISCARD_JOKER


def draw_and_return(env, obs, rng):
    """Sam Sip's passive player (it has no pass): draw from the stock and throw the drawn card away,
    so its hand never changes."""
    from cardzoo.envs.samsip.actions import DISCARD_JOKER, DRAW_STOCK
    from cardzoo.envs.samsip.engine import PHASE_DRAW

    g = env.engine
    if g.phase == PHASE_DRAW:
        return DRAW_STOCK if obs["action_mask"][DRAW_STOCK] else first_legal(env, obs, rng)
    card = g.hands[g.turn][-1]
    return card if card < DISCARD_JOKER else DISCARD_JOKER


POLICIES = {"random": random_policy, "first": first_legal, "last": last_legal, "passive": passive}
GAME_POLICIES = {"samsip": {"take_and_return": take_and_return, "passive": draw_and_return}}


def policies(game: str) -> dict:
    return {**POLICIES, **GAME_POLICIES.get(game, {})}


# A known limit, left out of the fuzz until it is fixed (docs/suipi.md, "Move generation"): with
# unique_floor_during_play=False an agent that keeps dropping (passive, last-legal, sometimes
# random) piles up the floor, and the number of distinct legal captures grows exponentially with
# it (279,605 at 29 floor items), so building the mask takes minutes. Every match still ends
# within the step bound; the variant keeps its targeted tests in tests/test_suipi_variants.py.
KNOWN_SLOW = {"suipi": {"unique_floor_during_play": True}}


def bad_actions(env, obs, rng) -> list:
    """Actions raw_env must refuse with an IllegalMoveError."""
    illegal = np.flatnonzero(obs["action_mask"] == 0)
    out = [
        env.num_actions + rng.randrange(1000),
        -1 - rng.randrange(5),
        10**30,
        float("inf"),
        1.5,
        "1",
        True,
        None,
        np.float64(0.0),
    ]
    if len(illegal):
        out.append(int(illegal[rng.randrange(len(illegal))]))
    return out


# ------------------------------------------------------------------ one match
@dataclass
class Tally:
    matches: int = 0
    steps: int = 0
    refused: int = 0
    replays: int = 0
    failures: list = field(default_factory=list)


def play_match(
    game: str, players: int, policy_name: str, seed: int, tally: Tally, bad_rate: float = 0.02, view_every: int = 7
):
    """Play one fuzzed match through raw_env, checking every invariant (every seat's view every
    ``view_every`` steps, bad actions at a ``bad_rate`` of the steps); failures are recorded."""
    spec = game_spec(game)
    rng = random.Random(seed)
    variant = {**spec.random_variant(players, rng), **KNOWN_SLOW.get(game, {})}
    where = f"{game} n={players} policy={policy_name} seed={seed} variant={variant}"
    policy = policies(game)[policy_name]
    env = spec.raw_env(num_players=players, **variant)
    space = env.observation_space(env.possible_agents[0])
    env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    steps = 0
    try:
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if trunc:
                raise AssertionError(f"truncated at step {steps}: the rules did not end the match")
            if term:
                env.step(None)
                continue
            if not obs["action_mask"].any():
                raise AssertionError(f"{agent} acts with an empty mask at step {steps}")
            if steps % view_every == 0:
                for other in env.agents:
                    seen = env.observe(other)
                    if not space.contains(seen):
                        bad = seen["observation"]
                        raise AssertionError(
                            f"observation of {other} leaves the space at step {steps}: "
                            f"min {bad.min()}, max {bad.max()} at {int(np.argmax(np.abs(bad)))}"
                        )
                    if other != agent and seen["action_mask"].any():
                        raise AssertionError(f"non-acting {other} has a non-zero mask at step {steps}")
            if rng.random() < bad_rate:
                before = (env.agent_selection, len(env.history), obs["observation"].copy())
                for bad in bad_actions(env, obs, rng):
                    try:
                        env.step(bad)
                    except IllegalMoveError as err:
                        if len(str(err)) > 2000:
                            raise AssertionError(f"error message of {len(str(err))} characters for {bad!r}") from err
                        tally.refused += 1
                    else:
                        raise AssertionError(f"raw_env accepted the bad action {bad!r}")
                after = (env.agent_selection, len(env.history), env.observe(agent)["observation"])
                if before[:2] != after[:2] or not np.array_equal(before[2], after[2]):
                    raise AssertionError("a refused action changed the state")
            env.step(policy(env, obs, rng))
            steps += 1
            if env.zero_sum_steps and abs(sum(env.rewards.values())) > 1e-9:
                raise AssertionError(f"rewards of step {steps} are not zero-sum: {env.rewards}")
            for a, r in env.rewards.items():
                totals[a] += r
            if steps > env.max_steps:
                raise AssertionError(f"ran past max_steps={env.max_steps}")
        if abs(sum(totals.values())) > 1e-6:
            raise AssertionError(f"the match's rewards are not zero-sum: {totals}")
        if seed % 10 == 0:  # a replay from the seed and the recorded actions is exact
            history = list(env.history)
            env.reset(seed=seed)
            for action in history:
                while env.terminations[env.agent_selection]:  # eliminated seats leave first
                    env.step(None)
                env.step(action)
            if env.history != history:
                raise AssertionError("the replay diverged")
            tally.replays += 1
    except Exception as err:  # noqa: BLE001 - every failure is reported with its match
        tally.failures.append(f"{where}: {type(err).__name__}: {err}")
    tally.matches += 1
    tally.steps += steps
    return totals


def fuzz(game: str, steps_per_count: int, seed0: int = 0, **checks) -> Tally:
    """Fuzz ``game`` at each player count until ``steps_per_count`` steps, cycling the policies."""
    tally = Tally()
    names = list(policies(game))
    for players in game_spec(game).player_counts:
        start = tally.steps
        seed = seed0
        while tally.steps - start < steps_per_count:
            play_match(game, players, names[seed % len(names)], seed, tally, **checks)
            seed += 1
    return tally


def report(game: str, tally: Tally) -> str:
    line = (
        f"fuzz {game}: {tally.matches} matches, {tally.steps} steps, {tally.refused} bad actions refused, "
        f"{tally.replays} replays, {len(tally.failures)} failures"
    )
    print(line)
    return line


FAST_STEPS = 5000  # per game and player count


@pytest.mark.parametrize("game", list(GAME_MODULES))
def test_fuzz(game):
    tally = fuzz(game, FAST_STEPS)
    line = report(game, tally)
    assert not tally.failures, line + "\n" + "\n".join(tally.failures[:10])
    counts = len(game_spec(game).player_counts)
    assert tally.steps >= FAST_STEPS * counts and tally.refused > 0 and tally.replays > 0


@pytest.mark.slow
@pytest.mark.parametrize("game", list(GAME_MODULES))
def test_fuzz_a_million_steps(game):
    counts = len(game_spec(game).player_counts)
    tally = fuzz(game, -(-1_000_000 // counts), seed0=1_000_000, bad_rate=0.005, view_every=29)
    line = report(game, tally)
    assert not tally.failures, line + "\n" + "\n".join(tally.failures[:10])
    assert tally.steps >= 1_000_000


@pytest.mark.parametrize("game", list(GAME_MODULES))
def test_adversaries_end_every_match(game):
    """Issue 10: first/last legal, always pass (or drop; in Sam Sip draw and throw the card back),
    take-and-return (Sam Sip) and random agents, all seats alike, at every player count with the
    default rules: every match ends by the rules well inside the step bound, with zero-sum rewards."""
    spec = game_spec(game)
    for players in spec.player_counts:
        for name, policy in policies(game).items():
            env = spec.raw_env(num_players=players)
            env.reset(seed=players)
            rng = random.Random(players)
            steps, total = 0, 0.0
            for _agent in env.agent_iter():
                obs, _, term, trunc, _ = env.last()
                assert not trunc, (game, players, name)
                if term:
                    env.step(None)
                    continue
                env.step(policy(env, obs, rng))
                steps += 1
                total += sum(env.rewards.values())
            assert 0 < steps < env.max_steps, (game, players, name, steps)
            assert abs(total) < 1e-6, (game, players, name)
            assert not env.agents
