"""The plugin end to end, through pytester: collection, ids, markers, -k, --lf, failures, summary,
report, the system contract."""

from __future__ import annotations

import json
import textwrap

import pytest

from helpers import SUITE, SYSTEM_CONFTEST, make_project


def test_collects_one_item_per_case_and_tier(pytester: pytest.Pytester) -> None:
    make_project(pytester, tiers="[groundedness, alce]")
    result = pytester.runpytest("--co", "-q")
    result.stdout.fnmatch_lines([
        "suites/care.yaml::snake-light[[]groundedness[]]",
        "suites/care.yaml::snake-light[[]alce[]]",
        "suites/care.yaml::taxes[[]alce[]]",
        "8 tests collected*",
    ])


def test_markers_select_tiers_and_are_registered(pytester: pytest.Pytester) -> None:
    make_project(pytester, tiers="[groundedness, alce]")
    result = pytester.runpytest("--co", "-q", "-m", "groundedness", "--strict-markers")
    result.stdout.fnmatch_lines(["4/8 tests collected (4 deselected)*"])
    result = pytester.runpytest("--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.groundedness:*", "@pytest.mark.alce:*", "@pytest.mark.llm:*"])


def test_tags_and_suite_names_work_with_k(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    result = pytester.runpytest("--co", "-q", "-k", "light or water")
    result.stdout.fnmatch_lines(["*snake-light*", "*pothos-water*", "2/4 tests collected*"])
    assert pytester.runpytest("--co", "-q", "-k", "care").ret == 0


def test_run_reports_failures_with_sentence_evidence_and_rule(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    result = pytester.runpytest("-m", "groundedness")
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines([
        "*pothos-water*1 of 1 sentences unsupported*",
        "*sentence 1: 'Water a pothos every 3 weeks.'*",
        "*cites: [[]1[]] 1*",
        "*why:*3*",
        "*best evidence:*every 1 to 2 weeks*",
    ])
    assert "Traceback" not in result.stdout.str()


def test_summary_shows_n_interval_and_flags(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    result = pytester.runpytest("-m", "groundedness")
    result.stdout.fnmatch_lines([
        "*= sprout =*",
        "tier*metric*k/n*rate*95% CI*flags",
        "groundedness*facts*3/3*1.000*[[]0.439, 1.000[]]*underpowered, saturated (all passed)",
        "groundedness*grounded *2/3*0.667*",
        "groundedness*refusal*4/4*",
        "saturated (all passed): *",
        "underpowered: *",
    ])


def test_no_summary_section_without_sprout_items(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_plain(): pass")
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)
    assert "= sprout =" not in result.stdout.str()


def test_last_failed_reruns_exactly_the_failed_items(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    pytester.runpytest("-m", "groundedness").assert_outcomes(passed=3, failed=1)
    result = pytester.runpytest("--lf", "-m", "groundedness", "-v")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*suites/care.yaml::pothos-water[[]groundedness[]] FAILED*"])


def test_report_json(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    pytester.runpytest("-m", "groundedness", "--sprout-report=out/report.json")
    report = json.loads((pytester.path / "out" / "report.json").read_text())
    assert report["plugin"] == "pytest-sprout" and len(report["dataset_hash"]) == 64
    assert report["system"] == {"name": "lookup", "version": "1"}
    grounded = next(m for m in report["metrics"] if m["metric"] == "grounded")
    assert {k: grounded[k] for k in ("tier", "n", "k", "underpowered", "saturated")} == {
        "tier": "groundedness", "n": 3, "k": 2, "underpowered": True, "saturated": False,
    }
    assert set(grounded) >= {"rate", "ci_low", "ci_high"}
    item = next(i for i in report["items"] if i["case_id"] == "pothos-water")
    assert item["nodeid"] == "suites/care.yaml::pothos-water[groundedness]"
    assert item["outcome"] == "failed" and item["suite"] == "care" and item["tier"] == "groundedness"
    sentence = item["sentences"][0]
    assert sentence["supported"] is False and sentence["citations"] == ["1"] and "every 1 to 2 weeks" in sentence["evidence"]
    assert sentence["reason"]


def test_system_called_once_per_case_however_many_tiers(pytester: pytest.Pytester) -> None:
    conftest = SYSTEM_CONFTEST + textwrap.dedent('''
        def pytest_sessionfinish(session):
            import collections, json
            counts = collections.Counter(CALLS)
            open("calls.json", "w").write(json.dumps(counts))
    ''')
    make_project(pytester, conftest=conftest)
    # The user's own test reads the golden set through the fixture: the same answers, not a 2nd call.
    pytester.makepyfile(test_user='''
        def test_golden(sprout_golden):
            assert sprout_golden["snake-light"].answer.sentences
            assert sprout_golden["taxes"].answer.refused
    ''')
    result = pytester.runpytest()
    result.assert_outcomes(passed=4, failed=1)
    counts = json.loads((pytester.path / "calls.json").read_text())
    assert counts and set(counts.values()) == {1}, counts


def test_system_exception_fails_only_that_case(pytester: pytest.Pytester) -> None:
    suite = SUITE + "  - id: breaks\n    question: What breaks?\n"
    make_project(pytester, suite=suite)
    result = pytester.runpytest("-m", "groundedness", "--sprout-report=r.json")
    result.assert_outcomes(passed=3, failed=2)
    result.stdout.fnmatch_lines([
        "*the system raised while answering 'breaks'*",
        "*RuntimeError: retriever index is missing*",
        "*1 item errored (not counted in any metric):",
        "  suites/care.yaml::breaks[groundedness]: RuntimeError: retriever index is missing",
    ])
    report = json.loads((pytester.path / "r.json").read_text())
    broken = next(i for i in report["items"] if i["case_id"] == "breaks")
    assert broken["outcome"] == "error" and "retriever index is missing" in broken["error"]


def test_system_from_ini_factory(pytester: pytest.Pytester) -> None:
    make_project(pytester, conftest="")
    pytester.makepyfile(mysystem='''
        def factory():
            return lambda q: ("Snake plants tolerate low light [1].", ["Snake plants tolerate low light."])
    ''')
    pytester.makeini("[pytest]\nsprout_system = mysystem:factory\npythonpath = .\n")
    result = pytester.runpytest("-m", "groundedness", "-k", "snake")
    result.assert_outcomes(passed=1, deselected=3)


def test_missing_system_is_explained(pytester: pytest.Pytester) -> None:
    make_project(pytester, conftest="")
    result = pytester.runpytest("-m", "groundedness", "-k", "snake")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*no system under test: define pytest_sprout_make_system*"])
    assert "Traceback" not in result.stdout.str()


def test_thresholds_change_the_judge(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    result = pytester.runpytest("-m", "groundedness", "--sprout-threshold=groundedness.coverage=0.99")
    result.stdout.fnmatch_lines(["*= sprout =*"])
    bad = pytester.runpytest("-m", "groundedness", "--sprout-threshold=coverage=0.5")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*--sprout-threshold: expected TIER.NAME=VALUE*"])


def test_assert_grounded_in_users_own_tests(pytester: pytest.Pytester) -> None:
    pytester.makepyfile('''
        import pytest
        from pytest_sprout import assert_grounded, LexicalJudge, Verdict

        PASSAGES = ["Snake plants tolerate low light. Water them every 2 to 3 weeks."]

        class Doubter:  # a judge of the user's own: judge_many only
            def judge_many(self, pairs):
                return [Verdict(False, 0.1, None, "the doubter doubts", "doubt") for _ in pairs]

        def test_own_judge():
            with pytest.raises(AssertionError, match="(?s)1 of 1 sentences.*the doubter doubts"):
                assert_grounded("Snake plants tolerate low light [1].", PASSAGES, judge=Doubter())

        def test_ok():
            assert_grounded("Snake plants tolerate low light [1].", PASSAGES)

        def test_bad():
            assert_grounded("Water snake plants every 5 weeks [1].", PASSAGES)

        def test_fixture(lexical_judge):
            assert isinstance(lexical_judge, LexicalJudge)
    ''')
    result = pytester.runpytest()
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(["*1 of 1 sentences are not grounded*", "*sentence 1: 'Water snake plants every 5 weeks.'*"])


def test_unavailable_tier_skips_unless_chosen_explicitly(pytester: pytest.Pytester) -> None:
    make_project(pytester, tiers="[groundedness, alce]")
    result = pytester.runpytest("-rs")
    result.assert_outcomes(passed=3, failed=1, skipped=4)
    result.stdout.fnmatch_lines(["*--nli-model*"])
    explicit = pytester.runpytest("-m", "alce")
    assert explicit.ret == pytest.ExitCode.USAGE_ERROR
    explicit.stderr.fnmatch_lines(["*-m alce:*--nli-model*"])


def test_plugin_import_is_cheap(pytester: pytest.Pytester) -> None:
    """`pytest --co` in a project without suites loads no heavy library."""
    pytester.makeconftest('''
        import sys
        def pytest_collection_finish(session):
            heavy = [m for m in ("torch", "transformers", "ragas", "deepeval", "numpy", "bm25s") if m in sys.modules]
            print("HEAVY:", ",".join(heavy) or "none")
    ''')
    pytester.makepyfile("def test_x(): pass")
    result = pytester.runpytest_subprocess("--co", "-p", "no:deepeval", "-s")
    result.stdout.fnmatch_lines(["HEAVY: none"])
