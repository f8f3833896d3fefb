"""Screens of `cardzoo play` at 80 columns, without tmux: the first screen of each game as a
snapshot (stacked decks, so the deal is fixed), and every end-of-round/deal/hand summary fits
an 80x24 terminal together with the lines of its move and the pause prompt."""

from __future__ import annotations

import io
import random
import re

import pytest
from rich.console import Console

from cardzoo.envs.cards import card_str, parse_cards
from cardzoo.scripts import play_cmd
from cardzoo.scripts.cli import build_parser


def transcript(args, lines, deck=None, width=80) -> str:
    out = io.StringIO()
    console = Console(file=out, width=width, no_color=True, highlight=False, emoji=False, soft_wrap=False)
    ns = build_parser().parse_args(["play", *args])
    session = play_cmd.build_session(ns, stdin=io.StringIO("".join(line + "\n" for line in lines)), console=console)
    if deck is not None:
        reset = session.env.reset
        session.env.reset = lambda seed=None, options=None: reset(seed=seed, options={"deck": deck})
    assert session.run() == 0
    return "\n".join(line.rstrip() for line in out.getvalue().splitlines())


def siantappo_deck() -> list[str]:
    deck = [card_str(c) for c in range(52)]
    random.Random(1).shuffle(deck)
    i = deck.index("3♣")
    deck[0], deck[i] = deck[i], deck[0]  # player_0 holds 3♣ and leads
    return deck


def suipi_deck() -> list[str]:
    h0, h1 = parse_cards("10♦ 10♣ Q♠ 2♥ 5♣ 9♥ 7♠ 3♣"), parse_cards("4♥ K♠ 6♥ 6♣ 7♣ 7♦ 8♦ 8♥")
    floor = parse_cards("10♥ Q♥ 3♠ 4♦")
    rest = [c for c in range(52) if c not in set(h0) | set(h1) | set(floor)]
    return [card_str(c) for c in [c for pair in zip(h0, h1) for c in pair] + floor + rest]


def samsip_deck() -> list[str]:
    deck = [card_str(c) for c in range(52)] + ["Jk"] * 3
    random.Random(3).shuffle(deck)
    return deck


SIANTAPPO_SCREEN = """\
Siantappo: player_0 (you), player_1 (rules), player_2 (rules), player_3 (rules)
seed 1 (play the same deals again with --seed 1); type ? for moves, rules for
the rules, quit to leave
╭─ Siantappo ──────────────────────────────────────────────────────────────────╮
│ Siantappo — round 1/5                                                        │
│    player            cards  status  points  pig                              │
│ →  player_0 (you)       13               0    0                              │
│    player_1 (rules)     13               0    0                              │
│    player_2 (rules)     13               0    0                              │
│    player_3 (rules)     13               0    0                              │
│ The table is empty: you lead.                                                │
│ Your hand (13): 3♣  4♠ 4♣  5♣  7♣  8♠  9♣ 9♥  J♦ J♥  Q♥  A♦  2♠              │
╰──────────────────────────────────────────────────────────────────────────────╯
player_0, your move (cards like 7h 7s, or pass; ? for help) > 9 9
player_0 (you): 9♣ 9♥  (pair)
"""


SUIPI_SCREEN = """\
Suipi: player_0 (you), player_1 (rules)
seed 1 (play the same deals again with --seed 1); type ? for moves, rules for
the rules, quit to leave
╭─ Suipi ──────────────────────────────────────────────────────────────────────╮
│ Suipi 11-point, 2 players — deal 1/2, round 1/3, stock 32, dealer player_1   │
│ Floor: 3♠ (3)   4♦ (4)   10♥ (10)   Q♥                                       │
│    player            side  cards in hand                                     │
│ →  player_0 (you)    A                 8                                     │
│    player_1 (rules)  B                 8                                     │
│ side  captured  spades  aces  10♦  2♠  suipis  match score                   │
│ A            0       0     0                0            0                   │
│ B            0       0     0                0            0                   │
│ Your hand (8): 2♥  3♣  5♣  7♠  9♥  10♣  10♦  Q♠                              │
╰──────────────────────────────────────────────────────────────────────────────╯
player_0, your move (card + floor cards like 5c 3d 2s; ? for help) > 10d 10h
player_0 (you): 10♦ take 10♥
"""


SAMSIP_SCREEN = """\
Sam Sip: player_0 (you), player_1 (rules), player_2 (rules), player_3 (rules)
seed 1 (play the same deals again with --seed 1); type ? for moves, rules for
the rules, quit to leave
╭─ Sam Sip ────────────────────────────────────────────────────────────────────╮
│ Sam Sip, 4 players — hand 1, stake 1, stock 34, dealer you                   │
│ Indicator: 5♦   wild: 5♠ 5♣ 5♥ 3×Jk                                          │
│    player            chips  cards  last draw  discards this hand             │
│ →  player_0 (you)      100      5                                            │
│    player_1 (rules)    100      5                                            │
│    player_2 (rules)    100      5                                            │
│    player_3 (rules)    100      5                                            │
│ Your hand (5): 2♦  2♥  8♥  9♣  K♥                                            │
│ Your pairs: 2♥+8♥ — two more needed                                          │
│ Your move: draw from the stock.                                              │
╰──────────────────────────────────────────────────────────────────────────────╯
Legal moves:
#1  draw stock
player_0, your only move: Enter = draw from the stock >
player_0 (you): draws 2♣ from the stock
╭─ Sam Sip ────────────────────────────────────────────────────────────────────╮
│ Sam Sip, 4 players — hand 1, stake 1, stock 33, dealer you                   │
│ Indicator: 5♦   wild: 5♠ 5♣ 5♥ 3×Jk                                          │
│    player            chips  cards  last draw  discards this hand             │
│ →  player_0 (you)      100      6  stock                                     │
│    player_1 (rules)    100      5                                            │
│    player_2 (rules)    100      5                                            │
│    player_3 (rules)    100      5                                            │
│ Your hand (6): 2♣  2♦  2♥  8♥  9♣  K♥                                        │
│ Your pairs: 2♥+8♥ — two more needed                                          │
│ Your move: discard a card.                                                   │
╰──────────────────────────────────────────────────────────────────────────────╯
Legal moves:
#1  discard 2♣   #2  discard 2♦   #3  discard 2♥   #4  discard 8♥
#5  discard 9♣   #6  discard K♥
player_0, your move (the card to discard, like 7h; ? for help) > 2d
player_0 (you): discards 2♦
"""


@pytest.mark.parametrize(
    "game, args, lines, deck, screen",
    [
        ("siantappo", ["--seed", "1"], ["9 9"], siantappo_deck, SIANTAPPO_SCREEN),
        ("suipi", ["--seed", "1"], ["10d 10h"], suipi_deck, SUIPI_SCREEN),
        ("samsip", ["--seed", "1", "-o", "first_dealer=0"], ["", "2d"], samsip_deck, SAMSIP_SCREEN),
    ],
)
def test_first_screen_at_80_columns(game, args, lines, deck, screen):
    text = transcript([game, *args], lines, deck())
    assert text.startswith(screen)
    assert max(len(line) for line in text.splitlines()) <= 80


MOVE_LINE = re.compile(r"^player_\d \([^)]*\): ")


@pytest.mark.parametrize(
    "args",
    [
        ["siantappo", "--players", "6", "-o", "rounds=3"],
        ["siantappo", "--players", "4", "-o", "rounds=2", "--show-rewards"],
        ["suipi", "--players", "4", "-o", "match_deals=2"],
        ["suipi", "--players", "2", "-o", "point_game=23", "--show-rewards"],
        ["samsip", "--players", "6", "-o", "bankroll=2"],
        ["samsip", "--players", "3", "-o", "bankroll=3", "--show-rewards"],
    ],
)
def test_every_summary_fits_80_by_24(args):
    """Everything printed from the move that ended a round/deal/hand to the pause prompt fits one
    80x24 screen, so no summary scrolls away before the person has read it."""
    text = transcript([*args, "--seed", "5"], ["#1"] * 3000)
    lines = text.splitlines()
    pauses = [i for i, line in enumerate(lines) if line.startswith("— press Enter to continue —")]
    assert len(pauses) >= 1
    for p in pauses:
        start = max(i for i in range(p) if MOVE_LINE.match(lines[i]))
        screen = lines[start : p + 1]
        assert len(screen) <= 24, "\n".join(screen)
        assert all(len(line) <= 80 for line in screen)
    # the last summary is followed by the match result, not by a pause
    assert "Match result after" in "\n".join(lines[pauses[-1] :])
