"""The splice operator: the subject of the sentence joined to the predicate of another sentence of
the passage it cites, a fact stitched across a document ("Ramsey scored in QPR's 3-3 draw" from
"Ramsey puts the winger through his paces" and "Austin celebrates after scoring during QPR's 3-3
draw"). False by construction: the operator makes the splice only when no sentence of the cited
passages (nor a sentence opening with a pronoun or "the", read with the one before it) pairs the
subject with the predicate, and only from a donor sentence whose subject is another thing (no
shared word, no pronoun, no quantifier: "All plants need light" would make "Ferns need light"
true).

The split into subject and predicate (``judges/lexical/subjects.py``, which the judge's ``stitched``
rule reads too) is a cheap heuristic, not a parse: the subject is the words
before the main verb, found with the lexical judge's own lexicon (a word lemminflect lists as a
verb or an auxiliary), and a sentence whose subject holds a clause, a comma or a pronoun is not
split. Like every operator it is a pure function of the sentence and the passages; it gives no
mutant when no safe splice exists.
"""

from __future__ import annotations

import zlib
from functools import lru_cache
from typing import Sequence

from ..core.model import split_sentences
from ..judges.lexical.subjects import (
    _AUX, _DEFINITE, _PREPOSITIONS, _TOKEN, _adverb, keys, split_clause, word_classes,
)

_SINGULAR_VERBS = frozenset("is was has does".split())
_PLURAL_VERBS = frozenset("are were have do".split())
# A donor subject that opens with a quantifier or generic word may cover the recipient's subject
# ("All plants need light", "Most houseplants ..."): its predicate could hold of it too.
_GENERIC = frozenset(
    """all every each most many some several few any no none much everyone everybody everything anyone
    anybody anything nobody nothing people someone somebody something""".split()
)
# A sentence that opens with one of these may refer to the sentence before it ("They grow fast",
# "The plant ..."): it is read together with it when the operator checks the passage.
_ANAPHORS = frozenset("it its they their them this these those he she his her such both the".split())


def _number(subject: str) -> str | None:
    """'plural', 'singular' or None (unknown) for a subject, from its head: the last word before a
    preposition ("Signs of too much sun": "Signs")."""
    words = subject.split()
    if any(w.lower() == "and" for w in words):
        return "plural"
    head = next((words[k - 1] for k in range(1, len(words)) if words[k].lower() in _PREPOSITIONS), words[-1])
    low = head.lower()
    if low.endswith("s") and not low.endswith(("ss", "us", "is", "os")) and not head.isupper():
        return "plural"
    if not low.endswith("s"):
        return "singular"
    return None


def _verb_number(predicate: str) -> str | None:
    """What the predicate's verb agrees with: 'singular' ("is", "grows"), 'plural' ("are",
    "grow") or None (a past tense or modal agrees with either)."""
    words = [w.lower() for w in predicate.split()]
    verb = next((w for w in words if not _adverb(w)), words[0])
    if verb in _SINGULAR_VERBS:
        return "singular"
    if verb in _PLURAL_VERBS:
        return "plural"
    if verb in _AUX or verb.endswith("ed"):
        return None
    from ..judges.lexical import lexicon

    base = lexicon.lemma(verb)
    if base == verb:
        return "plural"
    if verb in (base + "s", base + "es", base[:-1] + "ies"):
        return "singular"
    return None


_TO_PLURAL = {"is": "are", "was": "were", "has": "have", "does": "do"}
_TO_SINGULAR = {v: k for k, v in _TO_PLURAL.items()}
_SINGULAR_PRONOUNS = frozenset("it its itself he him his himself she her hers herself".split())
_PLURAL_PRONOUNS = frozenset("they them their theirs themselves".split())


def _third_person(verb: str) -> str:
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if verb.endswith("y") and len(verb) > 2 and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def agree(subject: str, predicate: str, own: str | None = None) -> str | None:
    """The predicate with its verb made to agree with the subject ("Peace lilies" + "tolerates low
    light" -> "tolerate low light"), as a writer who stitched the two would write it; None when
    its pronouns refer to a subject of the other number ("its leaves" after "Peace lilies"), or
    when the verb must change in a predicate with a conjunction, whose second verb may need it too.
    ``own``: the subject's own predicate in its sentence, whose verb tells the number where the
    subject's last word does not ("Pothos is")."""
    number, has = _number(subject) or (_verb_number(own) if own else None), _verb_number(predicate)
    words = [w.lower().strip(".,;:") for w in predicate.split()]
    if number == "plural" and _SINGULAR_PRONOUNS & set(words) or number == "singular" and _PLURAL_PRONOUNS & set(words):
        return None
    if number is None or has is None or number == has:
        return predicate
    if {"and", "but", "or"} & set(words):
        return None  # a second verb may need the change too ("is common and are caused")
    m = next(m for m in _TOKEN.finditer(predicate) if not _adverb(m.group().lower()))
    verb = m.group().lower()
    if number == "plural":
        from ..judges.lexical import lexicon

        new = _TO_PLURAL.get(verb) or lexicon.lemma(verb)
    else:
        new = _TO_SINGULAR.get(verb) or _third_person(verb)
    return predicate[: m.start()] + new + predicate[m.end():]


def _distinct(subject: str, other: str) -> bool:
    """Whether a donor's subject names another thing than the sentence's: no shared key, no word
    contained in another ("houseplants" covers "plants", "plantlet" is a "plant"), and neither a
    definite description ("The clear gel inside the leaves" may be a part of what the sentence
    names: aloe vera's) nor an indefinite or quantified one ("A leaf", "All plants": generic)."""
    if other.split()[0].lower() in _DEFINITE or other.split()[0].lower() in _GENERIC:
        return False
    mine, theirs = keys(subject), keys(other)
    if not theirs or mine & theirs:
        return False
    return not any(len(a) >= 4 and len(b) >= 4 and (a in b or b in a) for a in mine for b in theirs)


@lru_cache(maxsize=1024)
def _windows(passage: str) -> tuple[str, ...]:
    """Every sentence of a passage, and each sentence that opens with an anaphor together with the
    sentence before it: what the passage says of a thing, by name or by reference."""
    sentences = split_sentences(passage)
    out = list(sentences)
    for before, s in zip(sentences, sentences[1:]):
        first = _TOKEN.match(s.lstrip("\"'\u201c("))
        if first and first.group().lower() in _ANAPHORS:
            out.append(f"{before} {s}")
    return tuple(out)


def stated(subject: str, predicate: str, passages: Sequence[str]) -> bool:
    """Whether a passage pairs the subject with the predicate: a sentence (or anaphoric pair) that
    holds every key of the subject and at least half of the predicate's own keys."""
    mine = keys(subject)
    theirs = keys(predicate) - mine
    for passage in passages:
        for window in _windows(passage):
            held = keys(window)
            if mine <= held and 2 * len(theirs & held) >= len(theirs):
                return True
    return False


def splice(text: str, passages: Sequence[str] = ()) -> tuple[str, str] | None:
    """The sentence's subject with the predicate of another sentence of the first cited passage that
    names the subject; the donor chosen by a hash of the sentence among those that name another
    thing, can be made to agree in number (``agree``) and pair with the subject nowhere in the cited passages. None when the
    sentence has no subject the heuristic trusts, or no such donor exists (a passage of one
    sentence has none)."""
    parts = split_clause(text.strip())
    if parts is None:
        return None
    subject, own = parts
    for passage in passages:
        sentences = split_sentences(passage)
        if len(sentences) < 2 or not keys(subject) <= keys(passage):
            continue
        donors = []
        for s in sentences:
            split = split_clause(s)
            if split is None or s.strip() == text.strip():
                continue
            other, predicate = split
            if not _distinct(subject, other) or keys(subject) & keys(predicate):
                continue
            agreed = agree(subject, predicate, own)
            if agreed is None:
                continue
            predicate = agreed
            if stated(subject, predicate, passages):
                continue
            donors.append((other, predicate))
        if donors:
            other, predicate = donors[zlib.crc32(text.encode("utf-8")) % len(donors)]
            return f"{subject} {predicate}", f"{subject!r} given the predicate of {other!r}"
    return None


__all__ = ["agree", "keys", "splice", "split_clause", "stated", "word_classes"]
