"""Compare `cardzoo bench --json` files of two code versions: pooled median per game and section.

A single bench run on a shared 2-core machine varies by ±30% from run to run, so a before/after
check alternates the two versions several times and pools every timed run of each side:

    git worktree add /tmp/before <old-commit>
    mkdir -p /tmp/before-pkg/cardzoo && cp /tmp/before/cardzoo/*.py /tmp/before-pkg/cardzoo/
    for d in envs training benchmarks scripts models; do [ -d /tmp/before/$d ] && ln -s /tmp/before/$d /tmp/before-pkg/cardzoo/$d; done
    PYTHONPATH=/tmp/before-pkg .venv/bin/python -c "import cardzoo.envs; print(cardzoo.envs.__file__)"
    for i in 1 2 3; do
      PYTHONPATH=/tmp/before-pkg .venv/bin/python -m cardzoo bench --players 4 --no-reference --no-floor --no-memory --json runs/before$i.json
      cardzoo bench --players 4 --no-reference --no-floor --no-memory --json runs/after$i.json
    done
    cardzoo bench-compare --before runs/before*.json --after runs/after*.json

The old version needs a ``cardzoo/`` folder of its own with its ``envs``, ``training``,
``scripts`` and ``models`` inside (the links above): the editable install maps ``cardzoo.envs``
and the others to this checkout's folders, so ``PYTHONPATH`` pointing at the old checkout itself
would import the new code for them (the check line must print a path under /tmp/before-pkg).
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

from cardzoo.envs.errors import UserError


def pooled_runs(paths: list[str]) -> dict[tuple[str, str], list[float]]:
    """(game label, section) -> every timed run's rate across the given bench JSON files."""
    pooled: dict[tuple[str, str], list[float]] = {}
    for path in paths:
        try:
            report = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            raise UserError(f"{path}: cannot read it ({err})") from None
        rows = report.get("ours") if isinstance(report, dict) else None
        if not isinstance(rows, list):
            raise UserError(f"{path}: not a result of `cardzoo bench --json` over the engines (it has no 'ours' rows)")
        for row in rows:
            for section, figures in row.get("sections", {}).items():
                if isinstance(figures, dict) and figures.get("runs"):
                    pooled.setdefault((row["short"], section), []).extend(figures["runs"])
    return pooled


def comparison_table(before: list[str], after: list[str]) -> str:
    old, new = pooled_runs(before), pooled_runs(after)
    lines = ["| game | section | before (median of runs) | after | after / before |",
             "|---|---|---:|---:|---:|"]
    for key in old:
        if key not in new:
            continue
        a, b = statistics.median(old[key]), statistics.median(new[key])
        lines.append(f"| {key[0]} | {key[1]} | {a:,.0f} ({len(old[key])} runs) | {b:,.0f} ({len(new[key])} runs) "
                     f"| {b / a:.2f} |")
    if len(lines) == 2:
        raise UserError("the two sides share no game and section to compare")
    return "\n".join(lines)
