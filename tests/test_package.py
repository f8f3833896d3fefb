"""The package's shape: one import package built from the repository's folders, and layers that
only import downwards (docs/ARCHITECTURE.md draws them)."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # the dev extra installs tomli there
    import tomli as tomllib

import cardzoo

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
FOLDERS = PYPROJECT["tool"]["setuptools"]["package-dir"]  # package -> repository folder

# Each layer may import only itself and the layers before it (module prefixes, most specific first).
LAYERS = [
    ("root", ["cardzoo"]),  # the package root: its version, and the envs loaded lazily by name
    ("envs", ["cardzoo.envs"]),
    ("agents", ["cardzoo.training.agents"]),
    ("public agents", ["cardzoo.agents"]),  # cardzoo.agents.load: the agents above for your own loop
    ("vector", ["cardzoo.vector"]),  # many tables at once: games and agents only, nothing that trains
    ("parallel", ["cardzoo.training.parallel"]),
    ("evaluation", ["cardzoo.training.evaluation"]),
    ("common", ["cardzoo.training.common"]),
    (
        "trainers",
        [
            "cardzoo.training.ppo",
            "cardzoo.training.dmc",
            "cardzoo.training.sb3",
            "cardzoo.training.integrations",
            "cardzoo.training.value",
        ],
    ),
    ("benchmarks", ["cardzoo.benchmarks"]),
    ("scripts", ["cardzoo.scripts", "cardzoo.__main__"]),
]
TRAINERS = (
    "cardzoo.training.ppo",
    "cardzoo.training.dmc",
    "cardzoo.training.sb3",
    "cardzoo.training.common",
    "cardzoo.training.integrations",
    "cardzoo.training.value",
)


def _modules() -> dict[str, Path]:
    out = {}
    for package, folder in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT / folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            out[".".join([package, *parts])] = path
    return out


MODULES = _modules()


def _imports(path: Path, name: str) -> set[str]:
    """Every module ``name`` imports, at the top or inside functions (relative imports resolved)."""
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in _runtime_nodes(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in MODULES)
    return found


def _runtime_nodes(tree):
    """Every node but those under ``if TYPE_CHECKING:`` (annotations only, never imported)."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not (isinstance(child, ast.If) and ast.unparse(child.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")):
                todo.append(child)


GRAPH = {name: {m for m in _imports(path, name) if m in MODULES} for name, path in MODULES.items()}


def _layer(module: str) -> int:
    best = None
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and (best is None or len(p) > best[1]):
                best = (i, len(p))
    assert best is not None, module
    return best[0]


def test_the_packages_listed_in_pyproject_are_the_folders():
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    on_disk = {"cardzoo.models"} | {name for name, path in MODULES.items() if path.name == "__init__.py"}
    assert listed == on_disk
    assert set(FOLDERS.values()) == {"cardzoo", "envs", "vector", "training", "benchmarks", "scripts", "models"}


def test_lint_and_type_check_are_configured_and_run_in_ci():
    """ruff and mypy are configured here and pinned in the dev extra; `make lint` runs both, CI runs
    it and so do the pre-commit hooks; .ci/typecheck links the package's folders from package-dir."""
    tool = PYPROJECT["tool"]
    assert tool["ruff"]["line-length"] and tool["ruff"]["lint"]["select"] and "format" in tool["ruff"]
    assert tool["mypy"]["files"] and tool["mypy"]["check_untyped_defs"]
    dev = PYPROJECT["project"]["optional-dependencies"]["dev"]
    assert [d for d in dev if d.startswith(("ruff==", "mypy=="))] == ["ruff==0.17.6", "mypy==2.4.1"]
    lint = re.search(r"^lint:.*\n((?:\t.*\n)+)", (ROOT / "Makefile").read_text(), re.M)
    assert lint and "ruff check" in lint[1] and "ruff format --check" in lint[1] and ".ci/typecheck" in lint[1]
    assert re.search(r"^make lint\b", (ROOT / ".ci/run").read_text(), re.M)
    hooks = (ROOT / ".pre-commit-config.yaml").read_text()
    assert re.search(r"^\s+entry: \.venv/bin/ruff check", hooks, re.M)
    assert re.search(r"^\s+entry: \.venv/bin/ruff format", hooks, re.M)
    assert re.search(r"^\s+entry: \.ci/typecheck", hooks, re.M)
    assert '["tool"]["setuptools"]["package-dir"]' in (ROOT / ".ci/typecheck").read_text()


def test_terminal_play_is_type_checked():
    """No mypy override exempts the terminal's play code (issue 60: it was, with a TODO)."""
    exempt = [m for o in PYPROJECT["tool"]["mypy"]["overrides"] if o.get("ignore_errors") for m in o["module"]]
    assert not [m for m in exempt if m.startswith(("cardzoo.scripts.play", "cardzoo.scripts.typed_moves"))]


def test_the_version_is_in_one_place():
    assert PYPROJECT["project"]["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "cardzoo.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", cardzoo.__version__)


def test_the_envs_are_importable_as_in_pettingzoo_classic():
    from cardzoo import samsip_v0, siantappo_v0, suipi_v0

    for module in (siantappo_v0, suipi_v0, samsip_v0):
        assert module.env().metadata["name"] == module.__name__.rpartition(".")[2]


@pytest.mark.parametrize("name", sorted(MODULES))
def test_nothing_imports_the_folders_as_top_level_packages(name):
    tops = {m.split(".")[0] for m in _imports(MODULES[name], name)}
    assert not tops & {"envs", "training", "benchmarks", "scripts", "models", "tests"}, f"{name} imports {tops}"


def test_the_package_imports_nothing_from_experiments():
    """experiments/ holds research scripts outside the package: the library never needs them."""
    assert (ROOT / "experiments").is_dir() and "experiments" not in FOLDERS.values()
    assert not any(p.startswith("cardzoo.experiments") for p in PYPROJECT["tool"]["setuptools"]["packages"])
    users = {
        name: sorted(m for m in _imports(path, name) if m.split(".")[0] == "experiments")
        for name, path in MODULES.items()
    }
    assert not {name: found for name, found in users.items() if found}


# Where a command line may be read: the `cardzoo` command and the benchmarks' own entry points.
COMMAND_LINES = ("cardzoo.scripts", "cardzoo.__main__", "cardzoo.benchmarks")


def _is_a_script(path: Path) -> bool:
    """Whether a module reads a command line: imports argparse, reads sys.argv or runs as __main__."""
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name in ("argparse", "optparse", "getopt") for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and node.module in ("argparse", "optparse", "getopt"):
            return True
        if isinstance(node, ast.Attribute) and node.attr == "argv" and ast.unparse(node.value) == "sys":
            return True
        if isinstance(node, ast.Compare) and "__name__" in ast.unparse(node.left) and "__main__" in ast.unparse(node):
            return True
    return False


def test_no_module_of_the_library_is_a_script():
    """An argparse script inside cardzoo.envs or cardzoo.training is an experiment: experiments/."""
    scripts = sorted(
        name for name, path in MODULES.items() if _is_a_script(path) and not name.startswith(COMMAND_LINES)
    )
    assert not scripts, f"{scripts} read a command line: move them to experiments/ (or scripts/)"
    assert _is_a_script(ROOT / "experiments" / "samsip_feeding.py")  # the check can fail


@pytest.mark.parametrize("name", sorted(MODULES))
def test_layers_import_only_downwards(name):
    mine = _layer(name)
    upward = sorted(m for m in GRAPH[name] if _layer(m) > mine)
    assert not upward, f"{name} ({LAYERS[mine][0]}) imports the higher layer(s) {upward}"


def test_the_vector_api_loads_no_torch_and_no_trainer():
    """cardzoo.vector is for trainers we did not write: it needs neither torch (a model opponent
    loads it when it is built) nor any of ours."""
    code = (
        "import sys, cardzoo.vector; "
        "bad = [m for m in sys.modules if m.split('.')[0] == 'torch' or m.startswith('cardzoo.training.') "
        "and not m.startswith('cardzoo.training.agents')]; print(bad); sys.exit(1 if bad else 0)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_the_trainers_do_not_import_each_other():
    for name, deps in GRAPH.items():
        for trainer in ("cardzoo.training.ppo", "cardzoo.training.dmc", "cardzoo.training.sb3"):
            if not name.startswith("cardzoo.training.") or name.startswith(trainer):
                continue
            assert not any(d.startswith(trainer) for d in deps), f"{name} imports {trainer}"


def test_the_browser_reads_typed_moves_without_the_terminal_view():
    """The browser's "why not?" reads a selection as typed (``cardzoo.scripts.typed_moves``, which
    the terminal's prompt reads too): the server's match imports no terminal view, and neither does
    the readers' folder."""
    match = {m for m in GRAPH["cardzoo.scripts.serve.match"] if m.startswith("cardzoo.scripts.")}
    assert "cardzoo.scripts.typed_moves" in match
    assert not [m for m in match if m.startswith("cardzoo.scripts.play")]
    readers = [name for name in GRAPH if name.startswith("cardzoo.scripts.typed_moves")]
    assert len(readers) == 4
    assert not [m for r in readers for m in GRAPH[r] if m.startswith(("cardzoo.scripts.play", "cardzoo.scripts.serve"))]


def test_play_eval_and_serve_import_no_trainer():
    """Everything `cardzoo eval`, `play`, `serve` and `replay` reach, imports included."""
    roots = [
        "cardzoo.scripts.eval_cmd",
        "cardzoo.scripts.play_cmd",
        "cardzoo.scripts.serve_cmd",
        "cardzoo.scripts.replay_cmd",
    ]
    seen, todo = set(), list(roots)
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo.extend(GRAPH[m])
    assert not [m for m in seen if m.startswith(TRAINERS)]


def test_there_are_no_import_cycles():
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v):  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in GRAPH[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            # a package importing its own submodules (its __init__ re-exporting) is no cycle
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in GRAPH:
        if v not in index:
            visit(v)
    assert not cycles


def _declared_flags(path: Path) -> list[str]:
    """The flag names given literally to every ``add_argument`` call of a module."""
    return [
        a.value
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument"
        for a in node.args
        if isinstance(a, ast.Constant) and isinstance(a.value, str)
    ]


def test_trainer_flags_are_declared_only_in_their_settings_classes():
    """A trainer's flags are fields of its settings dataclass (``setting(...)``), the help and the
    argparse flags generated from them: `cardzoo train` declares only its own flags, and no
    training module declares a trainer's flag with argparse."""
    from cardzoo.scripts.train_cmd import TRAINERS
    from cardzoo.training.common.flags import flag_fields, flag_name

    settings_flags = {flag_name(d) for cls in TRAINERS.values() for d in flag_fields(cls)}
    assert set(_declared_flags(MODULES["cardzoo.scripts.train_cmd"])) == {
        "game",
        "--algo",
        "--backend",
        "--out",
        "--resume",
        "--no-progress",
    }
    training = [name for name in MODULES if name.startswith("cardzoo.training")]
    declared = {(name, f) for name in training for f in _declared_flags(MODULES[name]) if f in settings_flags}
    assert not declared


def test_the_shipped_models_are_package_data():
    from cardzoo.training.agents.shipped import package_models_dir, shipped_models

    assert package_models_dir().name == "models" and (package_models_dir() / "__init__.py").is_file()
    data = PYPROJECT["tool"]["setuptools"]["package-data"]["cardzoo.models"]
    suffixes = {p.suffix for p in package_models_dir().iterdir() if p.suffix != ".py"}
    assert suffixes and {f"*{s}" for s in suffixes} <= set(data)
    assert {g for _, g, _ in shipped_models()} == {"siantappo", "suipi", "samsip"}


@pytest.mark.parametrize("game", ["siantappo", "suipi", "samsip"])
def test_each_games_rules_summary_is_package_data(game):
    """The browser's Rules panel and the terminal's `?` read envs/<game>/rules.txt: it must be in
    the wheel (.ci/wheel-check looks for it there too)."""
    from cardzoo.envs.seatview import rules_summary

    assert "rules.txt" in PYPROJECT["tool"]["setuptools"]["package-data"][f"cardzoo.envs.{game}"]
    text = rules_summary(game)
    assert text.count("\n- ") >= 4 and "Input:" not in text


def test_cardzoo_models_searches_the_users_folders_first(tmp_path, monkeypatch):
    import shutil

    from cardzoo.training.agents.shipped import MODELS_ENV, package_models_dir, shipped_model_file

    for ext in ("safetensors", "json"):
        shutil.copy(package_models_dir() / f"siantappo.{ext}", tmp_path / f"mine.{ext}")
    monkeypatch.setenv(MODELS_ENV, str(tmp_path))
    assert shipped_model_file("siantappo", 4) == str(tmp_path / "mine.safetensors")
    assert str(shipped_model_file("suipi", 2)).startswith(str(package_models_dir()))  # the shipped ones still serve
    monkeypatch.setenv(MODELS_ENV, str(tmp_path / "missing"))
    with pytest.raises(ValueError, match=r"CARDZOO_MODELS: .*missing is not a folder"):
        shipped_model_file("siantappo", 4)


def test_a_specialist_plays_its_count_before_the_general_model(tmp_path, monkeypatch):
    import json
    import shutil

    from cardzoo.training.agents.shipped import MODELS_ENV, package_models_dir, shipped_model_file

    for name in ("general", "zz-3p"):  # the specialist sorts after the general model by name
        shutil.copy(package_models_dir() / "siantappo.safetensors", tmp_path / f"{name}.safetensors")
        meta = json.loads((package_models_dir() / "siantappo.json").read_text())
        meta["player_counts"] = [3] if name == "zz-3p" else [3, 4, 5, 6]
        (tmp_path / f"{name}.json").write_text(json.dumps(meta))
    monkeypatch.setenv(MODELS_ENV, str(tmp_path))
    assert shipped_model_file("siantappo", 3) == str(tmp_path / "zz-3p.safetensors")
    assert shipped_model_file("siantappo", 4) == str(tmp_path / "general.safetensors")


def test_every_warm_start_fits_through_the_one_imitation_loop():
    """Each trainer's warm start plays its matches and fits with ``training/common/imitation.py``:
    none builds an optimizer or plays bot-only matches of its own."""
    starts = sorted(name for name in MODULES if name.endswith(".warm_start"))
    assert starts == [f"cardzoo.training.{t}.warm_start" for t in ("dmc", "ppo", "sb3")]
    for name in starts:
        text = MODULES[name].read_text()
        assert "cardzoo.training.common.imitation" in GRAPH[name], name
        assert "optim." not in text and ".begin(" not in text, name


# ---- the core install: no torch where the envs, bots, evaluation, play and replay run ----------

# What only the `train` extra brings (pyproject.toml): the core commands import none of it.
TRAINING_STACK = ("torch", "stable_baselines3", "sb3_contrib", "tensorboard")
CORE_ROOTS = [
    "cardzoo.agents",
    "cardzoo.scripts.eval_cmd",
    "cardzoo.scripts.play_cmd",
    "cardzoo.scripts.replay_cmd",
    "cardzoo.scripts.serve_cmd",
    "cardzoo.training.agents.checkpoint",
    "cardzoo.training.agents.trust",
    "cardzoo.training.agents.expert",
    "cardzoo.training.parallel.threads",
    *[m for m in MODULES if m.startswith(("cardzoo.envs", "cardzoo.vector", "cardzoo.training.evaluation"))],
]


def _external_imports(name: str) -> set[str]:
    """The top-level names of what a module imports from outside the package, anywhere in it."""
    return {m.partition(".")[0] for m in _imports(MODULES[name], name) if not m.startswith("cardzoo")} - {""}


# The one way from the core to torch, taken only when asked for: the expert's leaves valued on a GPU
# (CARDZOO_EXPERT_DEVICE auto or cuda: `expert._on_device` imports `networks` inside the function).
ASKED_FOR = {("cardzoo.training.agents.expert", "cardzoo.training.agents.networks")}


def test_the_core_commands_never_import_the_training_stack():
    """Everything `cardzoo eval`, `play`, `replay` and `serve` reach, the envs, evaluation and the
    numpy path of the agents (checkpoints, the `model` and `expert` agents): no import of torch,
    SB3 or TensorBoard, at the top or inside a function (but for ``ASKED_FOR``)."""
    assert all(d in GRAPH[m] for m, d in ASKED_FOR)  # still there: else drop it from the list
    seen, todo = set(), list(CORE_ROOTS)
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo.extend(d for d in GRAPH[m] if (m, d) not in ASKED_FOR)
    assert {"cardzoo.training.agents.numpy_nets", "cardzoo.training.agents.net_agents"} <= seen
    assert (
        not {
            "cardzoo.training.agents.networks",
            "cardzoo.training.agents.policy",
            "cardzoo.training.agents.ranker",
            "cardzoo.training.agents.value",
        }
        & seen
    )  # the torch side of the agents
    offenders = {m: sorted(_external_imports(m) & set(TRAINING_STACK)) for m in sorted(seen)}
    assert not {m: found for m, found in offenders.items() if found}


CORE_RUN = r"""
import importlib.abc, sys
tried = []
class Watch(importlib.abc.MetaPathFinder):  # records every import of the training stack, even a failed one
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in STACK:
            tried.append(name)
        return None
sys.meta_path.insert(0, Watch())
from cardzoo.scripts.cli import main
records = sys.argv[1]
assert main(["eval", "suipi", "--players", "2", "--agents", "model,rules", "--games", "2", "--no-progress",
             "--records", records]) == 0
assert main(["eval", "siantappo", "--agents", "expert:1,model", "--games", "1", "--no-progress"]) == 0
assert main(["replay", records, "--quiet"]) == 0
assert main(["play", "suipi", "--seed", "3", "--seats", "human,model"]) == 0
assert not tried and not set(STACK) & {m.partition(".")[0] for m in sys.modules}, tried
print("no training stack")
"""


def test_eval_play_and_replay_with_the_model_leave_torch_out(tmp_path):
    """The shipped model and the expert play through numpy: `cardzoo eval`, `play` and `replay`
    never ask for torch (a watcher on the import system records any attempt)."""
    import subprocess
    import sys

    script = f"STACK = {TRAINING_STACK!r}\n" + CORE_RUN
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "games.jsonl")],
        input="quit\ny\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert done.returncode == 0 and done.stdout.rstrip().endswith("no training stack"), done.stderr[-3000:]
