"""The one pass over a sentence's tokens (``_scan``), and a sentence's content keys without the
rest of its analysis (``sentence_keys``), for indexing a passage."""

from __future__ import annotations

from itertools import count
from typing import Sequence

from .dates import _MONTH_TOKENS, ORDINAL_SUFFIXES, Date, find_dates, has_iso_date, month_name
from .lexicon import word_classes
from .text import (
    CLAUSE_BREAKS, _ALL_IDIOM_NEXT, _ALL_IDIOM_PREV, _BARE_PERIOD_AFTER, _CLAUSE_OPENERS, _COMPARATIVES, _EVERY_NTH, _LEXICON,
    _NEGATION_EXEMPT_NEXT, _NEGATIVE_VERBS, _PERIOD_ADVERBS, _PERIOD_WORDS_BEFORE, _TRUTH_WORDS, _UNIT_TOKENS, _VAGUE, AND,
    BREAK, CONTENT, NEG, NUMERAL, OTHER, PERIOD, QUANT, QUANTIFIERS, STOP, _TOKEN, _Memo, _pieces_of, stem, words_of,
)

# Negations that stand for a noun ("favoured neither"): an "and" after them opens another clause.
_OBJECT_NEGATIONS = frozenset({"neither", "none", "nothing", "nobody"})

# Words before "may" that make it the month ("in May"), not the modal.
_MONTH_BEFORE = frozenset({"in", "of", "since", "until", "till", "by", "from", "early", "late", "mid", "during",
                           "last", "next", "this"})
_SUBJECTS = frozenset({"he", "she", "it", "they", "we", "i", "you", "there", "that"})

# What ``_scan`` finds: content (key, token index), clause starts, cues (kind, word, clause, token index),
# numerals, amount-stating period words, whether there is a negation, a quantifier.
_Found = tuple[list[tuple[str, int]], list[int], list[tuple[int, str, int, int]], list[int], list[int], bool, bool]


def scan_sentence(words: list[str], text: str) -> tuple[Sequence[tuple[int, int, int | None, Date]], _Found]:
    """A sentence's dates (``find_dates``) and ``_scan`` of its tokens, whose dates are no content but
    an ISO date's month ("2011-03-03" says "March" too)."""
    dates = find_dates(words) if not _MONTH_TOKENS.isdisjoint(words) or (
        "-" in words and has_iso_date(text)) else ()
    in_date: dict[int, str] = {}  # token index -> "", or the month's key
    for start, end, iso_month, date in dates:
        for k in range(start, end):
            if words[k] not in _MONTH_TOKENS:
                in_date[k] = ""
        if iso_month is not None:
            in_date[iso_month] = _LEXICON[month_name(date.month)][1]
    return dates, _scan(words, in_date)


def _scan(words: list[str], in_date: dict[int, str]) -> _Found:
    """One pass over a sentence's tokens, the hot loop: what it finds (``_Found``)."""
    numerals: list[int] = []
    periods: list[int] = []
    content: list[tuple[str, int]] = []
    starts: list[int] = []  # where each clause's content begins in ``content``; clause k is starts[k]
    cues: list[tuple[int, str, int, int]] = []  # (kind, word, clause, token index)
    clause, filled = 0, False  # the clause's number; whether it has content words
    cue_seen = cue_open = False  # "and" ends a clause once a cue has been followed by content
    has_negation = has_quantifier = after_number = False  # after a number, units are the number rule's
    special = dated = bool(in_date)  # after a number, or in a sentence with dates: the two checks below
    add = content.append
    carried: list[tuple[str, int, int]] = []  # negations that deny the next clause too: (cue, clause, index)
    for idx, w, (kind, key, odd) in zip(count(), words, map(_LEXICON.__getitem__, words)):
        if special:
            if after_number:
                if w in _UNIT_TOKENS or w in ORDINAL_SUFFIXES:  # "10 cm", "3rd"
                    continue
                after_number = False
                special = dated
            if dated and idx in in_date:
                month_key = in_date[idx]
                if month_key:  # "2011-03-03" says "March" too
                    filled = _opened(starts, content, filled)
                    add((month_key, idx))
                continue
        if not kind:  # CONTENT (0), the commonest kind
            if odd:  # "every third week": the ordinal of a frequency is the number rule's, not content;
                if w in _EVERY_NTH and _ordinal_of_frequency(words, idx) or (  # "it is not true that X": X's
                        cue_seen and not filled and w in _TRUTH_WORDS and words[idx + 1 : idx + 2] == ["that"]):
                    continue
                if w in _NEGATIVE_VERBS and _negative_verb(words, idx, w):
                    cues.append((NEG, w, clause, idx))  # "failed to get": a negation cue, and content
                    has_negation = cue_seen = True
            if not filled:  # a clause ends only once it has content, so clause k starts starts[k]
                starts.append(len(content))
                filled = True
            add((key, idx))
            cue_open = cue_seen  # (cue_open implies cue_seen)
        elif kind in (STOP, OTHER):
            if odd and filled and w in _CLAUSE_OPENERS and _subject_follows(words, idx):
                clause += 1  # "... before he won the race": a clause of its own, with its own polarity
                filled = cue_seen = cue_open = False
            continue
        elif kind == NUMERAL and not (idx and words[idx - 1] in _COUNTING_BACK and _names_none(words, idx)):
            numerals.append(idx)
            after_number = special = True
        elif kind == PERIOD and not (odd and _ordinal_of_frequency(words, idx)):  # maybe an amount: "weekly"
            filled = _opened(starts, content, filled)
            content.append((key, idx))
            if _states_an_amount(words, idx, w):
                periods.append(idx)
        elif kind == BREAK or (kind == AND and (cue_open or _subject_follows(words, idx))):
            if filled:  # a clause without content words hands its cues to the next one
                clause += 1
                filled = cue_seen = cue_open = False
        elif kind == NEG:  # "never move ... without sanitizing" says "always": the two cancel
            cancelled = w == "without" and filled and _cancelled_by_without(cues, clause, carried)
            if w == "without" and filled:  # "without X" negates X, not the clause before it
                clause += 1
                filled = cue_seen = cue_open = False
            negates, quantifies = (False, False) if cancelled else _negation_cues(words, idx, w, clause, filled, cues, carried)
            if negates:  # a negation standing for the object opens the clause to "and" ("favoured neither and")
                has_negation = cue_seen = True
                cue_open = cue_open or (filled and w in _OBJECT_NEGATIONS)
            has_quantifier = has_quantifier or quantifies
        elif kind == QUANT:
            prev = words[idx - 1] if idx else ""
            if w == "may" and _may_is_the_month(words, idx, prev):
                filled = _opened(starts, content, filled)
                content.append((stem(w), idx))  # the month: "May 2021", "3 May"
            elif not _quantifies_nothing(words, idx, w, prev):
                cues.append((QUANT, "a few" if w == "few" and prev == "a" else w, clause, idx))
                has_quantifier = True
                cue_seen = True
    _carry(carried, len(starts), cues)
    return content, starts, cues, numerals, periods, has_negation and any(c[0] == NEG for c in cues), has_quantifier


def _carry(carried: list[tuple[str, int, int]], clauses: int, cues: list[tuple[int, str, int, int]]) -> None:
    """Adds each negation of ``carried``, which denies the next clause too, as a cue of that clause."""
    for w, cl, idx in carried:
        if cl + 1 < clauses:
            cues.append((NEG, w, cl + 1, idx))


def _negation_cues(words: list[str], idx: int, w: str, clause: int, filled: bool,
                   cues: list[tuple[int, str, int, int]], carried: list[tuple[str, int, int]]) -> tuple[bool, bool]:
    """``_scan``'s step for a negation word: adds its cues to ``cues`` (a negation unless it is none
    here, a quantifier for "no" and "none") and to ``carried`` one that denies the next clause too;
    returns (negates, quantifies). "no" before a numeral ("No. 10") is "number": no cue."""
    if w == "no" and words[idx + 1 : idx + 2] and words[idx + 1][:1].isdecimal():
        return False, False
    negates = _negates(words, idx)
    if negates:
        cues.append((NEG, w, clause, idx))
        if _denies_what_follows(words, idx, filled):
            carried.append((w, clause, idx))
    if w in QUANTIFIERS:
        cues.append((QUANT, w, clause, idx))
        return negates, True
    return negates, False


# "The two have remained close": a count that points back to the pair named, as "both" does.
_COUNTING_BACK = frozenset({"the", "these", "those"})


def _names_none(words: list[str], idx: int) -> bool:
    """Whether the "two" at ``idx`` after "the", "these" or "those" names the pair: no noun or
    adjective follows it ("the two went", "between the two."; not "the two main reasons")."""
    if words[idx] != "two":
        return False
    nxt = words[idx + 1] if idx + 1 < len(words) else ""
    if not nxt[:1].isalpha():
        return nxt in ("", ",", ";", ":", ")", ".")  # not "the three-hour", "the two 5 km loops"
    if nxt in _UNIT_TOKENS or nxt in ORDINAL_SUFFIXES:  # "the two kg", as the number's (``content_keys``)
        return False
    kind = _LEXICON[nxt][0]
    if kind != CONTENT:
        return kind in (STOP, OTHER, BREAK, AND)
    classes = word_classes(nxt)  # a word the table does not know may be a noun
    return classes is not None and len(classes) > 0 and classes.isdisjoint(("NOUN", "ADJ"))


def _cancelled_by_without(cues: list[tuple[int, str, int, int]], clause: int, carried: list[tuple[str, int, int]]) -> bool:
    """Whether a "without" cancels the clause's one negation, a "never", which ``cues`` and
    ``carried`` then lose: "never move ... without sanitizing the knife" says "always sanitize"."""
    own = [i for i, cue in enumerate(cues) if cue[2] == clause and cue[0] == NEG]
    if len(own) != 1 or cues[own[0]][1] != "never":
        return False
    _, word, _, at = cues.pop(own[0])
    if (word, clause, at) in carried:
        carried.remove((word, clause, at))
    return True


# Words after which a negation denies the clause that follows ("the reason is not that when ...").
_COMPLEMENTIZERS = frozenset({"that", "because", "why", "how", "whether", "what", "when", "where"})
_SAYING = frozenset({"believed", "thought", "said", "stated", "claimed", "suggested", "known", "assumed"})
_COPULAS = frozenset({"is", "are", "was", "were", "be", "been", "'s"})


def _denies_what_follows(words: list[str], idx: int, filled: bool) -> bool:
    """Whether the negation cue at ``idx`` after a copula denies the next clause too: a
    complementizer follows in a clause with content ("the reason is not that when ..."), or a
    participle of saying and "that" ("it is not believed that ...")."""
    if not idx or words[idx - 1] not in _COPULAS:
        return False
    nxt = words[idx + 1] if idx + 1 < len(words) else ""
    if nxt in _COMPLEMENTIZERS:
        return filled
    return nxt in _SAYING and words[idx + 2 : idx + 3] in (["that"], ["whether"])


def content_keys(words: list[str], text: str) -> list[str] | None:
    """The keys of a sentence's content words in order, with repeats (``Sentence(text).seq``
    without the rest of the analysis); None where the clause's cues decide ("it is not true that")."""
    if not _TRUTH_WORDS.isdisjoint(words) and any(
            w in _TRUTH_WORDS and words[i + 1 : i + 2] == ["that"] for i, w in enumerate(words)):
        return None
    return [key for key, _ in scan_sentence(words, text)[1][0]]


def _token_keys(tok: str) -> tuple | None:
    """A whitespace-separated, lower-cased token -> ``_after_number`` of its tokens after a token that
    does not end in a number and after one that does, with bits for a month (1), an ordinal but
    "other" (2) or "may" (8), whose keys may depend on the words around it; None where they depend
    on them otherwise (a truth word, "may" among others) or ``words_of`` would ("ca n't")."""
    pieces = _pieces_of(tok) if "'" not in tok else (
        None if "n't" in _TOKEN.findall(tok) else words_of(tok))  # alone, as in its sentence
    if pieces is None or ("may" in pieces and pieces != ("may",)) or not _TRUTH_WORDS.isdisjoint(pieces):
        return None
    context = (not _MONTH_TOKENS.isdisjoint(pieces)) + 2 * (not _ORDINALS.isdisjoint(pieces)) + 8 * ("may" in pieces)
    return (*_after_number(pieces, False, context), *_after_number(pieces, True, context))


def _after_number(pieces: Sequence[str], after_number: bool, context: int) -> tuple[tuple[str, ...], bool, int]:
    """``_scan``'s content among some tokens, read as if no ordinal counted a frequency and no date
    were there (``after_number``: the token before them ends in a number): their keys, whether
    they end in a number (or a unit after one), and ``context`` with 4 where a unit after a number
    was skipped."""
    found: list[str] = []
    for piece in pieces:
        kind, key, _ = _LEXICON[piece]
        if after_number:
            if piece in _UNIT_TOKENS or piece in ORDINAL_SUFFIXES:
                context |= 4
                continue
            after_number = False
        if kind in (CONTENT, PERIOD):
            found.append(key)
        elif kind == NUMERAL:
            after_number = True
    return tuple(found), after_number, context


_TOKEN_KEYS = _Memo(_token_keys, 1 << 18)
_ORDINALS = frozenset(_EVERY_NTH) - {"other"}  # "other" is a stopword: no key either way


def sentence_keys(text: str, plain: bool = False) -> tuple[list[str] | None, list[str] | None]:
    """(``words_of(text)``, or None where it was not needed; ``content_keys`` of them): a sentence
    without a citation marker, an ISO date, a truth word... (most) is read token by token from
    ``_TOKEN_KEYS`` without ``words_of``; ``tests/test_lexical_index.py`` checks that both ways agree.
    ``plain``: a text holding this one has no "[", ISO date or curly apostrophe (``passage._Prepared``
    looks once in the whole passage), so the sentence is not searched for them."""
    if plain or ("[" not in text and not ("-" in text and has_iso_date(text))):
        lowered = (text[:-1] if text.endswith(".") else text).lower()
        if not plain and ("\u2019" in lowered or "\u2018" in lowered):
            lowered = lowered.replace("\u2019", "'").replace("\u2018", "'")
        tokens = lowered.split()
        keys: list[str] = []
        add = keys.extend
        after = False
        flags = 0
        for found in map(_TOKEN_KEYS.__getitem__, tokens):
            if found is None:
                break
            if after:
                add(found[3])
                after = found[4]
                flags |= found[5]
            else:
                add(found[0])
                after = found[1]
                flags |= found[2]
        else:
            # An ordinal counts a frequency only after "every" or "each"; a date's numbers take no
            # unit ("March 2011 - years later"): the keys are the same where no unit was skipped.
            if not flags or not (flags & 2 and ("every" in lowered or "each" in lowered) or (
                    flags & 1 and flags & 4) or (flags & 8 and not _modal_may(tokens))):
                return None, keys
    words = words_of(text)
    return words, content_keys(words, text)


def _modal_may(tokens: list[str]) -> bool:
    """Whether each token that is "may" is the modal (no key), told from the tokens around it: after
    a word but one of ``_MONTH_BEFORE``, or first, and not before a number (``_may_is_the_month``)."""
    for t, tok in enumerate(tokens):
        if _TOKEN_KEYS[tok][2] & 8:  # (read before, not None)
            prev = tokens[t - 1] if t else ""
            nxt = tokens[t + 1] if t + 1 < len(tokens) else ""
            first = (_pieces_of(nxt) if "'" not in nxt else words_of(nxt))[:1] if nxt else ()
            if prev and (not prev.isalpha() or prev in _MONTH_BEFORE) or (first and first[0][:1].isdecimal()):
                return False
    return True


def _opened(starts: list[int], content: list[tuple[str, int]], filled: bool) -> bool:
    """A clause gets a content word: if it had none, it starts here. Returns True (filled)."""
    if not filled:
        starts.append(len(content))
    return True


def _subject_follows(words: list[str], idx: int) -> bool:
    """Whether a subject pronoun or "that" follows ``idx`` ("and he", "and that")."""
    return idx + 1 < len(words) and words[idx + 1] in _SUBJECTS


def _free_or_less(words: Sequence[str]) -> bool:
    """Whether the tokens hold a hyphenated "-free" or "-less" ("mold-free", "wire-less")."""
    return any(w == "-" and words[i + 1] in ("free", "less") for i, w in enumerate(words[:-1]))


def _negative_verb(words: list[str], idx: int, w: str) -> bool:
    """Whether ``w`` (of ``_NEGATIVE_VERBS``) at ``idx`` negates what follows: "failed to", "lacks a"
    (not "a lack of"), "prevents ... from"; not an "un-" word after "not" ("not unable": litotes)."""
    takes = _NEGATIVE_VERBS[w]
    if w.startswith("un") and idx and words[idx - 1] in ("not", "never"):
        return False
    nxt = words[idx + 1] if idx + 1 < len(words) else ""
    if takes == ("from",):
        return "from" in words[idx + 1 : idx + 7]
    if takes:
        return nxt in takes
    return bool(nxt) and nxt != "of" and not (idx and words[idx - 1] in ("a", "the", "of"))


def _ordinal_of_frequency(words: list[str], idx: int) -> bool:
    """Whether the ordinal at ``idx`` counts a frequency: "every second week", "each third day"."""
    return bool(idx) and words[idx - 1] in ("every", "each") and idx + 1 < len(words) and (
        _LEXICON[words[idx + 1]][0] == PERIOD)


def _states_an_amount(words: list[str], idx: int, w: str) -> bool:
    """Whether the period word ``w`` at ``idx`` states an amount without a numeral: "weekly",
    "every week", "a few days", "for years", "every other day"."""
    prev = words[idx - 1] if idx else ""
    if prev == "-" and idx >= 2:  # a tokenised "per - year"
        prev = words[idx - 2]
    return w in _PERIOD_ADVERBS or prev in _PERIOD_WORDS_BEFORE or prev in _VAGUE or (
        prev in _BARE_PERIOD_AFTER and w[-1] == "s") or (
        prev in _EVERY_NTH and words[idx - 2 : idx - 1] in (["every"], ["each"]))


def _negates(words: list[str], idx: int) -> bool:
    """Whether the negation word at ``idx`` is a cue: not before an exempt word, an "un-"/"non-" word
    or a bound ("no more than 3"), nor in "if not for X", an elided "or if not,", an "or not" that only
    asks ("whether or not it rains", "if God exists or not."), an "if not" that raises ("much if not
    most", "one of the best, if not the best"), or one that only denies that others do as much,
    stating the rest ("not the only animals to scratch", "no other species is as famous as ...")."""
    w = words[idx]
    nxt = words[idx + 1] if idx + 1 < len(words) else ""
    prev = words[idx - 1] if idx else ""
    return not (nxt in _NEGATION_EXEMPT_NEXT or (nxt.startswith(("un", "non")) and len(nxt) > 5) or (
        nxt in _COMPARATIVES and words[idx + 2 : idx + 3] == ["than"]) or (
        nxt == "for" and prev in ("it", "if")) or (  # "were it not for X", "if not for X": a condition
        prev == "if" and nxt in ("", ",", ";", ".")) or (w == "not" and (  # "or if not, they ...": elided
            prev == "or" and (not nxt[:1].isalnum() or nxt in CLAUSE_BREAKS or (
                idx >= 2 and words[idx - 2] == "whether")) or prev == "if" and idx >= 2 and (
                nxt in QUANTIFIERS or (nxt and _LEXICON[nxt][0] == PERIOD) or (
                    words[idx - 2] == "," and nxt in ("the", "a", "an"))) or (
            nxt == "the" and words[idx + 2 : idx + 3] == ["only"]))) or (
        w == "no" and nxt == "other" and next((later in ("as", "than") for later in words[idx + 2 : idx + 16] if (
            later in ("as", "than") or later in CLAUSE_BREAKS or not later[:1].isalnum())), False)))


def _may_is_the_month(words: list[str], idx: int, prev: str) -> bool:
    """Whether "may" at ``idx`` is the month: "May 2021", "3 May", "in May"."""
    return prev[:1].isdecimal() or prev in _MONTH_BEFORE or (idx + 1 < len(words) and words[idx + 1][:1].isdecimal())


def _quantifies_nothing(words: list[str], idx: int, w: str, prev: str) -> bool:
    """Whether the quantifier ``w`` at ``idx`` is none here: "the most", "at most", "all" in an
    idiom, or "every"/"each" counting times ("every week", "every 3 days", "each other", "every time")."""
    nxt = words[idx + 1] if idx + 1 < len(words) else ""
    return (w == "most" and prev in ("the", "at")) or (w == "all" and (
        prev in _ALL_IDIOM_PREV or nxt in _ALL_IDIOM_NEXT)) or (w in ("every", "each") and (
        nxt in ("other", "time", "times", "now") or nxt in _EVERY_NTH or (
            bool(nxt) and _LEXICON[nxt][0] in (PERIOD, NUMERAL))))
