"""`cardzoo play`: whole games of each title driven by scripted input, bad input, help, EOF,
and what a card player sees: trick winners, places, forced moves, pauses, human scores.

The command runs in-process with a fake stdin and a plain (no colour, fixed width) rich console;
one test goes through the installed console script with piped stdin.
"""

from __future__ import annotations

import io
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from cardzoo.scripts import play_cmd
from cardzoo.scripts.cli import build_parser, main
from tests.deals import dealt_by

ROOT = Path(__file__).resolve().parents[1]
CARD_RE = re.compile(r"(?:10|[2-9AJQK])[♠♣♦♥]")


def plain_console() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=120, no_color=True, highlight=False, emoji=False, soft_wrap=False), out


def run_play(args, lines):
    """Run `cardzoo play ARGS` with the given input lines; returns (exit code, transcript)."""
    console, out = plain_console()
    stdin = io.StringIO("".join(line + "\n" for line in lines))
    ns = build_parser().parse_args(["play", *args])
    rc = play_cmd.run(ns, stdin=stdin, console=console)
    return rc, out.getvalue()


def session_for(args):
    console, out = plain_console()
    ns = build_parser().parse_args(["play", *args])
    return play_cmd.build_session(ns, stdin=io.StringIO(""), console=console), out


class ScriptedStdin:
    """A stdin whose next line comes from ``answer(session)`` when the game asks for a move;
    other prompts (pauses, hot-seat hand-overs) get Enter."""

    def __init__(self, session, answer, limit=5000):
        self.session, self.answer, self.left = session, answer, limit

    def readline(self):
        self.left -= 1
        if self.left < 0:
            return ""
        if self.session.waiting_for != "move":
            return "\n"
        return self.answer(self.session) + "\n"


SHORT = {"siantappo": ["-o", "rounds=1"], "suipi": ["-o", "match_deals=1"], "samsip": ["-o", "bankroll=3"]}


# ------------------------------------------------------------------ complete games
@pytest.mark.parametrize(
    "game,players", [("siantappo", 3), ("siantappo", 4), ("suipi", 2), ("suipi", 4), ("samsip", 2), ("samsip", 4)]
)
def test_complete_game_first_move_each_time(game, players, tmp_path):
    save = tmp_path / "game.jsonl"
    rc, text = run_play(
        [game, "--players", str(players), "--seed", "3", "--save", str(save), *SHORT[game]], ["#1"] * 3000
    )
    assert rc == 0
    assert "Match result" in text and "game saved to" in text
    assert "leaving the game" not in text and "reward" not in text  # people see points, not RL rewards
    records = [json.loads(line) for line in save.read_text(encoding="utf-8").splitlines()]
    assert len(records) == 1
    rec = records[0]
    assert rec["game"] == f"{game}_v0" and rec["agents"][0] == "human" and len(rec["rewards"]) == players
    assert all({"seat", "action", "text"} <= set(m) for m in rec["moves"])
    assert abs(sum(rec["rewards"])) < 1e-9  # zero-sum
    records_mod = pytest.importorskip("cardzoo.training.evaluation.records")
    assert records_mod.replay_record(rec) == pytest.approx(rec["rewards"])


def test_saved_game_replays_with_cardzoo_replay(tmp_path, capsys):
    save = tmp_path / "g.jsonl"
    rc, _ = run_play(["siantappo", "--seed", "8", "--save", str(save), *SHORT["siantappo"]], ["#1"] * 500)
    assert rc == 0
    if "replay" not in build_parser()._subparsers._group_actions[0].choices:  # type: ignore[union-attr,operator]
        pytest.skip("cardzoo replay is not available")
    assert main(["replay", str(save), "--quiet"]) == 0
    assert "the replay matches the recorded rewards" in capsys.readouterr().out


def test_seed_makes_the_game_reproducible():
    a = run_play(["siantappo", "--seed", "11", *SHORT["siantappo"]], ["#1"] * 500)[1]
    b = run_play(["siantappo", "--seed", "11", *SHORT["siantappo"]], ["#1"] * 500)[1]
    c = run_play(["siantappo", "--seed", "12", *SHORT["siantappo"]], ["#1"] * 500)[1]
    assert a == b and a != c


def test_siantappo_rounds_show_score_breakdown_and_swap():
    rc, text = run_play(["siantappo", "--seed", "3", "-o", "rounds=2"], ["#1"] * 1000)
    assert rc == 0
    assert "End of round 1 of 2" in text and "End of round 2 of 2" in text
    assert "placement points" in text and "the pig" in text
    assert "Swap this round" in text  # round 2: the swap, as the person sees it
    # a pause after the first round's summary, none after the last (the match result follows)
    assert text.count("press Enter to continue") == 1
    assert text.index("press Enter to continue") > text.index("End of round 1 of 2")


def test_suipi_deal_breakdown_lists_every_score_line():
    rc, text = run_play(["suipi", "--seed", "4", *SHORT["suipi"]], ["#1"] * 1000)
    assert rc == 0
    breakdown = text[text.index("End of deal 1") :]
    for row in ("cards", "spades", "10♦ (2)", "2♠ (1)", "aces", "suipis", "deal score", "match score"):
        assert row in breakdown
    assert "wins the match" in text or "draw" in text
    assert "Last capture: " in text and "left on the floor" in text  # the rest of the floor is named


def test_samsip_shows_discard_wilds_chips_and_hand_result():
    rc, text = run_play(["samsip", "--seed", "2", *SHORT["samsip"]], ["#1"] * 1000)
    assert rc == 0
    assert "Indicator:" in text and "wild:" in text and "stake" in text and "chips" in text
    assert "lies in front of you" in text
    assert re.search(r"Hand \d+: player_\d .* wins with", text)
    assert "Match result after" in text and "chips" in text
    assert re.search(r"player_0 \(you\): draws (10|[2-9AJQK])[♠♣♦♥] from the stock", text)  # your card
    assert not re.search(r"player_[1-3] \(rules\): draws (10|[2-9AJQK])[♠♣♦♥]", text)  # not theirs
    assert re.search(r"winning pairs: \S+\+\S+, \S+\+\S+, \S+\+\S+", text)
    assert "Your pairs: " in text


# ------------------------------------------------------------------ input handling
def test_bad_input_help_rules_then_the_game_goes_on():
    lines = ["", "zz", "7z 8q", "0", "999", "#0", "#999", "?", "help", "rules", "show", "K♥ K♦ K♣ K♠ A♥", "#1"] + [
        "#1"
    ] * 500
    rc, text = run_play(["siantappo", "--seed", "3", *SHORT["siantappo"]], lines)
    assert rc == 0
    assert "Match result" in text
    assert "is not a card" in text
    assert "there is no move #999" in text and "there is no move #0" in text
    assert "999 is not a card rank" in text and "0 is not a card rank" in text
    assert "Legal moves:" in text and "Commands:" in text
    assert "climbing game" in text  # the rules summary
    assert text.count("try again") >= 4


def test_siantappo_typed_cards_pass_and_not_held():
    session, out = session_for(["siantappo", "--seed", "3", *SHORT["siantappo"]])
    seen = {"typed": 0, "not_held": False, "pass": False}

    def answer(s):
        from cardzoo.envs.siantappo.actions import key_str
        from cardzoo.envs.siantappo.engine import hand_keys

        env = s.env
        eng = env.engine
        seat = env.acting_seat
        if not seen["not_held"]:  # a card somebody else holds
            other = next(k for t in range(eng.n) if t != seat for k in hand_keys(eng.hands[t]))
            seen["not_held"] = True
            return key_str(other).replace("♠", "s").replace("♥", "h").replace("♦", "d").replace("♣", "c")
        moves = env.full_moves()
        if moves[-1][1] == "pass" and not seen["pass"]:
            seen["pass"] = True
            return "pass"
        seen["typed"] += 1
        return moves[0][1]  # the cards, typed as shown (e.g. "7♠ 7♥")

    session.stdin = ScriptedStdin(session, answer)
    assert session.run() == 0
    text = out.getvalue()
    assert "you do not hold" in text
    assert seen["pass"] and seen["typed"] > 3
    assert "player_0 (you): pass" in text
    assert "Match result" in text


def stacked_siantappo(session, hand0: str, seed: int = 0):
    """Make the session deal player_0 exactly ``hand0`` (13 cards, 4 players; stacked deck)."""
    from cardzoo.envs.cards import card_str, parse_cards

    mine = parse_cards(hand0)
    rest = [c for c in range(52) if c not in mine]
    random.Random(seed).shuffle(rest)
    hands = [mine] + [rest[13 * i : 13 * (i + 1)] for i in range(3)]
    deck = [card_str(hands[i % 4][i // 4]) for i in range(52)]
    reset = session.env.reset
    session.env.reset = lambda seed=None, options=None: reset(seed=seed, options={"deck": deck})


def test_siantappo_plays_and_records_the_cards_typed(tmp_path):
    save = tmp_path / "g.jsonl"
    session, out = session_for(["siantappo", "--seed", "5", "--save", str(save), *SHORT["siantappo"]])
    stacked_siantappo(session, "3♣ 9♠ 9♦ 9♥ 4♦ 5♦ 6♠ 7♠ J♣ Q♣ K♣ A♣ 2♣")
    typed = iter(["9d 9c", "9 9", "9d 9h"])
    session.stdin = ScriptedStdin(session, lambda s: next(typed, "#1"))
    assert session.run() == 0
    text = out.getvalue()
    assert "you do not hold 9♣ — try again" in text
    assert "'9 9' could be 9♠ 9♦, 9♠ 9♥ or 9♦ 9♥: name the suits, e.g. 9d 9h — try again" in text
    assert "player_0 (you): 9♦ 9♥  (pair)" in text
    rec = json.loads(save.read_text(encoding="utf-8"))
    first = rec["moves"][0]
    assert first["seat"] == 0 and first["text"] == first["cards"] == "9♦ 9♥"
    records_mod = pytest.importorskip("cardzoo.training.evaluation.records")
    assert records_mod.replay_record(rec) == pytest.approx(rec["rewards"])


def test_siantappo_bomb_squeals_for_a_person():
    """The person holds 4-4-5-5-6-6-7-7-8-8-9-9 (stacked deck), passes until a bomb is legal."""
    from cardzoo.envs.cards import card_str, parse_card
    from cardzoo.envs.siantappo.env import SQUEAL

    mine = [parse_card(c) for c in ["4s", "4c", "5s", "5c", "6s", "6c", "7s", "7c", "8s", "8c", "9s", "9c", "10s"]]
    for seed in range(30):
        rest = [c for c in range(52) if c not in mine]
        random.Random(seed).shuffle(rest)
        deck = [card_str(c) for i in range(13) for c in (mine[i], *rest[3 * i : 3 * i + 3])]  # seat i % 4
        session, out = session_for(["siantappo", "--seed", str(seed), *SHORT["siantappo"]])
        reset = session.env.reset
        session.env.reset = lambda seed=None, options=None: reset(seed=seed, options={"deck": deck})
        bombed = []

        def answer(s):
            env = s.env
            moves = env.full_moves()
            for i, (ids, text) in enumerate(moves, 1):
                if env.is_squeal(ids[-1]):
                    bombed.append(text)
                    return f"#{i}"
            return "pass" if moves[-1][1] == "pass" else "#1"

        session.stdin = ScriptedStdin(session, answer)
        assert session.run() == 0
        if bombed:
            text = out.getvalue()
            i = text.index(f"player_0 (you): {bombed[0]}")
            assert SQUEAL in text[i : i + 200]
            return
    pytest.skip("no seed in range let the person bomb")


def test_siantappo_bot_bomb_squeals_too():
    for seed in range(40):
        rc, text = run_play(
            ["siantappo", "--seats", "rules,rules,rules,rules", "--seed", str(seed), *SHORT["siantappo"]], []
        )
        assert rc == 0 and "Match result" in text
        m = re.search(r"\(siantappo\)\n(.*)\n", text)
        if m:
            assert "SQUEEEEAL" in m.group(1)
            return
    pytest.skip("no bot bombed in these seeds")


def test_suipi_shorthand_and_full_text_moves():
    session, out = session_for(["suipi", "--seed", "4", *SHORT["suipi"]])
    from cardzoo.envs.cards import card_str
    from cardzoo.envs.suipi import actions

    used = {"short": 0, "full": 0}

    def answer(s):
        env = s.env
        moves = env.full_moves()
        ids, text = moves[len(moves) // 2]
        if used["short"] <= used["full"]:
            # played card + any card of each floor item: e.g. "5♣ 3♦ 2♠" (+ value for builds)
            floor = {it[5]: it for it in env.engine.floor}
            words = [card_str(ids[0])] + [card_str(floor[a - actions.ITEM0][2][-1]) for a in ids[1:-1]]
            same = [m for i, m in moves if i[:-1] == ids[:-1]]
            if ids[-1] > actions.CAPTURE_ACTION and ids[-1] != actions.DROP_ACTION and len(same) > 1:
                words.append(str(ids[-1] - actions.BUILD0))
            if len(ids) == 2 and len(same) > 1:
                return text
            used["short"] += 1
            return " ".join(words)
        used["full"] += 1
        return text

    session.stdin = ScriptedStdin(session, answer)
    assert session.run() == 0
    text = out.getvalue()
    assert "Match result" in text
    assert "try again" not in text
    assert used["short"] > 5 and used["full"] > 5


def test_suipi_bad_moves_are_explained():
    lines = ["Q♠ take 3♦", "5c 9x", "take", "2h build 99 on 8s", "1"] + ["#1"] * 500
    rc, text = run_play(["suipi", "--seed", "1", *SHORT["suipi"]], lines)
    assert rc == 0
    assert "Match result" in text
    assert text.count("try again") >= 4


def test_samsip_typed_draw_take_and_discard():
    session, out = session_for(["samsip", "--seed", "5", *SHORT["samsip"]])
    from cardzoo.envs.cards import card_str
    from cardzoo.envs.samsip.engine import PHASE_DRAW

    said = {"draw": 0, "take": 0, "discard": 0, "wrong": 0}

    def answer(s):
        g = s.env.game
        if g.phase == PHASE_DRAW:
            if said["wrong"] == 0:
                said["wrong"] += 1
                return "7h 8h"
            if g.live >= 0 and said["take"] <= said["draw"]:
                said["take"] += 1
                return "take"
            said["draw"] += 1
            return "draw"
        if said["wrong"] == 1:
            said["wrong"] += 1
            return "draw"  # already drawn
        said["discard"] += 1
        return card_str(max(g.hands[g.turn]))

    session.stdin = ScriptedStdin(session, answer)
    assert session.run() == 0
    text = out.getvalue()
    assert "you have drawn already" in text
    assert "Match result after" in text
    assert said["take"] and said["draw"] and said["discard"]


def test_eof_and_quit_end_politely(tmp_path):
    save = tmp_path / "never.jsonl"
    rc, text = run_play(["suipi", "--seed", "1", "--save", str(save)], [])
    assert rc == 0 and "end of input" in text and "Bye" in text
    assert not save.exists()
    rc, text = run_play(["samsip", "--seed", "1"], ["?", "quit", "y"])
    assert rc == 0 and "Leave the match in progress? (y/N)" in text and "you quit" in text


def test_quit_asks_first_and_no_plays_on():
    rc, text = run_play(["siantappo", "--seed", str(dealt_by(3)), *SHORT["siantappo"]], ["q", "n"] + ["#1"] * 500)
    assert rc == 0
    assert text.count("Leave the match in progress? (y/N)") == 1 and "Playing on." in text
    assert "Match result" in text and "you quit" not in text


def test_ctrl_c_at_the_prompt_ends_politely():
    class Interrupting:
        def readline(self):
            raise KeyboardInterrupt

    console, out = plain_console()
    ns = build_parser().parse_args(["play", "siantappo", "--seed", "1"])
    assert play_cmd.run(ns, stdin=Interrupting(), console=console) == 0
    assert "interrupted" in out.getvalue()


# ------------------------------------------------------------------ hidden information
def _hidden_cards(session, viewer):
    """Card texts in other seats' hands that are not public (so must never be on screen)."""
    env, game = session.env, session.env.metadata["name"]
    if game == "siantappo_v0":
        from cardzoo.envs.siantappo.actions import key_str
        from cardzoo.envs.siantappo.engine import hand_keys

        eng = env.engine
        known = set(eng.swap_given[viewer])  # the viewer knows where the cards it gave went
        return {
            key_str(k) for s in range(env.num_players) if s != viewer for k in hand_keys(eng.hands[s]) if k not in known
        }
    from cardzoo.envs.cards import card_str

    if game == "suipi_v0":
        hidden = {card_str(c) for s in range(env.num_players) if s != viewer for c in env.engine.hands[s]}
        return hidden - {"10♦", "2♠"}  # column headings of the capture table
    g = env.game
    public = set(g.wild) | set(g.dead) | {g.indicator} | {k for kn in g.known for k in kn}
    return {
        card_str(c) for s in range(env.num_players) if s != viewer for c in g.hands[s] if c < 52 and c not in public
    }


@pytest.mark.parametrize(
    "game,seats,opts",
    [
        ("siantappo", "human,rules,random,rules", SHORT["siantappo"]),
        ("siantappo", "human,rules,rules,rules", ["-o", "rounds=3", "-o", "swap_choice=true"]),
        ("siantappo", "human,human,rules", ["-o", "rounds=2", "-o", "swap_choice=true"]),
        ("suipi", "human,human", SHORT["suipi"]),
        ("suipi", "human,rules,human,rules", SHORT["suipi"]),
        ("samsip", "human,human,rules", SHORT["samsip"]),
        ("samsip", "human,rules", SHORT["samsip"]),
    ],
)
def test_screen_never_shows_hidden_cards(game, seats, opts):
    session, out = session_for([game, "--seats", seats, "--seed", "7", *opts])
    checked = {"n": 0, "pos": 0}

    def answer(s):
        text = out.getvalue()
        start = text.rfind("╭─")
        if start > checked["pos"]:  # a new table since the last question
            checked["pos"] = start
            seat = s.env.acting_seat
            shown = set(CARD_RE.findall(text[start:]))
            leaked = shown & _hidden_cards(s, seat)
            assert not leaked, f"player_{seat} sees {leaked}"
            checked["n"] += 1
        return "#1"

    session.stdin = ScriptedStdin(session, answer)
    assert session.run() == 0
    assert checked["n"] > 5
    text = out.getvalue()
    if seats.count("human") > 1:
        assert "press Enter" in text and "(human)" in text
    # a swap is private to its two players: the screen shows a card only to the single person in it
    humans = [i for i, k in enumerate(seats.split(",")) if k == "human"]
    for giver, receiver in re.findall(r"player_(\d) \(\w+\): give \S+ to player_(\d)", text):
        assert len(humans) == 1 and humans[0] in (int(giver), int(receiver))


# ------------------------------------------------------------------ command line
def test_bad_command_lines_are_one_line_errors(capsys):
    assert main(["play", "chess"]) == 2
    assert "unknown game" in capsys.readouterr().err
    assert main(["play", "siantappo", "--players", "2"]) == 2
    assert "3, 4, 5 or 6" in capsys.readouterr().err
    assert main(["play", "suipi", "--seats", "human,robot"]) == 2
    assert "unknown agent" in capsys.readouterr().err
    assert main(["play", "suipi", "--seats", "human,rules", "--players", "4"]) == 2
    assert main(["play", "siantappo", "-o", "rounds"]) == 2
    assert "KEY=VALUE" in capsys.readouterr().err
    assert main(["play", "siantappo", "-o", "colour=1"]) == 2
    assert "unknown option" in capsys.readouterr().err


def test_main_reads_sys_stdin(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("#1\n" * 400))
    assert main(["play", "siantappo", "--seed", "2", "--no-color", "--width", "100", *SHORT["siantappo"]]) == 0
    out = capsys.readouterr().out
    assert "Match result" in out and "\x1b[" not in out


def test_console_script_with_piped_stdin():
    exe = Path(sys.executable).with_name("cardzoo")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "cardzoo.scripts.cli"]
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "100", "PYTHONIOENCODING": "utf-8"}
    p = subprocess.run(
        [*cmd, "play", "samsip", "--players", "3", "--seed", "1"],
        input="?\nrules\n",
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=ROOT,
        env=env,
        timeout=60,
    )
    assert p.returncode == 0, p.stderr
    assert "Sam Sip" in p.stdout and "mixing tens" in p.stdout and "end of input" in p.stdout


# ------------------------------------------------------------------ issue 14: what a card player needs
def test_save_path_is_checked_before_the_first_deal(capsys, tmp_path):
    args = ["play", "siantappo", "--seats", "rules,rules,rules,rules", "-o", "rounds=1"]
    assert main([*args, "--save", "/nonexistent/dir/g.jsonl"]) == 2
    out, err = capsys.readouterr()
    assert err.strip() == (
        "cardzoo play: error: --save /nonexistent/dir/g.jsonl: the folder /nonexistent/dir does not exist"
    )
    assert "player_" not in out  # not one move was played
    assert main([*args, "--save", str(tmp_path)]) == 2
    assert "is a folder; give a file name" in capsys.readouterr().err


def test_model_loads_before_the_first_deal_and_says_so():
    rc, text = run_play(["siantappo", "--seats", "human,model,model,model", "--seed", "1"], [])
    assert rc == 0
    loading = "loading model models/siantappo.safetensors for player_1, player_2, player_3 …"
    assert text.startswith(loading)
    assert text.index(loading) < text.index("Siantappo: player_0 (you), player_1 (model)")


def test_a_missing_sidecar_names_the_file_given(tmp_path, capsys):
    weights = tmp_path / "mine.safetensors"
    weights.write_bytes((ROOT / "models" / "siantappo.safetensors").read_bytes())
    assert main(["play", "siantappo", "--seats", f"human,{weights},rules,rules"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"checkpoint {weights}: its sidecar file {tmp_path / 'mine.json'} is missing" in err


def test_enter_plays_the_only_move():
    forced = {"n": 0}

    def answer(s):
        if len(s.env.full_moves()) == 1:
            forced["n"] += 1
            return ""  # just Enter
        return "#1"

    session, out = session_for(["siantappo", "--seed", "3", *SHORT["siantappo"]])
    session.stdin = ScriptedStdin(session, answer)
    assert session.run() == 0
    text = out.getvalue()
    assert forced["n"] > 3 and text.count("your only move: Enter = pass") >= 3
    assert text.count("player_0 (you): pass") >= forced["n"] - 1  # the last forced move may be a card
    assert "Match result" in text


def test_auto_pass_plays_forced_moves_and_says_so():
    rc, text = run_play(["siantappo", "--seed", "3", "--auto-pass", *SHORT["siantappo"]], ["#1"] * 500)
    assert rc == 0
    assert "player_0 (you): pass  (your only move, played by --auto-pass)" in text
    assert "your only move: Enter" not in text
    assert "Match result" in text


def test_siantappo_announces_trick_winners_and_places():
    rc, text = run_play(["siantappo", "--seed", "3", "-o", "rounds=2"], ["#1"] * 1000)
    assert rc == 0
    assert re.search(r"^player_\d wins the trick and leads\.$", text, re.M)
    assert re.search(r"^(player_\d|you) wins? the trick; (player_\d leads|you lead)\.$", text, re.M)
    assert re.search(r"^player_\d is out: 1st place$", text, re.M)
    assert re.search(r"^(player_\d is|you are) out: 2nd place$", text, re.M)


def test_human_scores_and_rewards_on_request():
    rc, text = run_play(["samsip", "--seed", "2", *SHORT["samsip"]], ["#1"] * 1000)
    assert rc == 0 and "reward" not in text.lower()
    assert re.search(r"^ +1st +player_\d", text, re.M)
    rc, text = run_play(["samsip", "--seed", "2", "--show-rewards", *SHORT["samsip"]], ["#1"] * 1000)
    assert rc == 0 and "Rewards (RL)" in text and re.search(r"change +reward", text)


def test_place_names():
    from cardzoo.scripts.play.common import ordinal, place_names

    assert place_names([5, 4, 4, 1]) == ["1st", "tied 2nd", "tied 2nd", "4th"]
    assert place_names([1.0, 2.5, 2.5, 4.0], higher_is_better=False) == ["1st", "tied 2nd", "tied 2nd", "4th"]
    assert place_names([3, 3]) == ["tied 1st", "tied 1st"]
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101)] == [
        "1st",
        "2nd",
        "3rd",
        "4th",
        "11th",
        "12th",
        "13th",
        "21st",
        "22nd",
        "101st",
    ]


def test_a_long_bad_input_is_quoted_short():
    junk = "7h " + "x" * 300
    rc, text = run_play(["siantappo", "--seed", "3", *SHORT["siantappo"]], [junk] + ["#1"] * 500)
    assert rc == 0
    refusal = next(line for line in text.splitlines() if "try again" in line)
    assert "x" * 61 not in refusal and "xxxx" in refusal


@pytest.mark.parametrize(
    "flags, needle",
    [
        (["--width", "10"], "--width must be 40..1000 columns, got 10"),
        (["--delay", "-1"], "--delay must be 0..60 seconds, got -1"),
        (["--delay", "nan"], "--delay must be 0..60 seconds, got nan"),
        (["--seats", ""], "--seats is empty; use e.g. human,rules,rules,rules"),
        (["--seats", " , "], "--seats ' , ' has an empty entry"),
    ],
)
def test_bad_numbers_and_seats_are_one_line_errors(flags, needle, capsys):
    assert main(["play", "siantappo", *flags]) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1


@pytest.mark.parametrize("command", ["play", "eval"])
def test_help_explains_model_and_checkpoints(command, capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "model" in text and "models/" in text and ".safetensors" in text and ".json" in text


def test_suipi_locked_builds_are_explained():
    from cardzoo.scripts.play.suipi import RULES

    assert "7+3 | 10, worth 10, not 20) is locked" in " ".join(RULES.split()) and "`" not in RULES.split("Input:")[0]
    session, _out = session_for(["suipi", "--seed", "4", *SHORT["suipi"]])
    # the legend names the listed builds' own values, not a generic 10
    assert session.view.legend(["5♣ take [2♥+3♦=5]"]) == "[…=5] is a build of 5: a 5 takes it."
    assert session.view.legend(["8♣ take [7♥+A♠=8]", "A♦ take [5♣+5♦ | 10♠=10, locked]"]) == (
        "[…=8] is a build of 8: an 8 takes it; [… | …=10, locked] is a locked build of 10 (groups worth 10 each, "
        "not their sum): a 10 takes it; its value cannot be raised, but more cards making 10 may join it."
    )
    assert session.view.legend(["5♣ take 2♥+3♦", "J♣ drop"]) is None
    _rc, text = run_play(["suipi", "--seed", "4", *SHORT["suipi"]], ["#1"] * 1000)
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if re.search(r"#\d+ .*=\d+(, locked)?\]", line):  # a listed build: the legend below says its value
            v = re.search(r"=(\d+)(, locked)?\]", line).group(1)  # type: ignore[union-attr]  # the line matched above
            assert f"build of {v}" in "\n".join(lines[i : i + 20]), lines[i : i + 20]
            break
    else:
        raise AssertionError("no build was listed")


def test_line_reader_drops_terminal_escapes():
    from cardzoo.scripts.play.lines import LineReader, enable_line_editing

    console, _out = plain_console()
    reader = LineReader(console, io.StringIO("\x1b[D\x1b[A7h\x1b[C 7s\n"))
    assert reader.read("> ") == "7h 7s"
    if sys.platform != "win32":
        assert enable_line_editing()


# ------------------------------------------------------------------ replay
def _suipi_4p_record(tmp_path) -> Path:
    save = tmp_path / "s4.jsonl"
    rc, _ = run_play(
        ["suipi", "--seats", "rules,random,rules,random", "--seed", "2", "--save", str(save), *SHORT["suipi"]], []
    )
    assert rc == 0
    return save


def test_replay_steps_through_whole_moves(tmp_path):
    from cardzoo.scripts import replay_cmd

    save = _suipi_4p_record(tmp_path)
    rec = json.loads(save.read_text(encoding="utf-8"))
    whole = sum(1 for m in rec["moves"] if m["action"] >= 104)  # a Suipi move ends with take/build/drop
    console, out = plain_console()
    args = build_parser().parse_args(["replay", str(save), "--step"])
    assert replay_cmd.run(args, stdin=io.StringIO("\n" * 1000), console=console) == 0
    text = out.getvalue()
    steps = re.findall(r"^\[(\d+)/(\d+)\] player_\d \((rules|random)\) plays: ", text, re.M)
    assert len(steps) == whole and {int(n) for _, n, _ in steps} == {whole}
    assert [int(k) for k, _, _ in steps] == list(range(1, whole + 1))
    assert "Composing" not in text and "with " not in text.split("plays: ")[1].split("\n")[0]
    assert "the replay matches the recorded rewards" in text and "Match result" in text
    assert len(re.findall(r"^-- \[\d+/\d+\] Enter: next, b: back", text, re.M)) == whole  # one before each move


def test_replay_q_quits(tmp_path):
    from cardzoo.scripts import replay_cmd

    save = _suipi_4p_record(tmp_path)
    console, out = plain_console()
    args = build_parser().parse_args(["replay", str(save), "--step"])
    assert replay_cmd.run(args, stdin=io.StringIO("\nq\n"), console=console) == 0
    text = out.getvalue()
    assert re.search(r"stopped after move 1 of \d+", text) and "[2/" not in text  # Enter showed move 1
