"""Shared by the `cardzoo serve` tests: what a seat may know, and a card-token scanner.

``Knowledge`` replays a live match's recorded actions on its own env (from the record header)
and collects, step by step, every card the seat has legitimately seen: its own hands, what was
played or shown face up, what it swapped. It reads engine state directly and does not use the
view code under test, so a view that leaks (another hand, the stock) fails the check.
"""

from __future__ import annotations

import copy
import json
import re

from cardzoo.envs.cards import NUM_STANDARD, card_str
from cardzoo.training.evaluation.records import env_from_header, reset_to_header

CARD_TOKEN = re.compile(r"(?:10|[2-9AJQK])[♠♣♦♥]")


def seen_now(env, seat: int) -> set[str]:
    """Cards ``seat`` may know in the env's current state (by the rules, not by the views)."""
    game = env.game_name
    out: set[str] = set()
    if game == "siantappo":
        from cardzoo.envs.siantappo.actions import key_str
        from cardzoo.envs.siantappo.engine import hand_keys

        eng = env.engine
        keys = list(hand_keys(eng.hands[seat])) + list(eng.current_keys)
        keys += [k for entry in eng.log for k in entry[3]]  # every play of this round
        keys += list(eng.swap_given[seat]) + list(eng.swap_received[seat])
        out.update(key_str(k) for k in keys)
    elif game == "suipi":
        e = env.engine
        cards = list(e.hands[seat]) + [c for it in e.floor for c in it[2]]
        cards += [c for pile in e.captured for c in pile]
        out.update(card_str(c) for c in cards)
    elif game == "samsip":
        g = getattr(env, "engine", None) or env.game
        cards = list(g.hands[seat]) + [g.indicator] + list(g.wild) + list(g.dead)
        cards += [k for _, k, _ in g.events]
        if g.live >= 0:
            cards.append(g.live)
        for res in g.results:  # a winning hand is shown to everybody
            cards += list(res.winning_hand)
        out.update(card_str(c) for c in cards if c < NUM_STANDARD)
    else:
        raise AssertionError(f"no knowledge rule for {game}")
    return out


def public_action_cards(env, action: int) -> set[str]:
    """Cards an action shows to everybody (a play, a discard, a capture), read before it is
    taken: the move that ends a round or hand is seen although the table is cleared at once.
    A Siantappo swap gift is private (its receiver sees it in its hand afterwards)."""
    if env.game_name == "siantappo":
        from cardzoo.envs.siantappo.engine import SWAP

        if env.engine.phase == SWAP:
            return set()
    return set(CARD_TOKEN.findall(env.action_text(action)))


class Knowledge:
    """Everything one seat has seen so far in a match, advanced along the match's record."""

    def __init__(self, header: dict, seat: int):
        self.env = env_from_header(header)
        reset_to_header(self.env, header)
        self.seat = seat
        self.steps_done = 0
        self.seen = seen_now(self.env, seat)

    def advance(self, steps: list[dict], upto: int) -> None:
        env = self.env
        while self.steps_done < upto:
            while env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
                env.step(None)
            action = steps[self.steps_done]["action"]
            self.seen |= public_action_cards(env, action)
            env.step(action)
            self.steps_done += 1
            self.seen |= seen_now(env, self.seat)

    def unknown_cards_in(self, view: dict) -> set[str]:
        """Card tokens in a view message that the seat has not seen (a leak)."""
        return card_tokens(view) - self.seen


def card_tokens(view: dict) -> set[str]:
    """Every card written anywhere in a view, except in column and row headings (Suipi's score
    table is headed "10♦" and "2♠": names of scoring cards, not cards somebody holds)."""
    v = copy.deepcopy(view)
    for key in ("scores", "summary", "result"):
        part = v.get(key)
        if part:
            part["columns"] = []
            part["rows"] = [row[1:] for row in part["rows"]]
    return set(CARD_TOKEN.findall(json.dumps(v, ensure_ascii=False)))


def steps_upto(match, version: int) -> int:
    """How many recorded actions a view of ``version`` (complete moves) stands after."""
    return match.log[version - 1]["upto"] if version else 0


class LiveServer:
    """`cardzoo serve`'s app under a real uvicorn server in a thread, on a free localhost port."""

    def __init__(self, **app_options):
        import socket
        import threading

        import uvicorn

        from cardzoo.scripts.serve.app import create_app
        from cardzoo.scripts.serve.limits import MAX_FRAME

        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.app = create_app(**app_options)
        self.server = uvicorn.Server(uvicorn.Config(self.app, log_level="warning", ws_max_size=MAX_FRAME))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    def __enter__(self) -> LiveServer:
        import time

        self.thread.start()
        for _ in range(400):  # up to 20 s for the server to come up on a busy machine
            if self.server.started:
                return self
            time.sleep(0.05)
        raise RuntimeError("the test server did not start")

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.sock.close()
