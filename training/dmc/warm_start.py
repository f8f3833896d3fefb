"""The Deep Monte-Carlo trainer's warm start: fit the ranker to a scripted player's (or the
expert's) choices before self-play.

Bot-only matches (``--imitate`` of them) are played in ``IMITATION_PARTS`` seeded parts, a few at
a time on the workers; every finished part is kept in the run directory

    OUT/warm_start/part-I.safetensors   the part's samples (arrays) and, in its metadata, the
                                        request it answers and the seconds it took

so that a run stopped during a long warm start (an expert's matches are slow: each of its moves is
a search) continues with ``--resume`` from the parts it finished: a part is reused only when its
request is the one the run asks again, and its seconds count towards the run's training time.
Safetensors only: nothing is unpickled.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
from safetensors import SafetensorError, safe_open
from safetensors.numpy import save

from cardzoo.envs.registry import game_spec
from cardzoo.training.agents.checkpoint import atomic_write_bytes
from cardzoo.training.agents.ranker import sparse_csr
from cardzoo.training.common.imitation import Bots, CandidateRecord, drawn_matches, fit, one_deal, play_recorded

IMITATION_PARTS = 8  # the warm start's matches in this many seeded parts, whatever the worker count


@dataclass
class ImitationRequest:
    """One part of the warm start, played by a worker (``DMCCollector.collect``)."""

    matches: int
    seed: int
    returns: str = "match"
    imitate_from: str = "rules"
    model: str = ""  # the checkpoint the expert searches with (imitate_from="expert"; default: the shipped model)
    answer: str = ""  # who answers in the expert's sampled deals ("scripted" or "model"; imitate_from="expert")


def imitation_task(
    game: str,
    players: tuple[int, ...],
    variants: dict,
    matches: int,
    seed: int,
    returns: str = "match",
    imitate_from: str = "rules",
    model: str = "",
    answer: str = "",
) -> list:
    """[(observation, candidate rows [K, F], index the bot chose, return-to-go, the expert's value of
    each candidate [K] (NaN where it did not search it; None for the other bots))] of bot-only
    matches (``CandidateRecord``'s choices), each match's seat by seat; the bots are rule bots,
    the game's teacher with ``imitate_from="teacher"``, or the expert over the checkpoint ``model``
    (default: the shipped model) with ``imitate_from="expert"``, the other seats of its sampled
    deals played by ``answer`` (default: the game's). With ``returns="deal"`` in a game settled
    deal by deal a choice's return ends with its deal."""
    deal_of = game_spec(game).deal_index if returns == "deal" else one_deal
    played = play_recorded(
        game,
        variants,
        drawn_matches(players, matches, seed),
        Bots(game, imitate_from, model, answer),
        CandidateRecord(game),
        deal_of,
    )
    return [
        (o, rows, chosen, ret, values)
        for match in played
        for _, (o, rows, chosen, values), ret in sorted(match, key=lambda kept: kept[0])
    ]


def warm_start(net, s, workers, log, parts_dir: Path) -> float:
    """Fit the ranker to the rule bot's (or teacher's, or expert's) choices (ranking) and their
    returns (values), or to the expert's searched values (``--imitate-targets values``). Returns
    the seconds that earlier attempts of this run spent on the parts reused from ``parts_dir``."""
    parts = min(s.imitate, IMITATION_PARTS)  # exactly s.imitate matches
    requests = [
        ImitationRequest(
            s.imitate // parts + (i < s.imitate % parts),
            s.seed * 7919 + i,
            s.returns,
            s.imitate_from,
            s.init,
            s.expert_answer,
        )
        for i in range(parts)
    ]
    found = [load_part(parts_dir / f"part-{i}.safetensors", r) for i, r in enumerate(requests)]
    reused = sum(f[1] for f in found if f is not None)
    if any(f is not None for f in found):
        log(f"warm start: {sum(f is not None for f in found)} of {parts} parts reused from {parts_dir}")
    todo = [i for i in range(parts) if found[i] is None]
    for start in range(0, len(todo), workers.count):  # a few parts at a time: a slow teacher shows progress
        chunk = todo[start : start + workers.count]
        t0 = time.monotonic()
        answers = workers.map([requests[i] for i in chunk])
        seconds = (time.monotonic() - t0) / len(chunk)
        for i, part in zip(chunk, answers):
            save_part(parts_dir / f"part-{i}.safetensors", requests[i], part, seconds)
            found[i] = (part, 0.0)
        played = sum(requests[i].matches for i in range(parts) if found[i] is not None)
        if played < s.imitate:
            log(f"warm start: {played}/{s.imitate} matches played")
    samples = [x for f in found if f is not None for x in f[0]]  # every part is found by now
    who = {"rules": "rule bot"}.get(s.imitate_from, s.imitate_from)
    log(f"warm start: {len(samples):,} {who.replace(' ', '-')} choices from {s.imitate} matches")
    fit(
        net.parameters(),
        len(samples),
        lambda idx: imitation_loss(net, [samples[i] for i in idx], s.imitate_targets),
        epochs=s.imitate_epochs,
        batch_size=256,
        lr=3e-4,
        seed=s.seed,
        clip=1.0,
        who=who,
        log=log,
    )
    return reused


def imitation_loss(net, batch: list, targets: str = "choice") -> tuple:
    """(loss, decisions whose highest Q is the imitated move) of a batch of warm-start samples.
    ``targets="choice"``: rank the imitated move first (cross-entropy over the candidates' Q / 0.1)
    and fit its Q to the seat's return; ``"values"``: fit every candidate the expert searched to
    the search's value of it (expert iteration's value targets)."""
    sizes = torch.as_tensor([len(b[1]) for b in batch])
    obs = torch.as_tensor(np.stack([b[0] for b in batch]))
    q_flat = net.candidates_q(sparse_csr(obs), torch.as_tensor(np.concatenate([b[1] for b in batch])), sizes)
    # candidates of each decision side by side, padded with -inf: one softmax per decision
    row_of = torch.repeat_interleave(torch.arange(len(batch)), sizes)
    col_of = torch.arange(len(q_flat)) - torch.repeat_interleave(torch.cumsum(sizes, 0) - sizes, sizes)
    q = torch.full((len(batch), int(sizes.max())), float("-inf")).index_put((row_of, col_of), q_flat)
    chosen = torch.as_tensor([b[2] for b in batch])
    hits = int((q.argmax(dim=1) == chosen).sum())
    if targets == "values":
        values = torch.as_tensor(np.concatenate([b[4] for b in batch]))
        searched = ~torch.isnan(values)
        return torch.nn.functional.mse_loss(q_flat[searched], values[searched]), hits
    returns = torch.as_tensor([b[3] for b in batch], dtype=torch.float32)
    chosen_q = q[torch.arange(len(batch)), chosen]
    return torch.nn.functional.cross_entropy(q / 0.1, chosen) + torch.nn.functional.mse_loss(chosen_q, returns), hits


# ---------------------------------------------------------------------------------- the parts kept
def save_part(path: Path, request: ImitationRequest, samples: list, seconds: float) -> None:
    """A part's samples — (observation, candidate rows, chosen index, return, searched values or
    None) each — as flat arrays, written atomically."""
    arrays = {  # each in the dtype it was made in, so that the samples read back are the same
        "sizes": np.array([len(x[1]) for x in samples], np.int64),
        "chosen": np.array([x[2] for x in samples], np.int64),
        "returns": np.array([x[3] for x in samples], np.float64),
    }
    if samples:
        arrays["obs"] = np.stack([x[0] for x in samples])
        arrays["rows"] = np.concatenate([x[1] for x in samples])
        if all(x[4] is not None for x in samples):
            arrays["values"] = np.concatenate([x[4] for x in samples])
    meta = {"request": json.dumps(asdict(request), sort_keys=True), "seconds": f"{seconds:.3f}"}
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, save(arrays, metadata=meta))


def load_part(path: Path, request: ImitationRequest) -> tuple[list, float] | None:
    """(samples, seconds) of a part kept for ``request``; None when there is none, it answers
    another request, or it cannot be read whole (it is then simply played again)."""
    if not path.is_file():
        return None
    try:
        with safe_open(str(path), framework="numpy") as f:  # one open: the request checked before any tensor is read
            meta = f.metadata() or {}
            if meta.get("request") != json.dumps(asdict(request), sort_keys=True):
                return None
            a = {k: f.get_tensor(k) for k in f.keys()}  # noqa: SIM118 - safetensors handles iterate only by keys()
        if not len(a["sizes"]):
            return [], float(meta.get("seconds", 0.0))
        ends = np.cumsum(a["sizes"])
        starts = ends - a["sizes"]
        values = a.get("values")
        samples = [
            (
                a["obs"][k],
                a["rows"][b:e],
                int(a["chosen"][k]),
                float(a["returns"][k]),
                None if values is None else values[b:e],
            )
            for k, (b, e) in enumerate(zip(starts.tolist(), ends.tolist()))
        ]
        return samples, float(meta.get("seconds", 0.0))
    except (SafetensorError, KeyError, ValueError, OSError):
        return None
