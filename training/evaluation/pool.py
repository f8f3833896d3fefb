"""Plays a tournament's list of game tasks, in this process, across a pool of worker processes or
on Ray actors (``--ray``), and hands every finished game to a callback in task order (so the output
is the same for any number and kind of workers); Ctrl-C stops early and is reported back as
"interrupted". One thread per player process (``parallel.threads``): the processes are the parallelism.
"""

from __future__ import annotations

import dataclasses
import multiprocessing as mp
import signal
import tempfile
from collections.abc import Callable, Sequence

from cardzoo.training.evaluation.results import GameResult
from cardzoo.training.evaluation.runner import Runner, Setup
from cardzoo.training.evaluation.schedule import Task
from cardzoo.training.parallel.threads import keep_one_thread, one_thread


def play_tasks(
    setup: Setup,
    runner: Runner,
    tasks: Sequence[Task],
    workers: int,
    take: Callable[[GameResult], None],
    ray: str | None = None,
) -> bool:
    """Play every task (in ``runner`` when ``workers == 1``, else in a pool of fresh runners, or on
    ``workers`` Ray actors of the cluster at ``ray``) and ``take`` each result in task order;
    returns True when Ctrl-C stopped it early."""
    if ray is not None:
        return _run_ray(setup, tasks, workers, take, ray)
    if workers == 1:
        try:
            with one_thread():
                for task in tasks:
                    take(runner.play(*task))
        except KeyboardInterrupt:
            return True
        return False
    return _run_pool(setup, tasks, workers, take)


_WORKER: Runner | None = None


def _init_worker(setup: Setup) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    keep_one_thread()  # the workers are the parallelism
    global _WORKER
    _WORKER = Runner(setup)


def _work(task) -> GameResult:
    return _WORKER.play(*task)  # type: ignore[union-attr]  # set in every worker before its first task


def _chunk_size(tasks: int, workers: int) -> int:
    """Games per call to a worker: few enough to keep every worker busy to the end, at most 8."""
    return max(1, min(8, tasks // (workers * 16)))


def _run_pool(setup: Setup, tasks, workers: int, take) -> bool:
    method = "fork" if "fork" in mp.get_all_start_methods() else "spawn"
    ctx = mp.get_context(method)
    chunk = _chunk_size(len(tasks), workers)
    pool = ctx.Pool(workers, initializer=_init_worker, initargs=(setup,))
    interrupted = False
    try:
        for res in pool.imap(_work, tasks, chunksize=chunk):  # in task order: reproducible output
            take(res)
        pool.close()
    except KeyboardInterrupt:
        interrupted = True
        pool.terminate()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()
    return interrupted


class GamePlayer:
    """A Ray actor's runner: plays a chunk of tasks per call. Checkpoint entrants arrive as their
    files' bytes (the actor's node need not see the driver's disk) and are written to a folder of
    its own."""

    def __init__(self, setup: Setup, files: dict):
        self._folder = tempfile.TemporaryDirectory(prefix="cardzoo-eval-")
        specs = list(setup.specs)
        for i, blobs in files.items():
            stem = f"{self._folder.name}/entrant{i}"
            for suffix, data in blobs.items():
                with open(stem + suffix, "wb") as f:
                    f.write(data)
            specs[i] = dataclasses.replace(specs[i], path=stem)
        self.runner = Runner(dataclasses.replace(setup, specs=tuple(specs)))

    def collect(self, chunk: list) -> list[GameResult]:
        return [self.runner.play(*task) for task in chunk]


def _checkpoint_files(setup: Setup) -> dict:
    from cardzoo.training.agents.checkpoint import checkpoint_paths

    files = {}
    for i, spec in enumerate(setup.specs):
        if spec.kind == "checkpoint":
            weights, sidecar = checkpoint_paths(spec.path)  # type: ignore[arg-type]  # a checkpoint has a path
            files[i] = {".safetensors": weights.read_bytes(), ".json": sidecar.read_bytes()}
    return files


def _run_ray(setup: Setup, tasks, workers: int, take, address: str) -> bool:
    from cardzoo.training.parallel.ray_actors import RayWorkerGroup

    chunk = _chunk_size(len(tasks), workers)
    chunks = [list(tasks[i : i + chunk]) for i in range(0, len(tasks), chunk)]
    with RayWorkerGroup(workers, GamePlayer, (setup, _checkpoint_files(setup)), address=address) as group:
        try:
            for results in group.imap(chunks):
                for res in results:
                    take(res)
        except KeyboardInterrupt:
            return True
    return False
