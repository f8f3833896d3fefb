"""Where `cardzoo serve` keeps its live matches and loaded replays, and when it lets them go.

A key (from ``Match.keys``, ``Match.watch_key`` or a replay) is the only way in: it names one
seat of one match (or a watcher's view of a bots-only match, or one replay). ``sweep`` forgets
finished, abandoned and idle matches so a long-running server does not grow.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from cardzoo.scripts.serve.limits import Limits

if TYPE_CHECKING:
    from cardzoo.scripts.serve.match import Match
    from cardzoo.scripts.serve.replay import Replay

WATCH = -1  # the "seat" of a watch key: may look at any seat of a bots-only match


class Full(RuntimeError):
    """The server holds as many matches (or replays) as it may."""


class Store:
    def __init__(self, limits: Limits | None = None):
        self.limits = limits or Limits()
        self.matches: dict[str, Match] = {}  # match id -> Match
        self.keys: dict[str, tuple[Match, int]] = {}  # key -> (Match, seat or WATCH)
        self.replays: dict[str, Replay] = {}  # key -> Replay

    # ---------------------------------------------------------------- matches
    def add_match(self, match) -> None:
        if len(self.matches) >= self.limits.max_matches:
            raise Full(f"the server already holds {len(self.matches)} matches; try again later")
        self.matches[match.id] = match
        for seat, key in match.keys.items():
            self.keys[key] = (match, seat)
        if match.watch_key:
            self.keys[match.watch_key] = (match, WATCH)

    def lookup(self, key: str):
        """(match, seat) for a key, or None."""
        return self.keys.get(key) if isinstance(key, str) else None

    def remove_match(self, match) -> None:
        self.matches.pop(match.id, None)
        for key in [k for k, (m, _) in self.keys.items() if m is match]:
            del self.keys[key]
        if match.driver is not None and not match.driver.done():
            match.driver.cancel()

    # ---------------------------------------------------------------- replays
    def add_replay(self, key: str, replay) -> None:
        if len(self.replays) >= self.limits.max_replays:
            raise Full(f"the server already holds {len(self.replays)} replays; try again later")
        self.replays[key] = replay

    def replay(self, key: str):
        return self.replays.get(key) if isinstance(key, str) else None

    # ---------------------------------------------------------------- cleanup
    def expired(self, now: float | None = None) -> tuple[list, list]:
        """(matches, replay keys) that ``sweep`` would remove at time ``now`` (monotonic)."""
        now = time.monotonic() if now is None else now
        lim = self.limits
        gone = []
        for m in self.matches.values():
            idle = now - m.last_active
            if (
                (m.finished_at is not None and now - m.finished_at > lim.finished_ttl)
                or (not m.sockets and idle > lim.abandoned_ttl)
                or idle > lim.idle_ttl
            ):
                gone.append(m)
        old = [k for k, r in self.replays.items() if now - r.last_active > lim.replay_ttl]
        return gone, old

    def sweep(self, now: float | None = None) -> list:
        """Forget expired matches and replays; returns the removed matches (their browsers are
        told by the caller)."""
        gone, old = self.expired(now)
        for m in gone:
            self.remove_match(m)
        for k in old:
            del self.replays[k]
        return gone
