"""The splice operator: the subject of the sentence joined to the predicate of another sentence of
the passage it cites, a fact stitched across a document ("Ramsey scored in QPR's 3-3 draw" from
"Ramsey puts the winger through his paces" and "Austin celebrates after scoring during QPR's 3-3
draw"). False by construction: the operator makes the splice only when no sentence of the cited
passages (nor a sentence opening with a pronoun or "the", read with the one before it) pairs the
subject with the predicate, and only from a donor sentence whose subject is another thing (no
shared word, no pronoun, no quantifier: "All plants need light" would make "Ferns need light"
true).

The split into subject and predicate is a cheap heuristic, not a parse: the subject is the words
before the main verb, found with the lexical judge's own lexicon (a word lemminflect lists as a
verb or an auxiliary), and a sentence whose subject holds a clause, a comma or a pronoun is not
split. Like every operator it is a pure function of the sentence and the passages; it gives no
mutant when no safe splice exists.
"""

from __future__ import annotations

import re
import zlib
from functools import lru_cache
from typing import Sequence

from ..core.model import split_sentences

_TOKEN = re.compile(r"[A-Za-z][A-Za-z'\u2019-]*|\d[\d.,]*")
_AUX = frozenset(
    """is are was were be has have had can could will would should must may might shall does do did
    cannot""".split()
)
_SINGULAR_VERBS = frozenset("is was has does".split())
_PLURAL_VERBS = frozenset("are were have do".split())
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
# A donor subject that opens with a quantifier or generic word may cover the recipient's subject
# ("All plants need light", "Most houseplants ..."): its predicate could hold of it too.
_GENERIC = frozenset(
    """all every each most many some several few any no none much everyone everybody everything anyone
    anybody anything nobody nothing people someone somebody something""".split()
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
# A sentence that opens with one of these may refer to the sentence before it ("They grow fast",
# "The plant ..."): it is read together with it when the operator checks the passage.
_ANAPHORS = frozenset("it its they their them this these those he she his her such both the".split())
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
    from ..judges.lexical import lexicon

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
    from ..judges.lexical.text import stem

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
    from ..judges.lexical import lexicon

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
