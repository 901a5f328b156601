"""Turn datasets a team already has into pytest-sprout suites, and their recorded answers into a
golden set that pytest-sprout replays.

    python -m pytest_sprout.convert ragas    DATA.jsonl|DATA.csv            --suite NAME --out suites/NAME.yaml [--golden G.json]
    python -m pytest_sprout.convert deepeval GOLDENS.json|.jsonl|.csv      --suite NAME --out suites/NAME.yaml [--golden G.json]

Inputs:

- ``ragas``: an ``EvaluationDataset`` written with ``to_jsonl`` or ``to_csv`` (single-turn samples:
  ``user_input``, ``retrieved_contexts``, ``response``, ``reference``; in the CSV the context list is
  a Python or JSON list literal, as ``csv.DictWriter`` writes it).
- ``deepeval``: goldens saved with ``EvaluationDataset.save_as(file_type="json"|"jsonl"|"csv")``
  (``input``, ``actual_output``, ``expected_output``, ``retrieval_context``, ``name``; the other
  columns are not read). The format is the file's extension (a ``.json`` file of one object a line
  reads as JSON Lines). In the JSON the retrieval context is a list; in the JSON Lines and the CSV
  it is one text with the passages joined by ``|``, split as DeepEval's own loaders split it.

Each row becomes a case: the question is ``user_input``/``input``; the id is the golden's ``name``
when it is a valid id, else ``NAME-001`` and so on. A reference that reads as a refusal ("I don't
know ...") makes the case ``expect: refuse``. A reference is a whole answer, not a short fact, so it
becomes expected facts only with ``--facts``: ``reference`` makes the whole reference one fact (it
is matched fuzzily, so only near verbatim answers contain it); ``reference-sentences`` makes each
of its sentences one fact (their final full stop dropped), so an answer that says part of the
reference is credited with that part.

With ``--golden``, every row that has a response (``response``/``actual_output``) becomes a
recorded answer, with its retrieved contexts as passages. When a response carries no citation
markers (``[1]``), each of its sentences cites every retrieved passage: that is what Ragas and
DeepEval judge a response against. Replay it with the new suite as the whole dataset:
``pytest --sprout-suites=suites/NAME.yaml --sprout-golden=G.json -m groundedness``.

Problems are reported with the file, the row (line) and the field, and nothing is written. An
existing ``--out`` or ``--golden`` file is not replaced unless ``--force`` is given, and never
before the conversion succeeded; ``--out`` and ``--golden`` must name two files, neither the input.
"""

from __future__ import annotations

import argparse
import ast
import csv
import json
import re
import sys
from pathlib import Path
from typing import Any, Iterable

from ..core.model import ID_PATTERN, Answer, Case, GoldenItem, Sentence, looks_like_refusal, split_sentences
from ..core.util import UNSAFE_TEXT, short_hash


class ConvertError(Exception):
    """Bad input; the message names the file, the row and the field."""


# --- reading ------------------------------------------------------------------------------------


def _read_text(path: Path) -> str:
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ConvertError(f"{path}:{line}: not UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start}); "
                           "save the file as UTF-8") from None


def _json(text: str, where: str) -> Any:
    """JSON text read, or a ConvertError naming ``where``: malformed, a number over Python's digit
    limit, or nesting too deep."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConvertError(f"{where}: malformed JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise ConvertError(f"{where}: the JSON is nested too deeply to read") from None
    except ValueError as exc:
        raise ConvertError(f"{where}: a number in it is too long to read ({str(exc).split(':')[0]})") from None


def _rows_jsonl(path: Path) -> Iterable[tuple[int, Any]]:
    for number, line in enumerate(_read_text(path).splitlines(), 1):
        if line.strip():
            yield number, _json(line, f"{path}:{number}")


def _rows_csv(path: Path) -> Iterable[tuple[int, Any]]:
    import io

    reader = csv.DictReader(io.StringIO(_read_text(path), newline=""))
    line = 2
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:  # a cell over the csv field limit, a stray quote
            raise ConvertError(f"{path}:{line}: malformed CSV: {exc}") from None
        yield line, {k: v for k, v in row.items() if v not in (None, "")}
        line = reader.line_num + 1


def _list_literal(value: Any, where: str) -> list[str]:
    """A list of strings, from a list or from a cell holding a JSON or Python list literal."""
    if isinstance(value, str):
        text = value.strip()
        try:
            value = json.loads(text)
        except RecursionError:
            raise ConvertError(f"{where}: the list is nested too deeply to read") from None
        except ValueError:
            try:
                value = ast.literal_eval(text)
            except (RecursionError, MemoryError):
                raise ConvertError(f"{where}: the list is nested too deeply to read") from None
            except (ValueError, SyntaxError):
                raise ConvertError(f"{where}: expected a list of strings, got {text[:60]!r}") from None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConvertError(f"{where}: expected a list of strings, got {type(value).__name__}")
    for item in value:
        _clean(item, where)
    return value


def _clean(value: str, where: str) -> str:
    """Text a suite or a golden set can hold: no control character, no lone surrogate."""
    found = UNSAFE_TEXT.search(value)
    if found is not None:
        char = ascii(found.group())[1:-1]
        what = "a lone surrogate" if "\\ud" in char else "control character"
        raise ConvertError(f"{where}: {what} {char} is not text a suite can hold; remove it")
    return value


def _text(row: dict[str, Any], key: str, where: str, required: bool = False) -> str | None:
    value = row.get(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            raise ConvertError(f"{where}: field '{key}' is missing or empty")
        return None
    if not isinstance(value, str):
        raise ConvertError(f"{where}: field '{key}' must be a string, got {type(value).__name__}")
    return _clean(value.strip(), f"{where}: field '{key}'")


def read_ragas(path: Path) -> list[dict[str, Any]]:
    """Rows of a Ragas EvaluationDataset export as {line, question, reference, contexts, response}."""
    rows = _rows_csv(path) if path.suffix == ".csv" else _rows_jsonl(path)
    out = []
    for line, row in rows:
        where = f"{path}:{line}"
        if not isinstance(row, dict):
            raise ConvertError(f"{where}: expected an object with 'user_input', got {type(row).__name__}")
        if isinstance(row.get("user_input"), list):
            raise ConvertError(f"{where}: field 'user_input': a multi-turn sample; only single-turn samples convert")
        contexts = row.get("retrieved_contexts")
        out.append({
            "line": line, "name": None,
            "question": _text(row, "user_input", where, required=True),
            "reference": _text(row, "reference", where),
            "response": _text(row, "response", where),
            "contexts": None if contexts is None else _list_literal(contexts, f"{where}: field 'retrieved_contexts'"),
        })
    return out


DEEPEVAL_DELIMITER = "|"  # deepeval.dataset.utils.DELIMITER: how save_as joins a list into one CSV/JSON Lines cell
# deepeval.dataset.utils: a RetrievedContextData (a passage with its source) saved as one string
_DEEPEVAL_SOURCED = re.compile(r"deepeval_source=(?P<source>.*?),deepeval_context=(?P<context>.*)\Z", re.DOTALL)


def _deepeval_rows(path: Path) -> Iterable[tuple[str, Any]]:
    """(where, row) for every golden of a save_as file: JSON (a list, or {"goldens": [...]}),
    JSON Lines or CSV, by extension; a .json file of one object a line is JSON Lines."""
    if path.suffix == ".csv":
        yield from ((f"{path}:{line}", row) for line, row in _rows_csv(path))
        return
    if path.suffix == ".jsonl":
        yield from ((f"{path}:{line}", row) for line, row in _rows_jsonl(path))
        return
    text = _read_text(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data" and text.lstrip().startswith("{"):  # JSON Lines in a .json file
            yield from ((f"{path}:{line}", row) for line, row in _rows_jsonl(path))
            return
        data = _json(text, str(path))  # the same error, worded as every other malformed input
    except (RecursionError, ValueError):
        data = _json(text, str(path))
    if isinstance(data, dict) and isinstance(data.get("goldens"), list):
        data = data["goldens"]
    if not isinstance(data, list):
        raise ConvertError(f"{path}: expected a list of goldens (objects with 'input'), got {type(data).__name__}")
    yield from ((f"{path}: golden #{index + 1}", row) for index, row in enumerate(data))


def _deepeval_contexts(value: Any, where: str) -> list[str] | None:
    """A golden's retrieval_context: a list (JSON), or the passages joined by '|' (CSV, JSON
    Lines), each passage saved with its source read back as its text."""
    if value is None:
        return None
    if isinstance(value, str):
        value = value.split(DEEPEVAL_DELIMITER) if value else []
    passages = _list_literal(value, where)
    return [m.group("context") if (m := _DEEPEVAL_SOURCED.match(p)) else p for p in passages]


def read_deepeval(path: Path) -> list[dict[str, Any]]:
    """Goldens saved by DeepEval's EvaluationDataset.save_as (json, jsonl or csv)."""
    out = []
    for where, row in _deepeval_rows(path):
        if not isinstance(row, dict):
            raise ConvertError(f"{where}: expected an object with 'input', got {type(row).__name__}")
        if row.get("turns") is not None or row.get("scenario") is not None:
            raise ConvertError(f"{where}: a conversational golden; only single-turn goldens convert")
        out.append({
            "line": None, "name": _text(row, "name", where),
            "question": _text(row, "input", where, required=True),
            "reference": _text(row, "expected_output", where),
            "response": _text(row, "actual_output", where),
            "contexts": _deepeval_contexts(row.get("retrieval_context"), f"{where}: field 'retrieval_context'"),
        })
    return out


# --- building -----------------------------------------------------------------------------------


def build_cases(rows: list[dict[str, Any]], suite: str, facts: str = "none") -> list[Case]:
    """One case per row; ids from golden names when usable, else SUITE-001, SUITE-002, ..."""
    if not ID_PATTERN.match(suite):
        raise ConvertError(f"--suite {suite!r}: use letters, digits, '_', '.' and '-'")
    cases, seen = [], set()
    width = max(3, len(str(len(rows))))
    for index, row in enumerate(rows):
        name = row.get("name")
        case_id = name if name and ID_PATTERN.match(name) and name not in seen else f"{suite}-{index + 1:0{width}d}"
        if case_id in seen:
            raise ConvertError(f"row {index + 1}: the id {case_id!r} is taken; rename the golden")
        seen.add(case_id)
        reference = row.get("reference")
        refuse = bool(reference and looks_like_refusal(reference))
        expected = reference_facts(reference, facts) if reference and not refuse else ()
        cases.append(Case(id=case_id, suite=suite, question=row["question"],
                          expect="refuse" if refuse else "answer", expected_facts=expected))
    return cases


FACTS = ("none", "reference", "reference-sentences")


def reference_facts(reference: str, facts: str) -> tuple[str, ...]:
    """The expected facts a reference gives under ``--facts``: none, the whole reference, or each
    of its sentences (split as answers are, the final full stop dropped, repeats once)."""
    if facts == "reference":
        return (reference,)
    if facts == "reference-sentences":
        sentences = (s.rstrip().rstrip(".").strip() for s in split_sentences(reference))
        return tuple(dict.fromkeys(s for s in sentences if s))
    return ()


def recorded_answer(response: str, contexts: list[str] | None) -> Answer:
    """A recorded response as an Answer: its own [k] markers when it has any, else every sentence
    cites every retrieved passage."""
    answer = Answer.from_text(response, contexts or [])
    if answer.refused or any(s.citations for s in answer.sentences):
        return answer
    everything = tuple(p.id for p in answer.passages)
    return Answer(tuple(Sentence(s.text, everything) for s in answer.sentences), answer.passages, False, None)


def build_golden(cases: list[Case], rows: list[dict[str, Any]], tool: str, source: str) -> tuple[dict[str, Any], int]:
    """The golden-set document for the rows with a response, and how many rows had none."""
    from ..core.version import __version__
    from ..answers.golden import build, entry

    system = {"name": f"{tool} export", "version": source}
    entries, missing = {}, 0
    for case, row in zip(cases, rows):
        if row.get("response") is None:
            missing += 1
            continue
        entries[case.id] = entry(GoldenItem(case, recorded_answer(row["response"], row.get("contexts"))), system)
    return build(cases, entries, __version__), missing


def suite_text(cases: list[Case], suite: str, path: Path, tool: str, source: str) -> str:
    """The suite file: YAML for .yaml/.yml, JSON Lines for .jsonl."""
    rows = []
    for case in cases:
        row: dict[str, Any] = {"id": case.id, "question": case.question}
        if case.expect != "answer":
            row["expect"] = case.expect
        if case.expected_facts:
            row["expected_facts"] = list(case.expected_facts)
        rows.append(row)
    if path.suffix == ".jsonl":
        header = {"suite": suite, "description": f"converted from a {tool} dataset ({source})"}
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in [header, *rows])
    if path.suffix in (".yaml", ".yml"):
        import yaml

        document = {"suite": suite, "description": f"converted from a {tool} dataset ({source})", "cases": rows}
        return yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=100)
    raise ConvertError(f"--out {path}: write the suite as .yaml, .yml or .jsonl")


def convert(tool: str, source: Path, suite: str, out: Path, golden: Path | None = None,
            facts: str = "none", force: bool = False) -> list[str]:
    """Read, build, check that the suite loads back to the same cases, then write (an existing
    file only with ``force``). Returns the lines to print."""
    from ..suites.loader import load_suite
    from ..reports.safe_write import atomic_write_text, write_json
    from ..core.identity import dataset_hash

    if not source.is_file():
        raise ConvertError(f"{source}: no such file")
    from ..core.paths import clash_message

    written = [(f"--out {out}", out)] + ([(f"--golden {golden}", golden)] if golden is not None else [])
    problem = clash_message(written, [(f"the input {source}", source)])
    if problem:
        raise ConvertError(f"{problem}; nothing was written")
    for target in [out] + ([golden] if golden is not None else []):
        if target.exists() and not force:
            raise ConvertError(f"{target}: already exists; nothing was written (give --force to replace it)")
    rows = read_ragas(source) if tool == "ragas" else read_deepeval(source)
    if not rows:
        raise ConvertError(f"{source}: no rows to convert")
    cases = build_cases(rows, suite, facts)
    text = suite_text(cases, suite, out, tool, source.name)
    check = out.parent / f".{out.stem}.converting{out.suffix}"  # loaded back before anything is replaced
    try:
        atomic_write_text(check, text)
        loaded = load_suite(check, str(out))
    finally:
        check.unlink(missing_ok=True)
    if loaded.errors or dataset_hash(loaded.cases) != dataset_hash(cases):  # a bug here, never bad input
        raise ConvertError(f"{out}: the suite would not load back to the same cases: {loaded.errors}")
    atomic_write_text(out, text)
    lines = [f"wrote {out}: {len(cases)} cases (suite {suite!r}, dataset {short_hash(dataset_hash(cases))})"]
    if golden is not None:
        document, missing = build_golden(cases, rows, tool, source.name)
        write_json(golden, document)
        lines.append(f"wrote {golden}: {len(cases) - missing} recorded answers"
                     + (f"; {missing} rows had no response and are not recorded" if missing else ""))
        lines.append(f"replay: pytest --sprout-suites={out} --sprout-golden={golden} -m groundedness")
    return lines


def main(argv: list[str] | None = None) -> int:
    summary = " ".join((__doc__ or "").split("\n\n", 1)[0].split())  # the docstring's first paragraph, whole
    parser = argparse.ArgumentParser(
        prog="python -m pytest_sprout.convert", description=summary,
        epilog="Rows, ids, refusals and the golden set: docs/guide.md, \"Converting Ragas and DeepEval datasets\".")
    parser.add_argument("tool", choices=("ragas", "deepeval"), help="the format of the input")
    parser.add_argument("source", type=Path,
                        help="ragas: a to_jsonl (.jsonl) or to_csv (.csv) export; deepeval: goldens saved by save_as "
                             "(.json, .jsonl or .csv)")
    parser.add_argument("--suite", required=True, help="the suite name (and id prefix) of the new cases")
    parser.add_argument("--out", type=Path, required=True, help="the suite file to write (.yaml, .yml or .jsonl)")
    parser.add_argument("--golden", type=Path, help="also write the recorded responses as a golden set")
    parser.add_argument("--facts", choices=FACTS, default="none",
                        help="what becomes the case's expected facts: none (the default); reference: the whole "
                             "reference answer, one fact; reference-sentences: each sentence of the reference, one fact each")
    parser.add_argument("--force", action="store_true",
                        help="replace an existing --out (or --golden) file; without it, one is never overwritten")
    args = parser.parse_args(argv)
    try:
        for line in convert(args.tool, args.source, args.suite, args.out, args.golden, args.facts, args.force):
            print(line)
    except (ConvertError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
