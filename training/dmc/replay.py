"""The DMC learner's replay buffer: the most recent samples, their observations kept sparse.

A seat's observation has ~50 of its 633-1333 entries set, so the buffer keeps each observation
as its nonzero entries, padded per row to the widest row seen so far (``columns``, ``values``:
[capacity, width]; ``counts``: the entries of each row), and a minibatch's observations are a
sparse CSR matrix: the network's first layer multiplies it in a fraction of the dense product's
time (``MoveRankerNet.forward`` takes either), and the buffer holds a fraction of the dense
rows' memory (a third to two-fifths in random play of our games, whose widest rows have 83-220
entries; the padding grows by doubling). What is saved with the run's state is the same nonzero entries, in the layout
every earlier cardzoo saved (or read back from dense rows, as the earliest did).
"""

from __future__ import annotations

import numpy as np
import torch

from cardzoo.envs.errors import UserError
from cardzoo.training.agents.ranker import sparse_csr
from cardzoo.training.common.run_dir import RunState
from cardzoo.training.dmc.collector import SparseRows


class Replay:
    """The most recent ``capacity`` samples (observation, move row, return) in preallocated arrays."""

    def __init__(self, capacity: int, obs_size: int, row_size: int):
        self.obs_size = obs_size
        self.columns = np.zeros((capacity, 8), np.int32)  # widened when a row needs more (``_widen``)
        self.values = np.zeros((capacity, 8), np.float32)
        self.counts = np.zeros(capacity, np.int32)
        self.rows = np.zeros((capacity, row_size), np.float32)
        self.returns = np.zeros(capacity, np.float32)
        self.size = self.next = 0

    def add(self, obs, rows: np.ndarray, returns: np.ndarray) -> None:
        """Append samples (``obs``: the collector's ``SparseRows`` or dense rows), overwriting the oldest."""
        capacity = len(self.returns)
        first = max(0, len(returns) - capacity)  # only the newest fit
        rows, returns = rows[first:], returns[first:]
        idx = (self.next + np.arange(len(returns))) % capacity
        if not isinstance(obs, SparseRows):
            obs = SparseRows.of_dense(np.asarray(obs, np.float32))
        self._write(obs, idx, first)
        self.rows[idx], self.returns[idx] = rows, returns
        self.next = int((self.next + len(returns)) % capacity)
        self.size = min(self.size + len(returns), capacity)

    def _write(self, obs: SparseRows, at: np.ndarray, first: int) -> None:
        """Slot ``at[j]`` holds observation ``first + j`` for every j."""
        starts = obs.starts[first : first + len(at) + 1]
        counts = np.diff(starts)
        if len(counts) and counts.max() > self.columns.shape[1]:
            self._widen(int(counts.max()))
        lo, hi = starts[0], starts[-1]
        slot = np.repeat(np.asarray(at, np.int64), counts)
        place = np.arange(hi - lo) - np.repeat(starts[:-1] - lo, counts)  # each entry's place in its row
        self.columns[slot, place] = obs.columns[lo:hi]
        self.values[slot, place] = obs.values[lo:hi]
        self.counts[at] = counts

    def _widen(self, needed: int) -> None:
        width = min(max(needed, 2 * self.columns.shape[1]), self.obs_size)
        for name in ("columns", "values"):
            old = getattr(self, name)
            wider = np.zeros((len(old), width), old.dtype)  # untouched pages cost nothing until written
            wider[: self.size, : old.shape[1]] = old[: self.size]  # slots from ``size`` on were never written
            setattr(self, name, wider)

    def _entries(self, at: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(the row starts, columns, values) of the observations in slots ``at``, in that order."""
        counts = self.counts[at]
        starts = np.zeros(len(at) + 1, np.int64)
        np.cumsum(counts, out=starts[1:])
        kept = np.arange(self.columns.shape[1]) < counts[:, None]
        return starts, self.columns[at][kept], self.values[at][kept]

    def observations(self, at: np.ndarray | None = None) -> np.ndarray:
        """The observations in slots ``at`` (all slots by default) as dense rows."""
        at = np.arange(len(self.returns)) if at is None else np.asarray(at)
        return SparseRows.of_parts(self.obs_size, *self._entries(at)).dense()

    def sample(self, n: int, rng) -> tuple:
        """``n`` random samples: (observations as a sparse CSR matrix, move rows, returns)."""
        idx = rng.integers(self.size, size=n)
        starts, columns, values = self._entries(idx)
        obs = sparse_csr(
            parts=(torch.from_numpy(starts), torch.from_numpy(columns.astype(np.int64)), torch.from_numpy(values)),
            size=(n, self.obs_size),
        )
        return obs, torch.from_numpy(self.rows[idx]), torch.from_numpy(self.returns[idx])

    def to_state(self, state: RunState) -> None:
        """The buffer into the run's state (the observations as their nonzero entries)."""
        starts, columns, values = self._entries(np.arange(self.size))
        state.arrays = {
            "replay_obs_starts": starts,
            "replay_obs_columns": columns,
            "replay_obs_values": values,
            "replay_rows": self.rows[: self.size],
            "replay_returns": self.returns[: self.size],
        }
        state.learner["replay_next"] = self.next

    def from_state(self, state: RunState) -> None:
        """The buffer from a state ``to_state`` wrote (or an earlier cardzoo's, with dense
        observations); a one-line error when it does not fit this run."""
        a = state.arrays
        try:
            rows, returns = a["replay_rows"], a["replay_returns"]
            n = len(returns)
            if "replay_obs" in a:  # written before the observations were kept sparse
                obs = a["replay_obs"]
                if obs.shape != (n, self.obs_size):
                    raise ValueError
                obs = SparseRows.of_dense(obs)
            else:
                obs = SparseRows.of_parts(
                    self.obs_size, a["replay_obs_starts"], a["replay_obs_columns"], a["replay_obs_values"]
                )
            if n > len(self.returns) or len(obs) != n or rows.shape != (n, self.rows.shape[1]):
                raise ValueError
        except (KeyError, ValueError):
            raise UserError(
                "the resume state holds no replay buffer that fits this run (written by an older "
                "cardzoo?): start the run again"
            ) from None
        self._write(obs, np.arange(n), 0)
        self.rows[:n], self.returns[:n] = rows, returns
        self.size, self.next = n, int(state.learner["replay_next"])
        state.arrays = {}
