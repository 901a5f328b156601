"""The HTML report's labelling mode: every judged sentence with the full text of the passages it
was judged against (those it cites, or every retrieved passage for an uncited sentence judged in
``retrieved`` mode), the claim's words marked in them (checks/label_context.py), and two buttons
(supported / not supported). Plain Python, no pytest.

- The label sample (``--sprout-label-sample``: the report's view data carries it as
  ``label_sample``) comes first, each card numbered "3 of 50"; a filter shows only those (on by
  default when there is a sample), and the status says how many of them are labelled.
- The judge's verdicts are hidden while labelling (people anchor on them): a sentence's verdict
  shows once it is labelled, or for every sentence with "show the judge's verdicts".
- Choices persist in the browser (localStorage, keyed by the report's dataset hash) and export as
  a ``--sprout-labels`` file (``{"case_id", "sentence", "supported"}`` per line): a download, and
  the same text in a box to copy.
- Offline (no request leaves the page), and keyboard only: Tab reaches every button, and on a
  focused sentence ``s`` says supported, ``n`` not supported, ``u`` clears it, the arrow keys (or
  ``j`` / ``k``) move to the next or previous sentence shown.

A passage shared by many sentences is stored once, as JSON in a data block (every ``<`` escaped:
nothing in it can end the block); each card names its passages by index with the offsets of its
marks, and the script draws a card's passages when the card comes near the window (or gets the focus).
Once it has run, ``#labelling`` carries ``data-ready``, ``data-labelled``, ``data-sample-labelled``
and, after an export, ``data-exported``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterable

from ...checks.label_context import claim_stems, judged_against, marks, passage_name
from ...core.row import Row
from ...core.util import BIDI
from .parts import data_attr, esc, num

SENTENCE_METRIC = "grounded_sentence"

STYLE = """
#labelling .lab{border:1px solid #d8dee4;border-radius:6px;padding:8px 10px;margin:8px 0}
#labelling .lab:focus{outline:3px solid #0969da;outline-offset:1px}
#labelling .lab[data-choice="1"]{border-color:#1a7f37;background:#f0fff4}
#labelling .lab[data-choice="0"]{border-color:#cf222e;background:#fff5f5}
#labelling .claim{font-size:15px;font-weight:600;margin:2px 0 4px}#labelling .ans{font-size:12px;color:#57606a;margin:0 0 4px}#labelling .pos{color:#57606a;font-size:12px;margin-right:6px}
#labelling .q{color:#57606a;font-size:12px}
#labelling .psg{margin:4px 0 6px}
#labelling .pname{font-size:12px;color:#57606a;margin-top:4px}
#labelling .ptext{white-space:pre-wrap;word-break:break-word;font-size:13px;background:#f6f8fa;border-radius:4px;
  padding:6px 8px;max-height:16em;overflow:auto}
#labelling mark{background:#fff3a3;padding:0 1px;border-radius:2px}
#labelling .none{font-size:13px;color:#9a3412}
#labelling .verdict{display:none;font-size:13px;color:#374151;border-top:1px dashed #d0d7de;margin-top:6px;padding-top:4px}
#labelling.show-verdicts .verdict,#labelling .lab[data-choice] .verdict{display:block}
#labelling .bar{display:flex;gap:14px;align-items:center;flex-wrap:wrap;margin:6px 0;position:sticky;top:0;
  background:#fff;padding:6px 0;z-index:1;border-bottom:1px solid #eaeef2}
#labelling button[aria-pressed="true"]{font-weight:600;text-decoration:underline}
#labelling textarea{width:100%;min-height:6em;font:12px ui-monospace,monospace}
"""

SCRIPT = """
(function () {
  var section = document.getElementById('labelling');
  if (!section) return;
  var key = 'sprout-labels:' + section.getAttribute('data-dataset');
  var items = Array.prototype.slice.call(section.querySelectorAll('.lab'));
  var sample = items.filter(function (item) { return item.hasAttribute('data-sample'); });
  var texts = [];
  try { texts = JSON.parse(document.getElementById('lab-passages').textContent) || []; } catch (e) { texts = []; }
  var saved = {};
  try { saved = JSON.parse(localStorage.getItem(key) || '{}') || {}; } catch (e) { saved = {}; }
  var status = document.getElementById('lab-status');
  var onlySample = document.getElementById('lab-only-sample');
  var showVerdicts = document.getElementById('lab-show-verdicts');
  function shown(text) {  // bidi controls as escapes, as the rest of the report shows them
    return text.replace(/[\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]/g, function (c) {
      return '\\\\u' + ('000' + c.charCodeAt(0).toString(16)).slice(-4); });
  }
  function id(item) { return JSON.stringify([item.getAttribute('data-case'), item.getAttribute('data-sentence')]); }
  function draw(item) {
    if (item.getAttribute('data-drawn')) return;
    item.setAttribute('data-drawn', '1');
    var box = item.querySelector('.psg'), parts = [];
    try { parts = JSON.parse(item.getAttribute('data-p') || '[]'); } catch (e) { parts = []; }
    var answer = item.getAttribute('data-a');
    if (answer !== null && texts[+answer]) {
      var said = document.createElement('div');
      said.className = 'ans'; said.textContent = 'the whole answer: ' + shown(texts[+answer]);
      item.querySelector('.claim').after(said);
    }
    parts.forEach(function (part) {
      var chars = Array.from(String(texts[part[0]] || '')), spans = part[2] || [], at = 0;
      var name = document.createElement('div');
      name.className = 'pname'; name.textContent = part[1];
      var body = document.createElement('div');
      body.className = 'ptext'; body.tabIndex = -1;
      for (var i = 0; i + 1 < spans.length; i += 2) {
        if (spans[i] > at) body.appendChild(document.createTextNode(shown(chars.slice(at, spans[i]).join(''))));
        var mark = document.createElement('mark');
        mark.textContent = shown(chars.slice(spans[i], spans[i + 1]).join(''));
        body.appendChild(mark); at = spans[i + 1];
      }
      if (at < chars.length) body.appendChild(document.createTextNode(shown(chars.slice(at).join(''))));
      box.appendChild(name); box.appendChild(body);
      var first = body.querySelector('mark');  // a long passage opens at the claim's first word in it
      if (first && body.scrollHeight > body.clientHeight) body.scrollTop = Math.max(0, first.offsetTop - body.offsetTop - 24);
    });
  }
  var shownCards = items, pending = false;
  function drawNear() {  // draw the shown cards within a screen of the window (cards are in page order)
    pending = false;
    if (!section.querySelector('details').open) return;
    var margin = window.innerHeight, lo = 0, hi = shownCards.length;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (shownCards[mid].getBoundingClientRect().bottom < -margin) lo = mid + 1; else hi = mid;
    }
    for (var i = lo; i < shownCards.length; i++) {
      if (shownCards[i].getBoundingClientRect().top > window.innerHeight + margin) break;
      draw(shownCards[i]);
    }
  }
  function later() { if (!pending) { pending = true; setTimeout(drawNear, 50); } }
  window.addEventListener('scroll', later, {passive: true});
  window.addEventListener('resize', later);
  section.querySelector('details').addEventListener('toggle', later);
  function show(item) {
    var choice = saved[id(item)];
    var value = choice === true ? '1' : choice === false ? '0' : '';
    if (value) item.setAttribute('data-choice', value); else item.removeAttribute('data-choice');
    item.querySelectorAll('button[data-v]').forEach(function (b) {
      b.setAttribute('aria-pressed', b.getAttribute('data-v') === value ? 'true' : 'false');
    });
  }
  function labelled(list) { return list.filter(function (item) { return typeof saved[id(item)] === 'boolean'; }).length; }
  function count() {
    var n = labelled(items), m = labelled(sample);
    status.textContent = sample.length
      ? m + ' of ' + sample.length + ' in the label sample labelled; ' + n + ' of ' + items.length +
        ' sentences in all (kept in this browser)'
      : n + ' of ' + items.length + ' sentences labelled (kept in this browser)';
    section.setAttribute('data-labelled', String(n));
    section.setAttribute('data-sample-labelled', String(m));
  }
  function choose(item, value) {
    if (value === null) delete saved[id(item)]; else saved[id(item)] = value;
    try { localStorage.setItem(key, JSON.stringify(saved)); } catch (e) { status.textContent = 'not saved: ' + e; }
    show(item); count();
  }
  function filter() {
    var only = onlySample && onlySample.checked;
    items.forEach(function (item) { item.hidden = only && !item.hasAttribute('data-sample'); });
    shownCards = items.filter(function (item) { return !item.hidden; });
    section.setAttribute('data-shown', String(shownCards.length));
    drawNear();
  }
  function move(item, step) {
    for (var i = items.indexOf(item) + step; i >= 0 && i < items.length; i += step) {
      if (!items[i].hidden) { items[i].focus(); return; }
    }
  }
  items.forEach(function (item) {
    show(item);
    item.addEventListener('focus', function () { draw(item); });
    item.querySelectorAll('button[data-v]').forEach(function (b) {
      b.addEventListener('click', function () { choose(item, b.getAttribute('data-v') === '1'); });
    });
    item.addEventListener('keydown', function (event) {
      if (event.target !== item && event.target.tagName !== 'BUTTON') return;
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
  if (onlySample) onlySample.addEventListener('change', filter);
  showVerdicts.addEventListener('change', function () { section.classList.toggle('show-verdicts', showVerdicts.checked); });
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
  filter(); count();
  section.setAttribute('data-ready', '1');
})();
"""


def _norm(text: str) -> str:
    return " ".join(text.split())


def sample_keys(report: dict[str, Any]) -> list[tuple[str, str]]:
    """(case id, sentence with its spaces normalised) of every entry of the label sample, in its order."""
    out = []
    for entry in report.get("label_sample") or []:
        if isinstance(entry, dict) and isinstance(entry.get("case_id"), str) and isinstance(entry.get("sentence"), str):
            out.append((entry["case_id"], _norm(entry["sentence"])))
    return list(dict.fromkeys(out))


@dataclass
class _Card:
    case_id: str
    text: str
    question: str | None
    answer: str | None
    kind: str
    passages: list[tuple[int, str, str]]
    verdicts: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # (tier, sentence row)


def _cards(items: Iterable[Row], wanted: set[tuple[str, str]] | None) -> dict[tuple[str, str], _Card]:
    """One card per (case, sentence) judged for the sentence-level metric, in node id order, with
    every tier's verdict of it; only those in ``wanted`` when given (rows read one at a time)."""
    cards: dict[tuple[str, str], _Card] = {}
    for row in items:
        if row.outcome == "error" or SENTENCE_METRIC not in (row.metrics or {}):
            continue
        for s in row.sentences or []:
            text = s.get("text")
            if not isinstance(text, str) or not text.strip():
                continue
            key = (row.case_id, _norm(text))
            if wanted is not None and key not in wanted:
                continue
            card = cards.get(key)
            if card is None:
                kind, passages = judged_against(row, s)
                said = (row.answer or {}).get("text")
                card = cards[key] = _Card(row.case_id, text, row.question, said if isinstance(said, str) else None,
                                          kind, passages)
            if all(tier != row.tier for tier, _ in card.verdicts):
                card.verdicts.append((str(row.tier), s))
    return cards


def _verdict(tier: str, s: dict[str, Any]) -> str:
    supported = s.get("supported")
    word = ("pass", "supported") if supported is True else ("fail", "not supported") if supported is False else (
        "unsc", "could not decide")
    parts = [f'{esc(tier)}: <b class="{word[0]}">{word[1]}</b>']
    if isinstance(s.get("score"), (int, float)):
        parts.append(f"score {num(s.get('score'), 2)}")
    if s.get("rule"):
        parts.append(f"rule {esc(s.get('rule'))}")
    line = ", ".join(parts)
    if s.get("reason"):
        line += f" &mdash; {esc(s.get('reason'))}"
    if s.get("evidence"):
        line += f'<br>best evidence: <i>{esc(s.get("evidence"))}</i>'
    return f"<div>{line}</div>"


def _card_html(card: _Card, store: dict[str, int], position: str | None) -> str:
    stems = claim_stems(card.text)
    parts = []
    for i, pid, text in card.passages:
        index = store.setdefault(text, len(store))
        flat = [n for span in marks(stems, text) for n in span]
        parts.append([index, passage_name(i, pid), flat])
    if card.kind == "uncited":
        where = ('<p class="none">This sentence cites no passage (no [k] marker) and the run judged it in '
                 "<code>required</code> mode: it is not supported by anything shown to the judge.</p>")
    elif not parts:
        where = '<p class="none">None of the passages it cites was retrieved: there is no text to show.</p>'
    else:
        how = "every passage retrieved (it cites none)" if card.kind == "retrieved" else "the passages it cites"
        where = f'<div class="pname">judged against {how}; the claim\'s words are marked</div>'
    pos = f'<span class="pos">{esc(position)}</span>' if position else ""
    question = f' <span class="q">question: {esc(card.question)}</span>' if card.question else ""
    sample = f' data-sample="{esc(position)}"' if position else ""
    if card.answer and _norm(card.answer) != _norm(card.text):  # the sentence's context (what "it" is)
        sample += f' data-a="{store.setdefault(card.answer, len(store))}"'
    verdicts = "".join(_verdict(tier, s) for tier, s in card.verdicts)
    return (
        f'<div class="lab" tabindex="0" data-case="{data_attr(card.case_id)}" data-sentence="{data_attr(card.text)}"{sample} '
        f'data-kind="{esc(card.kind)}" data-p="{esc(json.dumps(parts, separators=(",", ":"), ensure_ascii=False))}">'
        f"<div>{pos}<code>{esc(card.case_id)}</code>{question}</div>"
        f'<div class="claim">{esc(card.text)}</div>{where}<div class="psg"></div>'
        '<button type="button" data-v="1" aria-pressed="false">supported</button> '
        '<button type="button" data-v="0" aria-pressed="false">not supported</button>'
        f'<div class="verdict">the judge said (shown once you have labelled it): {verdicts}</div></div>'
    )


def _data_block(texts: list[str]) -> str:
    """The passages as a JSON data block; every '<' escaped so that no text can end the block, and bidi
    controls as JSON escapes (the script shows them as escapes: see ``shown``)."""
    data = BIDI.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(texts, ensure_ascii=False).replace("<", "\\u003c"))
    return f'<script type="application/json" id="lab-passages">{data}</script>'


def labelling_section(report: dict[str, Any], items: Iterable[Row], sample_only: bool = False) -> str:
    """The labelling mode; empty when no sentence was judged (or, with ``sample_only``, when there
    is no label sample). ``sample_only``: the cards of the label sample only (the summary page of a
    large run, whose every sentence would make the page grow with the run)."""
    keys = sample_keys(report)
    if sample_only and not keys:
        return ""
    cards = _cards(items, set(keys) if sample_only else None)
    if not cards:
        return ""
    drawn = [key for key in keys if key in cards]
    order = drawn + [key for key in cards if key not in set(drawn)]
    store: dict[str, int] = {}
    body = [_card_html(cards[key], store, f"{i + 1} of {len(drawn)}" if i < len(drawn) else None)
            for i, key in enumerate(order)]
    dataset = report.get("dataset_hash") or "no-dataset"
    missing = len(keys) - len(drawn)
    sample_note = ""
    if drawn:
        sample_note = (f"The label sample (--sprout-label-sample, sprout-label-sample.jsonl) comes first: {len(drawn)} "
                       "sentences drawn at random, half from those the judge rejected; label those, and the corrected "
                       "rate is unbiased. ")
        if missing:
            sample_note += f"{missing} sentences of the sample are not among this run's judged sentences. "
    only = (f'<label><input type="checkbox" id="lab-only-sample" checked> only the label sample ({len(drawn)})</label>'
            if drawn else "")
    out = [f'<section id="labelling" data-dataset="{esc(dataset)}" data-sample="{len(drawn)}"><h2>Label sentences</h2>',
           f"<details{' open' if drawn else ''}><summary>Label the judged sentences yourself, then export them for "
           "--sprout-labels</summary>",
           f'<p class="note">{esc(sample_note)}Read each sentence against the full passages it was judged against '
           "(the claim's words are marked in them) and say whether they support it. The judge's verdict is hidden "
           "until you have labelled a sentence, so that it does not sway you. Your choices stay in this browser "
           "(for this dataset) until you export them; pass the file with --sprout-labels. "
           "Keyboard: Tab to a sentence, <kbd>s</kbd> supported, <kbd>n</kbd> not supported, <kbd>u</kbd> clear, "
           "arrow keys (or <kbd>j</kbd>/<kbd>k</kbd>) next and previous.</p>",
           f'<div class="bar">{only}<label><input type="checkbox" id="lab-show-verdicts"> show the judge\'s verdicts'
           '</label><button type="button" id="lab-export">export labels</button> '
           '<span id="lab-status" role="status"></span></div>',
           '<textarea id="lab-text" readonly hidden aria-label="exported labels (JSON Lines)"></textarea>']
    out += body
    out.append(_data_block(list(store)))
    out.append("</details></section>")
    return "\n".join(out)


def large_page_note(report: dict[str, Any], shown: bool) -> str:
    """What the summary page of a large run says in place of the labelling mode of every sentence."""
    head = ('<section id="labelling-off"><p class="note">The labelling mode of every judged sentence is off on this '
            "summary page: with every sentence and its passages the page would grow with the run. ")
    if shown:
        return head + "Below, it lists the label sample's sentences only.</p></section>"
    return head + ("Draw a sample to label with --sprout-label-sample=N: the page then lists those sentences "
                   "for labelling.</p></section>")
