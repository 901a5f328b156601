"""Dataset identity and the snapshot guard: which cases a result describes, and whether the frozen
artifacts (golden sets, JSON reports) still describe them. Plain Python, no pytest import."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from .model import Case

SNAPSHOT_NAME = "sprout.snapshot.json"
FORMAT = 1
KINDS = {"golden": "golden set", "report": "report"}
LIST_LIMIT = 20  # case ids shown per list before "... and N more"

Fingerprints = dict[str, dict[str, str]]  # case id -> field -> short hash of the field's value


class SnapshotError(Exception):
    """A snapshot, golden set or report file that cannot be read; the message names the file."""


def canonical_json(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def dataset_hash(cases: Iterable[Case]) -> str:
    """SHA-256 of the canonical JSON of every case (sorted keys, cases sorted by id)."""
    rows = sorted((case.canonical() for case in cases), key=lambda row: row["id"])
    return hashlib.sha256(canonical_json(rows).encode("utf-8")).hexdigest()


def short(digest: str | None) -> str:
    return (digest or "none")[:12]


def fingerprints(cases: Iterable[Case]) -> Fingerprints:
    """Per case, a short hash of each field that defines it: enough to say which fields changed."""
    out: Fingerprints = {}
    for case in cases:
        row = case.canonical()
        row.pop("id")
        out[case.id] = {
            name: hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()[:16]
            for name, value in sorted(row.items())
        }
    return out


def suite_counts(cases: Iterable[Case]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for case in cases:
        counts[case.suite] = counts.get(case.suite, 0) + 1
    return dict(sorted(counts.items()))


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def read_json(path: Path, label: str) -> Any:
    """Parse a JSON file; a missing, unreadable or broken file raises SnapshotError naming it."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SnapshotError(f"{label}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SnapshotError(f"{label}: cannot read it ({exc})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise SnapshotError(f"{label}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except (RecursionError, ValueError, OverflowError) as exc:  # nesting too deep, a number too long
        raise SnapshotError(f"{label}: cannot be read ({type(exc).__name__}: {str(exc)[:120]})") from None


MAX_COUNT = 10**9  # more cases than any suite holds: a tampered or broken file


def check_artifact_path(path: Any, label: str) -> str:
    """An artifact path as the snapshot names it: relative, forward slashes, inside the rootdir.
    A path outside it would make the printed rebuild command write outside the project."""
    from pathlib import PurePosixPath, PureWindowsPath

    where = f"{label}: field 'artifacts.{path}'"
    if not isinstance(path, str) or not path or any(ord(ch) < 32 for ch in path):
        raise SnapshotError(f"{where}: the key must be a file path")
    posix, windows = PurePosixPath(path), PureWindowsPath(path)
    if posix.is_absolute() or windows.is_absolute() or windows.drive or ".." in posix.parts or ".." in windows.parts:
        raise SnapshotError(f"{where}: names a path outside the rootdir; artifacts must live inside the project")
    return path


def _require(data: Mapping[str, Any], key: str, kind: type | tuple[type, ...], label: str, where: str = "") -> Any:
    if key not in data:
        raise SnapshotError(f"{label}: field '{where}{key}' is missing")
    value = data[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is int:
        name = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise SnapshotError(f"{label}: field '{where}{key}' must be {name}, got {type(value).__name__}")
    return value


def check_fingerprints(value: Any, label: str, where: str) -> Fingerprints:
    if not isinstance(value, dict):
        raise SnapshotError(f"{label}: field '{where}' must be an object of case ids")
    for case_id, fields in value.items():
        if not isinstance(fields, dict) or not all(isinstance(v, str) for v in fields.values()):
            raise SnapshotError(f"{label}: field '{where}.{case_id}' must map field names to hashes")
    return value


# --- differences between two datasets ---------------------------------------------------------


@dataclass
class DatasetDiff:
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: dict[str, list[str]] = field(default_factory=dict)  # case id -> fields that changed

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)

    def lines(self, indent: str = "  ") -> list[str]:
        out = []
        if self.added:
            out.append(f"{indent}added ({len(self.added)}): {_ids(self.added)}")
        if self.removed:
            out.append(f"{indent}removed ({len(self.removed)}): {_ids(self.removed)}")
        if self.changed:
            items = [f"{cid} ({', '.join(fields)})" for cid, fields in self.changed.items()]
            out.append(f"{indent}changed ({len(items)}): {_ids(items)}")
        return out


def _ids(ids: list[str]) -> str:
    shown = ", ".join(ids[:LIST_LIMIT])
    return shown + (f", ... and {len(ids) - LIST_LIMIT} more" if len(ids) > LIST_LIMIT else "")


def diff(old: Mapping[str, Mapping[str, str]], new: Mapping[str, Mapping[str, str]]) -> DatasetDiff:
    """Cases added, removed and changed (with the fields that changed) from ``old`` to ``new``."""
    result = DatasetDiff(
        added=sorted(set(new) - set(old)),
        removed=sorted(set(old) - set(new)),
    )
    for case_id in sorted(set(old) & set(new)):
        before, after = old[case_id], new[case_id]
        fields = sorted(name for name in set(before) | set(after) if before.get(name) != after.get(name))
        if fields:
            result.changed[case_id] = fields
    return result


# --- frozen artifacts -------------------------------------------------------------------------


@dataclass(frozen=True)
class Artifact:
    """A frozen file registered in the snapshot. ``golden_sha256`` is, for a report, the golden set
    its answers came from (replayed, or recorded in the same run)."""

    path: str  # relative to the rootdir, with forward slashes
    kind: str  # "golden" or "report"
    sha256: str
    dataset_hash: str
    golden_sha256: str | None = None

    @property
    def label(self) -> str:
        return f"{self.path} ({KINDS.get(self.kind, self.kind)})"

    def to_json(self) -> dict[str, Any]:
        data = {"kind": self.kind, "sha256": self.sha256, "dataset_hash": self.dataset_hash}
        if self.golden_sha256:
            data["golden_sha256"] = self.golden_sha256
        return data

    @classmethod
    def from_json(cls, path: str, data: Any, label: str) -> "Artifact":
        check_artifact_path(path, label)
        where = f"artifacts.{path}."
        if not isinstance(data, dict):
            raise SnapshotError(f"{label}: field 'artifacts.{path}' must be an object")
        kind = _require(data, "kind", str, label, where)
        if kind not in KINDS:
            raise SnapshotError(f"{label}: field '{where}kind' must be one of {', '.join(KINDS)}, got {kind!r}")
        golden = data.get("golden_sha256")
        if golden is not None and not isinstance(golden, str):
            raise SnapshotError(f"{label}: field '{where}golden_sha256' must be a string")
        return cls(path, kind, _require(data, "sha256", str, label, where),
                   _require(data, "dataset_hash", str, label, where), golden)


def relative(path: Path, root: Path) -> str:
    """How a file is named in the snapshot: relative to the rootdir, forward slashes."""
    try:
        return Path(os.path.relpath(path, root)).as_posix()
    except ValueError:  # another drive on Windows
        return Path(path).as_posix()


def read_artifact(path: Path, kind: str, root: Path) -> Artifact:
    """Describe a golden set or JSON report as written: its sha256 and what it was built from."""
    label = relative(path, root)
    data = read_json(path, label)
    if not isinstance(data, dict):
        raise SnapshotError(f"{label}: expected a JSON object")
    built_from = _require(data, "dataset_hash", str, label)
    golden = data.get("golden")
    golden_sha = golden.get("sha256") if isinstance(golden, dict) else None
    return Artifact(label, kind, file_sha256(path), built_from, golden_sha)


def artifact_problems(artifacts: Iterable[Artifact], root: Path, current_hash: str) -> list[str]:
    """Why registered artifacts no longer describe the dataset: missing, edited since they were
    registered, built from another dataset, or built from a golden set other than the registered one."""
    artifacts = list(artifacts)
    goldens = {a.sha256 for a in artifacts if a.kind == "golden"}
    problems = []
    for art in artifacts:
        path = Path(root, art.path)
        if not path.is_file():
            problems.append(f"{art.label}: registered but missing; rebuild it, or run --sprout-update-snapshot to unregister it")
            continue
        sha = file_sha256(path)
        if sha != art.sha256:
            problems.append(
                f"{art.label}: edited since it was registered (sha256 {short(sha)}, "
                f"registered {short(art.sha256)}); it was changed by hand or rebuilt outside the chain"
            )
        if art.dataset_hash != current_hash:
            problems.append(
                f"{art.label}: stale, built from dataset {short(art.dataset_hash)} but the suites are now {short(current_hash)}"
            )
        if art.kind == "report" and goldens and art.golden_sha256 not in goldens:
            source = f"golden set {short(art.golden_sha256)}" if art.golden_sha256 else "a live run"
            problems.append(
                f"{art.label}: built from {source}, not from the registered golden set "
                f"(a partial rebuild: re-run the whole chain, or none of it)"
            )
    return problems


# --- the snapshot file ------------------------------------------------------------------------


@dataclass
class Snapshot:
    dataset_hash: str
    suites: dict[str, int]
    cases: Fingerprints
    plugin_version: str
    artifacts: dict[str, Artifact] = field(default_factory=dict)

    @classmethod
    def build(cls, cases: list[Case], plugin_version: str, artifacts: Iterable[Artifact] = ()) -> "Snapshot":
        return cls(dataset_hash(cases), suite_counts(cases), fingerprints(cases), plugin_version,
                   {a.path: a for a in artifacts})

    def to_json(self) -> dict[str, Any]:
        return {
            "pytest_sprout": "snapshot",
            "format": FORMAT,
            "plugin_version": self.plugin_version,
            "dataset_hash": self.dataset_hash,
            "case_count": sum(self.suites.values()),
            "suites": self.suites,
            "cases": self.cases,
            "artifacts": {path: art.to_json() for path, art in sorted(self.artifacts.items())},
        }

    @classmethod
    def from_json(cls, data: Any, label: str) -> "Snapshot":
        if not isinstance(data, dict) or data.get("pytest_sprout") != "snapshot":
            raise SnapshotError(f"{label}: not a pytest-sprout snapshot (expected \"pytest_sprout\": \"snapshot\")")
        if data.get("format") != FORMAT:
            raise SnapshotError(f"{label}: snapshot format {data.get('format')!r} is not supported (expected {FORMAT})")
        suites = _require(data, "suites", dict, label)
        if not all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n < MAX_COUNT for n in suites.values()):
            raise SnapshotError(f"{label}: field 'suites' must map suite names to case counts (whole numbers from 0 "
                                f"to {MAX_COUNT - 1})")
        artifacts = _require(data, "artifacts", dict, label)
        return cls(
            dataset_hash=_require(data, "dataset_hash", str, label),
            suites=suites,
            cases=check_fingerprints(_require(data, "cases", dict, label), label, "cases"),
            plugin_version=str(data.get("plugin_version", "")),
            artifacts={path: Artifact.from_json(path, value, label) for path, value in artifacts.items()},
        )

    @classmethod
    def load(cls, path: Path, label: str) -> "Snapshot":
        return cls.from_json(read_json(path, label), label)

    def write(self, path: Path) -> None:
        from .report import write_json

        write_json(path, self.to_json())


@dataclass
class CheckResult:
    """The outcome of checking the suites and artifacts against a snapshot."""

    label: str
    snapshot: Snapshot | None = None
    error: str | None = None  # no snapshot, or it cannot be read
    diff: DatasetDiff = field(default_factory=DatasetDiff)
    old_hash: str | None = None
    new_hash: str | None = None
    problems: list[str] = field(default_factory=list)  # artifacts

    @property
    def ok(self) -> bool:
        return self.error is None and not self.diff and self.old_hash == self.new_hash and not self.problems

    def lines(self) -> list[str]:
        if self.error:
            return [self.error]
        if self.ok:
            assert self.snapshot is not None
            n, suites = sum(self.snapshot.suites.values()), len(self.snapshot.suites)
            arts = len(self.snapshot.artifacts)
            return [f"{self.label}: current (dataset {short(self.new_hash)}, {n} cases in {suites} "
                    f"suite{'s' * (suites != 1)}, {arts} artifact{'s' * (arts != 1)} current)"]
        out = []
        if self.diff or self.old_hash != self.new_hash:
            out.append(f"{self.label}: the suites no longer match the snapshot "
                       f"(dataset {short(self.old_hash)} -> {short(self.new_hash)}):")
            out.extend(self.diff.lines())
        if self.problems:
            out.append(f"{self.label}: stale or edited artifacts:")
            out.extend(f"  {p}" for p in self.problems)
        return out


def check(path: Path, label: str, cases: list[Case], root: Path, exempt: Iterable[str] = ()) -> CheckResult:
    """Compare the suites and the registered artifacts with the snapshot at ``path``. Artifacts in
    ``exempt`` (relative paths this run rebuilds) are not checked."""
    result = CheckResult(label)
    if not path.is_file():
        result.error = f"{label}: no snapshot; create it with: pytest --sprout-update-snapshot"
        return result
    try:
        snap = Snapshot.load(path, label)
    except SnapshotError as exc:
        result.error = f"{exc}; fix it, or delete it and run pytest --sprout-update-snapshot"
        return result
    result.snapshot = snap
    result.old_hash, result.new_hash = snap.dataset_hash, dataset_hash(cases)
    result.diff = diff(snap.cases, fingerprints(cases))
    skip = set(exempt)
    result.problems = artifact_problems(
        [a for a in snap.artifacts.values() if a.path not in skip], root, result.new_hash
    )
    return result


def update(
    path: Path, label: str, cases: list[Case], root: Path, written: Iterable[tuple[Path, str]],
    plugin_version: str, dataset: bool = True,
) -> tuple[Snapshot, list[str]]:
    """Rewrite the snapshot: (re-)register the artifacts this run wrote, drop registered ones whose
    file is gone, and, when ``dataset``, pin the current cases. Returns it and what changed.

    With ``dataset=False`` (a run that only rebuilt artifacts) the pinned dataset stays as it was.
    A snapshot that cannot be read is never overwritten: its registry would be lost.
    """
    old = Snapshot.load(path, label) if path.exists() else None
    lines: list[str] = []
    artifacts = dict(old.artifacts) if old else {}
    for rel, art in sorted(artifacts.items()):
        if not Path(root, rel).is_file():
            del artifacts[rel]
            lines.append(f"  unregistered {art.label}: the file is gone")
    for file, kind in written:
        art = read_artifact(file, kind, root)
        before = artifacts.get(art.path)
        artifacts[art.path] = art
        if before is None:
            lines.append(f"  registered {art.label}")
        elif before != art:
            lines.append(f"  re-registered {art.label}")
    if old is None or dataset:
        new = Snapshot.build(cases, plugin_version, artifacts.values())
    else:
        new = Snapshot(old.dataset_hash, old.suites, old.cases, old.plugin_version, artifacts)
    if old is None:
        n, suites = sum(new.suites.values()), len(new.suites)
        lines.insert(0, f"{label}: created (dataset {short(new.dataset_hash)}, {n} cases in {suites} suite{'s' * (suites != 1)})")
    else:
        changes = diff(old.cases, new.cases).lines()
        if changes or lines or old.dataset_hash != new.dataset_hash:
            head = (f"{label}: updated (dataset {short(old.dataset_hash)} -> {short(new.dataset_hash)})"
                    if old.dataset_hash != new.dataset_hash else f"{label}: updated (dataset unchanged)")
            lines = [head, *changes, *lines]
        else:
            lines = [f"{label}: unchanged (dataset {short(new.dataset_hash)})"]
    if old is None or new.to_json() != old.to_json():
        new.write(path)
    return new, lines


# --- the guard for one pytest run -------------------------------------------------------------

OK, TESTS_FAILED, INTERRUPTED, INTERNAL_ERROR, NO_TESTS_COLLECTED = 0, 1, 2, 3, 5  # pytest.ExitCode


class SnapshotGuard:
    """The snapshot check, golden-set recording and replay for one pytest run.

    ``sprout`` is the run's SproutSession; only its plain accessors are used (``option``,
    ``path``, ``cases``, ``config.rootpath``). Errors are SnapshotError; the session turns the
    ones raised before the run into usage errors. Only the controller checks and writes.
    """

    def __init__(self, sprout: Any) -> None:
        self.sprout = sprout
        self.lines: list[str] = []  # the terminal section "sprout snapshot"
        self.blocked = False  # nothing runs: the check failed, or --sprout-check-snapshot
        self.failed = False
        self.recorded: dict[str, dict[str, Any]] = {}  # case id -> golden entry, from the item rows
        self.golden_ref: dict[str, str] | None = None  # the golden set this run replayed or recorded
        self.golden_written = False
        self.diverged: list[str] = []  # cases two xdist workers answered differently
        self._replay: Any = None

    # --- paths and options --------------------------------------------------------------------
    @property
    def root(self) -> Path:
        return Path(self.sprout.config.rootpath)

    @property
    def path(self) -> Path:
        return self.sprout.path(self.sprout.option("sprout_snapshot") or SNAPSHOT_NAME)

    def rel(self, path: Path) -> str:
        return relative(path, self.root)

    @property
    def controller(self) -> bool:
        """False on an xdist worker: workers neither check nor write."""
        return not hasattr(self.sprout.config, "workerinput")

    @property
    def check_only(self) -> bool:
        return bool(self.sprout.option("sprout_check_snapshot"))

    @property
    def updating(self) -> bool:
        return bool(self.sprout.option("sprout_update_snapshot"))

    def record_path(self) -> Path | None:
        return self.sprout.path(self.sprout.option("sprout_record"))

    def rebuilt(self) -> list[tuple[Path, str]]:
        """The frozen artifacts this run writes: the golden set it records, the JSON report."""
        out = []
        if self.record_path():
            out.append((self.record_path(), "golden"))
        out += [(path, "report") for path in self.sprout.report_paths()["sprout_report"]]
        return out

    # --- before the run -----------------------------------------------------------------------
    def start(self) -> None:
        """Refuse contradictory options and a golden set that cannot be replayed."""
        if self.sprout.option("sprout_record") and self.sprout.option("sprout_golden"):
            raise SnapshotError("--sprout-record and --sprout-golden cannot be combined: a replay records nothing new")
        if self.check_only and self.updating:
            raise SnapshotError("--sprout-check-snapshot and --sprout-update-snapshot cannot be combined: one checks "
                                "the snapshot, the other rewrites it")
        if self.sprout.option("sprout_golden"):
            self.replay()

    def replay(self) -> Any:
        """The golden set given with --sprout-golden (a golden.GoldenSet), or None."""
        value = self.sprout.option("sprout_golden")
        if self._replay is None and value:
            from . import golden

            path = self.sprout.path(value)
            self._replay = golden.load(path, self.rel(path), self.sprout.cases)
            self.golden_ref = {"path": self.rel(path), "sha256": self._replay.sha256}
        return self._replay

    def replayed_system(self) -> dict[str, Any] | None:
        """The system's declared name/version recorded in the replayed golden set."""
        return self._replay.system if self._replay is not None else None

    def check(self) -> bool:
        """Check the snapshot before anything is collected or run. True when the run must stop
        (``self.lines`` say why; ``self.failed`` unless it is a passing --sprout-check-snapshot)."""
        path = self.path
        if self.updating:
            if path.exists():
                try:
                    Snapshot.load(path, self.rel(path))
                except SnapshotError as exc:
                    return self._stop([f"{exc}; cannot update it without losing its artifact registry: "
                                       "fix it, or delete it and run pytest --sprout-update-snapshot"])
            return False
        if not self.check_only and not path.exists():
            return False
        exempt = [] if self.check_only else [self.rel(p) for p, _ in self.rebuilt()]
        result = check(path, self.rel(path), self.sprout.cases, self.root, exempt)
        errors = [str(e) for e in self.sprout.suites().errors]
        broken = [f"the suites have errors; their cases are not part of the dataset ({len(errors)}):",
                  *(f"  {e}" for e in errors[:LIST_LIMIT])] if errors else []
        if result.ok and not (self.check_only and errors):
            if self.check_only:
                self.lines = result.lines()
                self.blocked = True
            return self.blocked
        hint = [] if result.error or result.ok else rebuild_hint(result.snapshot)
        return self._stop((result.lines() if not result.ok else []) + broken + hint)

    def _stop(self, lines: list[str]) -> bool:
        self.lines = lines
        self.blocked = self.failed = True
        return True

    # --- during the run -----------------------------------------------------------------------
    def keep(self, row: dict[str, Any]) -> None:
        """Controller: take the golden entry off an item row (it is not part of the report)."""
        entry = row.pop("golden", None)
        if entry is not None:
            first = self.recorded.setdefault(row["case_id"], entry)
            if first != entry and row["case_id"] not in self.diverged:
                self.diverged.append(row["case_id"])

    # --- after the run ------------------------------------------------------------------------
    def write_golden(self, exitstatus: int) -> None:
        """Write the golden set of a --sprout-record run, before the reports (they name it)."""
        path = self.record_path()
        if path is None or self.blocked or not self.controller:
            return
        if exitstatus in (INTERRUPTED, INTERNAL_ERROR):
            self.lines.append(f"{self.rel(path)}: not written, the run did not finish")
            return
        if not self.recorded:
            self.lines.append(f"{self.rel(path)}: not written, no sprout item ran")
            return
        from . import __version__, golden
        from .report import write_json

        write_json(path, golden.build(self.sprout.cases, self.recorded, __version__))
        self.golden_written = True
        self.golden_ref = {"path": self.rel(path), "sha256": file_sha256(path)}
        missing = len(self.sprout.cases) - len(self.recorded)
        self.lines.append(f"{self.rel(path)}: recorded {len(self.recorded)} answers"
                          + (f" ({missing} cases not run here are not recorded)" if missing else ""))
        if self.diverged:
            self.lines.append(
                f"  {len(self.diverged)} cases were answered differently by two xdist workers "
                f"({_ids(self.diverged)}); the golden set keeps the first answer: record with -n 0 "
                "for a replay that matches this run's report exactly"
            )

    def registered(self) -> set[str]:
        """The artifact paths the snapshot registers (none when there is no readable snapshot)."""
        try:
            return set(Snapshot.load(self.path, self.rel(self.path)).artifacts) if self.path.is_file() else set()
        except SnapshotError:
            return set()

    def report_extra(self) -> dict[str, Any]:
        """What the JSON report says about the golden set its answers came from."""
        return {"golden": self.golden_ref} if self.golden_ref else {}

    def finish(self, exitstatus: int) -> int:
        """Register what this run wrote (all of it with --sprout-update-snapshot; else a recorded
        golden set and artifacts already registered), re-check the chain, return the exit status."""
        if not self.controller:
            return exitstatus
        if self.blocked:
            if self.failed:
                return failed(exitstatus)
            return OK if exitstatus == NO_TESTS_COLLECTED else exitstatus
        if exitstatus in (INTERRUPTED, INTERNAL_ERROR):
            return exitstatus
        path, label = self.path, self.rel(self.path)
        written = [(p, kind) for p, kind in self.rebuilt()
                   if (self.golden_written if kind == "golden" else p.is_file())]
        try:
            registered = Snapshot.load(path, label).artifacts if path.exists() else {}
            if not self.updating:
                written = [(p, k) for p, k in written if k == "golden" or self.rel(p) in registered]
                if not written:
                    return exitstatus
            snap, lines = update(path, label, self.sprout.cases, self.root, written, _version(), dataset=self.updating)
        except SnapshotError as exc:
            self.lines.append(str(exc))
            self.failed = True
            return failed(exitstatus)
        self.lines.extend(lines)
        problems = artifact_problems(snap.artifacts.values(), self.root, snap.dataset_hash)
        if problems:
            self.failed = True
            self.lines.append(f"{label}: the registered artifacts do not form one chain:")
            self.lines.extend(f"  {p}" for p in problems)
            self.lines.extend(rebuild_hint(snap))
            return failed(exitstatus)
        return exitstatus


def failed(exitstatus: int) -> int:
    """The exit status of a run whose snapshot check failed: 1 unless it already says worse."""
    return TESTS_FAILED if exitstatus in (OK, NO_TESTS_COLLECTED) else exitstatus


def rebuild_hint(snap: Snapshot | None) -> list[str]:
    """How to rebuild everything the snapshot pins, in one run: a command people paste, so every
    path is shell-quoted (and was checked to lie inside the rootdir when the snapshot was read).
    --sprout-report is repeatable: every registered report is rebuilt by the same run."""
    import shlex

    flags = {"golden": "--sprout-record", "report": "--sprout-report"}
    args = ["--sprout-update-snapshot"] + [
        shlex.quote(f"{flags[a.kind]}={a.path}")
        for a in sorted((snap.artifacts if snap else {}).values(), key=lambda a: (a.kind, a.path))
    ]
    return ["if the change is intended, rebuild the whole chain in one run:", "  pytest " + " ".join(args)]


def _version() -> str:
    from . import __version__

    return __version__
