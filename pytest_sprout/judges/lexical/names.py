"""The rules of names: a name of the claim in the place of another name of its evidence."""

from __future__ import annotations

import re
from functools import cache
from typing import Iterable, Sequence

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
    """A claim that is the evidence sentence ``best`` with one of its names replaced by another
    ("Rome" where it says "Milan"): all but one in six of the claim's other content words are in
    it, the claim's name is not, and it has a rival name the claim lacks (``_no_rival``), the one
    in the claim's name's place when one is. A month another sentence holds counts as held (not in
    ``uncovered``); when ``best`` lacks other words of the claim too, a sentence of ``window`` that
    holds the name with one of them, or next to ``best`` (by ``places``), supplies it: it passes."""
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
    if extra and any(named[0] in t.keys and (not t.keys.isdisjoint(extra) or _next_to(t, best, window, places))
                     for t in window if t is not best):
        return None
    ours = names[named[0]]
    found = best.names()
    rivals = [key for key, word in found.items() if key not in claim.keys
              and not _no_rival(word, best.text, ours, claim.text)]
    if not rivals:
        return None
    sides = _sides(claim.content, next(p for p, (k, _) in enumerate(claim.content) if k == named[0]), names)
    there = best.derived(_own_places)
    rival = next((key for key in rivals if any(_same_place(sides, t) for t in there.get(key, ()))), rivals[0])
    return "entity", f"claim has '{ours}' where its evidence sentence has '{found[rival]}'"


def _next_to(t: Sentence, best: Sentence, window: Sequence[Sentence], places: Sequence[tuple[int, int]] | None) -> bool:
    """Whether the evidence sentences ``t`` and ``best`` of ``window`` are neighbours in a passage."""
    if places is None:
        return False
    (pt, it), (pb, ib) = (places[next(k for k, s in enumerate(window) if s is x)] for x in (t, best))
    return pt == pb and abs(it - ib) == 1


def _no_rival(word: str, text: str, ours: str, ours_text: str) -> bool:
    """Whether a capitalised word of the evidence (of ``text``) is no rival for the claim's name
    ``ours`` (of ``ours_text``): a month ("Oct": the date rule's), a weekday but for a weekday, an
    English word in capitals ("PUBLISHED"), or the claim's name by its initials or in full."""
    lowered = word.lower()
    if lowered in MONTHS:
        return True
    if lowered in _WEEKDAYS:
        return ours.lower() not in _WEEKDAYS
    if len(word) > 3 and word.isupper() and word_classes(lowered):
        return True
    return (ours.isupper() and _initials(word, text) == ours) or (word.isupper() and _initials(ours, ours_text) == word)


def _initials(word: str, text: str) -> str | None:
    """The initials of the run of two or more capitalised words of ``text`` that holds ``word``
    ("United States" -> "US"; an opening "The" or "In" is no part of it), else None."""
    for m in _RUN.finditer(text):
        words = m.group().split()
        if words[0].lower() in _OPENING:
            words = words[1:]
        if word in words and len(words) >= 2:
            return "".join(w[0] for w in words)
    return None


def absent_names(claim: Sentence, prepared: Sequence[_Prepared]) -> list[str]:
    """The names of the claim (``Sentence.names``) that no cited passage holds, as the claim writes
    them: not by their key, another form of a month ("Oct"), their initials or in full ("U.S.",
    "European Union" for "EU"), nor (a name of one word) a form derived from it ("Libyan")."""
    names = claim.names()
    if not names:
        return []
    absent = [word for key, word in names.items() if not any(key in p.masks for p in prepared)]
    if absent:
        texts = [t for p in prepared for t in p.sentences.texts]
        absent = [word for word in absent if not _month_written_otherwise(word, prepared)
                  and not _written_by_initials(word, claim.text, texts)
                  and not (_initials(word, claim.text) is None and _written_as_related(word, prepared))]
    return absent


def _written_by_initials(word: str, text: str, passages: Iterable[str]) -> bool:
    """Whether ``passages`` write the name ``word`` (of ``text``) by its initials, with or without
    points, or (an acronym) in full."""
    patterns = []
    if 2 <= len(word) <= 5 and word.isalpha() and word.isupper():
        patterns.append(re.compile(r"(?<![\w-])" + r"[\w'-]*\s+(?:(?:of|the|and|for)\s+)*".join(word) + r"[\w'-]*"))
    short = _initials(word, text)
    if short is not None:
        patterns.append(re.compile(r"(?<![\w.])" + r"\.?".join(short) + r"\.?(?!\w)"))
    return any(pattern.search(p) is not None for pattern in patterns for p in passages)


def _written_as_related(word: str, prepared: Sequence[_Prepared]) -> bool:
    """Whether a cited passage holds a form WordNet derives from the name ``word`` or it from one
    ("Libyan" and "Libya", "Dutch" and "Netherlands"): derivations only, not synonyms, which join
    names that differ ("Chinese" and "Taiwanese")."""
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


def _month_written_otherwise(word: str, prepared: Sequence[_Prepared]) -> bool:
    """Whether ``word`` is a month that a cited passage writes another way ("October" as "Oct")."""
    keys = _month_keys().get(word.lower())
    return keys is not None and any(k in p.masks for p in prepared for k in keys)


def check_name_in_place(claim: Sentence, window: Sequence[Sentence]) -> Failure | None:
    """A name of the claim put in the place of another name of an evidence sentence ("a VGA
    connector" where it says "a USB connector"): no evidence sentence holds the claim's name (its
    whole run, "Terry Richardson") next to a word next to it in the claim (``_PLACE`` content words,
    names aside), and one that holds no part of it holds two of those words and a rival name
    (``_no_rival``) with the same nearest word on one side, a name the claim lacks or has elsewhere.
    A word one window sentence writes with a capital inside is a name in all of them."""
    names = claim.names()
    if not names:
        return None
    content = claim.content
    named: dict[str, str] | None = None
    for p, (key, _) in enumerate(content):
        if key not in names or names[key].lower() in MONTHS:  # a month is part of a date: the date rule's
            continue
        run = _name_run(content, p, names)
        lacking = [s for s in window if run.isdisjoint(s.keys)]
        if not lacking:
            continue
        around = _around(content, p, names)
        if len(around) < 2:
            continue
        open_ = []
        for s in lacking:
            if len(around & s.keys) < 2:
                continue
            if named is None:
                named = {k: w for t in window for k, w in t.names().items()}
            theirs = {k: w for k, w in named.items() if k in s.keys}
            if theirs and len(around & s.keys.difference(theirs)) >= 2:
                open_.append((s, theirs))
        if not open_ or any(key in s.keys and _placed(s, key, around, names) for s in window):
            continue
        sides, ours = _sides(content, p, names), names[key]
        for best, theirs in open_:
            for q, (other, _) in enumerate(best.content):
                if other in theirs and (other not in claim.keys or not _placed(
                        claim, other, _around(best.content, q, theirs), names)) and _same_place(
                        sides, _sides(best.content, q, theirs)) and not _no_rival(theirs[other], best.text, ours, claim.text):
                    return "entity", (f"claim has '{ours}' where an evidence sentence has '{theirs[other]}' "
                                      f"('{_short(best.text)}'); no evidence sentence has '{ours}' next to these words")
    return None


def _same_place(ours: Sides, theirs: Sides) -> bool:
    """Whether two names have the same nearest word (``_sides``) on one side."""
    return (ours[0] is not None and ours[0] == theirs[0]) or (ours[1] is not None and ours[1] == theirs[1])


def _placed(s: Sentence, key: str, around: set[str], names: dict[str, str]) -> bool:
    """Whether ``s`` holds ``key`` next to one of the keys ``around`` (``_around``)."""
    content = s.content
    return any(k == key and _around(content, q, names) & around for q, (k, _) in enumerate(content))


def _around(content: Sequence[tuple[str, int]], p: int, names: dict[str, str]) -> set[str]:
    """The keys of up to ``_PLACE`` content words that are not names either side of content word ``p``."""
    out: set[str] = set()
    for step in (-1, 1):
        q, found = p + step, 0
        while 0 <= q < len(content) and found < _PLACE:
            k = content[q][0]
            if k not in names:
                out.add(k)
                found += 1
            q += step
    return out


def _sides(content: Sequence[tuple[str, int]], p: int, names: dict[str, str]) -> Sides:
    """The keys of the nearest content word that is not a name before and after content word ``p``."""
    left = next((content[q][0] for q in range(p - 1, -1, -1) if content[q][0] not in names), None)
    right = next((content[q][0] for q in range(p + 1, len(content)) if content[q][0] not in names), None)
    return left, right


def _own_places(s: Sentence) -> dict[str, list[Sides]]:
    """Each key of ``s`` -> the nearest words (``_sides``, its own names aside) of each of its places."""
    content, names = s.content, s.names()
    out: dict[str, list[Sides]] = {}
    for q, (k, _) in enumerate(content):
        out.setdefault(k, []).append(_sides(content, q, names))
    return out


def _name_run(content: Sequence[tuple[str, int]], p: int, names: dict[str, str]) -> set[str]:
    """The keys of the names next to content word ``p`` without a word between ("Terry Richardson")."""
    run = {content[p][0]}
    for step in (-1, 1):
        q = p + step
        while 0 <= q < len(content) and content[q][0] in names:
            run.add(content[q][0])
            q += step
    return run


def check_names_exchanged(claim: Sentence, best: Sentence) -> Failure | None:
    """Two names of the claim that trade places in its evidence sentence: each has, on one side,
    the nearest word (not a name) the other has there in the sentence, and its own places there
    lack ("Br'er Rabbit's plans to capture Br'er Fox" against the reverse). A run of names counts
    as one. Names in a list keep their neighbours and pass, as does a passive against an active."""
    theirs = best.names()
    if len(theirs) < 2 or ("by" in claim.words) != ("by" in best.words):  # "A was replaced by B": B replaced A
        return None
    mine = claim.names()
    if sum(k in claim.keys for k in theirs) + sum(k in best.keys and k not in theirs for k in mine) < 2:
        return None  # two names of the claim in the sentence, at least
    names = {**{k: w for k, w in theirs.items() if k in claim.keys}, **mine}
    content = claim.content
    runs: list[tuple[str, ...]] = []
    for p, (key, _) in enumerate(content):
        if key in names and not any(key in r for r in runs):
            run = _name_run(content, p, names)
            runs.append(tuple(k for k in claim.seq if k in run))
    runs = [r for r in runs if all(k in best.keys for k in r)]
    if len(runs) < 2:
        return None
    ours = {r: [_sides(content, q, names) for q, (k, _) in enumerate(content) if k == r[0]] for r in runs}
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
    """A name of the claim that only an evidence sentence apart from the others holds, one holding
    nothing else of the claim ("Image: Getty Images." for "the Getty Images enzyme"). A sentence
    next to another of the evidence (by ``places``) and a name the passages hold in three sentences
    or more (what they are about) pass."""
    if len(window) < 2:
        return None
    names = claim.names()
    if not names:
        return None
    keys = claim.keys
    near = set(places)
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
    """A run of capitalised words of the claim between the same tokens (two either side, as
    written) as another run of an evidence sentence: "In December 2017, News Feed announced that"
    against "..., Facebook announced that". No evidence sentence has the claim's run after or before
    those tokens, the runs share no word, neither is the other's initials, and two of the tokens
    around are content words or numbers."""
    text = claim.text
    for start, j, run, left, right in claim.derived(_slots):
        found = _slot_rival(run, left, right, window)
        if found is None:
            continue
        rival, where = found
        mine = claim.written()[0][start:j]
        ours, theirs = " ".join(mine), rival.split()
        if _by_initials(mine, theirs) or _by_initials(theirs, mine) or _no_rival(rival, where, ours, text):
            continue
        return "entity", (f"claim has '{ours}' where an evidence sentence has '{rival}' between the same words "
                          f"('{_short(where)}')")
    return None


def _slots(claim: Sentence) -> tuple[tuple[int, int, list[str], list[str], list[str]], ...]:
    """The claim's runs of capitalised tokens that ``check_name_slot`` reads, each as (start, end,
    the run, the tokens before it, the tokens after it; lower-cased); no month or weekday."""
    text = claim.text
    if text[1:] == text[1:].lower():
        return ()
    ct, low = claim.written()
    n = len(ct)
    runs: list[list[int]] = []  # the runs of capitalised tokens: [start, end)
    for i, t in enumerate(ct):
        if t[0].isupper():
            if runs and runs[-1][1] == i:
                runs[-1][1] = i + 1
            else:
                runs.append([i, i + 1])
    out = []
    for start, j in runs:
        if start == 0 and low[0] in _OPENING:
            start = 1
        if start >= j or (j < n and j + 1 >= n and low[j] not in ".!?"):  # one token after it: too few
            continue
        run = low[start:j]
        if not (MONTHS.keys().isdisjoint(run) and _WEEKDAYS.isdisjoint(run)):
            continue
        left, right = low[max(0, start - _SLOT_CONTEXT):start], low[j:j + _SLOT_CONTEXT]
        if sum(_LEXICON[w][0] in (CONTENT, NUMERAL) for w in left + right if w.isalnum()) >= 2:
            out.append((start, j, run, left, right))
    return tuple(out)


def _slot_rival(run: list[str], left: list[str], right: list[str], window: Sequence[Sentence]) -> tuple[str, str] | None:
    """Another run of capitalised words between ``left`` and ``right`` in a sentence of ``window``
    (the run and the sentence's text); None when there is none, or a sentence has ``run`` itself
    after ``left`` or before ``right``. ``left`` shorter than ``_SLOT_CONTEXT`` opens the sentence."""
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
    """Whether the words ``short`` are the initials of the words ``full`` ("US", "U.S." for "United States")."""
    return len(full) >= 2 and len(short) == 1 and short[0].replace(".", "").upper() == "".join(w[0] for w in full).upper()


def _after(low: list[str], a: int, left: list[str]) -> bool:
    """Whether ``low`` has ``left`` just before position ``a`` (and nothing before it, when ``left``
    is shorter than ``_SLOT_CONTEXT``)."""
    k = len(left)
    return a >= k and low[a - k:a] == left and (k == _SLOT_CONTEXT or a == k)
