"""Plays a tournament's list of game tasks, in this process or across a pool of worker processes,
and hands every finished game to a callback in task order (so the output is the same for any number
of workers); Ctrl-C stops early and is reported back as "interrupted". One torch thread per player
process: the processes are the parallelism.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import signal
import sys
from typing import Callable, Sequence

from cardzoo.training.evaluation.results import GameResult
from cardzoo.training.evaluation.runner import Runner, Setup
from cardzoo.training.evaluation.schedule import Task


def play_tasks(setup: Setup, runner: Runner, tasks: Sequence[Task], workers: int,
               take: Callable[[GameResult], None]) -> bool:
    """Play every task (in ``runner`` when ``workers == 1``, else in a pool of fresh runners) and
    ``take`` each result in task order; returns True when Ctrl-C stopped it early."""
    if workers == 1:
        try:
            with _one_torch_thread():
                for task in tasks:
                    take(runner.play(*task))
        except KeyboardInterrupt:
            return True
        return False
    return _run_pool(setup, tasks, workers, take)


@contextlib.contextmanager
def _one_torch_thread():
    """Play in-process on one torch thread, as the pool workers do: an agent's network is small,
    and extra threads only contend for the cores (measured on a busy machine: a Sam Sip ranker took
    8.6 ms per move on one thread, 15 ms on two)."""
    torch = sys.modules.get("torch")
    before = torch.get_num_threads() if torch else 0
    if torch:
        torch.set_num_threads(1)
    try:
        yield
    finally:
        if torch:
            torch.set_num_threads(before)


_WORKER: Runner | None = None


def _init_worker(setup: Setup) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    if "torch" in sys.modules:  # one thread per worker process: the workers are the parallelism
        sys.modules["torch"].set_num_threads(1)
    global _WORKER
    _WORKER = Runner(setup)


def _work(task) -> GameResult:
    return _WORKER.play(*task)


def _run_pool(setup: Setup, tasks, workers: int, take) -> bool:
    method = "fork" if "fork" in mp.get_all_start_methods() else "spawn"
    ctx = mp.get_context(method)
    chunk = max(1, min(8, len(tasks) // (workers * 16)))
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
