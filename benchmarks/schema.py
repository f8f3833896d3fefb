"""What a ``cardzoo bench`` run is set up with and what it records: the run ``Settings``, one measured
loop (``Section``), one benchmarked environment (``Entry``), their JSON form (schema
``cardzoo-bench/1``), the speed targets of our games and the ratio table of ours against the
references. Plain data and arithmetic; nothing here measures anything.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from typing import Any

SCHEMA = "cardzoo-bench/1"

# Speed targets from the game issues: (engine moves/s, raw AEC steps/s)
TARGETS = {"siantappo": (50_000, 20_000), "suipi": (30_000, 15_000), "samsip": (50_000, 20_000)}

SECTIONS = ("engine", "raw", "wrapped")


# ---------------------------------------------------------------------------------- settings
@dataclass
class Settings:
    runs: int = 5
    seconds: float = 1.0  # per timed run
    warmup: float = 0.5  # seconds of untimed warm-up per section
    seed: int = 0
    memory: bool = True  # the tracemalloc pass
    memory_seconds: float = 1.0  # cap on the tracemalloc pass (it may stop mid-episode)
    clock: str = "cpu"  # rates per CPU second of the process ("cpu") or per wall second ("wall")

    @classmethod
    def quick(cls) -> Settings:
        return cls(runs=1, seconds=0.05, warmup=0.02, memory=True, memory_seconds=0.05)


# ----------------------------------------------------------------------------------- results
@dataclass
class Section:
    """One measured loop."""

    name: str  # engine / raw / wrapped
    unit: str  # moves or steps
    rates: list[float]  # per run, unit/s
    steps: int  # total counted over the timed runs
    episodes: int  # completed episodes over warm-up and timed runs
    episode_steps: int  # steps in those completed episodes
    seconds: float  # total timed seconds
    py_peak_kib: float | None = None
    maxrss_kib: int | None = None
    cpu_share: float | None = None  # process CPU time / wall time over the timed runs

    @property
    def median(self) -> float:
        return statistics.median(self.rates) if self.rates else 0.0

    @property
    def steps_per_game(self) -> float | None:
        return self.episode_steps / self.episodes if self.episodes else None

    @property
    def games_per_s(self) -> float | None:
        spg = self.steps_per_game
        return self.median / spg if spg else None

    def to_json(self) -> dict:
        return {
            "unit": self.unit,
            "median": round(self.median, 1),
            "min": round(min(self.rates), 1) if self.rates else None,
            "max": round(max(self.rates), 1) if self.rates else None,
            "runs": [round(r, 1) for r in self.rates],
            "steps": self.steps,
            "seconds": round(self.seconds, 4),
            "cpu_share": _r(self.cpu_share, 3),
            "episodes": self.episodes,
            "steps_per_game": _r(self.steps_per_game, 2),
            "games_per_s": _r(self.games_per_s, 2),
            "py_peak_kib": _r(self.py_peak_kib, 1),
            "maxrss_kib": self.maxrss_kib,
        }


@dataclass
class Entry:
    """One benchmarked environment: one of our games at one player count, or a reference."""

    kind: str  # "ours" or "reference"
    name: str  # game name, or e.g. "rlcard/doudizhu"
    players: int
    sections: dict[str, Section] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    primary: str = "raw"  # the section used for ratios
    note: str = ""
    short: str = ""

    @property
    def label(self) -> str:
        return f"{self.name} {self.players}p"

    def rate(self, section: str) -> float | None:
        s = self.sections.get(section)
        return s.median if s and s.rates else None

    def wrapper_share(self) -> float | None:
        """Fraction of env() time spent in PettingZoo's wrappers: (1/wrapped - 1/raw) / (1/wrapped)."""
        raw, wrapped = self.rate("raw"), self.rate("wrapped")
        if not raw or not wrapped:
            return None
        return 1.0 - wrapped / raw

    def wrapper_us_per_step(self) -> float | None:
        """What the wrappers add to one step, in microseconds: 1/wrapped - 1/raw."""
        raw, wrapped = self.rate("raw"), self.rate("wrapped")
        if not raw or not wrapped:
            return None
        return 1e6 * (1.0 / wrapped - 1.0 / raw)

    def to_json(self) -> dict:
        d: dict[str, Any] = {
            "kind": self.kind,
            "name": self.name,
            "players": self.players,
            "primary": self.primary,
            "short": self.short or self.label,
            "sections": {k: s.to_json() for k, s in self.sections.items()},
        }
        share = self.wrapper_share()
        d["wrapper_share"] = _r(share, 4)
        d["wrapper_us_per_step"] = _r(self.wrapper_us_per_step(), 2)
        if self.kind == "ours" and self.name in TARGETS:
            eng_t, raw_t = TARGETS[self.name]
            d["targets"] = {
                "engine": {"target": eng_t, "met": _met(self.rate("engine"), eng_t)},
                "raw": {"target": raw_t, "met": _met(self.rate("raw"), raw_t)},
            }
        if self.errors:
            d["errors"] = dict(self.errors)
        if self.note:
            d["note"] = self.note
        return d


def _r(x, nd):
    return None if x is None else round(x, nd)


def _met(rate, target):
    return None if rate is None else bool(rate >= target)


# ----------------------------------------------------------------------------------- ratios
def ratios(ours: list[Entry], refs: list[Entry]) -> dict:
    """ours raw AEC steps/s / each reference's primary steps/s, plus the geometric mean over refs."""
    out: dict[str, dict[str, float | None]] = {}
    for o in ours:
        mine = o.rate("raw")
        row: dict[str, float | None] = {}
        logs = []
        for r in refs:
            theirs = r.rate(r.primary)
            value = mine / theirs if mine and theirs else None
            row[r.short or r.label] = _r(value, 3)
            if value:
                logs.append(math.log(value))
        row["geomean"] = _r(math.exp(sum(logs) / len(logs)), 3) if logs else None
        out[o.label] = row
    return out
