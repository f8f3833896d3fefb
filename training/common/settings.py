"""The base of every trainer's settings: the one declaration of its command-line flags, the game
and its player counts, range checks, and what may change when a run resumes.

A trainer's settings are one dataclass (CleanRL's ``Args``) that subclasses ``TrainerSettings``.
A field that is a flag of ``cardzoo train`` is declared with ``setting``: its default and its help,
once; ``cardzoo train --help`` is generated from them (``cardzoo.scripts.train_flags``) and says
the default, so a help text never writes one itself::

    lr: float = setting(3e-4, "learning rate")
    matches_per_worker: int = setting(64, "matches played at once per worker", flag="matches")
    hidden: tuple = setting((256, 256), "hidden layer widths", metavar="W,W")

    flag      the flag's name where it differs from the field's (``--matches``)
    metavar, choices   as argparse's
    parse     text -> value for a flag whose value is not an int, float or str (a tuple field takes
              integers separated by commas without one)
    unset     what an empty default (``()``, ``None``, ``""``) means, said in the help

The flag's type is the field's (int, float or str). A field declared with a plain default (or
``dataclasses.field``) is no flag: it is set in code or by a recipe. Besides its fields a
trainer's class declares:

    RANGES     field -> (low, high, kind): kind "int" (an integer) or "num" (any number);
               ``None`` leaves a side open. Checked on construction, one line per bad value.
    RESUMABLE  fields a resumed run may change (the step budget, workers, evaluation pace…);
               every other field is fixed by the run directory's settings.json.
    UNRECORDED fields of one invocation, not of the run (``device``): never written to
               settings.json or a checkpoint, free to change on a resume.
    RENAMED    a field's earlier name -> (its name now, the earlier value -> today's, a note): a run
               saved under the earlier name resumes, and the earlier flag is a documented alias.
    NAME, TITLE  what the run is called in messages ("PPO"), and its group in ``--help``.

A trainer whose learner runs on a torch device subclasses ``DeviceSettings`` (``--device``) and
calls its ``check_device`` too. Each ``__post_init__`` calls ``check_game``, ``check_ranges`` and
``check_variants``; ``resume_settings`` (the one resume function of every trainer with a run
directory) reads a run's settings.json back.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Mapping
from dataclasses import KW_ONLY, Field, asdict, dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from cardzoo.envs.errors import UserError
from cardzoo.envs.registry import game_spec
from cardzoo.training.agents.device import DEVICES, torch_device

MAX_SETTINGS_JSON = 1 << 20
SEED_RANGE = (0, 2**32 - 1, "int")  # a run's seed: what numpy's and torch's generators take, whole

# help of flags that several trainers declare with the same meaning
STEPS_HELP = "counted in whole iterations of whole matches, so a tiny --steps still trains one iteration"
BATCH_HELP = "samples per iteration, all workers together (whole matches: a bit more)"
PLAYERS_HELP = "player count(s); several are mixed in one run, e.g. 3,4,5,6"
WORKERS_HELP = "processes that play the matches (0: in this process)"
MAX_MINUTES_HELP = "stop after this many minutes of training (saved, final checkpoint written; 0: no limit)"


def setting(
    default,
    help: str,
    *,
    flag: str = "",
    metavar: str | None = None,
    choices: tuple | None = None,
    parse=None,
    unset: str = "",
):
    """A settings field that is a flag of ``cardzoo train`` (see the module's docstring)."""
    meta = {"help": help, "flag": flag, "metavar": metavar, "choices": choices, "parse": parse, "unset": unset}
    if isinstance(default, (dict, list)):
        return field(default_factory=lambda: copy.deepcopy(default), metadata=meta)
    return field(default=default, metadata=meta)


class TrainerSettings:
    if TYPE_CHECKING:  # what every trainer's dataclass declares (and dataclass's own mark), for the checks here
        __dataclass_fields__: ClassVar[dict[str, Field[Any]]]
        game: str
        players: int | tuple[int, ...] | None
        hidden: tuple[int, ...]
        variants: dict

        def __init__(self, **values: Any) -> None: ...  # a dataclass: its fields by keyword

    RANGES: ClassVar[dict] = {}
    RESUMABLE: ClassVar[tuple] = ()
    UNRECORDED: ClassVar[tuple] = ()
    RENAMED: ClassVar[dict] = {}
    NAME: ClassVar[str] = "training"  # what the run is called in messages ("PPO", "DMC", ...)
    TITLE: ClassVar[str] = ""  # its group of flags in `cardzoo train --help`

    # ------------------------------------------------------------------ checks
    def check_game(self) -> tuple:
        """Normalise ``game`` and ``players`` (a count or a tuple of counts); the counts played."""
        spec = game_spec(self.game)
        self.game = spec.name
        counts = self.players if isinstance(self.players, (tuple, list)) else (self.players,)
        counts = tuple(int(p) for p in counts if p is not None) or (spec.default_players,)
        bad = [p for p in counts if p not in spec.player_counts]
        if bad:
            plays = list(spec.player_counts)
            raise UserError(f"{self.game} plays {plays} players, not {bad[0]} (players must be one of {plays})")
        if len(set(counts)) < len(counts):
            raise UserError(f"--players {','.join(map(str, counts))}: each player count once")
        return counts

    def check_ranges(self) -> None:
        for name, (lo, hi, kind) in self.RANGES.items():
            value = getattr(self, name)
            whole = isinstance(value, int) and not isinstance(value, bool)
            number = whole or (isinstance(value, float) and not math.isnan(value))
            if (kind == "int" and not whole) or not number:
                raise UserError(
                    f"{self.flag(name)} {value!r} is out of range: {name} must be "
                    f"{'an integer' if kind == 'int' else 'a number'}"
                )
            if (lo is not None and value < lo) or (hi is not None and value > hi):
                bound = f">= {lo}" if hi is None else f"<= {hi}" if lo is None else f"in [{lo}, {hi}]"
                raise UserError(f"{self.flag(name)} {value!r} is out of range: {name} must be {bound}")

    def player_counts(self) -> tuple:
        """The player counts the run plays (a trainer of one count keeps an int in ``players``)."""
        return tuple(self.players) if isinstance(self.players, (tuple, list)) else (self.players,)

    def check_hidden(self) -> None:
        """``hidden`` as a tuple of layer widths within what a checkpoint may hold (the loader's bounds):
        a network the trainer could build but never save or load is refused before it is built."""
        from cardzoo.training.agents.checkpoint import MAX_LAYERS, MAX_WIDTH

        self.hidden = tuple(int(h) for h in self.hidden)
        if not 1 <= len(self.hidden) <= MAX_LAYERS or not all(1 <= h <= MAX_WIDTH for h in self.hidden):
            raise UserError(
                f"{self.flag('hidden')} {','.join(map(str, self.hidden))[:80]} is out of range: 1 to "
                f"{MAX_LAYERS} layer widths, each in [1, {MAX_WIDTH}]"
            )

    def check_variants(self, counts) -> None:
        """The rule variants, at every player count (ValueError naming the field)."""
        for n in counts:
            game_spec(self.game).module.raw_env(num_players=n, **self.variants)

    @classmethod
    def flag(cls, name: str) -> str:
        """The command-line flag of the field ``name`` (``--lr`` for ``learning_rate``)."""
        meta: Mapping[str, Any] = {f.name: f.metadata for f in fields(cls)}.get(name, {})
        return "--" + (meta.get("flag") or name).replace("_", "-")

    @classmethod
    def from_flags(cls, values: dict) -> dict:
        """The fields that the command line's flags ``values`` (fields, parsed) set; a trainer whose
        flag sets more than its own field says so here."""
        return values

    # ------------------------------------------------------------------ the run's settings.json
    def to_json(self) -> dict:
        out = {k: v for k, v in asdict(self).items() if k not in self.UNRECORDED}
        for name, value in out.items():
            if isinstance(value, tuple):
                out[name] = list(value)
        return out

    @classmethod
    def upgraded(cls, doc: dict, where: str) -> dict:
        """A settings.json's fields under today's names (``RENAMED``); one line naming the file
        ``where`` for an earlier field whose value cannot be converted."""
        out = dict(doc)
        for old, (new, convert, _) in cls.RENAMED.items():
            if old in out and new not in out:
                try:
                    out[new] = convert(out.pop(old))
                except (TypeError, ValueError):
                    raise UserError(f"{where}: {old} must be as the run wrote it") from None
        return out

    @classmethod
    def from_json(cls, doc: dict, where: str):
        """The settings a run directory saved, or one line naming the file: a hand-edited or damaged
        settings.json never reaches the trainer with a value of the wrong type."""
        doc = cls.upgraded(doc, where)
        kinds = {f.name: _JSON_KINDS.get(str(f.type).split("[")[0]) for f in fields(cls)}
        for name, value in doc.items():
            kind = kinds.get(name)
            if kind is not None and not _is_kind(value, kind):
                raise UserError(f"{where}: {name} must be {kind}, not {str(value)[:40]!r}")
        try:
            return cls(**doc)
        except UserError as e:
            raise UserError(f"{where}: {e}") from None
        except (TypeError, ValueError) as e:
            raise UserError(f"{where} does not hold {cls.NAME} settings ({str(e).splitlines()[0][:200]})") from None


@dataclass
class DeviceSettings(TrainerSettings):
    """A trainer whose learner (its network, its minibatches) runs on a torch device: ``--device``.
    Its rollout workers' collectors stay on the CPU (docs/training.md, "Devices"). The device is of
    one invocation (``UNRECORDED``): a run saved on cuda resumes on cpu and the other way round,
    and its checkpoints are the same bytes wherever they were written."""

    _: KW_ONLY  # after the subclass's fields without a default (``game``)
    device: str = setting(
        "auto", "torch device of the learner: auto is cuda where torch sees one, else cpu", choices=DEVICES
    )

    UNRECORDED: ClassVar[tuple] = ("device",)

    def check_device(self) -> None:
        """One line for a device this machine does not have, before anything is written."""
        self.torch_device()

    def torch_device(self):
        """The ``torch.device`` the learner runs on."""
        return torch_device(self.device, self.flag("device"))


# a settings field's declared type -> what its value in settings.json must be
_JSON_KINDS = {
    "int": "an integer",
    "float": "a number",
    "str": "a string",
    "bool": "true or false",
    "tuple": "a list of integers",
    "dict": "an object",
}


def _is_kind(value, kind: str) -> bool:
    whole = isinstance(value, int) and not isinstance(value, bool)
    return {
        "an integer": whole,
        "a number": whole or isinstance(value, float),
        "a string": isinstance(value, str),
        "true or false": isinstance(value, bool),
        "a list of integers": isinstance(value, list)
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value),
        "an object": isinstance(value, dict),
    }[kind]


def read_json(path: Path, limit: int = MAX_SETTINGS_JSON) -> dict:
    """A JSON object from a run directory, or one line saying why it cannot be read."""
    try:
        if path.stat().st_size > limit:
            raise UserError(f"{path} is larger than {limit} bytes")
        doc = json.loads(path.read_text())
    except (OSError, ValueError, RecursionError) as e:  # ValueError: bad JSON, bad UTF-8, a 5,000-digit number
        raise UserError(f"cannot read {path} ({str(e).splitlines()[0][:200]})") from None
    if not isinstance(doc, dict):
        raise UserError(f"{path} must hold a JSON object")
    return doc


def resume_settings(cls: type[TrainerSettings], out, given: dict):
    """The settings of the run in ``out``, with ``given`` flags applied where a resume allows.

    A flag that would change how the run trains (learning rate, seed, network, rules …) is
    refused with one line, rather than silently ignored.
    """
    path = Path(out) / "settings.json"
    if not path.is_file():
        raise UserError(f"nothing to resume: {path} does not exist")
    settings = cls.from_json(read_json(path), str(path))
    settings.out = str(out)  # the run is where --out says: a copied run resumes in the copy, not the original
    for key, value in given.items():
        if key in cls.RESUMABLE + cls.UNRECORDED:
            setattr(settings, key, value)
        else:
            _refuse_change(cls, key, value, getattr(settings, key))
    settings.__post_init__()
    return settings


def refuse_changes(settings: TrainerSettings, out) -> None:
    """One line unless ``settings`` are those of the run in ``out`` but for what a resume may change."""
    path = Path(out) / "settings.json"
    saved = type(settings).upgraded(read_json(path), str(path))
    for f in fields(settings):
        if f.name not in type(settings).RESUMABLE + type(settings).UNRECORDED and f.name != "out":
            _refuse_change(type(settings), f.name, getattr(settings, f.name), saved.get(f.name))


def _refuse_change(cls, key: str, value, current) -> None:
    if _normalised(value) != _normalised(current):
        raise UserError(
            f"{cls.flag(key)} {value} differs from the run's {current}: it cannot "
            f"change on --resume (drop the flag, or start a new run with another --out)"
        )


def _normalised(value):
    if isinstance(value, (list, tuple)):
        return [_normalised(v) for v in value]
    if isinstance(value, dict):
        return {k: _normalised(v) for k, v in sorted(value.items())}
    return value
