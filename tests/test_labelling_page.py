"""Labelling that people can do right (issue 48, part 1): the labelling page and
``sprout-label-sample.jsonl`` show each sentence with the full text of the passages it was judged
against, the claim's words marked; the label sample comes first and can be shown alone, with its
progress; the judge's verdict stays hidden until a sentence is labelled; a passage shared by many
sentences is stored once; the summary page of a large run keeps "Your labels" and says why its
labelling mode is off (repro 40). The round trip in headless Chromium: draw a sample, label it
from the page, feed the export back: the corrected rate and the calibration (the command line's and
--sprout-calibrate's) use exactly those labels."""

from __future__ import annotations

import html as htmllib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from pytest_sprout.checks.label_context import claim_stems, marks, stem
from pytest_sprout.reports.html.large import LARGE, write_any_html
from pytest_sprout.reports.html.page import render_html
from test_html import CHROMIUM, body_attrs, chromium, needs_chromium
from test_labels import make, write_labels

HOSTILE = '</script><script>alert("x")</script><!--'


def sentence(text: str, cites: list[str], supported: bool, **more: Any) -> dict[str, Any]:
    return {"text": text, "citations": cites, "supported": supported, "score": 0.5, "reason": "r", "rule": "x",
            "evidence": "best", **more}


def item(case: str, sentences: list[dict[str, Any]], passages: list[str], outcome: str = "passed") -> dict[str, Any]:
    return {"nodeid": f"suites/s.yaml::{case}[groundedness]", "case_id": case, "suite": "s", "tier": "groundedness",
            "outcome": outcome, "question": f"What about {case}?",
            "metrics": {"grounded_sentence": [s["supported"] for s in sentences]}, "sentences": sentences,
            "answer": {"text": " ".join(s["text"] for s in sentences), "refused": False,
                       "passages": [{"id": str(i + 1), "text": p} for i, p in enumerate(passages)]}}


def report(items: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
    return {"plugin": "pytest-sprout", "version": "0", "dataset_hash": "abc", "system": {}, "metrics": [],
            "items": items, **more}


def cards(page: str) -> list[str]:
    return re.findall(r'<div class="lab" [^>]*>', page)


def passages_block(page: str) -> list[str]:
    found = re.search(r'<script type="application/json" id="lab-passages">(.*?)</script>', page, re.S)
    assert found, "the page holds no passage data block"
    return json.loads(found.group(1))


# --- the claim's words in the passages --------------------------------------------------------


def test_claim_words_are_marked_by_stem_and_stop_words_are_not() -> None:
    assert stem("tolerates") == stem("tolerated") == stem("tolerate") == stem("tolerating")
    assert stem("studies") == stem("study") and stem("plants") == stem("plant")
    text = "The snake plant tolerated low-light rooms; it is not a cactus."
    spans = marks(claim_stems("Snake plants tolerate low light."), text)
    assert [text[a:b] for a, b in spans] == ["snake plant tolerated low", "light"]
    assert marks(claim_stems("It is the one."), "It is the one of them.") == [[10, 13]]  # 'one' only


# --- sprout-label-sample.jsonl ------------------------------------------------------------------

RETRIEVED = '''
def pytest_sprout_make_system(config):
    def system(question):
        n = int(question.split()[-1].rstrip("?"))
        if n == 0:  # no [k] markers: judged against both retrieved passages
            return "Fact 0 is green.", ["Fact 0 is green and small.", "Fact 0 grows slowly."]
        return f"Fact {n} is green [2].", ["Nothing about it.", f"Fact {n} is green and small.", "Other."]
    system.name = "facts"
    system.version = "1"
    return system
'''


def test_label_sample_carries_the_passages_with_the_claim_marked_and_reads_back(pytester: pytest.Pytester) -> None:
    make(pytester, cases=3)
    pytester.makeconftest(RETRIEVED)
    pytester.runpytest("-p", "no:cacheprovider", "--sprout-citations=retrieved", "--sprout-label-sample=3")
    path = Path(pytester.path, "sprout-label-sample.jsonl")
    sample = {entry["case_id"]: entry for entry in map(json.loads, path.read_text(encoding="utf-8").splitlines())}
    assert set(sample) == {"fact-0", "fact-1", "fact-2"}
    uncited = sample["fact-0"]
    assert uncited["judged_against"] == "retrieved" and uncited["question"] == "What about fact 0?"
    assert [p["text"] for p in uncited["passages"]] == ["Fact 0 is green and small.", "Fact 0 grows slowly."]
    first = uncited["passages"][0]
    assert [first["text"][a:b] for a, b in first["marks"]] == ["Fact 0", "green"]
    cited = sample["fact-1"]  # only the passage it cites, full text, its marker
    assert cited["judged_against"] == "cited" and "supported" not in {k for k, v in cited.items() if v is not None}
    assert cited["passages"] == [{"id": "2", "marker": "[2]", "text": "Fact 1 is green and small.",
                                  "marks": [[0, 6], [10, 15]]}]
    # the filled-in sample is a labels file: its context is read, never used
    filled = [{**entry, "supported": entry["case_id"] != "fact-2"} for entry in sample.values()]
    write_labels(pytester, filled, name="sprout-label-sample.jsonl")
    result = pytester.runpytest("-p", "no:cacheprovider", "--sprout-citations=retrieved",
                                "--sprout-labels=sprout-label-sample.jsonl")
    result.stdout.fnmatch_lines(["labels: sprout-label-sample.jsonl: 3 labels; 3 matched to a verdict of this run"])
    write_labels(pytester, [{**filled[0], "passages": "not a list"}], name="bad.jsonl")
    bad = pytester.runpytest("-p", "no:cacheprovider", "--sprout-labels=bad.jsonl")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*bad.jsonl:1: field 'passages' must be a list*"])


# --- the labelling page ---------------------------------------------------------------------------


def test_a_passage_shared_by_many_sentences_is_stored_once() -> None:
    long = " ".join(f"Snake plants tolerate low light and watering {i}." for i in range(50))  # about 2.3 KB
    items = [item(f"c{n}", [sentence(f"Snake plants tolerate low light {n}.", ["1"], True),
                            sentence("They need daily watering.", ["1"], False)], [long]) for n in range(200)]
    page = render_html(report(items))
    assert len(cards(page)) == 400
    labelling = page[page.index('<section id="labelling"'):]  # (the cases section lists each case's passages)
    assert labelling.count(long[:200]) == 1  # the passage once, whatever shares it
    assert passages_block(page)[0] == long
    one = render_html(report(items[:1]))
    per_card = (len(labelling) - len(one[one.index('<section id="labelling"'):])) / 398
    assert per_card < 1500, per_card  # a card is its sentence, verdict and marks, not its passages


def test_passage_text_cannot_leave_its_data_block_or_its_attribute() -> None:
    items = [item("c<1>", [sentence(HOSTILE, ["1"], True)], [HOSTILE + " \r\n & é 🌵 \u2028"])]
    page = render_html(report(items, label_sample=[{"case_id": "c<1>", "sentence": HOSTILE}]))
    assert HOSTILE not in page and "<script>alert" not in page
    assert passages_block(page)[0] == HOSTILE + " \r\n & é 🌵 \u2028"  # as it was, \r included


def test_the_label_sample_comes_first_numbered_with_its_filter() -> None:
    items = [item(f"c{n}", [sentence(f"Fact {n}.", ["1"], n % 2 == 0)], [f"Fact {n} holds."]) for n in range(6)]
    page = render_html(report(items, label_sample=[{"case_id": "c4", "sentence": "Fact 4."},
                                                   {"case_id": "c1", "sentence": " Fact  1. "},
                                                   {"case_id": "gone", "sentence": "Not judged."}]))
    found = cards(page)
    assert [re.search(r'data-case="([^"]*)"', c).group(1) for c in found] == ["c4", "c1", "c0", "c2", "c3", "c5"]
    assert 'data-sample="1 of 2"' in found[0] and 'data-sample="2 of 2"' in found[1]
    assert "data-sample=" not in found[2]
    assert 'id="lab-only-sample" checked' in page and "<details open>" in page
    assert "1 sentences of the sample are not among this run's judged sentences" in htmllib.unescape(page)
    plain = render_html(report(items))  # no sample: every sentence, collapsed, no filter
    assert 'id="lab-only-sample"' not in plain and "<details open>" not in plain


def test_an_uncited_sentence_in_required_mode_says_it_was_judged_against_nothing() -> None:
    page = render_html(report([item("c0", [sentence("No markers here.", [], False)], ["Some passage."])]))
    assert 'data-kind="uncited"' in page and "cites no passage" in page
    assert passages_block(page) == []  # nothing to show: no passage, and the answer is the sentence


# --- repro 40: the summary page of a large run ------------------------------------------------------


def large_report(sample: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    items = [item(f"c{n}", [sentence(f"Fact {n} is green.", ["1"], n % 7 != 0)], [f"Fact {n} is green and small."],
                  outcome="passed" if n % 7 else "failed") for n in range(LARGE + 1)]
    labelled = {"tier": "groundedness", "metric": "grounded_sentence", "kind": "rate", "n": LARGE + 1, "k": 4287,
                "rate": 0.857, "ci_low": 0.847, "ci_high": 0.866,
                "corrected": {"rate": 0.5, "ci_low": 0.3, "ci_high": 0.7, "n_labels": 20, "underpowered": True},
                "judge_vs_labels": {"sensitivity": {"k": 9, "n": 10, "value": 0.9},
                                    "specificity": {"k": 3, "n": 10, "value": 0.3}}}
    return report(items, metrics=[labelled], **({"label_sample": sample} if sample else {}))


def test_large_summary_page_keeps_your_labels_and_says_labelling_is_off(tmp_path: Path) -> None:
    write_any_html(tmp_path / "big.html", large_report())
    page = (tmp_path / "big.html").read_text(encoding="utf-8")
    assert 'id="summary-page"' in page  # the summary page, not the page of every item
    assert 'id="labels"' in page and "Your labels" in page and "0.500" in page
    assert 'id="labelling-off"' in page and "--sprout-label-sample=N" in page
    assert 'id="labelling"' not in page and not cards(page)


def test_large_summary_page_lists_the_label_sample_for_labelling(tmp_path: Path) -> None:
    sample = [{"case_id": f"c{n}", "sentence": f"Fact {n} is green."} for n in (3, 4000, 7)]
    write_any_html(tmp_path / "big.html", large_report(sample))
    page = (tmp_path / "big.html").read_text(encoding="utf-8")
    assert 'id="labels"' in page and "label sample's sentences only" in page
    assert [re.search(r'data-case="([^"]*)"', c).group(1) for c in cards(page)] == ["c3", "c4000", "c7"]


# --- in the browser ---------------------------------------------------------------------------------

# Stands in for a person at the keyboard, on the page's own controls: reads what the page shows
# before anything is labelled, labels the first shown card with the "not supported" button, then
# presses "show the judge's verdicts", and records what the page shows after each step.
LOOK = """
(function () {
  var body = document.body, section = document.getElementById('labelling');
  var shown = Array.prototype.filter.call(section.querySelectorAll('.lab'), function (c) { return !c.hidden; });
  function display(card) { return getComputedStyle(card.querySelector('.verdict')).display; }
  body.setAttribute('data-t-shown', String(shown.length));
  shown[0].focus();  // a card's passages are drawn when it comes into view, or gets the focus
  body.setAttribute('data-t-marks', String(shown[0].querySelectorAll('.ptext mark').length));
  body.setAttribute('data-t-passage', String(shown[0].querySelector('.ptext').textContent === EXPECTED));
  body.setAttribute('data-t-before', display(shown[0]));
  shown[0].querySelector('button[data-v="0"]').click();
  body.setAttribute('data-t-after', display(shown[0]) + ' ' + display(shown[1]));
  body.setAttribute('data-t-status', document.getElementById('lab-status').textContent);
  var toggle = document.getElementById('lab-show-verdicts');
  toggle.checked = true; toggle.dispatchEvent(new Event('change'));
  body.setAttribute('data-t-toggled', display(shown[1]));
  var only = document.getElementById('lab-only-sample');
  only.checked = false; only.dispatchEvent(new Event('change'));
  body.setAttribute('data-t-all', section.getAttribute('data-shown'));
})();
"""


@pytest.mark.slow  # a browser
@needs_chromium
def test_labelling_page_hides_the_verdict_until_labelled_and_marks_the_claim(tmp_path: Path) -> None:
    items = [item(f"c{n}", [sentence(f"Snake plants tolerate low light {n}.", ["2"], n % 2 == 0)],
                  ["Unrelated.", f"Snake plants tolerate low light {n}, and " + HOSTILE]) for n in range(6)]
    sample = [{"case_id": "c3", "sentence": "Snake plants tolerate low light 3."},
              {"case_id": "c0", "sentence": "Snake plants tolerate low light 0."}]
    page = tmp_path / "r.html"
    expected = json.dumps("Snake plants tolerate low light 3, and " + HOSTILE).replace("<", "\\u003c")
    look = LOOK.replace("EXPECTED", expected)
    page.write_text(render_html(report(items, label_sample=sample)).replace("</body>", f"<script>{look}</script></body>"),
                    encoding="utf-8")
    attrs = body_attrs(chromium(tmp_path, page.as_uri(), "--dump-dom"))
    assert attrs["data-sprout-ready"] == "1"
    assert attrs["data-t-shown"] == "2"  # the sample view: only the drawn sentences
    assert attrs["data-t-passage"] == "true"  # the full passage, drawn as text
    assert attrs["data-t-marks"] == "1"  # the claim's words, next to each other: one mark
    assert attrs["data-t-before"] == "none"  # the verdict is hidden while labelling
    assert attrs["data-t-after"] == "block none"  # shown for the labelled sentence only
    assert attrs["data-t-status"].startswith("1 of 2 in the label sample labelled; 1 of 6 sentences in all")
    assert attrs["data-t-toggled"] == "block"  # or for all, on request
    assert attrs["data-t-all"] == "6"


# Stands in for a person labelling the label sample from the page, on its own controls: the page
# opens on the sample; the person reads each card's sentence, says "It is small." is not supported
# (the passage says so only of the fact as a whole) and the rest as they read, moving with the
# arrow key, labelling with the keys (the first card with its button), then presses "export
# labels". Headless Chromium, asked for --dump-dom, often never exits while a download is pending,
# so the harness stands in for the browser's download: the link's click records the file name.
LABEL_THE_SAMPLE = """
(function () {
  HTMLAnchorElement.prototype.click = function () {
    document.body.setAttribute('data-download', this.download + ' ' + this.href.slice(0, 5));
  };
  var section = document.getElementById('labelling');
  var shown = Array.prototype.filter.call(section.querySelectorAll('.lab'), function (c) { return !c.hidden; });
  function press(key) { document.activeElement.dispatchEvent(new KeyboardEvent('keydown', {key: key, bubbles: true})); }
  function verdict(card) { return !/small|not green/.test(card.querySelector('.claim').textContent); }
  shown[0].focus();
  shown[0].querySelector('button[data-v="' + (verdict(shown[0]) ? 1 : 0) + '"]').click();
  for (var i = 1; i < shown.length; i++) {
    press('ArrowDown');
    press(verdict(document.activeElement) ? 's' : 'n');
  }
  press('ArrowDown');  // past the last card of the sample: stays on it (the others are filtered out)
  document.body.setAttribute('data-t-last', String(document.activeElement === shown[shown.length - 1]));
  document.body.setAttribute('data-t-status', document.getElementById('lab-status').textContent);
  document.getElementById('lab-export').click();
})();
"""


@pytest.mark.slow
def test_label_sample_round_trip_through_the_page_in_headless_chromium(pytester: pytest.Pytester,
                                                                     tmp_path: Path) -> None:
    from pytest_sprout.core.ppi import corrected_rate, strata_of

    if CHROMIUM is None:
        chromium(tmp_path, "about:blank")  # fails under SPROUT_REQUIRE_BROWSER=1
        pytest.skip("headless check needs chromium on PATH (apt-get install chromium)")
    make(pytester)
    first = pytester.runpytest("-p", "no:cacheprovider", "--sprout-label-sample=8", "--sprout-html=r.html",
                               "--sprout-report=r.json")
    first.assert_outcomes(passed=9, failed=3)
    drawn = [json.loads(line) for line in Path(pytester.path, "sprout-label-sample.jsonl").read_text().splitlines()]
    assert len(drawn) == 8
    text = Path(pytester.path, "r.html").read_text(encoding="utf-8")
    harness = tmp_path / "harness.html"
    harness.write_text(text.replace("</body>", f"<script>{LABEL_THE_SAMPLE}</script></body>"), encoding="utf-8")
    dom = chromium(tmp_path, harness.as_uri(), "--dump-dom")
    attrs = body_attrs(dom)
    assert attrs["data-download"] == "sprout-labels.jsonl blob:"
    assert attrs["data-t-last"] == "true"
    assert attrs["data-t-status"].startswith("8 of 8 in the label sample labelled; 8 of 21 sentences in all")
    box = re.search(r'<textarea id="lab-text"[^>]*>(.*?)</textarea>', dom, re.S)
    assert box is not None
    exported = htmllib.unescape(box.group(1))
    labels = [json.loads(line) for line in exported.splitlines()]
    # exactly the drawn sentences, in the --sprout-labels format
    assert sorted((lab["case_id"], lab["sentence"]) for lab in labels) == sorted(
        (entry["case_id"], entry["sentence"]) for entry in drawn)
    assert all(set(lab) == {"case_id", "sentence", "supported"} for lab in labels)
    people = {(lab["case_id"], lab["sentence"]): lab["supported"] for lab in labels}
    assert people == {key: not ("small" in key[1] or "not green" in key[1]) for key in people}
    Path(pytester.path, "labels.jsonl").write_text(exported, encoding="utf-8")
    second = pytester.runpytest("-p", "no:cacheprovider", "--sprout-labels=labels.jsonl", "--sprout-report=r2.json")
    second.stdout.fnmatch_lines(["labels: labels.jsonl: 8 labels; 8 matched to a verdict of this run"])
    # the corrected rate is the one those 8 labels give with this run's verdicts, and no other
    report2 = json.loads(Path(pytester.path, "r2.json").read_text(encoding="utf-8"))
    judge = {(row["case_id"], s["text"]): s["supported"] for row in report2["items"] for s in row["sentences"]}
    metric = {m["metric"]: m for m in report2["metrics"]}["grounded_sentence"]
    pairs = [(judge[key], label) for key, label in people.items()]
    expected = corrected_rate(strata_of(pairs, {True: metric["k"], False: metric["n"] - metric["k"]}))
    assert expected is not None
    want = expected.to_json()
    assert metric["corrected"]["n_labels"] == want["n_labels"] == 8
    for field in ("rate", "ci_low", "ci_high"):
        assert metric["corrected"][field] == pytest.approx(want[field], abs=1e-4)
    # and the calibration fitted from that export uses exactly those labels
    from pytest_sprout.cli.calibrate import main as calibrate
    from pytest_sprout.core.identity import file_sha256

    said: list[str] = []
    labels_path, out = Path(pytester.path, "labels.jsonl"), Path(pytester.path, "cal.json")
    assert calibrate(["--judge", "lexical", "--data", str(labels_path), "--report", str(Path(pytester.path, "r2.json")),
                      "--out", str(out)], out=said.append) == 0, said
    fitted = json.loads(out.read_text(encoding="utf-8"))["labels"]
    assert fitted["sha256"] == file_sha256(labels_path) and fitted["n"] == 8
    assert (fitted["supported"], fitted["unsupported"]) == (sum(people.values()), 8 - sum(people.values()))
    # and so does the one --sprout-calibrate fits in the run from the same labels
    third = pytester.runpytest("-p", "no:cacheprovider", "--sprout-labels=labels.jsonl", "--sprout-calibrate")
    third.stdout.fnmatch_lines(["*--sprout-calibrate*8 labelled sentences of labels.jsonl*"])
    in_run = json.loads(Path(pytester.path, "sprout.calibration.json").read_text(encoding="utf-8"))["labels"]
    assert in_run["sha256"] == file_sha256(labels_path)
    assert (in_run["n"], in_run["supported"], in_run["unsupported"]) == (8, fitted["supported"], fitted["unsupported"])


def test_a_sample_file_already_there_is_listed_first_on_later_pages(pytester: pytest.Pytester) -> None:
    make(pytester, cases=4)
    pytester.runpytest("-p", "no:cacheprovider", "--sprout-label-sample=3")
    drawn = [json.loads(line) for line in Path(pytester.path, "sprout-label-sample.jsonl").read_text().splitlines()]
    pytester.runpytest("-p", "no:cacheprovider", "--sprout-html=r.html")  # a later run, the sample being labelled
    page = Path(pytester.path, "r.html").read_text(encoding="utf-8")
    first = [htmllib.unescape(re.search(r'data-sentence="([^"]*)"', c).group(1)) for c in cards(page)[:3]]
    assert first == [entry["sentence"] for entry in drawn]
    assert [c for c in cards(page) if "data-sample=" in c] == cards(page)[:3]
