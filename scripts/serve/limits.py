"""What a web client may ask of `cardzoo serve`: every bound, in one place (docs/serve.md, Limits).

A server that anyone with a link can reach must not be made to play for hours, hold memory without
end or read large input. The command line and the Python API keep the rule options' full ranges
(``envs/<game>/config.py``); only requests from a browser are held to ``WEB_OPTION_RANGES``.
"""

from __future__ import annotations

from dataclasses import dataclass

# ---------------------------------------------------------------- sizes of what a browser sends
MAX_MESSAGE = 4096  # characters in one WebSocket message from a browser
MAX_FRAME = 64 * 1024  # bytes of one WebSocket frame (uvicorn drops larger ones)
MAX_NEW_GAME = 16 * 1024  # bytes of a new-game request
MAX_RECORD_UPLOAD = 8 * 1024 * 1024  # bytes of an uploaded record file
MAX_DEPTH = 32  # nesting of [ ] and { } in any JSON from a browser (a record needs about 5)
MAX_SPEC = 100  # characters of one seat spec (a bot or a model name, maybe @SEED)
MAX_IDS = 64  # action ids in one move
MAX_OPTION_TEXT = 200  # characters of one rule option's value given as text
MAX_PACE = 10.0  # seconds between the moves of a watched bots-only match

# ---------------------------------------------------------------- rule options from a browser
# (lowest, highest) of each number option whose full range would let one match run for hours or
# days. The highest is well above what the rules' own defaults and sources play (docs/rules/...:
# Siantappo 5 rounds, a Suipi match of one deal per player, Sam Sip's bankroll 100 and H_max 300).
# Options not listed are already bounded by their config (``max_owned_builds``, ``first_dealer``,
# ``base_stake`` <= ``bankroll``, the deal sizes, the flags and choices).
WEB_OPTION_RANGES: dict[str, dict[str, tuple[int, int]]] = {
    "siantappo": {"rounds": (1, 20)},
    "suipi": {"match_deals": (0, 20), "target_score": (0, 100)},
    "samsip": {
        "bankroll": (1, 1000),
        "special_multiplier": (1, 10),
        "max_hands": (1, 300),
        "stall_turns": (0, 60),
        "max_reshuffles": (0, 10),
    },
}


# ---------------------------------------------------------------- matches and replays held
@dataclass
class Limits:
    """How much the server holds and for how long (tests pass smaller ones to ``create_app``)."""

    max_matches: int = 100  # live matches at once (a new one beyond is refused)
    max_replays: int = 50
    # complete moves in one match: above the longest match the web ranges allow (Sam Sip, six
    # players, max_hands 300); a match that reaches it stops, so no match grows without end
    max_moves: int = 20_000
    finished_ttl: float = 600.0  # a finished match is kept this long for a last look / its record
    abandoned_ttl: float = 600.0  # no browser connected and no move for this long: abandoned
    idle_ttl: float = 3600.0  # no move for this long, even with a browser open
    replay_ttl: float = 1800.0  # a replay nobody looked at for this long
    sweep_every: float = 30.0  # seconds between sweeps
