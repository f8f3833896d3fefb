"""The per-game seat views (envs/<game>/view.py) that `cardzoo serve` draws: JSON-safe, the
seat's own legal moves, selectable things that exist, and Siantappo's card selections."""

from __future__ import annotations

import importlib
import itertools
import json
import random
import subprocess
import sys

import pytest

from cardzoo.envs.cards import parse_card
from cardzoo.envs.registry import game_module
from cardzoo.envs.seatview import match_over
from cardzoo.envs.siantappo.actions import CARD_TO_KEY, classify
from tests.deals import dealt_by

GAMES = [
    ("siantappo", {"num_players": 4, "rounds": 2}),
    ("siantappo", {"num_players": 3, "rounds": 1, "first_lead_must_include_3c": True}),
    ("suipi", {"num_players": 4}),
    ("suipi", {"num_players": 2, "point_game": 23}),
    ("samsip", {"num_players": 3, "bankroll": 5}),
]


def exact_match(move: dict, selection: set) -> bool:
    """The page's rule (static/app.js exactMatch): the selection plays exactly this move."""
    if not move["cards"]:
        return False
    if "choose" in move:
        every = {c for ids, _ in move["choose"] for c in ids}
        return selection <= every and all(len(selection & set(ids)) == n for ids, n in move["choose"])
    return set(move["cards"]) == selection


def walk(game, config, seed):
    """(env, acting seat, view of that seat) at every decision of a random match."""
    view = importlib.import_module(f"cardzoo.envs.{game}.view")
    env = game_module(game).raw_env(**config)
    env.reset(seed=seed)
    rng = random.Random(seed)
    while not match_over(env):
        if env.terminations[env.agent_selection]:
            env.step(None)
            continue
        seat = env.acting_seat
        yield env, seat, view.seat_view(env, seat)
        ids, _ = rng.choice(env.full_moves())
        for a in ids:
            env.step(a)


@pytest.mark.parametrize("game, config", GAMES)
def test_views_are_json_and_offer_exactly_the_legal_moves(game, config):
    view_mod = importlib.import_module(f"cardzoo.envs.{game}.view")
    decisions = 0
    for env, seat, v in walk(game, config, seed=3):
        decisions += 1
        assert json.loads(json.dumps(v)) == v
        assert v["your_turn"] and v["turn"] == seat and not v["over"]
        assert {tuple(m["ids"]) for m in v["moves"]} == {tuple(ids) for ids, _ in env.full_moves()}
        selectable = {c["id"] for c in v["hand"]["cards"]} | {
            it["id"] for zone in v["table"] for it in zone["items"] if it.get("id")
        }
        for m in v["moves"]:
            assert set(m["cards"]) <= selectable, m
            if m["cards"]:
                assert exact_match(m, set(m["cards"])), m  # selecting a move's cards plays it
        other = (seat + 1) % env.num_players
        w = view_mod.seat_view(env, other)
        assert not w["your_turn"] and w["moves"] == [] and w["prompt"].startswith(f"player_{seat}")
    assert decisions > 20
    for s in range(env.num_players):
        end = view_mod.seat_view(env, s)
        assert end["over"] and end["result"]["lines"] and end["moves"] == [] and end["hand"]["cards"] == []


@pytest.mark.parametrize("config", [c for g, c in GAMES if g == "siantappo"])
def test_siantappo_card_selections_name_one_move_of_those_cards(config):
    """Any selection a move's choose groups allow is the same combination (same action id),
    and no selection plays two moves."""
    checked = free = 0
    for env, _seat, v in itertools.islice(walk("siantappo", config, seed=8), 200):
        eng = env.engine
        for m in v["moves"]:
            if "choose" not in m or eng.phase != "play":
                continue
            pools = [itertools.combinations(ids, n) for ids, n in m["choose"]]
            free += any(len(ids) > n for ids, n in m["choose"])  # e.g. 9♠ or 9♦ under 9♥
            for pick in itertools.islice(itertools.product(*[list(p) for p in pools]), 50):
                selection = {c for part in pick for c in part}
                keys = [CARD_TO_KEY[parse_card(c)] for c in selection]
                if eng.required_key < 0:
                    assert classify(keys) == m["ids"][0], (m, sorted(selection))
                assert [x["ids"] for x in v["moves"] if exact_match(x, selection)] == [m["ids"]]
                checked += 1
    assert checked > 200 and free > 10, (checked, free)


def test_view_modules_import_no_gymnasium_or_pettingzoo():
    code = (
        "import sys, cardzoo.envs.seatview, cardzoo.envs.siantappo.view, cardzoo.envs.suipi.view, "
        "cardzoo.envs.samsip.view; "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('gymnasium', 'pettingzoo')]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=".")
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize(
    "game, config",
    [
        ("siantappo", {"num_players": 4, "rounds": 2, "swap_choice": True}),
        ("suipi", {"num_players": 4}),
        ("samsip", {"num_players": 3, "bankroll": 5}),
    ],
)
def test_a_seat_view_does_not_change_when_hidden_cards_are_dealt_anew(game, config):
    """Differential check: the engine re-deals everything a seat cannot know (other hands, the
    stock); that seat's view must stay the same, while another seat's view changes."""
    import copy

    view = importlib.import_module(f"cardzoo.envs.{game}.view")
    env = game_module(game).raw_env(**config)
    env.reset(seed=4)
    if not hasattr(getattr(env, "engine", None), "resample_hidden"):
        pytest.skip("needs the engine protocol's resample_hidden (envs/protocol.py)")
    rng = random.Random(1)
    checks = changed = 0
    while not match_over(env):
        if env.terminations[env.agent_selection]:
            env.step(None)
            continue
        for seat in range(env.num_players):
            other = copy.copy(env)
            other.engine = env.engine.resample_hidden(seat, random.Random(checks))
            assert view.seat_view(other, seat) == view.seat_view(env, seat), (seat, checks)
            peer = next(s for s in range(env.num_players) if s not in (seat, env.acting_seat))
            changed += view.seat_view(other, peer) != view.seat_view(env, peer)  # its hand was re-dealt
            checks += 1
        ids, _ = rng.choice(env.full_moves())
        for a in ids:
            env.step(a)
    assert checks > 100 and changed > checks // 4


def test_sam_sip_notes_say_the_seats_pairs_and_what_completes_them():
    from cardzoo.envs.samsip.view import pairs_line, seat_view

    env = game_module("samsip").raw_env(num_players=3)
    env.reset(seed=12)
    g = env.engine
    for seat in range(3):
        notes = seat_view(env, seat)["notes"]
        assert pairs_line(g.hands[seat], g.wild, g.dead) in notes and notes[-1].startswith("Your pairs: ")
    # five cards, two natural pairs and a 7: a 3 (or a wild card) completes it
    hand = [parse_card(c) for c in ("Jh", "Js", "2c", "8d", "7d")]
    assert pairs_line(hand, frozenset(), frozenset()) == (
        "Your pairs: 2♣+8♦, J♠+J♥ — one more needed (a 3 for your 7♦, or a wild card)"
    )


def public(match, entry) -> str:
    """A serve log entry as everybody may read it (a watcher who knows no secret)."""
    from cardzoo.scripts.serve.match import log_for

    return log_for(match.view_mod, [entry], None)[0]["text"]


def read_by(match, entry, seat: int) -> str:
    """A serve log entry as ``seat`` reads it ("you")."""
    from cardzoo.scripts.serve.match import log_for

    return log_for(match.view_mod, [entry], seat)[0]["text"]


def _bots_match(game, players, options, found_on, until=None):
    """A bots-only serve match played to its end (or until ``until(match)``): the deals and the
    bots of the match these tests were found on with seed ``found_on`` (tests/deals.py)."""
    from cardzoo.scripts.serve.match import Match

    bots = [f"rules@{found_on + 1000 + s}" for s in range(players)]  # the bots' seeds of that match
    m = Match.create(game, bots, options, dealt_by(found_on))
    while not m.over and not (until and until(m)):
        m.play_bot_move()
    return m


def test_the_browser_log_says_who_wins_each_trick_and_who_goes_out():
    """Siantappo's log lines (the terminal's words, envs/siantappo/view.word on the move's facts):
    each seat reads its own as "you"."""
    m = _bots_match("siantappo", 4, {"rounds": 1}, found_on=3)
    by_n = {e["n"]: e for e in m.log}
    assert public(m, by_n[7]) == "pass — player_1 wins the trick and leads."
    assert public(m, by_n[28]) == "9♠ 9♦ (pair) — player_2 is out: 1st place"
    assert public(m, by_n[31]) == "pass — player_2 wins the trick; player_3 leads."
    assert public(m, by_n[41]) == "6♠ (single) — player_3 is out: 2nd place"
    assert read_by(m, by_n[31], 2) == "pass — you win the trick; player_3 leads."
    assert read_by(m, by_n[31], 3) == "pass — player_2 wins the trick; you lead."
    assert read_by(m, by_n[31], 0) == public(m, by_n[31])
    assert read_by(m, by_n[28], 2) == "9♠ 9♦ (pair) — you are out: 1st place"


def test_the_browser_log_says_who_took_the_leftover_cards_and_the_summary_marks_each_majority():
    m = _bots_match("suipi", 2, {}, found_on=4, until=lambda m: m.log and "end of deal" in public(m, m.log[-1]))
    last = m.log[-1]
    assert public(m, last) == (
        "A♣ take A♦ — end of deal 1 — Last capture: player_0 takes the 3 cards left on the floor: 5♠ 6♦ 10♥"
    )
    assert read_by(m, last, 0).endswith("Last capture: you take the 3 cards left on the floor: 5♠ 6♦ 10♥")
    rows = {r[0]: r[1:] for r in m.view(1)["summary"]["rows"]}
    assert rows["cards"] == ["20", "32 (+3)"] and rows["spades"] == ["7 (+1)", "6"]
    assert rows["aces (1 each)"] == ["3 (+3)", "1 (+1)"] and rows["deal score"] == ["0", "3"]


def test_a_sam_sip_win_is_shown_as_its_pairs_with_the_wild_card_marked():
    """Marked from the hand's own wild cards (kept with its result: the next hand is dealt at once)."""
    m = _bots_match("samsip", 3, {}, found_on=0, until=lambda m: m.env.engine.results)
    assert m.view(0)["summary"]["lines"][0] == "player_2 wins with three pairs: 2♠+8♠, 3♦+7♦, 4♦+Jk* (* wild)"
    assert m.view_mod.seat_view(m.env, 2)["summary"]["lines"][0].startswith(
        "You win with three pairs: 2♠+8♠"
    )  # a line opens with a capital


def test_a_look_at_the_last_trick_and_the_last_capture():
    m = _bots_match("siantappo", 4, {"rounds": 1}, found_on=3, until=lambda m: len(m.log) == 7)
    # move 7: player_3 passed, player_1 won the trick: its plays, in order
    last = m.view_mod.seat_view(m.env, 1)["last"]
    eng = m.env.engine
    plays = [e for e in eng.log if e[1] == 0]
    assert last["label"] == "Last trick" and len(last["items"]) == len(plays) >= 2
    assert last["items"][-1]["caption"].startswith("you: ")
    assert m.view_mod.seat_view(m.env, 0)["last"]["items"][-1]["caption"].startswith("player_1: ")
    m = _bots_match("suipi", 2, {}, found_on=4, until=lambda m: m.env.engine.last_capturer >= 0)
    take = public(m, m.log[-1])  # the move that took: "8♣ take 8♥", the cards of its text
    last = m.view_mod.seat_view(m.env, 0)["last"]
    assert last["label"] == "Last capture" and last["items"][0]["cards"][0] == take.split()[0]
    assert set(last["items"][0]["cards"][1:]) <= set(take.replace("+", " ").replace("[", " ").replace("]", " ").split())


def test_a_siantappo_banner_says_you_to_the_player_who_plays_it():
    """As found: the page announced "🐷 SQUEEEEAL! player_0 plays a siantappo" to player_0 itself.
    Found on seed 5: player_3 plays a siantappo at move 12."""
    m = _bots_match("siantappo", 4, {"rounds": 1}, found_on=5, until=lambda m: len(m.log) == 12)
    from cardzoo.scripts.serve.match import log_for

    entry = m.log[-1]
    assert log_for(m.view_mod, [entry], 3)[0]["banner"]["text"] == "🐷 SQUEEEEAL! you play a siantappo"
    assert log_for(m.view_mod, [entry], 1)[0]["banner"]["text"] == "🐷 SQUEEEEAL! player_3 plays a siantappo"
    assert log_for(m.view_mod, [entry], 3, watcher=True)[0]["banner"]["text"].endswith("player_3 plays a siantappo")


@pytest.mark.parametrize("game, players", [("siantappo", 4), ("suipi", 2), ("samsip", 3)])
def test_captions_and_status_lines_are_facts_worded_for_each_reader(game, players):
    """Issue 60 ("one change under all of it"): a view returns its captions and status lines as
    facts (who, what), the same for the seat and for a watcher, and each line is those facts in
    the game's words (envs/<game>/words.py) for its reader; the view module builds none of them."""
    import importlib
    import inspect

    from cardzoo.envs.seatview import Reader, common_words
    from cardzoo.scripts.serve.match import Match

    words = importlib.import_module(f"cardzoo.envs.{game}.words")
    view = importlib.import_module(f"cardzoo.envs.{game}.view")
    match = Match.create(game, ["rules"] * players, {}, 7)
    said_you = 0
    for _ in range(12):
        for seat in range(players):
            mine, watched = view.seat_view(match.env, seat), view.seat_view(match.env, seat, watcher=True)
            for v, reader in ((mine, Reader(seat)), (watched, Reader(None))):

                def say(fact, reader=reader):
                    common = common_words(fact, reader)
                    return words.word(fact, reader) if common is None else common

                assert v["status"] == say(v["status_fact"]) and v["prompt"] == say(v["prompt_fact"])
                for p in v["players"]:
                    assert p["status"] == ", ".join(say(f) for f in p["status_facts"])
                for zone in v["table"] + ([v["last"]] if v["last"] else []):
                    for item in zone["items"]:
                        assert item["caption"] == (say(item["about"]) if item.get("about") else "")
            assert mine["status_fact"] == watched["status_fact"] and mine["prompt_fact"] == watched["prompt_fact"]
            assert [p["status_facts"] for p in mine["players"]] == [p["status_facts"] for p in watched["players"]]
            assert "you" not in watched["prompt"].lower().split() and "Your" not in watched["prompt"]
            said_you += mine["prompt"].startswith("Your move")
        match.play_bot_move()
    assert said_you  # the acting seat read "Your move", its watcher "player_N is thinking" or the move
    source = inspect.getsource(view)
    assert not [
        w for w in ("is thinking", "Your move", "turned up", "locked: ", " by {", "on top", "value {") if w in source
    ]
