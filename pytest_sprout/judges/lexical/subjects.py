"""Subject and predicate of a plain declarative sentence, read with the lexicon's word classes: the
words before the main verb, and the rest ("Police patrol officers | typically wear a vest").

A cheap heuristic, not a parse (``split_clause``): the verb is the first word after the first that
is an auxiliary or can only be a verb, and a sentence whose subject holds a clause, a comma, a
pronoun or a quantifier is not split. The splice operator (``checks/splice.py``) builds its
mutants with it, and the judge's ``stitched`` rule reads claims and their evidence with it: a
predicate that its evidence sentence says of another subject.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence

from . import lexicon
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
# A subject that opens with one of these is a pronoun, an anaphor or a frame, not a thing of its
# own: "It", "This plant", "In spring", "When the soil dries", "There are".
_NOT_A_SUBJECT = frozenset(
    """it its they them their theirs he him his she her hers we our you your i my this that these
    those such there here one ones what which who whom whose where when while if unless until
    because although though since as after before during in on at for from to by with without
    within into over under unlike like once both either neither however also then so but and or
    yes no not""".split()
)
# A subject that opens with one of these claims that something exists ("Some plants can ..."):
# what the passage says of any one thing would make it true.
_EXISTENTIAL = frozenset("some several few many certain various someone somebody something".split())
# A donor subject that opens with one of these may refer to, or be a part of, what an earlier
# sentence names ("The leaves", "This gel"), or be generic ("A single leaf laid on soil will root"
# says what any leaf does, the jade plant's too): it is never a donor.
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


def word_classes(word: str) -> frozenset[str] | None:
    """The word classes the judge's lexicon lists for a lower-cased word (``lexicon.word_classes``;
    its table loads on the first splice, not at import)."""
    return lexicon.word_classes(word)


def _sure_verb(word: str) -> bool:
    """A word that can only be a verb or an auxiliary ("tolerate", "scored", "is"), never a noun or
    an adjective ("plants", "light", "water" can be either, so none of them marks the verb), or a
    past form that may also be an adjective ("scored", "dried")."""
    kinds = word_classes(word)
    if not kinds:
        return False
    if kinds <= {"VERB", "AUX"}:
        return True
    return kinds <= {"VERB", "ADJ"} and not _base(word)  # a past form that is also an adjective: "scored"


@lru_cache(maxsize=1 << 14)
def _key(word: str) -> str:
    return stem(word)


@lru_cache(maxsize=8192)
def keys(text: str) -> frozenset[str]:
    """The content keys of a text (the judge's stems of its words, function words left out)."""
    return frozenset(_key(w) for w in (m.group().lower() for m in _TOKEN.finditer(text)) if w not in _STOP)


_ADVERBS = frozenset("always never often usually sometimes rarely seldom generally typically normally also still".split())


def _adverb(word: str) -> bool:
    return word in _ADVERBS or (word.endswith("ly") and len(word) > 4 and word_classes(word) == frozenset({"ADV"}))


def _is_aux(word: str) -> bool:
    return word in _AUX or word.endswith(("n't", "n\u2019t"))


def _verb_at(tokens: Sequence[re.Match[str]]) -> int | None:
    """The index of the main verb: the first word after the first that is an auxiliary or can only
    be a verb (never an -ing form), or any word that can be a verb right after an adverb that
    follows the subject ("usually perks up"), and does not follow a determiner or a preposition.
    A verb that an auxiliary follows in the same clause is a reduced relative ("A leaf laid on dry
    soil will root"): the auxiliary is the verb. The predicate starts at an adverb before the verb.
    None when the first word is an imperative's verb ("Remove the leaves") or an adverb, or no verb
    comes within six words: a word that may be a noun or a verb ("plants", "flower") decides only
    after an adverb, so an unclear sentence is not split."""
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
            if _is_aux(nxt) or (nxt.isalpha() and not nxt.endswith("ing") and _could_be_verb(nxt)):
                return i
            continue
        if _is_aux(w):
            return i
        if w.endswith("ing") or not _sure_verb(w):
            continue
        return _past_the_relative(tokens, words, i)
    return None


def _past_the_relative(tokens: Sequence[re.Match[str]], words: Sequence[str], i: int) -> int | None:
    """The verb, given a candidate at ``i``: an auxiliary later in the same clause, or (after a
    past form, which may be a participle: "Loans made to customers (and banks) provide") a later verb,
    means the candidate opened a reduced relative and the later word is the verb. Words in brackets
    are skipped; a comma, a clause word or a conjunction outside them ends the clause."""
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


def _could_be_verb(word: str) -> bool:
    kinds = word_classes(word)
    return kinds is not None and bool(kinds & {"VERB", "AUX"})


def _base(word: str) -> bool:
    return lexicon.lemma(word) == word


_DETERMINERS = frozenset("the a an this that these those its their his her our your my".split())
_PREPOSITIONS = frozenset(
    "of in on at for from to by with into onto about over under near inside outside without".split()
)


def _plain_subject(words: Sequence[str]) -> bool:
    """Whether the words before the verb read as one noun phrase: no pronoun, frame, quantifier or
    subordinator first, no clause word, no -ly adverb ("leaves usually mean": the verb was
    missed), and a determiner only after a preposition ("Plants in the pots", not "Drooping leaves
    usually mean the plant")."""
    if words[0] in _NOT_A_SUBJECT or words[0] in _EXISTENTIAL:
        return False
    for k, w in enumerate(words):
        if w in _CLAUSE_WORDS or (k and _adverb(w)):
            return False
        if k and w in _DETERMINERS and words[k - 1] not in _PREPOSITIONS:
            return False
    return True


@lru_cache(maxsize=8192)
def split_clause(sentence: str) -> tuple[str, str] | None:
    """(subject, predicate) of a plain declarative sentence, or None when the heuristic cannot tell
    safely: the verb is not found (``_verb_at``), or the subject holds a comma, a bracket or more
    than one noun phrase (``_plain_subject``), or the predicate is a single word."""
    tokens = list(_TOKEN.finditer(sentence))
    if len(tokens) < 3:
        return None
    at = _verb_at(tokens)
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
