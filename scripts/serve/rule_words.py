"""The rule options as the new-game form shows them: a player's name for each, a line of help,
its choices as a menu, and the settings that only matter to training under *advanced*.

Keyed by each game's config field (``envs/<game>/config.py``; the rules' variants tables in
docs/rules). A field without words here is shown by its field name under *advanced*
(``tests/test_serve_api.py`` checks that every field of every game has its words).
"""

from __future__ import annotations

# name: (label, help, choices {value: words} or None, advanced)
WORDS: dict[str, dict[str, tuple[str, str, dict | None, bool]]] = {
    "siantappo": {
        "rounds": ("Rounds", "Rounds in the match (rules T12).", None, False),
        "first_lead_must_include_3c": (
            "First lead includes the starter card",
            "The first lead of the match must contain the 3 that starts it (T6).",
            None,
            False,
        ),
        "starter_card": (
            "Starter card",
            "Its holder leads the first round (T6).",
            {"3♣": "3♣ (Siantappo)", "3♠": "3♠ (Tiến lên)"},
            False,
        ),
        "deal": (
            "Deal",
            "How the cards are dealt (T3).",
            {"all": "all 52 cards", "13each": "13 each, the rest aside (up to 4 players)"},
            False,
        ),
        "quad_beats_single_2": ("Four of a kind beats a single 2", "Another bomb on a single 2 (T8).", None, False),
        "long_pair_runs": (
            "Longer runs of pairs are bombs",
            "Four pairs in a row beat a 2 or a pair of 2s; five beat three 2s (T8).",
            None,
            False,
        ),
        "siantappo_as_lead": (
            "A siantappo may lead",
            "Three pairs in a row are also a normal combination, not only a bomb (T4).",
            None,
            False,
        ),
        "bomb_after_pass": ("Bomb after passing", "A player who passed may still bomb (T8).", None, False),
        "swap_second_with": (
            "Second place swaps with",
            "Who trades one card with the second place (T11).",
            {"n-1": "the second to last", "third": "the third place"},
            False,
        ),
        "swap_choice": (
            "Winners choose the cards they give back",
            "Instead of the lowest cards, the winner and the second choose what to give (T11).",
            None,
            False,
        ),
        "no_finish_on_2": (
            "No going out on a 2",
            "Going out with a play containing a 2 ranks you last (T10).",
            None,
            False,
        ),
        "reward": (
            "Reward (training)",
            "What a round is worth to a learning agent; the table shows places.",
            {"place": "by place", "pig": "only the pig loses"},
            True,
        ),
        "trick_history": ("Trick history (training)", "The agents also observe every trick of the round.", None, True),
    },
    "suipi": {
        "point_game": (
            "Point game",
            "What court cards are worth (S2, S16).",
            {11: "11 points: J, Q, K have no value", 23: "23 points: J, Q, K count 11, 12, 13"},
            False,
        ),
        "deal_sizes_2p": ("Round sizes, 2 players", "Cards dealt to each player per round (S4).", None, True),
        "deal_sizes_3p": ("Round sizes, 3 players", "Cards dealt to each player per round (S4).", None, True),
        "deal_sizes_4p": ("Round sizes, 4 players", "Cards dealt to each player per round (S4).", None, True),
        "floor_dup_rule": (
            "Same rank in the first floor",
            "Which card stays when the first four share a rank (S5).",
            {
                "spade": "the spade stays",
                "lower_value": "the lower value is put back",
                "point_card": "a point card stays",
                "no_point_cards": "no point cards on the floor",
            },
            False,
        ),
        "unique_floor_during_play": (
            "No two floor items of one value",
            "Kept all deal long, not only in the first layout (S12).",
            None,
            False,
        ),
        "forced_capture": ("Capture when you can", "A card that can capture may not be dropped.", None, False),
        "maximal_capture": ("Take everything you can", "A capture takes every group it can (S8).", None, False),
        "sum_group_size": (
            "Cards adding up",
            "How many loose cards may add up to a capture (S8).",
            {"at_least_2": "two or more", "exactly_2": "exactly two"},
            False,
        ),
        "builds_enabled": ("Builds", "Cards may be built up on the floor (S9).", None, False),
        "multi_builds": ("Multiple builds", "Builds of several groups worth the same value (S9).", None, False),
        "max_owned_builds": ("Builds one player may own", "0 means no limit (S11).", None, False),
        "final_capture_is_suipi": (
            "Last card's sweep is a suipi",
            "Clearing the floor with the deal's last card scores a suipi too (S14).",
            None,
            False,
        ),
        "match_deals": ("Deals", "Deals in the match; 0 means one per player (S3).", None, False),
        "target_score": (
            "Play to a score",
            "0: a fixed number of deals; else deal until a side reaches it.",
            None,
            False,
        ),
        "break_ties": ("Break ties", "Keep dealing while the match is tied (S18).", None, False),
    },
    "samsip": {
        "bankroll": ("Chips each", "Chips every player starts with (P3).", None, False),
        "base_stake": ("Base stake", "The stake of the first hand (P3).", None, False),
        "stake_progression": (
            "Stake after a won hand",
            "How the stake grows (P4).",
            {"double": "doubles", "linear": "grows by the base stake"},
            False,
        ),
        "joker_indicator": (
            "A joker turned as indicator",
            "What happens when the indicator is a joker (P7).",
            {"two_jokers": "the other two jokers are wild", "redraw": "bury it, turn another"},
            False,
        ),
        "wild_in_specials": (
            "Wild cards in special hands",
            "Wild cards may stand in the special hands (P9).",
            None,
            False,
        ),
        "special_multiplier": ("Special hands pay", "Times the stake a special hand wins (P12).", None, False),
        "wild_scheme": (
            "Wild cards",
            "Which rank is wild (P7).",
            {"indicator": "the indicator's rank", "khi": "Khi: that rank is dead, 10 − it is wild"},
            False,
        ),
        "on_stock_empty": (
            "When the stock runs out",
            "P11.",
            {"void": "the hand is void", "reshuffle": "the dead discards are reshuffled"},
            False,
        ),
        "auto_declare": ("Wins declared for you", "A winning hand is declared at once (P10).", None, False),
        "max_hands": ("Most hands", "The match stops after this many hands (P13).", None, True),
        "elimination_tiebreak": (
            "Knocked out in the same hand",
            "How they rank (P13).",
            {"tie": "they share the place", "balance": "by chips before the hand"},
            False,
        ),
        "first_dealer": ("First dealer", "-1: drawn at random; else that seat deals first (P5).", None, False),
        "stall_turns": (
            "Turns without a stock draw",
            "That many turns in a row void the hand; 0: three per player (P11a).",
            None,
            True,
        ),
        "max_reshuffles": (
            "Most reshuffles",
            "With reshuffling, an empty stock after this many voids the hand (P11a).",
            None,
            True,
        ),
        "reward": (
            "Reward (training)",
            "What a hand is worth to a learning agent; the table shows chips.",
            {"stake": "chips won per stake", "bankroll": "chips won per bankroll", "rank": "final rank"},
            True,
        ),
    },
}


def option_words(game: str, name: str, default) -> dict:
    """The form's words for one rule option: ``label``, ``help``, ``choices`` ([[value, words]] or
    absent), ``advanced``."""
    label, help_, choices, advanced = WORDS.get(game, {}).get(name, (name, "", None, True))
    out: dict = {"label": label, "help": help_, "advanced": advanced}
    if choices is not None:
        out["choices"] = [[value, words] for value, words in choices.items()]
    return out
