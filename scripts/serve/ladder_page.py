"""The ladder on a page (``cardzoo serve``, GET /ladder and /api/ladder): the standings of the
ladder file the server was started with (``cardzoo ladder``), read afresh on every request, so a
``ladder play`` running beside the server shows as it stores matches. Read only; a checkpoint is
shown by its file name and hash, never by where it lies.
"""

from __future__ import annotations

import html

from cardzoo.envs.errors import UserError


def standings_of(path: str | None) -> dict:
    """{"tables": [...]} or {"tables": [], "note": why there is nothing to show}."""
    from cardzoo.training.evaluation import ladder, ladder_store

    if path is None:
        return {"tables": [], "note": "this server was started without a ladder"}
    try:
        con = ladder_store.open_ladder(path, create=False)
    except UserError:
        return {
            "tables": [],
            "note": "no ladder yet: start one with `cardzoo ladder add rules random` "
            "and `cardzoo ladder play --game GAME`",
        }
    try:
        tables = ladder.standings(con)
    finally:
        con.close()
    for t in tables:
        for row in t["entrants"]:
            row.pop("key", None)  # a key names no path, but the page needs only the name
    return {"tables": tables}


def page(data: dict) -> str:
    """The standings as a plain HTML page (no script, no inline style: the server's CSP)."""
    parts = [
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>cardzoo ladder</title>",
        '<link rel=stylesheet href="/static/style.css"></head><body><main>',
        "<h1>Ladder</h1>",
        '<p><a href="/">back to the tables</a></p>',
    ]
    if data.get("note"):
        parts.append(f"<p>{html.escape(data['note'])}</p>")
    for t in data["tables"]:
        options = ", ".join(f"{k}={v}" for k, v in sorted(t["options"].items()))
        parts.append(
            f"<h2>{html.escape(t['game'])}, {t['players']} players"
            f"{html.escape(' (' + options + ')') if options else ''}</h2>"
        )
        parts.append(
            f"<p>{t['matches']} matches; Bradley–Terry ratings on the Elo scale, "
            f"{html.escape(t['anchor'])} = 0, with 95% intervals</p>"
        )
        parts.append(
            "<table><tr><th>entrant</th><th>rating</th><th>95% interval</th><th>matches</th><th>score</th></tr>"
        )
        for row in t["entrants"]:
            lo, hi = row["rating_ci"]
            rating = "—" if row["rating"] is None else f"{row['rating']:+.0f}"
            interval = "—" if lo is None else f"[{lo:+.0f}, {hi:+.0f}]"
            score = "—" if row["score"] is None else f"{row['score']:.3f}"
            parts.append(
                f"<tr><td>{html.escape(row['entrant'])}</td><td>{rating}</td><td>{interval}</td>"
                f"<td>{row['matches']}</td><td>{score}</td></tr>"
            )
        parts.append("</table>")
    parts.append("</main></body></html>")
    return "".join(parts)
