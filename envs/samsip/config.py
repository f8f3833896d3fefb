"""Sam Sip rule configuration (the variants table of docs/rules/samsip.md, section 2.5)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from cardzoo.envs.config import ConfigError, check_bool, check_choices, check_int, plain_fields

DECK_SIZE = 55  # 52 standard cards and 3 jokers
HAND_SIZE = 5
NUM_KINDS = 53  # card kinds: 52 standard cards + "a joker" (jokers are interchangeable)
JOKER_KIND = 52


@dataclass(frozen=True)
class SamSipConfig:
    """Every rule option of Sam Sip (the variants table, docs/rules/samsip.md 2.5), validated on
    construction."""

    num_players: int = 4
    bankroll: int = 100  # P3 starting chips B
    base_stake: int = 1  # P3 s0
    stake_progression: str = "double"  # P4: "double" (seed) or "linear" (+s0, pagat/Glimne)
    joker_indicator: str = "two_jokers"  # P7: "two_jokers" wild, or "redraw" (bury it, turn again)
    wild_in_specials: bool = False  # P9: wild cards may substitute in the special hands
    special_multiplier: int = 1  # special hands are paid k x stake
    wild_scheme: str = "indicator"  # P7: "indicator" rank wild, or "khi" (rank dead, 10-x wild)
    on_stock_empty: str = "void"  # P11: "void" hand, or "reshuffle" the dead discards
    auto_declare: bool = True  # P10: winning hands declared automatically, or the agent declares
    max_hands: int = 300  # P13 H_max: cap on hands per match (void hands count)
    elimination_tiebreak: str = "tie"  # P13: same-hand eliminations "tie", or ranked by "balance"
    first_dealer: int = -1  # P5: -1 random, else that seat deals the first hand
    stall_turns: int = 0  # P11a: that many turns in a row without a stock draw void the hand (0: 3 x active)
    max_reshuffles: int = 5  # P11a: with on_stock_empty="reshuffle", an empty stock after this many voids the hand
    reward: str = "stake"  # 2.6: "stake" (dchips/(stake*(n_active-1))), "bankroll" (dchips/B), "rank"

    # the options that take one of a few values (the command line reads them against these)
    CHOICES: ClassVar[dict[str, tuple]] = {
        "stake_progression": ("double", "linear"),
        "joker_indicator": ("two_jokers", "redraw"),
        "wild_scheme": ("indicator", "khi"),
        "on_stock_empty": ("void", "reshuffle"),
        "elimination_tiebreak": ("tie", "balance"),
        "reward": ("stake", "bankroll", "rank"),
    }

    def __post_init__(self):
        plain_fields(self)  # numpy integers are integers (envs/config.py)
        check_int("num_players", self.num_players, 2, 6)
        check_int("bankroll", self.bankroll, 1, 10**9)
        check_int("base_stake", self.base_stake, 1, self.bankroll)
        check_choices(self)
        check_bool("wild_in_specials", self.wild_in_specials)
        check_int("special_multiplier", self.special_multiplier, 1, 100)
        check_bool("auto_declare", self.auto_declare)
        check_int("max_hands", self.max_hands, 1, 10**6)
        check_int("first_dealer", self.first_dealer, -1, self.num_players - 1)
        check_int("stall_turns", self.stall_turns, 0, 10**6)
        if 0 < self.stall_turns < self.num_players:
            raise ConfigError(
                f"stall_turns must be 0 (3 x active players) or >= num_players "
                f"({self.num_players}), got {self.stall_turns}"
            )
        check_int("max_reshuffles", self.max_reshuffles, 0, 1000)


# Sample values of every variant (the variants table of docs/samsip.md), for fuzzing and tools.
VARIANT_CHOICES = {
    "bankroll": (100, 10, 3),
    "base_stake": (1, 2),
    "stake_progression": ("double", "linear"),
    "joker_indicator": ("two_jokers", "redraw"),
    "wild_in_specials": (False, True),
    "special_multiplier": (1, 3),
    "wild_scheme": ("indicator", "khi"),
    "on_stock_empty": ("void", "reshuffle"),
    "auto_declare": (True, False),
    "max_hands": (300, 20, 3),
    "elimination_tiebreak": ("tie", "balance"),
    "first_dealer": (-1, 0),
    "stall_turns": (0, 6, 20),
    "max_reshuffles": (5, 0, 2),
    "reward": ("stake", "bankroll", "rank"),
}
