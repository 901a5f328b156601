"""Suite files: YAML in, validated `Case` objects out, with errors that name file, case and field."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from .formats import BadLine
from ..core.model import EXPECTS, ID_PATTERN, TIERS, Case
from ..core.tier import unknown_tier
from .yaml_lines import describe, duplicate_key, key_line, plain_data_checked
from ..core.util import UNSAFE_TEXT as _UNSAFE, collector_paused

SUITE_KEYS = ("suite", "description", "defaults", "cases")
DEFAULT_KEYS = ("expect", "tiers", "tags", "citations")
CASE_KEYS = ("id", "question", "expect", "expected_facts", "tiers", "tags", "thresholds", "citations")
TABLE_SUFFIXES = (".jsonl", ".csv")  # formats.py
SUFFIXES = (".yaml", ".yml") + TABLE_SUFFIXES


@dataclass(frozen=True)
class SuiteError:
    """One problem in a suite file, located as precisely as the file allows."""

    path: str
    message: str
    case: str | None = None  # the case id, or "#3" for the third case when it has no usable id
    field: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        where = self.path + (f":{self.line}" if self.line else "")
        parts = [where]
        if self.case:
            parts.append(f"case {self.case}")
        if self.field:
            parts.append(f"field '{self.field}'")
        return ": ".join(parts) + f": {self.message}"


Entry = Case | SuiteError


@dataclass
class SuiteFile:
    """A parsed suite file: its cases and per-case errors in file order, or one fatal error."""

    path: Path
    name: str
    entries: list[Entry] = field(default_factory=list)
    fatal: SuiteError | None = None

    @property
    def cases(self) -> list[Case]:
        return [e for e in self.entries if isinstance(e, Case)]

    @property
    def errors(self) -> list[SuiteError]:
        errors = [e for e in self.entries if isinstance(e, SuiteError)]
        return [self.fatal] + errors if self.fatal else errors


def _type_name(value: Any) -> str:
    return {str: "a string", int: "a number", float: "a number", bool: "a boolean", list: "a list",
            dict: "a mapping", type(None): "empty"}.get(type(value), type(value).__name__)


class _Invalid(Exception):
    def __init__(self, field_name: str | None, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.field = field_name
        self.message = message
        self.line = line  # where, when known better than the field's key (a key written twice: the second)


def _text(value: str, name: str) -> str:
    """A string from the suite, refused when it holds what YAML's reader refuses in a file: a
    control character or a lone surrogate, here written as an escape (JSON's ``\\u001b``, a raw CSV
    byte, YAML's double-quoted ``"\\x1b"``), which would reach the terminal and the reports."""
    found = _UNSAFE.search(value)
    if found is None:
        return value
    char = found.group()
    if "\ud800" <= char <= "\udfff":
        raise _Invalid(name, f"a lone surrogate {ascii(char)[1:-1]} is not text (half of a broken emoji?); "
                             "remove it or write the whole character")
    raise _Invalid(name, f"control character {ascii(char)[1:-1]} is not allowed in suite text; remove it "
                         "(a pasted terminal colour code?)")


def _str_list(value: Any, name: str) -> tuple[str, ...]:
    if isinstance(value, str):
        raise _Invalid(name, f"must be a list of strings, got a single string {value!r} (write [{value!r}])")
    if not isinstance(value, list):
        raise _Invalid(name, f"must be a list of strings, got {_type_name(value)}")
    for i, item in enumerate(value):
        if not isinstance(item, str) or not item.strip():
            raise _Invalid(name, f"item {i + 1} must be a non-empty string, got {_type_name(item)} {item!r}")
        _text(item, name)
    return tuple(item.strip() for item in value)


def _tiers(value: Any, name: str = "tiers") -> tuple[str, ...]:
    tiers = _str_list(value, name)
    for tier in tiers:
        if tier not in TIERS:
            raise _Invalid(name, unknown_tier(tier))
    if not tiers:
        raise _Invalid(name, "must name at least one tier")
    return tuple(dict.fromkeys(tiers))


def _expect(value: Any, name: str = "expect") -> str:
    if value not in EXPECTS:
        raise _Invalid(name, f"must be one of {', '.join(EXPECTS)}, got {value!r}")
    return value


def _citations(value: Any, name: str = "citations") -> str:
    """A citations mode (core/citations.py): what a sentence without [k] markers is judged against."""
    from ..core.citations import problem

    why = problem(value)
    if why:
        raise _Invalid(name, f"{why} (what a sentence without [k] markers is judged against)")
    return str(value)


def _check_keys(data: dict, allowed: Iterable[str], what: str) -> None:
    for key in data:
        if key not in allowed:
            raise _Invalid(str(key), f"unknown key in {what}; allowed: {', '.join(allowed)}")


def _build_case(raw: Any, suite: str, defaults: dict, source: str) -> Case:
    if not isinstance(raw, dict):
        raise _Invalid(None, f"a case must be a mapping of keys, got {_type_name(raw)}")
    if "id" not in raw:
        raise _Invalid("id", "missing (every case needs an id)")
    case_id = raw["id"]
    if not isinstance(case_id, str):
        raise _Invalid("id", f"must be a string, got {_type_name(case_id)} {case_id!r}")
    if not ID_PATTERN.match(case_id):
        raise _Invalid("id", f"{case_id!r} may only use letters, digits, '_', '.' and '-'")
    _check_keys(raw, CASE_KEYS, "a case")
    question = raw.get("question")
    if question is None:
        raise _Invalid("question", "missing (every case needs a question)")
    if not isinstance(question, str) or not question.strip():
        raise _Invalid("question", f"must be a non-empty string, got {_type_name(question)}")
    _text(question, "question")
    expect = _expect(raw.get("expect", defaults.get("expect", "answer")))
    facts = _str_list(raw.get("expected_facts", []), "expected_facts")
    if expect == "refuse" and facts:
        raise _Invalid("expected_facts", "a case that expects a refusal cannot expect facts")
    tiers = _tiers(raw["tiers"]) if "tiers" in raw else defaults.get("tiers", TIERS)
    tags = tuple(dict.fromkeys(defaults.get("tags", ()) + _str_list(raw.get("tags", []), "tags")))
    return Case(
        id=case_id, suite=suite, question=question.strip(), expect=expect,
        expected_facts=facts, tiers=tiers, tags=tags, source=source,
        thresholds=_thresholds(raw["thresholds"]) if "thresholds" in raw else (),
        citations=_citations(raw["citations"]) if "citations" in raw else defaults.get("citations"),
    )


def _thresholds(value: Any) -> tuple[tuple[tuple[str, str], float], ...]:
    """A case's `thresholds: {tier.name: value}`, checked as --sprout-threshold is."""
    from ..core.option_values import threshold_problem

    if not isinstance(value, dict):
        raise _Invalid("thresholds", f"must be a mapping of TIER.NAME: value, got {_type_name(value)}")
    out = {}
    for key, number in value.items():
        tier, dot, name = str(key).partition(".")
        if not dot:
            raise _Invalid(f"thresholds.{key}", "expected TIER.NAME, e.g. groundedness.coverage")
        problem = threshold_problem(tier, name, number, per_case=True)
        if problem:
            raise _Invalid(f"thresholds.{key}", problem)
        out[(tier, name)] = float(number)
    return tuple(sorted(out.items()))


def _decode(path: Path) -> str:
    """The file's text; raises _Invalid when it is not UTF-8 or holds no content."""
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise _Invalid(None, f"line {line}: not UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start}); save the file as UTF-8") from None
    if not text.strip() or all(ln.strip().startswith("#") or not ln.strip() for ln in text.splitlines()):
        raise _Invalid(None, "the file is empty; a suite needs a 'cases:' list")
    return text.removeprefix("\ufeff")


def _load_table(path: Path) -> tuple[Any, list[int]]:
    """A JSON Lines or CSV suite (formats.py), as the data a YAML suite parses to."""
    from . import formats

    try:
        return formats.read(path, _decode(path))
    except formats.FormatError as exc:
        raise _Invalid(None, str(exc)) from None


def _load_document(path: Path, rel: str) -> tuple[Any, Any, bool]:
    """Read and parse the file; returns (data, node, whether a key may be written twice) or raises
    SuiteError-carrying _Invalid."""
    text = _decode(path)
    import yaml  # here, not at import: the plugin loads in every pytest session

    try:
        return _parse(getattr(yaml, "CSafeLoader", yaml.SafeLoader), text)  # libyaml: ~6x faster
    except Exception:  # not only yaml.YAMLError: libyaml keeps the error classes of the first import of yaml
        pass  # say what is wrong in the words (and at the place) of the pure-Python parser
    try:
        return _parse(yaml.SafeLoader, text)  # the reader refuses control characters right here
    except yaml.reader.ReaderError as exc:  # a control character, e.g. ESC from a pasted colour code
        line = text[: exc.position].count("\n") + 1
        raise _Invalid(None, f"line {line}: control character #x{exc.character:04x} is not allowed "
                             "in YAML; remove it (a pasted terminal colour code?)") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        raise _Invalid(None, f"malformed YAML: {where}{problem}") from None
    except RecursionError:
        raise _Invalid(None, "the YAML is nested too deeply to read; a suite needs a few levels at most") from None


def _parse(loader_class: Any, text: str) -> tuple[Any, Any, bool]:
    """The document's data, its node tree (the nodes carry the line of every case) and whether a
    mapping in it may write a key twice."""
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, None, False
        data, maybe_twice = plain_data_checked(node, loader)
        return data, node, maybe_twice
    finally:
        loader.dispose()


def load_suite(path: Path, rel: str | None = None) -> SuiteFile:
    """Parse one suite file. Never raises for bad content: problems become SuiteErrors.

    Python's cyclic garbage collector is paused while the file is read: a large suite's YAML
    node tree is a million small objects that hold no cycle (50,000 cases), and the collector
    walking them again and again as they pile up was two thirds of reading the file."""
    with collector_paused():
        return _load_suite(path, rel or str(path))


def _load_suite(path: Path, rel: str) -> SuiteFile:
    suite_file = SuiteFile(path=path, name=path.stem)
    try:
        node = None  # the YAML node tree; JSON Lines and CSV have none (their readers check duplicates)
        twice = False  # whether a YAML mapping may write a key twice (when not, no node is searched)
        if path.suffix in TABLE_SUFFIXES:
            data, case_lines = _load_table(path)
        else:
            data, node, twice = _load_document(path, rel)
            case_lines = [n.start_mark.line + 1 for n in _case_nodes(node)]
        case_nodes = _case_nodes(node)
        if not isinstance(data, dict):
            raise _Invalid(None, f"the top level must be a mapping with a 'cases:' list, got {_type_name(data)}")
        _check_keys(data, SUITE_KEYS, "the suite")
        name = data.get("suite", path.stem)
        if not isinstance(name, str) or not ID_PATTERN.match(name):
            raise _Invalid("suite", f"must be a name of letters, digits, '_', '.' or '-', got {name!r}")
        suite_file.name = name
        defaults_raw = data.get("defaults") or {}
        if not isinstance(defaults_raw, dict):
            raise _Invalid("defaults", f"must be a mapping, got {_type_name(defaults_raw)}")
        _check_keys(defaults_raw, DEFAULT_KEYS, "defaults")
        defaults: dict[str, Any] = {}
        if "tiers" in defaults_raw:
            defaults["tiers"] = _tiers(defaults_raw["tiers"], "defaults.tiers")
        if "expect" in defaults_raw:
            defaults["expect"] = _expect(defaults_raw["expect"], "defaults.expect")
        if "tags" in defaults_raw:
            defaults["tags"] = _str_list(defaults_raw["tags"], "defaults.tags")
        if "citations" in defaults_raw:
            defaults["citations"] = _citations(defaults_raw["citations"], "defaults.citations")
        if "cases" not in data:
            raise _Invalid("cases", "missing: a suite needs a 'cases:' list")
        cases = data["cases"]
        if not isinstance(cases, list) or not cases:
            raise _Invalid("cases", f"must be a non-empty list of cases, got {_type_name(cases)}")
        dup = duplicate_key(node, skip=_cases_node(node)) if twice else None
        if dup is not None:
            raise _Invalid(dup[0], describe(dup), line=dup[2])
    except _Invalid as exc:
        suite_file.fatal = SuiteError(rel, exc.message, field=exc.field, line=exc.line or key_line(node, exc.field))
        return suite_file

    for index, raw in enumerate(cases):
        line = case_lines[index] if index < len(case_lines) else None
        label = f"#{index + 1}"
        if isinstance(raw, dict) and isinstance(raw.get("id"), str) and raw["id"]:
            label = repr(raw["id"])
        if isinstance(raw, BadLine):  # a JSON Lines or CSV line that could not be read
            label = repr(raw.case) if raw.case else label
            suite_file.entries.append(SuiteError(rel, raw.message, case=label, field=raw.field, line=line))
            continue
        case_node = case_nodes[index] if index < len(case_nodes) else None
        dup = duplicate_key(case_node) if twice and case_node is not None else None
        if dup is not None:  # located at the second key, the one YAML would keep
            suite_file.entries.append(SuiteError(rel, describe(dup), case=label, field=dup[0], line=dup[2]))
            continue
        try:
            suite_file.entries.append(_build_case(raw, suite_file.name, defaults, f"{rel}:{line}"))
        except _Invalid as exc:  # at the key's own line when the case writes it, else at the case's
            at = key_line(case_node, exc.field) if case_node is not None else None
            suite_file.entries.append(SuiteError(rel, exc.message, case=label, field=exc.field, line=at or line))
    return suite_file


def _cases_node(node: Any) -> Any:
    """The node of the top-level 'cases:' list, or None."""
    import yaml

    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if getattr(key, "value", None) == "cases" and isinstance(value, yaml.SequenceNode):
                return value
    return None


def _case_nodes(node: Any) -> list[Any]:
    cases = _cases_node(node)
    return list(cases.value) if cases is not None else []


@dataclass
class SuiteSet:
    """Every suite file under a root, with ids checked for uniqueness across files."""

    files: dict[Path, SuiteFile]

    @property
    def cases(self) -> list[Case]:
        return [case for f in self.files.values() for case in f.cases]

    @property
    def errors(self) -> list[SuiteError]:
        return [err for f in self.files.values() for err in f.errors]

    def case(self, case_id: str) -> Case | None:
        for case in self.cases:
            if case.id == case_id:
                return case
        return None


def suite_paths(root: Path) -> list[Path]:
    if root.is_file():
        return [root] if root.suffix in SUFFIXES else []
    if not root.is_dir():
        return []
    return sorted(p for p in root.rglob("*") if p.suffix in SUFFIXES and p.is_file())


def load_suites(root: Path, relative_to: Path | None = None) -> SuiteSet:
    """Load every suite under ``root`` (a folder or one file). A repeated id is an error on its
    later occurrence, naming where the first one is."""
    files: dict[Path, SuiteFile] = {}
    seen: dict[str, str] = {}
    for path in suite_paths(root):
        try:
            rel = str(path.relative_to(relative_to)) if relative_to else str(path)
        except ValueError:
            rel = str(path)
        suite_file = load_suite(path, rel)
        for i, entry in enumerate(suite_file.entries):
            if isinstance(entry, Case):
                if entry.id in seen:
                    line = int(entry.source.rsplit(":", 1)[1]) if entry.source and entry.source.rsplit(":", 1)[1].isdigit() else None
                    suite_file.entries[i] = SuiteError(
                        rel, f"duplicate id {entry.id!r}: already defined at {seen[entry.id]}",
                        case=repr(entry.id), field="id", line=line,
                    )
                else:
                    seen[entry.id] = entry.source or rel
        files[path] = suite_file
    return SuiteSet(files)
