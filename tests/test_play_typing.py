"""Typed moves at the terminal mean what they say (issue 26, items 1-2), tested the way they were
found: piped stdin sessions. A bare number is a card rank, never an entry of the list (`#3` is);
input that could be read two ways is asked about, not guessed."""

from __future__ import annotations

import re

from cardzoo.scripts.play.session import PlaySession
from tests.deals import dealt_by
from tests.test_play import SHORT, ScriptedStdin, run_play, session_for
from tests.test_play_screens import samsip_deck, suipi_deck, transcript


def test_siantappo_a_number_you_do_not_hold_is_refused_not_a_list_entry():
    """As found with seed 887144: `2`, holding no 2, played list entry 2."""
    rc, text = run_play(["siantappo", "--seed", str(dealt_by(887144))], ["2", "11", "#2", "quit", "y"])
    assert rc == 0
    assert "you hold no 2 (a number is a card rank; #2 picks move 2 of the list)" in text
    assert "11 is not a card rank" in text
    first = text.index("> 2\n")
    assert "player_0 (you):" not in text[first : text.index("> #2\n")]  # nothing was played
    assert "player_0 (you): pass" in text  # `#2` is the list's second entry: pass


def test_siantappo_ten_is_your_ten_even_with_ten_moves_listed():
    """As found: with the list shown, `10` (meaning the only 10) played list entry 10 (pass)."""
    for seed in range(1, 30):
        session, out = session_for(["siantappo", "--seed", str(seed), *SHORT["siantappo"]])
        typed: dict[str, str] = {}

        def answer(s: PlaySession):
            moves = s.env.full_moves()
            singles = [t for _, t in moves if re.fullmatch(r"10[♠♣♦♥]", t)]
            if not typed and len(singles) == 1 and len(moves) >= 10 and not any(t.count("10") > 1 for _, t in moves):
                typed["ten"], typed["entry10"] = singles[0], moves[9][1]
                return "10"
            return "#1"

        session.stdin = ScriptedStdin(session, answer)
        assert session.run() == 0
        if typed:
            text = out.getvalue()
            after = text[text.index("> 10\n") :]
            assert after.split("\n")[1].startswith(f"player_0 (you): {typed['ten']}"), after[:200]
            assert typed["entry10"] != typed["ten"]
            return
    raise AssertionError("no seat had ten moves and one 10 to play")


def test_suipi_ranks_alone_and_numbers_are_cards():
    """As found vs the model: `9` (to take with the 9) played list entry 9. Ranks alone work as in
    Siantappo (`3 3`), a number is a rank, `q` (a queen that can take) is asked about."""
    text = transcript(
        ["suipi", "--seed", "1", *SHORT["suipi"]], ["q", "#99", "9", "quit", "y"], suipi_deck(), width=120
    )
    assert "`q` could mean Q♠ take Q♥ or quit" in text
    assert "there is no move #99" in text
    assert "player_0 (you): 9♥ drop" in text  # the only 9, not the 9th entry of the list
    text = transcript(["suipi", "--seed", "1", *SHORT["suipi"]], ["3 3", "quit", "y"], suipi_deck(), width=120)
    assert "player_0 (you): 3♣ take 3♠" in text
    text = transcript(["suipi", "--seed", "1", *SHORT["suipi"]], ["10 10", "quit", "y"], suipi_deck(), width=120)
    assert "that could mean `10♣ take 10♥` or `10♦ take 10♥`" in text  # which 10 matters (10♦ scores)


def test_samsip_a_number_is_a_rank_of_your_hand():
    """As found: `6` discarded list entry 6, a wild 10♦."""
    text = transcript(
        ["samsip", "--seed", "1", "-o", "first_dealer=0"], ["", "6", "2", "k", "quit", "y"], samsip_deck(), width=120
    )
    assert "you hold no 6" in text
    assert "which 2: `2♣` or `2♦` or `2♥`? type the card" in text
    assert "player_0 (you): discards K♥" in text


def test_suipi_shows_the_floor_as_dealt_when_bots_move_first():
    _rc, text = run_play(["suipi", "--seed", str(dealt_by(2)), "--players", "4", *SHORT["suipi"]], ["quit", "y"])
    first_bot = text.index("player_2 (rules): ")
    dealt = text[:first_bot]
    assert "Floor: 2♦ (2)   4♥ (4)   7♠ (7)   8♥ (8)" in dealt and "Your hand (8)" in dealt


def test_suipi_wording_of_the_leftover_cards():
    from cardzoo.envs.cards import parse_card
    from cardzoo.envs.seatview import Reader
    from cardzoo.envs.suipi import actions
    from cardzoo.envs.suipi.view import leftover_fact, word

    one = leftover_fact({"floor": [], "last_capturer": 1}, 0, (parse_card("5c"), actions.DROP_ACTION))
    assert word(one, Reader(0)) == "Last capture: player_1 takes the last card left on the floor: 5♣"
    assert word(one, Reader(1)) == "Last capture: you take the last card left on the floor: 5♣"
    _rc, text = run_play(["suipi", "--seed", "4", *SHORT["suipi"]], ["#1"] * 1000)
    assert "card(s)" not in text and "Last capture:" in text


def test_hint_says_what_the_model_would_play_from_the_seats_own_information():
    """`hint` (issue 26, item 3): the model's move for this seat with its estimate; the same with
    every hidden card dealt differently (it reads only what the seat may know)."""
    import random

    _rc, text = run_play(["suipi", "--seed", "2", *SHORT["suipi"]], ["hint", "quit", "y"])
    assert re.search(r"hint: the model would play #\d+ .+ — its best", text)  # numbered as in the list
    assert re.search(r"then: #\d+ .+ \((about as good|fine|risky)\)", text)  # words, not RL numbers
    assert "reward" not in text and "player_0 (you):" not in text  # a hint plays nothing
    for game in ("siantappo", "samsip"):
        session, out = session_for([game, "--seed", "5", *SHORT[game]])
        seen: list[str] = []

        def answer(s: PlaySession):
            if len(seen) < 2 and len(s.env.full_moves()) > 1:
                seat = s.env.agent_seat[s.env.agent_selection]
                real = s.env.engine
                for engine in (real, real.resample_hidden(seat, random.Random(7))):
                    s.env.engine = engine
                    mark = len(out.getvalue())
                    s._hint(s.env.full_moves())
                    seen.append(out.getvalue()[mark:].replace("loading the model for hints …\n", ""))
                s.env.engine = real
            if len(seen) >= 2:
                s.stdin.left = 0  # then end of input: the session ends politely
            return "#1"

        session.stdin = ScriptedStdin(session, answer)
        assert session.run() == 0
        assert len(seen) == 2 and "hint: the model would play" in seen[0], seen
        assert seen[0] == seen[1], game


def test_samsip_discard_with_a_rank_never_takes_the_discard():
    """As found: in the draw phase, with 8♣ in front of you, `discard 8` took the 8♣. A discard verb
    names a card of yours, so it waits for the draw; `throw` alone asks which card; an empty line
    with several moves says so."""
    text = transcript(
        ["samsip", "--seats", "human,rules@1003", "--seed", str(dealt_by(2)), "-o", "bankroll=3"],
        [
            "draw",
            "throw 3s",
            "10",
            "discard 6",
            "d",
            "drop kd",
            "take ac",
            "10",
            "discard 8",
            "drop 8",
            "throw",
            "",
            "8",
            "quit",
            "y",
        ],
        width=120,
    )
    assert "Discard 8♣ (from player_1) lies in front of you" in text
    assert text.count("draw first: `draw` (from the stock) or `take`; an 8 alone names a card to discard") == 2
    assert "discard which card?" in text and "you have 2 moves: type one (? lists them)" in text
    assert text.index("you have 2 moves") < text.index("player_0 (you): takes 8♣")  # `8` alone takes it
    assert text.count("player_0 (you): takes 8♣") == 1


def test_samsip_discard_with_a_card_waits_for_the_draw():
    """As found: in the draw phase `discard 10h`, the 10♥ lying in front of you, took it."""
    text = transcript(
        ["samsip", "--seats", "human,rules@1004,rules@1005,rules@1006", "--seed", str(dealt_by(3))],
        ["discard 10h", "discard 5d", "quit", "y"],
        width=120,
    )
    assert "take 10♥" in text  # the card in front of the player
    assert text.count("draw first: `draw` (from the stock) or `take`; you discard after that") == 2
    assert "player_0 (you):" not in text  # nothing was played for them


def test_a_mistyped_word_gets_a_suggestion_never_a_move():
    text = transcript(["samsip", "--seed", "1"], ["drwa", "tkae", "hnit", "quit", "y"], width=120)
    flat = " ".join(text.split())
    assert "(did you mean `draw`?)" in flat and "(did you mean `take`?)" in flat and "(did you mean `hint`?)" in flat
    assert "player_0 (you):" not in text  # nothing was played for them
