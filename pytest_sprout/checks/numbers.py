"""The number/unit mutation operator: change a number, a year, a percentage or a unit to a value
the cited passages do not give, in the direction that makes the claim false; and ``downward``,
which says whether a word stands where a stronger claim is implied by the original (after a
negation, in a condition). Pure functions."""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Iterable, Sequence

from .words import WORD, has_word, match_case

# --- numbers and units -------------------------------------------------------------------------

_NUMBER = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?![\d])(\s*%|[A-Za-z]+)?")
_UNIT_SUFFIXES = frozenset("cm mm m km kg g mg ml l h s st nd rd th".split())
NUMBER_WORDS = {
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
    """The numbers the texts write, as digits without thousands separators."""
    return set().union(*map(_numbers_of, texts))


@lru_cache(maxsize=256)  # a passage is read once for all the sentences that cite it
def _numbers_of(text: str) -> frozenset[str]:
    return frozenset(m.group().replace(",", "") for m in re.finditer(r"\d+(?:,\d{3})*(?:\.\d+)?", text))


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
    return head[: m.start()] + match_case(article, m.group(1)) + " "


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
        if not math.isfinite(value):
            continue  # 309 digits and more (a serial): no value to change by
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
        if value2 is not None and not math.isfinite(value2):
            continue
        seconds = _new_values(value2, is_year, False) if value2 is not None else [None] * len(firsts)
        for new, new2 in zip(firsts, seconds):
            if new < 0 or _fmt(new) in taken or (new2 is not None and _fmt(new2) in taken):
                continue
            if _direction(value, new) in forbidden or not _whole_enough(value, new):
                continue
            if tail is None or value2 is None or new2 is None:
                return text[: m.start()] + _fmt(new) + text[end:], f"{text[m.start():end]!r} -> {_fmt(new)!r}"
            if not _whole_enough(value2, new2):
                continue
            if _direction(value2, new2) != _direction(value, new) or new2 <= new:
                continue  # both ends of a range move the same way, and it stays a range
            replaced = f"{_fmt(new)}{tail.group(1)}{_fmt(new2)}"
            return text[: m.start()] + replaced + text[tail.end():], f"{text[m.start():tail.end()]!r} -> {replaced!r}"
    for w in WORD.finditer(text):
        low = w.group().lower()
        if low in NUMBER_WORDS and re.search(r"\bor\s*$", text[: w.start()]):
            continue  # "one or two": changing the upper end leaves the lower one true
        swaps = [s for s in (NUMBER_WORDS.get(low) or _UNIT_SWAPS.get(low), _UNIT_SWAPS_BACK.get(low)) if s]
        if not swaps:
            continue
        unit = re.match(r"\s*([A-Za-z\u00b0]+)", text[w.end():])
        end = w.end() + (unit.end() if low in NUMBER_WORDS and unit and unit.group(1).lower() in _UNIT_SIZE else 0)
        forbidden = _forbidden(text, w.start(), end, unit=low not in NUMBER_WORDS)
        for swap in swaps:
            if low in NUMBER_WORDS:
                direction = _direction(_WORD_VALUES[low], _WORD_VALUES.get(swap, 0))
            else:
                direction = _direction(_UNIT_SIZE.get(low, 0), _UNIT_SIZE.get(swap.lower(), 0))
            if direction in forbidden or has_word(swap, passages):
                continue
            return _article(text[: w.start()], swap) + match_case(swap, w.group()) + text[w.end():], f"{w.group()!r} -> {swap!r}"
    degrees = re.search(r"°\s*([CF])\b", text)
    if degrees:
        scale = "°F" if degrees.group(1) == "C" else "°C"
        direction = "smaller" if scale == "°F" else "larger"
        if not any(scale in p for p in passages) and direction not in _forbidden(text, degrees.start(), degrees.end()):
            return text[: degrees.start()] + scale + text[degrees.end():], f"{degrees.group()!r} -> {scale!r}"
    return None
