"""Which terminal view draws which game: the play command's own table (a game's package knows
nothing of the terminal, so the envs layer never names a module above it).

A game added from outside cardzoo registers its view with ``register_view("mygame",
"mypackage.view:MyView")``; the class is built as ``View(env, seats, show_rewards=..., reveal=...)``
(see ``cardzoo.scripts.play.common.GameView``).
"""

from __future__ import annotations

import importlib

TERMINAL_VIEWS: dict[str, str] = {
    "siantappo": "cardzoo.scripts.play.siantappo:SiantappoView",
    "suipi": "cardzoo.scripts.play.suipi:SuipiView",
    "samsip": "cardzoo.scripts.play.samsip:SamSipView",
}


def register_view(game: str, target: str) -> None:
    """Let ``cardzoo play`` draw ``game`` with the view class ``target`` ("module:Class")."""
    TERMINAL_VIEWS[game] = target


def view_class(game: str):
    """The terminal view class of a registered game's name, or None when it has none."""
    target = TERMINAL_VIEWS.get(game)
    if target is None:
        return None
    module_name, _, class_name = target.partition(":")
    return getattr(importlib.import_module(module_name), class_name)
