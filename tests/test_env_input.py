"""What the Python API takes, the same in every game (issue 57, items 9-12).

Integers are Python's or numpy's (never a bool, never a float such as 2.0); anything else given
for an integer, a move text or a reset argument is a one-line ConfigError / IllegalMoveError that
names it. ``action_text`` refuses ids out of range alike in every game, a record of a stacked-deck
match replays, and a seat that has left the match can still be observed (as PettingZoo's classic
envs allow, and SuperSuit's wrappers need).
"""

from __future__ import annotations

import dataclasses
import json
import random
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardzoo.envs.base import IllegalMoveError
from cardzoo.envs.cards import card_str
from cardzoo.envs.config import ConfigError
from cardzoo.envs.errors import UserError
from cardzoo.envs.registry import game_spec
from cardzoo.envs.seatview import match_over, skip_dead_steps
from cardzoo.scripts.cli import main
from cardzoo.training.evaluation.records import read_records, replay_record

GAMES = ["siantappo", "suipi", "samsip"]
# (game, players, rule options that keep a random match short)
CASES = [
    ("siantappo", 3, {"rounds": 1}),
    ("siantappo", 6, {"rounds": 1}),
    ("suipi", 2, {}),
    ("suipi", 4, {}),
    ("samsip", 2, {"bankroll": 3}),
    ("samsip", 5, {"bankroll": 3}),
]
IDS = [f"{g}-{n}p" for g, n, _ in CASES]

NOT_INTEGERS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
    st.text(max_size=4),
    st.lists(st.integers(-5, 30), max_size=3),
    st.dictionaries(st.integers(0, 30), st.integers(0, 30), max_size=2),
    st.floats(-1e6, 1e6).map(np.float64),
    st.booleans().map(np.bool_),
)
NUMPY_INTS = st.sampled_from([np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32, np.uint64])


def fields_of(game: str, kind: type) -> list[str]:
    """The config fields of ``game`` whose default is a ``kind`` (int: not a bool)."""
    return [f.name for f in dataclasses.fields(game_spec(game).config) if type(f.default) is kind]


def one_line_error(error: Exception, name: str) -> None:
    message = str(error)
    assert "\n" not in message and name in message, message


# ------------------------------------------------------------------ item 9: integers, one rule
@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_an_integer_option_takes_integers_only(game, data):
    """As found: Suipi took point_game=11.0 and num_players=np.int64(4) (the others refused the
    numpy integer) and failed in base.py on num_players=2.0."""
    spec = game_spec(game)
    field = data.draw(st.sampled_from(fields_of(game, int)), label="field")
    bad = data.draw(NOT_INTEGERS, label="value")
    with pytest.raises(ConfigError) as err:
        spec.config(**{field: bad})
    one_line_error(err.value, field)
    value = data.draw(st.integers(-3, 300), label="integer")
    dtype = data.draw(NUMPY_INTS, label="dtype")
    if not np.can_cast(np.min_scalar_type(value), dtype):
        return
    try:
        plain = spec.config(**{field: value})
    except ConfigError as e:  # out of range: the numpy integer is refused with the same words
        with pytest.raises(ConfigError, match=f"^{re.escape(str(e))}$"):
            spec.config(**{field: dtype(value)})
        return
    numpy = spec.config(**{field: dtype(value)})
    assert numpy == plain and type(getattr(numpy, field)) is int
    json.dumps(dataclasses.asdict(numpy))  # a record header's config stays JSON


@pytest.mark.parametrize("game", GAMES)
def test_the_probed_values(game):
    spec = game_spec(game)
    n = spec.default_players
    env = spec.env(num_players=np.int64(n))
    assert env.unwrapped.num_players == n and type(env.unwrapped.config.num_players) is int
    assert len(env.possible_agents) == n
    for bad in (float(n), True, "4", None, [n]):
        with pytest.raises(ConfigError) as err:
            spec.env(num_players=bad)
        one_line_error(err.value, "num_players")
    assert spec.raw_env(max_steps=np.int64(9)).max_steps == 9
    for bad in (9.0, True, "9", 0):
        with pytest.raises(ConfigError, match="max_steps"):
            spec.raw_env(max_steps=bad)
    with pytest.raises(ConfigError, match="render_mode"):
        spec.raw_env(render_mode=["ansi"])


def test_suipi_probes():
    from cardzoo.envs import suipi_v0

    for options, field in (
        ({"num_players": 2.0}, "num_players"),
        ({"point_game": 11.0}, "point_game"),
        ({"point_game": True}, "point_game"),
        ({"deal_sizes_2p": {24: 1}}, "deal_sizes_2p"),
        ({"deal_sizes_2p": {8, 16}}, "deal_sizes_2p"),
        ({"deal_sizes_3p": (8.0, 8)}, "deal_sizes_3p"),
        ({"deal_sizes_4p": "12"}, "deal_sizes_4p"),
    ):
        with pytest.raises(ConfigError) as err:
            suipi_v0.env(**options)
        one_line_error(err.value, field)
    sizes = suipi_v0.raw_env(deal_sizes_2p=np.array([16, 8]), num_players=np.int8(2)).config.deal_sizes_2p
    assert sizes == (16, 8) and all(type(s) is int for s in sizes)


@pytest.mark.parametrize("game", GAMES)
def test_reset_takes_numpy_seeds_and_names_bad_arguments(game):
    """As found: reset(seed=np.int64(5)) was a TypeError and reset(options=[1]) an AttributeError."""
    env = game_spec(game).raw_env()
    env.reset(seed=5)
    first = (env.episode_seed, env.observe(env.agent_selection)["observation"].copy())
    env.reset(seed=np.int64(5))
    assert env.episode_seed == first[0]
    assert np.array_equal(env.observe(env.agent_selection)["observation"], first[1])
    env.reset(options={"episode_seed": np.uint32(first[0] % 2**32)})
    assert env.episode_seed == first[0] % 2**32 and type(env.episode_seed) is int
    before = env.episode_seed
    for kwargs, name in (
        ({"seed": 5.0}, "seed"),
        ({"seed": True}, "seed"),
        ({"seed": "5"}, "seed"),
        ({"options": [1]}, "options"),
        ({"options": "deck"}, "options"),
        ({"options": {"episode_seed": 2.0}}, "episode_seed"),
        ({"options": {"episode_seed": -1}}, "episode_seed"),
        ({"seed": 1, "options": {"deck": ["Zz"]}}, "deck"),
    ):
        with pytest.raises(UserError) as err:
            env.reset(**kwargs)
        one_line_error(err.value, name)
        assert env.episode_seed == before  # a refused reset changes nothing


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("bad", [None, 5, b"pass", ["pass"], 2.5])
def test_move_text_must_be_text(game, bad):
    """As found: move_to_action(None) and parse_move(5) were AttributeErrors."""
    env = game_spec(game).raw_env()
    env.reset(seed=1)
    calls = [env.move_to_action, env.parse_move, env.play]
    if game == "siantappo":
        calls.append(env.typed_move)
    for call in calls:
        with pytest.raises(IllegalMoveError, match="a move must be text") as err:
            call(bad)
        one_line_error(err.value, type(bad).__name__)
    assert env.history == []
    text = env.full_moves()[0][1]
    assert env.parse_move(text) == env.full_moves()[0][0]


# ------------------------------------------------------------------ item 10: action_text
@pytest.mark.parametrize("game", GAMES)
def test_action_text_refuses_what_is_not_an_action_id(game):
    """As found: Siantappo's action_text(-1) named a five-pair run and (10**6) was an IndexError;
    Suipi's (-1) an IndexError and (10**6) "action 1000000"."""
    env = game_spec(game).raw_env()
    env.reset(seed=3)
    for bad in (-1, -env.num_actions, env.num_actions, 10**6, np.int64(-1)):
        with pytest.raises(IllegalMoveError) as err:
            env.action_text(bad)
        assert str(err.value) == f"action {int(bad)} is out of range 0..{env.num_actions - 1}"
    for bad in (2.5, 1.0, "3", None, True):
        with pytest.raises(IllegalMoveError, match="must be an integer action id"):
            env.action_text(bad)
    texts = [env.action_text(a) for a in range(env.num_actions)]
    assert all(isinstance(t, str) and t for t in texts)
    assert env.action_text(np.int16(0)) == texts[0]


# ------------------------------------------------------------------ item 11: stacked-deck records
def random_record(env, seed: int) -> dict:
    """Play ``env`` (just reset) to the end at random; the record ``cardzoo eval --records`` writes."""
    rng, moves, totals = random.Random(seed), [], [0.0] * env.num_players
    while True:
        skip_dead_steps(env)
        if match_over(env):
            break
        seat = env.agent_seat[env.agent_selection]
        action = rng.choice([a for a, _ in env.legal_moves()])
        moves.append({"seat": seat, "action": action, "text": env.action_text(action)})
        env.step(action)
        for agent, r in env.rewards.items():
            totals[env.agent_seat[agent]] += r
    return {**env.record_header(), "moves": moves, "rewards": totals}


@pytest.mark.parametrize("game,n,options", CASES, ids=IDS)
def test_a_stacked_deck_record_replays(game, n, options, tmp_path, capsys):
    """As found: the header stores the deck as card ids, and reset(options={"deck": ...}) read only
    names ("deck has unreadable cards: 0, 1, 2…"), so no such record replayed."""
    env = game_spec(game).raw_env(num_players=n, **options)
    ids = list(range(env.deck_size))
    random.Random(n).shuffle(ids)
    env.reset(seed=4, options={"deck": [card_str(c) for c in ids]})
    record = random_record(env, seed=n)
    assert record["deck"] is not None and all(type(c) is int for c in record["deck"])
    path = tmp_path / "stacked.jsonl"
    path.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    (read,) = read_records(str(path))
    assert replay_record(read) == pytest.approx(record["rewards"], abs=1e-12)
    assert main(["replay", str(path), "--quiet"]) == 0
    assert "matches the recorded rewards" in capsys.readouterr().out


@pytest.mark.parametrize("game", GAMES)
def test_a_deck_of_ids_deals_as_its_names(game):
    env = game_spec(game).raw_env()
    ids = list(range(env.deck_size))
    random.Random(7).shuffle(ids)
    env.reset(seed=1, options={"deck": [card_str(c) for c in ids]})
    by_name = (env.episode_deck, env.observe(env.agent_selection)["observation"].copy())
    for deck in (
        env.episode_deck,
        [np.int64(c) for c in env.episode_deck],
        np.array(env.episode_deck),
        [c if i % 2 else card_str(c) for i, c in enumerate(env.episode_deck)],
    ):
        env.reset(seed=1, options={"deck": deck})
        assert env.episode_deck == by_name[0]
        assert np.array_equal(env.observe(env.agent_selection)["observation"], by_name[1])
    for bad in (env.deck_size, -1, True, 3.0):
        with pytest.raises(UserError, match=f"unreadable cards: {bad}") as err:
            env.reset(options={"deck": [bad] + by_name[0][1:]})
        one_line_error(err.value, "deck")


# ------------------------------------------------------------------ item 12: seats that have left
@pytest.mark.parametrize("game,n,options", CASES, ids=IDS)
def test_a_seat_that_has_left_is_still_observed(game, n, options):
    """As found: observe(agent) raised KeyError once the agent's dead step had removed it, so
    SuperSuit's sticky_actions_v0 and delay_observations_v0 crashed at match end. Played as such a
    wrapper plays: after every step it observes the seat to move and every seat there is."""
    env = game_spec(game).env(num_players=n, **options)
    env.reset(seed=11)
    rng = random.Random(n)
    space = env.observation_space(env.possible_agents[0])
    while env.agents:
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        observed = {a: env.observe(a) for a in [env.agent_selection, *env.possible_agents]}
        for agent, seen in observed.items():
            assert space.contains(seen)
            if agent not in env.agents:  # gone: its view of the table, and no move to make
                assert not seen["action_mask"].any()
    assert all(not env.observe(a)["action_mask"].any() for a in env.possible_agents)


@pytest.mark.parametrize("game", GAMES)
def test_observe_names_an_unknown_agent(game):
    env = game_spec(game).raw_env()
    env.reset(seed=0)
    for bad in ("player_9", 0, None):
        with pytest.raises(UserError, match="unknown agent") as err:
            env.observe(bad)
        one_line_error(err.value, "player_0")
