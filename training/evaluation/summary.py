"""The statistics of a tournament, as the JSON-ready dict that ``cardzoo eval --json`` writes: per
entrant the mean reward and win rate with 95% intervals, per pair of entrants the head-to-head
advantage, and for a field of three or more the Bradley-Terry ratings with bootstrap intervals.
"""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING

import numpy as np

from cardzoo.envs.registry import game_spec
from cardzoo.training.evaluation.ratings import bootstrap_ratings, clustered_mean_ci, elo_ratings, wilson_ci

if TYPE_CHECKING:  # annotations only: results.py imports this module
    from cardzoo.training.evaluation.results import GameResult, TournamentResult


def summarize(res: TournamentResult) -> dict:
    """The statistics of a tournament as a JSON-ready dict.

    An entrant's reward in a game is the mean total reward of its sides (a side's reward is the mean
    over its seats). First place ("win") per game: Siantappo the highest total match reward, Suipi
    the side with the higher cumulative reward, Sam Sip the best final rank (the survivor, or the top
    of the ranking when the hand cap ends the match); ties split the win. Pairwise results (for
    ratings) compare two entrants' scores in every game both played.
    """
    t = _Tally(res)
    entrants = _entrant_rows(res, t)
    total_w = t.deal_wins.sum(axis=0)
    pairs = _pair_rows(res, t, total_w)
    ratings = None
    if len(res.names) >= 3 and res.games:
        ratings = _add_ratings(res, entrants, t.deal_wins, total_w)
    return {
        "game": res.game,
        "players": res.players,
        "config": res.config,
        "options": res.options,
        "seed": res.seed,
        "mode": res.mode,
        "sides": res.sides,
        "games_planned": res.planned,
        "games_played": len(res.games),
        "deals": len(t.deals),
        "games_per_deal": res.set_size,
        "interrupted": res.interrupted,
        "seconds": round(res.seconds, 3),
        "win_rule": game_spec(res.game).win_rule,
        "entrants": entrants,
        "pairs": pairs,
        "ratings": ratings,
        "sprt": res.sprt,
        "adjustment": _adjustment(res),
    }


def _adjustment(res: TournamentResult) -> dict | None:
    """How the luck-adjusted values were made, or None where there are none."""
    if res.value is None:
        return None
    return {
        "method": "luck (AIVAT-style control variates: chance and known policies, enumerated exactly)",
        "value_network": res.value,
    }


class _Tally:
    """Per-entrant rewards, wins, per-deal pairwise wins and pairwise reward differences of every game."""

    def __init__(self, res: TournamentResult):
        e = len(res.names)
        self.sides = res.sides
        self.deals = sorted({g.deal for g in res.games})
        self.deal_pos = {d: i for i, d in enumerate(self.deals)}
        self.per_reward: list[list[float]] = [[] for _ in range(e)]
        self.per_deal: list[list[int]] = [[] for _ in range(e)]
        self.wins = np.zeros(e)
        self.deal_wins = np.zeros((len(self.deals), e, e))
        self.pair_diff: dict[tuple[int, int], tuple[list[float], list[int]]] = {}
        self.adjusted = bool(res.games) and all(g.adjusted_rewards is not None for g in res.games)
        self.pair_adjusted: dict[tuple[int, int], list[float]] = {}
        for g in res.games:
            self._add(g)

    def _add(self, g: GameResult) -> None:
        present = sorted(set(g.lineup))
        best = max(g.side_scores)
        winners = [i for i, sc in enumerate(g.side_scores) if sc == best]
        rew, score = g.entrant_rewards(self.sides), {}
        adj = g.entrant_rewards(self.sides, adjusted=True) if self.adjusted else None
        for ent in present:
            idx = [i for i, x in enumerate(g.lineup) if x == ent]
            score[ent] = float(np.mean([g.side_scores[i] for i in idx]))
            self.wins[ent] += sum(1.0 / len(winners) for i in idx if i in winners)
            self.per_reward[ent].append(rew[ent])
            self.per_deal[ent].append(g.deal)
        k = self.deal_pos[g.deal]
        for a, b in itertools.combinations(present, 2):
            if score[a] > score[b]:
                self.deal_wins[k, a, b] += 1
            elif score[b] > score[a]:
                self.deal_wins[k, b, a] += 1
            else:
                self.deal_wins[k, a, b] += 0.5
                self.deal_wins[k, b, a] += 0.5
            lst = self.pair_diff.setdefault((a, b), ([], []))
            lst[0].append(rew[a] - rew[b])
            lst[1].append(g.deal)
            if adj is not None:
                self.pair_adjusted.setdefault((a, b), []).append(adj[a] - adj[b])


def _entrant_rows(res: TournamentResult, t: _Tally) -> list[dict]:
    entrants = []
    for i, name in enumerate(res.names):
        n = len(t.per_reward[i])
        mean, lo, hi = clustered_mean_ci(t.per_reward[i], t.per_deal[i])
        wlo, whi = wilson_ci(t.wins[i], n)
        entrants.append(
            {
                "name": name,
                "spec": res.specs[i].text,
                "games": n,
                "mean_reward": _num(mean),
                "reward_ci": [_num(lo), _num(hi)],
                "wins": _num(t.wins[i]),
                "win_rate": _num(t.wins[i] / n if n else float("nan")),
                "win_ci": [_num(wlo), _num(whi)],
            }
        )
    return entrants


def _pair_rows(res: TournamentResult, t: _Tally, total_w: np.ndarray) -> list[dict]:
    pairs = []
    for (a, b), (diffs, dls) in sorted(t.pair_diff.items()):
        mean, lo, hi = clustered_mean_ci(diffs, dls)
        comps = total_w[a, b] + total_w[b, a]
        row = {
            "a": res.names[a],
            "b": res.names[b],
            "games": len(diffs),
            "advantage": _num(mean),
            "advantage_ci": [_num(lo), _num(hi)],
            "a_score": _num(total_w[a, b] / comps if comps else float("nan")),
        }
        if (a, b) in t.pair_adjusted:
            amean, alo, ahi = clustered_mean_ci(t.pair_adjusted[(a, b)], dls)
            row.update(adjusted_advantage=_num(amean), adjusted_advantage_ci=[_num(alo), _num(ahi)])
        pairs.append(row)
    return pairs


def _add_ratings(res: TournamentResult, entrants: list[dict], deal_wins: np.ndarray, total_w: np.ndarray) -> dict:
    """Put each entrant's rating and interval into its row; returns the description of the method."""
    anchor = next((i for i, sp in enumerate(res.specs) if sp.kind == "random"), 0)
    r = elo_ratings(total_w, anchor=anchor)
    lo, hi = bootstrap_ratings(deal_wins, anchor=anchor, samples=res.bootstrap, seed=res.seed)
    for i, ent in enumerate(entrants):
        ent["rating"] = _num(r[i])
        ent["rating_ci"] = [_num(lo[i]), _num(hi[i])]
    return {
        "method": "Bradley-Terry (MM fit) from pairwise results of every game",
        "scale": "Elo: 400 * log10(strength); +400 = 10:1 odds in a head-to-head comparison",
        "anchor": res.names[anchor],
        "prior": "one virtual draw per pair that met",
        "interval": f"95% percentile bootstrap over deals ({res.bootstrap} resamples)",
    }


def _num(x) -> float | None:
    x = float(x)
    return None if math.isnan(x) else x
