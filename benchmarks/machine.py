"""The machine a bench run ran on, and keeping it steady: pin the process to one CPU and numeric
libraries to one thread (``pin_one_core``, ``limit_threads``, ``restore_affinity``), and describe
the platform, CPU, load, package versions and git commit for the JSON (``machine_info``).
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from typing import Any

from cardzoo.envs.errors import UserError

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def pin_one_core(cpu: int | None = None) -> tuple[set | None, int | None]:
    """Pin this process to one CPU (default: the last one allowed). Returns (previous set, cpu)."""
    limit_threads()
    if not hasattr(os, "sched_setaffinity"):
        return None, None
    previous = os.sched_getaffinity(0)
    chosen = max(previous) if cpu is None else cpu
    if chosen not in previous:
        raise UserError(f"--cpu {cpu}: this process may use CPUs {sorted(previous)}")
    os.sched_setaffinity(0, {chosen})
    return previous, chosen


def restore_affinity(previous: set | None) -> None:
    if previous and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, previous)


def limit_threads() -> None:
    """One thread for numeric libraries: env vars for those loaded later, torch if it is loaded."""
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return
    threadpool_limits(1)


def machine_info(cpu: int | None) -> dict:
    info: dict[str, Any] = {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "cpu_model": _cpu_model(),
        "logical_cpus": os.cpu_count(),
        "pinned_cpu": cpu,
    }
    if hasattr(os, "getloadavg"):
        info["loadavg_1m_at_start"] = round(os.getloadavg()[0], 2)
    info["packages"] = package_versions()
    try:
        root = REPO_ROOT
        info["git_commit"] = (
            subprocess.run(
                ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True, timeout=5
            ).stdout.strip()
            or None
        )
    except Exception:  # noqa: BLE001 - no git, not a checkout, a timeout: the commit is just unknown
        info["git_commit"] = None
    return info


def package_versions() -> dict[str, str | None]:
    from importlib import metadata

    out: dict[str, str | None] = {}
    for dist in ("numpy", "gymnasium", "pettingzoo", "rlcard", "open_spiel", "pygame-ce"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    return out


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"
