"""The rules of names: a name of the claim in the place of another name of its evidence."""

from __future__ import annotations

import re
from functools import cache
from typing import Iterable, Sequence

from .index import Sentence
from .rules import _PLACE, Failure, _short
from .lexicon import word_classes
from .passage import _Prepared
from . import lexicon
from .text import _LEXICON, CONTENT, MONTHS, NUMERAL, stem


def check_displaced_name(claim: Sentence, best: Sentence, uncovered: Sequence[str] = (),
                         window: Sequence[Sentence] = (), places: Sequence[tuple[int, int]] | None = None) -> Failure | None:
    """A claim that is one evidence sentence with one of its names replaced by another name of the
    passages: every other content word is in that sentence (all but one in six of them), the
    claim's name is not, and the sentence has a name the claim lacks ("Rome" where the sentence
    says "Milan"; ``_no_rival``: not a month, a weekday (for a name that is none), an English word
    in capitals, nor the claim's name in full or by its initials, "EU" and "European Union"); the
    rival named is the one in the place of the claim's name, when one is. A month of the claim that
    another evidence sentence holds counts as held (``uncovered``: the claim's keys no evidence
    sentence holds). When the sentence lacks words of the claim besides the name, the name may be
    what another sentence adds: it passes when a sentence of ``window`` next to it (by their
    (passage, sentence) ``places``) holds the name, or one holds the name with one of those
    words ("Marie Curie was born in Warsaw" beside "In 1903 she shared the Nobel Prize ... with
    Pierre Curie")."""
    names = claim.names()
    if not names:
        return None
    # a month the rest of the evidence holds is a date's, the date rule's ("from August through October")
    missing = [key for key in dict.fromkeys(claim.seq) if key not in best.keys and not (
        key in names and names[key].lower() in MONTHS and key not in uncovered)]
    if not missing:
        return None
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
    if rivals:  # the one in the claim's name's place, if one is
        sides = _sides(claim.content, next(p for p, (k, _) in enumerate(claim.content) if k == named[0]), names)
        rival = next((key for key in rivals if any(_same_place(sides, there) for there in _places(best, key, found))),
                     rivals[0])
        return "entity", f"claim has '{ours}' where its evidence sentence has '{found[rival]}'"
    return None


def _next_to(t: Sentence, best: Sentence, window: Sequence[Sentence], places: Sequence[tuple[int, int]] | None) -> bool:
    """Whether the evidence sentences ``t`` and ``best`` of ``window`` are neighbours in a passage."""
    if places is None:
        return False
    (pt, it), (pb, ib) = (places[next(k for k, s in enumerate(window) if s is x)] for x in (t, best))
    return pt == pb and abs(it - ib) == 1


_WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())


def _no_rival(word: str, text: str, ours: str, ours_text: str) -> bool:
    """Whether a capitalised word of the evidence (of sentence ``text``) is no name the claim's name
    ``ours`` (of ``ours_text``) could stand in for: a month or its abbreviation ("Oct", a date's:
    the date rule's), a weekday but for a weekday ("The European Union on Thursday said" has no
    rival for "The EU said"), an English word in capitals ("PUBLISHED", a heading), or the claim's
    name by its initials or in full ("EU" and "European Union")."""
    lowered = word.lower()
    if lowered in MONTHS:
        return True
    if lowered in _WEEKDAYS:
        return ours.lower() not in _WEEKDAYS
    return (len(word) > 3 and word.isupper() and bool(word_classes(lowered))) or _same_by_initials(
        ours, ours_text, word, text)


# A run of adjacent capitalised words ("United States"), and the words that open a sentence or a
# phrase with a capital without being part of a name ("The EU", "In New York").
_RUN = re.compile(r"[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)+")
_OPENING = frozenset("the a an in on at by for of and but if this that these those it its as from to with".split())


def initials(word: str, text: str) -> str | None:
    """The initials of the run of capitalised words of ``text`` that holds ``word`` ("United States"
    -> "US"; an opening "The" or "In" is no part of it), None when ``word`` stands in no run of two
    or more."""
    for m in _RUN.finditer(text):
        words = m.group().split()
        if words[0].lower() in _OPENING:
            words = words[1:]
        if word in words and len(words) >= 2:
            return "".join(w[0] for w in words)
    return None


def written_by_initials(word: str, text: str, passages: Iterable[str]) -> bool:
    """Whether ``passages`` write the name ``word`` (of ``text``) by its initials or in full: the
    claim's "United States" as "U.S." or "US", the claim's "EU" as "European Union"."""
    patterns = []
    if 2 <= len(word) <= 5 and word.isalpha() and word.isupper():  # an acronym: its words in full
        patterns.append(re.compile(r"(?<![\w-])" + r"[\w'-]*\s+(?:(?:of|the|and|for)\s+)*".join(word) + r"[\w'-]*"))
    short = initials(word, text)
    if short is not None:  # a name of several words: its initials, with or without points
        patterns.append(re.compile(r"(?<![\w.])" + r"\.?".join(short) + r"\.?(?!\w)"))
    return any(pattern.search(p) is not None for pattern in patterns for p in passages)


def absent_names(claim: Sentence, prepared: Sequence[_Prepared]) -> list[str]:
    """The names of the claim (``Sentence.names``) that no cited passage holds, as the claim writes
    them: not by their key, nor (for a month) by another of its forms ("October" as "Oct"), nor by
    their initials or in full (``written_by_initials``)."""
    names = claim.names()
    if not names:
        return []
    absent = [word for key, word in names.items() if not any(key in p.masks for p in prepared)]
    if absent:
        texts = [t for p in prepared for t in p.sentences.texts]
        absent = [word for word in absent if not _month_written_otherwise(word, prepared)
                  and not written_by_initials(word, claim.text, texts)
                  and not (initials(word, claim.text) is None and _written_as_related(word, prepared))]
    return absent


def _written_as_related(word: str, prepared: Sequence[_Prepared]) -> bool:
    """Whether a cited passage holds a form WordNet derives from the name ``word``: the place of the
    people or the language it names ("Libyan" and "Libya", "Canadians" and "Canada", "Dutch" and
    "Netherlands"), or the other way round. Only derivations, not WordNet's synonyms, which join
    names that are not the same ("Chinese" and "Taiwanese"); and only for a name of one word (the
    caller's test): a word of a longer name ("Saudi Arabia") is no name of its own."""
    lowered = word.lower().replace("\u2019", "'")
    forms = lexicon.derived(lexicon.lemma(lowered))
    if not forms and lowered.endswith("s"):  # a people in the plural, which the lemmatiser keeps ("canadians")
        forms = lexicon.derived(lexicon.lemma(lowered[:-1]))
    keys = {stem(form) for form in forms if form.isalpha()}
    return any(key in p.masks for p in prepared for key in keys)


@cache
def _month_keys() -> dict[str, frozenset[str]]:
    """Each month's name and abbreviations ("october", "oct") -> the keys of all of them (computed on
    first use: classifying a word may load the lemmatiser)."""
    forms: dict[str, set[str]] = {}
    for form, month in MONTHS.items():
        forms.setdefault(month, set()).add(_LEXICON[form][1])
    return {form: frozenset(forms[month]) for form, month in MONTHS.items()}


def _month_written_otherwise(word: str, prepared: Sequence[_Prepared]) -> bool:
    """Whether ``word`` is a month that a cited passage writes another way ("October" as "Oct")."""
    keys = _month_keys().get(word.lower())
    return keys is not None and any(k in p.masks for p in prepared for k in keys)


def _same_by_initials(ours: str, ours_text: str, theirs: str, theirs_text: str) -> bool:
    """Whether one name is the other's initials ("EU" and "European Union")."""
    return (ours.isupper() and initials(theirs, theirs_text) == ours) or (
        theirs.isupper() and initials(ours, ours_text) == theirs)


def check_name_in_place(claim: Sentence, window: Sequence[Sentence]) -> Failure | None:
    """A name of the claim put in the place of another name of an evidence sentence ("the physical
    holding pressure of a VGA connector" where a sentence says "a USB connector", and "VGA" is
    elsewhere in the passages): no evidence sentence holds the claim's name next to a word that is
    next to it in the claim (up to ``_PLACE`` content words away, names aside); and an evidence
    sentence that holds no part of the name (a name of several words, "Terry Richardson", counts
    as one) holds two of those words (not as parts of its own names) and another name with the
    same nearest word on the same side as the claim's name (and a rival: ``_no_rival``), one the
    claim lacks or has only away from the words around it there ("a negative connotation towards
    Disney" against "towards African Americans", the claim saying "African folklore"). A word is a name
    in an evidence sentence when one of them writes it with a capital inside it ("Ebola isn't
    spread", beside "spread Ebola").
    A name the evidence states in its place, or that no other name stands in for, passes: answers
    join a name stated in one sentence to what another says of it ("In the case of Germany, ...")."""
    names = claim.names()
    keys = claim.keys
    if not names or all(keys <= s.keys for s in window):  # each sentence holds every name: none is open
        return None
    places = _name_places(window)
    if not places:
        return None  # no evidence sentence names what the claim does not: no rival
    content = claim.content
    for p, (key, _) in enumerate(content):
        if key not in names or names[key].lower() in MONTHS:  # a month is part of a date: the date rule's
            continue
        run = _name_run(content, p, names)
        open_ = [place for place in places if run.isdisjoint(place[0].keys)]
        if not open_:
            continue
        around = _around(content, p, names)
        if len(around) < 2 or all(len(around & free) < 2 for _, _, free in open_) or any(
                key in s.keys and _placed(s, key, around, names) for s in window):
            continue
        sides, ours = _sides(content, p, names), names[key]
        for best, theirs, free in open_:
            if len(around & free) < 2:
                continue
            for q, (other, _) in enumerate(best.content):
                if other in theirs and (other not in keys or not _placed(claim, other, _around(best.content, q, theirs), names)) and _same_place(
                        sides, _sides(best.content, q, theirs)) and not (
                        _no_rival(theirs[other], best.text, ours, claim.text)):
                    return "entity", (f"claim has '{ours}' where an evidence sentence has '{theirs[other]}' "
                                      f"('{_short(best.text)}'); no evidence sentence has '{ours}' next to these words")
    return None


def _name_places(window: Sequence[Sentence]) -> list[tuple[Sentence, dict[str, str], frozenset[str]]]:
    """Each window sentence with a name: the names of the window it holds (a word one sentence
    writes with a capital inside is a name in all of them) and its other keys."""
    named = {k: w for s in window for k, w in s.names().items()}
    if not named:
        return []
    out = []
    for s in window:
        theirs = {k: w for k, w in named.items() if k in s.keys}
        if theirs:
            out.append((s, theirs, s.keys.difference(theirs)))
    return out


def _same_place(ours: tuple[str | None, str | None], theirs: tuple[str | None, str | None]) -> bool:
    """Whether two names have the same nearest word (``_sides``) on one side."""
    return any(a is not None and a == b for a, b in zip(ours, theirs))


def _placed(s: Sentence, key: str, around: set[str], names: dict[str, str]) -> bool:
    """Whether ``s`` holds ``key`` next to one of the keys ``around`` (up to ``_PLACE`` content words away)."""
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


def _sides(content: Sequence[tuple[str, int]], p: int, names: dict[str, str]) -> tuple[str | None, str | None]:
    """The keys of the nearest content word that is not a name before and after content word ``p``."""
    left = next((content[q][0] for q in range(p - 1, -1, -1) if content[q][0] not in names), None)
    right = next((content[q][0] for q in range(p + 1, len(content)) if content[q][0] not in names), None)
    return left, right


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
    """Two names of the claim that trade the places they have in its evidence sentence: each has,
    on one side, the nearest word (not a name) that the other has on that side in the sentence, a
    word its own place there lacks ("One of Br'er Rabbit's plans to capture Br'er Fox" against
    "One of Br'er Fox's plans to capture Br'er Rabbit"; "Mid-Atlantic notes that the Labov
    accent" against "Labov notes that Mid-Atlantic speech"). A name of several words ("William
    Labov") counts as one, and a name written twice is read at each place. Names in a list
    ("A and B are toxic") keep their neighbours when they change places, and pass, as do names of a
    claim in the passive voice against an active sentence, or the other way round ("by")."""
    theirs = best.names()
    if len(theirs) < 2 or ("by" in claim.words) != ("by" in best.words):  # "A was replaced by B": B replaced A
        return None
    mine = claim.names()
    if sum(k in claim.keys for k in theirs) + sum(k in best.keys and k not in theirs for k in mine) < 2:
        return None  # two names of the claim in the sentence, at least
    names = {**{k: w for k, w in theirs.items() if k in claim.keys}, **mine}
    runs: list[tuple[str, ...]] = []
    for p, (key, _) in enumerate(claim.content):
        if key in names and not any(key in r for r in runs):
            run = _name_run(claim.content, p, names)
            runs.append(tuple(k for k in claim.seq if k in run))
    runs = [r for r in runs if all(k in best.keys for k in r)]
    if len(runs) < 2:
        return None
    ours = {r: _places(claim, r[0], names) for r in runs}
    there = {r: _places(best, r[0], theirs) for r in runs}
    for a in runs:
        for b in runs:
            if a is not b and _takes_place(ours[a], there[b], there[a]) and _takes_place(ours[b], there[a], there[b]):
                first, second = (" ".join(names[k] for k in r) for r in (a, b))
                return "entity-swap", (f"claim swaps '{first}' and '{second}' relative to the evidence sentence "
                                       f"('{_short(best.text)}')")
    return None


def _places(s: Sentence, key: str, names: dict[str, str]) -> list[tuple[str | None, str | None]]:
    """The nearest words (``_sides``) of each place of ``key`` in ``s``."""
    return [_sides(s.content, q, names) for q, (k, _) in enumerate(s.content) if k == key]


def _takes_place(mine: list[tuple[str | None, str | None]], other: list[tuple[str | None, str | None]],
                 own: list[tuple[str | None, str | None]]) -> bool:
    """Whether a name with neighbours ``mine`` (at each of its places) stands where the other name
    stands (``other``), on a side where none of its own places in the evidence (``own``) has that word."""
    return any(m is not None and any(o[s] == m for o in other) and all(w[s] != m for w in own)
               for sides in mine for s, m in enumerate(sides))


def check_name_alone(claim: Sentence, window: Sequence[Sentence], places: Sequence[tuple[int, int]],
                     prepared: Sequence[_Prepared]) -> Failure | None:
    """A name of the claim that only an evidence sentence apart from the others holds, a sentence
    that holds nothing else of the claim ("Image: Getty Images." for "the Getty Images enzyme
    cuts the DNA"): nothing links the name to what the other sentences say. A sentence next to
    another of the evidence (by their (passage, sentence) ``places``) may name what that one calls
    "it", and a name the passages hold in three sentences or more is what they are about: both
    pass."""
    if len(window) < 2:
        return None
    names = claim.names()
    if not names:
        return None
    keys = claim.keys
    for s, (pi, i) in zip(window, places):
        if any(q == pi and abs(j - i) == 1 for q, j in places):
            continue
        held = s.keys & keys
        if not held or not all(key in names for key in held):
            continue
        others = frozenset().union(*(t.keys for t in window if t is not s))
        if held & others or any(sum(p.masks.get(key, 0).bit_count() for p in prepared) >= 3 for key in held):
            continue  # (a name the passages keep coming back to is what they are about)
        shown = " ".join(names[key] for key in claim.seq if key in held)
        return "stitched", (f"claim's name '{shown}' comes from a sentence that says nothing else of the claim "
                            f"('{_short(s.text)}')")
    return None


_SLOT_CONTEXT = 2  # tokens either side of a run of capitalised words that make its slot
_SLOT_MAX = 4  # the most capitalised words a rival in a slot may have


def check_name_slot(claim: Sentence, window: Sequence[Sentence]) -> Failure | None:
    """A run of capitalised words of the claim between the same tokens, as written (stop words and
    marks included, two either side, fewer at the sentence's start or end), as another run of an
    evidence sentence: the claim says "In December 2017, News Feed announced that" where the
    sentence says "In December 2017, Facebook announced that". No evidence sentence may have the
    claim's run after the same tokens or before them; the two runs share no word, neither is the
    other by its initials, a month or a weekday (a date's, the date rule's), and two of the tokens
    around are content words or numbers. A name written as a stop word ("US") is read too."""
    text = claim.text
    for start, j, run, left, right in claim.derived(_slots):
        found = _slot_rival(run, left, right, window)
        if found is None:
            continue
        rival, where = found
        ct = claim.written()[0]
        ours = " ".join(ct[start:j])
        if _by_initials(ct[start:j], rival.split()) or _by_initials(rival.split(), ct[start:j]) or _no_rival(rival, where, ours, text):
            continue
        return "entity", (f"claim has '{ours}' where an evidence sentence has '{rival}' between the same words "
                          f"('{_short(where)}')")
    return None


def _slots(claim: Sentence) -> tuple[tuple[int, int, list[str], list[str], list[str]], ...]:
    """The claim's runs of capitalised tokens that ``check_name_slot`` reads, each as (start, end,
    the run, the tokens before it, the tokens after it; lower-cased), computed once per claim."""
    text = claim.text
    if text[1:] == text[1:].lower():
        return ()
    ct, low = claim.written()
    n = len(ct)
    caps = [i for i, t in enumerate(ct) if t[0].isupper()]
    runs: list[list[int]] = []  # the runs of capitalised tokens: [start, end)
    for i in caps:
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
    """Whether the tokens ``low`` have ``left`` just before position ``a`` (and nothing before it,
    when ``left`` is shorter than ``_SLOT_CONTEXT``: the claim's run is near its start)."""
    k = len(left)
    return a >= k and low[a - k:a] == left and (k == _SLOT_CONTEXT or a == k)
