"""A saved game record (.jsonl, as `cardzoo play --save`, `cardzoo eval --records` and the
browser's own download write it) shown move by move in the browser's table view.

The record is checked on load (it must replay to its recorded rewards); whole moves are found
once (a Suipi move is several recorded action ids), and the table at move k is the env reset to
the record's episode with the first k whole moves applied. A replay may show any seat's hand:
the file holds every deal anyway.
"""

from __future__ import annotations

import json
import re
import threading
import time

from cardzoo.envs.errors import UserError
from cardzoo.envs.seatview import section_label
from cardzoo.scripts.serve.jsoncheck import MAX_DEPTH, json_depth_ok
from cardzoo.scripts.serve.match import log_entry, log_for, view_module
from cardzoo.training.agents.specs import is_checkpoint_spec
from cardzoo.training.evaluation.records import (
    WholeMoveWalker,
    check_record,
    check_rewards,
    env_from_header,
    play_moves,
    reset_to_header,
)

MAX_RECORDS = 10_000  # games read from one uploaded file


def parse_records(text: str) -> list[dict]:
    """The game records of a JSON-lines text; ValueError with a one-line reason."""
    records: list[dict] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if len(records) >= MAX_RECORDS:
            raise UserError(f"more than {MAX_RECORDS} games in one file; split it")
        if not json_depth_ok(line):
            raise UserError(f"line {lineno}: nested too deeply (at most {MAX_DEPTH} levels)")
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            raise UserError(f"line {lineno}: not JSON ({e.msg})") from None
        except RecursionError:
            raise UserError(f"line {lineno}: nested too deeply") from None
        check_record(rec, f"line {lineno}")
        records.append(rec)
    if not records:
        raise UserError("no game records in the file")
    return records


class Replay:
    def __init__(self, record: dict):
        check_record(record)
        try:
            self.env = env_from_header(record)
            reset_to_header(self.env, record)
        except (ValueError, TypeError, KeyError) as e:
            raise UserError(f"cannot rebuild the game ({e})") from None
        self.record = record
        self.game = self.env.game_name
        self.view_mod = view_module(self.game)
        agents = record.get("agents") or []
        self.kinds = [str(agents[s]) if s < len(agents) and agents[s] else "?" for s in range(self.env.num_players)]
        self.moves: list[tuple[int, tuple[int, ...]]] = []  # whole moves: (seat, action ids)
        self.log: list[dict] = []
        self._index()
        self.pos = len(self.moves)  # the env stands after this many whole moves
        self.lock = threading.Lock()
        self.last_active = time.monotonic()

    def _index(self) -> None:
        """Replay the record once (its one-line errors), grouping its steps into whole moves."""
        env, record = self.env, self.record
        self.ends: list[int] = []  # recorded steps played after each whole move

        self.sections: list[list] = [[section_label(env), 0]]  # [label, whole moves before it begins]

        def whole_move(n, seat, ids, text, before):
            facts = self.view_mod.move_facts(env, before, seat, ids, text)
            self.moves.append((seat, ids))
            self.ends.append(walker.steps)
            self.log.append(log_entry(n, seat, facts))
            label = section_label(env)
            if label != self.sections[-1][0]:
                self.sections.append([label, n])

        walker = WholeMoveWalker(env, whole_move)
        walker.begin(lambda: self.view_mod.snapshot(env))
        check_rewards(play_moves(env, record["moves"], on_move=walker), record["rewards"])

    def goto(self, k: int) -> None:
        """Stand the env after ``k`` whole moves (rebuilding from the start to go back); the
        recorded steps are played as recorded (a person's typed cards included)."""
        if k < self.pos:
            reset_to_header(self.env, self.record)
            self.pos = 0
        if k > self.pos:
            start = self.ends[self.pos - 1] if self.pos else 0
            play_moves(self.env, self.record["moves"][start : self.ends[k - 1]], to_the_end=False)
            self.pos = k

    def out_of_range(self, k: int, seat: int) -> str | None:
        """What is wrong with asking for the table after ``k`` whole moves as ``seat`` sees it, or None."""
        moves, players = len(self.moves), self.env.num_players
        if not 0 <= k <= moves:
            return f"move must be 0..{moves} (this game has {moves} whole moves), not {k}"
        if not 0 <= seat < players:
            return f"seat must be 0..{players - 1} (this game has {players} players), not {seat}"
        return None

    def view(self, k: int, seat: int) -> dict:
        """The table after ``k`` whole moves as ``seat`` sees it, with the log so far (``k`` and
        ``seat`` in range: ``out_of_range``)."""
        with self.lock:  # requests run in worker threads; one env per replay
            self.last_active = time.monotonic()
            self.goto(k)
            v = self.view_mod.seat_view(self.env, seat, watcher=True)  # a replay is watched: never "you"
            v["log"] = log_for(self.view_mod, self.log[max(0, k - 40) : k], seat, watcher=True)
            v["version"] = k
            v["seats"] = [{"seat": s, "kind": _label(kind)} for s, kind in enumerate(self.kinds)]
            v["seed"] = str(self.record["seed"])  # the match's one seed (text: a browser's numbers lose digits)
            v["record"] = False
            v["your_turn"] = False
            v["moves"] = []  # nothing to play in a replay
            nxt = self.moves[k] if k < len(self.moves) else None
            v["replay"] = {
                "move": k,
                "moves": len(self.moves),
                "next_seat": nxt[0] if nxt else None,
                "sections": self.sections,
            }
            for p in v["players"]:  # the record holds every deal: a replay shows every hand
                if p["seat"] != seat:
                    p["hand"] = [
                        c["card"] for c in self.view_mod.seat_view(self.env, p["seat"], watcher=True)["hand"]["cards"]
                    ]
            return v


def _label(kind: str) -> str:
    """How a recorded seat kind reads, without touching the disk: an uploaded record must not
    tell whether a path it names exists here (a checkpoint shows by its file name)."""
    kind = str(kind)[:200]
    body, _, seed = kind.rpartition("@") if "@" in kind else (kind, "", "")
    if is_checkpoint_spec(body):
        name = re.split(r"[\\/]", body)[-1] or body
        return f"{name}@{seed}" if seed else name
    return kind
