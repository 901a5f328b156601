"""The result cache: the system's answers and the tiers' results, in one SQLite file in pytest's
cache dir (``.pytest_cache/d/sprout/cache.sqlite``, emptied by ``--cache-clear``).

Every key is the SHA-256 of everything the value depends on, so a change to any of them is a miss,
never a stale hit. Keys are per case: editing one case never invalidates another's entries.

- answers: plugin version, the case's id and question, the system's declared name and its
  ``fingerprint`` (else its ``version``). Answers are stored and reused only when the session asks
  for it (``--sprout-reuse-answers``, or a system that declares a fingerprint): a system's version
  says nothing about the knowledge base or the prompt behind it.
- tier results: plugin version, the hash of the judges' source files (``judge_code``: a judge
  whose code changed is a miss, bumped version or not), the case, the answer's content, the tier's name and
  ``settings()`` and every ``--sprout-threshold``. Where the case is written (file:line) is not
  part of the key; a cached failure message is given the case's current place.

Writes are kept in memory and written in one transaction per ``FLUSH_EVERY`` entries (one per run
for runs of fewer cases); a hit only notes the key. At the end of a run, ``prune`` drops the
entries of cases that are no longer in any suite and, for every (case, answer or tier) this run
used, the entries it did not use (older settings, older answers).

Results a judge could not score (``passed`` None, or an unscored metric) are never cached: they
are usually transient (a timeout). Text UTF-8 cannot hold (a lone surrogate in an answer) is
stored JSON-escaped and keyed by its exact code points.

Another process holding the file's write lock (another run flushing, a stuck process) is waited
for up to ``LOCK_WAIT_SECONDS``; past ``LOCK_NOTE_SECONDS`` the cache says so (``note``), and if
the lock is still held at the end, this run's entries are not written (a cache only costs time).
Plain Python, no pytest import.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import uuid
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from ..core.model import Answer, Case, GoldenItem
from ..core.identity import canonical_json
from ..core.tier import TierResult

FILE = "cache.sqlite"
FLUSH_EVERY = 5000
LOCK_NOTE_SECONDS = 5.0  # waiting this long for another process's lock is said (then every as long again)
LOCK_WAIT_SECONDS = 60.0  # then the write is given up
SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    key TEXT PRIMARY KEY,
    case_id TEXT NOT NULL,
    slot TEXT NOT NULL,   -- 'answer' or the tier's name
    run TEXT NOT NULL,    -- the last run that wrote or read it
    value TEXT NOT NULL,
    suite TEXT            -- the suite file of the case (as in its source), NULL when not known
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS entries_case ON entries (case_id, slot);
"""


class ResultCache:
    def __init__(self, root: Path | None, plugin_version: str, run: str | None = None, judge_code: str = "",
                 note: Callable[[str], None] | None = None) -> None:
        self.root = root  # None: caching is off (no cache dir, -p no:cacheprovider)
        self.note = note  # told when another process's lock keeps this one waiting
        self.plugin = plugin_version
        self.judge_code = judge_code  # util.judge_code_fingerprint(): the judges' source files
        self.run = run or uuid.uuid4().hex
        self._db: sqlite3.Connection | None = None
        self._broken = False
        self._pending: dict[str, tuple[str, str, str, str, str, str | None]] = {}
        self._used: list[str] = []
        self._settings: dict[int, tuple[Any, str | None]] = {}  # id(tier) -> (tier, canonical settings)

    # --- storage ------------------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection | None:
        if self._db is not None or self._broken or self.root is None:
            return self._db
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            for old in ("answers", "results"):  # the file-per-entry layout of earlier versions
                if (self.root / old).is_dir():
                    shutil.rmtree(self.root / old, ignore_errors=True)
            db = sqlite3.connect(self.root / FILE, timeout=LOCK_NOTE_SECONDS, isolation_level=None,
                                 check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.executescript(SCHEMA)
            if "suite" not in [row[1] for row in db.execute("PRAGMA table_info(entries)")]:
                db.execute("ALTER TABLE entries ADD COLUMN suite TEXT")  # a cache of an earlier version
        except sqlite3.Error:
            self._broken = True  # a cache that cannot be used only costs time
            return None
        self._db = db
        return db

    def _get(self, key: str | None) -> Any:
        if self.root is None or key is None:
            return None
        pending = self._pending.get(key)
        text = pending[4] if pending is not None else None
        if text is None:
            db = self._connect()
            if db is None:
                return None
            try:
                row = db.execute("SELECT value FROM entries WHERE key = ?", (key,)).fetchone()
            except sqlite3.Error:
                return None
            if row is None:
                return None
            text = row[0]
            self._used.append(key)
        try:
            return json.loads(text)
        except ValueError:
            return None  # broken: a miss; the next put repairs it

    def _put(self, key: str | None, case: Case, slot: str, value: Any) -> None:
        if self.root is None or key is None:
            return
        try:
            text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
            text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: stored as its JSON escape, read back the same
            text = json.dumps(value, ensure_ascii=True, separators=(",", ":"))
        except (TypeError, ValueError):
            return
        self._pending[key] = (key, case.id, slot, self.run, text, suite_of(case))
        if len(self._pending) >= FLUSH_EVERY:
            self.flush()

    def flush(self) -> None:
        """Write what this run added and note what it reused: one transaction."""
        if not self._pending and not self._used:
            return
        db = self._connect()
        pending, used = list(self._pending.values()), self._used
        self._pending, self._used = {}, []
        if db is None:
            return
        try:
            self._begin(db)
            db.executemany("INSERT OR REPLACE INTO entries (key, case_id, slot, run, value, suite) VALUES (?, ?, ?, ?, ?, ?)",
                           pending)
            db.executemany("UPDATE entries SET run = ? WHERE key = ?", ((self.run, key) for key in used))
            db.execute("COMMIT")
        except (sqlite3.Error, UnicodeError):
            _rollback(db)

    def prune(self, case_ids: Iterable[str] | None, loaded: Callable[[str], bool] | None = None) -> int:
        """Drop entries of cases no longer in any suite (``case_ids``: those still in one; None
        when that is not known), and, per (case, slot) this run used, the entries it did not use.
        ``loaded`` says whether an entry's suite file is one this run loaded (None: every one): a
        run of one suite file never drops the entries of the others. Call after every process of
        the run has flushed. Returns how many entries went."""
        db = self._connect()
        if db is None:
            return 0
        try:
            self._begin(db)
            gone = 0
            if case_ids is not None:
                db.execute("CREATE TEMP TABLE IF NOT EXISTS live (case_id TEXT PRIMARY KEY)")
                db.execute("DELETE FROM live")
                db.executemany("INSERT OR IGNORE INTO live VALUES (?)", ((cid,) for cid in case_ids))
                scope = "" if loaded is None else " AND suite IN (SELECT suite FROM scope)"
                if loaded is not None:
                    suites = [row[0] for row in db.execute("SELECT DISTINCT suite FROM entries WHERE suite IS NOT NULL")]
                    db.execute("CREATE TEMP TABLE IF NOT EXISTS scope (suite TEXT PRIMARY KEY)")
                    db.execute("DELETE FROM scope")
                    db.executemany("INSERT INTO scope VALUES (?)", ((s,) for s in suites if loaded(s)))
                gone += db.execute(f"DELETE FROM entries WHERE case_id NOT IN (SELECT case_id FROM live){scope}").rowcount
            gone += db.execute(
                "DELETE FROM entries WHERE run != ? AND EXISTS (SELECT 1 FROM entries AS now "
                "WHERE now.case_id = entries.case_id AND now.slot = entries.slot AND now.run = ?)",
                (self.run, self.run),
            ).rowcount
            db.execute("COMMIT")
        except sqlite3.Error:
            _rollback(db)
            return 0
        return gone

    def _begin(self, db: sqlite3.Connection) -> None:
        """Start a write transaction. Another process's lock is waited for, ``LOCK_NOTE_SECONDS``
        at a time (sqlite's busy timeout), saying so once, up to ``LOCK_WAIT_SECONDS``; then the
        lock error is raised (the caller gives the write up)."""
        waited = 0.0
        while True:
            try:
                db.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    raise
                waited += LOCK_NOTE_SECONDS
                if waited >= LOCK_WAIT_SECONDS:
                    self._say(f"the result cache {self.root / FILE if self.root else ''} stayed locked by another "
                              f"process for {LOCK_WAIT_SECONDS:g} s: this run's cache entries are not written")
                    raise
                if waited <= LOCK_NOTE_SECONDS:
                    self._say(f"the result cache {self.root / FILE if self.root else ''} is locked by another process "
                              f"(another pytest run?); waiting up to {LOCK_WAIT_SECONDS:g} s for it")

    def _say(self, text: str) -> None:
        if self.note is not None:
            self.note(text)

    def close(self) -> None:
        self.flush()
        if self._db is not None:
            self._db.close()
            self._db = None

    def entries(self) -> list[tuple[str, str, str]]:
        """(case_id, slot, value) of every stored entry, sorted (for tests and inspection)."""
        self.flush()
        db = self._connect()
        if db is None:
            return []
        return sorted(db.execute("SELECT case_id, slot, value FROM entries").fetchall())

    def _key(self, parts: Any) -> str | None:
        try:
            text = canonical_json(parts)
        except (TypeError, ValueError):
            return None
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()  # lone surrogates too

    # --- answers ------------------------------------------------------------------------------
    def answer_key(self, case: Case, system: Mapping[str, Any] | None) -> str | None:
        """The key of a case's answer from this system (its name, version or fingerprint, and
        origin: the factory and the callable's import path), or None when there is no system."""
        if not system:
            return None
        identity = {k: str(system[k]) for k in ("name", "version", "fingerprint", "origin") if system.get(k)}
        if "fingerprint" in identity:
            identity.pop("version", None)  # the fingerprint says what the answers depend on
        return self._key({"plugin": self.plugin, "kind": "answer", "id": case.id,
                          "question": case.question, "system": identity})

    def get_answer(self, case: Case, system: Mapping[str, Any] | None) -> Answer | None:
        data = self._get(self.answer_key(case, system))
        try:
            return None if data is None else Answer.from_json(data)
        except (KeyError, TypeError, AttributeError):
            return None

    def put_answer(self, case: Case, system: Mapping[str, Any] | None, answer: Answer) -> None:
        self._put(self.answer_key(case, system), case, "answer", answer.to_json())

    # --- tier results -------------------------------------------------------------------------
    def _tier_settings(self, tier: Any) -> str | None:
        held = self._settings.get(id(tier))
        if held is None or held[0] is not tier:
            try:
                text = canonical_json({"tier": tier.name, "settings": tier.settings()})
            except Exception:  # a tier whose settings cannot be read (or are not JSON) is not cached
                text = None
            held = self._settings[id(tier)] = (tier, text)
        return held[1]

    def result_key(self, tier: Any, item: GoldenItem, thresholds: Mapping[tuple[str, str], float]) -> str | None:
        if item.answer is None:
            return None
        settings = self._tier_settings(tier)
        if settings is None:
            return None
        digest = hashlib.sha256()
        for part in (
            self.plugin, self.judge_code, settings, canonical_json(sorted([t, n, v] for (t, n), v in thresholds.items())),
            _dumps(item.case.canonical()), _dumps(item.answer.to_json()),  # built in a fixed order
        ):
            digest.update(part.encode("utf-8", "surrogatepass"))  # an answer may hold a lone surrogate
            digest.update(b"\0")
        return digest.hexdigest()

    def get_result(self, key: str | None, case: Case | None = None) -> TierResult | None:
        data = self._get(key)
        if not isinstance(data, dict):
            return None
        source = data.pop("source", None)
        try:
            result = TierResult(**data)
        except TypeError:
            return None
        if case is not None and source and case.source and source != case.source and isinstance(result.message, str):
            result.message = result.message.replace(f"({source})", f"({case.source})")  # the case moved in its file
        return result

    def put_result(self, key: str | None, result: TierResult, case: Case, tier: str) -> None:
        if result.passed is None or any(v is None for values in result.metrics.values() for v in values):
            return
        self._put(key, case, tier, {
            "passed": result.passed, "metrics": result.metrics, "sentences": result.sentences,
            "message": result.message, "note": result.note, "extra": result.extra, "source": case.source,
            "reasons": result.reasons,
        })


def suite_of(case: Case) -> str | None:
    """The suite file a case is written in, from its source (``suites/care.yaml:3``)."""
    return case.source.rsplit(":", 1)[0] if case.source else None


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def cache_root(config: Any) -> Path | None:
    """``.pytest_cache/d/sprout``, or None when pytest's cache is off."""
    cache = getattr(config, "cache", None)
    if cache is None:
        return None
    try:
        return Path(cache.mkdir("sprout"))
    except OSError:
        return None


def _rollback(db: sqlite3.Connection) -> None:
    """End a failed transaction; the cache is an optimisation, so a failure to roll back is ignored."""
    try:
        db.execute("ROLLBACK")
    except sqlite3.Error:
        pass
