"""Rollout workers: collector objects in worker processes, the learner in the main process.

The boundary is one call, ``collect(request) -> rollout``, both plain data; a worker here is a
process that builds ``factory(*args)`` once and answers that call over a pipe (arrays are pickled
once per rollout, never per step). PPO's ``Collector`` and DMC's are such factories; with
``--ray`` the same objects are hosted by Ray actors (``ray_actors.RayWorkerGroup``), with no
change to the learner. ``workers=0`` collects in the main process (handy for debugging and tests).
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import threading
import traceback
from collections.abc import Callable


def _die_with_parent() -> None:
    """Linux: end this worker when the learner process ends, however it ends (even SIGKILL)."""
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass  # elsewhere a worker notices the closed pipe after its current collection


def _serve(conn, factory: Callable, args: tuple) -> None:
    import torch

    _die_with_parent()
    torch.set_num_threads(1)  # the workers are the parallelism
    try:
        collector = factory(*args)
    except Exception:  # noqa: BLE001 - reported to the learner instead of hanging it
        conn.send(("error", traceback.format_exc()))
        return
    conn.send(("ready", None))
    while True:
        try:
            request = conn.recv()
        except EOFError:
            return
        if request is None:
            return
        try:
            conn.send(("ok", collector.collect(request)))
        except Exception:  # noqa: BLE001 - reported to the learner, which raises it
            conn.send(("error", traceback.format_exc()))


def worker_group(n: int, factory: Callable, args: tuple, ray: str | None = None):
    """``WorkerGroup`` here, or with ``ray`` (a cluster address; "" for this machine's) the same on Ray."""
    if ray is None:
        return WorkerGroup(n, factory, args)
    from cardzoo.training.parallel.ray_actors import RayWorkerGroup

    return RayWorkerGroup(n, factory, args, address=ray)


def log_traffic(writer, workers, step: int) -> None:
    """Bytes to and from the workers since the last call, where they cross a network (Ray)."""
    if hasattr(workers, "traffic"):
        sent, received = workers.traffic()
        writer.add_scalar("network/bytes_to_workers", sent, step)
        writer.add_scalar("network/bytes_from_workers", received, step)


class WorkerGroup:
    """``n`` processes each holding ``factory(*args)`` (or the main process when ``n == 0``);
    ``factory`` must be importable by name (a class or a module-level function)."""

    def __init__(self, n: int, factory: Callable, args: tuple):
        self.n = n
        self.local = factory(*args) if n == 0 else None
        self.procs, self.conns = [], []
        if n:
            ctx = mp.get_context("spawn")  # no fork of a process that holds torch threads
            for _ in range(n):
                parent, child = ctx.Pipe()
                proc = ctx.Process(target=_serve, args=(child, factory, args), daemon=True)
                proc.start()
                self.procs.append(proc)
                self.conns.append(parent)
        # Their "ready" is read with the first rollout, so the workers' start-up (importing torch,
        # building the collector) overlaps whatever the learner does meanwhile.
        self._starting = bool(n)
        self._sending: threading.Thread | None = None
        self._send_error: Exception | None = None

    @property
    def count(self) -> int:
        return max(self.n, 1)

    def submit(self, requests: list) -> None:
        """Start one collection per worker; they run while the learner trains (``receive`` waits).
        The requests (the weights, ~1 MB each) are written to the pipes by a thread, so that the
        learner goes on at once instead of waiting for each worker to read its copy off a pipe."""
        if self.local is not None:
            self._queued: list | None = requests
            return
        self._sent()  # one writer per pipe at a time
        self._sending = threading.Thread(target=self._send, args=(list(requests),), daemon=True)
        self._sending.start()

    def _send(self, requests: list) -> None:
        try:
            for conn, request in zip(self.conns, requests):
                conn.send(request)
        except Exception as e:  # noqa: BLE001 - raised by the learner's next call (``_sent``), not lost with the thread
            self._send_error = e

    def _sent(self) -> None:
        """Wait for the last ``submit``'s requests to be written; a worker that died says why."""
        sending, self._sending = self._sending, None
        if sending is not None:
            sending.join()
        error, self._send_error = self._send_error, None
        if isinstance(error, (BrokenPipeError, OSError)):
            self._check_started()  # a worker that failed to start says why
            raise RuntimeError("a rollout worker process died (see its error above)") from None
        if error is not None:
            raise error

    def receive(self) -> list:
        """The rollouts of the last ``submit``, in worker order (never dependent on timing)."""
        if self.local is not None:
            requests, self._queued = self._queued, None
            assert requests is not None, "receive() comes after a submit()"
            return [self.local.collect(r) for r in requests]
        self._sent()
        self._check_started()
        return [self._receive(conn) for conn in self.conns]

    def _check_started(self) -> None:
        if self._starting:
            self._starting = False
            for conn in self.conns:
                self._receive(conn)

    def map(self, requests: list) -> list:
        """Every request answered, in order, spread over the workers (any number of requests)."""
        if self.local is not None:
            return [self.local.collect(r) for r in requests]
        self._sent()
        self._check_started()
        out = []
        for start in range(0, len(requests), self.n):
            batch = requests[start : start + self.n]
            for conn, request in zip(self.conns, batch):
                conn.send(request)
            out += [self._receive(conn) for conn in self.conns[: len(batch)]]
        return out

    def collect(self, requests: list) -> list:
        self.submit(requests)
        return self.receive()

    @staticmethod
    def _receive(conn):
        try:
            status, payload = conn.recv()
        except EOFError:
            raise RuntimeError("a rollout worker process died (see its error above)") from None
        if status == "error":
            raise RuntimeError(f"a rollout worker failed:\n{payload}")
        return payload

    def stop(self) -> None:
        """Ask the workers to exit after their current collection, without waiting for them."""
        if self._sending is not None:  # after the requests being written (a dead worker's pipe fails at once)
            self._sending.join()
        for conn in self.conns:
            with contextlib.suppress(BrokenPipeError, OSError):
                conn.send(None)

    def close(self) -> None:
        self.stop()  # after an earlier stop() the extra None is never read: the worker has exited
        for proc in self.procs:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.terminate()
        self.procs, self.conns = [], []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
