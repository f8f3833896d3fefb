"""The one agent protocol used by evaluation, play and training opponents.

An agent is any object with ``act(observation, action_mask) -> int`` (``observation`` is the
env's ``obs["observation"]`` vector, ``action_mask`` its int8 mask) and optionally ``reset()``,
called at the start of every episode.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from cardzoo.envs.errors import UserError


@runtime_checkable
class Agent(Protocol):
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int: ...


class RandomAgent:
    """Uniformly random legal actions, reproducible with a seed."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        pass

    def act(self, observation, action_mask) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise UserError("RandomAgent got an empty action mask: this seat is not acting")
        return int(legal[self.rng.integers(legal.size)])

    def action_probs(self, action_mask) -> np.ndarray:
        """Its policy, known exactly: uniform over the legal actions (luck-adjusted evaluation
        takes the luck of its choices out, as of chance)."""
        legal = np.asarray(action_mask, dtype=float) > 0
        return legal / legal.sum()


# ---------------------------------------------------------------- agent specs
#
# An agent spec is the text that names an agent on the command line:
#
#   random            uniformly random legal moves
#   rules             the game's rule-based bot (``envs.<game>_v0.RuleBot``)
#   model             the trained model shipped in models/ for the game and player count
#   teacher           the game's stronger scripted player, where it declares one (Sam Sip's
#                     lookahead player, ``cardzoo.envs.samsip.lookahead``)
#   PATH              a checkpoint: any spec containing a path separator or ending in
#                     .safetensors / .json (loaded by ``load_checkpoint_agent``)
#   expert[:N]        search over N sampled deals per move (``cardzoo.training.agents.expert``)
#   belief[:N]        the same search, the deals drawn by how likely each makes the moves the
#                     others played (``cardzoo.training.agents.belief``; Siantappo)
#   SPEC@SEED         any of the above with a fixed seed for its own random stream
#
# ``parse_agent_spec`` only reads the text (and checks that a checkpoint file exists);
# ``make_agent`` builds a fresh agent for one game.

AGENT_KINDS = ("random", "rules", "model", "teacher", "expert")
_ALIASES = {
    "model": "model",
    "shipped": "model",
    "random": "random",
    "rand": "random",
    "rules": "rules",
    "rule": "rules",
    "rulebot": "rules",
    "bot": "rules",
    "teacher": "teacher",
    "expert": "expert",
    "search": "expert",
    "belief": "expert",
}
SAMPLER_OF = {"belief": "belief"}  # an alias of the expert that names how it deals its worlds
CHECKPOINT_SUFFIXES = (".safetensors", ".json")
# The games in which the expert has beaten the shipped model head to head (95% interval above zero,
# docs/evaluation.md); in Sam Sip it has not (level at 4 players, a little behind at 2), and the
# browser's seat menu says so beside its "hard" level.
EXPERT_SHOWN_STRONGER = ("siantappo", "suipi")
_SEED_RE = re.compile(r"^(?P<body>.+)@(?P<seed>-?\d+)$")
_BUDGET_RE = re.compile(r"^(?P<body>[a-z]+):(?P<budget>\d+)$", re.IGNORECASE)


@dataclass(frozen=True)
class AgentSpec:
    """A parsed agent spec: ``kind`` is "random", "rules", "teacher", "model", "expert" (with
    ``budget``: its determinizations per decision) or "checkpoint"."""

    kind: str
    path: str | None = None
    seed: int | None = None
    text: str = ""
    budget: int | None = None
    sampler: str = "uniform"  # the expert's determinizations: "uniform" or "belief"

    @property
    def label(self) -> str:
        """Short display name: the spec as written (checkpoints by file name)."""
        if self.kind == "checkpoint":
            base = os.path.basename(self.path or "") or str(self.path)
            return base if self.seed is None else f"{base}@{self.seed}"
        name = "belief" if self.sampler == "belief" else self.kind
        kind = name if self.budget is None else f"{name}:{self.budget}"
        return kind if self.seed is None else f"{kind}@{self.seed}"


def is_checkpoint_spec(text: str) -> bool:
    return (
        "/" in text
        or os.sep in text
        or (os.altsep is not None and os.altsep in text)
        or text.lower().endswith(CHECKPOINT_SUFFIXES)
    )


def parse_agent_spec(text: str) -> AgentSpec:
    """Parse one agent spec; ValueError for an unknown name, FileNotFoundError for a missing
    checkpoint file."""
    raw = str(text).strip()
    if not raw:
        raise UserError("empty agent spec; use random, rules or a checkpoint path")
    seed = None
    m = _SEED_RE.match(raw)
    body = raw
    if m:
        body, seed = m.group("body"), int(m.group("seed"))
    if is_checkpoint_spec(body):
        if not (os.path.isfile(body) or os.path.isfile(body + ".safetensors")):
            raise UserError(f"checkpoint file not found: {body}")
        return AgentSpec("checkpoint", path=body, seed=seed, text=raw)
    budget = None
    b = _BUDGET_RE.match(body)
    if b and _ALIASES.get(b.group("body").lower()) == "expert":
        body, budget = b.group("body"), int(b.group("budget"))
        if budget < 1:
            raise UserError(f"{raw}: the expert's budget (determinizations per decision) must be >= 1")
    kind = _ALIASES.get(body.lower())
    if kind is None:
        raise UserError(
            f"unknown agent {body!r}; agents are: random, rules, model (the shipped one), "
            f"teacher (where the game has one), expert[:N] (search over N sampled deals per "
            f"move, default 8), belief[:N] (the same, deals weighed by the moves seen), "
            f"or a checkpoint path (containing '/' or ending "
            f"in .safetensors/.json), optionally with @SEED"
        )
    return AgentSpec(kind, seed=seed, text=raw, budget=budget, sampler=SAMPLER_OF.get(body.lower(), "uniform"))


def seat_label(text: str) -> str:
    """How a seat reads at a table: a person's seat as "human", an agent spec by its ``label``
    (checkpoints by file name), anything else as written."""
    if text == "human":
        return text
    try:
        return parse_agent_spec(text).label
    except (ValueError, OSError):
        return str(text)


def parse_agent_list(text: str | list[str]) -> list[AgentSpec]:
    """Parse a comma-separated list (or a list of strings, each possibly comma-separated)."""
    items = [text] if isinstance(text, str) else list(text)
    parts = [p.strip() for item in items for p in str(item).split(",")]
    if not any(parts):
        raise UserError("no agents given; use e.g. rules,random")
    if any(not p for p in parts):
        raise UserError(f"empty agent name in {','.join(items)!r}")
    return [parse_agent_spec(p) for p in parts]


def load_checkpoint_agent(path: str, config=None, seed: int | None = None):
    """A checkpoint as an agent for ``config``'s game (``cardzoo.training.agents.checkpoint.load_agent``)."""
    from cardzoo.training.agents.checkpoint import load_agent

    if not (os.path.isfile(path) or os.path.isfile(path + ".safetensors")):
        raise UserError(f"checkpoint file not found: {path}")
    return load_agent(path, config=config, seed=seed)


def make_agent(spec: AgentSpec | str, game_module, config=None, seed: int | None = None):
    """Build a fresh agent for ``spec`` in the game of ``game_module`` (an ``envs.<game>_v0``
    module). ``seed`` seeds its random stream (the spec's own @SEED wins when given)."""
    if isinstance(spec, str):
        spec = parse_agent_spec(spec)
    if spec.seed is not None:
        seed = spec.seed
    if spec.kind == "random":
        return RandomAgent(seed)
    if spec.kind == "model":
        from cardzoo.training.agents.shipped import shipped_model_path

        return load_checkpoint_agent(
            shipped_model_path(game_module.GAME, getattr(config, "num_players", None)), config=config, seed=seed
        )
    if spec.kind == "rules":
        return game_module.RuleBot(config, seed=seed)
    if spec.kind == "teacher":
        from cardzoo.envs.registry import game_spec

        teacher = game_spec(game_module.GAME).teacher
        if teacher is None:
            raise UserError(
                f"{game_module.GAME} has no teacher agent (no scripted player stronger than its "
                f"rule bot); use rules, random, model, expert or a checkpoint"
            )
        return teacher(config, seed=seed)
    if spec.kind == "checkpoint":
        assert spec.path is not None  # parsed with its path
        return load_checkpoint_agent(spec.path, config=config, seed=seed)
    if spec.kind == "expert":
        from cardzoo.training.agents.expert import DEFAULT_SAMPLES, ExpertAgent

        model = make_agent("model", game_module, config, seed=seed)
        samples = spec.budget or DEFAULT_SAMPLES
        return ExpertAgent(game_module, config, model, seed=seed, samples=samples, sampler=spec.sampler)
    raise UserError(f"unknown agent kind {spec.kind!r}")


def agent_move(agent, env, seat: int, observation, action_mask) -> int:
    """``agent``'s move at ``seat`` in ``env``: a searcher (``act_in``) is handed the match, which
    it may only resample from the seat's point of view; any other agent sees the seat's
    observation and action mask."""
    if hasattr(agent, "act_in"):
        return int(agent.act_in(env, seat))
    return int(agent.act(observation, action_mask))


HINTS_SHOWN = 3  # moves a hint lists, best first (the terminal's `hint` and the browser's Hint button)


def load_adviser(game_module, config=None):
    """The model behind a *hint*: the game's shipped ``model`` for ``config``'s player count, which
    ``advise(observation, action_mask)`` lists every complete move with its estimate, best first
    (from the seat's own observation only). A ``UserError`` says why there is none."""
    try:
        agent = make_agent("model", game_module, config=config, seed=0)
    except (ValueError, OSError) as e:
        raise UserError(str(e).splitlines()[0] if str(e) else type(e).__name__) from None
    if not hasattr(agent, "advise"):
        raise UserError("this game's model cannot explain its choices")
    return agent


def advice_text(unit: str, value: float) -> str:
    """An adviser's estimate as a person reads it (``advice_unit`` "Q": reward to the match's end)."""
    return (
        f"estimated reward to the end of the match {value:+.2f}"
        if unit == "Q"
        else f"the model's probability {value:.0%}"
    )
