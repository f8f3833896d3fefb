"""Sam Sip as typed: `draw`, `take`, a card to discard (`7h`, `discard 7`), or a rank alone where
it names one move (the discard in front of you, or your one card of that rank)."""

from __future__ import annotations

from cardzoo.envs.base import IllegalMoveError
from cardzoo.envs.cards import NUM_STANDARD, RANK_NAMES, card_str
from cardzoo.envs.samsip.actions import TAKE_DISCARD
from cardzoo.envs.samsip.engine import PHASE_DRAW
from cardzoo.envs.seatview import article
from cardzoo.scripts.typed_moves import RANK_WORDS, Move


def read(env, text: str, seat: int) -> Move:
    words = text.strip().lower().split()
    discarding = words[:1] in (["discard"], ["throw"], ["drop"])  # the verb says which phase is meant
    if discarding:
        words = words[1:]
        if not words:
            raise IllegalMoveError(
                "discard which card? type it (`discard 7h`), or its rank when you hold one such card (`discard 7`)"
            )
    if len(words) == 1 and words[0] in RANK_WORDS:  # a rank alone (`6`, `q`): a card of yours
        return Move(*_rank_move(env, RANK_WORDS[words[0]], seat, discarding))
    if discarding and env.game.phase == PHASE_DRAW:  # as found: `discard 10h` took the 10♥ in front
        raise IllegalMoveError(_draw_first(env))
    action = env.move_to_action(text.strip())
    return Move((action,), env.action_text(action))


def _draw_first(env, name: str | None = None) -> str:
    legal = {tuple(ids) for ids, _ in env.full_moves()}
    after = "you discard after that" if name is None else f"{article(name)} alone names a card to discard after that"
    return (
        "draw first: `draw` (from the stock)"
        + (" or `take`" if (TAKE_DISCARD,) in legal else "")
        + "; "
        + after
        + " (rules P8: a turn is a draw, then a discard)"
    )


def _rank_move(env, rank: int, seat: int, discarding: bool = False) -> tuple[tuple[int], str]:
    """The move a rank alone means: the discard in front of you to take (drawing), or your one
    card of that rank to discard; a question when two of your cards have it. ``discarding``
    (the rank came after `discard`): never the take."""
    g = env.game
    legal = {tuple(ids): t for ids, t in env.full_moves()}
    name = RANK_NAMES[rank]
    if g.phase == PHASE_DRAW:
        if not discarding and 0 <= g.live < NUM_STANDARD and g.live >> 2 == rank and (TAKE_DISCARD,) in legal:
            return (TAKE_DISCARD,), legal[(TAKE_DISCARD,)]
        raise IllegalMoveError(_draw_first(env, name))
    held = sorted(c for c in g.hands[seat] if c < NUM_STANDARD and c >> 2 == rank)
    if not held:
        raise IllegalMoveError(f"you hold no {name}")
    if len(held) > 1:
        raise IllegalMoveError(f"which {name}: " + " or ".join(f"`{card_str(c)}`" for c in held) + "? type the card")
    if (held[0],) not in legal:
        return (env.move_to_action(card_str(held[0])),), card_str(held[0])
    return (held[0],), legal[(held[0],)]
