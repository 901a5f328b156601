"""The snapshot file, sprout.snapshot.json: the dataset it pins and the frozen artifacts (golden
sets, JSON reports) registered in it; reading, validating, checking and rewriting it. Plain
Python, no pytest import."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from ..core.identity import (
    DatasetDiff, Fingerprints, SnapshotError, check_fingerprints, dataset_hash, diff, file_sha256, fingerprints,
    read_json, suite_counts,
)
from ..core.model import Case
from ..core.util import short_hash as short

SNAPSHOT_NAME = "sprout.snapshot.json"
FORMAT = 1
KINDS = {"golden": "golden set", "report": "report", "labels": "labels file", "calibration": "calibration"}
INPUTS = ("labels", "calibration")  # files a run reads, registered with the dataset they were used with

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
    def from_json(cls, path: str, data: Any, label: str) -> Artifact:
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


def read_artifact(path: Path, kind: str, root: Path, current: str = "") -> Artifact:
    """Describe a golden set or JSON report as written: its sha256 and what it was built from. A
    labels file (--sprout-labels, JSON Lines) names no dataset: it joins the chain with the
    dataset ``current`` when it is registered."""
    label = relative(path, root)
    if kind in INPUTS:
        return Artifact(label, kind, file_sha256(path), current)
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
    def build(cls, cases: list[Case], plugin_version: str, artifacts: Iterable[Artifact] = ()) -> Snapshot:
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
    def from_json(cls, data: Any, label: str) -> Snapshot:
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
    def load(cls, path: Path, label: str) -> Snapshot:
        return cls.from_json(read_json(path, label), label)

    def write(self, path: Path) -> None:
        from ..reports.safe_write import write_json

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
    current = dataset_hash(cases)
    for file, kind in written:
        art = read_artifact(file, kind, root, current)
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


def rebuild_hint(snap: Snapshot | None, markexpr: str = "") -> list[str]:
    """How to rebuild everything the snapshot pins, in one run: a command people paste, so every
    path is shell-quoted (and was checked to lie inside the rootdir when the snapshot was read).
    --sprout-report is repeatable: every registered report is rebuilt by the same run. The run's
    ``-m`` expression is kept (quoted): it is how a project picks its sprout items out of its
    other tests. ``-k`` is not: a name filter picks part of the dataset, and a run over part of it
    registers no report, so the command would leave the chain stale."""
    import shlex

    flags = {"golden": "--sprout-record", "report": "--sprout-report", "labels": "--sprout-labels",
             "calibration": "--sprout-calibration"}
    args = (["-m", shlex.quote(markexpr)] if markexpr.strip() else []) + ["--sprout-update-snapshot"] + [
        shlex.quote(f"{flags[a.kind]}={a.path}")
        for a in sorted((snap.artifacts if snap else {}).values(), key=lambda a: (a.kind, a.path))
    ]
    return ["if the change is intended, rebuild the whole chain in one run:", "  pytest " + " ".join(args)]
