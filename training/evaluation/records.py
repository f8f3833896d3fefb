"""Game records: one JSON object per game, one game per line (JSON lines).

A record is ``env.record_header()`` (``game``, ``config``, ``seed`` = the episode seed, ``deck``)
plus::

    "moves":   [{"seat": 0, "action": 17, "text": "3♣"}, ...]   every env step, in order
               (+ "cards": "9♦ 9♥" where a person chose suits the action id does not fix)
    "rewards": [1.0, -0.33, ...]                                  total reward per seat
    "agents":  ["rules", "random", ...]                           who sat where (optional)

and whatever else the writer adds (``evaluate`` adds ``deal``, ``lineup``, ``winners``). Replaying
the moves through ``raw_env`` from the same header reproduces the rewards exactly.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

from cardzoo.envs.errors import UserError
from cardzoo.envs.registry import game_module
from cardzoo.envs.seatview import match_over, skip_dead_steps
from cardzoo.training.agents.jsontext import BadJSON, parse_json

REQUIRED_KEYS = ("game", "config", "seed", "moves", "rewards")


def reset_to_header(env, header: dict) -> None:
    """Reset ``env`` (a CardGameEnv) to the episode a record header describes (seed and deck)."""
    options: dict[str, Any] = {"episode_seed": int(header["seed"])}
    if header.get("deck") is not None:
        options["deck"] = list(header["deck"])
    env.reset(options=options)


def env_from_header(header: dict, render_mode: str | None = None):
    """A fresh ``raw_env`` for a record header's game and rule config."""
    module = game_module(str(header["game"]))
    config = header["config"]
    if not isinstance(config, dict):
        raise UserError("record 'config' must be an object of rule options")
    options = {k: (tuple(v) if isinstance(v, list) else v) for k, v in config.items()}
    return module.raw_env(render_mode=render_mode, **options)


def read_records(path: str) -> list[dict]:
    """All records of a JSON-lines file (blank lines skipped). One-line errors for bad input."""
    return list(iter_records(path))


def iter_records(path: str) -> Iterator[dict]:
    with open(path, encoding="utf-8", errors="surrogateescape") as f:  # FileNotFoundError is the caller's one line
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            if any("\udc80" <= ch <= "\udcff" for ch in line):
                raise UserError(f"{path} line {lineno}: not UTF-8 text (a game record file is JSON lines)")
            try:
                rec = parse_json(line)
            except BadJSON as e:
                raise UserError(f"{path} line {lineno}: {e}") from None
            check_record(rec, f"{path} line {lineno}")
            yield rec


def check_record(rec, where: str = "record") -> None:
    if not isinstance(rec, dict):
        raise UserError(f"{where}: a game record must be a JSON object")
    missing = [k for k in REQUIRED_KEYS if k not in rec]
    if missing:
        raise UserError(f"{where}: not a game record (missing {', '.join(map(repr, missing))})")
    if not isinstance(rec["moves"], list) or not all(
        isinstance(m, dict) and isinstance(m.get("action"), int) for m in rec["moves"]
    ):
        raise UserError(f'{where}: \'moves\' must be a list of {{"seat", "action", "text"}} objects')
    if not all(isinstance(m.get("seat", 0), int) and isinstance(m.get("cards", ""), str) for m in rec["moves"]):
        raise UserError(f"{where}: a move's 'seat' must be an integer and its 'cards' a text")
    if not isinstance(rec["seed"], int) or isinstance(rec["seed"], bool):
        raise UserError(f"{where}: 'seed' must be an integer episode seed")
    rewards = rec["rewards"]
    values = list(rewards.values()) if isinstance(rewards, dict) else rewards
    if not isinstance(values, list) or not all(_is_number(r) for r in values):
        raise UserError(f"{where}: 'rewards' must be a list of numbers, one per seat")
    deck = rec.get("deck")
    if deck is not None and not (isinstance(deck, list) and all(isinstance(c, (int, str)) for c in deck)):
        raise UserError(f"{where}: 'deck' must be a list of cards, as numbers or names like \"9♦\" (or null)")
    agents = rec.get("agents")
    if agents is not None and not (isinstance(agents, list) and all(a is None or isinstance(a, str) for a in agents)):
        raise UserError(f"{where}: 'agents' must be a list of agent names, one per seat (or null)")


def _is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def play_moves(env, moves, on_move: Callable | None = None, to_the_end: bool = True) -> list[float]:
    """Apply recorded moves to a freshly reset env; return the total reward per seat.

    Dead steps (eliminated seats) are taken as they come. ``on_move(index, seat, action, text)``
    is called after each move. A move by the wrong seat or an illegal action -> UserError; so is a
    record whose game is not over after its last move, unless ``to_the_end`` is False (the first
    moves of a record already checked whole).
    """
    totals = [0.0] * env.num_players
    for i, move in enumerate(moves):
        skip_dead_steps(env)
        if match_over(env):
            raise UserError(f"move {i + 1}: the game is already over, but the record has {len(moves) - i} more move(s)")
        seat = env.agent_seat[env.agent_selection]
        if "seat" in move and int(move["seat"]) != seat:
            raise UserError(
                f"move {i + 1}: the record says player_{move['seat']} moves, but it is player_{seat}'s turn"
            )
        action = int(move["action"])
        cards = move.get("cards")  # the exact cards where the id does not fix them (Siantappo suits)
        text = cards or (env.action_text(action) if 0 <= action < env.num_actions else str(action))
        try:
            if cards:
                env.play(str(cards))
                if env.history[-1] != action:
                    raise UserError(f"the cards {cards} are not action {action}")
            else:
                env.step(action)
        except ValueError as e:  # IllegalMoveError
            raise UserError(f"move {i + 1}: {e}") from None
        for agent, r in env.rewards.items():
            totals[env.agent_seat[agent]] += r
        if on_move is not None:
            on_move(i, seat, action, text)
    skip_dead_steps(env)
    if to_the_end and not match_over(env):
        raise UserError(f"the record ends after {len(moves)} moves, but the game is not over")
    return totals


class WholeMoveWalker:
    """Groups recorded env steps into whole moves while ``play_moves`` replays them (pass it as
    ``on_move``): a move is complete when its action ids form one of the acting seat's
    ``full_moves()`` (Suipi composes a move in sub-steps; the other games move in one step), the
    match ends, or another seat is to move.

    ``on_whole_move(number, seat, ids, text, before)`` is called after each, ``before`` being what
    the ``snapshot`` callable given to ``begin`` returned before the move (None without one);
    ``steps`` is the number of recorded steps played so far."""

    def __init__(self, env, on_whole_move: Callable | None = None):
        self.env = env
        self.on_whole_move = on_whole_move
        self.count = self.steps = 0
        self.snapshot: Callable | None = None
        self._start()

    def _start(self) -> None:
        self.full = {tuple(ids): text for ids, text in self.env.full_moves()} if self.env.agents else {}
        self.ids: list[int] = []
        self.texts: list[str] = []
        self.before = self.snapshot() if self.snapshot is not None else None

    def begin(self, snapshot: Callable) -> None:
        """Take ``snapshot()`` before every whole move from now on (a view's public state)."""
        self.snapshot = snapshot
        self.before = snapshot()

    def __call__(self, index, seat, action, text) -> None:
        self.ids.append(int(action))
        self.texts.append(text)
        self.steps = index + 1
        ids = tuple(self.ids)
        env = self.env
        if not (ids in self.full or match_over(env) or env.agent_seat[env.agent_selection] != seat):
            return  # a sub-step: the move goes on
        whole_text = self.full.get(ids, " ".join(self.texts))
        if len(ids) == 1 and text != whole_text:
            whole_text = text  # the exact cards a person chose (Siantappo suits): the record's "cards"
        self.count += 1
        if self.on_whole_move is not None:
            self.on_whole_move(self.count, seat, ids, whole_text, self.before)
        self._start()


def replay_record(rec: dict, render_mode: str | None = None, on_move: Callable | None = None, env=None) -> list[float]:
    """Replay a record; return the replayed rewards (ValueError if they differ from the record)."""
    check_record(rec)
    env = env if env is not None else env_from_header(rec, render_mode=render_mode)
    reset_to_header(env, rec)
    totals = play_moves(env, rec["moves"], on_move=on_move)
    check_rewards(totals, rec["rewards"])
    return totals


def check_rewards(replayed, recorded, tol: float = 1e-9) -> None:
    recorded = list(recorded.values()) if isinstance(recorded, dict) else list(recorded)
    if len(recorded) != len(replayed) or any(
        not math.isclose(float(a), float(b), rel_tol=tol, abs_tol=tol) for a, b in zip(replayed, recorded)
    ):
        fmt = lambda xs: "[" + ", ".join(f"{float(x):+.4g}" for x in xs) + "]"  # noqa: E731
        raise UserError(f"replayed rewards {fmt(replayed)} differ from the recorded {fmt(recorded)}")
