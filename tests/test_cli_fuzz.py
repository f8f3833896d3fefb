"""Hypothesis over the command line (issue 57, "Done when" (a)): random flags and values for every
`cardzoo` subcommand, and files of deeply nested or huge JSON where a command reads one.

Every command line ends with exit 0 or 2 (argparse's own errors included), never a traceback, and
writes or deletes nothing but what its output flags name (``--out``, ``--json``, ``--records`` …):
each example runs in a fresh temporary folder, whose files are compared before and after, with
the package's models folder beside it. Examples stay cheap: a valid command gets tiny budgets
(``--games 2``, ``--steps 1``, ``--quick``, one worker in-process), and the commands that would run
for minutes when valid (``demo``, ``model probe``) draw at least one value that must be refused.
Not drawn: ``serve`` (a server; its fuzz is tests/test_serve_fuzz.py), ``--ray`` (a cluster),
``bench --train`` and ``model card`` with a whole set of flags (they train, or write models/).
The default suite runs a few examples per command, derandomized; ``-m slow`` runs many more.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardzoo.scripts import cli
from cardzoo.training.agents.shipped import MODELS_ENV, shipped_model_file

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT / "models"
OUTPUT_FLAGS = ("--out", "--json", "--csv", "--plot", "--records", "--log", "--save", "--gif", "--db")
FAST: dict[str, Any] = dict(
    max_examples=6, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck)
)
MANY: dict[str, Any] = dict(max_examples=150, deadline=None, database=None, suppress_health_check=list(HealthCheck))


# ------------------------------------------------------------------ the files each example's folder holds
@pytest.fixture(scope="module")
def fixtures(tmp_path_factory) -> Path:
    """Files a flag may name: nested and huge JSON, a real game record and bench result, junk."""
    d = tmp_path_factory.mktemp("cli-fuzz-fixtures")
    (d / "deep.json").write_text("[" * 3000)
    (d / "digits.json").write_text('{"ours": [' + "9" * 5000 + "]}")
    (d / "empty.json").write_text("")
    (d / "binary.bin").write_bytes(bytes(range(256)) * 4)
    (d / "bench.json").write_text((ROOT / "docs" / "benchmarks-env.json").read_text())
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert (
            cli.main(
                [
                    "eval",
                    "suipi",
                    "--agents",
                    "rules,random",
                    "--games",
                    "2",
                    "--workers",
                    "1",
                    "--no-progress",
                    "--records",
                    str(d / "record.jsonl"),
                ]
            )
            == 0
        )
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert cli.main(["ladder", "--db", str(d / "ladder.sqlite"), "add", "rules", "random"]) == 0
        assert (
            cli.main(
                [
                    "ladder",
                    "--db",
                    str(d / "ladder.sqlite"),
                    "play",
                    "--game",
                    "suipi",
                    "--games",
                    "2",
                    "--workers",
                    "1",
                ]
            )
            == 0
        )
    (d / "folder").mkdir()
    (d / "folder" / "sidecar.json").write_text("[" * 100_000)  # a model folder with a hostile sidecar
    return d


INPUTS = [
    "deep.json",
    "digits.json",
    "empty.json",
    "binary.bin",
    "bench.json",
    "record.jsonl",
    "folder",
    "missing.json",
    "/proc/x.json",
    "",
]
INPUT = st.sampled_from(INPUTS)
OUTPUT = st.sampled_from(["o.json", "new/o.json", "folder", "deep.json", "/proc/x", "o.png", ""])
INT = st.sampled_from(["-1", "0", "1", "2", str(10**30), "x", "1.5", ""])
FLOAT = st.sampled_from(["-1", "0", "0.01", "nan", "inf", "1e999", "x"])
GAME = st.sampled_from(["siantappo", "suipi", "samsip", "siantappo", "suipi", "samsip", "SUIPI", "chess", ""])
OPTION = st.sampled_from(
    [
        "rounds=1",
        "match_deals=1",
        "bankroll=10",
        "num_players=5",
        "num-players=2.0",
        "rounds=" + "[" * 3000,
        "rounds=" + "9" * 5000,
        "rounds=-1",
        "rounds=1e999",
        "deal=[1,2",
        "render_mode=human",
        "x",
        "=1",
        "nope=1",
    ]
)
AGENT = st.sampled_from(
    [
        "rules",
        "random",
        "rules",
        "random",
        "model",
        "teacher",
        "nobody",
        "rules@-1",
        f"random@{10**30}",
        "expert:-1",
        "deep.json",
        "",
        "human",
    ]
)
AGENTS = st.lists(AGENT, min_size=1, max_size=4).map(",".join)
FIELD = st.lists(AGENT, min_size=2, max_size=4).map(",".join)
JUNK = st.sampled_from(["--nope", "-o", "--", "-x", "--games"]) | st.text(max_size=6)


def _rarely(strategy) -> st.SearchStrategy:
    """A list of one value drawn from ``strategy`` about one time in five, else none."""
    return st.sampled_from([0, 0, 0, 0, 1]).flatmap(lambda n: st.lists(strategy, min_size=n, max_size=n))


def _argv(head: list, base: list, flags: dict, positional=(), required=None) -> st.SearchStrategy:
    """``head`` + drawn positionals + ``base`` (cheap defaults) + ``required`` flags with drawn values +
    a few drawn flags (a later one wins) + now and then a junk word or --models."""

    @st.composite
    def draw(d):  # d: Hypothesis's draw
        argv = list(head) + [d(p) for p in positional] + list(base)
        for flag, value in (required or {}).items():
            argv += [flag, d(value)]
        for flag in d(st.lists(st.sampled_from(sorted(flags)), max_size=4, unique=True)):
            value = flags[flag]
            argv += [flag] if value is None else [flag, d(value)]
        models = [x for m in d(_rarely(st.sampled_from(["folder", "missing", "deep.json"]))) for x in ("--models", m)]
        return models + argv + d(_rarely(JUNK))

    return draw()


EVAL = _argv(
    ["eval"],
    ["--workers", "1", "--games", "2", "--no-progress"],
    required={"--agents": FIELD},
    flags={
        "--seats": AGENTS,
        "--players": INT,
        "--games": INT,
        "--seed": INT,
        "--workers": st.sampled_from(["-1", "0", "1", str(10**9)]),
        "-o": OPTION,
        "--no-rotate": None,
        "--json": OUTPUT,
        "--csv": OUTPUT,
        "--plot": OUTPUT,
        "--records": OUTPUT,
        "--log": OUTPUT | INPUT,
        "--bootstrap": INT,
        "--sprt": None,
        "--adv0": FLOAT,
        "--adv1": FLOAT,
        "--alpha": FLOAT,
        "--beta": FLOAT,
    },
    positional=[GAME],
)
PLAY = _argv(
    ["play"],
    [],
    {
        "--seats": AGENTS,
        "--players": INT,
        "--seed": INT,
        "--save": OUTPUT,
        "-o": OPTION,
        "--auto-pass": None,
        "--show-rewards": None,
        "--delay": st.sampled_from(["-1", "0", "nan", "1e999", "61"]),
        "--no-color": None,
        "--width": INT,
    },
    positional=[GAME],
)
REPLAY = _argv(
    ["replay"],
    [],
    {
        "--game": INT,
        "--step": None,
        "--delay": st.sampled_from(["-1", "0", "nan", "61"]),
        "--quiet": None,
        "--gif": OUTPUT,
        "--fps": FLOAT,
    },
    positional=[INPUT],
)
BENCH = _argv(
    ["bench"],
    ["--quick", "--no-reference", "--no-floor", "--no-memory", "--matches", "1"],
    {
        "--players": st.sampled_from(["9", "0", "2", "3,4", "x", "", "-1"]),
        "--runs": INT,
        "--seconds": FLOAT,
        "--warmup": FLOAT,
        "--seed": INT,
        "--json": OUTPUT,
        "--profile": None,
        "--profile-seconds": FLOAT,
        "--cpu": INT,
        "--clock": st.sampled_from(["cpu", "wall", "x"]),
        "--agents": AGENTS,
        "--matches": INT,
        "--show": INPUT,
        "--no-pin": None,
        "--references": st.text(max_size=4),
        "--vector": None,
    },
    positional=[st.lists(GAME, max_size=2).map(lambda gs: gs[0] if gs else "suipi")],
)
COMPARE = _argv(["bench-compare"], [], required={"--before": INPUT, "--after": INPUT}, flags={"--before": INPUT})
TRAIN = _argv(
    ["train"],
    [
        "--steps",
        "1",
        "--workers",
        "0",
        "--batch",
        "64",
        "--minibatch",
        "32",
        "--matches",
        "2",
        "--eval-games",
        "0",
        "--imitate",
        "0",
        "--no-progress",
        "--out",
        "run",
    ],
    {
        "--algo": st.sampled_from(["ppo", "dmc", "sb3", "rllib", "x"]),
        "--players": st.sampled_from(["3", "4", "2,4", "0", "x", "3,3", str(10**30)]),
        "--seed": INT,
        "--hidden": st.sampled_from(["8", "100000,100000", "0", "x", ",".join(["8"] * 9), "-1"]),
        "-o": OPTION,
        "--lr": FLOAT,
        "--resume": None,
        "--out": OUTPUT,
        "--epsilon": FLOAT,
        "--opponents": AGENT,
        "--init": INPUT,
        "--trust": FLOAT,
        "--threads": st.sampled_from(["-1", "0", "1"]),
        "--activation": st.sampled_from(["relu", "x"]),
        "--imitate": st.sampled_from(["-1", "0", "x"]),
        "--envs": INT,
        "--address": st.sampled_from(["", "x"]),
    },
    positional=[GAME],
)
# valid, a demo trains for a minute: every example draws a --games it must refuse
DEMO = _argv(
    ["demo", "--games", "-1"],
    [],
    {
        "--game": GAME,
        "--players": INT,
        "--steps": INT,
        "--games": st.sampled_from(["-1", "0", str(10**30)]),
        "--out": OUTPUT,
        "--seed": INT,
        "--quiet": None,
    },
)
MODEL = st.one_of(
    _argv(
        ["model", "trust"],
        [],
        required={"--trust": FLOAT, "--out": OUTPUT},
        flags={"--trust": FLOAT},
        positional=[INPUT | st.just(shipped_model_file("suipi", 2) or "")],
    ),
    _argv(
        ["model", "card"],
        [],
        {"--readme-table": None, "--name": st.sampled_from(["x", ""]), "--seed": INT, "--games": INT, "--workers": INT},
        positional=[INPUT],
    ),
    # valid, a probe trains exploiters for minutes: --minutes is always one it must refuse
    _argv(
        ["model", "probe"],
        ["--minutes", "0"],
        required={"--players": INT, "--seed": INT},
        flags={"--games": INT, "--minutes": st.sampled_from(["-1", "nan", "x"]), "--out": OUTPUT, "--workers": INT},
        positional=[INPUT],
    ),
)

# a ready ladder (rules, random, two suipi matches), a new file, and every input file as --db
LADDER_DB = st.sampled_from(["ladder.sqlite", "ladder.sqlite", "new.sqlite", *INPUTS])
LADDER = st.one_of(
    _argv(["ladder", "--db"], [], {"--db": LADDER_DB}, positional=[LADDER_DB, st.just("add"), AGENT, AGENT]),
    _argv(
        ["ladder", "--db"],
        ["--workers", "1", "--games", "2"],
        {
            "--players": INT,
            "--games": INT,
            "--workers": st.sampled_from(["-1", "0", "1", str(10**9)]),
            "-o": OPTION,
            "--sprt": None,
            "--adv0": FLOAT,
            "--adv1": FLOAT,
            "--alpha": FLOAT,
            "--beta": FLOAT,
        },
        positional=[LADDER_DB, st.just("play")],
        required={"--game": GAME},
    ),
    _argv(
        ["ladder", "--db"],
        [],
        {"--plot": OUTPUT, "--bootstrap": st.sampled_from(["-1", "0", "2", "x", str(10**30)])},
        positional=[LADDER_DB, st.just("show")],
    ),
    _argv(
        ["ladder", "--db"],
        [],
        {"--json": OUTPUT},
        positional=[LADDER_DB, st.just("export")],
        required={"--json": OUTPUT},
    ),
)


# ------------------------------------------------------------------ running one command line
def _files(root: Path) -> dict[str, tuple[int, int] | str]:
    """Every file and folder under ``root``: relative path -> (size, mtime) or "dir"."""
    out: dict[str, tuple[int, int] | str] = {}
    for path in root.rglob("*"):
        rel = path.relative_to(root).as_posix()
        out[rel] = (
            "dir" if path.is_dir() and not path.is_symlink() else (path.lstat().st_size, path.lstat().st_mtime_ns)
        )
    return out


def _outputs(argv: list[str]) -> list[str]:
    """What the command line names as its outputs (a train run's default folder is under runs/)."""
    named = [os.path.normpath(argv[i + 1]) for i, a in enumerate(argv[:-1]) if a in OUTPUT_FLAGS and argv[i + 1]]
    return named + [os.path.splitext(p)[0] for p in named] + ["runs"]  # model trust --out X.json: X.safetensors


def _may_change(rel: str, outputs: list[str]) -> bool:
    # an output, what lies inside it, or a file it names without its suffix (model trust --out X: X.json)
    return any(rel == o or rel.startswith((o + "/", o + ".")) for o in outputs)


def run_command(argv: list[str], fixtures: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="cli-fuzz-") as tmp:
        cwd = Path(tmp)
        for item in fixtures.iterdir():
            (shutil.copytree if item.is_dir() else shutil.copy2)(item, cwd / item.name)
        before, models_before = _files(cwd), _files(MODELS)
        out, err = io.StringIO(), io.StringIO()
        old_cwd, old_models, old_stdin = os.getcwd(), os.environ.get(MODELS_ENV), sys.stdin
        try:
            os.chdir(cwd)
            sys.stdin = io.StringIO("quit\n" * 20)  # a human seat, or replay --step, leaves at once
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                rc: int | str
                try:
                    rc = cli.main(argv)
                except SystemExit as e:  # argparse: --help, or a command line it cannot parse
                    rc = e.code or 0
        finally:
            os.chdir(old_cwd)
            sys.stdin = old_stdin
            if old_models is None:
                os.environ.pop(MODELS_ENV, None)
            else:
                os.environ[MODELS_ENV] = old_models
        after = _files(cwd)
        shown = f"cardzoo {' '.join(a[:40] for a in argv)}\nstderr: {err.getvalue()[-2000:]}"
        assert rc in (0, 2), shown
        assert "Traceback" not in err.getvalue() + out.getvalue(), shown
        if rc == 2:
            assert err.getvalue().strip(), shown  # a refusal says why
        outputs = _outputs(argv) if rc == 0 else []
        changed = sorted(
            p for p in before.keys() | after.keys() if before.get(p) != after.get(p) and not _may_change(p, outputs)
        )
        assert not changed, f"{shown}\nchanged outside the outputs: {changed}"
        assert _files(MODELS) == models_before, shown


# ------------------------------------------------------------------ the properties
COMMANDS = {
    "eval": EVAL,
    "play": PLAY,
    "replay": REPLAY,
    "bench": BENCH,
    "bench-compare": COMPARE,
    "train": TRAIN,
    "demo": DEMO,
    "model": MODEL,
    "ladder": LADDER,
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_any_command_line_exits_0_or_2_and_writes_only_its_outputs(command, fixtures):
    @settings(**FAST)
    @given(argv=COMMANDS[command])
    def check(argv):
        run_command(argv, fixtures)

    check()


@pytest.mark.slow
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_many_command_lines_exit_0_or_2_and_write_only_their_outputs(command, fixtures):
    @settings(**MANY)
    @given(argv=COMMANDS[command])
    def check(argv):
        run_command(argv, fixtures)

    check()
