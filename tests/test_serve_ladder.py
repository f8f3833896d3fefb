"""`cardzoo serve` shows the ladder (GET /ladder, /api/ladder): the standings of the ladder file,
read afresh on every request, without the server's paths."""

from __future__ import annotations

import pytest

pytest.importorskip("starlette")

from starlette.testclient import TestClient

from cardzoo.scripts import cli
from cardzoo.scripts.serve.app import create_app


def test_the_page_shows_the_standings_as_matches_are_stored(tmp_path):
    db = str(tmp_path / "l.sqlite")
    assert cli.main(["ladder", "--db", db, "add", "rules", "random"]) == 0
    assert cli.main(["ladder", "--db", db, "play", "--game", "suipi", "--games", "4", "--workers", "1"]) == 0
    with TestClient(create_app(ladder=db)) as c:
        data = c.get("/api/ladder").json()
        (table,) = data["tables"]
        assert table["game"] == "suipi" and table["matches"] == 4
        assert [row["entrant"] for row in table["entrants"]] == ["rules", "random"]
        page = c.get("/ladder")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        assert "suipi, 2 players" in page.text and "<td>rules</td>" in page.text and str(tmp_path) not in page.text
        assert cli.main(["ladder", "--db", db, "play", "--game", "suipi", "--games", "8", "--workers", "1"]) == 0
        assert c.get("/api/ladder").json()["tables"][0]["matches"] == 8


@pytest.mark.parametrize("content", [None, b"junk" * 10])
def test_no_ladder_or_a_broken_file_is_a_note_without_the_path(tmp_path, content):
    db = tmp_path / "l.sqlite"
    if content is not None:
        db.write_bytes(content)
    with TestClient(create_app(ladder=str(db))) as c:
        data = c.get("/api/ladder").json()
        assert data["tables"] == [] and "cardzoo ladder add" in data["note"] and str(tmp_path) not in data["note"]
        assert c.get("/ladder").status_code == 200
    assert not db.exists() or db.read_bytes() == content
