"""Subject and predicate of a plain declarative sentence ("Police patrol officers | typically wear a
vest"): a heuristic on the lexicon's word classes, not a parse, read by the ``stitched`` rule and the
splice operator (``checks/splice.py``).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence

from . import lexicon
from .lexicon import word_classes
from .text import stem

_TOKEN = re.compile(r"[A-Za-z][A-Za-z'\u2019-]*|\d[\d.,]*")
_AUX = frozenset(
    """is are was were be has have had can could will would should must may might shall does do did
    cannot""".split()
)
# A word after which the next one belongs to a noun phrase, not a verb ("the water", "of light").
_NOUN_NEXT = frozenset(
    """the a an this that these those its their his her our your my some any each every no all most
    many several few of in on at for from to by with into onto about over under than as and or
    very more less such own other another""".split()
)
# A subject opening with one of these is a pronoun, an anaphor or a frame ("It", "In spring", "There are").
_NOT_A_SUBJECT = frozenset(
    """it its they them their theirs he him his she her hers we our you your i my this that these
    those such there here one ones what which who whom whose where when while if unless until
    because although though since as after before during in on at for from to by with without
    within into over under unlike like once both either neither however also then so but and or
    yes no not""".split()
)
# A subject opening with one of these claims that something exists ("Some plants can ...").
_EXISTENTIAL = frozenset("some several few many certain various someone somebody something".split())
# A donor subject opening with one of these may refer to what an earlier sentence names ("The
# leaves", "This gel") or be generic ("A single leaf laid on soil will root"): never a donor.
_DEFINITE = frozenset("the this these those that such a an one".split())
# Words inside a subject that mean it holds a clause or a list of clauses, not one noun phrase.
_CLAUSE_WORDS = frozenset("that which who whom whose where when while if because although since".split())
_STOP = frozenset(
    """a an the of in on at to for from by with and or but as is are was were be been has have had
    do does did can could will would should must may might not no its their his her it they this
    that these those""".split()
)
_MARKERS = re.compile(r"\s*\[\s*\d+(?:\s*[,;-]\s*\d+)*\s*\]")
_MAX_SUBJECT = 6  # words; a longer subject is likely a misread clause


def _sure_verb(word: str) -> bool:
    """A word that can only be a verb or an auxiliary ("tolerate", "is"; not "plants", "water"), or
    a past form that may also be an adjective ("scored", "dried")."""
    kinds = word_classes(word) or frozenset()
    return bool(kinds) and (kinds <= {"VERB", "AUX"} or (kinds <= {"VERB", "ADJ"} and not _base(word)))


@lru_cache(maxsize=8192)
def keys(text: str) -> frozenset[str]:
    """The content keys of a text (the judge's stems of its words, function words left out)."""
    return frozenset(stem(w) for w in (m.group().lower() for m in _TOKEN.finditer(text)) if w not in _STOP)


_ADVERBS = frozenset("always never often usually sometimes rarely seldom generally typically normally also still".split())


def _adverb(word: str) -> bool:
    return word in _ADVERBS or (word.endswith("ly") and len(word) > 4 and word_classes(word) == frozenset({"ADV"}))


def _is_aux(word: str) -> bool:
    return word in _AUX or word.endswith(("n't", "n\u2019t"))


def _verb_at(tokens: Sequence[re.Match[str]]) -> int | None:
    """The index of the main verb (or of an adverb before it, where the predicate starts): after the
    first word, not after a determiner or a preposition, an auxiliary or a word that can only be a
    verb (not an -ing form), or a possible verb after an adverb ("usually perks up"); within six
    words. None when the sentence opens with an imperative ("Remove the leaves") or an adverb."""
    words = [t.group().lower() for t in tokens]
    first = words[0]
    if (_sure_verb(first) and first not in _AUX and _base(first)) or _adverb(first):
        return None
    for i in range(1, min(len(words), _MAX_SUBJECT + 1)):
        w = words[i]
        if tokens[i].group()[:1].isupper() or words[i - 1] in _NOUN_NEXT:
            continue
        if _adverb(w):
            nxt = words[i + 1] if i + 1 < len(words) else ""
            if _is_aux(nxt) or (nxt.isalpha() and not nxt.endswith("ing") and (
                    word_classes(nxt) or frozenset()) & {"VERB", "AUX"}):
                return i
            continue
        if _is_aux(w):
            return i
        if w.endswith("ing") or not _sure_verb(w):
            continue
        return _past_the_relative(tokens, words, i)
    return None


def _past_the_relative(tokens: Sequence[re.Match[str]], words: Sequence[str], i: int) -> int | None:
    """The verb, given a candidate at ``i``: a later auxiliary of its clause, or a later verb after a
    past form, when the candidate opens a reduced relative ("Loans made to customers provide").
    Words in brackets are skipped; a comma, a clause word or a conjunction ends the clause."""
    text = tokens[i].string
    past = not _base(words[i]) and not words[i].endswith("s")  # "made", "scored": maybe a participle
    for j in range(i + 1, len(words)):
        before = text[: tokens[j].start()]
        if before.count("(") > before.count(")"):
            continue
        if _is_aux(words[j]) or (past and _sure_verb(words[j]) and not words[j].endswith("ing")):
            return j if j <= _MAX_SUBJECT + 2 else None
        if words[j] in _CLAUSE_WORDS or words[j] in ("and", "or", "but") or "," in text[tokens[j - 1].end(): tokens[j].start()]:
            break
    return i


def _base(word: str) -> bool:
    return lexicon.lemma(word) == word


_DETERMINERS = frozenset("the a an this that these those its their his her our your my".split())
_PREPOSITIONS = frozenset("of in on at for from to by with into onto about over under near inside outside without".split())


def _plain_subject(words: Sequence[str]) -> bool:
    """Whether the words before the verb read as one noun phrase: no pronoun, frame or quantifier
    first, no clause word or adverb, a determiner only after a preposition ("Plants in the pots")."""
    if words[0] in _NOT_A_SUBJECT or words[0] in _EXISTENTIAL:
        return False
    return not any(w in _CLAUSE_WORDS or (k and (_adverb(w) or (w in _DETERMINERS and words[k - 1] not in _PREPOSITIONS)))
                   for k, w in enumerate(words))


@lru_cache(maxsize=8192)
def split_clause(sentence: str) -> tuple[str, str] | None:
    """(subject, predicate) of a plain declarative sentence; None when the verb is not found, the
    subject holds a comma, a bracket or more than one noun phrase, or the predicate is one word."""
    tokens = list(_TOKEN.finditer(sentence))
    at = _verb_at(tokens) if len(tokens) >= 3 else None
    if at is None:
        return None
    subject, predicate = sentence[: tokens[at].start()].strip(), sentence[tokens[at].start():].strip()
    if re.search(r"[,;:()\[\]\"\u201c\u201d]", subject) or not subject[:1].isalpha():
        return None
    words = [t.group().lower() for t in tokens[:at]]
    if not _plain_subject(words) or not keys(subject):
        return None
    if words[0] in _DEFINITE and len(keys(subject)) < 2:
        return None  # "The word", "The system": one noun after "the" may name what another sentence does
    predicate = _MARKERS.sub("", predicate).strip()
    if len(_TOKEN.findall(predicate)) < 2:
        return None
    return subject, predicate
