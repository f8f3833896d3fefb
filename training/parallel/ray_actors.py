"""Rollout workers on a Ray cluster: the same ``collect(request) -> rollout`` boundary as
``WorkerGroup``, hosted by Ray actors instead of local processes (``--ray [ADDRESS]``).

The learner stays where the command runs. Each actor builds ``factory(*args)`` once and answers
``collect``; a request's ``weights`` (the learner's state_dict) go into the object store once per
``submit`` and every actor reads that one copy, so a node fetches the weights once per iteration,
whatever its number of actors. A collection is a pure function of its request, so an actor that
dies (its node lost) is restarted by Ray and its collection run again with the same result; past
``RESTARTS`` the command stops with one line, and a trainer's ``--resume`` goes on from its last
save. Only this module imports Ray, and only when ``--ray`` is given.
"""

from __future__ import annotations

import contextlib
import dataclasses
import pickle
from collections.abc import Callable, Iterable, Iterator

import numpy as np

from cardzoo.envs.errors import UserError
from cardzoo.training.parallel.threads import keep_one_thread

RESTARTS = 3  # times Ray restarts a lost actor (and retries its collection) before the command stops


def _ray():
    try:
        import ray
    except ImportError:
        raise UserError('--ray needs Ray: pip install -e ".[ray]" (or pip install "cardzoo[ray]")') from None
    return ray


def connect(address: str | None) -> bool:
    """Join the Ray cluster at ``address`` ("auto", "HOST:PORT", or None: the cluster ``ray start``
    made on this machine, else a new local one); True when this call started Ray in this process."""
    ray = _ray()
    if ray.is_initialized():
        return False
    try:
        ray.init(address=address or None, logging_level="ERROR", log_to_driver=False)
    except (ConnectionError, ValueError, RuntimeError) as e:
        raise UserError(f"--ray {address or ''}: cannot join a Ray cluster ({str(e).splitlines()[0][:200]})") from None
    return True


@contextlib.contextmanager
def ray_session(address: str | None):
    """Joined to the cluster for a whole command (several tournaments share one connection)."""
    started = connect(address)
    try:
        yield
    finally:
        if started:
            _ray().shutdown()


class _Host:
    """One Ray actor: a collector, built at its first call (a restarted actor builds it again
    there), answering ``collect``."""

    def __init__(self):
        self.collector = None

    def node(self) -> str:
        import ray

        return ray.get_runtime_context().get_node_id()

    def collect(self, packed: list, request, weights=None):
        if self.collector is None:
            import ray

            factory, args = ray.get(packed[0])  # one copy in the object store, held by the driver
            self.collector = factory(*args)
            keep_one_thread()  # the actors are the parallelism (torch's threads, where the collector loaded it)
        if weights is not None:  # the object store's copy is read-only: the collector gets its own
            request = dataclasses.replace(request, weights={k: np.array(v) for k, v in weights.items()})
        return self.collector.collect(request)


def payload_bytes(obj) -> int:
    """Bytes a value takes on the wire: its arrays' sizes plus the pickle of the rest."""
    if isinstance(obj, np.ndarray):
        return obj.nbytes
    if dataclasses.is_dataclass(obj):
        return sum(payload_bytes(getattr(obj, f.name)) for f in dataclasses.fields(obj))
    if isinstance(obj, dict):
        return sum(payload_bytes(v) for v in obj.values()) + len(pickle.dumps(list(obj)))
    if isinstance(obj, (list, tuple)) and any(isinstance(v, np.ndarray) for v in obj):
        return sum(payload_bytes(v) for v in obj)
    return len(pickle.dumps(obj))


class RayWorkerGroup:
    """``n`` Ray actors each holding ``factory(*args)``, with ``WorkerGroup``'s interface, plus
    ``traffic()``: the bytes that crossed to and from the actors (weights once per submit, the
    requests, the rollouts). ``resources``: the custom Ray resources each actor asks for, in
    worker order (a node's own resource pins its actor there; a restarted actor asks for the
    same); None spreads the actors over the nodes."""

    def __init__(
        self,
        n: int,
        factory: Callable,
        args: tuple,
        address: str | None = None,
        cpus: float = 1,
        resources: list[dict] | None = None,
    ):
        if resources is not None and len(resources) != n:
            raise ValueError(f"{len(resources)} resource sets for {n} actors")
        if n < 1:
            raise UserError("--ray needs --workers 1 or more (the workers are the Ray actors)")
        ray = _ray()
        self.started = connect(address)
        total = ray.cluster_resources().get("CPU", 0)
        if total < n * cpus:
            self._shutdown()
            raise UserError(f"--ray: the cluster has {total:g} CPUs; --workers {n} needs {n * cpus:g}")
        host = ray.remote(max_restarts=RESTARTS, max_task_retries=RESTARTS)(_Host)
        # the factory and its arguments (a tournament's checkpoint files) are put once and passed by
        # reference with every call: every actor, restarted ones too, builds from that one copy
        self._packed = [ray.put((factory, args))]
        self.actors = [
            host.options(num_cpus=cpus, resources=r, scheduling_strategy="SPREAD").remote()
            for r in resources or [{}] * n
        ]
        self.n = n
        self.sent = self.received = 0
        self._pending: list = []

    @property
    def count(self) -> int:
        return self.n

    def nodes(self) -> list[str]:
        """The Ray node id of each actor, in worker order."""
        return self._get([actor.node.remote() for actor in self.actors])

    def traffic(self) -> tuple[int, int]:
        """(bytes sent, bytes received) since the last call."""
        out, self.sent, self.received = (self.sent, self.received), 0, 0
        return out

    def _calls(self, requests: Iterable, actors: list) -> list:
        ray = _ray()
        shared: dict[int, object] = {}  # one object-store copy of each weights dict
        refs = []
        for actor, request in zip(actors, requests):
            weights = getattr(request, "weights", None)
            if weights is None:
                self.sent += payload_bytes(request)
                refs.append(actor.collect.remote(self._packed, request))
                continue
            if id(weights) not in shared:
                shared[id(weights)] = ray.put(weights)
                self.sent += payload_bytes(weights)
            bare = dataclasses.replace(request, weights=None)
            self.sent += payload_bytes(bare)
            refs.append(actor.collect.remote(self._packed, bare, shared[id(weights)]))
        return refs

    def _get(self, refs: list) -> list:
        ray = _ray()
        try:
            out = ray.get(refs)
        except ray.exceptions.RayTaskError as e:
            raise RuntimeError(f"a rollout worker failed:\n{e}") from None
        except ray.exceptions.RayActorError as e:
            raise UserError(
                f"a Ray worker was lost and could not be replaced ({_first_line(e)}); the work "
                "stopped — a training run continues from its last save with --resume"
            ) from None
        self.received += sum(payload_bytes(r) for r in out)
        return out

    def submit(self, requests: list) -> None:
        self._pending = self._calls(requests, self.actors)

    def receive(self) -> list:
        refs, self._pending = self._pending, []
        return self._get(refs)

    def map(self, requests: list) -> list:
        return list(self.imap(requests))

    def imap(self, requests: Iterable, ahead: int = 2) -> Iterator:
        """Every request answered in order, ``ahead`` calls queued per actor so none waits."""
        requests = list(requests)
        refs: list = []
        for i in range(len(requests)):
            while len(refs) < min(len(requests), i + ahead * self.n):
                j = len(refs)
                refs += self._calls([requests[j]], [self.actors[j % self.n]])
            yield self._get([refs[i]])[0]
            refs[i] = None

    def stop(self) -> None:
        """No more collections: the actors go, so their CPUs are free for the learner's last update."""
        ray = _ray()
        for actor in self.actors:
            ray.kill(actor)
        self.actors = []

    def close(self) -> None:
        if self.actors:
            self.stop()
        self._shutdown()

    def _shutdown(self) -> None:
        if self.started:
            _ray().shutdown()
            self.started = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return (text[0] if text else type(e).__name__)[:200]
