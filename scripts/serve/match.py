"""One live match of `cardzoo serve`: the env, who sits where, the log, and the moves.

Everything that touches the env happens under ``Match.lock`` (an asyncio lock): a person's move
is checked and applied on the event loop (microseconds), a bot's or a model's move runs in a
worker thread while the lock is held, so other matches keep going and nothing reads the env
while it changes. A person's browser only ever gets ``view(seat)``: the game's seat view (what
that seat may know), the log as that seat may read it, and the match's version number.
"""

from __future__ import annotations

import asyncio
import importlib
import random
import secrets
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from cardzoo.envs.errors import UserError
from cardzoo.envs.registry import game_spec
from cardzoo.envs.seatview import deal_match, log_line, match_over, skip_dead_steps
from cardzoo.scripts import hints, takeback
from cardzoo.scripts.typed_moves import read_move
from cardzoo.training.agents.specs import agent_move, load_adviser, make_agent, seat_label

if TYPE_CHECKING:
    from starlette.websockets import WebSocket

HUMAN = "human"
LOG_SHOWN = 40  # log entries sent with each view (the newest)


class MoveRefused(ValueError):
    """A message that asks for something not allowed now; the match is unchanged."""


def view_module(game: str):
    """The game's seat view module, ``envs.<game>.view``."""
    return importlib.import_module(f"cardzoo.envs.{game}.view")


def new_key() -> str:
    """An unguessable key (192 random bits); whoever holds it may use what it opens."""
    return secrets.token_urlsafe(24)


class Match:
    """A match with its seats. Build it with ``Match.create`` (which loads bots and models)."""

    def __init__(self, game: str, specs: Sequence[str], options: dict, seed: int):
        spec = game_spec(game)
        self.game = spec.name
        self.module = spec.module
        self.view_mod = view_module(self.game)
        self.specs = list(specs)
        self.options = dict(options)
        self.seed = int(seed)
        self.env = self.module.raw_env(num_players=len(self.specs), **self.options)
        self.agents: list = [None] * len(self.specs)
        self.id = new_key()
        # a key per human seat; a watch key only when no person plays (bots' hands are no secret)
        self.keys = {s: new_key() for s, sp in enumerate(self.specs) if sp == HUMAN}
        self.watch_key = new_key() if not self.keys else None
        # the table's version: one more after every move and every undo, never repeated, so a
        # message chosen on an earlier table (a stale or repeated move) is always told apart
        self.version = 0
        self.max_moves: int | None = None  # complete moves after which the match stops (the server's)
        self.steps: list[dict] = []  # the record: one entry per env action id
        self.log: list[dict] = []  # per complete move: seat, public text, private texts
        self.totals = [0.0] * len(self.specs)
        self.lock = asyncio.Lock()
        self.sockets: dict[WebSocket, int] = {}  # websocket -> seat it shows
        self.driver: asyncio.Task | None = None
        self.failed: str | None = None
        self.pace = 0.0  # seconds between bot moves (only bots-only matches are paced)
        self.last_active = time.monotonic()
        self.finished_at: float | None = None
        self.adviser: Any = None  # the model that answers hints (loaded on the first one)

    @classmethod
    def create(cls, game: str, specs: Sequence[str], options: dict, seed: int | None) -> Match:
        """Build the env and every bot (loading models: call it off the event loop).

        ValueError / FileNotFoundError with a one-line reason for a bad game, seat, option."""
        seed = random.SystemRandom().randrange(1_000_000) if seed is None else seed
        m = cls(game, specs, options, seed)
        for s, sp in enumerate(m.specs):
            if sp != HUMAN:
                m.agents[s] = make_agent(sp, m.module, config=m.env.config, seed=seed + 1000 + s)
        deal_match(m.env, seed)
        for a in m.agents:
            if a is not None and hasattr(a, "reset"):
                a.reset()
        m._skip_dead()
        return m

    # ------------------------------------------------------------------ state
    @property
    def over(self) -> bool:
        return match_over(self.env)

    @property
    def humans(self) -> list[int]:
        return sorted(self.keys)

    def acting(self) -> int | None:
        return None if self.over else int(self.env.acting_seat)

    def bot_to_move(self) -> bool:
        seat = self.acting()
        return seat is not None and self.agents[seat] is not None and self.failed is None

    def touch(self) -> None:
        self.last_active = time.monotonic()

    def _skip_dead(self) -> None:
        skip_dead_steps(self.env)

    # ------------------------------------------------------------------ moves
    def check_move(self, seat: int, ids, version, cards: str | None = None) -> tuple[tuple[int, ...], str | None]:
        """The move's ids, and the cards to play exactly where the person chose them (``cards``,
        text; None where they are the move's own), if ``seat`` may play them now; else
        MoveRefused saying why."""
        if self.failed:
            raise MoveRefused(f"the match stopped: {self.failed}")
        if self.over:
            raise MoveRefused("the match is over: no more moves")
        if version != self.version:
            raise MoveRefused(
                f"stale move: it was chosen on table version {version}, the table is now at "
                f"version {self.version}; look at the table again"
            )
        turn = self.acting()
        if turn != seat:
            raise MoveRefused(f"it is player_{turn}'s turn, not yours (you play player_{seat})")
        ids = tuple(ids)
        if ids not in {tuple(i) for i, _ in self.env.full_moves()}:
            raise MoveRefused("that is not a legal move now")
        try:
            return ids, self.env.chosen_cards(ids, cards) if cards else None
        except ValueError as e:  # IllegalMoveError: the cards are not that move
            raise MoveRefused(str(e).splitlines()[0]) from None

    def hint(self, seat: int, version) -> dict:
        """What the game's model would play for ``seat`` now, with its estimates, from that seat's
        own observation only (the terminal's ``hint``). MoveRefused when it is not the seat's turn;
        the adviser is loaded the first time a hint is asked. Runs in a worker thread."""
        if self.over or self.failed:
            raise MoveRefused("the match is over: no hints")
        if version != self.version:
            raise MoveRefused(
                f"stale hint: asked on table version {version}, the table is now at version {self.version}"
            )
        if self.acting() != seat:
            raise MoveRefused("a hint is for your own turn")
        if self.adviser is None:
            try:
                self.adviser = load_adviser(self.module, self.env.config)
            except UserError as e:
                raise MoveRefused(f"no hint: {e}") from None
        obs = self.env.observe(self.env.agent_selection)
        advice = self.adviser.advise(obs["observation"], obs["action_mask"])
        texts = {tuple(i): t for i, t in self.env.full_moves()}
        moves = hints.ranked(advice, getattr(self.adviser, "advice_unit", "p"), texts, alike=self.env.rule_class)
        if not moves:
            raise MoveRefused("no hint: the model has no move to suggest here")
        return {"type": "hint", "version": self.version, "moves": moves, "note": hints.NOTE}

    def why(self, seat: int, version, things: Sequence[str]) -> str:
        """Why no legal move uses the selected ``things`` (hand cards, Suipi floor items), naming
        the rule (docs/rules): they are read as typed (``cardzoo.scripts.typed_moves``: the same
        refusals as `cardzoo play`). MoveRefused when it is not the seat's turn or the table has
        changed."""
        if self.over or self.failed or self.acting() != seat:
            raise MoveRefused("a reason is for a selection on your own turn")
        if version != self.version:
            raise MoveRefused(
                f"stale question: asked on table version {version}, the table is now at version {self.version}"
            )
        hand = [t for t in things if not t.startswith("build:")]
        mine = {c["id"] for c in self.view_mod.seat_view(self.env, seat)["hand"]["cards"]}
        words = (
            [t for t in hand if t in mine]
            + [t for t in hand if t not in mine]
            + [t.removeprefix("build:") for t in things if t.startswith("build:")]
        )
        text = " ".join(w.split("#")[0] for w in words)  # Sam Sip's second joker "Jk#2" is a joker
        try:
            move = read_move(self.env, text, seat)
        except ValueError as e:  # IllegalMoveError: the reason, with its rule
            return str(getattr(e, "reason", e)).splitlines()[0]
        return f"that is `{move.text}`: select its cards as the move lists them"

    def undo(self, seat: int) -> None:
        """Take back ``seat``'s last move and every bot move after it: the match is played again
        from its seed along the recorded actions before that move (a match is a function of its
        seed and its actions). Only where every other seat is a bot; MoveRefused (one line) else."""
        if self.humans != [seat] or self.watch_key:
            raise MoveRefused("undo is for a match where every other seat is a bot")
        if self.failed or self.over:
            raise MoveRefused("the match is over: no undo")
        keep = self._undo_point(seat)
        if isinstance(keep, str):
            raise MoveRefused(keep)
        self._replay(self.steps[: takeback.upto(self.log, keep)])
        self.log = self.log[:keep]
        self.version += 1  # a new table: never a version an earlier one had
        self.touch()

    def _replay(self, steps: list[dict]) -> None:
        """A fresh env at the seed, the recorded ``steps`` applied again (totals recounted)."""
        self.env = self.module.raw_env(num_players=len(self.specs), **self.options)
        deal_match(self.env, self.seed)
        self.steps, self.totals = [], [0.0] * len(self.specs)
        self._skip_dead()
        for entry in steps:
            self._step(entry["seat"], entry["action"], entry.get("cards"))
            self._skip_dead()

    def apply(self, seat: int, ids: Sequence[int], cards: str | None = None) -> None:
        """Apply a person's complete move (checked by ``check_move``): ``cards``, where given,
        are the cards the person chose for it, played exactly."""
        full = {tuple(i): t for i, t in self.env.full_moves()}
        before, seen = self.view_mod.snapshot(self.env), self._seen()
        if cards:
            self._step(seat, int(ids[0]), cards)
        else:
            for a in ids:
                self._step(seat, int(a))
        self._moved(seat, tuple(ids), cards or full[tuple(ids)], before, seen)

    def play_bot_move(self) -> None:
        """The acting bot chooses and plays one complete move. Runs in a worker thread (a model
        may take a while) while the coroutine that started it holds ``lock``.

        A bot answers one action id at a time; a Suipi move takes several sub-steps."""
        env = self.env
        seat = self.acting()
        assert seat is not None, "a bot moves only while the match goes on (bot_to_move)"
        agent = self.agents[seat]
        name = env.agent_selection
        full = {tuple(i): t for i, t in env.full_moves()}
        before, seen = self.view_mod.snapshot(env), self._seen()
        ids: list[int] = []
        while True:
            obs = env.observe(name)
            ids.append(agent_move(agent, env, seat, obs["observation"], obs["action_mask"]))
            self._step(seat, ids[-1])
            if tuple(ids) in full or self.over or env.agent_selection != name:
                break
        self._moved(
            seat, tuple(ids), full.get(tuple(ids), " ".join(e["text"] for e in self.steps[-len(ids) :])), before, seen
        )

    def _seen(self) -> dict:
        """What the person who may undo sees before a move (``takeback.cards_seen``): the undo
        never takes back a move that showed them hidden cards."""
        if self.watch_key or len(self.humans) != 1:
            return {}
        return {s: takeback.cards_seen(self.env, s) for s in self.humans}

    def _undo_point(self, seat: int) -> int | str:
        return takeback.undo_point(self.log, seat, lambda i: log_for(self.view_mod, [self.log[i]], seat)[0]["text"])

    def _moved(self, seat: int, ids: tuple[int, ...], text: str, before, seen: dict) -> None:
        facts = self.view_mod.move_facts(self.env, before, seat, ids, text)
        reveals = [s for s, cards in seen.items() if takeback.shown_hidden(self.env, s, cards)]
        self.log.append({**log_entry(len(self.log) + 1, seat, facts), "upto": len(self.steps), "reveals": reveals})
        self.version += 1
        self._skip_dead()
        self.touch()
        if not self.over and self.max_moves is not None and len(self.log) >= self.max_moves:
            self.failed = f"it reached this server's limit of {self.max_moves:,} moves a match"
        if (self.over or self.failed) and self.finished_at is None:
            self.finished_at = time.monotonic()

    def _step(self, seat: int, action: int, cards: str | None = None) -> None:
        """One env step, recorded (``cards``: the person's chosen cards, ``env.play_whole``)."""
        env = self.env
        text = env.action_text(action)
        cards = env.play_whole((action,), cards)
        rewards = {env.agent_seat[a]: float(r) for a, r in env.rewards.items() if r}
        entry = {"seat": seat, "action": action, "text": text, **({"cards": cards} if cards else {})}
        if rewards:
            entry["rewards"] = {str(s): r for s, r in sorted(rewards.items())}
            for s, r in rewards.items():
                self.totals[s] += r
        self.steps.append(entry)

    # ------------------------------------------------------------------ views
    def seat_kinds(self) -> list[dict]:
        return [{"seat": s, "kind": seat_label(sp)} for s, sp in enumerate(self.specs)]

    def view(self, seat: int) -> dict:
        """Everything a browser showing ``seat`` gets: no card that seat may not know."""
        watcher = self.watch_key is not None  # a bots-only match is watched: the seat shown is not "you"
        v = self.view_mod.seat_view(self.env, seat, watcher=watcher)
        v["log"] = log_for(self.view_mod, self.log[-LOG_SHOWN:], seat, watcher)
        v["version"] = self.version
        v["seats"] = self.seat_kinds()
        v["seed"] = str(self.seed)  # text: a browser's numbers lose digits past 2**53
        v["record"] = self.over  # the record (every deal) may be downloaded once the match is over
        # knocked out (Sam Sip): the seat takes no more part while the others play on
        v["knocked_out"] = not self.over and seat not in {self.env.agent_seat[a] for a in self.env.agents}
        if v["knocked_out"]:
            v["sitting_out"] = "match"
        # undo (see ``undo``): a seat that has moved, in a match where every other seat is a bot
        point = self._undo_point(seat) if self.humans == [seat] and not self.over and not self.failed else None
        v["can_undo"] = isinstance(point, int)
        v["undo_stop"] = point if isinstance(point, str) and point != takeback.NOTHING_YET else None
        if self.failed:
            v["prompt"] = f"The match stopped: {self.failed}"
        return v

    def record(self) -> dict:
        """The finished match as a game record (training/evaluation/records.py format)."""
        return {
            **self.env.record_header(),
            "moves": list(self.steps),
            "rewards": list(self.totals),
            "agents": [seat_label(sp) for sp in self.specs],  # a model by its file name, never a path
            "source": "cardzoo serve",
        }


def log_entry(n: int, seat: int, facts: list[dict]) -> dict:
    """Log entry ``n``: a complete move by ``seat``, as the facts of its game view's ``move_facts``
    (worded for each reader by ``log_for``)."""
    return {"n": n, "seat": seat, "facts": facts}


def log_for(view_mod, entries, seat: int | None, watcher: bool = False) -> list[dict]:
    """Log entries as ``seat`` may know them (its own secrets, everyone's public facts), worded
    for that seat ("you") or for a ``watcher`` shown it (every seat player_N)."""
    out = []
    for e in entries:
        line = log_line(view_mod, e["facts"], seat, watcher)
        out.append(
            {
                "n": e["n"],
                "seat": e["seat"],
                "text": line["text"],
                **({"banner": line["banner"]} if line.get("banner") else {}),
            }
        )
    return out
