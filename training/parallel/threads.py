"""One thread per player process: the networks that play are small and the processes (or Ray
actors, or a server's matches) are the parallelism, so extra threads only contend for the cores.
That is torch's threads where torch is loaded, and the BLAS that numpy's matrix products run on
(``agents.numpy_nets``, the forward passes that play the checkpoints), through threadpoolctl.
Evaluation, the move timer, ``cardzoo play`` and ``serve`` use it; training keeps its own threads.
"""

from __future__ import annotations

import contextlib
import sys

from threadpoolctl import ThreadpoolController

_CONTROLLER: list[ThreadpoolController] = []  # made once a process, at the first use


def _blas() -> ThreadpoolController:
    if not _CONTROLLER:
        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0]


@contextlib.contextmanager
def one_thread():
    """Torch (where loaded) and BLAS on one thread for the block, as before it afterwards."""
    torch = sys.modules.get("torch")
    before = torch.get_num_threads() if torch else 0
    if torch:
        torch.set_num_threads(1)
    try:
        with _blas().limit(limits=1, user_api="blas"):
            yield
    finally:
        if torch:
            torch.set_num_threads(before)


def keep_one_thread() -> None:
    """Torch (where loaded) and BLAS on one thread for the rest of the process (a worker's)."""
    torch = sys.modules.get("torch")
    if torch:
        torch.set_num_threads(1)
    _blas().limit(limits=1, user_api="blas")  # stays in force: the limiter is never restored
