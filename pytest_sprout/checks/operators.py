"""The mutation operators: deterministic functions that turn a supported sentence into one its
sources do not support. Text operators change the sentence and keep its citations; citation
operators keep the text and change what it cites. Every operator is a pure function of the sentence
and the passages: the same answer always gives the same mutants. An operator that does not apply
(no number to change, no second passage to move a citation to) gives no mutant. The number/unit
operator lives in numbers.py, the splice operator in splice.py, the citation operators in
citations.py; judging mutants and the kill rates, in mutation.py.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Iterable, Sequence

from ..core.model import Answer, Sentence
from .negation import negate
from .citations import MOVE_MAX_OVERLAP, content_words, drop_citation, move_citation, overlap
from .numbers import NUMBER_WORDS, change_number, downward
from .splice import splice
from .words import WORD, has_word, match_case, split_end

OPERATORS: tuple[str, ...] = (
    "negation", "number", "entity_swap", "antonym", "quantifier", "unsupported_clause", "splice",
    "citation_move", "citation_drop",
)
TEXT_OPERATORS: tuple[str, ...] = OPERATORS[:7]
# Operators that change what a sentence cites, not what it says. A judge that reads citations kills
# them by construction (the lexical judge rejects an uncited sentence before judging it, and a moved
# citation keeps at most a third of the sentence's words against its 0.6 coverage threshold): they
# check the wiring, not the judge's reading, and stay out of the headline.
STRUCTURAL: tuple[str, ...] = ("citation_move", "citation_drop")

# --- entities ------------------------------------------------------------------------------------

_ENTITY = re.compile(r"\b[A-Z][\w'\u2019-]*(?:\s+(?:(?:of(?:\s+the)?|de|da|del|la|le|van|von)\s+)?[A-Z][\w'\u2019-]*)*")
_NOT_ENTITIES = frozenset(
    """The A An In On At It Its This That These Those They Their There Then When While If As
    For From To By With Of Since Until During Between But And Or So After Before Some Most Many All
    Every Each Few No Not He She His Her We Our You Your I However Although Because Unlike Like
    Also Both Either Neither Once Though Even Yet Thus How Why What Where Who Which One Yes Do Does""".split()
)
# Titles before a name ("Dr. Sujay Kansagra"): no name of their own; "Dr" in place of a name says nothing false.
_TITLES = frozenset("Dr Mr Mrs Ms Mx Prof Sir St Rev Gen Sgt Capt Lt Col".split())
_MONTH_NAMES = frozenset(
    "January February March April May June July August September October November December".split()
)
_ALIAS = re.compile(r"\(|\b(?:also|called|known|aka|sold|formerly|renamed|or|i\.e|e\.g)\b", re.IGNORECASE)
# Text between two names that makes them a list or a symmetric pair: swapping them says the same
# ("A and B", "between A and B", "A is as hardy as B", "A, like B, ...", "A resembles B").
_LIST_LIKE = re.compile(
    r",|&|/|\b(?:and|or|nor|with|vs|versus|between|as|like|alike|similar|same|resembl\w*|related|compared)\b",
    re.IGNORECASE,
)
# Two names that the passage joins in one list ("A, B and C are safe"): what the passage says of
# one it may say of the other, so replacing one by the other can keep the claim true.
_LISTED_BETWEEN = re.compile(r"^(?:[^.;:!?()]{0,60}?(?:,|&|/|\band\b|\bor\b|\bnor\b)){1,}[^.;:!?()]{0,25}$", re.IGNORECASE)


@lru_cache(maxsize=4096)
def _listed_together(passage: str, a: str, b: str) -> bool:
    """Whether the passage names ``a`` and ``b`` in one list ("A, B and C"; "A or B")."""
    for x, y in ((a, b), (b, a)):
        for m in _occurrences(x, passage):
            for n in _occurrences(y, passage):
                if 0 < n.start() - m.end() <= 120 and _LISTED_BETWEEN.match(passage[m.end(): n.start()]):
                    return True
    return False


def entities(text: str) -> list[str]:
    """Capitalised names in a passage, in order of first appearance. A leading function word is
    dropped ("From November" -> "November"); a one-word name that starts a sentence counts only if
    the passage also writes it capitalised elsewhere."""
    return list(_entities(text))


@lru_cache(maxsize=256)
def _entities(text: str) -> tuple[str, ...]:
    matches = []
    mid: set[str] = set()
    for m in _ENTITY.finditer(text):
        k = m.start() - 1  # the last character before the name that is not a space
        while k >= 0 and text[k].isspace():
            k -= 1
        at_start = k < 0 or text[k] in ".!?:\"\u201c\n"
        matches.append((m.group().rstrip("'\u2019-"), at_start))
        if not at_start:
            mid.update(m.group().split())
    seen: dict[str, None] = {}
    for name, at_start in matches:
        head, _, rest = name.partition(" ")
        while rest and (head in _NOT_ENTITIES or head.islower()):  # "One of Br'er Fox's", "Though Afeni"
            name, at_start = rest, False
            head, _, rest = name.partition(" ")
        if name in _NOT_ENTITIES or name in _TITLES or len(name) < 2:
            continue
        if at_start and " " not in name and name not in mid:
            continue
        seen.setdefault(name, None)
    return tuple(seen)


_WEEKDAYS = frozenset("Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split())


def _kind(name: str) -> str:
    """A coarse type, so that a month is replaced by a month, a weekday by a weekday and an acronym
    by an acronym."""
    if name in _MONTH_NAMES:
        return "month"
    if name in _WEEKDAYS:
        return "weekday"
    if name.replace(" ", "").isupper():
        return "acronym"
    return "name"


@lru_cache(maxsize=4096)
def _aliases(passage: str, a: str, b: str) -> bool:
    """Whether the passage introduces one name as another's alias ("A (B)", "A, also called B")."""
    for x, y in ((a, b), (b, a)):
        for m in re.finditer(re.escape(x), passage):
            rest = passage[m.end(): m.end() + 80]
            k = rest.find(y)
            if k >= 0 and _ALIAS.search(rest[:k]):
                return True
    return False


@lru_cache(maxsize=4096)
def _occurrences(name: str, text: str) -> tuple[re.Match[str], ...]:
    return tuple(re.finditer(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text))


def _a_name(name: str) -> bool:
    """Whether a capitalised word is a name, not a common word written with a capital (a title's
    "Image", "Follow", "State", "Windows"): a one-word name that lemminflect's table lists as an
    English word is not one, unless it is an acronym ("DNA", "US")."""
    if " " in name or (name.isupper() and len(name) > 1) or name in _WEEKDAYS or name in _MONTH_NAMES:
        return True
    from .splice import word_classes

    return not word_classes(name.lower().replace("\u2019", "'"))


def _one_name(passage: str, a: str, b: str) -> bool:
    """Whether the passage writes the two as parts of one longer name ("Drano Max Gel Clog
    Remover" holds "Drano" and "Max Gel Clog Remover"): one may stand for the other."""
    return any(a in n and b in n and n not in (a, b) for n in entities(passage))


def _apposition(between: str) -> bool:
    """Whether the text between two names makes the first a modifier of a noun the second names
    ("British naturalist Alfred Russel Wallace") or the second the place of the first ("State
    University of New York at Stony Brook"): exchanged, they still say the same of each
    ("Alfred Russel Wallace naturalist British")."""
    words = between.split()
    if len(words) != 1 or between != f" {words[0]} ":
        return False
    word = words[0]
    if word == "at":
        return True
    from .splice import word_classes

    classes = (word_classes(word) or frozenset()) if word.isalpha() and word.islower() else frozenset()
    return "NOUN" in classes and "VERB" not in classes


def swap_entities(text: str, passages: Sequence[str] = ()) -> tuple[str, str] | None:
    """Swap two entities of the cited passage: when the sentence names two of them (not in a plain
    list like "A and B", nor in a symmetric relation like "A is as hardy as B"), exchange their
    places; otherwise replace the one it names by another entity of the same passage that is
    neither an alias of it nor listed with it ("A and B are toxic": "B" may do for "A")."""
    for passage in passages:
        names = [n for n in entities(passage) if _a_name(n)]
        present = [n for n in names if _occurrences(n, text)]
        present = [n for n in present if not any(n != o and n in o for o in present)]
        # A name in parentheses is an aside or an alias ("Pothos (Epipremnum aureum)"): leave it.
        present = [n for n in present if not text[: _occurrences(n, text)[0].start()].endswith("(")]
        spans = sorted(((_occurrences(n, text)[0], n) for n in present), key=lambda p: p[0].start())
        for (m1, n1), (m2, n2) in zip(spans, spans[1:]):
            if m2.start() < m1.end() or _LIST_LIKE.search(text[m1.end(): m2.start()]):
                continue
            if _aliases(passage, n1, n2) or _kind(n1) != _kind(n2) or _apposition(text[m1.end(): m2.start()]):
                continue
            new = text[: m1.start()] + n2 + text[m1.end(): m2.start()] + n1 + text[m2.end():]
            return new, f"swapped {n1!r} and {n2!r}"
        for m, name in spans:
            for other in names:
                if other in present or _kind(other) != _kind(name):
                    continue
                if other.lower() in name.lower() or name.lower() in other.lower():
                    continue  # a short form of the name ("Pac" for "Tupac", "Afeni" for "Afeni Shakur")
                if all(passage[o.start() - 1 : o.start()] == "(" for o in _occurrences(other, passage)):
                    continue  # only ever an alias in parentheses
                if _aliases(passage, name, other) or _listed_together(passage, name, other):
                    continue
                if any(_one_name(p, name, other) for p in passages):
                    continue
                if has_word(other, [text]):
                    continue
                return text[: m.start()] + other + text[m.end():], f"{name!r} -> {other!r}"
    return None


# --- antonyms ------------------------------------------------------------------------------------

_ANTONYM_PAIRS = """
low high | lower higher | lowest highest | bright dim | direct indirect | indoor outdoor
indoors outdoors | increase decrease | increases decreases | increased decreased | larger smaller
large small | big small | faster slower | fast slow | hot cold | warm cool | warmer cooler | wet dry
moist dry | early late | earlier later | before after | above below | inside outside | old new
young old | maximum minimum | first last | best worst | good bad | better worse | strong weak
easy difficult | safe dangerous | toxic harmless | poisonous harmless | common rare
successful unsuccessful | won lost | wins loses | accepted rejected | opened closed | started ended
began ended | rises falls | rose fell | gained lost | north south | east west | northern southern
eastern western | male female | positive negative | true false | legal illegal | public private
thick thin | wide narrow | deep shallow | tall short
acidic alkaline | sunny shady | shade sun | rich poor | upper lower | inner outer | summer winter
spring autumn | morning evening | ancient modern | annual perennial | evergreen deciduous
majority minority | similar different | cheap expensive | loud quiet | soft hard | dark bright
alive dead | present absent | possible impossible | likely unlikely | able unable
official unofficial | internal external | imports exports | allows prevents
includes excludes | including excluding | love hate | loves hates | open closed | dense sparse
fertile barren | native introduced | sweet bitter | heat cold | humid dry | frequent rare
"""
# Left out on purpose, because the swap can keep the meaning: the two sides of one exchange
# ("long sold as Sansevieria" = "long bought as"; buys/sells), and known/unknown ("known as" names
# an alias, and "unknown as" says nothing the original denies).
ANTONYMS: dict[str, str] = {}
for _pair in _ANTONYM_PAIRS.replace("\n", " | ").split("|"):
    if _pair.strip():
        _a, _b = _pair.split()
        ANTONYMS.setdefault(_a, _b)
        ANTONYMS.setdefault(_b, _a)


_VERB_BEFORE = frozenset("to will would can could should must may might".split())


def antonym(text: str, passages: Sequence[str] = ()) -> tuple[str, str] | None:
    """Replace the first word that has an antonym the cited passages never use ("low" -> "high")."""
    for w in WORD.finditer(text):
        new = ANTONYMS.get(w.group().lower())
        before = text[: w.start()].split()[-1:]
        if before and before[0].lower() in _VERB_BEFORE:
            continue  # "left to dry": a verb, whose antonym adjective would not parse
        if w.group().lower() == "old" and before and before[0].lower().rstrip("s") in ("year", "month", "week", "day"):
            continue  # "two years old": an age, not the opposite of new
        if new and not has_word(new, passages):
            new = match_case(new, w.group())
            return text[: w.start()] + new + text[w.end():], f"{w.group()!r} -> {new!r}"
    return None


# --- quantifiers and modals ----------------------------------------------------------------------

# Each change contradicts or strengthens the original, so the passage that supported the sentence
# does not support the mutant ("usually" -> "always", "may" -> "must", "all" -> "no").
QUANTIFIER_CHANGES: dict[str, str] = {
    "at least": "at most", "at most": "at least", "more than": "less than", "less than": "more than",
    "fewer than": "more than", "up to": "at least", "a few": "no", "all": "no", "every": "no",
    "each": "no", "none": "all", "always": "never", "never": "always", "usually": "always",
    "generally": "always", "typically": "always", "normally": "always", "often": "always",
    "frequently": "always", "sometimes": "always", "occasionally": "always", "rarely": "never",
    "seldom": "never", "most": "all", "many": "all", "several": "all", "some": "all", "few": "no",
    "may": "must", "might": "must", "can": "must", "could": "must",
}
# The changes that reverse the word rather than strengthen it.
_REVERSALS = frozenset(
    ("at least", "at most", "more than", "less than", "fewer than", "up to", "a few", "all", "every", "each",
     "none", "always", "never")
)
_QUANTIFIER = re.compile(
    r"(?<![\w-])(" + "|".join(sorted((re.escape(k) for k in QUANTIFIER_CHANGES), key=len, reverse=True)) + r")(?![\w-])",
    re.IGNORECASE,
)


def change_quantifier(text: str, passages: Sequence[str] = ()) -> tuple[str, str] | None:
    """Change the first quantifier, frequency adverb or modal to a stronger or opposite one that
    the cited passages do not use; none after a negation or inside a condition, where a stronger
    word gives a claim the original implies (see ``downward``)."""
    for m in _QUANTIFIER.finditer(text):
        old = m.group(1)
        before = text[: m.start()].split()[-1:]
        prev = before[0].lower() if before else ""
        if old.lower() == "most" and prev == "the":
            continue  # "the most common": a superlative
        if old.lower() in ("many", "much") and prev in ("as", "so", "too", "how"):
            continue
        if old.lower() == "all" and (prev == "at" or prev == "after"):
            continue
        if old.lower() == "may" and m.start() > 0 and text[m.start()].isupper():
            continue  # the month
        after = text[m.end():].split()[:1]
        if old.lower() in ("every", "each") and after and (after[0][0].isdigit() or after[0].lower() in NUMBER_WORDS or after[0].lower() in ("other", "one", "few")):
            continue  # "every 2 weeks", "every other day": a frequency, not a quantity
        if old.lower() in ("can", "could") and " ".join(text[: m.start()].split()[-2:-1]).lower() == "as":
            continue  # "as much as you can"
        if old.lower() == "most" and re.match(r"\s+\w+ly\b", text[m.end():]):
            continue  # "the stage most easily killed": a superlative
        # A stronger word after a negation or in a condition gives a claim the original implies ("do
        # not usually" -> "do not always"; "if most leaves fall" covers "if all do"); a reversal
        # ("more than" -> "less than", "every" -> "no") does not, wherever it stands.
        if old.lower() not in _REVERSALS and downward(text, m.start()):
            continue
        new = QUANTIFIER_CHANGES[old.lower()]
        if has_word(new, passages):
            continue
        new = match_case(new, old)
        return text[: m.start()] + new + text[m.end():], f"{old!r} -> {new!r}"
    return None


# --- unsupported clause --------------------------------------------------------------------------

# Two kinds of unsupported addition, alternating so that the operator's choice rotates between them:
# a source or event with a proper name, and a plain effect, reason or tip in lowercase common words.
# Each clause comes with the stems that carry its claim: a retrieved passage that uses one of them
# might support the clause, so the clause is not used with it. None has a number, quantifier, modal
# or negation, so a judge can only catch one by noticing content its sources lack.
CLAUSES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("according to researchers at the University of Oslo", ("University", "Oslo")),
    ("which also doubles the growth rate", ("doubl",)),
    ("which Swedish botanists were the first to report", ("Swedish", "Swede", "botanist")),
    ("and this also keeps slugs away", ("slug",)),
    ("as a survey of households in Chile confirmed", ("survey", "Chile")),
    ("because the roots store extra sugar at night", ("sugar",)),
    ("a finding the Royal Meteorological Society has disputed", ("Royal", "Meteorolog", "Society", "disput")),
    ("a tip that greenhouse growers pass on to beginners", ("greenhouse", "beginner")),
)


def _mentions(stem: str, texts: Iterable[str]) -> bool:
    """Whether a text has a word that starts with ``stem`` (any case): "slug" finds "Slugs"."""
    return any(_mentions_in(stem, t) for t in texts)


@lru_cache(maxsize=4096)
def _mentions_in(stem: str, text: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(stem)}", text, re.IGNORECASE) is not None


def append_clause(text: str, passages: Sequence[str] = ()) -> tuple[str, str] | None:
    """Append one of CLAUSES, chosen by a hash of the sentence, skipping any whose key stems a
    retrieved passage uses; None when every clause is used."""
    start = zlib.crc32(text.encode("utf-8")) % len(CLAUSES)
    for k in range(len(CLAUSES)):
        clause, keys = CLAUSES[(start + k) % len(CLAUSES)]
        if any(_mentions(key, passages) for key in keys):
            continue
        body, end = split_end(text)
        return f"{body}, {clause}{end}", f"appended {clause!r}"
    return None


TEXT_OPS: dict[str, Callable[[str, Sequence[str]], tuple[str, str] | None]] = {
    "negation": negate,
    "number": change_number,
    "entity_swap": swap_entities,
    "antonym": antonym,
    "quantifier": change_quantifier,
    "unsupported_clause": append_clause,
    "splice": splice,
}
CITATION_OPS: dict[str, Callable[[Sentence, Answer], tuple[Sentence, str] | None]] = {
    "citation_move": move_citation,
    "citation_drop": drop_citation,
}


def mutate_text(operator: str, text: str, passages: Sequence[str]) -> str | None:
    """One text operator on a claim and the passages it cites: the mutant text, or None."""
    if operator not in TEXT_OPS:
        raise ValueError(f"unknown text operator {operator!r}; expected one of {', '.join(TEXT_OPS)}")
    found = TEXT_OPS[operator](text, passages)
    return None if found is None or found[0] == text else found[0]


@dataclass(frozen=True)
class Mutant:
    operator: str
    index: int  # the sentence's position in the answer
    original: Sentence
    sentence: Sentence  # the mutated sentence: new text, or new citations
    change: str  # what the operator did, for the report


def mutate_sentence(answer: Answer, index: int, operators: Sequence[str] = OPERATORS,
                    mode: str = "required") -> list[Mutant]:
    """Every applicable operator's mutant of one sentence of the answer. In ``retrieved`` mode
    (core/citations.py) an uncited sentence's passages are every retrieved one, and a dropped
    citation is no mutant: the sentence would then be judged against every retrieved passage,
    which may support it."""
    from ..core.citations import sources

    sentence = answer.sentences[index]
    cited = [p.text for p in sources(answer, sentence, mode).passages]
    every = [p.text for p in answer.passages]
    out = []
    for op in operators:
        if op == "citation_drop" and mode == "retrieved":
            continue
        if op in TEXT_OPS:
            # The clause must be new to every retrieved passage; the others look at what is cited.
            found = TEXT_OPS[op](sentence.text, every if op == "unsupported_clause" else cited)
            if found is not None and found[0] != sentence.text:
                out.append(Mutant(op, index, sentence, Sentence(found[0], sentence.citations), found[1]))
        elif op in CITATION_OPS:
            moved = CITATION_OPS[op](sentence, answer)
            if moved is not None:
                out.append(Mutant(op, index, sentence, moved[0], moved[1]))
        else:
            raise ValueError(f"unknown operator {op!r}; expected one of {', '.join(OPERATORS)}")
    return out


__all__ = [  # the citation operators' names too: they live in citations.py
    "CITATION_OPS", "MOVE_MAX_OVERLAP", "OPERATORS", "STRUCTURAL", "TEXT_OPERATORS", "TEXT_OPS", "Mutant", "content_words",
    "drop_citation", "move_citation", "mutate_sentence", "mutate_text", "overlap",
]
