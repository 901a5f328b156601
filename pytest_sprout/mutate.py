"""Mutation testing of judges: deterministic operators that turn a supported sentence into one its
sources do not support, the judging of those mutants, and the kill-rate accounting.

A mutant is derived only from a sentence the tier itself judged supported, so a kill means the
judge saw the change. Text operators change the sentence and keep its citations; citation
operators keep the text and change what it cites. Every operator is a pure function of the sentence
and the passages: the same answer always gives the same mutants. An operator that does not apply
(no number to change, no second passage to move a citation to) gives no mutant.

Mutant outcomes live in the item row under ``"mutants"`` and in their own tally; they never count
in the main metrics.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from .model import Answer, Sentence
from .stats import MetricRow, Tally

OPERATORS: tuple[str, ...] = (
    "negation", "number", "entity_swap", "antonym", "quantifier", "unsupported_clause",
    "citation_move", "citation_drop",
)
TEXT_OPERATORS: tuple[str, ...] = OPERATORS[:6]
# Operators that change what a sentence cites, not what it says. A judge that reads citations kills
# them by construction (the lexical judge rejects an uncited sentence before judging it, and a moved
# citation keeps at most a third of the sentence's words against its 0.6 coverage threshold): they
# check the wiring, not the judge's reading, and stay out of the headline.
STRUCTURAL: tuple[str, ...] = ("citation_move", "citation_drop")
STRUCTURAL_NOTE = (
    "structural (citation_move, citation_drop): they change what a sentence cites, not what it says;"
    " a judge that reads citations kills them by construction, so they stay out of the headline."
)
# How the summary names a group of mutants: "kills 97% of 120 negations".
PLURALS: dict[str, str] = {
    "negation": "negations",
    "number": "number/unit changes",
    "entity_swap": "entity swaps",
    "antonym": "antonym swaps",
    "quantifier": "quantifier/modal changes",
    "unsupported_clause": "unsupported clauses",
    "citation_move": "moved citations",
    "citation_drop": "dropped citations",
}
NO_JUDGE = "the tier has no claim-level judge(claim, passages), so it was not mutated"

_WORD = re.compile(r"[A-Za-z][A-Za-z'\u2019-]*")


def _has_word(word: str, texts: Iterable[str]) -> bool:
    pattern = re.compile(rf"(?<![\w-]){re.escape(word)}(?![\w-])", re.IGNORECASE)
    return any(pattern.search(t) for t in texts)


def _match_case(new: str, old: str) -> str:
    if old.isupper() and len(old) > 1:
        return new.upper()
    if old[:1].isupper():
        return new[:1].upper() + new[1:]
    return new


def _split_end(text: str) -> tuple[str, str]:
    """The sentence body and its closing punctuation."""
    m = re.search(r"[.!?]+[\"'\u201d\u2019)]*\s*$", text)
    return (text[: m.start()], text[m.start():].strip()) if m else (text.rstrip(), ".")


# --- negation ----------------------------------------------------------------------------------

_NEGATED_CONTRACTIONS = {
    "can't": "can", "cannot": "can", "won't": "will", "shan't": "shall", "don't": "do",
    "doesn't": "does", "didn't": "did", "isn't": "is", "aren't": "are", "wasn't": "was",
    "weren't": "were", "hasn't": "has", "haven't": "have", "hadn't": "had", "couldn't": "could",
    "wouldn't": "would", "shouldn't": "should", "mustn't": "must", "mightn't": "might",
}
_AUXILIARIES = frozenset("is are was were can could will would should must may might shall".split())
_HAVE = {"has": "does not have", "have": "do not have", "had": "did not have"}
_PARTICIPLES = frozenset(
    """been become begun brought built bought chosen come done drawn driven eaten fallen found
    forgotten given gone got gotten grown held hidden kept known led left lost made met paid put
    read risen run said seen sent set shown sold spent spoken stood taken thought told understood
    won worn written""".split()
)
# After these, "not" would not negate ("will not only"), or would stack ("is not no").
_NO_NOT_BEFORE = frozenset("not no never nothing none neither nor only just merely simply".split())
_SINGULAR_SUBJECTS = frozenset("it he she this which who".split())
_PLURAL_SUBJECTS = frozenset("they we you these those".split())
_ADVERB_SKIP = frozenset("also often usually always only still generally typically mostly".split())
# A capitalised first word followed by one of these is read as an imperative: "Keep the soil".
_IMPERATIVE_NEXT = frozenset(
    """the a an it them your its their this these those every each only when if until once in at
    about roughly thoroughly deeply sparingly regularly well less more""".split()
)
_QUANTIFIED_SUBJECTS = frozenset("Some Many Most Several Few".split())
_LOWER_FIRST = frozenset(
    """The A An In On At It Its This That These Those They Their There When While If As For But
    So After Before During Some Most Many All Every Each Few No""".split()
)


def _base_form(verb: str) -> str:
    """'tolerates' -> 'tolerate', 'carries' -> 'carry', 'watches' -> 'watch'."""
    if verb.endswith("ies") and len(verb) > 4:
        return verb[:-3] + "y"
    if verb.endswith(("ches", "shes", "sses", "xes", "zzes", "oes")):
        return verb[:-2]
    return verb[:-1]


def _insert_not(text: str, words: list[re.Match[str]]) -> tuple[str, str] | None:
    """Negate the first verb that can take "not" cleanly."""
    for i, w in enumerate(words):
        low = w.group().lower()
        nxt = words[i + 1].group().lower() if i + 1 < len(words) else ""
        if low == "can" and nxt not in _NO_NOT_BEFORE:
            new = _match_case("cannot", w.group())
            return text[: w.start()] + new + text[w.end():], f"{w.group()!r} -> {new!r}"
        if low in _AUXILIARIES and nxt not in _NO_NOT_BEFORE:
            return text[: w.end()] + " not" + text[w.end():], f"{w.group()!r} -> '{w.group()} not'"
        if low in _HAVE and nxt not in _NO_NOT_BEFORE:
            if nxt in _PARTICIPLES or nxt.endswith("ed"):
                return text[: w.end()] + " not" + text[w.end():], f"{w.group()!r} -> '{w.group()} not'"
            new = _match_case(_HAVE[low], w.group())
            return text[: w.start()] + new + text[w.end():], f"{w.group()!r} -> {new!r}"
        if low in _SINGULAR_SUBJECTS or low in _PLURAL_SUBJECTS:
            j = i + 1
            while j < len(words) and words[j].group().lower() in _ADVERB_SKIP:
                j += 1
            if j >= len(words):
                return None
            verb = words[j].group()
            if not verb.islower() or verb in _AUXILIARIES or verb in _HAVE or verb in _NO_NOT_BEFORE:
                continue
            if low in _SINGULAR_SUBJECTS and verb.endswith("s") and not verb.endswith(("ss", "us", "is")):
                new = f"does not {_base_form(verb)}"
            elif low in _PLURAL_SUBJECTS and not verb.endswith(("ed", "ing", "s")):
                new = f"do not {verb}"
            else:
                continue
            return text[: words[j].start()] + new + text[words[j].end():], f"{verb!r} -> {new!r}"
    return None


def negate(text: str, passages: Sequence[str] = ()) -> tuple[str, str] | None:
    """Remove the sentence's negation if it has one, else negate it.

    Tries, in order: drop "not" / "n't" / "cannot"; "Do not" before an imperative ("Keep the soil
    moist" -> "Do not keep ..."); "not" after the first auxiliary or modal ("is" -> "is not");
    "has" -> "does not have"; a pronoun's verb ("it grows" -> "it does not grow"); otherwise the
    prefix "It is not true that".
    """
    for m in re.finditer(r"\b([A-Za-z]+n[\u2019']t|cannot)\b", text, re.IGNORECASE):
        base = _NEGATED_CONTRACTIONS.get(m.group(1).lower().replace("\u2019", "'"))
        if base:
            return text[: m.start()] + _match_case(base, m.group(1)) + text[m.end():], f"{m.group(1)!r} -> {base!r}"
    # "whether or not", "if not" and "not only" are not negations of the sentence: dropping them keeps it true.
    m = re.search(r"(?<!\bor)(?<!\bif)\s\bnot\b(?!\s+(?:only|just|merely|simply|to mention)\b)", text, re.IGNORECASE)
    if m:
        return text[: m.start()] + text[m.end():], "dropped 'not'"
    words = list(_WORD.finditer(text))
    if not words:
        return None
    first = words[0].group()
    second = words[1].group() if len(words) > 1 else ""
    if (
        words[0].start() == 0 and first[:1].isupper() and first not in _LOWER_FIRST
        and second in _IMPERATIVE_NEXT and first.lower() not in _AUXILIARIES
    ):
        return "Do not " + first.lower() + text[words[0].end():], "imperative: prefixed 'Do not'"
    # "Some plants can X" -> "Some plants cannot X" could both be true: negate the whole claim.
    # A "not" inserted after "whether" leaves the sentence as true as before: only look before it.
    whether = re.search(r"\bwhether\b", text, re.IGNORECASE)
    if whether:
        words = [w for w in words if w.end() <= whether.start()]
    found = None if first in _QUANTIFIED_SUBJECTS or text.startswith("A few ") else _insert_not(text, words)
    if found is not None:
        return found
    body = text[:1].lower() + text[1:] if first in _LOWER_FIRST else text
    return "It is not true that " + body, "prefixed 'It is not true that'"


# --- numbers and units -------------------------------------------------------------------------

_NUMBER = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?![\d])(\s*%|[A-Za-z]+)?")
_UNIT_SUFFIXES = frozenset("cm mm m km kg g mg ml l h s st nd rd th".split())
_NUMBER_WORDS = {
    "two": "twenty", "three": "thirty", "four": "forty", "five": "fifty", "six": "sixty",
    "seven": "seventy", "eight": "eighty", "nine": "ninety", "ten": "a hundred", "twelve": "forty",
    "twenty": "two", "dozen": "hundred", "hundred": "thousand", "thousand": "million",
}
_WORD_VALUES = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "a hundred": 100, "dozen": 12, "hundred": 100,
    "thousand": 1000, "million": 10**6,
}
_UNIT_SWAPS = {
    "second": "minute", "seconds": "minutes", "minute": "hour", "minutes": "hours", "hour": "day",
    "hours": "days", "day": "week", "days": "weeks", "week": "month", "weeks": "months",
    "month": "year", "months": "years", "year": "decade", "years": "decades",
    "daily": "weekly", "weekly": "monthly", "monthly": "yearly", "yearly": "daily", "annually": "monthly",
    "centimetres": "metres", "centimeters": "meters", "millimetres": "centimetres",
    "millimeters": "centimeters", "metres": "kilometres", "meters": "kilometers",
    "kilometres": "miles", "kilometers": "miles", "miles": "kilometres", "inches": "feet", "feet": "yards",
    "grams": "kilograms", "kilograms": "tonnes", "litres": "millilitres", "liters": "milliliters",
    "celsius": "Fahrenheit", "fahrenheit": "Celsius", "°c": "°F", "°f": "°C", "cm": "m", "mm": "cm",
    "kg": "g", "km": "m",
}
# The other direction, tried when a bound forbids the first (see _forbidden): "within a week" can
# only become "within a day", never "within a month", which the original implies.
_UNIT_SWAPS_BACK: dict[str, str] = {}
for _old, _new in _UNIT_SWAPS.items():
    _UNIT_SWAPS_BACK.setdefault(_new.lower(), _old)
# Each unit's size in its dimension's base unit, to tell whether a swap makes the quantity larger.
# Frequency words are counted as events per day, so "daily" -> "weekly" makes it smaller.
_UNIT_SIZE = {
    **dict.fromkeys(("second", "seconds", "s"), 1), **dict.fromkeys(("minute", "minutes"), 60),
    **dict.fromkeys(("hour", "hours", "h"), 3600), **dict.fromkeys(("day", "days"), 86400),
    **dict.fromkeys(("week", "weeks"), 604800), **dict.fromkeys(("month", "months"), 2629800),
    **dict.fromkeys(("year", "years"), 31557600), **dict.fromkeys(("decade", "decades"), 315576000),
    "daily": 1, "weekly": 1 / 7, "monthly": 1 / 30, "yearly": 1 / 365, "annually": 1 / 365,
    **dict.fromkeys(("millimetres", "millimeters", "mm"), 0.001), **dict.fromkeys(("centimetres", "centimeters", "cm"), 0.01),
    **dict.fromkeys(("metres", "meters", "m"), 1.0), **dict.fromkeys(("kilometres", "kilometers", "km"), 1000.0),
    "miles": 1609.3, "inches": 0.0254, "feet": 0.3048, "yards": 0.9144,
    **dict.fromkeys(("mg",), 0.001), **dict.fromkeys(("grams", "g"), 1.0), **dict.fromkeys(("kilograms", "kg"), 1000.0),
    "tonnes": 1e6, **dict.fromkeys(("millilitres", "milliliters", "ml"), 0.001), **dict.fromkeys(("litres", "liters", "l"), 1.0),
    # The same number of degrees Fahrenheit is colder than of degrees Celsius (above -40).
    "celsius": 1.8, "°c": 1.8, "fahrenheit": 1.0, "°f": 1.0,
}

# Words before a quantity that make it a bound. A claim with a larger upper bound, or a smaller lower
# bound, follows from the original ("within a day" -> "within a week"): such a change is not made.
_UPPER = re.compile(
    r"(?<!\bno )(?<!\bnot )\b(?:within|up to|under|below|less than|fewer than|at most|at the most|no more than|not more than|"
    r"a maximum of|maximum of|max|no later than|no longer than|before|until|till|shorter than|"
    r"lower than|colder than|cooler than|younger than|as few as|as little as|in as little as)\s*$",
    re.IGNORECASE,
)
_LOWER = re.compile(
    r"(?<!\bno )(?<!\bnot )\b(?:at least|at the least|more than|over|above|no less than|not less than|no fewer than|"
    r"a minimum of|minimum of|min|upwards of|in excess of|exceeding|beyond|after|since|"
    r"longer than|higher than|warmer than|hotter than|older than|greater than|as many as|as much as)\s*$",
    re.IGNORECASE,
)
_UPPER_AFTER = re.compile(r"\s*(?:or (?:less|fewer|under|below|shorter|sooner|earlier|lower)\b|at (?:the )?most\b|max(?:imum)?\b)", re.IGNORECASE)
_LOWER_AFTER = re.compile(r"\s*(?:or (?:more|longer|over|above|higher|later|greater)\b|\+|at (?:the )?least\b|and (?:up|over|above)\b|min(?:imum)?\b)", re.IGNORECASE)
# Inside a quantity: numbers, number words, approximations, and words that make it a frequency.
_QUANTITY_WORDS = frozenset(
    """a an of the few couple several half one two three four five six seven eight nine ten eleven
    twelve twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million dozen
    about around roughly approximately some just only every per once twice thrice times""".split()
)
_FREQUENCY_WORDS = frozenset("every per once twice thrice times".split())
_RANGE_WORDS = frozenset("to or and - \u2013".split())
# A negation, or the condition of a rule, reverses which changes a claim implies ("never below
# 10°C" implies "never below 5°C"; "if it drops below 10°C" covers "if it drops below 5°C").
_DOWNWARD = re.compile(
    r"\b(?:not|never|no|nor|neither|without|avoid|avoids|avoiding|prevent|prevents|cannot|unless|if|"
    r"when|whenever|whether|too|away from|protect from|protect against|free (?:of|from)|instead of|rather than)\b|"
    r"n['\u2019]t\b",
    re.IGNORECASE,
)
# A relative clause on the subject ("a plant that drops many leaves ... is", "cats that are not
# treated ..."), before any verb of its clause, or a participle right before a bound ("treatment
# started within 6 hours improves ..."): the word may restrict what the claim is about, where a
# stronger word is implied. A relative pronoun that opens its clause (", which can ...") or follows
# a verb ("is a plant that can ...") is not counted.
_RELATIVE = re.compile(r"\b(?:that|which|who|whose|whom)\b", re.IGNORECASE)
_VERB_BEFORE_RELATIVE = re.compile(r"\b(?:is|are|was|were|be|been|has|have|had|can|could|may|might|must|should|will|would)\b", re.IGNORECASE)
_PARTICIPLE_BOUND = re.compile(r"\b\w{2,}(?<!e)ed\s+(?:[\w-]+\s+){0,3}$", re.IGNORECASE)
_TOKENS = re.compile(r"\d+(?:[.,]\d+)*|[A-Za-z]+|[-\u2013]")


def _clause_before(text: str, start: int) -> str:
    """The text of the clause that ``start`` lies in, up to ``start``."""
    head = text[:start]
    cut = max(head.rfind(c) for c in ",;:()")
    return head[cut + 1:]


# Negative words that belong to a bound or a focus phrase, not a negation of the clause.
_NOT_NEGATION = re.compile(
    r"\b(?:no|not) (?:more|less|fewer|later|earlier|longer|sooner) than\b|\bnot (?:only|just|merely|simply)\b|"
    r"\bwhether or not\b",
    re.IGNORECASE,
)


def downward(text: str, start: int) -> bool:
    """Whether ``start`` may lie after a negation, inside a condition or in the subject of its
    clause: there a stronger claim can be implied by a weaker one ("never below 10°C" implies "never
    below 5°C"), so the operators make no change whose direction depends on it."""
    clause = _clause_before(text, start)
    if _DOWNWARD.search(_NOT_NEGATION.sub(" ", clause)):
        return True
    for m in _RELATIVE.finditer(clause):
        head = clause[: m.start()]
        if head.strip() and not _VERB_BEFORE_RELATIVE.search(head):
            return True
    return False


def _forbidden(text: str, start: int, end: int, unit: bool = False) -> set[str]:
    """The directions ("larger", "smaller") in which changing the quantity text[start:end] would give a
    claim that the original implies: a larger upper bound ("within a day" -> "a week"), a smaller lower
    bound, the far end of a range ("a few weeks to a couple of months" -> "years"); reversed for a
    frequency ("at least once a week"). Both directions, so no change, for a bound after a negation,
    in a condition or in the subject, where the operator cannot tell which way entailment runs."""
    tokens = list(_TOKENS.finditer(text[:start]))
    i = len(tokens)
    upper = lower = frequency = False

    def quantity_word(k: int) -> bool:
        word = tokens[k].group().lower()
        return word[0].isdigit() or word in _QUANTITY_WORDS or word in _UNIT_SIZE

    while i > 0:
        word = tokens[i - 1].group().lower()
        if quantity_word(i - 1):
            frequency = frequency or word in _FREQUENCY_WORDS
            i -= 1
        elif word in _RANGE_WORDS and i > 1 and quantity_word(i - 2):
            if not unit or tokens[i - 2].group().lower() in _UNIT_SIZE:
                upper = True  # "2 to 4 weeks", "a few weeks to a couple of months": the range's upper end
            i -= 1
        else:
            break
    # The bound phrase right before the quantity's first word.
    cut = tokens[i].start() if i < len(tokens) else start
    before = text[:cut]
    upper = upper or bool(_UPPER.search(before))
    lower = bool(_LOWER.search(before))
    after = text[end:]
    upper = upper or bool(_UPPER_AFTER.match(after))
    lower = lower or bool(_LOWER_AFTER.match(after))
    joiner = re.match(r"\s*(?:to|-|\u2013|or)\s+", after)
    if joiner:
        for word in _TOKENS.findall(after[joiner.end():])[:5]:
            if word.lower() in _UNIT_SIZE:
                lower = True  # "a few weeks to a couple of months": "weeks" is the range's lower end
                break
            if not (word[0].isdigit() or word.lower() in _QUANTITY_WORDS):
                break
    if (upper or lower) and (downward(text, cut) or _PARTICIPLE_BOUND.search(_clause_before(text, cut))):
        return {"larger", "smaller"}  # a bound whose direction the context may reverse: leave it
    if frequency:
        upper, lower = lower, upper
    return ({"larger"} if upper else set()) | ({"smaller"} if lower else set())


def _numbers_in(texts: Iterable[str]) -> set[str]:
    found = set()
    for t in texts:
        for m in re.finditer(r"\d+(?:,\d{3})*(?:\.\d+)?", t):
            found.add(m.group().replace(",", ""))
    return found


def _fmt(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"


def _new_values(value: float, is_year: bool, percent: bool) -> list[float]:
    if is_year:
        return [value - 7, value + 7, value - 13, value + 13]
    if percent:
        return [100 - value, value + 25, value / 2, value + 7]
    if value == 0:
        return [7, 12]
    # Larger values first; then smaller ones, for a quantity that may only shrink (_whole_enough).
    return [value * 10, value * 3 + 1, value + 17, value * 7 + 3, value / 10, value / 5, value / 4, value / 2, value - 1]


def _whole_enough(old: float, new: float) -> bool:
    """A smaller value stays a count of at least 2, whole when the old one was ("2 weeks" never
    becomes "1 weeks" or "0.2 weeks")."""
    return new >= old or (new >= 2 and (new == int(new) or old != int(old)))


_RANGE_TAIL = re.compile(r"(\s*(?:to|-|\u2013|and|or)\s*)(\d+(?:\.\d+)?)(?![\d.])")


def _direction(old: float, new: float) -> str:
    return "larger" if new > old else "smaller"


def _article(head: str, word: str) -> str:
    """``head`` with its closing "a "/"an " fitted to the word that follows: "a day" -> "an hour"."""
    m = re.search(r"\b(an?|An?) $", head)
    if not m:
        return head
    article = "an" if word[:1].lower() in "aeiou" or word.lower().startswith("hour") else "a"
    return head[: m.start()] + _match_case(article, m.group(1)) + " "


def change_number(text: str, passages: Sequence[str] = ()) -> tuple[str, str] | None:
    """Change the sentence's first number (both ends of a range: "2 to 3" -> "20 to 30") to values
    the passages do not contain; with no number, change a unit of time or measure ("weeks" ->
    "months") or a number word ("two" -> "twenty"). A change that the original implies is never
    made: an upper bound only shrinks ("within 2 weeks" -> "within 2 days"), a lower bound only grows
    (see _forbidden)."""
    taken = _numbers_in([*passages, text])
    for m in _NUMBER.finditer(text):
        suffix = (m.group(3) or "").strip()
        if suffix and suffix != "%" and suffix.lower() not in _UNIT_SUFFIXES:
            continue
        if suffix.lower() in ("st", "nd", "rd", "th"):
            continue  # ordinals: "2nd"
        whole = m.group(1).replace(",", "")
        value = float(whole + ("." + m.group(2) if m.group(2) else ""))
        is_year = m.group(2) is None and "," not in m.group(1) and len(whole) == 4 and 1000 <= value <= 2100
        end = m.end(2) if m.group(2) else m.end(1)
        tail = None if suffix else _RANGE_TAIL.match(text, end)
        quantity_end = tail.end() if tail else m.end()
        unit = re.match(r"\s*([A-Za-z\u00b0]+)", text[quantity_end:])
        if unit and unit.group(1).lower() in _UNIT_SIZE:
            quantity_end += unit.end()
        forbidden = _forbidden(text, m.start(), quantity_end)
        firsts = _new_values(value, is_year, suffix == "%")
        value2 = float(tail.group(2)) if tail else None
        seconds = _new_values(value2, is_year, False) if value2 is not None else [None] * len(firsts)
        for new, new2 in zip(firsts, seconds):
            if new < 0 or _fmt(new) in taken or (new2 is not None and _fmt(new2) in taken):
                continue
            if _direction(value, new) in forbidden or not _whole_enough(value, new):
                continue
            if new2 is not None and not _whole_enough(value2, new2):
                continue
            if new2 is not None and (_direction(value2, new2) != _direction(value, new) or new2 <= new):
                continue  # both ends of a range move the same way, and it stays a range
            if tail is None:
                return text[: m.start()] + _fmt(new) + text[end:], f"{text[m.start():end]!r} -> {_fmt(new)!r}"
            replaced = f"{_fmt(new)}{tail.group(1)}{_fmt(new2)}"
            return text[: m.start()] + replaced + text[tail.end():], f"{text[m.start():tail.end()]!r} -> {replaced!r}"
    for w in _WORD.finditer(text):
        low = w.group().lower()
        if low in _NUMBER_WORDS and re.search(r"\bor\s*$", text[: w.start()]):
            continue  # "one or two": changing the upper end leaves the lower one true
        swaps = [s for s in (_NUMBER_WORDS.get(low) or _UNIT_SWAPS.get(low), _UNIT_SWAPS_BACK.get(low)) if s]
        if not swaps:
            continue
        unit = re.match(r"\s*([A-Za-z\u00b0]+)", text[w.end():])
        end = w.end() + (unit.end() if low in _NUMBER_WORDS and unit and unit.group(1).lower() in _UNIT_SIZE else 0)
        forbidden = _forbidden(text, w.start(), end, unit=low not in _NUMBER_WORDS)
        for swap in swaps:
            if low in _NUMBER_WORDS:
                direction = _direction(_WORD_VALUES[low], _WORD_VALUES.get(swap, 0))
            else:
                direction = _direction(_UNIT_SIZE.get(low, 0), _UNIT_SIZE.get(swap.lower(), 0))
            if direction in forbidden or _has_word(swap, passages):
                continue
            return _article(text[: w.start()], swap) + _match_case(swap, w.group()) + text[w.end():], f"{w.group()!r} -> {swap!r}"
    m = re.search(r"°\s*([CF])\b", text)
    if m:
        new = "°F" if m.group(1) == "C" else "°C"
        direction = "smaller" if new == "°F" else "larger"
        if not any(new in p for p in passages) and direction not in _forbidden(text, m.start(), m.end()):
            return text[: m.start()] + new + text[m.end():], f"{m.group()!r} -> {new!r}"
    return None


# --- entities ------------------------------------------------------------------------------------

_ENTITY = re.compile(r"\b[A-Z][\w'\u2019-]*(?:\s+(?:(?:of(?:\s+the)?|de|da|del|la|le|van|von)\s+)?[A-Z][\w'\u2019-]*)*")
_NOT_ENTITIES = frozenset(
    """The A An In On At It Its This That These Those They Their There Then When While If As
    For From To By With Of Since Until During Between But And Or So After Before Some Most Many All
    Every Each Few No Not He She His Her We Our You Your I However Although Because Unlike Like
    Also Both Either Neither Once""".split()
)
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
    matches = []
    mid: set[str] = set()
    for m in _ENTITY.finditer(text):
        before = text[: m.start()].rstrip()
        at_start = not before or before[-1] in ".!?:\"\u201c\n"
        matches.append((m.group().rstrip("'\u2019-"), at_start))
        if not at_start:
            mid.update(m.group().split())
    seen: dict[str, None] = {}
    for name, at_start in matches:
        head, _, rest = name.partition(" ")
        if rest and head in _NOT_ENTITIES:
            name, at_start = rest, False
        if name in _NOT_ENTITIES or len(name) < 2:
            continue
        if at_start and " " not in name and name not in mid:
            continue
        seen.setdefault(name, None)
    return list(seen)


def _kind(name: str) -> str:
    """A coarse type, so that a month is replaced by a month and an acronym by an acronym."""
    if name in _MONTH_NAMES:
        return "month"
    if name.replace(" ", "").isupper():
        return "acronym"
    return "name"


def _aliases(passage: str, a: str, b: str) -> bool:
    """Whether the passage introduces one name as another's alias ("A (B)", "A, also called B")."""
    for x, y in ((a, b), (b, a)):
        for m in re.finditer(re.escape(x), passage):
            rest = passage[m.end(): m.end() + 80]
            k = rest.find(y)
            if 0 <= k and _ALIAS.search(rest[:k]):
                return True
    return False


def _occurrences(name: str, text: str) -> list[re.Match[str]]:
    return list(re.finditer(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text))


def swap_entities(text: str, passages: Sequence[str] = ()) -> tuple[str, str] | None:
    """Swap two entities of the cited passage: when the sentence names two of them (not in a plain
    list like "A and B", nor in a symmetric relation like "A is as hardy as B"), exchange their
    places; otherwise replace the one it names by another entity of the same passage that is
    neither an alias of it nor listed with it ("A and B are toxic": "B" may do for "A")."""
    for passage in passages:
        names = entities(passage)
        present = [n for n in names if _occurrences(n, text)]
        present = [n for n in present if not any(n != o and n in o for o in present)]
        # A name in parentheses is an aside or an alias ("Pothos (Epipremnum aureum)"): leave it.
        present = [n for n in present if not text[: _occurrences(n, text)[0].start()].endswith("(")]
        spans = sorted(((_occurrences(n, text)[0], n) for n in present), key=lambda p: p[0].start())
        for (m1, n1), (m2, n2) in zip(spans, spans[1:]):
            if m2.start() < m1.end() or _LIST_LIKE.search(text[m1.end(): m2.start()]):
                continue
            if _aliases(passage, n1, n2):
                continue
            new = text[: m1.start()] + n2 + text[m1.end(): m2.start()] + n1 + text[m2.end():]
            return new, f"swapped {n1!r} and {n2!r}"
        for m, name in spans:
            for other in names:
                if other in present or other in name or name in other or _kind(other) != _kind(name):
                    continue
                if all(passage[: o.start()].endswith("(") for o in _occurrences(other, passage)):
                    continue  # only ever an alias in parentheses
                if _aliases(passage, name, other) or _listed_together(passage, name, other):
                    continue
                if _has_word(other, [text]):
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
    for w in _WORD.finditer(text):
        new = ANTONYMS.get(w.group().lower())
        before = text[: w.start()].split()[-1:]
        if before and before[0].lower() in _VERB_BEFORE:
            continue  # "left to dry": a verb, whose antonym adjective would not parse
        if w.group().lower() == "old" and before and before[0].lower().rstrip("s") in ("year", "month", "week", "day"):
            continue  # "two years old": an age, not the opposite of new
        if new and not _has_word(new, passages):
            new = _match_case(new, w.group())
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
        if old.lower() in ("every", "each") and after and (after[0][0].isdigit() or after[0].lower() in _NUMBER_WORDS or after[0].lower() in ("other", "one", "few")):
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
        if _has_word(new, passages):
            continue
        new = _match_case(new, old)
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
    pattern = re.compile(rf"(?<![\w-]){re.escape(stem)}", re.IGNORECASE)
    return any(pattern.search(t) for t in texts)


def append_clause(text: str, passages: Sequence[str] = ()) -> tuple[str, str] | None:
    """Append one of CLAUSES, chosen by a hash of the sentence, skipping any whose key stems a
    retrieved passage uses; None when every clause is used."""
    start = zlib.crc32(text.encode("utf-8")) % len(CLAUSES)
    for k in range(len(CLAUSES)):
        clause, keys = CLAUSES[(start + k) % len(CLAUSES)]
        if any(_mentions(key, passages) for key in keys):
            continue
        body, end = _split_end(text)
        return f"{body}, {clause}{end}", f"appended {clause!r}"
    return None


# --- citations -----------------------------------------------------------------------------------

_STOP = frozenset(
    """the and for with that this from are was were has have had its their they them than then
    which who what when where also into onto about over under more most some such only other been
    being can could may might must should will would not all any each every very""".split()
)
MOVE_MAX_OVERLAP = 0.34  # a passage sharing at most this share of the sentence's words cannot support it


def content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 2 and w not in _STOP}


def overlap(sentence: str, passage: str) -> float:
    """The share of the sentence's content words that the passage contains."""
    mine = content_words(sentence)
    return len(mine & content_words(passage)) / len(mine) if mine else 1.0


def move_citation(sentence: Sentence, answer: Answer) -> tuple[Sentence, str] | None:
    """Cite, instead, the retrieved passage with the least word overlap, if it shares at most a
    third of the sentence's content words (so it cannot support the sentence)."""
    if not sentence.citations:
        return None
    candidates = [
        (overlap(sentence.text, p.text), rank, p) for rank, p in enumerate(answer.passages)
        if p.id not in sentence.citations
    ]
    if not candidates:
        return None
    share, _, best = min(candidates, key=lambda c: (c[0], c[1]))
    if share > MOVE_MAX_OVERLAP:
        return None
    return Sentence(sentence.text, (best.id,)), f"cites {best.id!r} (shares {share:.0%} of its words) instead of {', '.join(sentence.citations)}"


def drop_citation(sentence: Sentence, answer: Answer) -> tuple[Sentence, str] | None:
    """Drop the sentence's citations: a claim with no source is not supported by one."""
    if not sentence.citations:
        return None
    return Sentence(sentence.text, ()), f"dropped the citation{'s' if len(sentence.citations) > 1 else ''} {', '.join(sentence.citations)}"


TEXT_OPS: dict[str, Callable[[str, Sequence[str]], tuple[str, str] | None]] = {
    "negation": negate,
    "number": change_number,
    "entity_swap": swap_entities,
    "antonym": antonym,
    "quantifier": change_quantifier,
    "unsupported_clause": append_clause,
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


def mutate_sentence(answer: Answer, index: int, operators: Sequence[str] = OPERATORS) -> list[Mutant]:
    """Every applicable operator's mutant of one sentence of the answer."""
    sentence = answer.sentences[index]
    cited = [p.text for p in answer.cited(sentence)[0]]
    every = [p.text for p in answer.passages]
    out = []
    for op in operators:
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


# --- judging mutants in a run --------------------------------------------------------------------


def supported_indices(answer: Answer, sentence_rows: Sequence[dict[str, Any]]) -> list[int]:
    """Positions of the answer's sentences that the tier judged supported (by position when the
    tier's rows line up with the answer's sentences, else by text)."""
    texts = [s.text for s in answer.sentences]
    if [r.get("text") for r in sentence_rows] == texts:
        return [i for i, r in enumerate(sentence_rows) if r.get("supported") is True]
    ok = {r.get("text") for r in sentence_rows if r.get("supported") is True}
    return [i for i, t in enumerate(texts) if t in ok]


def mutant_rows(tier: Any, answer: Answer, sentence_rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """Judge every mutant of every supported sentence with the tier's own judge.

    None when the tier has no ``judge`` with ``judge_many(pairs)``. Each row records the operator,
    the original and mutated sentence, and ``killed``: True when the judge called the mutant
    unsupported, False when it survived, None when the judge could not decide.
    """
    judge = getattr(tier, "judge", None)
    if judge is None or not callable(getattr(judge, "judge_many", None)):
        return None
    mutants = [m for i in supported_indices(answer, sentence_rows) for m in mutate_sentence(answer, i)]
    if not mutants:
        return []
    verdicts = judge.judge_many([(m.sentence.text, answer.cited(m.sentence)[0]) for m in mutants])
    rows = []
    for m, v in zip(mutants, verdicts):
        rows.append({
            "operator": m.operator,
            "index": m.index,
            "sentence": m.original.text,
            "mutant": m.sentence.text,
            "citations": list(m.sentence.citations),
            "change": m.change,
            "killed": None if v.supported is None else not v.supported,
            "score": v.score,
            "evidence": v.evidence,
            "reason": v.reason,
        })
    return rows


# --- aggregation on the controller ---------------------------------------------------------------


def kill_tally(items: Iterable[dict[str, Any]]) -> Tally:
    """Per (tier, operator): True for each mutant killed, False for each survivor, None unscored."""
    tally = Tally()
    for row in items:
        for m in row.get("mutants") or ():
            tally.add(row["tier"], m["operator"], m["killed"])
    return tally


def kill_rows(tally: Tally) -> list[MetricRow]:
    """The tally's rows, tiers in order and operators in the order of OPERATORS."""
    rows = tally.rows()
    order = {op: i for i, op in enumerate(OPERATORS)}
    tier_rank = {}
    for r in rows:
        tier_rank.setdefault(r.tier, len(tier_rank))
    return sorted(rows, key=lambda r: (tier_rank[r.tier], order.get(r.metric, len(order)), r.metric))


def not_mutated(items: Iterable[dict[str, Any]]) -> dict[str, str]:
    """Tiers that were asked to mutate but could not, with the reason."""
    return {row["tier"]: row["mutants_skipped"] for row in items if row.get("mutants_skipped")}


def _pct(x: float | None) -> str:
    """A percentage, with as many decimals as it takes for a rate that is not 0 or 1 never to read
    as 0% or 100% (2 survivors of 465 are "99.6%", not "100%")."""
    if x is None:
        return "-"
    text = f"{100 * x:.0f}"
    for decimals in (1, 2, 3):
        if not 0 < x < 1 or float(text) not in (0.0, 100.0):
            break
        text = f"{100 * x:.{decimals}f}"
    return f"{text}%"


def _kills(r: MetricRow) -> str:
    return f"{_pct(r.rate)} of {r.n} {PLURALS.get(r.metric, r.metric)} [{_pct(r.ci_low)}, {_pct(r.ci_high)}]"


def headline(tier: str, kills: Sequence[MetricRow], metrics: Sequence[MetricRow]) -> str:
    """"groundedness: grounded saturated 1.000 (3/3), but its weakest text operator kills 12% of 50
    entity swaps [5%, 24%]; its strongest, 97% of 120 negations [93%, 99%]": the tier's main metric,
    then its weakest and its strongest kill rate among the operators that change what a sentence
    says. The STRUCTURAL operators stay out of this line: they change what a sentence cites, and a
    judge that reads citations kills them by construction (a 100% there says nothing about meaning)."""
    mine = [m for m in metrics if m.tier == tier]
    main = next((m for name in ("grounded", "citation_recall") for m in mine if m.metric == name), mine[0] if mine else None)
    scored = [k for k in kills if k.n and k.metric not in STRUCTURAL]
    if not scored:
        structural = [k for k in kills if k.n]
        if not structural:
            return f"{tier}: no mutant could be scored"
        return f"{tier}: no text mutant could be scored; only structural ones ({', '.join(_kills(k) for k in structural)})"
    worst = min(scored, key=lambda k: (k.rate, -k.n))
    best = max(scored, key=lambda k: (k.rate, k.n))
    kills_text = f"its weakest text operator kills {_kills(worst)}"
    if best is not worst:
        kills_text += f"; its strongest, {_kills(best)}"
    if main is None or main.rate is None:
        return f"{tier}: {kills_text}"
    if main.kind == "rate":
        count = f"{main.k}/{main.n}"
        if main.saturated:
            return f"{tier}: {main.metric} saturated {main.rate:.3f} ({count}), but {kills_text}"
        interval = f"[{main.ci_low:.3f}, {main.ci_high:.3f}]"
        return f"{tier}: {main.metric} {main.rate:.3f} ({count}) {interval}; {kills_text}"
    if main.saturated:
        return f"{tier}: {main.metric} saturated mean {main.rate:.3f} (n={main.n}), but {kills_text}"
    return f"{tier}: {main.metric} mean {main.rate:.3f} (n={main.n}); {kills_text}"


# The kill-rate table's columns: each row counts mutants of one operator, killed out of scored.
KILL_TABLE_HEADER = ("tier", "operator", "killed/n", "kill rate", "95% CI", "flags")


def summary_lines(items: Sequence[dict[str, Any]], metrics: Sequence[MetricRow]) -> list[str]:
    """The mutation section of the terminal summary: a headline per tier, then the kill-rate table."""
    from .report import SATURATED_NOTE, UNDERPOWERED_NOTE, format_table

    rows = kill_rows(kill_tally(items))
    skipped = not_mutated(items)
    if not rows and not skipped:
        return []
    lines = ["mutation testing (mutants of supported sentences; never counted in the metrics above):"]
    tiers = list(dict.fromkeys(r.tier for r in rows))
    lines += [headline(t, [r for r in rows if r.tier == t], metrics) for t in tiers]
    if rows:
        table = format_table(rows, header=KILL_TABLE_HEADER)
        lines += [line for line in table if line not in (SATURATED_NOTE, UNDERPOWERED_NOTE)]
        if any(r.saturated for r in rows):
            lines.append("a saturated kill rate: every mutant of that operator was killed, or none was.")
        if any(r.underpowered for r in rows):
            lines.append("an underpowered kill rate: fewer than 30 mutants of that operator; read the interval.")
        if any(r.metric in STRUCTURAL for r in rows):
            lines.append(STRUCTURAL_NOTE)
    lines += [f"{tier}: {reason}" for tier, reason in sorted(skipped.items())]
    survivors = sum(1 for row in items for m in row.get("mutants") or () if m["killed"] is False)
    if survivors:
        lines.append(f"{survivors} surviving mutants, each with its evidence, are listed in --sprout-report")
    return lines


def mutation_report(items: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The report's "mutation" section: kill rates per (tier, operator) and every survivor."""
    rows = kill_rows(kill_tally(items))
    skipped = not_mutated(items)
    if not rows and not skipped:
        return {}
    survivors = [
        {"tier": row["tier"], "case_id": row["case_id"], "nodeid": row.get("nodeid"), **m}
        for row in sorted(items, key=lambda r: r.get("nodeid", ""))
        for m in row.get("mutants") or ()
        if m["killed"] is False
    ]
    kill_rates = [{**r.to_json(), "operator": r.metric, "structural": r.metric in STRUCTURAL} for r in rows]
    return {"mutation": {"kill_rates": kill_rates, "survivors": survivors, "not_mutated": skipped}}


def mutate_item(tier: Any, answer: Answer, sentence_rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """What run_item adds to an item row under --sprout-mutate: ``mutants`` or ``mutants_skipped``."""
    rows = mutant_rows(tier, answer, sentence_rows)
    return {"mutants_skipped": NO_JUDGE} if rows is None else {"mutants": rows}


__all__ = [
    "CITATION_OPS", "OPERATORS", "STRUCTURAL", "TEXT_OPERATORS", "TEXT_OPS", "Mutant", "kill_tally", "mutate_item",
    "mutate_sentence", "mutate_text", "mutant_rows", "mutation_report", "summary_lines",
]
