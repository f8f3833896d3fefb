"""Publish a trained checkpoint into models/ with a measured model card.

    cardzoo model card runs/s/final.safetensors --name siantappo --games 1000 --seed 2027 \\
        --train-command "cardzoo train siantappo --players 3,4,5,6 ..."

1. copies the checkpoint to ``models/NAME.{safetensors,json}`` (and the run's learning curve, found
   beside the checkpoint or above its ``checkpoints/`` folder, to ``models/NAME.png``);
2. measures it at every player count it plays, with the same tournaments ``cardzoo eval`` runs
   (duplicate deals, all seatings, greedy play): head to head against the rule bot, against random,
   and a field of model, rule bot, random (and ``--field`` extras, e.g. an earlier model) for
   Bradley–Terry ratings — every report kept in ``models/NAME.eval.json``;
3. writes ``models/NAME.md`` from that JSON alone (``render_card``), so the card's tables can
   always be regenerated and checked against the measurements (tests do).

Use a seed that training and selection never used: the card's figures are then unbiased.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from cardzoo.envs.errors import UserError
from cardzoo.training.agents.checkpoint import atomic_write_text, checkpoint_paths, read_checkpoint
from cardzoo.training.agents.shipped import models_dirs, package_models_dir, shipped_model_file


def measure(
    weights: str,
    game: str,
    counts: list[int],
    games: int,
    seed: int,
    field: list[str],
    workers: int = 2,
    variants: dict | None = None,
    other_games: int = 200,
    ray: str | None = None,
) -> dict:
    """Every tournament the card reports, as ``cardzoo eval --json`` reports: ``games`` head to head
    against the rule bot (the headline), ``other_games`` against random and in the ratings field
    (on the Ray cluster at ``ray`` when given)."""
    from cardzoo.training.agents.specs import parse_agent_spec
    from cardzoo.training.evaluation.tournament import run_tournament

    def plays(spec: str, n: int) -> bool:  # checkpoints join the field only at counts they play
        parsed = parse_agent_spec(spec)
        return parsed.kind != "checkpoint" or n in read_checkpoint(parsed.path)[1]["player_counts"]

    for spec in field:  # a bad extra fails before hours of games, not after
        plays(spec, counts[0])
    out: dict[str, Any] = {"games": games, "other_games": other_games, "seed": seed, "per_players": {}}
    for n in counts:
        per = {}
        for opponent, count in (("rules", games), ("random", other_games)):
            res = run_tournament(
                game,
                [weights, opponent],
                players=n,
                games=count,
                seed=seed,
                workers=workers,
                options=variants,
                progress=True,
                ray=ray,
            )
            per[f"vs_{opponent}"] = res.report()
        extras = [f for f in field if plays(f, n)]
        res = run_tournament(
            game,
            [weights, "rules", "random", *extras],
            players=n,
            games=other_games,
            seed=seed + 1,
            workers=workers,
            options=variants,
            progress=True,
            ray=ray,
        )
        per["field"] = res.report()
        per["move_time"] = move_time(weights, game, n, seed=seed, variants=variants)
        out["per_players"][str(n)] = per
    return out


def move_time(
    weights: str,
    game: str,
    players: int,
    matches: int = 10,
    seed: int = 0,
    variants: dict | None = None,
    real_only: bool = False,
) -> dict:
    """Milliseconds per decision of the model (any agent spec) on one thread (``parallel.threads``),
    over ``matches`` matches in which it holds seat 0 against rule bots: mean, 99th percentile,
    count; ``real_only`` times only decisions with more than one legal action. For a searcher (the
    expert) also ``searched`` and ``departed``: the decisions it searched, and those where it played
    another move than the model's first choice."""
    import time

    import numpy as np

    from cardzoo.envs.registry import game_spec
    from cardzoo.training.agents.specs import agent_move, make_agent
    from cardzoo.training.parallel.threads import one_thread

    spec = game_spec(game)
    env = spec.raw_env(num_players=players, **(variants or {}))
    agents = [make_agent(weights, spec.module, env.config, seed=seed)]
    agents += [spec.rule_bot(env.config, seed=seed + s) for s in range(1, players)]
    times = []
    with one_thread():
        for m in range(matches):
            env.begin(seed * 1000 + m)
            for agent in agents:
                agent.reset()
            done = False
            while not done:
                seat = env.acting_seat
                legal = env.legal_now()
                mask = env.mask_now()
                obs = env.encode_seat(seat)
                start = time.perf_counter()
                action = agent_move(agents[seat], env, seat, obs, mask)
                if seat == 0 and (len(legal) > 1 or not real_only):
                    times.append(time.perf_counter() - start)
                done = env.advance(action).done
    ms = np.array(times) * 1000
    out = {
        "mean_ms": round(float(ms.mean()), 3),
        "p99_ms": round(float(np.percentile(ms, 99)), 3),
        "decisions": len(ms),
        "matches": matches,
    }
    if hasattr(agents[0], "departures"):  # a searcher: how often its search overrode the model
        out.update(searched=agents[0].searches, departed=agents[0].departures)
    return out


def _f(x) -> str:
    """A rating as text ('–' where the fit had none, e.g. an entrant that never lost)."""
    return "–" if x is None else f"{x:+.0f}"


def _ci(lo: float, hi: float, *, pct: bool = False) -> str:
    return f"[{lo:.1%}, {hi:.1%}]" if pct else f"[{lo:+.3f}, {hi:+.3f}]"


def render_card(
    name: str, meta: dict, ev: dict, train_command: str, notes: str = "", probe: dict | None = None, curve: bool = True
) -> str:
    """The model card, from the sidecar and the measurements only (and the probe's, when one was run)."""
    game = meta["game"]
    counts = [int(n) for n in ev["per_players"]]
    games, seed, other = ev["games"], ev["seed"], ev.get("other_games", ev["games"])
    head_rows, base_rows, rating_rows = _table_rows(ev, counts)
    weak = notes.strip() or "No weaknesses were written down for this model."
    speed_line = _speed_line(ev, counts)
    headline, verdict = _headline(ev, counts)
    cmd_counts = " / ".join(str(n) for n in counts)
    return f"""# {name}: {game}, {cmd_counts} players

**Head to head against the rule bot, the model's reward minus the rule bot's per match (duplicate
deals, 95% interval): {headline}** — {verdict}. Play it with `--seats human,model,...` or
`--agents model,...`.

## Against the rule bot

`cardzoo eval {game} --players N --agents models/{name}.safetensors,rules --games {games} --seed {seed}`

| players | games | model − rule bot reward per match [95% CI] | model wins [95% CI] |
|---:|---:|---:|---:|
{chr(10).join(head_rows)}

## Against random

`cardzoo eval {game} --players N --agents models/{name}.safetensors,random --games {other} --seed {seed}`

| players | games | model − random reward per match [95% CI] | model wins [95% CI] |
|---:|---:|---:|---:|
{chr(10).join(base_rows)}

Wins: first place in the match (ties split); with two entrants an even chance is 50%.

## Ratings

`cardzoo eval {game} --players N --agents models/{name}.safetensors,rules,random{_field_extras(ev)} --games {other} --seed {seed + 1}`
(and earlier models where listed);
Bradley–Terry ratings with random fixed at 0 (Elo scale, 95% bootstrap intervals):

| players | agent | rating [95% CI] |
|---:|---|---:|
{chr(10).join(rating_rows) or "| – | – | – |"}
{_ratings_note(ev)}
## How it was trained

* {_method(meta)}
{_started_from(meta)}{_warm_start(meta)}* {_amount(meta)} in
  {meta.get("training_minutes", "?")} minutes of wall clock on a 2-core machine, seed {meta.get("seed")};
  {_architecture(meta)},
  default rules of `{meta["env"]}`; every setting is in `models/{name}.json` (`settings`).
* Command: {_command(train_command)}
{speed_line}{_curve_line(name) if curve else ""}{_probe_section(probe)}
## Where it is still weak

{weak}
"""  # noqa: E501 - the card's lines as it prints them


def _table_rows(ev: dict, counts: list[int]) -> tuple[list[str], list[str], list[str]]:
    """The rows of the card's three tables: against the rule bot, against random, the ratings."""
    head_rows, base_rows, rating_rows = [], [], []
    for n in counts:
        per = ev["per_players"][str(n)]
        pair = per["vs_rules"]["pairs"][0]
        me_rules = per["vs_rules"]["entrants"][0]
        me_random = per["vs_random"]["entrants"][0]
        rand_pair = per["vs_random"]["pairs"][0]
        luck = ""  # measured with a value network: the luck-adjusted advantage too (same games)
        if pair.get("adjusted_advantage") is not None:
            luck = f" (luck-adjusted {pair['adjusted_advantage']:+.3f} {_ci(*pair['adjusted_advantage_ci'])})"
        head_rows.append(
            f"| {n} | {pair['games']} | **{pair['advantage']:+.3f}** {_ci(*pair['advantage_ci'])}{luck} | "
            f"{me_rules['win_rate']:.1%} {_ci(*me_rules['win_ci'], pct=True)} |"
        )
        base_rows.append(
            f"| {n} | {rand_pair['games']} | {rand_pair['advantage']:+.3f} {_ci(*rand_pair['advantage_ci'])} | "
            f"{me_random['win_rate']:.1%} {_ci(*me_random['win_ci'], pct=True)} |"
        )
        for ent in per["field"]["entrants"]:
            if "rating" in ent:
                lo, hi = ent["rating_ci"]
                rating_rows.append(f"| {n} | {ent['name']} | {_f(ent['rating'])} [{_f(lo)}, {_f(hi)}] |")
    return head_rows, base_rows, rating_rows


def _speed_line(ev: dict, counts: list[int]) -> str:
    """The move timer's line, where the measurement timed the model's ``act``."""
    timed = [(n, ev["per_players"][str(n)].get("move_time")) for n in counts]
    speed = "; ".join(
        f"{n} players {t['mean_ms']:.2f} ms (p99 {t['p99_ms']:.2f} ms, {t['decisions']:,} calls)" for n, t in timed if t
    )
    return (
        f"* Time per `act` call on one thread, the model in seat 0 against "
        f"rule bots, {timed[0][1]['matches']} matches per count: {speed}.\n"
        if speed
        else ""
    )


def _headline(ev: dict, counts: list[int]) -> tuple[str, str]:
    """The advantage over the rule bot at every count, and what it says of the model."""
    pairs = [(n, ev["per_players"][str(n)]["vs_rules"]["pairs"][0]) for n in counts]
    headline = "; ".join(f"{n} players {p['advantage']:+.3f} {_ci(*p['advantage_ci'])}" for n, p in pairs)
    above = [n for n, p in pairs if p["advantage_ci"][0] > 0]
    verdict = (
        f"clearly stronger than the rule bot at {', '.join(map(str, above))} players (95% interval above 0)"
        if above
        else "not clearly stronger than the rule bot at any player count"
    )
    return headline, verdict


def _curve_line(name: str) -> str:
    """The learning curve's line (``curve``: the run left one; a warm start alone, or a run without
    evaluations, leaves none)."""
    return (
        f"* Learning curve (the model's mean reward per match against each baseline during training):\n"
        f"  ![learning curve]({name}.png)\n"
    )


def _command(text: str) -> str:
    """The training command as code; a text that marks its own code (a chain of runs, each
    command in backticks, with words between) is kept as it is."""
    return text if "`" in text else f"`{text}`"


def _probe_section(probe: dict | None) -> str:
    """The card's "Exploitability probe" section (``cardzoo model probe``), empty without one."""
    if not probe:
        return ""
    rows = []
    for target, who in (("model", "the model"), ("rules", "the rule bot")):
        r = probe["exploiters"][target]
        rows.append(
            f"| {who} | {r['samples']:,} | {r['minutes']:g} | **{r['advantage']:+.3f}** "
            f"{_ci(*r['advantage_ci'])} | {r['win_rate']:.1%} {_ci(*r['win_ci'], pct=True)} |"
        )
    m, r = probe["exploiters"]["model"], probe["exploiters"]["rules"]
    verdict = (
        "concedes less to its exploiter than the rule bot does to the same budget (the intervals do not meet)"
        if m["advantage_ci"][1] < r["advantage_ci"][0]
        else "concedes more to its exploiter than the rule bot does to the same budget (the intervals do not meet)"
        if m["advantage_ci"][0] > r["advantage_ci"][1]
        else "and the rule bot concede about as much to their exploiters (the intervals meet)"
    )
    if m["advantage_ci"][0] <= 0 and r["advantage_ci"][0] <= 0:
        verdict += "; neither exploiter is shown to beat its target in this budget (no interval lies above 0)"
    n = probe["players"]
    return f"""
## Exploitability probe

`{probe["command"]}`

Two fresh Deep Monte-Carlo learners, each warm-started on the rule bot's choices and then trained for
{probe["minutes"]:g} minutes of wall clock with every other side played by one frozen agent (`--opponents
AGENT --selfplay 0`), then measured against that agent at {n} players: one side the exploiter, every
other side the agent, every seating ({m["games"]} games each, seed {m["eval_seed"]}). The model {verdict}.

| exploiter trained against | samples | minutes | exploiter − its target, reward per match [95% CI] | exploiter wins [95% CI] |
|---|---:|---:|---:|---:|
{chr(10).join(rows)}
"""  # noqa: E501 - the card's lines as it prints them


def attach_probe(name: str, result: dict, command: str) -> Path:
    """Keep a probe's result as ``models/NAME.probe.json`` and render NAME's card again with it."""
    folder = models_dirs()[0]
    if not (folder / f"{name}.eval.json").is_file():
        raise UserError(f"--name {name}: no model card to add the probe to ({folder / (name + '.eval.json')})")
    atomic_write_text(folder / f"{name}.probe.json", json.dumps({**result, "command": command}, indent=1) + "\n")
    atomic_write_text(folder / f"{name}.md", rerender(name, folder))
    return folder / f"{name}.md"


def _field_extras(ev: dict) -> str:
    """The ratings field's extra agents that are agent kinds, not checkpoints (e.g. ``,teacher``), as
    they go on the command line; earlier checkpoints are the "earlier models where listed"."""
    names = [e["name"] for per in ev["per_players"].values() for e in per["field"]["entrants"][3:]]
    return "".join(f",{n}" for n in dict.fromkeys(names) if not n.endswith(".safetensors"))


def _ratings_note(ev: dict) -> str:
    """A line under the ratings table where the eval JSON says something about them (``ratings_note``,
    e.g. that the field was measured before a change and could not be measured again)."""
    note = ev.get("ratings_note", "").strip()
    return f"\n{note}\n" if note else ""


def _warm_start_only(meta: dict) -> bool:
    return not meta.get("training_steps", 0) and bool(meta.get("settings", {}).get("imitate"))


def _method(meta: dict) -> str:
    if _warm_start_only(meta):
        return (
            f"{meta.get('algorithm', '')}: this checkpoint is the run's warm start, before any learning from returns."
        )
    return f"{meta.get('algorithm', '')}; opponents: {meta.get('opponent_pool', '')}."


def _amount(meta: dict) -> str:
    steps = meta.get("training_steps", 0)
    if _warm_start_only(meta):
        return "The warm start alone (this checkpoint was written when it ended; no learner decisions after it),"
    return f"{steps:,} learner decisions ({meta.get('training_matches', 0):,} matches)"


def _started_from(meta: dict) -> str:
    """The card's line for a run that continued an earlier checkpoint (``--init``), with the totals."""
    e = meta.get("started_from")
    if not e:
        return ""
    name = e.get("name") or e["path"]
    minutes = round(e["total_training_minutes"] + meta.get("training_minutes", 0), 1)
    steps = e["total_training_steps"] + meta.get("training_steps", 0)
    return (
        f"* Continued from the weights of `{name}` (`{e['path']}` as it was then, weights sha256 "
        f"{e['weights_sha256'][:12]}…: {e['training_steps']:,} learner decisions in {e['training_minutes']:g} "
        f"minutes); in all {steps:,} learner decisions in {minutes:g} minutes of wall clock.\n"
    )


def _warm_start(meta: dict) -> str:
    """The warm-start line of the card (empty when the run had none)."""
    settings = meta.get("settings", {})
    if not settings.get("imitate"):
        return ""
    who = {
        "teacher": "the game's teacher player (agent spec `teacher`)",
        "expert": f"the expert (agent spec `expert`: search over {settings.get('init') or 'the shipped model'})",
    }.get(settings.get("imitate_from"), "the rule bot")
    if settings.get("init"):
        who += f", starting from the weights of {settings['init']}"
    how = (
        "fits its Q to the search's values of the moves searched by"
        if settings.get("imitate_targets") == "values"
        else "imitates"
    )
    return f"* Warm start: {how} {who} on {settings['imitate']:,} matches it played in every seat.\n"


def _architecture(meta: dict) -> str:
    from cardzoo.training.agents.numpy_nets import architecture_of

    return architecture_of(meta).describe(meta)


def publish(
    checkpoint: str,
    name: str,
    games: int,
    seed: int,
    train_command: str,
    field: list[str],
    notes: str = "",
    workers: int = 2,
    other_games: int = 200,
    ray: str | None = None,
) -> Path:
    _, meta = read_checkpoint(checkpoint)  # refuses a damaged file before anything is copied
    out = models_dirs()[0]  # CARDZOO_MODELS's first folder, else the shipped models
    out.mkdir(exist_ok=True)
    weights, _ = checkpoint_paths(checkpoint)
    shutil.copyfile(weights, out / f"{name}.safetensors")
    meta = dict(meta, name=name)
    atomic_write_text(out / f"{name}.json", json.dumps(meta, indent=2, sort_keys=True) + "\n")
    curve = learning_curve_of(weights)
    if curve is not None:
        shutil.copyfile(curve, out / f"{name}.png")
    else:  # no curve is better than an earlier model's
        (out / f"{name}.png").unlink(missing_ok=True)
    ev = measure(
        str(out / f"{name}.safetensors"),
        meta["game"],
        meta["player_counts"],
        games,
        seed,
        field,
        workers,
        other_games=other_games,
        ray=ray,
    )
    ev.update(name=name, train_command=train_command, notes=notes)
    atomic_write_text(out / f"{name}.eval.json", json.dumps(ev, indent=1) + "\n")
    (out / f"{name}.probe.json").unlink(missing_ok=True)  # an earlier model's probe says nothing of this one
    atomic_write_text(out / f"{name}.md", render_card(name, meta, ev, train_command, notes, curve=curve is not None))
    return out / f"{name}.md"


def learning_curve_of(weights: Path) -> Path | None:
    """The run's learning curve for a checkpoint: beside it (``OUT/final``) or one folder up
    (``OUT/checkpoints/NAME``); None when the run has none."""
    curves = [d / "learning_curve.png" for d in (weights.parent, weights.parent.parent)]
    return next((c for c in curves if c.is_file()), None)


def rerender(name: str, folder: Path | None = None) -> str:
    """The card as the files in ``folder`` (the shipped models) say it should read (tests compare it
    with the .md)."""
    folder = folder or package_models_dir()
    meta = json.loads((folder / f"{name}.json").read_text())
    ev = json.loads((folder / f"{name}.eval.json").read_text())
    probe = folder / f"{name}.probe.json"
    return render_card(
        name,
        meta,
        ev,
        ev["train_command"],
        ev.get("notes", ""),
        json.loads(probe.read_text()) if probe.is_file() else None,
        curve=(folder / f"{name}.png").is_file(),
    )


def probe_table() -> str:
    """Every shipped model's exploitability probe (models/NAME.probe.json) as one table
    (docs/evaluation.md; tests keep them equal)."""
    rows = [
        (
            "| model | players | minutes each | exploiter of the model − the model [95% CI] | samples "
            "| exploiter of the rule bot − the rule bot [95% CI] | samples |"
        ),
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for path in sorted(package_models_dir().glob("*.probe.json")):
        probe = json.loads(path.read_text())
        m, r = probe["exploiters"]["model"], probe["exploiters"]["rules"]
        name = path.name[: -len(".probe.json")]
        rows.append(
            f"| [{name}](../models/{name}.md) | {probe['players']} | {probe['minutes']:g} | "
            f"{m['advantage']:+.3f} {_ci(*m['advantage_ci'])} | {m['samples']:,} | "
            f"{r['advantage']:+.3f} {_ci(*r['advantage_ci'])} | {r['samples']:,} |"
        )
    return "\n".join(rows)


def readme_table() -> str:
    """README's "Trained models" table, from every models/NAME.eval.json (tests keep them equal):
    a row per model and player count that the ``model`` agent plays with it (a count that a
    specialist such as ``siantappo-3p`` takes over is left out of the general model's rows)."""
    rows = [
        (
            "| model | players | vs the rule bot: model − rules reward per match [95% CI] | wins vs rules "
            "| wins vs random |"
        ),
        "|---|---:|---:|---:|---:|",
    ]
    for path in sorted(package_models_dir().glob("*.eval.json")):
        ev = json.loads(path.read_text())
        name = ev["name"]
        weights = str(path.with_name(name + ".safetensors"))
        for n, per in ev["per_players"].items():
            if shipped_model_file(per["vs_rules"]["game"], int(n), [path.parent]) != weights:
                continue
            pair = per["vs_rules"]["pairs"][0]
            rows.append(
                f"| [{name}](models/{name}.md) | {n} | {pair['advantage']:+.3f} {_ci(*pair['advantage_ci'])} | "
                f"{per['vs_rules']['entrants'][0]['win_rate']:.1%} | "
                f"{per['vs_random']['entrants'][0]['win_rate']:.1%} |"
            )
    return "\n".join(rows)
