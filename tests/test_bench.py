"""`cardzoo bench --quick` runs end to end and writes well-formed JSON. No timed assertions."""

from __future__ import annotations

import contextlib
import io
import json
import os

import pytest

from cardzoo.benchmarks import references, schema
from cardzoo.envs.registry import DEFAULT_PLAYERS, GAME_MODULES
from cardzoo.scripts.cli import main

SECTION_KEYS = {
    "unit",
    "median",
    "min",
    "max",
    "runs",
    "steps",
    "seconds",
    "episodes",
    "steps_per_game",
    "games_per_s",
    "py_peak_kib",
    "maxrss_kib",
    "cpu_share",
}


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "bench.json"
    affinity = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        rc = main(["bench", "--quick", "--profile", "--profile-seconds", "0.05", "--json", str(out)])
    assert rc == 0
    data = json.loads(out.read_text())
    data["_affinity_before"] = affinity
    data["_printed"], data["_path"] = printed.getvalue(), str(out)
    return data


def _check_section(sec: dict, unit: str) -> None:
    assert set(sec) >= SECTION_KEYS
    assert sec["unit"] == unit
    assert len(sec["runs"]) == 1  # --quick: one timed run
    assert sec["steps"] > 0 and sec["seconds"] > 0
    assert sec["min"] <= sec["median"] <= sec["max"]
    assert sec["median"] > 0
    assert sec["maxrss_kib"] > 0


def test_header(quick_run):
    d = quick_run
    assert d["schema"] == schema.SCHEMA
    assert d["settings"]["quick"] is True and d["settings"]["runs"] == 1
    assert d["command"].startswith("cardzoo bench") and "--quick" in d["command"].split()
    m = d["machine"]
    assert {"platform", "python", "cpu_model", "logical_cpus", "pinned_cpu", "packages"} <= set(m)
    assert m["packages"]["pettingzoo"]
    assert d["peak_rss_kib"] > 0


def test_every_available_game_at_its_default_player_count(quick_run):
    ours = {e["name"]: e for e in quick_run["ours"]}
    skipped = {s["name"] for s in quick_run["skipped"]}
    assert "siantappo" in ours  # complete game: must always be measured
    for game in GAME_MODULES:
        assert game in ours or game in skipped
    for game, e in ours.items():
        assert e["kind"] == "ours" and e["players"] == DEFAULT_PLAYERS[game]
        assert not e.get("errors"), e.get("errors")
        _check_section(e["sections"]["engine"], "moves")
        _check_section(e["sections"]["raw"], "steps")
        _check_section(e["sections"]["wrapped"], "steps")
        assert e["sections"]["raw"]["episodes"] >= 1 or e["sections"]["engine"]["episodes"] >= 1
        assert e["wrapper_share"] < 1  # 1 - wrapped/raw; may dip below 0 in noise
        t = e["targets"]
        assert t["engine"]["target"] == schema.TARGETS[game][0] and isinstance(t["engine"]["met"], bool)
        assert t["raw"]["target"] == schema.TARGETS[game][1] and isinstance(t["raw"]["met"], bool)


def test_floor(quick_run):
    f = quick_run["floor"]
    assert f["kind"] == "floor"
    _check_section(f["sections"]["raw"], "steps")
    _check_section(f["sections"]["wrapped"], "steps")
    assert f["wrapper_us_per_step"] is not None


def test_references_measured_or_skipped(quick_run):
    measured = {e["name"]: e for e in quick_run["references"]}
    skipped = {s["name"]: s["reason"] for s in quick_run["skipped"]}
    for ref in references.REFERENCES:
        assert ref.name in measured or ref.name in skipped
    for e in measured.values():
        assert e["kind"] == "reference"
        assert not e.get("errors"), e.get("errors")
        _check_section(e["sections"][e["primary"]], "steps")
    # one ratio per (our entry, measured reference), plus the geometric mean
    ratios = quick_run["ratios"]
    for e in quick_run["ours"]:
        row = ratios[f"{e['name']} {e['players']}p"]
        assert set(row) == {r["short"] for r in quick_run["references"]} | {"geomean"}
        if measured:
            assert row["geomean"] > 0
    for name, reason in skipped.items():  # a reference not measured names the library it lacks
        if name in {r.name for r in references.REFERENCES}:
            assert "not importable" in reason and "install the bench extra" in reason, reason


def test_a_measured_reference_gets_its_ratios(tmp_path, monkeypatch, capsys):
    """The measured path of a reference, whatever the bench extra's libraries this machine has: one
    of our own envs stands in as a reference (the ratio of Suipi to itself, measured twice)."""
    from cardzoo.benchmarks.timing import aec_player
    from cardzoo.envs import suipi_v0

    stand_in = references.Reference(
        "selftest/suipi",
        2,
        "pettingzoo",
        {"raw": lambda seed: lambda: aec_player(suipi_v0.raw_env, seed)},
        short="self",
    )
    monkeypatch.setattr("cardzoo.scripts.bench_cmd.REFERENCES", [stand_in])
    out = tmp_path / "b.json"
    assert main(["bench", "suipi", "--quick", "--no-floor", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    (ref,) = data["references"]
    assert ref["name"] == "selftest/suipi" and not ref.get("errors")
    _check_section(ref["sections"]["raw"], "steps")
    row = data["ratios"]["suipi 2p"]
    assert set(row) == {"self", "geomean"} and row["self"] > 0 and row["geomean"] == pytest.approx(row["self"])
    assert "self" in capsys.readouterr().out  # the ratio table names it


def test_profiles(quick_run):
    profs = quick_run["profiles"]
    games = {e["name"] for e in quick_run["ours"]}
    assert {(p["game"], p["loop"]) for p in profs} == {(g, loop) for g in games for loop in ("raw", "wrapped")}
    for p in profs:
        assert p["steps"] > 0 and p["top"]
        assert abs(sum(p["areas"].values()) - 1) < 0.01
        assert {"function", "ncalls", "per_step", "tottime_s", "cumtime_s", "share"} <= set(p["top"][0])


def test_hook_breakdown(quick_run):
    games = {e["name"] for e in quick_run["ours"]}
    assert {b["game"] for b in quick_run["hook_breakdown"]} == games
    for b in quick_run["hook_breakdown"]:
        assert b["steps"] > 0
        assert set(b["us"]) == {"encode", "legal_actions", "apply", "acting_seat", "rest"}
        assert sum(b["us"].values()) == pytest.approx(b["us_per_step"], rel=0.05)


def test_what_the_run_printed_is_rendered_from_its_json(quick_run, capsys):
    """`bench --show FILE` prints again, from the JSON alone, the tables the run printed (so the docs,
    rendered from a kept JSON, are what the command printed), then README's section."""
    assert main(["bench", "--show", quick_run["_path"]]) == 0
    shown = capsys.readouterr().out
    report, readme = shown.split("\nREADME.md's speed section:\n\n")
    assert quick_run["_printed"] == report + f"\nwrote {quick_run['_path']}\n"
    assert "Findings from this run:" in report and "### Our games" in report
    assert readme.startswith("| game | players | engine moves/s |")


@pytest.mark.parametrize(
    "kept", ["docs/benchmarks-train.json", "docs/benchmarks-agents.json", "docs/benchmarks-vector.json"]
)
def test_show_prints_the_kept_training_and_agent_results(kept, capsys):
    assert main(["bench", "--show", kept]) == 0
    assert capsys.readouterr().out.lstrip().startswith("|")


def test_a_damaged_result_is_one_line(tmp_path, capsys):
    (tmp_path / "b.json").write_text('{"schema": "cardzoo-bench/1"}')
    assert main(["bench", "--show", str(tmp_path / "b.json")]) == 2
    assert "is a damaged cardzoo bench result" in capsys.readouterr().err


def test_affinity_restored(quick_run):
    if quick_run["_affinity_before"] is not None:
        assert os.sched_getaffinity(0) == quick_run["_affinity_before"]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["bench", "nosuchgame", "--quick"], "unknown game"),
        (["bench", "siantappo", "--players", "2", "--quick"], "supports 3, 4, 5, 6 players"),
        (["bench", "siantappo", "--players", "x", "--quick"], "comma-separated"),
        (["bench", "siantappo", "--runs", "0"], "--runs"),
        (["bench", "--show", "no-such-bench.json"], "--show: cannot read no-such-bench.json"),
        (["bench", "--show", "models/suipi-2p.json"], "is not a result of cardzoo bench --json"),  # as found: KeyError
    ],
)
def test_bad_input_is_one_clear_line(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_ratios_and_wrapper_share_arithmetic():
    def entry(kind, name, raw, wrapped=None):
        e = schema.Entry(kind, name, 2, short=name)
        e.sections["raw"] = schema.Section("raw", "steps", [raw], 1, 1, 1, 1.0)
        if wrapped:
            e.sections["wrapped"] = schema.Section("wrapped", "steps", [wrapped], 1, 1, 1, 1.0)
        return e

    ours = entry("ours", "g", 20_000, 10_000)
    assert ours.wrapper_share() == pytest.approx(0.5)
    table = schema.ratios([ours], [entry("reference", "a", 10_000), entry("reference", "b", 40_000)])
    assert table["g 2p"] == {"a": 2.0, "b": 0.5, "geomean": 1.0}


def test_bench_train_quick_measures_every_trainer(tmp_path, capsys):
    from cardzoo.scripts.cli import main

    out = tmp_path / "train.json"
    assert main(["bench", "--train", "--quick", "siantappo", "--workers", "0", "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    rows = {(r["game"], r["algo"]): r for r in result["train"]}
    assert set(rows) == {("siantappo", algo) for algo in ("ppo", "sb3", "example", "dmc")}
    assert all(r["decisions_per_s"] > 0 and r["decisions"] >= 1000 for r in rows.values())
    assert result["ratios"][0]["example_over_sb3"] == round(
        rows["siantappo", "example"]["decisions_per_s"] / rows["siantappo", "sb3"]["decisions_per_s"], 2
    )
    dmc = rows["siantappo", "dmc"]
    assert dmc["samples"] >= 1000 and dmc["decisions"] > dmc["samples"] and dmc["learn_s"] > 0
    assert result["ratios"][0]["ppo_over_sb3"] > 0 and result["ratios"][0]["dmc_over_ppo"] > 0
    assert result["peak_memory_mib"] > 0
    printed = capsys.readouterr().out
    assert "| siantappo | 4 | SB3 MaskablePPO (cardzoo.vector tables) |" in printed
    assert "| siantappo | 4 | examples/ppo_vector.py (cardzoo.vector) |" in printed
    assert "| siantappo | 4 | cardzoo DMC (0 workers) |" in printed


def test_bench_train_runs_alternate_and_give_the_median_ratio(tmp_path, capsys):
    from cardzoo.scripts.cli import main

    out = tmp_path / "train.json"
    assert main(["bench", "--train", "--quick", "siantappo", "--workers", "0", "--runs", "2", "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    runs = sorted((r["algo"], r.get("run")) for r in result["train"])
    assert runs == [("dmc", 1), ("dmc", 2), ("example", None), ("ppo", 1), ("ppo", 2), ("sb3", None)]
    by = {(r["algo"], r.get("run")): r["decisions_per_s"] for r in result["train"]}
    ratio = result["ratios"][0]
    each = [by["dmc", k] / by["ppo", k] for k in (1, 2)]
    assert ratio["dmc_over_ppo_runs"] == [round(x, 2) for x in each]
    assert ratio["dmc_over_ppo"] == round(sum(each) / 2, 2)  # the median of two
    assert "cardzoo DMC (0 workers), run 2 |" in capsys.readouterr().out
    assert "--runs 2" in result["command"]
    assert main(["bench", "--train", "--quick", "--runs", "0"]) == 2


def _bench_json(path, raw_runs):
    report = {"ours": [{"short": "siantappo 4p", "sections": {"raw": {"runs": raw_runs}}}]}
    path.write_text(json.dumps(report))
    return str(path)


def test_compare_pools_every_run_of_each_side(tmp_path):
    from cardzoo.benchmarks.compare import comparison_table

    before = [_bench_json(tmp_path / "b1.json", [10.0, 30.0]), _bench_json(tmp_path / "b2.json", [20.0])]
    after = [_bench_json(tmp_path / "a1.json", [25.0, 35.0, 30.0])]
    row = comparison_table(before, after).splitlines()[-1]
    assert row == "| siantappo 4p | raw | 20 (3 runs) | 30 (3 runs) | 1.50 |"


def test_bench_compare_prints_the_pooled_table(tmp_path, capsys):
    before = [_bench_json(tmp_path / "b1.json", [10.0, 30.0]), _bench_json(tmp_path / "b2.json", [20.0])]
    after = [_bench_json(tmp_path / "a1.json", [25.0, 35.0, 30.0])]
    assert main(["bench-compare", "--before", *before, "--after", *after]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("| game | section |")
    assert out[-1] == "| siantappo 4p | raw | 20 (3 runs) | 30 (3 runs) | 1.50 |"


def test_compare_rejects_a_file_that_is_not_bench_output(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    assert main(["bench-compare", "--before", str(bad), "--after", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cardzoo bench-compare: error: ")
    assert "not a result of `cardzoo bench --json` over the engines" in err
    assert err.count("\n") == 1


def test_an_rllib_row_that_cannot_load_rllib_stops_the_ray_it_started(monkeypatch):
    """Ray core without RLlib (the dev install): `bench --train` skips the RLlib rows, and the local
    Ray started for them is shut down again (it used to keep running, on the CPUs the rest of the
    bench measures)."""
    ray = pytest.importorskip("ray")
    from cardzoo.benchmarks.training_speed import bench_rllib
    from cardzoo.training.integrations import rllib_train

    def no_rllib(settings):
        raise ImportError("No module named 'tree'")

    monkeypatch.setattr(rllib_train, "ppo_config", no_rllib)
    assert not ray.is_initialized()
    assert bench_rllib("siantappo", 4, 100, 1) is None
    assert not ray.is_initialized()


# ------------------------------------------------------------------ issue 57: probes of `cardzoo bench`
def _stand_in_reference():
    from cardzoo.benchmarks.timing import aec_player
    from cardzoo.envs import suipi_v0

    return references.Reference(
        "selftest/suipi",
        2,
        "pettingzoo",
        {"raw": lambda seed: lambda: aec_player(suipi_v0.raw_env, seed)},
        short="self",
    )


@pytest.mark.parametrize("extra", [[], ["--agents", "rules"]])
def test_a_player_count_no_game_has_is_refused_before_measuring(extra, monkeypatch, capsys):
    """As found: `bench --players 9` measured the references, then `min() arg is an empty sequence`
    (with --agents: an empty table and exit 0)."""
    monkeypatch.setattr("cardzoo.scripts.bench_cmd.REFERENCES", [_stand_in_reference()])
    assert main(["bench", "--players", "9", "--quick", "--no-floor", *extra]) == 2
    captured = capsys.readouterr()
    assert "measuring" not in captured.err and captured.out == ""
    assert captured.err == (
        "cardzoo bench: error: --players 9: no game measured here is played by that many "
        "(siantappo 3, 4, 5, 6; suipi 2, 4; samsip 2, 3, 4, 5, 6)\n"
    )


@pytest.mark.parametrize(
    "argv, message",
    [
        (["bench", "--quick", "--seconds", "nan"], "--seconds must be > 0"),
        (["bench", "--quick", "--warmup", "inf"], "--warmup must be >= 0 and at most 3600 seconds"),
        (["bench", "--quick", "--runs", str(10**30)], "--runs must be 1..1,000"),
        (["bench", "--agents", "rules", "--matches", "0"], "--matches must be 1..10,000"),
    ],
)
def test_bench_numbers_out_of_bounds_are_one_line(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc, where no file can be made")
def test_bench_checks_its_json_output_before_measuring(capsys):
    assert main(["bench", "suipi", "--quick", "--no-reference", "--no-floor", "--json", "/proc/b.json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "--json /proc/b.json: cannot write there" in captured.err


def _fake_row(algo):
    def measure(game, players, *args, **kwargs):
        return {
            "game": game,
            "players": players,
            "algo": algo,
            "workers": 0,
            "decisions": 1000,
            "seconds": 1.0,
            "decisions_per_s": 1000.0,
            **({"samples": 500, "samples_per_s": 500.0, "wait_s": 0.5, "learn_s": 0.5} if algo == "dmc" else {}),
        }

    return measure


def test_one_failing_row_of_bench_train_loses_no_other(tmp_path, monkeypatch, capsys):
    """As found: the RLlib row died on another Ray instance ("When connecting to an existing cluster,
    num_cpus and num_gpus must not be provided") and took the rows already measured with it."""
    from cardzoo.benchmarks import training_speed

    def rllib_fails(game, players, decisions, env_runners):
        raise ValueError("When connecting to an existing cluster, num_cpus and num_gpus must not be provided")

    def dmc_fails(*args, **kwargs):
        raise RuntimeError("a worker died")

    for algo in ("ppo", "sb3", "example"):
        monkeypatch.setattr(training_speed, f"bench_{algo}", _fake_row(algo))
    monkeypatch.setattr(training_speed, "bench_dmc", dmc_fails)
    monkeypatch.setattr(training_speed, "bench_rllib", rllib_fails)
    out = tmp_path / "train.json"
    assert main(["bench", "--train", "siantappo", "suipi", "--workers", "0", "--json", str(out)]) == 1
    rows = json.loads(out.read_text())["train"]
    assert [(r["game"], r["algo"], "error" in r) for r in rows] == [
        (game, algo, failed)
        for game in ("siantappo", "suipi")
        for algo, failed in (
            ("ppo", False),
            ("sb3", False),
            ("example", False),
            ("dmc", True),
            ("rllib", True),
            ("rllib", True),
        )
    ]
    assert rows[3]["error"] == "RuntimeError: a worker died"
    assert rows[4]["error"].startswith("ValueError: When connecting to an existing cluster")
    ratios = json.loads(out.read_text())["ratios"]
    assert [set(r) for r in ratios] == [{"game", "players", "ppo_over_sb3", "example_over_sb3"}] * 2
    captured = capsys.readouterr()
    failed = "| siantappo | 4 | cardzoo DMC (0 workers) | failed: RuntimeError: a worker died | – | – | – |"
    assert failed in captured.out
    assert "6 row(s) failed" in captured.err and "the others were measured and kept" in captured.err


def test_a_local_ray_is_started_here_whatever_cluster_the_machine_knows(monkeypatch):
    """`start_ray("local", ...)` asks Ray for a new local instance by name: without it, a cluster
    named by RAY_ADDRESS or left by `ray start` is joined, and the CPU count is refused."""
    ray = pytest.importorskip("ray")
    from cardzoo.training.integrations.rllib_train import start_ray

    calls = []
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", lambda **kwargs: calls.append(kwargs))
    start_ray("local", 1)
    assert calls[0]["address"] == "local" and calls[0]["num_cpus"] == 2


@pytest.mark.slow
def test_a_local_ray_starts_even_where_ray_address_names_another_cluster(monkeypatch):
    ray = pytest.importorskip("ray")
    from cardzoo.training.integrations.rllib_train import start_ray

    monkeypatch.setenv("RAY_ADDRESS", "127.0.0.1:1")  # nothing there: joining it would fail
    assert not ray.is_initialized()
    try:
        start_ray("local", 1)
        assert ray.is_initialized() and ray.cluster_resources().get("CPU") == 2
    finally:
        ray.shutdown()


def test_bench_vector_measures_the_vector_api_beside_the_raw_aec_loop(tmp_path, capsys):
    """`bench --vector --json`: rows under "vector" with game, players, tables, decisions_per_s and
    ratio_to_raw_aec, each divided by the raw loop of the same run; `--show` prints the table again."""
    from cardzoo.benchmarks.vector import APIS, TABLES

    out = tmp_path / "v.json"
    assert main(["bench", "--vector", "samsip", "--players", "3", "--quick", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    result = json.loads(out.read_text())
    rows = result["vector"]
    raw = next(r for r in rows if r["api"] == "raw_aec")
    assert {(r["api"], r["tables"]) for r in rows if r is not raw} == {(a, t) for a in APIS for t in TABLES}
    for r in rows:
        assert r["game"] == "samsip" and r["players"] == 3 and r["decisions_per_s"] > 0
        assert r["ratio_to_raw_aec"] == pytest.approx(r["decisions_per_s"] / raw["decisions_per_s"], rel=1e-2)
    assert result["command"] == f"cardzoo bench --vector samsip --players 3 --quick --json {out}"
    assert main(["bench", "--show", str(out)]) == 0
    assert capsys.readouterr().out.strip() in printed


def test_the_collector_and_its_vector_client_collect_the_same_kind_of_work(capsys):
    """`python -m cardzoo.benchmarks.collector_vs_vector` (docs/own-trainer.md's measurement of PPO's
    collector as a client of cardzoo.vector): both sides run and the ratio is theirs."""
    import re

    from cardzoo.benchmarks.collector_vs_vector import main

    main(["siantappo", "3", "--runs", "1", "--samples", "200"])
    out = capsys.readouterr().out
    run = re.search(r"run 1: collector ([\d,]+), SelfPlay client ([\d,]+) decisions per CPU second: ([\d.]+)x", out)
    assert run, out
    ours, client = (float(run[k].replace(",", "")) for k in (1, 2))
    assert ours > 0 and client > 0 and float(run[3]) == pytest.approx(client / ours, abs=0.006)
    assert f"siantappo 3p: the client / the collector = {run[3]}x (median)" in out
