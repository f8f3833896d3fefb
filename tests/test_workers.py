"""The rollout workers' boundary (``cardzoo.training.parallel.workers``): answers come back in
worker order, and a failure — in a worker or in writing a request to it — is an error at the
learner's next call, never a hang."""

from __future__ import annotations

import pytest

from cardzoo.training.parallel.workers import WorkerGroup


class Echo:
    """A collector that answers (its own tag, the request), or fails on request."""

    def __init__(self, tag: str):
        if tag == "broken":
            raise ValueError("this collector cannot be built")
        self.tag = tag

    def collect(self, request):
        if request == "fail":
            raise ValueError("this collection failed")
        return self.tag, request


def test_answers_come_back_in_worker_order():
    with WorkerGroup(2, Echo, ("w",)) as workers:
        workers.submit([1, 2])
        assert workers.receive() == [("w", 1), ("w", 2)]
        assert workers.map([3, 4, 5]) == [("w", 3), ("w", 4), ("w", 5)]
        workers.submit(["a", "b"])  # a second round after map: the pipes are in step
        assert workers.receive() == [("w", "a"), ("w", "b")]


def test_a_failed_collection_is_an_error_with_its_traceback():
    with WorkerGroup(1, Echo, ("w",)) as workers:
        workers.submit(["fail"])
        with pytest.raises(RuntimeError, match="this collection failed"):
            workers.receive()


def test_a_collector_that_cannot_be_built_says_why():
    with WorkerGroup(1, Echo, ("broken",)) as workers:
        workers.submit([1])
        with pytest.raises(RuntimeError, match="cannot be built"):
            workers.receive()


def test_a_request_that_cannot_be_sent_is_an_error_not_a_hang():
    with WorkerGroup(1, Echo, ("w",)) as workers:
        workers.submit([lambda: None])  # not picklable: the sending thread fails
        with pytest.raises(Exception, match="pickle"):
            workers.receive()
