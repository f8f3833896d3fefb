"""What ``cardzoo bench`` prints, rendered from its ``--json`` result alone (schema ``cardzoo-bench/1``).

The command prints ``render_report`` of the result it writes, and the docs paste parts of the kept
result, docs/benchmarks-env.json: ``render_summary`` (docs/benchmarks.md's tables), ``findings``
(its figures in prose) and ``readme_speed`` (README's speed section); tests/test_docs.py renders
them again from the JSON and compares.
"""

from __future__ import annotations

import statistics

HOOKS = ("encode", "legal_actions", "apply", "acting_seat", "rest")


def fmt_rate(x: float | None) -> str:
    if x is None:
        return "–"
    if x >= 1e6:
        return f"{x / 1e6:.2f}M"
    if x >= 1e4:
        return f"{x / 1e3:.0f}k"
    if x >= 1e3:
        return f"{x / 1e3:.1f}k"
    return f"{x:.0f}" if x >= 10 else f"{x:.2f}"


def rate(entry: dict, section: str) -> float | None:
    """The median rate of one section of an entry, None where it did not run."""
    s = entry["sections"].get(section)
    return s["median"] if s and s["runs"] else None


def _section(entry: dict, name: str) -> str:
    s = entry["sections"].get(name)
    if s is None or not s["runs"]:
        return "error" if name in entry.get("errors", {}) else "–"
    text = fmt_rate(s["median"])
    if len(s["runs"]) > 1:
        text += f" ({fmt_rate(s['min'])}–{fmt_rate(s['max'])})"
    return text


def _per_game(entry: dict, section: str, key: str) -> str:
    s = entry["sections"].get(section)
    return fmt_rate(s[key] if s else None)


def _wrap(entry: dict) -> str:
    share, us = entry.get("wrapper_share"), entry.get("wrapper_us_per_step")
    return "–" if share is None else f"{share * 100:.0f}% ({us:.0f}µs)"


def _mem(entry: dict) -> str:
    peaks = [s["py_peak_kib"] for s in entry["sections"].values() if s.get("py_peak_kib") is not None]
    return f"{max(peaks):.0f}" if peaks else "–"


def _target_mark(entry: dict) -> str:
    targets = entry.get("targets")
    if not targets:
        return ""
    return " / ".join(
        f"{fmt_rate(t['target'])} {'?' if t['met'] is None else ('ok' if t['met'] else 'MISS')}"
        for t in (targets["engine"], targets["raw"])
    )


def _table(headers: list[str], rows: list[list[str]], align: str | None = None) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    align = align or "l" + "r" * (len(headers) - 1)

    def line(cells):
        return "| " + " | ".join(c.ljust(w) if a == "l" else c.rjust(w) for c, w, a in zip(cells, widths, align)) + " |"

    sep = "|" + "|".join(("-" * (w + 1) + ":") if a == "r" else ("-" * (w + 2)) for w, a in zip(widths, align)) + "|"
    return "\n".join([line(headers), sep] + [line(r) for r in rows])


def _errors(entries: list[dict]) -> list[str]:
    errs = [f"  {e['name']} {e['players']}p {sec}: {msg}" for e in entries for sec, msg in e.get("errors", {}).items()]
    return ["errors:\n" + "\n".join(errs)] if errs else []


def _header(result: dict) -> list[str]:
    m, s = result["machine"], result["settings"]
    commit = f" at commit {m['git_commit']}" if m.get("git_commit") else ""
    parts = [
        (
            f"`{result['command']}`{commit}, {result['created'][:10]}: {m['cpu_model']}, Python {m['python']}, "
            f"pinned CPU {m['pinned_cpu']}, {s['runs']} run(s) × {s['seconds']:g}s (+{s['warmup']:g}s warm-up) per "
            f"section; median (min–max) per {'CPU' if s['clock'] == 'cpu' else 'wall-clock'} second; "
            f"{result['elapsed_s']:.0f}s in all"
        )
    ]
    shares = [
        sec["cpu_share"]
        for e in [*result["ours"], *result["references"]]
        for sec in e["sections"].values()
        if sec.get("cpu_share")
    ]
    if shares:
        load = f", load average at start {m['loadavg_1m_at_start']}" if "loadavg_1m_at_start" in m else ""
        parts.append(
            f"CPU share of the timed runs (1.00 = the core was ours alone): "
            f"median {statistics.median(shares):.2f}, min {min(shares):.2f}{load}"
        )
    return parts


def _ours(result: dict) -> list[str]:
    ours = result["ours"]
    if not ours:
        return []
    rows = [
        [
            e["name"],
            str(e["players"]),
            _section(e, "engine"),
            _section(e, "raw"),
            _section(e, "wrapped"),
            _wrap(e),
            _per_game(e, "engine", "games_per_s"),
            _per_game(e, "raw", "games_per_s"),
            "–"
            if not e["sections"].get("raw") or e["sections"]["raw"]["steps_per_game"] is None
            else f"{e['sections']['raw']['steps_per_game']:.0f}",
            _mem(e),
            _target_mark(e),
        ]
        for e in ours
    ]
    table = _table(
        [
            "game",
            "players",
            "engine moves/s",
            "raw AEC steps/s",
            "env() steps/s",
            "wrappers",
            "games/s engine",
            "games/s raw",
            "steps/game",
            "py peak KiB",
            "targets engine / raw",
        ],
        rows,
        "lrrrrrrrrrl",
    )
    missed = [
        f"{e['name']} {e['players']}p {sec}"
        for e in ours
        for sec, t in e.get("targets", {}).items()
        if t["met"] is False
    ]
    verdict = ("missed: " + ", ".join(missed)) if missed else "all met at every player count measured"
    targets = ", ".join(
        dict.fromkeys(
            f"{e['name']} {fmt_rate(e['targets']['engine']['target'])} / {fmt_rate(e['targets']['raw']['target'])}"
            for e in ours
            if e.get("targets")
        )
    )
    return [
        "\n### Our games (random legal play, one core)\n",
        table,
        *_errors(ours),
        f"\nTargets, engine moves/s / raw AEC steps/s: {targets} — {verdict}.",
    ]


def _floor_rates(result: dict) -> tuple[dict, float, float] | None:
    """The null game's entry and its raw and wrapped rates; None where it was not measured."""
    floor = result.get("floor")
    if not floor:
        return None
    raw, wrapped = rate(floor, "raw"), rate(floor, "wrapped")
    return (floor, raw, wrapped) if raw and wrapped else None


def _floor(result: dict) -> list[str]:
    measured = _floor_rates(result)
    if measured is None:
        return []
    floor, raw, wrapped = measured
    return [
        "\n### Floor\n",
        (
            f"A null game through the same loops (envs/base.py + PettingZoo + loop, hooks ~0): "
            f"raw {_section(floor, 'raw')} steps/s ({1e6 / raw:.1f} µs/step), "
            f"env() {_section(floor, 'wrapped')} steps/s ({1e6 / wrapped:.1f} µs/step); wrappers {_wrap(floor)}"
        ),
    ]


def _references(result: dict) -> list[str]:
    refs = result["references"]
    if not refs:
        return []
    rows = [
        [
            e["name"],
            str(e["players"]),
            _section(e, "raw"),
            _section(e, "wrapped"),
            _wrap(e),
            _per_game(e, "raw", "games_per_s"),
            "–"
            if not e["sections"].get("raw") or e["sections"]["raw"]["steps_per_game"] is None
            else f"{e['sections']['raw']['steps_per_game']:.0f}",
            _mem(e),
        ]
        for e in refs
    ]
    parts = [
        "\n### Reference environments (same loop)\n",
        _table(
            [
                "reference",
                "players",
                "raw steps/s",
                "env() steps/s",
                "wrappers",
                "games/s",
                "steps/game",
                "py peak KiB",
            ],
            rows,
        ),
        *_errors(refs),
    ]
    if result["ours"]:
        heads = [e["short"] for e in refs] + ["geomean"]
        rows = [
            [label] + ["–" if row.get(h) is None else f"{row[h]:.1f}×" for h in heads]
            for label, row in result["ratios"].items()
        ]
        parts += ["\n### Ratio: our raw AEC steps/s ÷ reference raw steps/s\n", _table(["ours"] + heads, rows)]
    return parts


def _hooks(result: dict) -> list[str]:
    breakdowns = result.get("hook_breakdown") or []
    if not breakdowns:
        return []
    rows = [
        [f"{b['game']} {b['players']}p", f"{b['us_per_step']}"] + [f"{b['us'].get(k, 0):.1f}" for k in HOOKS]
        for b in breakdowns
    ]
    return [
        "\n### Per game hook (raw AEC loop, default player count)\n",
        (
            "µs per step by game hook (timers, no profiler; *rest* = envs/base.py + PettingZoo AECEnv + mask + "
            "random choice)\n"
        ),
        _table(["game", "µs/step", *HOOKS], rows),
    ]


def render_summary(result: dict) -> str:
    """Every table of a bench run (docs/benchmarks.md pastes it): header, our games, floor,
    references and ratios, hook timings; the cProfile listings are left to ``render_report``."""
    skipped = result.get("skipped") or []
    skip = ["\nskipped: " + "; ".join(f"{s['name']} ({s['reason']})" for s in skipped)] if skipped else []
    return "\n".join([*_header(result), *_ours(result), *_floor(result), *_references(result), *skip, *_hooks(result)])


def render_profiles(result: dict) -> str:
    parts = []
    for p in result.get("profiles") or []:
        parts.append(
            f"\nProfile: {p['game']} {p['players']}p, {p['loop']} AEC loop — {p['steps']} steps, "
            f"{p['us_per_step_profiled']} µs/step under cProfile"
        )
        parts.append("  by area: " + ", ".join(f"{k} {v * 100:.0f}%" for k, v in p["areas"].items() if v >= 0.005))
        parts.append(
            _table(
                ["function", "calls/step", "own s", "cum s", "share"],
                [
                    [
                        t["function"],
                        f"{t['per_step']}",
                        f"{t['tottime_s']:.3f}",
                        f"{t['cumtime_s']:.3f}",
                        f"{t['share'] * 100:.1f}%",
                    ]
                    for t in p["top"]
                ],
            )
        )
    return "\n".join(parts)


def render_report(result: dict) -> str:
    """What ``cardzoo bench`` prints: the tables, the findings, the cProfile listings."""
    profiles = render_profiles(result)
    return (
        render_summary(result)
        + "\n\nFindings from this run:\n\n"
        + findings(result)
        + ("\n" + profiles if profiles else "")
    )


def _span(values, spec: str = ".0f") -> str:
    lo, hi = format(min(values), spec), format(max(values), spec)
    return lo if lo == hi else f"{lo}–{hi}"


def wrapper_cost(result: dict) -> str:
    """PettingZoo's wrappers in our games, as one clause (findings and README quote it)."""
    ours = [e for e in result["ours"] if e.get("wrapper_share") is not None]
    return (
        f"{_span([e['wrapper_us_per_step'] for e in ours])} µs per step "
        f"({_span([100 * e['wrapper_share'] for e in ours])}% of `env()` time in our games"
    )


def findings(result: dict) -> str:
    """The run's figures in prose (docs/benchmarks.md's findings), from the JSON alone."""
    lines = [f"- **PettingZoo's wrappers** cost {wrapper_cost(result)})."]
    measured = _floor_rates(result)
    if measured is not None:
        floor, raw, wrapped = measured
        lines.append(
            f"- **The null game**: {1e6 / raw:.1f} µs/step raw, "
            f"{1e6 / wrapped:.1f} µs/step wrapped, {100 * floor['wrapper_share']:.0f}% of its "
            f"`env()` time in the wrappers: no `env()` runs faster than {fmt_rate(wrapped)} "
            f"steps/s on this machine."
        )
    refs = [e for e in result["references"] if e.get("wrapper_us_per_step") is not None]
    if refs:
        lines.append(
            f"- **PettingZoo's own classic envs** pay {_span([e['wrapper_us_per_step'] for e in refs])} "
            f"µs/step for the same wrappers ({', '.join(e['name'] for e in refs)})."
        )
    for b in result.get("hook_breakdown") or []:
        hooks = sorted(((k, v) for k, v in b["us"].items() if k != "rest"), key=lambda kv: -kv[1])
        lines.append(
            f"- **{b['game']} {b['players']}p**: {b['us_per_step']:.1f} µs per raw step; "
            + ", ".join(f"`{k}` {v:.1f} µs ({100 * v / b['us_per_step']:.0f}%)" for k, v in hooks)
            + f"; the rest {b['us']['rest']:.1f} µs ({100 * b['us']['rest'] / b['us_per_step']:.0f}%)."
        )
    return "\n".join(lines)


def readme_speed(result: dict) -> str:
    """README's speed table and its paragraph on the references, from the same JSON."""
    games: dict[str, list[dict]] = {}
    for e in result["ours"]:
        games.setdefault(e["name"], []).append(e)
    rows = [
        "| game | players | engine moves/s | raw AEC steps/s | wrapped env() steps/s | target engine / raw |",
        "|---|---|---|---|---|---|",
    ]
    for name, entries in games.items():
        cells = [" / ".join(fmt_rate(rate(e, sec)) for e in entries) for sec in ("engine", "raw", "wrapped")]
        t = entries[0].get("targets")
        target = f"{fmt_rate(t['engine']['target'])} / {fmt_rate(t['raw']['target'])}" if t else "–"
        rows.append(f"| {name} | {' / '.join(str(e['players']) for e in entries)} | {' | '.join(cells)} | {target} |")
    text = "\n".join(rows) + "\n\n"
    refs = [f"{e['name']} {fmt_rate(rate(e, e['primary']))}" for e in result["references"]]
    if refs:
        geo = [row["geomean"] for row in result["ratios"].values() if row.get("geomean")]
        text += (
            f"References in the same run (raw steps/s): {', '.join(refs)}. Our raw AEC loop is "
            f"{_span(geo, '.1f')}× the geometric mean of the references. "
        )
    floor = result.get("floor")
    ceiling = f", and a null game reaches only {fmt_rate(rate(floor, 'wrapped'))} steps/s through them" if floor else ""
    return text + f"PettingZoo's standard wrappers cost {wrapper_cost(result)}{ceiling})."


def render_agents(result: dict) -> str:
    """``cardzoo bench --agents``'s table: each agent's thinking time per real decision, and for a
    searcher how often it played another move than the model's first choice (of the decisions it
    searched: those with more than one complete move)."""
    rows = [
        "| game | players | agent | mean ms | p99 ms | real decisions | other move than the model's |",
        "|---|---:|---|---:|---:|---:|---:|",
    ]
    rows += [
        f"| {r['game']} | {r['players']} | {r['agent']} | {r['mean_ms']:.1f} | {r['p99_ms']:.1f} | "
        f"{r['decisions']} | {_departed(r)} |"
        for r in result["agents"]
    ]
    return "\n".join(rows)


def _departed(row: dict) -> str:
    if "searched" not in row:
        return "–"
    share = row["departed"] / row["searched"] if row["searched"] else 0.0
    return f"{share:.1%} ({row['departed']} of {row['searched']})"
