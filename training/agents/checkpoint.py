"""Checkpoints that are safe by construction: safetensors weights + a JSON sidecar.

``NAME.safetensors`` holds the actor network; ``NAME.json`` says what it is for: game, env
version, rule config, supported player counts, observation/action sizes, architecture, training
steps, evaluation results, creation date, and the SHA-256 of the weights file it belongs to.

Loading never unpickles and never trusts a number before checking it: the sidecar is size- and
depth-limited before parsing and schema-checked after; the safetensors header is read and matched
against the architecture (names, dtypes, shapes, offsets) before any tensor is decoded; weights
must be finite. Every problem is a one-line ``CheckpointError`` naming the file and the field.
Saving is atomic (temp file, fsync, rename), weights first and sidecar last, so a crash leaves
either the old checkpoint or a pair whose hash check fails, never a half-written file.

Torch-free: ``read_checkpoint`` gives the checked weights as float32 numpy arrays, ``load_agent``
plays them through the architecture's numpy forward pass (``numpy_nets``), and ``save_checkpoint``
takes a torch module or a numpy net alike. ``networks.load_checkpoint`` builds the torch module.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import secrets
from dataclasses import asdict
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
from safetensors.numpy import save as safetensors_bytes

from cardzoo.envs.errors import UserError
from cardzoo.envs.registry import game_module, game_names, game_of_config, game_spec
from cardzoo.training.agents.jsontext import BadJSON as _BadJSON
from cardzoo.training.agents.jsontext import parse_json
from cardzoo.training.agents.numpy_nets import ACTIVATIONS, ARCHITECTURES, architecture_of

FORMAT = "cardzoo-checkpoint/1"
REQUIRED = ("format", "game", "env", "obs_size", "num_actions", "hidden", "activation", "player_counts")

# Bounds on what a checkpoint may ask of us. Generous for any net this project trains;
# tight enough that a hostile file costs nothing.
MAX_SIDECAR_BYTES = 1 << 20
MAX_HEADER_BYTES = 1 << 20
MAX_JSON_DEPTH = 32
MAX_SIZE = 65536  # obs_size, num_actions
MAX_LAYERS, MAX_WIDTH = 8, 4096
MAX_PARAMETERS = 20_000_000  # 80 MB of float32
DTYPE_BYTES = {"F32": 4, "F16": 2, "BF16": 2}  # float32 / float16 / bfloat16
DTYPES = {"F32": "<f4", "F16": "<f2", "BF16": "<u2"}  # as numpy reads them (bfloat16: the high half of a float32)


class CheckpointError(UserError):
    """A checkpoint file is missing, corrupt, or does not fit the game asked for."""


# ---------------------------------------------------------------------------------------------
# Atomic writes (also used by the trainer for its resume state)


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` so that a crash leaves either the old file or the new one.

    The bytes go to a temp file in the same directory, are fsynced, then renamed over ``path``
    (``os.replace`` is atomic within a filesystem); the directory is fsynced so the rename lasts.
    The parent directory must exist.
    """
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    # os.open with 0o666 honours the umask, so the file gets the same mode a plain open() gives.
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_directory(path.parent)
    return path


def atomic_write_text(path: str | os.PathLike, text: str, encoding: str = "utf-8") -> Path:
    """``atomic_write_bytes`` for text."""
    return atomic_write_bytes(path, text.encode(encoding))


def _fsync_directory(directory: Path) -> None:
    if os.name != "posix":
        return
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:  # some filesystems cannot fsync a directory; the rename itself is still atomic
        pass
    finally:
        os.close(fd)


# ---------------------------------------------------------------------------------------------
# Bounded reading and JSON parsing


def _brief(value, limit: int = 60) -> str:
    """A one-line, bounded repr of a value read from a file, for error messages."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def _read_bounded(path: Path, limit: int, why: str) -> bytes:
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as e:
        raise CheckpointError(f"cannot read {path} ({e.strerror or e})") from None
    if len(data) > limit:
        raise CheckpointError(f"{path} is larger than {limit:,} bytes ({why})")
    return data


def _parse_json(text: str):
    """The sidecar's or header's JSON (``BadJSON`` when too deep or not JSON: the shared reader)."""
    return parse_json(text, MAX_JSON_DEPTH)


# ---------------------------------------------------------------------------------------------
# The sidecar schema


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _short_text(limit: int):
    return lambda v: isinstance(v, str) and len(v) <= limit


# Optional fields we know: checked when present. Fields nobody knows yet (a later trainer's
# "settings", "value_hidden", ...) are allowed; the size and depth limits bound them.
OPTIONAL = {
    "config": (lambda v: isinstance(v, dict) and len(v) <= 256, "a JSON object of at most 256 options"),
    "name": (
        lambda v: isinstance(v, str) and 0 < len(v) <= 200 and v.isprintable(),
        "printable text of 1..200 characters",
    ),
    "created": (_short_text(64), "text of at most 64 characters"),
    "training_steps": (lambda v: _is_int(v) and 0 <= v <= 10**15, "an integer in 0..10^15"),
    "seed": (lambda v: v is None or (_is_int(v) and -(2**63) <= v < 2**64), "null or a 64-bit integer"),
    "evaluation": (lambda v: isinstance(v, dict), "a JSON object"),
    "weights_sha256": (
        lambda v: isinstance(v, str) and re.fullmatch(r"[0-9a-f]{64}", v) is not None,
        "64 lowercase hex digits",
    ),
    "algorithm": (_short_text(10_000), "text of at most 10000 characters"),
    "opponent_pool": (_short_text(10_000), "text of at most 10000 characters"),
    "command": (_short_text(10_000), "text of at most 10000 characters"),
    "architecture": (
        lambda v: isinstance(v, str) and v in ARCHITECTURES,
        f"one of {', '.join(map(repr, ARCHITECTURES))}",
    ),
    "move_features": (lambda v: _is_int(v) and 1 <= v <= MAX_SIZE, f"an integer in 1..{MAX_SIZE}"),
    "deck": (lambda v: _is_int(v) and 1 <= v <= 256, "an integer in 1..256"),
    "codes": (lambda v: _is_int(v) and 1 <= v <= 256, "an integer in 1..256"),
    "numbers": (lambda v: _is_int(v) and 0 <= v <= MAX_SIZE, f"an integer in 0..{MAX_SIZE}"),
    "trust": (
        lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 100,
        "a number in 0..100",
    ),
}
# The architectures a sidecar may name: cardzoo.training.agents.numpy_nets.ARCHITECTURES.


def check_meta(meta, source: str) -> None:
    """Raise a one-line CheckpointError unless ``meta`` is a well-formed checkpoint sidecar.

    Every field the loader uses is type- and range-checked, so nothing later can be asked to
    build a huge network or index with a string.
    """

    def bad(field: str, need: str) -> CheckpointError:
        return CheckpointError(f"{source}: field {field!r} must be {need}, got {_brief(meta[field])}")

    if not isinstance(meta, dict):
        raise CheckpointError(f"{source} must hold a JSON object, not {type(meta).__name__}")
    missing = [k for k in REQUIRED if k not in meta]
    if missing:
        raise CheckpointError(f"{source} lacks field(s): {', '.join(missing)}")
    if meta["format"] != FORMAT:
        raise CheckpointError(f"{source}: format {_brief(meta['format'])} is not {FORMAT!r}")
    game = meta["game"]
    if not (isinstance(game, str) and game in game_names()):
        raise bad("game", f"one of {', '.join(game_names())}")
    if not (isinstance(meta["env"], str) and re.fullmatch(rf"{re.escape(game)}_v\d{{1,3}}", meta["env"])):
        raise bad("env", f"a {game} env name like '{game}_v0'")
    for field in ("obs_size", "num_actions"):
        if not (_is_int(meta[field]) and 1 <= meta[field] <= MAX_SIZE):
            raise bad(field, f"an integer in 1..{MAX_SIZE}")
    hidden = meta["hidden"]
    if not (
        isinstance(hidden, list)
        and 1 <= len(hidden) <= MAX_LAYERS
        and all(_is_int(h) and 1 <= h <= MAX_WIDTH for h in hidden)
    ):
        raise bad("hidden", f"a list of 1..{MAX_LAYERS} layer widths, each an integer in 1..{MAX_WIDTH}")
    if not (isinstance(meta["activation"], str) and meta["activation"] in ACTIVATIONS):
        raise bad("activation", f"one of {', '.join(map(repr, ACTIVATIONS))}")
    counts, allowed = meta["player_counts"], game_spec(game).player_counts
    if not (
        isinstance(counts, list)
        and counts
        and all(_is_int(n) and n in allowed for n in counts)
        and len(set(counts)) == len(counts)
    ):
        raise bad("player_counts", f"a non-empty list of distinct {game} player counts {list(allowed)}")
    for field, (ok, need) in OPTIONAL.items():
        if field in meta and not ok(meta[field]):
            raise bad(field, need)
    cls = architecture_of(meta)
    for field in cls.META_FIELDS:
        if field not in meta:
            raise CheckpointError(f"{source}: a {cls.architecture} checkpoint needs the field {field!r}")
    n_params = parameter_count(meta)
    if n_params > MAX_PARAMETERS:
        raise CheckpointError(
            f"{source}: field 'hidden' asks for {n_params:,} parameters "
            f"(with obs_size and num_actions), at most {MAX_PARAMETERS:,} allowed"
        )


def parameter_count(meta: dict) -> int:
    return sum(math.prod(s) for s in _shapes(meta).values())


def _shapes(meta: dict) -> dict[str, tuple[int, ...]]:
    return architecture_of(meta).shapes_of(meta)


def _read_sidecar(sidecar: Path) -> dict:
    data = _read_bounded(sidecar, MAX_SIDECAR_BYTES, "a checkpoint sidecar is a small JSON file")
    try:
        meta = _parse_json(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise CheckpointError(f"{sidecar} is not UTF-8 text") from None
    except _BadJSON as e:
        raise CheckpointError(f"{sidecar} is {e}" if str(e).startswith("not") else f"{sidecar}: JSON {e}") from None
    check_meta(meta, str(sidecar))
    return meta


# ---------------------------------------------------------------------------------------------
# The weights file


def _safetensors_header(data: bytes, weights: Path) -> tuple[dict, int]:
    """The tensor entries of a safetensors file (checked for form) and where its data starts."""

    def unreadable(why: str) -> CheckpointError:
        return CheckpointError(f"{weights} is not a readable safetensors file ({why})")

    if len(data) < 8:
        raise unreadable(f"{len(data)} bytes, shorter than the 8-byte header length")
    n = int.from_bytes(data[:8], "little")
    if n > MAX_HEADER_BYTES:
        raise unreadable(f"header length {n:,} exceeds {MAX_HEADER_BYTES:,} bytes")
    if 8 + n > len(data):
        raise unreadable(f"header length {n:,} runs past the end of the {len(data):,}-byte file")
    try:
        header = _parse_json(data[8 : 8 + n].decode("utf-8"))
    except UnicodeDecodeError:
        raise unreadable("header is not UTF-8") from None
    except _BadJSON as e:
        raise unreadable(f"header is {e}") from None
    if not isinstance(header, dict):
        raise unreadable("header is not a JSON object")
    extra = header.pop("__metadata__", {})
    if not (isinstance(extra, dict) and all(isinstance(v, str) for v in extra.values())):
        raise unreadable("__metadata__ must map names to text")
    for name, entry in header.items():
        if not (isinstance(entry, dict) and set(entry) == {"dtype", "shape", "data_offsets"}):
            raise unreadable(f"tensor {_brief(name)} needs exactly dtype, shape and data_offsets")
        if not (isinstance(entry["dtype"], str) and entry["dtype"] in DTYPE_BYTES):
            raise CheckpointError(
                f"{weights}: tensor {_brief(name)} has dtype {_brief(entry['dtype'])}; "
                f"only F32, F16 and BF16 (float32/float16/bfloat16) are accepted"
            )
        shape, offsets = entry["shape"], entry["data_offsets"]
        if not (isinstance(shape, list) and len(shape) <= 8 and all(_is_int(d) and d >= 0 for d in shape)):
            raise unreadable(f"tensor {_brief(name)} has shape {_brief(shape)}")
        if not (isinstance(offsets, list) and len(offsets) == 2 and all(_is_int(o) for o in offsets)):
            raise unreadable(f"tensor {_brief(name)} has data_offsets {_brief(offsets)}")
    return header, 8 + n


def _check_tensors(header: dict, data_bytes: int, shapes: dict, weights: Path, sidecar: Path) -> None:
    """The file's tensors are exactly the ones the sidecar's architecture needs, laid out
    back to back over the data section (what safetensors itself requires)."""
    mismatch = f"{weights} does not match the architecture in {sidecar.name}"
    missing, unexpected = sorted(set(shapes) - set(header)), sorted(set(header) - set(shapes))
    if missing:
        raise CheckpointError(f"{mismatch}: tensor {missing[0]} is missing")
    if unexpected:
        raise CheckpointError(f"{mismatch}: unexpected tensor {_brief(unexpected[0])}")
    for name, want in shapes.items():
        got = tuple(header[name]["shape"])
        if got != want:
            raise CheckpointError(f"{mismatch}: {name} has shape {_brief(got)}, the sidecar needs {want}")
    position = 0
    for start, end, name in sorted((*header[k]["data_offsets"], k) for k in header):
        size = math.prod(shapes[name]) * DTYPE_BYTES[header[name]["dtype"]]
        if start != position or end - start != size:
            raise CheckpointError(
                f"{weights} is not a readable safetensors file (tensor {name} has "
                f"data_offsets [{start}, {end}]; expected [{position}, {position + size}])"
            )
        position = end
    if position > data_bytes:
        raise CheckpointError(
            f"{weights} is truncated: its tensors need {position:,} bytes of data, the file holds {data_bytes:,}"
        )
    if position != data_bytes:
        raise CheckpointError(
            f"{weights} is not a readable safetensors file ({data_bytes - position:,} bytes after the last tensor)"
        )


def _read_weights(weights: Path, sidecar: Path, meta: dict) -> dict[str, np.ndarray]:
    shapes = _shapes(meta)
    limit = 8 + MAX_HEADER_BYTES + 4 * parameter_count(meta)
    data = _read_bounded(weights, limit, f"more than the architecture in {sidecar.name} needs")
    header, start = _safetensors_header(data, weights)
    _check_tensors(header, len(data) - start, shapes, weights, sidecar)
    if "weights_sha256" in meta and hashlib.sha256(data).hexdigest() != meta["weights_sha256"]:
        raise CheckpointError(
            f"{weights} is not the weights file {sidecar.name} was saved with "
            f"(SHA-256 differs: files mixed up, edited, or a save was interrupted)"
        )
    state = {name: _decode(data, start, header[name], shapes[name]) for name in shapes}
    for name, array in state.items():
        if not np.isfinite(array).all():
            raise CheckpointError(f"{weights}: tensor {name} holds NaN or infinite values")
    return state


def _decode(data: bytes, start: int, entry: dict, shape: tuple[int, ...]) -> np.ndarray:
    """One tensor of a checked header as a float32 array (F16 and BF16 widened exactly)."""
    begin = start + entry["data_offsets"][0]
    raw = np.frombuffer(data, DTYPES[entry["dtype"]], math.prod(shape), begin)
    if entry["dtype"] == "BF16":
        return (raw.astype(np.uint32) << 16).view(np.float32).reshape(shape)
    return raw.astype(np.float32).reshape(shape)  # a copy: the array owns its memory, writable


# ---------------------------------------------------------------------------------------------
# Public API


def checkpoint_paths(path: str | os.PathLike) -> tuple[Path, Path]:
    """(weights, sidecar) for a path given as NAME, NAME.safetensors or NAME.json (a NAME with a
    dot of its own, such as ``trust0.05``, keeps it)."""
    p = Path(path)
    stem = p.with_suffix("") if p.suffix in (".safetensors", ".json") else p
    return stem.with_name(stem.name + ".safetensors"), stem.with_name(stem.name + ".json")


def save_checkpoint(path, net, meta: dict) -> Path:
    """Write NAME.safetensors + NAME.json atomically; returns the weights path.

    ``format``, ``obs_size``, ``num_actions``, ``hidden``, ``activation`` and ``weights_sha256``
    are taken from ``net``, whatever ``meta`` says. The sidecar is checked with the loader's own
    rules first, so a checkpoint that could not be loaded is never written.
    """
    weights, sidecar = checkpoint_paths(path)
    state = {k: _array(v) for k, v in net.state_dict().items()}
    if not all(np.isfinite(v).all() for v in state.values()):
        raise CheckpointError(f"cannot save {weights}: the network has NaN or infinite weights")
    meta = dict(meta)
    blob = safetensors_bytes(state, metadata={"format": FORMAT, "game": str(meta.get("game"))})
    meta.setdefault("created", datetime.now(timezone.utc).isoformat(timespec="seconds"))
    meta.update(
        format=FORMAT,
        obs_size=net.obs_size,
        num_actions=net.num_actions,
        hidden=list(net.hidden),
        activation=net.activation,
        weights_sha256=hashlib.sha256(blob).hexdigest(),
    )
    meta.update(net.sidecar_fields())
    text = json.dumps(meta, indent=2, sort_keys=True) + "\n"
    source = f"cannot save {sidecar}"
    if len(text.encode("utf-8")) > MAX_SIDECAR_BYTES:
        raise CheckpointError(f"{source}: the sidecar would exceed {MAX_SIDECAR_BYTES:,} bytes")
    try:
        check_meta(_parse_json(text), source)  # exactly what read_checkpoint will read back
    except _BadJSON as e:
        raise CheckpointError(f"{source}: sidecar JSON {e}") from None
    weights.parent.mkdir(parents=True, exist_ok=True)
    # Weights first, sidecar last: the sidecar names the weights' hash, so an interrupted save
    # that replaced only the weights is caught on load instead of pairing old meta with new weights.
    atomic_write_bytes(weights, blob)
    atomic_write_text(sidecar, text)
    return weights


def _array(tensor) -> np.ndarray:
    """A weight as a contiguous numpy array: a torch tensor's (on any device) or a numpy net's."""
    if hasattr(tensor, "detach"):
        tensor = tensor.detach().cpu().numpy()
    return np.ascontiguousarray(tensor)


def read_checkpoint(path) -> tuple[dict[str, np.ndarray], dict]:
    """(weights by name as float32 arrays, sidecar) of a checkpoint; a one-line CheckpointError
    for anything wrong with it."""
    weights, sidecar = checkpoint_paths(path)
    for f in (weights, sidecar):
        if not f.is_file():
            raise CheckpointError(f"checkpoint file not found: {f}")
    meta = _read_sidecar(sidecar)
    return _read_weights(weights, sidecar, meta), meta


def check_fits(meta: dict, config, source: str = "checkpoint") -> None:
    """Raise CheckpointError if a checkpoint cannot play the game/config given."""
    if config is None:
        return
    probe = game_module(meta["game"]).raw_env(**asdict(config))
    if meta["env"] != probe.metadata["name"]:
        raise CheckpointError(f"{source} is for {meta['env']}, not {probe.metadata['name']}")
    if config.num_players not in meta["player_counts"]:
        raise CheckpointError(f"{source} plays {meta['player_counts']} players, not {config.num_players}")
    if (probe.obs_size, probe.num_actions) != (meta["obs_size"], meta["num_actions"]):
        raise CheckpointError(
            f"{source} expects observation {meta['obs_size']} / actions {meta['num_actions']}, "
            f"this game config has {probe.obs_size} / {probe.num_actions}"
        )


def load_network(path) -> tuple:
    """(numpy forward pass, sidecar) of a checkpoint (``numpy_nets``: what plays it without torch)."""
    state, meta = read_checkpoint(path)
    return architecture_of(meta).from_state(meta, state), meta


def check_plays(meta: dict, config, path) -> None:
    """Raise CheckpointError unless the checkpoint at ``path`` plays ``config``'s game as configured
    (nothing to check without a config)."""
    if config is not None:
        game = game_of_config(config)
        if meta["game"] != game:
            raise CheckpointError(f"{path} is a {meta['game']} checkpoint, not {game}")
        check_fits(meta, config, str(path))


def load_agent(path, config=None, seed: int | None = None):
    """Load a checkpoint as an agent, checking it fits ``config`` (the game being played); it plays
    through the architecture's numpy forward pass."""
    net, meta = load_network(path)
    check_plays(meta, config, path)
    return net.agent(meta, config, seed)
