"""Move text as people type it: Siantappo's exact cards and rank-only input, Suipi's forgiving
shorthand, Sam Sip's phase-aware errors."""

from __future__ import annotations

import contextlib
import random

import pytest

from cardzoo.envs import siantappo_v0
from cardzoo.envs.base import IllegalMoveError
from cardzoo.envs.cards import card_str, parse_cards
from cardzoo.envs.siantappo.actions import CARD_TO_KEY, keys_str
from cardzoo.envs.siantappo.engine import hand_keys
from cardzoo.training.evaluation.records import replay_record


def siantappo_with(hand0: str, hand1: str = "", seed: int = 0, players: int = 4, **config):
    """A Siantappo env whose player_0 holds exactly ``hand0`` (52 / players cards) and player_1
    at least ``hand1`` (stacked deck: deck[i] goes to seat i mod n). The holder of 3♣ leads."""
    per = 52 // players
    mine, theirs = parse_cards(hand0), parse_cards(hand1)
    assert len(mine) == per
    rest = [c for c in range(52) if c not in mine and c not in theirs]
    random.Random(seed).shuffle(rest)
    fill = per - len(theirs)
    theirs, rest = theirs + rest[:fill], rest[fill:]
    hands = [mine, theirs] + [rest[i * per : (i + 1) * per] for i in range(players - 2)]
    deck = [card_str(hands[i % players][i // players]) for i in range(52)]
    env = siantappo_v0.raw_env(num_players=players, rounds=1, **config)
    env.reset(options={"deck": deck})
    return env


def held(env, seat=0) -> str:
    return keys_str(hand_keys(env.engine.hands[seat]))


def keys_of(text: str) -> tuple[int, ...]:
    return tuple(sorted(CARD_TO_KEY[c] for c in parse_cards(text)))


# ------------------------------------------------------------------ Siantappo typed cards
def test_siantappo_typed_cards_must_be_held():
    env = siantappo_with("3♣ 4♦ 5♦ 6♠ 7♠ 8♠ 9♠ 9♥ J♣ Q♣ K♣ A♣ 2♣")
    assert env.acting_seat == 0  # 3♣ leads
    with pytest.raises(IllegalMoveError) as err:
        env.move_to_action("9d 9h")
    assert err.value.reason == "you do not hold 9♦"
    with pytest.raises(IllegalMoveError, match="you do not hold 9♦"):
        env.play("9♦ 9♥")
    assert env.acting_seat == 0 and "9♠ 9♥" in held(env)  # nothing was played


def test_siantappo_plays_exactly_the_cards_typed():
    env = siantappo_with("3♣ 9♠ 9♦ 9♥ 4♦ 5♦ 6♠ 7♠ J♣ Q♣ K♣ A♣ 2♣")
    canonical = env.move_to_action("9♠ 9♥")
    assert env.move_to_action("9♦ 9♥") == canonical  # same id: pair, 9♥ on top
    env.play("9♦ 9♥")
    assert env.engine.current_keys == keys_of("9♦ 9♥")
    assert "9♠" in held(env) and "9♦" not in held(env) and "9♥" not in held(env)
    assert env.last_move_text == "player_0: 9♦ 9♥"


def test_siantappo_last_move_text_names_the_cards_an_action_id_took():
    env = siantappo_with("3♣ 9♠ 9♦ 9♥ 4♦ 5♦ 6♠ 7♠ J♣ Q♣ K♣ A♣ 2♣")
    env.advance(env.move_to_action("3♣"))  # the trusted path: the text is made when asked for
    assert env.last_move_text == "player_0: 3♣"
    seat = env.acting_seat
    env.advance(367)  # pass
    assert env.last_move_text == f"player_{seat}: pass"


def test_siantappo_rank_only_input():
    env = siantappo_with("3♣ 6♣ 6♥ 9♠ 9♦ 9♥ Q♦ 4♠ 5♠ 7♠ 8♠ J♣ K♣")
    assert env.typed_move("3") == (env.move_to_action("3♣"), keys_of("3♣"))
    assert env.typed_move("6 6") == (env.move_to_action("6c 6h"), keys_of("6♣ 6♥"))
    assert env.typed_move("q")[1] == keys_of("Q♦")
    with pytest.raises(IllegalMoveError, match=r"'9h 9' could be 9♠ 9♥ or 9♦ 9♥"):
        env.typed_move("9h 9")
    with pytest.raises(IllegalMoveError) as err:  # three nines: which two?
        env.typed_move("9 9")
    assert err.value.reason == "'9 9' could be 9♠ 9♦, 9♠ 9♥ or 9♦ 9♥: name the suits, e.g. 9d 9h"
    with pytest.raises(IllegalMoveError) as err:
        env.typed_move("7 7")
    assert err.value.reason == "you hold only one 7"
    with pytest.raises(IllegalMoveError) as err:
        env.typed_move("10")
    assert err.value.reason == "you hold no 10"
    with pytest.raises(IllegalMoveError, match="not a Siantappo combination"):
        env.typed_move("6 9")
    with pytest.raises(IllegalMoveError, match="'7z' is not a card"):
        env.typed_move("7z")


def test_siantappo_rank_only_accepts_the_one_legal_reading():
    env = siantappo_with("3♣ 9♠ 9♥ 4♦ 5♦ 6♠ 7♠ J♣ Q♣ K♣ A♣ 2♣ 2♥", hand1="9♦")
    env.play("3c")
    env.play("9d")  # player_1
    env.play("pass")
    env.play("pass")
    assert env.acting_seat == 0
    assert env.typed_move("9") == (env.move_to_action("9♥"), keys_of("9♥"))  # 9♠ cannot beat 9♦


def test_siantappo_follow_errors_say_why():
    env = siantappo_with("3♣ 9♠ 9♥ 6♠ 6♦ 4♦ 5♦ J♣ Q♣ K♣ A♣ 2♣ 2♥", hand1="10♠ 10♥")
    env.play("9s 9h")
    env.play("10s 10h")
    env.play("pass")
    env.play("pass")
    with pytest.raises(IllegalMoveError) as err:
        env.play("6s 6d")
    assert err.value.reason == (
        "6♠ 6♦ does not beat 10♠ 10♥ on the table: the same combination must be higher (rules T5)"
    )
    assert "pass" in err.value.legal and "2♣ 2♥" in err.value.legal
    with pytest.raises(IllegalMoveError) as err:
        env.play("Q♣")
    assert err.value.reason == (
        "Q♣ (single) cannot follow 10♠ 10♥ (pair): a play beats only the same type with the "
        "same number of cards (rules T5; bombs T8)"
    )
    env.play("2c 2h")
    assert env.engine.current_keys == keys_of("2♣ 2♥")


def test_siantappo_record_keeps_the_exact_cards(tmp_path):
    """Exact cards go into the record as "cards" and replay to the same game."""
    import json

    from cardzoo.scripts.play.session import write_record

    env = siantappo_with("3♣ 9♠ 9♦ 9♥ 4♦ 5♦ 6♠ 7♠ J♣ Q♣ K♣ A♣ 2♣")
    steps: list[dict] = []
    totals = [0.0] * 4
    while env.agents and not all(env.terminations.values()):
        seat = env.acting_seat
        if not steps:
            action, keys = env.typed_move("9♦ 9♥")
            env.play("9♦ 9♥")
            entry = {"seat": seat, "action": action, "text": keys_str(keys), "cards": keys_str(keys)}
        else:
            action, text = env.legal_moves()[0]
            env.step(action)
            entry = {"seat": seat, "action": action, "text": text}
        for agent, r in env.rewards.items():
            totals[env.agent_seat[agent]] += r
        steps.append(entry)
    path = tmp_path / "g.jsonl"
    write_record(str(path), env, ["human", "rules", "rules", "rules"], steps, totals)
    rec = json.loads(path.read_text(encoding="utf-8"))
    assert rec["moves"][0]["cards"] == "9♦ 9♥"
    assert rec["deck"][:3] == [card_str(c) for c in env.episode_deck[:3]]  # a stacked deck, as card text
    replay = siantappo_v0.raw_env(num_players=4, rounds=1)
    assert replay_record(rec, env=replay) == pytest.approx(totals)
    assert replay.engine.log == env.engine.log  # the same cards, move by move
    del rec["moves"][0]["cards"]  # the id alone plays 9♠ 9♥: another game
    again = siantappo_v0.raw_env(num_players=4, rounds=1)
    with contextlib.suppress(ValueError):
        replay_record(rec, env=again)
    assert again.engine.log[0][3] == keys_of("9♠ 9♥") and again.engine.log != env.engine.log


# ------------------------------------------------------------------ Sam Sip
def test_samsip_errors_say_what_to_do_now():
    from cardzoo.envs import samsip_v0

    e = samsip_v0.raw_env(num_players=2, first_dealer=0)
    e.reset(seed=1)

    def reason(text):
        with pytest.raises(IllegalMoveError) as err:
            e.move_to_action(text)
        return err.value.reason

    draw_hint = "now draw: `draw` (from the stock)"
    assert reason("take") == (
        "there is no discard in front of you to take: only the card the previous player just "
        f"discarded may be taken (rules P8); {draw_hint}"
    )
    assert reason("7h") == f"draw first: a turn is a draw, then a discard (rules P8); {draw_hint}"
    assert reason("fold now please") == f"'fold now please' is not a move; {draw_hint}"
    assert reason("declare") == f"winning hands are declared automatically in this game (rules P10); {draw_hint}"
    e.play("draw")
    low = card_str(min(c for c in e.game.hands[0] if c < 52))
    discard_hint = f"now discard one of your cards (e.g. `{low}`)"
    assert reason("take 5h") == f"you have drawn already: one draw a turn, then a discard (rules P8); {discard_hint}"
    assert reason("draw") == f"you have drawn already: one draw a turn, then a discard (rules P8); {discard_hint}"
    e.play(low)
    # player_1 may name the discard's card to take it
    assert e.move_to_action(low) == e.move_to_action("take")


def test_samsip_never_suggests_declare_unless_legal():
    from cardzoo.envs import samsip_v0
    from cardzoo.envs.samsip.actions import DECLARE

    rng = random.Random(4)
    seen_declare = 0
    for auto in (True, False):
        e = samsip_v0.raw_env(num_players=3, auto_declare=auto, bankroll=4)
        e.reset(seed=11)
        for _ in range(400):
            if not e.agents or all(e.terminations.values()):
                break
            if e.terminations[e.agent_selection]:
                e.step(None)
                continue
            legal = [a for a, _ in e.legal_moves()]
            for text in ("zz", "take 9h", "fold", "discard Kh", "declare", "draw", "Jk"):
                try:
                    e.move_to_action(text)
                except IllegalMoveError as err:
                    assert ("`declare`" in err.reason) == (DECLARE in legal), (text, err.reason)  # noqa: PT017 - only a refusal is checked
            seen_declare += DECLARE in legal
            e.step(rng.choice(legal))
    assert seen_declare > 0  # the check ran where declaring was legal too


# ------------------------------------------------------------------ Suipi shorthand (the play view)
def suipi_view(hand0: str, hand1: str, floor: str):
    """A 2-player Suipi table from a stacked deck (player_0 moves first) and its play view."""
    from cardzoo.envs import suipi_v0
    from cardzoo.scripts.play.common import Seats
    from cardzoo.scripts.play.suipi import SuipiView

    h0, h1, fl = parse_cards(hand0), parse_cards(hand1), parse_cards(floor)
    rest = [c for c in range(52) if c not in set(h0) | set(h1) | set(fl)]
    deal = [c for pair in zip(h0, h1) for c in pair]
    env = suipi_v0.raw_env()
    env.reset(options={"deck": [card_str(c) for c in deal + fl + rest]})
    return env, SuipiView(env, Seats(["human", "rules"]))


SUIPI_TABLE = ("10♦ 10♣ Q♠ 2♥ 5♣ 9♥ 7♠ 3♣", "4♥ K♠ 6♥ 6♣ 7♣ 7♦ 8♦ 8♥", "10♥ Q♥ 3♠ 4♦")


@pytest.mark.parametrize(
    "typed, meant",
    [
        ("10d 10h", "10♦ take 10♥"),  # a pair capture is the take, not the build of 10
        ("10d take 10h", "10♦ take 10♥"),
        ("10d build 10h", "10♦ build 10 on 10♥"),  # a build needs the word
        ("10♦ build 10 on 10♥", "10♦ build 10 on 10♥"),
        ("3c 3s", "3♣ take 3♠"),
        ("3 3", "3♣ take 3♠"),  # ranks alone, as in Siantappo: your 3 takes the floor's 3
        ("three three", "3♣ take 3♠"),  # ... or their words
        ("q q", "Q♠ take Q♥"),
        ("7 3 4", "7♠ take 3♠+4♦"),
        ("9", "9♥ drop"),  # a number is a rank (your only 9), never a list entry
        ("2 build 5", "2♥ build 5 on 3♠"),  # a number after build is the build's value (issue 60) ...
        ("2 build 5 on 3", "2♥ build 5 on 3♠"),  # ... `on` or not
        ("2 3 4 build 9", "2♥ build 9 on 3♠+4♦"),  # ... or floor cards came before
        ("3c build 3s 4d 10h", "3♣ build 10 on 3♠+4♦+10♥"),
        ("qs", "Q♠ take Q♥"),  # one card, one legal move
        ("Q♠ take Q♥", "Q♠ take Q♥"),
        ("5c", "5♣ drop"),  # no take with 5♣: the drop
        ("5c build 4d", "5♣ build 9 on 4♦"),
        ("2h build 3s", "2♥ build 5 on 3♠"),
        ("2h 3s 4d build 9", "2♥ build 9 on 3♠+4♦"),
        ("9h drop", "9♥ drop"),
        ("10d", "10♦ take 10♥"),  # 10♦ cannot be dropped (a 10 lies on the floor)
        ("2h", "2♥ drop"),  # builds are never guessed
    ],
)
def test_suipi_shorthand_means_one_move(typed, meant):
    env, view = suipi_view(*SUIPI_TABLE)
    move = view.parse(typed, 0)
    assert move.text == meant
    assert move.ids in {tuple(ids) for ids, _ in env.full_moves()}


@pytest.mark.parametrize("typed", ["9h 9", "9 9", "9h take 9", "9h 4d", "9h"])
def test_suipi_a_build_is_named_by_its_value_or_any_of_its_cards(typed):
    """As found: `10s 8` with [2♠+6♦=8] on the floor said there is no 8 on the floor."""
    env, view = suipi_view(*SUIPI_TABLE)
    for text in ("5♣ build 9 on 4♦", "K♠ drop"):  # player_0 builds 9, player_1 drops
        for a in {t: ids for ids, t in env.full_moves()}[text]:
            env.step(a)
    assert view.parse(typed, 0).text == "9♥ take [4♦+5♣=9]"


@pytest.mark.parametrize(
    "typed, reason",
    [
        ("7s", "that could mean `7♠ take 3♠+4♦` or `7♠ drop` — type one of them (or #N from the list)"),
        ("10 10", "that could mean `10♣ take 10♥` or `10♦ take 10♥`"),  # which 10 matters: ask
        ("8 8", "you hold no 8"),
        ("5 9", "there is no 9 on the floor"),
        (
            "2h 3s",
            "2♥ with 3♠ can only build (2♥ build 5 on 3♠): a build needs the word build, e.g. `2h build 5 on 3♠`",
        ),
        (
            "2 build 3",
            (
                "a 2 cannot build 3 (a number after `build` is the build's value); it can build 5 or 9: "
                "`2♥ build 9 on 3♠+4♦`; `2♥ build 5 on 3♠` — e.g. `2h build 5 on 3s`"
            ),
        ),
        ("7h 3s", "7♥ is not in your hand"),
        ("3s", "3♠ is on the floor: start with the card from your hand"),
        ("5c 9h", "9♥ is not on the floor (it is in your hand: play one card at a time)"),
        ("5c drop 4d", "a drop lays the card down alone: name no floor cards"),
        (
            "5c take",
            (
                "no legal move plays 5♣ (rules S8: a take captures items worth 5, or loose cards adding up to "
                "5); 5♣ can: 5♣ build 9 on 4♦; 5♣ drop"
            ),
        ),
        ("zz", "'zz' is not a card"),
        ("take", "type the card you play"),
        # as found: `4h build 6 on 2d` was refused without saying that the 6♠ must join
        ("7s build 3s", "no legal move plays 7♠ with 3♠ alone: `7♠ build 10 on 3♠+10♥` does — type it"),
        ("7s build 10 on 3s", "no legal move plays 7♠ with 3♠ alone: `7♠ build 10 on 3♠+10♥` does"),
        ("7s take 3s", "no legal move plays 7♠ with 3♠ alone: `7♠ take 3♠+4♦` does"),
        (
            "7s 3s",
            (
                "no legal move plays 7♠ with 3♠ (rules S8: a take captures items worth 7, or loose cards adding up "
                "to 7); 7♠ can: 7♠ take 3♠+4♦; 7♠ build 10 on 3♠+10♥; 7♠ drop"
            ),
        ),
    ],
)
def test_suipi_shorthand_errors(typed, reason):
    _env, view = suipi_view(*SUIPI_TABLE)
    with pytest.raises(IllegalMoveError) as err:
        view.parse(typed, 0)
    assert reason in err.value.reason
