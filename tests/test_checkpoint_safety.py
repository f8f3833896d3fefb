"""Hostile and broken checkpoint files: every one is a one-line CheckpointError naming the file,
never a traceback, never a large allocation, never an unpickle; saving is atomic."""

import hashlib
import json
import os
import pickle
import random
import struct

import numpy as np
import pytest
import torch

import cardzoo.training.agents.checkpoint as ckpt
from cardzoo.envs import siantappo_v0
from cardzoo.scripts.cli import main
from cardzoo.training.agents.checkpoint import (
    CheckpointError,
    atomic_write_bytes,
    atomic_write_text,
    load_agent,
    load_network,
    save_checkpoint,
)
from cardzoo.training.agents.networks import load_checkpoint
from cardzoo.training.agents.numpy_nets import PolicyMLP
from cardzoo.training.agents.policy import MaskedPolicyNet

OBS, ACTIONS = siantappo_v0.raw_env().obs_size, 368
BASE_META = {
    "game": "siantappo",
    "env": "siantappo_v0",
    "player_counts": [4],
    "config": {"num_players": 4},
    "name": "ck",
    "training_steps": 1000,
    "seed": 3,
    "evaluation": {},
}


def _net(hidden=(8, 4), seed=0):
    torch.manual_seed(seed)
    return MaskedPolicyNet(OBS, ACTIONS, list(hidden))


def _save(tmp_path, hidden=(8, 4), seed=0, name="ck", **meta):
    return save_checkpoint(tmp_path / name, _net(hidden, seed), {**BASE_META, **meta})


def _sidecar(path):
    return json.loads(path.with_suffix(".json").read_text())


def _write_sidecar(path, meta):
    path.with_suffix(".json").write_text(json.dumps(meta))


def _split(blob):
    n = int.from_bytes(blob[:8], "little")
    return json.loads(blob[8 : 8 + n]), blob[8 + n :]


def _join(header, data):
    text = json.dumps(header).encode()
    return len(text).to_bytes(8, "little") + text + data


def _write_weights(path, blob, rehash=True):
    """Replace the weights; ``rehash`` updates the sidecar's hash as a crafted file would."""
    path.write_bytes(blob)
    if rehash:
        meta = _sidecar(path)
        meta["weights_sha256"] = hashlib.sha256(blob).hexdigest()
        _write_sidecar(path, meta)


def _one_line_error(path, match=None):
    with pytest.raises(CheckpointError, match=match) as e:
        load_checkpoint(path)
    message = str(e.value)
    assert "\n" not in message and len(message) < 400, message
    assert path.stem in message, message  # names the file
    return message


@pytest.fixture
def no_network_built(monkeypatch):
    """Fail the test if the loader builds a network, torch's or numpy's (rejection must come
    before allocation)."""
    from cardzoo.training.agents.networks import NETWORKS
    from cardzoo.training.agents.numpy_nets import ARCHITECTURES

    def forbidden(cls, meta, *state):
        raise AssertionError(f"network built for a rejected checkpoint: {meta}")

    for torch_cls in NETWORKS.values():
        monkeypatch.setattr(torch_cls, "from_meta", classmethod(forbidden))
    for numpy_cls in ARCHITECTURES.values():
        monkeypatch.setattr(numpy_cls, "from_state", classmethod(forbidden))


def test_parameter_shapes_match_the_built_network():
    for hidden in ([1], [8, 4], [16, 16, 16], [3] * 8):
        net = MaskedPolicyNet(11, 7, hidden, "relu")
        expected = {k: tuple(v.shape) for k, v in net.state_dict().items()}
        assert PolicyMLP.parameter_shapes(11, 7, hidden) == expected
        assert (net.hidden, net.activation) == (hidden, "relu")


def test_valid_checkpoint_round_trips_with_unknown_extra_fields(tmp_path):
    extra = {"value_hidden": [64, 64], "settings": {"lr": 3e-4, "nested": {"a": [1, 2]}}, "note": None}
    path = _save(tmp_path, **extra)
    net, meta = load_checkpoint(path)
    for key, value in extra.items():
        assert meta[key] == value
    assert meta["hidden"] == [8, 4] and meta["obs_size"] == OBS and len(meta["weights_sha256"]) == 64
    original = _net()
    obs = torch.randn(3, OBS)
    assert torch.equal(net(obs), original(obs))
    load_agent(path, config=siantappo_v0.Config(num_players=4))


def test_shipped_style_sidecar_without_hash_still_loads(tmp_path):
    path = _save(tmp_path)
    meta = _sidecar(path)
    del meta["weights_sha256"]
    _write_sidecar(path, meta)
    load_checkpoint(path)


_DEEP = "[" * 5000 + "]" * 5000
SIDECAR_CASES = [  # (field, value, what the message must say)
    ("hidden", [1e8], "'hidden' must be a list"),
    ("hidden", [500000], "'hidden' must be a list"),
    ("hidden", [], "'hidden' must be a list"),
    ("hidden", [8] * 9, "'hidden' must be a list"),
    ("hidden", [True], "'hidden' must be a list"),
    ("hidden", 8, "'hidden' must be a list"),
    ("hidden", [4096, 4096], "'hidden' asks for .* parameters"),
    ("obs_size", -1, "'obs_size' must be an integer in 1..65536"),
    ("obs_size", 633.0, "'obs_size' must be an integer"),
    ("obs_size", 10**30, "'obs_size' must be an integer"),
    ("num_actions", 0, "'num_actions' must be an integer"),
    ("num_actions", "368", "'num_actions' must be an integer"),
    ("player_counts", 4, "'player_counts' must be a non-empty list"),
    ("player_counts", "4", "'player_counts' must be a non-empty list"),
    ("player_counts", [], "'player_counts' must be a non-empty list"),
    ("player_counts", [7], "'player_counts' must be .* \\[3, 4, 5, 6\\]"),
    ("player_counts", [4, 4], "'player_counts' must be a non-empty list of distinct"),
    ("player_counts", [4.0], "'player_counts' must be"),
    ("activation", "gelu", "'activation' must be one of 'tanh', 'relu'"),
    ("activation", ["tanh"], "'activation' must be one of"),
    ("game", "chess", "'game' must be one of siantappo, suipi, samsip"),
    ("game", ["siantappo"], "'game' must be one of"),
    ("env", "suipi_v0", "'env' must be a siantappo env name"),
    ("env", None, "'env' must be"),
    ("format", "cardzoo-checkpoint/2", "format 'cardzoo-checkpoint/2' is not"),
    ("config", [1, 2], "'config' must be a JSON object"),
    ("name", "two\nlines", "'name' must be printable text"),
    ("name", "x" * 500, "'name' must be printable text"),
    ("training_steps", -1, "'training_steps' must be an integer"),
    ("seed", "3", "'seed' must be null or a 64-bit integer"),
    ("evaluation", [], "'evaluation' must be a JSON object"),
    ("weights_sha256", "abc", "'weights_sha256' must be 64 lowercase hex digits"),
    ("created", "x" * 100, "'created' must be text"),
]


@pytest.mark.parametrize("field,value,message", SIDECAR_CASES, ids=[f"{f}={str(v)[:20]}" for f, v, _ in SIDECAR_CASES])
def test_bad_sidecar_fields_are_one_line_errors_naming_the_field(tmp_path, no_network_built, field, value, message):
    path = _save(tmp_path)
    _write_sidecar(path, {**_sidecar(path), field: value})
    assert "ck.json" in _one_line_error(path, message)


@pytest.mark.parametrize(
    "text,message",
    [
        ('{"config": ' + _DEEP + "}", "nested 5001 levels deep"),
        (_DEEP, "nested 5000 levels deep"),
        ('{"a": "' + "[" * 5000 + '"}', "lacks field"),  # brackets inside a string are not nesting
        ("[1, 2]", "must hold a JSON object, not list"),
        ('{"obs_size": NaN}', "lacks field"),
        ("{not json", "is not valid JSON: .* line 1 column 2"),
        ('{"obs_size": ' + "9" * 5000 + "}", "not valid JSON|lacks field"),  # 3.11+ refuses the digits
        ("", "is not valid JSON"),
    ],
)
def test_malformed_sidecar_text_is_a_one_line_error(tmp_path, no_network_built, text, message):
    path = _save(tmp_path)
    path.with_suffix(".json").write_text(text)
    _one_line_error(path, message)


def test_sidecar_nesting_is_counted_without_recursion(tmp_path, no_network_built):
    # Far deeper than the interpreter's recursion limit; json.loads alone raises RecursionError.
    path = _save(tmp_path)
    path.with_suffix(".json").write_text('{"x": ' + "[" * 400_000 + "]" * 400_000 + "}")
    _one_line_error(path, "nested 400001 levels deep")


def test_oversized_and_non_utf8_sidecars_are_refused(tmp_path, no_network_built, monkeypatch):
    path = _save(tmp_path)
    _write_sidecar(path, {**_sidecar(path), "padding": "x" * (1 << 20)})
    monkeypatch.setattr(ckpt.json, "loads", lambda *a, **k: pytest.fail("parsed an oversized sidecar"))
    _one_line_error(path, "larger than 1,048,576 bytes")
    path.with_suffix(".json").write_bytes(b'{"game": "\xff"}')
    _one_line_error(path, "is not UTF-8 text")


def test_wide_hidden_layer_is_rejected_from_the_header_before_building(tmp_path, no_network_built):
    path = _save(tmp_path)
    _write_sidecar(path, {**_sidecar(path), "hidden": [4096, 8]})  # valid schema, 2.6M parameters
    _one_line_error(path, "does not match the architecture in ck.json: policy_net.0.weight has shape \\(8, 633\\)")
    _write_sidecar(path, {**_sidecar(path), "hidden": [8]})
    _one_line_error(path, "does not match the architecture in ck.json: policy_net.0.weight|unexpected tensor")


def _header_case(mutate):
    def apply(path):
        header, data = _split(path.read_bytes())
        data = mutate(header, data)
        _write_weights(path, _join(header, data))

    return apply


def _set(name, key, value):
    def mutate(header, data):
        header[name][key] = value
        return data

    return mutate


def _drop_tensor(header, data):
    del header["action_net.bias"]
    return data


def _extra_tensor(header, data):
    header["value_net.bias"] = {"dtype": "F32", "shape": [1], "data_offsets": [len(data), len(data) + 4]}
    return data + b"\0" * 4


def _swap_offsets(header, data):
    a, b = header["action_net.bias"], header["action_net.weight"]
    a["data_offsets"], b["data_offsets"] = b["data_offsets"], a["data_offsets"]
    return data


def _raw(blob_fn, rehash=True):
    def apply(path):
        _write_weights(path, blob_fn(path.read_bytes()), rehash)

    return apply


WEIGHT_CASES = {
    "dtype F64": (_header_case(_set("action_net.bias", "dtype", "F64")), "dtype 'F64'; only F32, F16 and BF16"),
    "dtype I64": (_header_case(_set("policy_net.0.weight", "dtype", "I64")), "dtype 'I64'"),
    "huge shape": (_header_case(_set("policy_net.0.weight", "shape", [10**12, 10**12])), "has shape"),
    "negative shape": (_header_case(_set("policy_net.0.weight", "shape", [-8, 633])), "has shape \\[-8, 633\\]"),
    "float shape": (_header_case(_set("policy_net.0.bias", "shape", [8.0])), "has shape \\[8.0\\]"),
    "wrong shape": (_header_case(_set("action_net.bias", "shape", [367])), "action_net.bias has shape \\(367,\\)"),
    "offsets past end": (_header_case(_set("action_net.bias", "data_offsets", [0, 10**15])), "data_offsets"),
    "offsets overlap": (_header_case(_set("action_net.bias", "data_offsets", [4, 1476])), "data_offsets"),
    "offsets swapped": (_header_case(_swap_offsets), "data_offsets"),
    "offsets text": (_header_case(_set("action_net.bias", "data_offsets", "0-4")), "data_offsets '0-4'"),
    "missing tensor": (_header_case(_drop_tensor), "tensor action_net.bias is missing"),
    "extra tensor": (_header_case(_extra_tensor), "unexpected tensor 'value_net.bias'"),
    "entry not object": (_header_case(lambda h, d: h.update({"action_net.bias": 5}) or d), "needs exactly dtype"),
    "bad metadata": (_header_case(lambda h, d: h.update({"__metadata__": {"a": 1}}) or d), "__metadata__"),
    "header list": (_raw(lambda b: _join([1], b)), "header is not a JSON object"),
    "header not json": (_raw(lambda b: (5).to_bytes(8, "little") + b"{oops" + b[8:]), "header is not valid JSON"),
    "header deep": (_raw(lambda b: _join({"a": json.loads("[" * 40 + "]" * 40)}, b"")), "header is nested 41 levels"),
    "header length huge": (_raw(lambda b: (2**64 - 1).to_bytes(8, "little") + b[8:]), "exceeds 1,048,576"),
    "header length past end": (_raw(lambda b: (len(b)).to_bytes(8, "little") + b[8:]), "runs past the end"),
    "header not utf8": (_raw(lambda b: (2).to_bytes(8, "little") + b"\xff\xfe" + b[8:]), "not UTF-8"),
    "truncated data": (_raw(lambda b: b[:-3]), "is truncated: its tensors need"),
    "trailing bytes": (_raw(lambda b: b + b"\0" * 4), "4 bytes after the last tensor"),
    "too short": (_raw(lambda b: b[:5]), "shorter than the 8-byte header length"),
    "empty": (_raw(lambda b: b""), "shorter than"),
    "pickle": (_raw(lambda b: pickle.dumps({"w": [1.0]})), "not a readable safetensors file"),
    "hash differs": (_raw(lambda b: b[:-4] + struct.pack("<f", 0.5), rehash=False), "SHA-256 differs"),
    "too large": (_raw(lambda b: b + b"\0" * (5 << 20)), "larger than"),
}


@pytest.mark.parametrize("case", list(WEIGHT_CASES))
def test_bad_weight_files_are_one_line_errors(tmp_path, no_network_built, case):
    mutate, message = WEIGHT_CASES[case]
    path = _save(tmp_path)
    mutate(path)
    assert "ck.safetensors" in _one_line_error(path, message)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_weights_are_rejected(tmp_path, no_network_built, value):
    path = _save(tmp_path)
    header, data = _split(path.read_bytes())
    at = header["action_net.bias"]["data_offsets"][0] + 4 * 5
    _write_weights(path, _join(header, data[:at] + struct.pack("<f", value) + data[at + 4 :]))
    _one_line_error(path, "tensor action_net.bias holds NaN or infinite values")


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_weights_load_into_float32(tmp_path, dtype):
    from safetensors.torch import save

    path = _save(tmp_path)
    state = {k: v.to(dtype) for k, v in _net().state_dict().items()}
    _write_weights(path, save(state))
    net, _ = load_checkpoint(path)
    for name, tensor in net.state_dict().items():
        assert tensor.dtype == torch.float32 and torch.equal(tensor, state[name].float())
    for name, array in load_network(path)[0].state_dict().items():  # the numpy side reads them alike
        assert array.dtype == np.float32 and np.array_equal(array, state[name].float().numpy())


def test_mixed_up_weights_fail_the_hash_check(tmp_path):
    a, b = _save(tmp_path, seed=1, name="a"), _save(tmp_path, seed=2, name="b")
    a.write_bytes(b.read_bytes())  # same architecture: only the hash tells them apart
    _one_line_error(a, "a.safetensors is not the weights file a.json was saved with")


def test_loading_never_unpickles(tmp_path, monkeypatch):
    good = _save(tmp_path, name="good")
    bad = _save(tmp_path, name="bad")
    bad.write_bytes(pickle.dumps({"policy_net.0.weight": [0.0]}))

    def forbidden(*args, **kwargs):
        raise AssertionError("loading a checkpoint unpickled something")

    for module, name in [(pickle, "load"), (pickle, "loads"), (pickle, "Unpickler"), (torch, "load")]:
        monkeypatch.setattr(module, name, forbidden)
    load_checkpoint(good)
    _one_line_error(bad, "not a readable safetensors file")


def test_cli_prints_a_hostile_sidecar_in_one_line(tmp_path, capsys):
    path = _save(tmp_path)
    path.with_suffix(".json").write_text('{"x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    assert main(["eval", "siantappo", "--agents", f"{path},random", "--games", "2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nested" in err[0]


# ---- saving -------------------------------------------------------------------------------------


def test_save_refuses_what_load_would_refuse(tmp_path):
    net = _net()
    with torch.no_grad():
        net.action_net.bias[0] = float("nan")
    with pytest.raises(CheckpointError, match="NaN or infinite weights"):
        save_checkpoint(tmp_path / "nan", net, BASE_META)
    with pytest.raises(CheckpointError, match=r"cannot save .*'game' must be one of"):
        save_checkpoint(tmp_path / "chess", _net(), {**BASE_META, "game": "chess"})
    with pytest.raises(CheckpointError, match=r"cannot save .*'player_counts'"):
        save_checkpoint(tmp_path / "p", _net(), {**BASE_META, "player_counts": [2]})
    with pytest.raises(CheckpointError, match=r"cannot save .*exceed 1,048,576 bytes"):
        save_checkpoint(tmp_path / "big", _net(), {**BASE_META, "settings": "x" * (1 << 20)})
    assert list(tmp_path.iterdir()) == []  # nothing half-written


def test_save_takes_the_architecture_from_the_net(tmp_path):
    path = save_checkpoint(
        tmp_path / "ck", _net((8, 4)), {**BASE_META, "hidden": [99], "obs_size": 1, "activation": "relu"}
    )
    meta = _sidecar(path)
    assert (meta["hidden"], meta["obs_size"], meta["num_actions"], meta["activation"]) == ([8, 4], OBS, ACTIONS, "tanh")
    load_checkpoint(path)


def test_atomic_write_keeps_the_old_file_when_writing_fails(tmp_path, monkeypatch):
    target = tmp_path / "state.json"
    atomic_write_text(target, "old")

    def crash(fd):
        raise OSError(5, "disk on fire")

    monkeypatch.setattr(ckpt.os, "fsync", crash)
    with pytest.raises(OSError, match="disk on fire"):
        atomic_write_bytes(target, b"new" * 1000)
    assert target.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["state.json"]
    monkeypatch.undo()
    atomic_write_bytes(target, b"new")
    assert target.read_bytes() == b"new" and sorted(p.name for p in tmp_path.iterdir()) == ["state.json"]


@pytest.mark.skipif(os.name != "posix", reason="file modes")
def test_atomic_write_gives_the_mode_a_plain_write_gives(tmp_path):
    umask = os.umask(0o022)
    try:
        atomic_write_text(tmp_path / "a", "x")
        (tmp_path / "b").write_text("x")
        assert (tmp_path / "a").stat().st_mode == (tmp_path / "b").stat().st_mode
    finally:
        os.umask(umask)


def test_interrupted_save_leaves_the_old_checkpoint_or_a_detected_mix(tmp_path, monkeypatch):
    path = _save(tmp_path, seed=1)
    old = load_checkpoint(path)[0].state_dict()
    real_replace, calls = os.replace, []

    def replace_failing_on(n):
        def replace(src, dst):
            calls.append(dst)
            if len(calls) == n:
                raise OSError(28, "no space left")
            real_replace(src, dst)

        return replace

    monkeypatch.setattr(ckpt.os, "replace", replace_failing_on(1))  # crash while writing the weights
    with pytest.raises(OSError, match="no space left"):
        _save(tmp_path, seed=2)
    assert all(torch.equal(v, old[k]) for k, v in load_checkpoint(path)[0].state_dict().items())
    calls.clear()
    monkeypatch.setattr(ckpt.os, "replace", replace_failing_on(2))  # crash between weights and sidecar
    with pytest.raises(OSError, match="no space left"):
        _save(tmp_path, seed=2)
    _one_line_error(path, "SHA-256 differs")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ck.json", "ck.safetensors"]  # no temp files


# ---- fuzzing ------------------------------------------------------------------------------------

NASTY = [
    -1,
    0,
    1,
    2,
    3,
    4,
    8,
    633,
    368,
    4096,
    4097,
    2**31,
    2**64,
    1.5,
    1e8,
    1e308,
    -0.0,
    True,
    False,
    None,
    "",
    "4",
    "tanh",
    "siantappo",
    "siantappo_v0",
    [],
    [0],
    [8],
    [8, 4],
    [4],
    [3, 4],
    [500000],
    [1e8],
    [-8],
    [8] * 9,
    ["8"],
    {},
    {"a": 1},
    [[8]],
    "x" * 300,
]
FIELDS = list(ckpt.REQUIRED) + list(ckpt.OPTIONAL) + ["value_hidden", "settings"]
TEXT_BITS = ["{", "}", "[", "]", '"', ":", ",", "\\", "0", "9", "-", "e", "N", " ", "\x00", "é"]


def _mutate_sidecar(rng, text):
    meta = json.loads(text)
    kind = rng.randrange(5)
    if kind == 0:
        meta[rng.choice(FIELDS)] = rng.choice(NASTY)
    elif kind == 1:
        meta.pop(rng.choice(FIELDS), None)
    elif kind == 2:
        field = rng.choice(FIELDS)
        value = rng.choice(NASTY)
        for _ in range(rng.randrange(1, 60)):
            value = [value] if rng.random() < 0.5 else {"k": value}
        meta[field] = value
    text = json.dumps(meta)
    if kind == 3:
        text = text[: rng.randrange(len(text) + 1)]
    elif kind == 4:
        for _ in range(rng.randrange(1, 4)):
            i = rng.randrange(len(text))
            text = text[:i] + rng.choice(TEXT_BITS) + text[i + rng.randrange(2) :]
    return text


def _mutate_weights(rng, blob):
    header, data = _split(blob)
    kind = rng.randrange(6)
    if kind == 0:
        return blob[: rng.randrange(len(blob) + 1)]
    if kind == 1:
        blob = bytearray(blob)
        for _ in range(rng.randrange(1, 5)):
            blob[rng.randrange(len(blob))] = rng.randrange(256)
        return bytes(blob)
    if kind == 2:
        n = int.from_bytes(blob[:8], "little")
        new = rng.choice([n + rng.randint(-16, 16), rng.randrange(2**64), len(blob), 0])
        return max(new, 0).to_bytes(8, "little") + blob[8:]
    if kind == 3:
        name = rng.choice([k for k in header if k != "__metadata__"])
        key = rng.choice(["dtype", "shape", "data_offsets", None])
        if key is None:
            del header[name]
        else:
            header[name][key] = rng.choice(NASTY + ["F64", "F16", "BF16", "I8", [10**12, 10**12], [0, 10**15]])
        return _join(header, data)
    if kind == 4:
        at = rng.randrange(len(data) // 4) * 4
        value = rng.choice([float("nan"), float("inf"), float("-inf"), 1e38, 0.0])
        return _join(header, data[:at] + struct.pack("<f", value) + data[at + 4 :])
    return blob + bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))


def _fuzz_case(rng, weights, sidecar):
    """One mutated (weights, sidecar) pair: weights, sidecar or both changed."""
    which = rng.randrange(3)
    if which != 1:
        weights = _mutate_weights(rng, weights)
        if rng.random() < 0.7:  # as a crafted file would: the hash fits, so the deeper checks run
            sidecar = json.dumps({**json.loads(sidecar), "weights_sha256": hashlib.sha256(weights).hexdigest()})
    if which != 0:
        sidecar = _mutate_sidecar(rng, sidecar)
    return weights, sidecar


def _fuzz(tmp_path, monkeypatch, cases, seed):
    built = []

    class Recorded(MaskedPolicyNet):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            built.append(sum(p.numel() for p in self.parameters()))

    from cardzoo.training.agents.networks import NETWORKS

    monkeypatch.setitem(NETWORKS, "policy", Recorded)
    path = _save(tmp_path)
    good = on_disk = (path.read_bytes(), path.with_suffix(".json").read_text())
    rng = random.Random(seed)
    outcomes = {"loaded": 0, "rejected": 0}
    for case in range(cases):
        weights, sidecar = _fuzz_case(rng, *good)
        if weights != on_disk[0]:  # write only what changed (file writes dominate the run time)
            path.write_bytes(weights)
        if sidecar != on_disk[1]:
            path.with_suffix(".json").write_text(sidecar)
        on_disk = (weights, sidecar)
        try:
            net, meta = load_checkpoint(path)
        except CheckpointError as e:
            message = str(e)
            assert "\n" not in message and len(message) < 400 and "ck." in message, (case, message)
            outcomes["rejected"] += 1
            continue
        except Exception as e:  # noqa: BLE001 - the point: nothing else may escape
            pytest.fail(f"fuzz case {case} (seed {seed}) raised {type(e).__name__}: {str(e)[:200]}")
        # Loaded: a working network of the sidecar's architecture, no larger than the file holds.
        assert built[-1] * 2 <= len(weights), (case, built[-1], len(weights))
        assert (net.obs_size, net.num_actions, net.hidden) == (meta["obs_size"], meta["num_actions"], meta["hidden"])
        assert all(bool(torch.isfinite(p).all()) for p in net.parameters())
        assert net(torch.zeros(1, net.obs_size)).shape == (1, net.num_actions)
        outcomes["loaded"] += 1
    assert len(built) == outcomes["loaded"]  # no network was built for a rejected checkpoint
    return outcomes


def test_fuzzed_checkpoints_load_or_fail_in_one_line(tmp_path, monkeypatch):
    outcomes = _fuzz(tmp_path, monkeypatch, cases=2000, seed=10)
    # Both outcomes happen: mutations that keep a valid checkpoint load, the rest are refused.
    assert outcomes["loaded"] >= 100 and outcomes["rejected"] >= 1300, outcomes


@pytest.mark.slow
def test_fuzzed_checkpoints_long(tmp_path, monkeypatch):
    outcomes = _fuzz(tmp_path, monkeypatch, cases=20_000, seed=11)
    assert outcomes["loaded"] >= 1000 and outcomes["rejected"] >= 10_000, outcomes
