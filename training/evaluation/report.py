"""Shows a tournament's statistics (the dict of ``summary.summarize``): rich tables on the console
(``print_report``), the full report as JSON (``write_json``), one row per agent as CSV
(``write_csv``), a PNG of ratings or mean rewards with their 95% intervals (``write_plot``) and, for
the docs, a field's ladder as a markdown table (``render_ladder``; tests/test_docs.py renders the kept
``docs/baselines/ladder-*.json`` reports again and finds the tables in the game pages).
"""

from __future__ import annotations

import csv
import json
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from rich.console import JustifyMethod

CSV_FIELDS = (
    "game",
    "players",
    "agent",
    "spec",
    "games",
    "mean_reward",
    "reward_ci_low",
    "reward_ci_high",
    "wins",
    "win_rate",
    "win_ci_low",
    "win_ci_high",
    "rating",
    "rating_ci_low",
    "rating_ci_high",
)


def _fmt(x, spec="+.3f") -> str:
    return "—" if x is None else format(x, spec)


def _ci(lohi, spec="+.3f") -> str:
    lo, hi = lohi
    return "" if lo is None or hi is None else f"[{format(lo, spec)}, {format(hi, spec)}]"


# ------------------------------------------------------------------ console
def print_report(report: dict, console=None) -> None:
    """Print the result tables with rich."""
    from rich.console import Console

    console = console or Console()
    console.print(_entrant_table(report))
    if report["pairs"] and len(report["pairs"]) <= 28:
        console.print(_pairs_table(report))
    has_rating = report["ratings"] is not None
    notes = [f"win = {report['win_rule']}"]
    if has_rating:
        notes.append(f"ratings: Bradley–Terry on the Elo scale, {report['ratings']['anchor']} = 0")
    console.print("; ".join(notes) + f"; {report['seconds']:.1f} s", style="dim")


def _entrant_table(report: dict):
    """One row per agent: games, mean reward, win rate and (field of >= 3) rating, with intervals."""
    from rich.table import Table

    g, n = report["game"], report["players"]
    title = (
        f"{g}, {n} players — {report['games_played']} games "
        f"({report['deals']} deals x {report['games_per_deal']} seatings), seed {report['seed']}"
    )
    if report["interrupted"]:
        title += f" — INTERRUPTED after {report['games_played']} of {report['games_planned']} games"
    t = Table(title=title, title_justify="left")
    t.add_column("agent", no_wrap=True)
    t.add_column("games", justify="right", no_wrap=True)
    t.add_column("mean reward [95% CI]", justify="right", no_wrap=True)
    t.add_column("win rate [95% CI]", justify="right", no_wrap=True)
    has_rating = report["ratings"] is not None
    if has_rating:
        t.add_column("rating [95% CI]", justify="right", no_wrap=True)
    anchor = report["ratings"]["anchor"] if has_rating else None
    for ent in report["entrants"]:
        row = [
            ent["name"],
            str(ent["games"]),
            f"{_fmt(ent['mean_reward'], '+.2f')} {_ci(ent['reward_ci'], '+.2f')}",
            f"{_fmt(ent['win_rate'], '.0%')} {_ci(ent['win_ci'], '.0%')}",
        ]
        if has_rating:
            if ent["name"] == anchor:
                row.append("0 (anchor)")
            else:
                row.append(f"{_fmt(ent.get('rating'), '+.0f')} {_ci(ent.get('rating_ci', (None, None)), '+.0f')}")
        t.add_row(*row)
    return t


def _pairs_table(report: dict):
    """Head to head: every pair of agents over the games both played."""
    from rich.table import Table

    p = Table(title="head to head (games both played)", title_justify="left")
    columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("a", "left"),
        ("b", "left"),
        ("games", "right"),
        ("a − b reward [95% CI]", "right"),
    )
    adjusted = bool(report["pairs"]) and all("adjusted_advantage" in pr for pr in report["pairs"])
    if adjusted:
        columns += (("luck-adjusted [95% CI]", "right"),)
    columns += (("a ahead", "right"),)
    for col, just in columns:
        p.add_column(col, justify=just, no_wrap=True)
    for pr in report["pairs"]:
        cells = [
            pr["a"],
            pr["b"],
            str(pr["games"]),
            f"{_fmt(pr['advantage'], '+.2f')} {_ci(pr['advantage_ci'], '+.2f')}",
        ]
        if adjusted:
            cells.append(f"{_fmt(pr['adjusted_advantage'], '+.2f')} {_ci(pr['adjusted_advantage_ci'], '+.2f')}")
        p.add_row(*cells, _fmt(pr["a_score"], ".0%"))
    return p


# ------------------------------------------------------------------ docs
def render_ladder(report: dict) -> str:
    """A field's ladder as a markdown table, from its ``--json`` report alone: the entrants by
    Bradley–Terry rating, highest first (Elo scale, 95% bootstrap interval; the anchor, ``random``
    where it plays, is 0 by definition), then mean reward per match and win rate with their 95%
    intervals and the games each played."""
    if report["ratings"] is None:
        raise ValueError("a ladder needs ratings: a field of 3 or more entrants (--agents)")
    anchor = report["ratings"]["anchor"]

    def cell(text: str, lohi, spec: str, unit: str = "") -> str:
        lo, hi = lohi or (None, None)
        return text if lo is None or hi is None else f"{text} [{lo:{spec}}{unit}, {hi:{spec}}{unit}]"

    rows = [
        "| agent | rating [95% CI] | mean reward per match [95% CI] | win rate [95% CI] | games |",
        "|---|---:|---:|---:|---:|",
    ]
    for ent in sorted(report["entrants"], key=lambda e: -e["rating"]):
        rating = "0 (anchor)" if ent["name"] == anchor else cell(f"{ent['rating']:+.0f}", ent.get("rating_ci"), "+.0f")
        reward = cell(f"{ent['mean_reward']:+.2f}", ent["reward_ci"], "+.2f")
        win = cell(f"{100 * ent['win_rate']:.1f}%", [100 * x for x in ent["win_ci"]], ".1f", "%")
        rows.append(f"| {ent['name']} | {rating} | {reward} | {win} | {ent['games']} |")
    return "\n".join(rows)


# ------------------------------------------------------------------ files
def print_sprt(sprt: dict) -> None:
    """One line: which hypothesis the SPRT accepted after how many games."""
    lo, hi = sprt["bounds"]
    print(
        f"SPRT [{sprt['adv0']:+g}, {sprt['adv1']:+g}] alpha {sprt['alpha']:g} beta {sprt['beta']:g}: "
        f"{sprt['verdict']} after {sprt['games']} games ({sprt['deals']} deals); "
        f"LLR {sprt['llr']:+.3g} in [{lo:.2f}, {hi:.2f}]"
    )


def write_json(report: dict, path: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=2, ensure_ascii=False)
        f.write("\n")


def write_csv(report: dict, path: str) -> None:
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(CSV_FIELDS)
        for ent in report["entrants"]:
            rci = ent.get("rating_ci") or (None, None)
            row = [
                report["game"],
                report["players"],
                ent["name"],
                ent["spec"],
                ent["games"],
                ent["mean_reward"],
                *ent["reward_ci"],
                ent["wins"],
                ent["win_rate"],
                *ent["win_ci"],
                ent.get("rating"),
                *rci,
            ]
            w.writerow(["" if x is None else x for x in row])


def write_plot(report: dict, path: str) -> None:
    """PNG: ratings with 95% intervals (field of >= 3), else mean reward with 95% intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ents = report["entrants"]
    names = [e["name"] for e in ents]
    if report["ratings"] is not None:
        key, ci_key = "rating", "rating_ci"
        label = f"Bradley–Terry rating (Elo scale, {report['ratings']['anchor']} = 0)"
    else:
        key, ci_key = "mean_reward", "reward_ci"
        label = "mean reward per game"
    vals = np.array([np.nan if e.get(key) is None else e[key] for e in ents], dtype=float)
    lo = np.array([np.nan if e[ci_key][0] is None else e[ci_key][0] for e in ents], dtype=float)
    hi = np.array([np.nan if e[ci_key][1] is None else e[ci_key][1] for e in ents], dtype=float)
    err = np.vstack([np.nan_to_num(vals - lo), np.nan_to_num(hi - vals)]).clip(min=0)
    fig, ax = plt.subplots(figsize=(max(4.0, 1.1 * len(names) + 2), 3.6), dpi=120)
    x = np.arange(len(names))
    ax.bar(x, np.nan_to_num(vals), color="#4c78a8", alpha=0.8)
    ax.errorbar(x, np.nan_to_num(vals), yerr=err, fmt="none", ecolor="black", capsize=5, lw=1.2)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xticks(x, names, rotation=20 if len(names) > 4 else 0)
    ax.set_ylabel(label)
    ax.set_title(
        f"{report['game']}, {report['players']} players, {report['games_played']} games (95% intervals)", fontsize=10
    )
    fig.tight_layout()
    fig.savefig(path, format="png")  # PNG whatever the file name says
    plt.close(fig)
