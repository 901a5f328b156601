"""The HTML report's labelling mode: every judged sentence with its best evidence and two buttons
(supported / not supported). Choices persist in the browser (localStorage, keyed by the report's
dataset hash) and export as a ``--sprout-labels`` file: a download, and the same text in a box to
copy. Offline (no request leaves the page), and keyboard only: Tab reaches every button, and on a
focused sentence ``s`` says supported, ``n`` not supported, ``u`` clears it, the arrow keys (or
``j`` / ``k``) move to the next or previous sentence. Plain Python, no pytest."""

from __future__ import annotations

from typing import Any, Iterable

from ...core.row import Row
from .parts import esc

SENTENCE_METRIC = "grounded_sentence"

STYLE = """
#labelling .lab{border:1px solid #d8dee4;border-radius:6px;padding:8px 10px;margin:6px 0}
#labelling .lab:focus{outline:3px solid #0969da;outline-offset:1px}
#labelling .lab[data-choice="1"]{border-color:#1a7f37;background:#f0fff4}
#labelling .lab[data-choice="0"]{border-color:#cf222e;background:#fff5f5}
#labelling .ev{color:#57606a;font-size:13px;margin:4px 0}
#labelling button[aria-pressed="true"]{font-weight:600;text-decoration:underline}
#labelling textarea{width:100%;min-height:6em;font:12px ui-monospace,monospace}
"""

SCRIPT = """
(function () {
  var section = document.getElementById('labelling');
  if (!section) return;
  var key = 'sprout-labels:' + section.getAttribute('data-dataset');
  var items = Array.prototype.slice.call(section.querySelectorAll('.lab'));
  var saved = {};
  try { saved = JSON.parse(localStorage.getItem(key) || '{}') || {}; } catch (e) { saved = {}; }
  var status = document.getElementById('lab-status');
  function id(item) { return JSON.stringify([item.getAttribute('data-case'), item.getAttribute('data-sentence')]); }
  function show(item) {
    var choice = saved[id(item)];
    var value = choice === true ? '1' : choice === false ? '0' : '';
    if (value) item.setAttribute('data-choice', value); else item.removeAttribute('data-choice');
    item.querySelectorAll('button[data-v]').forEach(function (b) {
      b.setAttribute('aria-pressed', b.getAttribute('data-v') === value ? 'true' : 'false');
    });
  }
  function count() {
    var n = items.filter(function (item) { return typeof saved[id(item)] === 'boolean'; }).length;
    status.textContent = n + ' of ' + items.length + ' sentences labelled (kept in this browser)';
    section.setAttribute('data-labelled', String(n));
  }
  function choose(item, value) {
    if (value === null) delete saved[id(item)]; else saved[id(item)] = value;
    try { localStorage.setItem(key, JSON.stringify(saved)); } catch (e) { status.textContent = 'not saved: ' + e; }
    show(item); count();
  }
  function move(item, step) {
    var next = items[items.indexOf(item) + step];
    if (next) next.focus();
  }
  items.forEach(function (item) {
    show(item);
    item.querySelectorAll('button[data-v]').forEach(function (b) {
      b.addEventListener('click', function () { choose(item, b.getAttribute('data-v') === '1'); });
    });
    item.addEventListener('keydown', function (event) {
      var k = event.key;
      if (k === 's' || k === 'y') choose(item, true);
      else if (k === 'n') choose(item, false);
      else if (k === 'u') choose(item, null);
      else if (k === 'ArrowDown' || k === 'j') move(item, 1);
      else if (k === 'ArrowUp' || k === 'k') move(item, -1);
      else return;
      event.preventDefault();
    });
  });
  document.getElementById('lab-export').addEventListener('click', function () {
    var lines = items.filter(function (item) { return typeof saved[id(item)] === 'boolean'; }).map(function (item) {
      return JSON.stringify({case_id: item.getAttribute('data-case'), sentence: item.getAttribute('data-sentence'),
                             supported: saved[id(item)]});
    });
    var text = lines.length ? lines.join('\\n') + '\\n' : '';
    var box = document.getElementById('lab-text');
    box.value = text; box.textContent = text; box.hidden = false;
    var link = document.createElement('a');
    link.href = URL.createObjectURL(new Blob([text], {type: 'application/x-ndjson'}));
    link.download = 'sprout-labels.jsonl';
    document.body.appendChild(link); link.click(); link.remove();
    section.setAttribute('data-exported', String(lines.length));
  });
  count();
})();
"""


def _sentences(items: Iterable[Row]) -> list[tuple[str, str, str]]:
    """(case id, sentence text, best evidence) of every judged sentence, once per case and text,
    in node id order."""
    seen: set[tuple[str, str]] = set()
    out = []
    for row in sorted(items, key=lambda r: str(r.nodeid)):
        if row.outcome == "error" or SENTENCE_METRIC not in (row.metrics or {}):
            continue
        for s in row.sentences or []:
            text = s.get("text")
            if isinstance(text, str) and (row.case_id, text) not in seen:
                seen.add((row.case_id, text))
                out.append((row.case_id, text, str(s.get("evidence") or "")))
    return out


def labelling_section(report: dict[str, Any], items: list[Row]) -> str:
    """The labelling mode, collapsed under its heading; empty when no sentence was judged."""
    sentences = _sentences(items)
    if not sentences:
        return ""
    dataset = report.get("dataset_hash") or "no-dataset"
    out = [f'<section id="labelling" data-dataset="{esc(dataset)}"><h2>Label sentences</h2>',
           "<details><summary>Label the judged sentences yourself, then export them for --sprout-labels</summary>",
           '<p class="note">Your choices stay in this browser (for this dataset) until you export them. '
           "Keyboard: Tab to a sentence, <kbd>s</kbd> supported, <kbd>n</kbd> not supported, <kbd>u</kbd> clear, "
           "arrow keys (or <kbd>j</kbd>/<kbd>k</kbd>) next and previous.</p>",
           '<p><button type="button" id="lab-export">export labels</button> <span id="lab-status" role="status"></span></p>',
           '<textarea id="lab-text" readonly hidden aria-label="exported labels (JSON Lines)"></textarea>']
    for case_id, text, evidence in sentences:
        out.append(
            f'<div class="lab" tabindex="0" data-case="{esc(case_id)}" data-sentence="{esc(text)}">'
            f"<div><code>{esc(case_id)}</code> {esc(text)}</div>"
            f'<div class="ev">evidence: {esc(evidence) or "(none found)"}</div>'
            '<button type="button" data-v="1" aria-pressed="false">supported</button> '
            '<button type="button" data-v="0" aria-pressed="false">not supported</button></div>'
        )
    out.append("</details></section>")
    return "\n".join(out)
