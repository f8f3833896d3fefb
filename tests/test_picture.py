"""render_mode="rgb_array": every env draws its table as an H x W x 3 uint8 picture that follows the
play, is the same for the same state, and shows nothing a spectator may not see; `cardzoo replay
--gif` writes one frame per move."""

from __future__ import annotations

import json
import random
import re

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test
from PIL import Image

from cardzoo.envs.cards import card_str
from cardzoo.envs.picture import HEIGHT, WIDTH
from cardzoo.envs.registry import game_spec
from cardzoo.envs.seatview import public_view
from cardzoo.scripts.cli import main
from cardzoo.training.evaluation.records import read_records
from cardzoo.training.evaluation.tournament import run_tournament

GAMES = ("suipi", "siantappo", "samsip")
CASES = [(g, n) for g in GAMES for n in game_spec(g).player_counts]
IDS = [f"{g}-{n}p" for g, n in CASES]
SHAPE = (HEIGHT, WIDTH, 3)


def pictured(game: str, n: int, **options):
    return game_spec(game).raw_env(num_players=n, render_mode="rgb_array", **options)


def walk(env, rng, steps: int) -> None:
    """``steps`` random legal actions (fewer if the match ends), PettingZoo's dead steps between."""
    for _ in range(steps):
        while env.agents and (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            env.step(None)
        if env.engine.done:
            return
        env.step(rng.choice(env.legal_now()))


@pytest.mark.parametrize("game,n", CASES, ids=IDS)
def test_frames_follow_the_play_and_repeat_for_the_same_state(game, n):
    env = pictured(game, n)
    assert "rgb_array" in env.metadata["render_modes"] and env.metadata["render_fps"] > 0
    before_reset = env.render()
    assert before_reset.shape == SHAPE and before_reset.dtype == np.uint8
    env.reset(seed=n)
    dealt = env.render()
    assert dealt.shape == SHAPE and dealt.dtype == np.uint8 and dealt.flags.c_contiguous
    assert np.array_equal(dealt, env.render())  # drawing does not change the state
    twin = pictured(game, n)
    twin.reset(seed=n)
    assert np.array_equal(dealt, twin.render())  # the same state, another env: the same bytes
    rng = random.Random(n)
    walk(env, rng, 12)
    later = env.render()
    assert later.shape == SHAPE and not np.array_equal(dealt, later)
    other = pictured(game, n)
    other.reset(seed=n + 100)
    assert not np.array_equal(dealt, other.render())  # another deal (dealer, floor, indicator, ...)
    walk(env, rng, 5000)
    assert env.engine.done and env.render().shape == SHAPE  # the result is drawn too


@pytest.mark.parametrize("game,n", CASES, ids=IDS)
def test_frames_reveal_no_hidden_card(game, n):
    """Dealing anew what any one seat cannot know (the other hands, the stock) leaves the picture
    byte for byte; the hands did change (the all-hands text shows it), and a move changes it."""
    env = pictured(game, n)
    rng = random.Random(10 + n)
    checks = dealt_anew = 0
    for seed in range(3):
        env.reset(seed=seed)
        walk(env, rng, rng.randrange(0, 40))
        if env.engine.done:
            continue
        engine, frame = env.engine, env.render()
        view = public_view(env)
        assert not view["hand"]["cards"] and not view["moves"] and not view["notes"] and not view["your_turn"]
        assert not re.search(r"\byou\b", json.dumps(view, ensure_ascii=False), re.I)
        for seat in range(n):
            env.engine = engine.resample_hidden(seat, rng)
            assert np.array_equal(frame, env.render()), (seed, seat)
            dealt_anew += env._render_text() != _all_hands(env, engine)
            checks += 1
        env.engine = engine
        env._legal_cache = None
        moved = env.engine.clone()
        env.engine = moved
        while env.engine is moved and not moved.done and np.array_equal(frame, env.render()):
            moved.apply_action(rng.choice(moved.legal_actions()))  # Suipi's sub-steps show only when whole
        assert moved.done or not np.array_equal(frame, env.render())
        env.engine, env._legal_cache = engine, None
    assert checks >= n and dealt_anew > 0


def _all_hands(env, engine) -> str:
    current = env.engine
    env.engine = engine
    try:
        return env._render_text()
    finally:
        env.engine = current


@pytest.mark.parametrize("game", GAMES)
def test_pettingzoo_render_and_api_tests_with_pictures(game):
    spec = game_spec(game)
    n = spec.default_players
    render_test(lambda render_mode: spec.env(num_players=n, render_mode=render_mode))
    api_test(spec.env(num_players=n, render_mode="rgb_array"), num_cycles=60)


def test_samsip_pictures_the_taken_discards_a_player_still_holds():
    """Everybody saw them go there (rules 2.7): the public view lists them, face up in the picture."""
    env = pictured("samsip", 3)
    env.reset(seed=4)
    rng = random.Random(4)
    while not any(env.engine.known):
        walk(env, rng, 1)
    players = public_view(env)["players"]
    assert any(p["known"] for p in players)
    for p in players:
        held = [card_str(c) for c in env.engine.hands[p["seat"]]]
        assert all(held.count(c) >= p["known"].count(c) for c in p["known"]), (p["known"], held)


# ------------------------------------------------------------------ cardzoo replay --gif
@pytest.fixture(scope="module")
def siantappo_record(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("gif") / "games.jsonl")
    run_tournament("siantappo", ["rules", "random"], players=3, games=1, seed=2, options={"rounds": 1}, records=path)
    return path


def test_replay_gif_has_a_frame_per_move(siantappo_record, tmp_path, capsys):
    out = tmp_path / "match.gif"
    assert main(["replay", siantappo_record, "--gif", str(out), "--fps", "4"]) == 0
    moves = len(read_records(siantappo_record)[0]["moves"])  # every Siantappo step is a whole move
    assert f"{moves + 1} frames" in capsys.readouterr().out
    with Image.open(out) as gif:
        assert gif.format == "GIF" and gif.size == (WIDTH, HEIGHT)
        assert gif.n_frames == moves + 1
        assert gif.info["duration"] == 250
        first = np.array(gif.convert("RGB"))
        gif.seek(gif.n_frames - 1)
        assert not np.array_equal(first, np.array(gif.convert("RGB")))


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["--fps", "0", "--gif", "x.gif"], "--fps must be 0.1..50"),
        (["--gif", "/nonexistent-dir/x.gif"], "cannot write /nonexistent-dir/x.gif"),
    ],
    ids=["fps", "unwritable"],
)
def test_replay_gif_bad_input_is_one_line(siantappo_record, argv, needle, capsys):
    assert main(["replay", siantappo_record] + argv) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith("cardzoo replay: error:") and needle in err, err
