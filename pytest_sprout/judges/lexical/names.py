"""The rules of names: a name of the claim in the place of another name of its evidence."""

from __future__ import annotations

import re
from functools import cache
from itertools import filterfalse, islice, takewhile
from typing import Sequence

from . import lexicon
from .index import Sentence
from .lexicon import word_classes
from .passage import _Prepared
from .rules import _PLACE, Failure, _short
from .text import _LEXICON, CONTENT, MONTHS, NUMERAL, stem

Sides = tuple[str | None, str | None]

_WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
# A run of adjacent capitalised words ("United States"), and the words that open a sentence or a
# phrase with a capital without being part of a name ("The EU", "In New York").
_RUN = re.compile(r"[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)+")
_OPENING = frozenset("the a an in on at by for of and but if this that these those it its as from to with".split())
_SLOT_CONTEXT = 2  # tokens either side of a run of capitalised words that make its slot
_SLOT_MAX = 4  # the most capitalised words a rival in a slot may have


def check_displaced_name(claim: Sentence, best: Sentence, uncovered: Sequence[str] = (),
                         window: Sequence[Sentence] = (), places: Sequence[tuple[int, int]] | None = None) -> Failure | None:
    """The evidence sentence ``best`` with one of its names replaced ("Rome" where it says "Milan"):
    it holds all but one in six of the claim's other words and a rival name (``_no_rival``), not
    the claim's. It passes when a window sentence holding the name is next to ``best`` (by
    ``places``) or holds another word ``best`` lacks; a month another sentence holds is held."""
    names = claim.names()
    if not names:
        return None
    # a month the rest of the evidence holds is a date's, the date rule's ("from August through October")
    missing = [key for key in dict.fromkeys(claim.seq) if key not in best.keys and not (
        key in names and names[key].lower() in MONTHS and key not in uncovered)]
    named = [key for key in missing if key in names]
    if not named or 6 * (len(missing) - len(named)) > len(claim.keys) - len(named):
        return None
    extra = [key for key in missing if key not in names]
    pb, ib = places[window.index(best)] if places is not None else (-1, 0)  # (list.index: by identity here)
    if extra and any(named[0] in t.keys and (not t.keys.isdisjoint(extra) or (places is not None and places[
            window.index(t)] in ((pb, ib - 1), (pb, ib + 1)))) for t in window if t is not best):
        return None
    ours = names[named[0]]
    found = best.names()
    rivals = [key for key, word in found.items() if key not in claim.keys
              and not _no_rival(word, best.text, ours, claim.text)]
    if not rivals:
        return None
    sides = _sides(claim.seq, claim.seq.index(named[0]), names)
    there = best.derived(_own_places)
    rival = next((key for key in rivals if any(_same_place(sides, t) for t in there.get(key, ()))), rivals[0])
    return "entity", f"claim has '{ours}' where its evidence sentence has '{found[rival]}'"


def _no_rival(word: str, text: str, ours: str, ours_text: str) -> bool:
    """Whether a capitalised word of the evidence (of ``text``) is no rival for the claim's name
    ``ours`` (of ``ours_text``): a month, a weekday (but for a weekday), an English word in capitals
    ("PUBLISHED"), or the claim's name by its initials or in full ("EU", "European Union")."""
    lowered = word.lower()
    if lowered in MONTHS:
        return True
    if lowered in _WEEKDAYS:
        return ours.lower() not in _WEEKDAYS
    if len(word) > 3 and word.isupper() and word_classes(lowered):
        return True
    return (ours.isupper() and _initials(word, text) == ours) or (word.isupper() and _initials(ours, ours_text) == word)


def _initials(word: str, text: str) -> str | None:
    """The initials of the run of two or more capitalised words of ``text`` holding ``word`` ("US")."""
    for m in _RUN.finditer(text):
        words = m.group().split()
        if words[0].lower() in _OPENING:
            words = words[1:]
        if word in words and len(words) >= 2:
            return "".join(w[0] for w in words)
    return None


def absent_names(claim: Sentence, lacking: Sequence[str], prepared: Sequence[_Prepared]) -> list[str]:
    """The names of the claim that no cited passage holds: by key (its keys ``lacking``) or otherwise
    (``_written_otherwise``)."""
    names = claim.names()
    absent = [names[key] for key in lacking if key in names]
    if not absent:
        return absent
    texts = "\0".join([t for p in prepared for t in p.sentences.texts])  # no pattern below matches across "\0"
    return [word for word in absent if not _written_otherwise(word, claim.text, prepared, texts)]


def _written_otherwise(word: str, text: str, prepared: Sequence[_Prepared], texts: str) -> bool:
    """Whether the passages write the name ``word`` (of ``text``) another way: a month's ("Oct"), by
    its initials ("U.S."), an acronym in full ("European Union"), or (a name of one word) as a form
    WordNet derives from it or it from one ("Libyan", "Libya"; not synonyms: "Chinese", "Taiwanese")."""
    if any(k in p.masks for p in prepared for k in _month_keys().get(word.lower(), ())):
        return True
    patterns = []
    if 2 <= len(word) <= 5 and word.isalpha() and word.isupper():
        patterns.append(re.compile(word[0] + r"(?<![\w-]" + word[0] + ")" + "".join(  # (its first letter first: found faster)
            r"[\w'-]*\s+(?:(?:of|the|and|for)\s+)*" + c for c in word[1:]) + r"[\w'-]*"))
    short = _initials(word, text)
    if short is not None:
        patterns.append(re.compile(short[0] + r"(?<![\w.]" + short[0] + ")" + "".join(r"\.?" + c for c in short[1:]) + r"\.?(?!\w)"))
    if any(pattern.search(texts) is not None for pattern in patterns):
        return True
    if short is not None:  # a word of a longer name ("Saudi Arabia") is no name of its own
        return False
    lowered = word.lower().replace("\u2019", "'")
    forms = lexicon.derived(lexicon.lemma(lowered))
    if not forms and lowered.endswith("s"):  # a people in the plural, which the lemmatiser keeps ("canadians")
        forms = lexicon.derived(lexicon.lemma(lowered[:-1]))
    keys = {stem(form) for form in forms if form.isalpha()}
    return any(key in p.masks for p in prepared for key in keys)


@cache
def _month_keys() -> dict[str, frozenset[str]]:
    """Each month's name and abbreviations ("october", "oct") -> the keys of all of them."""
    forms: dict[str, set[str]] = {}
    for form, month in MONTHS.items():
        forms.setdefault(month, set()).add(_LEXICON[form][1])
    return {form: frozenset(forms[month]) for form, month in MONTHS.items()}


def check_name_in_place(claim: Sentence, window: Sequence[Sentence]) -> Failure | None:
    """A name of the claim in the place of another name of an evidence sentence ("a VGA connector"
    where it says "a USB connector"): no sentence holds it next to its neighbours (``_around``), and
    one lacking its run holds two of them and a rival (``_no_rival``) with the same nearest word."""
    names = claim.names()
    if not names:
        return None
    seq = claim.seq
    named: dict[str, str] = {}
    for p, key in enumerate(seq):
        if key not in names or names[key].lower() in MONTHS:  # a month is part of a date: the date rule's
            continue
        run = _name_run(seq, p, names)
        lacking = [s for s in window if run.isdisjoint(s.keys)]  # (a name is one window sentence's in all)
        if not lacking:
            continue
        around, open_ = _around(seq, p, names), []
        for s in lacking:
            if len(around & s.keys) >= 2:
                named = named or {k: w for t in window for k, w in t.names().items()}
                theirs = {k: w for k, w in named.items() if k in s.keys}
                if theirs and len(around & s.keys.difference(theirs)) >= 2:
                    open_.append((s, theirs))
        if not open_ or any(key in s.keys and _placed(s, key, around, names) for s in window):
            continue
        sides, ours = _sides(seq, p, names), names[key]
        for best, theirs in open_:
            for q, other in enumerate(best.seq):
                if other in theirs and (other not in claim.keys or not _placed(
                        claim, other, _around(best.seq, q, theirs), names)) and _same_place(
                        sides, _sides(best.seq, q, theirs)) and not _no_rival(theirs[other], best.text, ours, claim.text):
                    return "entity", (f"claim has '{ours}' where an evidence sentence has '{theirs[other]}' "
                                      f"('{_short(best.text)}'); no evidence sentence has '{ours}' next to these words")
    return None


def _same_place(ours: Sides, theirs: Sides) -> bool:
    """Whether two names have the same nearest word (``_sides``) on one side."""
    return (ours[0] is not None and ours[0] == theirs[0]) or (ours[1] is not None and ours[1] == theirs[1])


def _placed(s: Sentence, key: str, around: set[str], names: dict[str, str]) -> bool:
    """Whether ``s`` holds ``key`` next to one of the keys ``around`` (``_around``)."""
    seq = s.seq
    return any(k == key and _around(seq, q, names) & around for q, k in enumerate(seq))


def _around(seq: Sequence[str], p: int, names: dict[str, str]) -> set[str]:
    """The keys of up to ``_PLACE`` content words, names aside, either side of content word ``p``."""
    plain = names.__contains__
    return {*islice(filterfalse(plain, reversed(seq[:p])), _PLACE), *islice(filterfalse(plain, seq[p + 1:]), _PLACE)}


def _sides(seq: Sequence[str], p: int, names: dict[str, str]) -> Sides:
    """The keys of the nearest content word, names aside, before and after content word ``p``."""
    plain = names.__contains__
    return next(filterfalse(plain, reversed(seq[:p])), None), next(filterfalse(plain, seq[p + 1:]), None)


def _own_places(s: Sentence) -> dict[str, list[Sides]]:
    """Each key of ``s`` -> the nearest words (``_sides``, its names aside) of each of its places."""
    seq, names = s.seq, s.names()
    out: dict[str, list[Sides]] = {}
    for q, k in enumerate(seq):
        out.setdefault(k, []).append(_sides(seq, q, names))
    return out


def _name_run(seq: Sequence[str], p: int, names: dict[str, str]) -> set[str]:
    """The keys of the names next to content word ``p`` without a word between ("Terry Richardson")."""
    held = names.__contains__
    return {seq[p], *takewhile(held, reversed(seq[:p])), *takewhile(held, seq[p + 1:])}


def check_names_exchanged(claim: Sentence, best: Sentence) -> Failure | None:
    """Two names (or runs of names) of the claim that trade places in its evidence sentence, each
    with the other's nearest word on one side ("Rabbit's plans to capture Fox" against the reverse);
    a passive against an active passes."""
    theirs = best.names()
    if len(theirs) < 2 or ("by" in claim.words) != ("by" in best.words):  # "A was replaced by B": B replaced A
        return None
    mine = claim.names()
    if sum(k in claim.keys for k in theirs) + sum(k in best.keys and k not in theirs for k in mine) < 2:
        return None  # two names of the claim in the sentence, at least
    names = {**{k: w for k, w in theirs.items() if k in claim.keys}, **mine}
    seq = claim.seq
    runs: list[tuple[str, ...]] = []
    for p, key in enumerate(seq):
        if key in names and not any(key in r for r in runs):
            run = _name_run(seq, p, names)
            runs.append(tuple(k for k in claim.seq if k in run))
    runs = [r for r in runs if all(k in best.keys for k in r)]
    if len(runs) < 2:
        return None
    ours = {r: [_sides(seq, q, names) for q, k in enumerate(seq) if k == r[0]] for r in runs}
    there = best.derived(_own_places)
    for a in runs:
        for b in runs:
            if a is not b and _takes_place(ours[a], there[b[0]], there[a[0]]) and _takes_place(
                    ours[b], there[a[0]], there[b[0]]):
                first, second = (" ".join(names[k] for k in r) for r in (a, b))
                return "entity-swap", (f"claim swaps '{first}' and '{second}' relative to the evidence sentence "
                                       f"('{_short(best.text)}')")
    return None


def _takes_place(mine: list[Sides], other: list[Sides], own: list[Sides]) -> bool:
    """Whether a name with neighbours ``mine`` stands where the other name stands (``other``), on a
    side where none of its own places in the evidence (``own``) has that word."""
    return any(m is not None and any(o[s] == m for o in other) and all(w[s] != m for w in own)
               for sides in mine for s, m in enumerate(sides))


def check_name_alone(claim: Sentence, window: Sequence[Sentence], places: Sequence[tuple[int, int]],
                     prepared: Sequence[_Prepared]) -> Failure | None:
    """A name of the claim that only an evidence sentence holding nothing else of it holds ("Image:
    Getty Images."), one not next to another (by ``places``); a name of three sentences passes."""
    names = claim.names()
    if len(window) < 2 or not names:
        return None
    keys, near = claim.keys, set(places)
    for s, (pi, i) in zip(window, places):
        if (pi, i - 1) in near or (pi, i + 1) in near:
            continue
        held = s.keys & keys
        if not held or not all(key in names for key in held):
            continue
        others = frozenset().union(*(t.keys for t in window if t is not s))
        if held & others or any(sum(p.masks.get(key, 0).bit_count() for p in prepared) >= 3 for key in held):
            continue
        shown = " ".join(names[key] for key in claim.seq if key in held)
        return "stitched", (f"claim's name '{shown}' comes from a sentence that says nothing else of the claim "
                            f"('{_short(s.text)}')")
    return None


def check_name_slot(claim: Sentence, window: Sequence[Sentence]) -> Failure | None:
    """A run of capitalised words of the claim between the same tokens (two either side) as another
    run of an evidence sentence ("In 2017, News Feed announced" against "In 2017, Facebook announced"),
    which none has with the claim's run; the runs share no word and are not each other's initials."""
    for mine, run, left, right in claim.derived(_slots):
        found = _slot_rival(run, left, right, window)
        if found is None:
            continue
        rival, where = found
        ours, theirs = " ".join(mine), rival.split()
        if _by_initials(mine, theirs) or _by_initials(theirs, mine) or _no_rival(rival, where, ours, claim.text):
            continue
        return "entity", (f"claim has '{ours}' where an evidence sentence has '{rival}' between the same words "
                          f"('{_short(where)}')")
    return None


def _slots(claim: Sentence) -> tuple[tuple[list[str], list[str], list[str], list[str]], ...]:
    """The runs ``check_name_slot`` reads: (the run as written, lower-cased, the tokens before, after)."""
    text = claim.text
    if text[1:] == text[1:].lower():
        return ()
    ct, low = claim.written()
    n = len(ct)
    out = []
    start = j = -1  # the run of capitalised tokens being read: [start, j)
    for i in [i for i, t in enumerate(ct) if t[0].isupper()] + [n + 1]:  # (the last closes the last run)
        if i == j:
            j += 1
            continue
        if start == 0 and low[0] in _OPENING:
            start = 1
        if 0 <= start < j and (j >= n or j + 1 < n or low[j] in ".!?"):  # not one token after it: too few
            left, right = low[max(0, start - _SLOT_CONTEXT):start], low[j:j + _SLOT_CONTEXT]
            found = 0
            for w in left + right:
                if w.isalnum() and _LEXICON[w][0] in (CONTENT, NUMERAL):
                    found += 1
            run = low[start:j]
            if found >= 2 and MONTHS.keys().isdisjoint(run) and _WEEKDAYS.isdisjoint(run):
                out.append((ct[start:j], run, left, right))
        start, j = i, i + 1
    return tuple(out)


def _slot_rival(run: list[str], left: list[str], right: list[str], window: Sequence[Sentence]) -> tuple[str, str] | None:
    """Another run between ``left`` and ``right`` in a sentence of ``window`` (the run, the text); None
    when there is none or a sentence has ``run`` itself there. A short ``left`` opens the sentence."""
    k, m, r = len(left), len(run), len(right)
    rival = None
    for s in window:
        (toks, low), where = s.written(), s.where()
        for a in where.get(run[0], ()):
            if low[a:a + m] == run and ((k and _after(low, a, left)) or (r and low[a + m:a + m + r] == right)):
                return None
        if rival is not None:
            continue
        if r:  # each place of the right-hand tokens, back over the capitalised words before it
            for b in where.get(right[0], ()):
                if low[b:b + r] != right:
                    continue
                a = b - 1
                while a >= 0 and b - a <= _SLOT_MAX and toks[a][0].isupper():
                    if _after(low, a, left) and set(low[a:b]).isdisjoint(run):
                        rival = (" ".join(toks[a:b]), s.text)
                        break
                    a -= 1
        elif k:  # the claim's run ends it: the sentence's must end the sentence
            for p in where.get(left[-1], ()):
                a = b = p + 1
                while b < len(low) and b - a < _SLOT_MAX and toks[b][0].isupper():
                    b += 1
                if b > a and (b == len(low) or low[b] in ".!?") and _after(low, a, left) and set(low[a:b]).isdisjoint(run):
                    rival = (" ".join(toks[a:b]), s.text)
                    break
    return rival


def _by_initials(full: list[str], short: list[str]) -> bool:
    """Whether the words ``short`` are the initials of the words ``full`` ("U.S.", "United States")."""
    return len(full) >= 2 and len(short) == 1 and short[0].replace(".", "").upper() == "".join(w[0] for w in full).upper()


def _after(low: list[str], a: int, left: list[str]) -> bool:
    """Whether ``low`` has ``left`` just before ``a`` (and nothing before it, if ``left`` is short)."""
    k = len(left)
    return a >= k and low[a - k:a] == left and (k == _SLOT_CONTEXT or a == k)
