"""xdist: -n 0, -n 2, -n 4 and a run without xdist print the same summary and write the same
report and JUnit properties; each process asks the system only about the cases it runs, once."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

pytest.importorskip("xdist", reason="pytest-xdist is not installed (pip install pytest-sprout[dev])")

# A stand-in RAG system that logs every question it is asked, and every item that runs, to a file
# per process, so the test can see which process asked for what.
CONFTEST = '''
import os
from pathlib import Path

def _log(kind, text):
    who = os.environ.get("PYTEST_XDIST_WORKER", "main")
    path = Path(__file__).parent / "log" / f"{kind}-{who}-{os.getpid()}.txt"
    path.parent.mkdir(exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(text + "\\n")

def pytest_runtest_setup(item):
    _log("ran", item.nodeid)

def pytest_sprout_make_system(config):
    def system(question):
        _log("asked", question)
        n = int(question.split()[-1].rstrip("?"))
        if n == 5:
            raise RuntimeError("the retriever index is missing")
        if n == 6:
            return "I don't know based on the available documents.", []
        claim = f"Fact {n} is not green [1]." if n % 4 == 3 else f"Fact {n} is green [1]. It is small [1]."
        return claim, [f"Fact {n} is green and small."]
    system.name = "facts"
    system.version = "2"
    return system
'''

CASES = 12
# Every worker would import these unrelated plugins (seconds each on a busy machine);
# tests/test_plugin.py runs with them present. No cacheprovider: sprout's answer cache would
# answer later runs from the first one, and this test counts the questions each process asks.
QUIET = ("-p", "no:deepeval", "-p", "no:hypothesispytest", "-p", "no:langsmith_plugin", "-p", "no:cacheprovider")


def make_project(pytester: pytest.Pytester) -> None:
    cases = []
    for i in range(CASES):
        cases.append(f"  - id: fact-{i}\n    question: What colour is fact {i}?")
        if i == 6:
            cases.append("    expect: refuse")
        else:
            cases.append(f"    expected_facts: [\"Fact {i}\"]")
    pytester.makeconftest(CONFTEST)
    (pytester.path / "suites").mkdir()
    (pytester.path / "suites" / "facts.yaml").write_text(
        "defaults: {tiers: [groundedness]}\ncases:\n" + "\n".join(cases) + "\n", encoding="utf-8")


def sprout_section(stdout: str) -> list[str]:
    lines = stdout.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("=") and " sprout " in line]
    assert len(starts) == 1, stdout  # one summary: the controller's, never a worker's
    section = []
    for line in lines[starts[0] + 1:]:
        if line.startswith("="):
            break
        # each run names its own report file; an xdist run may say it gained nothing (test_parallel_use.py)
        if not line.startswith(("wrote ", "xdist: ")):
            section.append(line)
    return section


def sprout_section_all(stdout: str) -> list[str]:
    """The sprout section's lines, every one of them."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("=") and " sprout " in line)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("=")), len(lines))
    return lines[start + 1:end]


def junit_properties(path: Path) -> dict[str, list[tuple[str, str]]]:
    tree = ET.parse(path)
    return {
        tc.get("name"): [(p.get("name"), p.get("value")) for p in tc.iter("property")]
        for tc in tree.iter("testcase")
    }


def read_logs(folder: Path) -> dict[str, dict[str, list[str]]]:
    """{process: {"asked": [...], "ran": [...], "loaded": [...]}} from the per-process log files."""
    logs: dict[str, dict[str, list[str]]] = {}
    for path in sorted(folder.glob("*.txt")):
        kind, process = path.stem.split("-", 1)
        logs.setdefault(process, {"asked": [], "ran": [], "loaded": []})[kind] = path.read_text(encoding="utf-8").splitlines()
    return logs


def test_same_numbers_with_and_without_xdist(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    runs = {"no-xdist": ["-p", "no:xdist"], "n0": ["-n", "0"], "n2": ["-n", "2"], "n4": ["-n", "4"]}
    sections, reports, junits, outputs = {}, {}, {}, {}
    for name, args in runs.items():
        log = pytester.path / "log"
        if log.exists():
            for path in log.iterdir():
                path.unlink()
        result = pytester.runpytest_subprocess(
            *QUIET, *args, f"--sprout-report={name}.json", f"--junitxml={name}.xml", "--sprout-min=groundedness.refusal=0.5",
        )
        result.assert_outcomes(passed=8, failed=4)  # three unsupported answers, one system error
        sections[name] = sprout_section(result.stdout.str())
        outputs[name] = result.stdout.str()
        reports[name] = json.loads((pytester.path / f"{name}.json").read_text(encoding="utf-8"))
        junits[name] = junit_properties(pytester.path / f"{name}.xml")

        # Each process asked only about the cases it ran, each exactly once.
        logs = read_logs(log)
        workers = [p for p in logs if logs[p]["ran"]]
        assert len(workers) == {"no-xdist": 1, "n0": 1, "n2": 2, "n4": 4}[name], logs
        asked_everywhere: list[str] = []
        for process, entries in logs.items():
            ran_cases = sorted(n.split("::")[1].split("[")[0] for n in entries["ran"])
            asked_cases = sorted(f"fact-{q.split()[-1].rstrip('?')}" for q in entries["asked"])
            assert asked_cases == ran_cases, (name, process)  # no duplicates, nothing it did not run
            asked_everywhere += asked_cases
        assert sorted(asked_everywhere) == sorted(f"fact-{i}" for i in range(CASES))

    baseline = sections["no-xdist"]
    assert any(line.startswith("groundedness  grounded ") for line in baseline)
    assert "1 item errored (not counted in any metric):" in baseline
    assert "gate groundedness.refusal >= 0.5: passed (Wilson 95% lower bound 0.741; 11/11 = 1.000)" in baseline
    for name in runs:
        assert sections[name] == baseline, name
        assert reports[name] == reports["no-xdist"], name
        assert junits[name] == junits["no-xdist"], name
    # Twelve items of a few milliseconds against the workers' start-up: -n gained nothing, and says so.
    assert any(line.startswith("xdist: 2 workers spent ") and "-n gained nothing here" in line
               for line in sprout_section_all(outputs["n2"])), outputs["n2"]
    assert not any(line.startswith("xdist: ") for name in ("no-xdist", "n0") for line in sprout_section_all(outputs[name]))
    report = reports["n4"]
    assert report["system"] == {"name": "facts", "version": "2"}  # sent back by the workers
    assert len(report["items"]) == CASES
    assert [m["n"] for m in report["metrics"] if m["metric"] == "grounded"] == [10]


ALCE_CONFTEST = CONFTEST.replace('''        claim = f"Fact {n} is not green [1]." if n % 4 == 3 else f"Fact {n} is green [1]. It is small [1]."''', '''        claim = f"Fact {n} is green [1]. It is small." if n % 3 == 1 else f"Fact {n} is green [1]. It is small [1]."''') + '''

def pytest_configure(config):
    # Count NLI model loads per process (the real class still loads the real model).
    from pytest_sprout.judges import nli

    original = nli.NLIJudge.__init__

    def counted(self, *args, **kwargs):
        _log("loaded", "nli model")
        original(self, *args, **kwargs)

    nli.NLIJudge.__init__ = counted
'''


def test_alce_tier_same_numbers_one_model_per_worker(pytester: pytest.Pytester, tmp_path: Path) -> None:
    pytest.importorskip("torch", reason="the alce tier needs the nli extra")
    pytest.importorskip("transformers", reason="the alce tier needs the nli extra")
    from tiny_models import classifier

    model = classifier(tmp_path / "nli", force="ENTAILMENT")  # entails everything it is shown
    make_project(pytester)
    pytester.makeconftest(ALCE_CONFTEST)
    suite = pytester.path / "suites" / "facts.yaml"
    suite.write_text(suite.read_text().replace("tiers: [groundedness]", "tiers: [groundedness, alce]"))
    sections, reports = {}, {}
    for name, args in {"n0": ["-n", "0"], "n2": ["-n", "2"]}.items():
        log = pytester.path / "log"
        if log.exists():
            for path in log.iterdir():
                path.unlink()
        result = pytester.runpytest_subprocess(*QUIET, *args, f"--nli-model={model}", f"--sprout-report={name}.json")
        # Four answers leave a sentence uncited (both tiers fail them), one raises (both fail), one
        # refuses (groundedness passes it, alce skips it).
        result.assert_outcomes(passed=13, failed=10, skipped=1)
        sections[name] = sprout_section(result.stdout.str())
        reports[name] = json.loads((pytester.path / f"{name}.json").read_text(encoding="utf-8"))
        logs = read_logs(log)
        for process, entries in logs.items():
            ran_cases = sorted({n.split("::")[1].split("[")[0] for n in entries["ran"]})
            asked_cases = sorted(f"fact-{q.split()[-1].rstrip('?')}" for q in entries["asked"])
            assert asked_cases == ran_cases, (name, process)  # once per case, however many tiers
            loads = len(entries["loaded"])
            assert loads == (1 if any(n.endswith("[alce]") for n in entries["ran"]) else 0), (name, process)
    assert sections["n2"] == sections["n0"]
    assert reports["n2"] == reports["n0"]
    recall = next(m for m in reports["n0"]["metrics"] if m["metric"] == "citation_recall")
    assert recall["kind"] == "mean" and recall["n"] == 10 and recall["rate"] == pytest.approx(0.8)
