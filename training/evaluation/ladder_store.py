"""The ladder's SQLite file (``cardzoo ladder``): entrants and every match, in one file in WAL mode,
read and written with the standard library's ``sqlite3``.

Every match is its own transaction, committed as it finishes, so a killed ``ladder play`` loses at
most the match in flight, and two processes writing at once (or one process taking results from
Ray actors) lose nothing: WAL lets readers read while one writer writes, the busy timeout makes a
second writer wait its turn, and a match is identified by (game, players, rules, pair, deal,
seating), so the same match played twice is stored once. A file that is not a ladder — another
SQLite database, anything else, a newer format — is refused with one line before anything is written.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from cardzoo.envs.errors import UserError
from cardzoo.training.agents.specs import AgentSpec, parse_agent_spec

FORMAT = "cardzoo-ladder"
VERSION = 1
_HEADER = b"SQLite format 3\x00"
BUSY_MS = 120_000  # how long a writer waits for another one to finish its transaction

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE entrants (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,     -- what identifies it: the spec, a checkpoint by its SHA-256
    spec TEXT NOT NULL,           -- the agent spec that builds it (a checkpoint: its absolute path)
    sha256 TEXT,                  -- a checkpoint's weights file hash, else NULL
    added TEXT NOT NULL
);
CREATE TABLE matches (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL, players INTEGER NOT NULL,
    rules TEXT NOT NULL,          -- the game's config as JSON
    a INTEGER NOT NULL REFERENCES entrants(id), b INTEGER NOT NULL REFERENCES entrants(id),  -- a < b
    deal INTEGER NOT NULL,        -- the pair's deal number; seating: index in its duplicate set
    seating INTEGER NOT NULL,
    deal_seed INTEGER NOT NULL,   -- the episode seed the cards came from
    seats TEXT NOT NULL,          -- JSON: the entrant id on every seat
    rewards TEXT NOT NULL,        -- JSON: every seat's total reward
    scores TEXT NOT NULL,         -- JSON: every side's score (what decides the winner)
    adjusted_rewards TEXT,        -- JSON: every seat's luck-adjusted reward, where computed
    steps INTEGER NOT NULL,
    played TEXT NOT NULL,
    UNIQUE (game, players, rules, a, b, deal, seating)
);
"""


@dataclass(frozen=True)
class Entrant:
    id: int
    key: str
    spec: str
    sha256: str | None

    @property
    def agent(self) -> AgentSpec:
        return parse_agent_spec(self.spec)

    @property
    def name(self) -> str:
        """How tables show it: the spec's label, a checkpoint with the start of its hash."""
        if self.sha256 is None:
            return self.spec
        return f"{os.path.basename(self.spec)} [{self.sha256[:8]}]"


def default_path() -> str:
    """$CARDZOO_LADDER, else cardzoo/ladder.sqlite in the user's data folder ($XDG_DATA_HOME or
    ~/.local/share)."""
    env = os.environ.get("CARDZOO_LADDER")
    if env:
        return env
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "cardzoo", "ladder.sqlite")


def open_ladder(path: str, create: bool) -> sqlite3.Connection:
    """The ladder at ``path`` (made when ``create`` and it does not exist yet), or a one-line
    UserError: not there, not a ladder, unreadable."""
    p = Path(path)
    if p.is_dir():
        raise UserError(f"--db {path} is a folder; give a file name")
    exists = p.exists() and p.stat().st_size > 0
    if exists:
        _check_header(p)
    elif not create:
        raise UserError(f"no ladder at {path}; start one with `cardzoo ladder --db {path} add rules random`")
    elif not p.parent.is_dir():
        if p.parent != Path(default_path()).parent:
            raise UserError(f"--db {path}: the folder {p.parent} does not exist")
        p.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(str(p), timeout=BUSY_MS / 1000, isolation_level=None)
    try:
        con.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
        _check_or_create(con, path, create and not exists)
    except (sqlite3.DatabaseError, UserError) as e:
        con.close()
        if isinstance(e, UserError):
            raise
        raise UserError(f"{path} is not a readable cardzoo ladder ({e})") from None
    return con


def _check_header(p: Path) -> None:
    try:
        with open(p, "rb") as f:
            head = f.read(len(_HEADER))
    except OSError as e:
        raise UserError(f"cannot read the ladder {p} ({e.strerror or e})") from None
    if head != _HEADER:
        raise UserError(f"{p} is not a cardzoo ladder (not an SQLite database)")


def _check_or_create(con: sqlite3.Connection, path: str, new: bool) -> None:
    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not tables and new:
        con.execute("PRAGMA journal_mode = WAL")
        con.execute("BEGIN IMMEDIATE")
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not tables:  # another process may have made it meanwhile
            for statement in _SCHEMA.split(";\n"):  # one by one: executescript would commit at once
                if statement.strip():
                    con.execute(statement)
            con.execute("INSERT INTO meta VALUES ('format', ?), ('version', ?)", (FORMAT, str(VERSION)))
        con.execute("COMMIT")
        return
    if "meta" not in tables:
        raise UserError(f"{path} is an SQLite database but not a cardzoo ladder")
    meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
    if meta.get("format") != FORMAT:
        raise UserError(f"{path} is an SQLite database but not a cardzoo ladder")
    if meta.get("version") != str(VERSION):
        raise UserError(
            f"{path} is a cardzoo ladder of format version {meta.get('version')}; this cardzoo reads version {VERSION}"
        )
    con.execute("PRAGMA journal_mode = WAL")


def _weights(path: str) -> str:
    """The weights file of a checkpoint given as NAME, NAME.safetensors or NAME.json."""
    stem, ext = os.path.splitext(path)
    return (stem if ext in (".safetensors", ".json") else path) + ".safetensors"


def _sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def entrant_key(spec: AgentSpec) -> tuple[str, str, str | None]:
    """(key, spec text to store, SHA-256) of an agent spec: a checkpoint is its weights' hash (the
    same file under another name is the same entrant), any other agent its canonical spec."""
    if spec.kind != "checkpoint":
        text = spec.label
        return text, text, None
    weights = _weights(spec.path or "")
    try:
        digest = _sha256(weights)
    except OSError as e:
        raise UserError(f"cannot read the checkpoint {weights} ({e.strerror or e})") from None
    seed = "" if spec.seed is None else f"@{spec.seed}"
    path = os.path.abspath(spec.path or "")
    return f"sha256:{digest}{seed}", path + seed, digest


def add_entrant(con: sqlite3.Connection, spec: AgentSpec) -> tuple[Entrant, bool]:
    """Put an agent on the ladder: (its entrant, whether it is new). A checkpoint already there
    under another path is the same entrant; its path is updated to the one given."""
    key, text, digest = entrant_key(spec)
    now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    con.execute("BEGIN IMMEDIATE")
    try:
        row = con.execute("SELECT id FROM entrants WHERE key = ?", (key,)).fetchone()
        if row is None:
            con.execute("INSERT INTO entrants (key, spec, sha256, added) VALUES (?, ?, ?, ?)", (key, text, digest, now))
        else:
            con.execute("UPDATE entrants SET spec = ? WHERE id = ?", (text, row[0]))
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    entrant = next(e for e in entrants(con) if e.key == key)
    return entrant, row is None


def entrants(con: sqlite3.Connection) -> list[Entrant]:
    return [Entrant(*r) for r in con.execute("SELECT id, key, spec, sha256 FROM entrants ORDER BY id")]


@dataclass(frozen=True)
class Match:
    """One stored match of a pair (a < b, entrant ids)."""

    game: str
    players: int
    rules: str
    a: int
    b: int
    deal: int
    seating: int
    deal_seed: int
    seats: list[int]
    rewards: list[float]
    scores: list[float]
    steps: int
    adjusted_rewards: list[float] | None = None


def store_match(con: sqlite3.Connection, m: Match) -> None:
    """Commit one finished match (kept once if another process stored it first)."""
    now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    adjusted = None if m.adjusted_rewards is None else json.dumps(m.adjusted_rewards)
    con.execute(
        "INSERT OR IGNORE INTO matches (game, players, rules, a, b, deal, seating, deal_seed, seats, rewards, "
        "scores, adjusted_rewards, steps, played) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            m.game,
            m.players,
            m.rules,
            m.a,
            m.b,
            m.deal,
            m.seating,
            m.deal_seed,
            json.dumps(m.seats),
            json.dumps(m.rewards),
            json.dumps(m.scores),
            adjusted,
            m.steps,
            now,
        ),
    )


def matches(
    con: sqlite3.Connection,
    game: str | None = None,
    players: int | None = None,
    rules: str | None = None,
    pair: tuple[int, int] | None = None,
) -> list[Match]:
    """Stored matches, in (game, players, rules, pair, deal, seating) order, optionally only some."""
    where, args = [], []
    for column, value in (("game", game), ("players", players), ("rules", rules)):
        if value is not None:
            where.append(f"{column} = ?")
            args.append(value)
    if pair is not None:
        where.append("a = ? AND b = ?")
        args += list(pair)
    sql = (
        "SELECT game, players, rules, a, b, deal, seating, deal_seed, seats, rewards, scores, steps, "
        "adjusted_rewards FROM matches"
        + (" WHERE " + " AND ".join(where) if where else "")
        + " ORDER BY game, players, rules, a, b, deal, seating"
    )
    out = []
    for r in con.execute(sql, args):
        adjusted = None if r[12] is None else json.loads(r[12])
        game, players, rules, a, b, deal, seating, deal_seed = r[:8]
        out.append(
            Match(
                game,
                players,
                rules,
                a,
                b,
                deal,
                seating,
                deal_seed,
                json.loads(r[8]),
                json.loads(r[9]),
                json.loads(r[10]),
                r[11],
                adjusted,
            )
        )
    return out
