"""--sprout-labels: your labels correct the judge. The labels file read (malformed lines named by
file, line and field), matched to this run's verdicts (stale labels counted and named), the
corrected row in the summary and the reports, the plain warning when the judge misses most
unsupported sentences, the labels file in the snapshot chain, and the same numbers under xdist."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

# A stand-in RAG system: "Fact N?" is answered "Fact N is green [1]. It is small [1]." from the
# passage "Fact N is green and small." (both sentences supported), except every fourth, answered
# "Fact N is not green [1]." (a negation the judge rejects).
CONFTEST = '''
def pytest_sprout_make_system(config):
    def system(question):
        n = int(question.split()[-1].rstrip("?"))
        claim = f"Fact {n} is not green [1]." if n % 4 == 3 else f"Fact {n} is green [1]. It is small [1]."
        return claim, [f"Fact {n} is green and small."]
    system.name = "facts"
    system.version = "1"
    return system
'''


def make(pytester: pytest.Pytester, cases: int = 12) -> None:
    pytester.makeconftest(CONFTEST)
    lines = ["suite: facts", "defaults: {tiers: [groundedness]}", "cases:"]
    for n in range(cases):
        lines += [f"  - id: fact-{n}", f"    question: What about fact {n}?"]
    pytester.mkdir("suites")
    Path(pytester.path, "suites", "facts.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_labels(pytester: pytest.Pytester, labels: list[dict[str, object]], name: str = "labels.jsonl") -> Path:
    path = Path(pytester.path, name)
    path.write_text("".join(json.dumps(label) + "\n" for label in labels), encoding="utf-8")
    return path


def people_reject_the_smallness(cases: int = 12) -> list[dict[str, object]]:
    """People say "It is small." is unsupported (the passage says so only of fact N as a whole,
    say), and agree with the judge elsewhere: the judge accepts every one of those sentences."""
    out: list[dict[str, object]] = []
    for n in range(cases):
        if n % 4 == 3:
            out.append({"case_id": f"fact-{n}", "sentence": f"Fact {n} is not green.", "supported": False})
        else:
            out.append({"case_id": f"fact-{n}", "sentence": f"Fact {n} is green.", "supported": True})
            out.append({"case_id": f"fact-{n}", "sentence": "It is small.", "supported": False, "labeller": "ann"})
    return out


def test_labels_print_the_corrected_row_and_write_the_json_fields(pytester: pytest.Pytester) -> None:
    make(pytester)
    write_labels(pytester, people_reject_the_smallness())
    result = pytester.runpytest("-p", "no:cacheprovider", "--sprout-labels=labels.jsonl", "--sprout-report=r.json",
                                "--sprout-md=s.md", "--sprout-html=r.html")
    result.assert_outcomes(passed=9, failed=3)
    # 21 sentences: 18 in the 9 good answers (all accepted), 3 rejected negations. People: 9 of 21.
    result.stdout.fnmatch_lines([
        "*groundedness*grounded_sentence*18/21*12*0.857*",
        "*corrected by labels*21 labels*0.429*underpowered*",
        "labels: labels.jsonl: 21 labels; 21 matched to a verdict of this run",
        "*grounded_sentence: judge vs labels: sensitivity 1.000 (9/9)*specificity 0.250 (3/12)*",
    ])
    report = json.loads(Path(pytester.path, "r.json").read_text(encoding="utf-8"))
    metric = {m["metric"]: m for m in report["metrics"]}["grounded_sentence"]
    assert metric["clusters"] == 12
    corrected = metric["corrected"]
    assert corrected["n_labels"] == 21 and corrected["rate"] == pytest.approx(9 / 21)
    assert corrected["ci_low"] < 9 / 21 < corrected["ci_high"] and corrected["underpowered"] is True
    assert "ppi++" in corrected["method"]
    judge = metric["judge_vs_labels"]
    assert (judge["sensitivity"]["k"], judge["sensitivity"]["n"]) == (9, 9)
    assert (judge["specificity"]["k"], judge["specificity"]["n"]) == (3, 12)
    assert report["labels"]["path"] == "labels.jsonl" and len(report["labels"]["sha256"]) == 64
    assert "corrected by labels" in Path(pytester.path, "s.md").read_text(encoding="utf-8")
    html = Path(pytester.path, "r.html").read_text(encoding="utf-8")
    assert 'id="labels"' in html and "0.429" in html


def test_a_judge_that_misses_most_unsupported_sentences_is_told_so(pytester: pytest.Pytester) -> None:
    make(pytester)
    # only the sentences the judge accepted are labelled, people reject the 9 "It is small."
    labels = [lab for lab in people_reject_the_smallness() if lab["sentence"] == "It is small."]
    write_labels(pytester, labels)
    result = pytester.runpytest("-p", "no:cacheprovider", "--sprout-labels=labels.jsonl")
    result.stdout.fnmatch_lines([
        "*grounded_sentence: judge vs labels: sensitivity - (no labels of that kind), specificity 0.000 (0/9)*",
        "*grounded_sentence: the judge misses most unsupported sentences people found on this data "
        "(it rejects 0 of the 9 they call unsupported)",
    ])


@pytest.mark.parametrize("correction_tier", [None, "groundedness"])
def test_a_sentence_labelled_twice_counts_once_whatever_tier_the_correction_names(
        pytester: pytest.Pytester, correction_tier: str | None) -> None:
    """Repro 35: a tier-less label and a later correction of the same sentence (with or without
    "tier") are one label, the correction's; the sentence is never counted supported and unsupported."""
    make(pytester, cases=4)
    correction: dict[str, object] = {"case_id": "fact-0", "sentence": "Fact 0 is green.", "supported": False}
    if correction_tier is not None:
        correction["tier"] = correction_tier
    write_labels(pytester, [
        {"case_id": "fact-0", "sentence": "Fact 0 is green.", "supported": True},
        {"case_id": "fact-1", "sentence": "Fact 1 is green.", "supported": True},
        correction,
    ])
    result = pytester.runpytest("-p", "no:cacheprovider", "--sprout-labels=labels.jsonl")
    result.stdout.fnmatch_lines([
        "labels: labels.jsonl: 2 labels; 2 matched to a verdict of this run",
        "*grounded_sentence: judge vs labels: sensitivity 1.000 (1/1)*specificity 0.000 (0/1)*",
    ])


def test_a_later_tier_less_label_replaces_an_earlier_one_naming_a_tier(pytester: pytest.Pytester) -> None:
    make(pytester, cases=4)
    write_labels(pytester, [
        {"case_id": "fact-0", "sentence": "Fact 0 is green.", "supported": False, "tier": "groundedness"},
        {"case_id": "fact-0", "sentence": "Fact 0 is green.", "supported": True},
    ])
    result = pytester.runpytest("-p", "no:cacheprovider", "--sprout-labels=labels.jsonl")
    result.stdout.fnmatch_lines([
        "labels: labels.jsonl: 1 labels; 1 matched to a verdict of this run",
        "*grounded_sentence: judge vs labels: sensitivity 1.000 (1/1)*specificity - (no labels of that kind)*",
    ])


def test_stale_labels_are_counted_and_named(pytester: pytest.Pytester) -> None:
    make(pytester, cases=4)
    write_labels(pytester, [
        {"case_id": "fact-0", "sentence": "Fact 0 is green.", "supported": True},
        {"case_id": "fact-0", "sentence": "Fact 0 is blue.", "supported": False},  # a sentence it did not say
        {"case_id": "fact-99", "supported": True},  # a case this run does not have
        {"case_id": "fact-1", "sentence": "Fact 1 is green.", "supported": None},  # still to label
    ])
    result = pytester.runpytest("-p", "no:cacheprovider", "--sprout-labels=labels.jsonl")
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines([
        "labels: labels.jsonl: 3 labels, 1 still to give (\"supported\": null); 1 matched to a verdict of this run",
        "  2 labels describe answers this run did not give (not used): 'fact-0' 'Fact 0 is blue.' (line 2); "
        "'fact-99' (answer) (line 3)",
    ])


@pytest.mark.parametrize(("line", "message"), [
    ('{"case_id": "fact-0", "sentence": "x"}', "labels.jsonl:2: field 'supported' is missing*"),
    ('{"case_id": "fact-0", "supported": "yes"}', "labels.jsonl:2: field 'supported' must be true, false or null, got \"yes\""),
    ('{"sentence": "x", "supported": true}', "labels.jsonl:2: field 'case_id' is missing or not a non-empty string"),
    ('{"case_id": "fact-0", "suported": true}', "labels.jsonl:2: unknown field 'suported'*"),
    ('{"case_id": "fact-0", "supported": true', "labels.jsonl:2: not JSON*"),
    ('["fact-0", true]', "labels.jsonl:2: expected a JSON object, one label per line"),
])
def test_a_malformed_label_is_a_usage_error_naming_file_line_and_field(
    pytester: pytest.Pytester, line: str, message: str,
) -> None:
    make(pytester, cases=2)
    Path(pytester.path, "labels.jsonl").write_text(
        '{"case_id": "fact-0", "sentence": "Fact 0 is green.", "supported": true}\n' + line + "\n", encoding="utf-8")
    result = pytester.runpytest("-p", "no:cacheprovider", "--sprout-labels=labels.jsonl", "--sprout-report=r.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*labels.jsonl: 1 line is not labels:*", f"*{message}"])
    assert "Traceback" not in result.stderr.str() and "INTERNALERROR" not in result.stdout.str()
    assert not Path(pytester.path, "r.json").exists()


def test_a_missing_labels_file_is_a_usage_error(pytester: pytest.Pytester) -> None:
    make(pytester, cases=2)
    result = pytester.runpytest("-p", "no:cacheprovider", "--sprout-labels=nowhere.jsonl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*nowhere.jsonl: the labels file cannot be read*"])


def test_the_labels_file_joins_the_snapshot_chain(pytester: pytest.Pytester) -> None:
    make(pytester, cases=4)
    write_labels(pytester, [{"case_id": "fact-0", "sentence": "Fact 0 is green.", "supported": True}])
    first = pytester.runpytest("-p", "no:cacheprovider", "--sprout-update-snapshot", "--sprout-labels=labels.jsonl")
    first.stdout.fnmatch_lines(["*registered labels.jsonl (labels file)*"])
    snapshot = json.loads(Path(pytester.path, "sprout.snapshot.json").read_text(encoding="utf-8"))
    assert snapshot["artifacts"]["labels.jsonl"]["kind"] == "labels"
    write_labels(pytester, [{"case_id": "fact-0", "sentence": "Fact 0 is green.", "supported": False}])
    second = pytester.runpytest("-p", "no:cacheprovider", "--sprout-labels=labels.jsonl")
    assert second.ret != 0
    second.stdout.fnmatch_lines(["*labels.jsonl (labels file): edited since it was registered*",
                                 "*--sprout-labels=labels.jsonl*"])


def test_xdist_gives_the_same_corrected_numbers(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist", reason="pytest-xdist is not installed (pip install pytest-sprout[dev])")
    make(pytester)
    write_labels(pytester, people_reject_the_smallness())
    metrics = {}
    for workers in ("0", "2"):
        result = pytester.runpytest("-p", "no:cacheprovider", "-n", workers, "--sprout-labels=labels.jsonl",
                                    f"--sprout-report=r{workers}.json")
        result.assert_outcomes(passed=9, failed=3)
        metrics[workers] = json.loads(Path(pytester.path, f"r{workers}.json").read_text(encoding="utf-8"))["metrics"]
    assert metrics["0"] == metrics["2"]
    assert any("corrected" in m for m in metrics["2"])


def test_label_sample_is_seeded_stratified_and_never_overwrites(pytester: pytest.Pytester) -> None:
    make(pytester)
    first = pytester.runpytest("-p", "no:cacheprovider", "--sprout-label-sample=6")
    first.stdout.fnmatch_lines(["wrote label sample (6 sentences to label): sprout-label-sample.jsonl"])
    path = Path(pytester.path, "sprout-label-sample.jsonl")
    text = path.read_text(encoding="utf-8")
    sample = [json.loads(line) for line in text.splitlines()]
    assert len(sample) == 6 and all(entry["supported"] is None for entry in sample)
    # stratified: the 3 sentences the judge rejected (of 21) are all in, then 3 it accepted
    assert sum("is not green" in entry["sentence"] for entry in sample) == 3
    again = pytester.runpytest("-p", "no:cacheprovider", "--sprout-label-sample=6")
    again.stdout.fnmatch_lines(["*sprout-label-sample.jsonl: not written, the file exists*"])
    path.unlink()
    pytester.runpytest("-p", "no:cacheprovider", "--sprout-label-sample=6")
    assert path.read_text(encoding="utf-8") == text  # the same suites give the same sample
    filled = pytester.runpytest("-p", "no:cacheprovider", "--sprout-labels=sprout-label-sample.jsonl")
    filled.stdout.fnmatch_lines(["labels: sprout-label-sample.jsonl: 0 labels, 6 still to give*"])


def test_label_sample_rejects_a_size_below_one(pytester: pytest.Pytester) -> None:
    make(pytester, cases=2)
    result = pytester.runpytest("-p", "no:cacheprovider", "--sprout-label-sample=0")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--sprout-label-sample must be a whole number of sentences, 1 or more, got 0*"])


# Stands in for a person at the keyboard: opens the labelling mode, labels three sentences with the
# page's own keys and buttons (s on the first, arrow down, n on the next, the "supported" button of
# the third), then presses "export labels". Appended to a copy of the report, it runs after the page.
# The export offers the labels as a download too. Headless Chromium, asked for --dump-dom, prints
# the page and then often never exits while a download is pending, so the harness stands in for
# the browser's download: the link's click records the file name and the blob it would save.
HARNESS = """
(function () {
  HTMLAnchorElement.prototype.click = function () {
    document.body.setAttribute('data-download', this.download + ' ' + this.href.slice(0, 5));
  };
  document.querySelector('#labelling details').open = true;
  var items = document.querySelectorAll('#labelling .lab');
  function press(el, key) { el.dispatchEvent(new KeyboardEvent('keydown', {key: key, bubbles: true})); }
  items[0].focus(); press(items[0], 's'); press(items[0], 'ArrowDown');
  press(document.activeElement, 'n');
  items[2].querySelector('button[data-v="1"]').click();
  document.getElementById('lab-export').click();
})();
"""


def test_html_labelling_mode_round_trips_in_headless_chromium(pytester: pytest.Pytester, tmp_path: Path) -> None:
    import html as htmllib
    import re

    from test_html import CHROMIUM, chromium

    if CHROMIUM is None:
        pytest.skip("headless check needs chromium on PATH (apt-get install chromium)")
    make(pytester, cases=4)
    pytester.runpytest("-p", "no:cacheprovider", "--sprout-html=r.html").assert_outcomes(passed=3, failed=1)
    page = Path(pytester.path, "r.html")
    text = page.read_text(encoding="utf-8")
    assert text.count('class="lab"') == 7  # 3 answers of 2 sentences, 1 of 1
    harness = tmp_path / "harness.html"
    harness.write_text(text.replace("</body>", f"<script>{HARNESS}</script></body>"), encoding="utf-8")
    dom = chromium(tmp_path, harness.as_uri(), "--dump-dom")
    assert 'data-exported="3"' in dom and 'data-labelled="3"' in dom
    assert 'data-download="sprout-labels.jsonl blob:"' in dom
    box = re.search(r'<textarea id="lab-text"[^>]*>(.*?)</textarea>', dom, re.S)
    assert box is not None
    exported = htmllib.unescape(box.group(1))
    labels = [json.loads(line) for line in exported.splitlines()]
    assert [label["supported"] for label in labels] == [True, False, True]
    Path(pytester.path, "labels.jsonl").write_text(exported, encoding="utf-8")
    result = pytester.runpytest("-p", "no:cacheprovider", "--sprout-labels=labels.jsonl")
    result.stdout.fnmatch_lines(["*corrected by labels*3 labels*underpowered*",
                                 "labels: labels.jsonl: 3 labels; 3 matched to a verdict of this run"])
    # the choices stay in the browser: the report itself, opened again, shows them
    again = chromium(tmp_path, page.as_uri(), "--dump-dom")
    assert 'data-labelled="3"' in again
