"""One AEC base class for all cardzoo games.

It implements reset / observe / step / last once, over the engine protocol of
``envs/protocol.py``: agent bookkeeping, identical Dict spaces for every seat, reward
accumulation, seeding, stacked decks, illegal-move errors, eliminations, the step cap
(truncation), the move-as-text interface and render dispatch. A game adds only what is its own:
``_new_engine(rng, deck)`` (its engine), ``_encode(seat)`` (its observation), ``_action_text`` and
``_render_text`` (its views), and the class facts ``num_actions``, ``obs_size``, ``max_players``,
``deck_size`` and ``metadata``; with a seat view (``envs/<game>/view.py``) it may list
``rgb_array`` among its ``render_modes`` (the picture is drawn from the public view). The other
hooks default to the engine protocol and may be overridden (a game that keeps extra per-move
state does so in ``_apply``). ``_encode`` defaults to the game's ``encoder_class`` (its
``encoding.Encoder``): one encoder per engine, which keeps each seat's vector up to date as moves
are played, so a new match or an engine set from outside (search) gets a new one.

Two ways to drive an env:

* **checked** — ``reset`` / ``observe`` / ``step`` / ``last`` (PettingZoo AEC): every action is
  checked, an illegal one raises ``IllegalMoveError`` (``raw_env``) and changes nothing;
* **trusted** — ``begin`` / ``legal_now`` / ``encode_seat`` / ``advance`` (batched trainers): no
  PettingZoo dicts, no legality check (the caller picks from ``legal_now()``), no history.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from gymnasium import logger, spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from cardzoo.envs.cards import validate_deck
from cardzoo.envs.config import ConfigError, config_dict, integer
from cardzoo.envs.errors import UserError
from cardzoo.envs.protocol import (  # noqa: F401 - re-exported: callers import these from cardzoo.envs.base
    MAX_LISTED_MOVES,
    MAX_REASON_CHARS,
    GameEngine,
    IllegalMoveError,
    StepOutcome,
    list_moves,
)
from cardzoo.envs.seatview import public_view

DEFAULT_MAX_STEPS = 1_000_000  # step cap of a game that declares no bound of its own


def action_id(action) -> int:
    """``action`` as a Python int if it is an integer (``envs.config.integer``: Python or numpy, a
    0-d integer array included, bool excluded); otherwise an IllegalMoveError naming the value."""
    value = integer(action)
    if value is not None:
        return value
    raise IllegalMoveError(
        f"action must be an integer action id, got {_short(action)} ({type(action).__name__}); "
        "move text goes through env.unwrapped.play(text)"
    )


def move_text(text) -> str:
    """``text`` if it is a move text (a string); otherwise an IllegalMoveError naming the value."""
    if isinstance(text, str):
        return text
    raise IllegalMoveError(
        f"a move must be text such as legal_moves() lists, got {_short(text)} "
        f"({type(text).__name__}); action ids go through step(action)"
    )


def _short(value) -> str:
    """A bad value given to the Python API, as Python writes it, cut to fit one line."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def action_mask(num_actions: int, legal) -> np.ndarray:
    """The int8 action mask (1 = legal) of the legal action ids ``legal``."""
    mask = np.zeros(num_actions, np.int8)
    mask[legal] = 1
    return mask


class CardGameEnv(AECEnv):
    """Shared PettingZoo AEC machinery. Subclasses set ``metadata``, ``num_actions``,
    ``max_players``, ``obs_size`` and implement the hooks below."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
        "render_fps": 1,
    }
    num_actions: int = 0
    max_players: int = 0
    game_name: str = ""
    # Every step's rewards sum to zero (else only the whole match's do, e.g. Sam Sip reward="rank").
    zero_sum_steps: bool = True

    # The match's engine (envs/protocol.py), made by reset(); a game declares its own engine class.
    engine: GameEngine

    def __init__(self, config, render_mode: str | None = None, max_steps: int | None = None):
        super().__init__()
        if render_mode is not None and (
            not isinstance(render_mode, str) or render_mode not in self.metadata["render_modes"]
        ):
            raise ConfigError(
                f"render_mode must be one of {', '.join(map(repr, self.metadata['render_modes']))} "
                f"or None, got {_short(render_mode)}"
            )
        self.config = config
        self.render_mode = render_mode
        bound = self._step_bound() if max_steps is None else integer(max_steps)
        if bound is None or bound < 1:
            raise ConfigError(
                f"max_steps must be a positive integer (or None for the game's bound), got {_short(max_steps)}"
            )
        # The last safety net: an episode that reaches this many steps is truncated. The default
        # is an upper bound the game's rules guarantee, so only a bug (or a smaller max_steps)
        # can reach it.
        self.max_steps = bound
        self.step_count = 0
        self.num_players = config.num_players
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self.agent_seat = {a: i for i, a in enumerate(self.possible_agents)}
        obs_box = spaces.Box(low=-1.0, high=1.0, shape=(self.obs_size,), dtype=np.float32)
        mask_box = spaces.Box(low=0, high=1, shape=(self.num_actions,), dtype=np.int8)
        obs_space = spaces.Dict({"observation": obs_box, "action_mask": mask_box})
        act_space = spaces.Discrete(self.num_actions)
        # One shared object per seat: spaces are identical by construction.
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, act_space)
        self._seed_rng: random.Random | None = None
        self.episode_seed: int | None = None
        self.episode_deck: list[int] | None = None
        self.history: list[int] = []
        self._legal_cache: list[int] | None = None
        self.agents: list[str] = []
        self.engine = None  # type: ignore[assignment]  # none until reset() makes one (render() checks)

    # ------------------------------------------------------------------ hooks
    # What a game must supply:
    def _new_engine(self, rng: random.Random, deck: list[int] | None) -> GameEngine:
        """A fresh engine for one match, dealing ``deck`` (validated card ids) if given."""
        raise NotImplementedError

    def _encode(self, seat: int) -> np.ndarray:
        encoder = self._encoder
        if encoder is None or encoder.engine is not self.engine:
            if self.encoder_class is None:
                raise NotImplementedError(f"{type(self).__name__} sets no encoder_class and has no _encode")
            encoder = self._encoder = self.encoder_class(self.engine)
        return encoder.observe(seat)

    def _action_text(self, action: int) -> str:
        raise NotImplementedError

    def _render_text(self) -> str:
        raise NotImplementedError

    # Defaults over the engine protocol (a game may override them):
    deck_size: int = 52  # cards in a stacked deck
    deck_jokers: bool = False  # a stacked deck may name jokers
    engine_class: type[GameEngine] | None = None  # the engine class (for its ``step_bound``)
    encoder_class: type | None = None  # Encoder(engine).observe(seat) -> the seat's observation vector
    _encoder = None  # the encoder of self.engine (see _encode)

    def _start(self, rng: random.Random, deck: list[int] | None) -> None:
        self.engine = self._new_engine(rng, deck)

    def _validate_deck(self, deck) -> list[int]:
        return validate_deck(deck, self.deck_size, allow_jokers=self.deck_jokers)

    def _acting_seat(self) -> int:
        return self.engine.acting_seat

    def _legal_actions(self) -> list[int]:
        return self.engine.legal_actions()

    def _apply(self, action: int) -> StepOutcome:
        return self.engine.apply_action(action)

    def _step_bound(self) -> int:
        """Steps no match of this configuration can exceed (the default ``max_steps``): the
        engine's ``step_bound``, or a fallback that suits short games."""
        if self.engine_class is not None:
            return self.engine_class.step_bound(self.config)
        return DEFAULT_MAX_STEPS

    def _current_legal(self) -> list[int]:
        """The acting seat's legal actions, computed once per state (observe and step share it)."""
        if self._legal_cache is None:
            self._legal_cache = self._legal_actions()
        return self._legal_cache

    # ------------------------------------------------------------ PettingZoo
    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        checked = self._reset_options(seed, options)
        deck = checked.get("deck")
        deck = self._validate_deck(deck) if deck is not None else None  # a bad deck changes nothing
        if seed is not None:
            self._seed_rng = random.Random(integer(seed))
        elif self._seed_rng is None:
            self._seed_rng = random.Random()
        if "episode_seed" in checked:  # rebuild a recorded episode exactly
            self.episode_seed = integer(checked["episode_seed"])
        else:
            # Every episode gets a concrete seed drawn from the env's stream, so any episode
            # (seeded or not) can be recorded and replayed exactly.
            self.episode_seed = self._seed_rng.getrandbits(63)
        self.episode_deck = deck
        self.history = []
        self.step_count = 0
        self._legal_cache = None
        self._rewards_pending = True  # the first step clears the rewards (see step)
        self._start(random.Random(self.episode_seed), self.episode_deck)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self._acting_seat()]

    def _reset_options(self, seed, options) -> Mapping:
        """``reset``'s arguments checked before anything changes: ConfigError naming the bad one."""
        if seed is not None and integer(seed) is None:
            raise ConfigError(f"seed must be an integer (or None), got {_short(seed)}")
        if options is None:
            return {}
        if not isinstance(options, Mapping):
            raise ConfigError(
                f"reset options must be a dict such as {{'deck': [...], 'episode_seed': 7}}, got {_short(options)}"
            )
        # Other option keys are ignored with a warning: PettingZoo's api_test passes unknown keys.
        unknown = sorted(map(str, (k for k in options if k not in ("deck", "episode_seed"))))
        if unknown:
            logger.warn(
                f"{self.metadata['name']}: ignoring unknown reset option(s) {unknown}; "
                "the options are 'deck' and 'episode_seed'"
            )
        if "episode_seed" in options:
            episode_seed = integer(options["episode_seed"])
            if episode_seed is None or episode_seed < 0:
                raise ConfigError(f"episode_seed must be a non-negative integer, got {_short(options['episode_seed'])}")
        return options

    def observe(self, agent):
        seat = self.agent_seat.get(agent) if isinstance(agent, str) else None
        if seat is None:
            raise UserError(f"observe: unknown agent {_short(agent)}; the agents are {', '.join(self.possible_agents)}")
        # The mask is written into a bytearray, one item per legal id, and viewed as int8: cheaper
        # than numpy's scatter for the few ids of a step (a writable array that owns no data).
        mask = bytearray(self.num_actions)
        # A seat that has left (its dead step taken, gone from ``agents``) still gets its
        # observation, with no legal move, as PettingZoo's classic envs give it.
        if (
            agent == self.agent_selection
            and agent in self.terminations
            and not (self.terminations[agent] or self.truncations[agent])
        ):
            for a in self._legal_cache or self._current_legal():
                mask[a] = 1
        return {"observation": self._encode(seat), "action_mask": np.frombuffer(mask, dtype=np.int8)}

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if type(action) is not int:
            action = action_id(action)
        legal = self._legal_cache or self._current_legal()
        if action not in legal:
            raise self._illegal_action_error(action, legal)
        self._cumulative_rewards[agent] = 0.0
        self.history.append(action)
        self._legal_cache = None
        self.step_count += 1
        outcome = self._apply(action)
        # Rewards are cleared and accumulated only when there is something to clear or add: a
        # step that earns nothing after one that earned nothing leaves both dicts as they are.
        if outcome.rewards or self._rewards_pending:
            self._clear_rewards()
            for seat, r in outcome.rewards.items():
                name = self.possible_agents[seat]
                if name in self.rewards:
                    self.rewards[name] += float(r)
            self._accumulate_rewards()
            self._rewards_pending = bool(outcome.rewards)
        if outcome.done:
            for a in self.agents:
                self.terminations[a] = True
        else:
            for seat in outcome.eliminated:
                self.terminations[self.possible_agents[seat]] = True
            if self.step_count >= self.max_steps:
                for a in self.agents:
                    self.truncations[a] = True
                    self.infos[a]["truncated"] = f"the episode reached max_steps={self.max_steps}"
            self.agent_selection = self.possible_agents[self._acting_seat()]
        if outcome.done or outcome.eliminated or self.step_count >= self.max_steps:
            self._deads_step_first()  # a seat left: its dead step comes first (else nobody is dead)
        if self.render_mode == "human":
            self.render()

    def render(self):
        """``ansi``: the table as text, every hand shown; ``human``: that text printed;
        ``rgb_array``: the table as a spectator sees it, an H x W x 3 uint8 picture."""
        if self.render_mode is None:
            logger.warn("render() called without a render_mode; use render_mode='ansi', 'human' or 'rgb_array'")
            return None
        if self.render_mode == "rgb_array":
            return self._render_image()
        text = self._render_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _render_image(self) -> np.ndarray:
        """The public view (``seatview.public_view``) drawn by ``envs/picture.py``; no hidden card."""
        from cardzoo.envs.picture import blank_picture, picture  # Pillow: loaded only to draw

        if self.engine is None:
            return blank_picture(self.metadata["name"], "not started: call reset()")
        return picture(public_view(self))

    def close(self) -> None:
        pass

    # ------------------------------------------------ fast path (batched self-play)
    # A trusted interface for trainers that drive many matches at once: no PettingZoo dicts, no
    # legality check (the caller picks from ``legal_now()``), no history. ``observe``/``step``
    # remain the checked path. The collectors, the expert and the warm starts rely on these names.
    def begin(self, episode_seed: int) -> None:
        """Start a match from ``episode_seed`` (as ``reset(options={"episode_seed": s})``)."""
        self.reset(options={"episode_seed": int(episode_seed)})

    def legal_now(self) -> list[int]:
        """The acting seat's legal action ids (computed once per state)."""
        return self._current_legal()

    def mask_now(self) -> np.ndarray:
        """``legal_now()`` as an action mask (a new int8 array, 1 = legal)."""
        return action_mask(self.num_actions, self._current_legal())

    def encode_seat(self, seat: int) -> np.ndarray:
        """The observation vector of ``seat``, exactly ``observe(agent)["observation"]``."""
        return self._encode(seat)

    def advance(self, action: int) -> StepOutcome:
        """Apply a legal action (unchecked) and return what it produced for every seat.

        At ``max_steps`` the outcome says ``done`` and ``truncated`` (the step cap, not the rules,
        ended the match).
        """
        self._legal_cache = None
        self.step_count += 1
        outcome = self._apply(action)
        if self.step_count >= self.max_steps and not outcome.done:
            outcome = StepOutcome(outcome.rewards, True, outcome.eliminated, truncated=True)
        return outcome

    # ------------------------------------------------- moves as text (scripts, humans)
    @property
    def acting_seat(self) -> int:
        return self._acting_seat()

    def legal_moves(self) -> list[tuple[int, str]]:
        """The acting seat's legal actions as (action id, text)."""
        return [(a, self._action_text(a)) for a in self._legal_actions()]

    def action_text(self, action: int) -> str:
        """The text of an action id (IllegalMoveError for anything but an id 0..num_actions-1)."""
        action = action_id(action)
        if not 0 <= action < self.num_actions:
            raise IllegalMoveError(f"action {action} is out of range 0..{self.num_actions - 1}")
        return self._action_text(action)

    def move_to_action(self, text: str) -> int:
        """Turn a move text (as listed by ``legal_moves``) into its action id."""
        return self._move_to_action(move_text(text))

    def _move_to_action(self, text: str) -> int:
        """``move_to_action`` of a string (a game with more ways to write a move overrides this)."""
        key = _normalise_move_text(text)
        for a, t in self.legal_moves():
            if _normalise_move_text(t) == key:
                return a
        raise self.not_legal_now(text)

    def not_legal_now(self, text: str, why: str = "is not a legal move now") -> IllegalMoveError:
        """The one error for move text that names no legal move: it lists the legal ones."""
        return IllegalMoveError(f"{text!r} {why}", [t for _, t in self.legal_moves()])

    def full_moves(self) -> list[tuple[tuple[int, ...], str]]:
        """The acting seat's complete legal moves as (action ids, text).

        A complete move is one action in most games; Suipi composes a move in sub-steps and
        overrides this (and ``parse_move``) to list whole moves.
        """
        return [((a,), t) for a, t in self.legal_moves()]

    def parse_move(self, text: str) -> tuple[int, ...]:
        """Turn a complete move text into the action ids that play it."""
        return self._parse_move(move_text(text))

    def _parse_move(self, text: str) -> tuple[int, ...]:
        """``parse_move`` of a string (a game whose move takes several steps overrides this)."""
        return (self._move_to_action(text),)

    def play(self, text: str) -> None:
        """Apply a complete move given as text (through ``step``)."""
        for action in self.parse_move(text):
            self.step(action)

    def rule_class(self, ids) -> tuple:
        """A key shared by the complete moves (``full_moves`` ids) the rules cannot tell apart, so
        a hint ranks them as one: every move is its own class here. A game where different cards
        play alike says so (Suipi: a 4♦ and a 4♣ when neither is a spade nor a point card);
        Siantappo's suits rank and Sam Sip's make a flush, so theirs keep this."""
        return ("move", tuple(ids))

    def play_whole(self, ids, cards: str | None = None) -> str | None:
        """Play one complete move (``ids``, one of ``full_moves``). ``cards`` are the cards the
        player chose for it (text, ``"9♦ 10♥ J♦"``); they go down exactly where the rules leave that
        choice to the player (``chosen_cards``). Returns the cards text a game record keeps (its
        ``"cards"``), None where the ids alone say which cards go. The terminal, the browser and
        a record's replay all play a person's move this one way."""
        chosen = self.chosen_cards(ids, cards) if cards else None
        if chosen is None:
            for action in ids:
                self.step(action)
            return None
        self._play_chosen(chosen)
        return chosen

    def chosen_cards(self, ids, cards: str) -> str | None:
        """The cards text to play exactly for the complete move ``ids`` when the player chose
        ``cards`` for it; None when they are the cards the ids play anyway. IllegalMoveError
        (nothing changes) when they do not make that move. A game whose moves fix their cards
        accepts only those; Siantappo lets the player choose the suits under the top card."""
        own = {tuple(m): t for m, t in self.full_moves()}.get(tuple(ids))
        if own is None or _normalise_move_text(cards) != _normalise_move_text(own):
            raise IllegalMoveError(f"{cards!r} are not the cards of that move" if own else "not a legal move now")
        return None

    def _play_chosen(self, cards: str) -> None:
        """Play a move with exactly ``cards`` (checked by ``chosen_cards``; only a game that lets
        the player choose returns cards there)."""
        raise NotImplementedError

    def _illegal_action_error(self, action: int, legal: list[int]) -> IllegalMoveError:
        if 0 <= action < self.num_actions:
            what = f"action {action} ({self._action_text(action)})"
        else:
            what = f"action {action} (out of range 0..{self.num_actions - 1})"
        return IllegalMoveError(
            f"illegal {what} for {self.agent_selection}", [f"{a}={self._action_text(a)}" for a in legal]
        )

    def record_header(self) -> dict:
        """What a game record needs to replay this episode: game, config, seed, stacked deck."""
        return {
            "game": self.metadata["name"],
            "config": config_dict(self.config),
            "seed": self.episode_seed,
            "deck": self.episode_deck,
        }


def _normalise_move_text(text: str) -> str:
    return " ".join(text.replace(",", " ").split()).lower()


def make_env_fns(raw_cls):
    """Build the PettingZoo-classic ``env()`` / ``raw_env()`` pair for a game class.

    ``env()`` wraps with TerminateIllegal (an illegal action ends the episode, -1 to the
    offender, 0 to everyone else), AssertOutOfBounds and OrderEnforcing.
    """

    def raw_env(**config) -> CardGameEnv:
        return raw_cls(**config)

    def env(**config):
        e = raw_cls(**config)
        e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
        e = wrappers.AssertOutOfBoundsWrapper(e)
        e = wrappers.OrderEnforcingWrapper(e)
        return e

    raw_env.__doc__ = f"The unwrapped {raw_cls.__name__} (illegal actions raise IllegalMoveError)."
    env.__doc__ = f"{raw_cls.__name__} with PettingZoo's standard wrappers."
    return env, raw_env
