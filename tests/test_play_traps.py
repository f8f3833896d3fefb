"""Traps a card player fell into at the terminal (issue 60), each done again as the player did it:
`cardzoo play` with piped input, `cardzoo replay` on what it saved."""

from __future__ import annotations

import io
import json
import re

from cardzoo.envs.cards import card_str, parse_cards
from cardzoo.scripts.cli import main
from tests.test_play import run_play
from tests.test_play_screens import transcript


def test_one_seed_play_prints_the_one_replay_shows_and_it_deals_the_same_match(tmp_path, capsys):
    """As found: `play` printed "seed 973639 (play the same deals again …)" and `replay` of the
    same game "seed 3907147045623974372"."""
    save = tmp_path / "game.jsonl"
    args = ["siantappo", "--seats", "rules,rules,rules", "--seed", "973639", "-o", "rounds=1"]
    rc, text = run_play([*args, "--save", str(save)], [])
    assert rc == 0 and "seed 973639 (play the same deals again with --seed 973639)" in text
    assert json.loads(save.read_text(encoding="utf-8"))["seed"] == 973639
    assert main(["replay", str(save), "--quiet"]) == 0
    assert "seed 973639," in capsys.readouterr().out
    again = run_play(args, [])[1]
    assert again == text[: text.index("game saved to")]  # the seed deals the same match again
    assert main(["play", "siantappo", "--seed", "-1"]) == 2
    assert "--seed must be a whole number from 0 to 2**63 - 1, got -1" in capsys.readouterr().err


def test_undo_takes_back_a_discard_but_never_a_draw_from_the_stock():
    """Undo never reveals information: after a Sam Sip draw from the stock it stops at the draw
    (seed 0, three players: the J♦ lies in front of you, so taking it would be a choice)."""
    _rc, text = run_play(
        ["samsip", "--players", "3", "--seed", "0"], ["draw", "undo", "#2", "undo", "undo", "take", "quit", "y"]
    )
    drew = re.search(r"player_0 \(you\): draws (\S+) from the stock", text).group(1)  # type: ignore[union-attr]
    stops = f"undo stops here: your move `draws {drew} from the stock` showed you cards that were hidden"
    assert " ".join(text.split()).count(stops) == 2
    assert "took back your move `discards 8♠` and the 4 moves after it" in text
    tail = text[text.rindex("took back") :]
    assert "Your hand (6): " in tail and drew in tail.split("Your hand (6): ")[1].split("\n")[0]
    assert "player_0 (you): takes" not in text  # `take` after the undo: the draw stands


def test_undo_in_siantappo_takes_back_your_play_and_the_bots_answers():
    _rc, text = run_play(["siantappo", "--seed", "42", "-o", "rounds=1"], ["9d 10h jd", "undo", "show", "quit", "y"])
    assert "player_0 (you): 9♦ 10♥ J♦  (straight)" in text
    assert "took back your move `9♦ 10♥ J♦  (straight)` and the 3 moves after it" in text
    assert "Your hand (13): 3♣ 3♦ 3♥  6♦  8♥  9♦  10♦ 10♥  J♦" in text[text.rindex("took back") :]


def suipi_deck(hand0: str, hand1: str, floor: str) -> list[str]:
    h0, h1, fl = parse_cards(hand0), parse_cards(hand1), parse_cards(floor)
    rest = [c for c in range(52) if c not in set(h0) | set(h1) | set(fl)]
    return [card_str(c) for c in [c for pair in zip(h0, h1) for c in pair] + fl + rest]


def test_suipi_build_n_is_a_value_and_a_locked_build_shows_its_groups():
    """As found: `2c build 7` (a build of 5 on the floor) answered "there is no 7 on the floor";
    `A build 8` built 9 on the 8♠; a locked build of 9 read `[2♠+7♣+9♠] = 9`. Two people at one
    keyboard (hot-seat), so every move is typed."""
    deck = suipi_deck("2♥ 5♣ 2♣ 7♠ A♥ 9♠ 8♥ Q♣", "K♠ Q♠ J♠ K♥ Q♥ J♥ K♦ Q♦", "3♠ 4♦ 8♠ 10♥")
    text = transcript(
        ["suipi", "--seats", "human,human", "--seed", "1"],
        ["", "2h build 5 on 3s", "", "ks drop", "", "2c build 7", "", "qs drop", "", "a build 8", "", "quit", "y"],
        deck,
        width=100,
    )
    assert "player_0 (human): 2♣ build 7 on [2♥+3♠=5]" in text
    assert "player_0 (human): A♥ build 8 on [2♣+2♥+3♠=7]+8♠" in text
    assert "[A♥+2♣+2♥+3♠ | 8♠] = 8 (player_0's build, locked)" in text
    assert "there is no" not in text and "build 9" not in text.split("> a build 8")[1]


def test_a_refused_move_names_the_rule():
    """As found: `4 4 5 5 6 6` as a Siantappo lead: "not a legal move now". Seed 83: you lead with
    6♣ 6♦ 7♠ 7♦ 8♠ 8♦ in hand; then a straight with a 2, and a pass on the lead."""
    _rc, text = run_play(["siantappo", "--seed", "83"], ["6 6 7 7 8 8", "q a 2", "pass", "quit", "y"])
    flat = " ".join(text.split())
    assert (
        "6♣ 6♦ 7♠ 7♦ 8♠ 8♦ is a siantappo: it is played only as a bomb, on a single 2 (rules T8); it cannot lead (T4)"
    ) in flat
    assert "is not a Siantappo combination: a straight has no 2s (rules T4)" in flat
    assert "you cannot pass now: you lead, and the leader plays a combination (rules T7)" in flat
    assert "not a legal move now" not in flat


def test_small_things_a_player_ran_into(tmp_path, capsys):
    """As found: `0` refused without the #N form; no "did you mean model?" for `modle`; `replay`
    on a folder said "not found"; "a 8" for "an 8"."""
    _rc, text = run_play(["siantappo", "--seed", "42", "-o", "rounds=1"], ["0", "quit", "y"])
    assert "0 is not a card rank (ranks: A or 1, 2-10, J, Q, K); to pick from the list of moves, type #1..#" in (
        " ".join(text.split())
    )
    assert main(["play", "siantappo", "--seats", "human,modle,rules,rules"]) == 2
    assert "unknown agent 'modle' (did you mean `model`?)" in capsys.readouterr().err
    assert main(["replay", str(tmp_path)]) == 2
    assert f"{tmp_path} is a folder: give a record file in it" in capsys.readouterr().err
    from cardzoo.envs.samsip.view import pairs_line

    assert pairs_line(parse_cards("Jh Js Qh Qs 2d"), frozenset(), frozenset()).endswith(
        "one more needed (an 8 for your 2♦, or a wild card)"
    )


def test_once_out_one_question_skips_to_the_end_and_the_record_is_saved(tmp_path):
    """As found: knocked out of Sam Sip, the terminal asked for Enter after each of six more hands,
    and `q` left without saving. Seed 0, five players, 3 chips each: you are knocked out early."""
    from cardzoo.scripts import play_cmd
    from cardzoo.scripts.cli import build_parser
    from tests.test_play import ScriptedStdin, plain_console

    save = tmp_path / "game.jsonl"
    for answer in ("", "q"):  # Enter skips; so does q, and the match is played out and saved
        console, out = plain_console()
        ns = build_parser().parse_args(
            ["play", "samsip", "--players", "5", "--seed", "0", "-o", "bankroll=3", "--save", str(save)]
        )
        session = play_cmd.build_session(ns, stdin=io.StringIO(""), console=console)
        session.stdin = ScriptedStdin(session, lambda s: "#1")
        if answer:
            session.stdin.readline = lambda s=session: "q\n" if s.waiting_for == "pause" else "#1\n"
        assert session.run() == 0
        text = out.getvalue()
        out_at = text.index("— you are out: Enter skips to the end of the match (w: watch the rest) —")
        assert "press Enter" not in text[out_at:] and "Match result after" in text[out_at:]
        assert "player_0 (you)" in text[text.index("Match result after") :] and "game saved to" in text
        assert main(["replay", str(save), "--quiet"]) == 0  # a whole match: it replays to its rewards


def test_a_siantappo_round_summary_reads_in_place_order_and_the_last_out_is_said():
    """As found: the round summary was sorted by place but showed match totals (9 above 11), and
    the play that ended a round said nothing of who went out in what place. Four rule bots."""
    _rc, text = run_play(["siantappo", "--seats", "rules,rules,rules,rules", "--seed", "7", "-o", "rounds=2"], [])
    lines = text.splitlines()
    end = next(i for i, line in enumerate(lines) if line.startswith("End of round 1 of 2"))
    assert re.search(r"is out: 3rd place$", lines[end - 1]), lines[end - 3 : end]
    header = lines[end + 1].split()
    assert header[:4] == ["place", "player", "this", "round"] and "match" in header
    rows = lines[end + 3 : end + 7]
    assert [re.findall(r"\+(\d)", row)[:1] for row in rows] == [["3"], ["2"], ["1"], ["0"]], rows


def test_replay_step_goes_back_and_jumps_to_a_round(tmp_path):
    """As found: `replay --step` could only go forwards, and could not jump to a round or deal."""
    from cardzoo.scripts import replay_cmd
    from cardzoo.scripts.cli import build_parser
    from tests.test_play import plain_console

    save = tmp_path / "game.jsonl"
    run_play(
        ["siantappo", "--seats", "rules,rules,rules,rules", "--seed", "7", "-o", "rounds=2", "--save", str(save)], []
    )
    console, out = plain_console()
    ns = build_parser().parse_args(["replay", str(save), "--step"])
    assert replay_cmd.run(ns, stdin=io.StringIO("\n\nb\nj 2\n\ng 3\nxx\nq\n"), console=console) == 0
    text = out.getvalue()
    assert "[2/94] player_3 (rules) plays: 8♣ 9♦ 10♣  (straight)" in text
    assert "[1/94] the table after move 1" in text  # back
    assert "[52/94] the table after move 52" in text and "[53/94] player_3 (rules) plays:" in text  # round 2
    assert "[3/94] the table after move 3" in text and "j N (the start of round N, 1..2)" in text
    assert "stopped after move 3 of 94" in text


def test_a_hint_names_moves_the_rules_treat_alike_together_with_one_label():
    """As found: two cards the rules treat alike got different numbers (4♦ −0.29, 4♣ −0.64).
    Suipi seed 11: you hold 4♣ and 4♥ (neither a spade nor a point card) and a 4♦ lies on the
    floor; building 4 on it with either is one move to the rules, and the hint says so."""
    _rc, text = run_play(["suipi", "--seed", "11", "-o", "match_deals=1"], ["hint", "quit", "y"])
    line = " ".join(text[text.index("hint: ") :].split("(the model's ranking")[0].split())
    best = line.split(" — its best")[0]
    assert re.fullmatch(
        r"hint: the model would play #\d+ 4(♣|♥) build 4 on 4♦ or #\d+ 4(♣|♥) build 4 on 4♦ \(alike\)", best
    )
    assert "4♣ build 4" in best and "4♥ build 4" in best
    assert line.count("4♣ build 4 on 4♦") == 1  # one entry, never ranked apart


def test_a_hint_entry_is_worth_the_best_of_the_moves_alike():
    """The ranking's own rule (scripts/hints.py): moves of one rule class are one entry with the
    best member's value; the others come after it in ``alike``."""
    from cardzoo.scripts import hints

    advice = [((1,), 0.9), ((2,), 0.5), ((3,), 0.1), ((4,), 0.45)]  # 1 and 3 alike, 2 and 4 alike
    texts = {(1,): "4♦ drop", (2,): "9♠ take 9♥", (3,): "4♣ drop", (4,): "9♠ take 9♣"}
    got = hints.ranked(advice, "Q", texts, alike=lambda ids: ids[0] % 2)
    assert [(m["text"], m["label"], [a["text"] for a in m["alike"]]) for m in got] == [
        ("4♦ drop", "best", ["4♣ drop"]),
        ("9♠ take 9♥", "risky", ["9♠ take 9♣"]),
    ]
    assert [m["rank"] for m in got] == [1, 2]
