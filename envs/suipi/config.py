"""Suipi rule configuration (the variants table of docs/rules/suipi.md, section 1.5)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

from cardzoo.envs.config import (
    ConfigError,
    check_bool,
    check_choice,
    check_choices,
    check_int,
    integer,
    plain_fields,
    shown,
)

FLOOR_DUP_RULES = ("spade", "lower_value", "point_card", "no_point_cards")
SUM_GROUP_SIZES = ("at_least_2", "exactly_2")
POINT_GAME_PLAIN, POINT_GAME_COURTS = 11, 23  # S2: court cards have no value / count 11-13
MAX_DEALS = 100  # hard cap on deals per match for target_score / break_ties (termination)


def _check_sizes(name: str, value, total: int) -> tuple:
    # A list or tuple only: a dict, a set or a string is iterable too, but holds no round order.
    if not isinstance(value, (list, tuple)):
        raise ConfigError(f"{name} must be a list of positive round sizes summing to {total}, got {shown(value)}")
    sizes = tuple(value)
    if not sizes or any(integer(s) is None or s < 1 for s in sizes):
        raise ConfigError(f"{name} must be a list of positive integers summing to {total}, got {shown(value)}")
    if sum(sizes) != total:
        raise ConfigError(
            f"{name} must sum to {total} (4 floor cards + players x cards = 52), got {list(sizes)} = {sum(sizes)}"
        )
    return sizes


@dataclass(frozen=True)
class SuipiConfig:
    """Every rule option of the variants table (docs/rules/suipi.md 1.5), validated on construction."""

    num_players: int = 2
    point_game: int = 11
    deal_sizes_2p: tuple = (8, 8, 8)
    deal_sizes_3p: tuple = (8, 8)
    deal_sizes_4p: tuple = (8, 4)
    floor_dup_rule: str = "spade"
    unique_floor_during_play: bool = True
    forced_capture: bool = False
    maximal_capture: bool = False
    sum_group_size: str = "at_least_2"
    builds_enabled: bool = True
    multi_builds: bool = True
    max_owned_builds: int = 0  # 0 = unlimited
    final_capture_is_suipi: bool = False
    match_deals: int = 0  # 0 = one deal per player
    target_score: int = 0  # 0 = off; else play until a side reaches it (and leads)
    break_ties: bool = False  # keep dealing while the match is tied

    # the options that take one of a few values (the command line reads them against these)
    CHOICES: ClassVar[dict[str, tuple]] = {
        "point_game": (POINT_GAME_PLAIN, POINT_GAME_COURTS),
        "floor_dup_rule": FLOOR_DUP_RULES,
        "sum_group_size": SUM_GROUP_SIZES,
    }

    def __post_init__(self):
        plain_fields(self)  # numpy integers are integers (envs/config.py)
        check_choice("num_players", self.num_players, (2, 3, 4))
        check_choices(self)
        object.__setattr__(self, "deal_sizes_2p", _check_sizes("deal_sizes_2p", self.deal_sizes_2p, 24))
        object.__setattr__(self, "deal_sizes_3p", _check_sizes("deal_sizes_3p", self.deal_sizes_3p, 16))
        object.__setattr__(self, "deal_sizes_4p", _check_sizes("deal_sizes_4p", self.deal_sizes_4p, 12))
        for name in (
            "unique_floor_during_play",
            "forced_capture",
            "maximal_capture",
            "builds_enabled",
            "multi_builds",
            "final_capture_is_suipi",
            "break_ties",
        ):
            check_bool(name, getattr(self, name))
        check_int("max_owned_builds", self.max_owned_builds, 0, 13)
        check_int("match_deals", self.match_deals, 0, MAX_DEALS)
        check_int("target_score", self.target_score, 0, 10_000)

    # derived (computed once: the move generator reads them on every call) ------------------
    @cached_property
    def deal_sizes(self) -> tuple:
        return {2: self.deal_sizes_2p, 3: self.deal_sizes_3p, 4: self.deal_sizes_4p}[self.num_players]

    @cached_property
    def num_sides(self) -> int:
        return 2 if self.num_players in (2, 4) else 3

    @cached_property
    def court_values(self) -> bool:
        """J, Q, K count 11, 12, 13 and J♦ Q♦ K♦ score (the 23-point game, S2/S16)."""
        return self.point_game == POINT_GAME_COURTS

    @cached_property
    def vmax(self) -> int:
        """The highest card, build and capture value."""
        return 13 if self.court_values else 10

    @cached_property
    def max_round_size(self) -> int:
        """The most cards a player holds: the largest round of the deal."""
        return max(self.deal_sizes)

    @cached_property
    def num_deals(self) -> int:
        return self.match_deals or self.num_players


# Sample values of every variant (the variants table of docs/suipi.md), for fuzzing and tools.
VARIANT_CHOICES = {
    "point_game": (POINT_GAME_PLAIN, POINT_GAME_COURTS),
    "deal_sizes_2p": ((8, 8, 8), (24,), (20, 4), (16, 8), (12, 12), (6, 6, 6, 6)),
    "deal_sizes_3p": ((8, 8), (16,), (4, 4, 4, 4)),
    "deal_sizes_4p": ((8, 4), (12,), (6, 6), (4, 4, 4)),
    "floor_dup_rule": FLOOR_DUP_RULES,
    "unique_floor_during_play": (True, False),
    "forced_capture": (False, True),
    "maximal_capture": (False, True),
    "sum_group_size": SUM_GROUP_SIZES,
    "builds_enabled": (True, False),
    "multi_builds": (True, False),
    "max_owned_builds": (0, 1, 2),
    "final_capture_is_suipi": (False, True),
    "match_deals": (0, 1, 3),
    "target_score": (0, 11),
    "break_ties": (False, True),
}
