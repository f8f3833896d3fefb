"""The incremental encoders (each game's ``encoding.Encoder``, the env's ``_encode``) against the
definition (``encoding.encode``, from scratch), bit for bit: after every move of seeded random
matches of every game and player count, for every seat; with observations skipped for a while;
and on clones, resampled worlds and the expert's scratch env, which must never share a kept
vector or a cache filled in place with the env or engine they came from."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

from cardzoo.envs.registry import GAME_MODULES, game_spec

CASES = [(g, n) for g in GAME_MODULES for n in game_spec(g).player_counts]
IDS = [f"{g}-{n}p" for g, n in CASES]


def _encode(env, seat: int) -> np.ndarray:
    """The definition: the seat's observation computed from scratch."""
    return game_spec(env.game_name).part("encoding").encode(env.engine, seat)


def _assert_every_seat_exact(env, where) -> None:
    for seat in range(env.num_players):
        seen = env.encode_seat(seat)
        assert seen.dtype == np.float32 and seen.shape == (env.obs_size,), where
        assert np.array_equal(seen, _encode(env, seat)), (where, seat)


def _random_step(env, rng) -> None:
    """A random legal move (or the dead step of a seat that left, Sam Sip)."""
    agent = env.agent_selection
    if env.terminations[agent] or env.truncations[agent]:
        env.step(None)
        return
    legal = env.legal_now()
    env.step(legal[rng.randrange(len(legal))])


def _variants(game: str, n: int) -> list[dict]:
    """The default rules and two random variants (seeded by the player count)."""
    spec, rng = game_spec(game), random.Random(n)
    return [{}, spec.random_variant(n, rng), spec.random_variant(n, rng)]


@pytest.mark.parametrize("game,n", CASES, ids=IDS)
def test_every_seat_equals_the_definition_after_every_move(game, n):
    spec = game_spec(game)
    for k, variant in enumerate(_variants(game, n)):
        env = spec.raw_env(num_players=n, **variant)
        rng = random.Random(100 * n + k)
        env.reset(seed=k)
        for match in range(2 if k == 0 else 1):  # reset(): the next match gets encoders of its own
            if match:
                env.reset()
            steps = 0
            _assert_every_seat_exact(env, (variant, match, steps))
            while not env.engine.done:
                _random_step(env, rng)
                steps += 1
                _assert_every_seat_exact(env, (variant, match, steps))


@pytest.mark.parametrize("game,n", CASES, ids=IDS)
def test_a_seat_seen_again_after_many_moves_is_exact(game, n):
    """Observations now and then (as a trainer that watches some seats): the kept vectors catch
    up on every move they missed."""
    env = game_spec(game).raw_env(num_players=n)
    rng = random.Random(n)
    for seed in range(2):
        env.reset(seed=seed)
        while not env.engine.done:
            if rng.random() < 0.1:
                seat = rng.randrange(n)
                assert np.array_equal(env.encode_seat(seat), _encode(env, seat)), (seed, seat)
            _random_step(env, rng)
        _assert_every_seat_exact(env, seed)


def _midgame(env, rng, seed: int):
    """``env`` a random number of moves into a seeded match, every seat observed (warm)."""
    env.reset(seed=seed)
    for _ in range(rng.randrange(5, 60)):
        if env.engine.done:
            break
        _random_step(env, rng)
        env.encode_seat(rng.randrange(env.num_players))
    for seat in range(env.num_players):
        env.encode_seat(seat)
    env.legal_now()


@pytest.mark.parametrize("game,n", CASES, ids=IDS)
def test_clones_and_resampled_worlds_keep_their_own_vectors(game, n):
    """The expert's way (training/agents/expert.py): a shallow copy of the env is given clones and
    resampled worlds and plays them on through the engine. Each is encoded exactly, and the env,
    its encoder and its engine are left as they were."""
    env = game_spec(game).raw_env(num_players=n)
    rng = random.Random(n)
    for seed in range(4):
        _midgame(env, rng, seed)
        if env.engine.done:
            continue
        engine, encoder = env.engine, env._encoder
        kept = [env.encode_seat(s) for s in range(n)]
        legal = list(engine.legal_actions())
        scratch = copy.copy(env)
        worlds = [engine.clone(), engine.resample_hidden(engine.acting_seat, rng)]
        for world in worlds:
            scratch.engine, scratch._legal_cache = world, None
            for _ in range(30):
                _assert_every_seat_exact(scratch, seed)
                if world.done:
                    break
                actions = world.legal_actions()
                world.apply_action(actions[rng.randrange(len(actions))])
            assert scratch._encoder is not encoder and scratch._encoder.engine is world
            assert not _shared_vectors(scratch._encoder, encoder)
        assert env.engine is engine and env._encoder is encoder and encoder.engine is engine
        assert list(engine.legal_actions()) == legal
        for s in range(n):
            assert np.array_equal(env.encode_seat(s), kept[s]), (seed, s)
            assert np.array_equal(kept[s], _encode(env, s)), (seed, s)


def _shared_vectors(a, b) -> bool:
    """Do two encoders hold a kept vector (or a view of one) in common?"""

    def vectors(encoder):
        return [sv.vec for sv in encoder._seats if sv is not None]

    return any(np.shares_memory(x, y) for x in vectors(a) for y in vectors(b))


def test_a_suipi_clone_has_its_own_sub_step_tries():
    """Suipi's engine fills its per-card move tries in place as sub-steps are asked for: a clone
    starts without them, so composing a move on the clone leaves the original's untouched."""
    env = game_spec("suipi").raw_env(num_players=2)
    rng = random.Random(3)
    env.reset(seed=3)
    engine = env.engine
    card = engine.legal_actions()[0]
    clone = engine.clone()
    assert clone._card_tries is None
    clone.apply_action(card)  # the clone composes a move: its tries are its own
    after = clone.legal_actions()
    assert clone._card_tries is not engine._card_tries and card not in engine._card_tries[1]
    assert engine.partial_card is None and engine.legal_actions()[0] == card
    engine.apply_action(card)
    assert engine.legal_actions() == after
    while not clone.done:
        actions = clone.legal_actions()
        clone.apply_action(actions[rng.randrange(len(actions))])
    assert engine.partial_card == card and engine.legal_actions() == after


@pytest.mark.parametrize("n", game_spec("suipi").player_counts)
def test_suipi_view_of_the_engine_is_the_decoded_observation(n):
    """``encoding.view_of(engine, seat)`` (the collectors' fast read of a seat's decision) is
    ``decode`` of the seat's observation, field for field, for every seat after every move
    (composed moves' sub-steps included), with the default rules and random variants."""
    spec = game_spec("suipi")
    enc = spec.part("encoding")
    for k, variant in enumerate(_variants("suipi", n) + [{"point_game": 23}]):
        env = spec.raw_env(num_players=n, **variant)
        rng = random.Random(50 + k)
        env.reset(seed=k)
        steps = 0
        while True:
            for seat in range(n):
                want, got = enc.decode(env.encode_seat(seat), env.config), enc.view_of(env.engine, seat)
                for field in want.__slots__:
                    assert getattr(got, field) == getattr(want, field), (variant, steps, seat, field)
            if env.engine.done:
                break
            _random_step(env, rng)
            steps += 1
        assert steps > 50


@pytest.mark.parametrize("n", game_spec("suipi").player_counts)
def test_suipi_rule_bot_reads_the_same_moves_from_the_engine(n):
    """``RuleBot.act_seat(engine, seat, mask)`` (the collectors' fast path for rule-bot
    opponents) plays what ``act`` plays on the seat's observation: two bots with one seed, one
    reading each way, make the same sub-steps through whole matches (plans, tie breaks and all)."""
    spec = game_spec("suipi")
    env = spec.raw_env(num_players=n)
    env.reset(seed=n)
    by_obs = [spec.rule_bot(env.config, seed=s) for s in range(n)]
    by_engine = [spec.rule_bot(env.config, seed=s) for s in range(n)]
    steps = 0
    while not env.engine.done:
        seat = env.acting_seat
        mask = np.zeros(env.num_actions, np.int8)
        mask[env.legal_now()] = 1
        move = by_obs[seat].act(env.encode_seat(seat), mask)
        assert by_engine[seat].act_seat(env.engine, seat, mask) == move, steps
        assert by_engine[seat].pending_steps() == by_obs[seat].pending_steps()
        env.advance(move)
        steps += 1
    assert steps > 100


@pytest.mark.parametrize("n", game_spec("samsip").player_counts)
def test_samsip_view_of_the_engine_is_the_decoded_observation(n):
    """Sam Sip's ``encoding.view_of(engine, seat)`` is ``decode`` of the seat's observation, key for
    key, for every seat after every move of whole matches (eliminations, jokers, reshuffles of the
    variants included)."""
    spec = game_spec("samsip")
    enc = spec.part("encoding")
    for k, variant in enumerate(_variants("samsip", n) + [{"on_stock_empty": "reshuffle", "wild_scheme": "khi"}]):
        env = spec.raw_env(num_players=n, **variant)
        rng = random.Random(60 + k)
        env.reset(seed=k)
        steps = 0
        while not env.engine.done and steps < 3000:
            for seat in range(n):
                assert enc.view_of(env.engine, seat) == enc.decode(env.encode_seat(seat)), (variant, steps, seat)
            _random_step(env, rng)
            steps += 1
        assert steps > 20  # a short match still ends in an elimination


@pytest.mark.parametrize("bot", ["rule_bot", "teacher"])
@pytest.mark.parametrize("n", [2, 4, 6])
def test_samsip_scripted_players_read_the_same_moves_from_the_engine(bot, n):
    """``act_seat(engine, seat, mask)`` of Sam Sip's rule bot and lookahead teacher plays what
    ``act`` plays on the seat's observation: two players with one seed, one reading each way, make
    the same moves through whole matches (tie breaks and all)."""
    spec = game_spec("samsip")
    env = spec.raw_env(num_players=n)
    by_obs = [getattr(spec, bot)(env.config, seed=s) for s in range(n)]
    by_engine = [getattr(spec, bot)(env.config, seed=s) for s in range(n)]
    steps = 0
    for match in range(3):
        env.reset(seed=10 * n + match)
        while not env.engine.done:
            seat = env.acting_seat
            mask = np.zeros(env.num_actions, np.int8)
            mask[env.legal_now()] = 1
            move = by_obs[seat].act(env.encode_seat(seat), mask)
            assert by_engine[seat].act_seat(env.engine, seat, mask) == move, (match, steps)
            env.advance(move)
            steps += 1
    assert steps > 150
