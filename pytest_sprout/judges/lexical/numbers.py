"""Numbers of a sentence: values, ranges, units, bounds; compared by value, not by string."""

from __future__ import annotations

import math
from operator import itemgetter
from typing import Sequence

from .text import (
    _CURRENCIES, _LEXICON, _PERIOD_ADVERBS, _PERIOD_WORDS_BEFORE, _RANGE_WORDS,
    _EVERY_NTH, _TENS, _VAGUE, _WEAK_NUMBER_WORDS, CONTENT, MONTH_NAMES, MONTHS, NUMBER_WORDS, PERIOD, UNITS, _MULTIPLIERS,
)

# Words before a number that bound it: "at least 6 hours", "up to 2 m", "above 10°C".
_BOUNDS: dict[tuple[str, ...], str] = {
    ("no", "more", "than"): "max", ("not", "more", "than"): "max", ("no", "less", "than"): "min",
    ("not", "less", "than"): "min", ("no", "fewer", "than"): "min", ("at", "least"): "min",
    ("at", "most"): "max", ("more", "than"): "min", ("less", "than"): "max", ("fewer", "than"): "max",
    ("up", "to"): "max", ("over",): "min", ("above",): "min", ("exceeding",): "min", ("under",): "max",
    ("below",): "max", ("within",): "max", ("about",): "about", ("around",): "about",
    ("approximately",): "about", ("roughly",): "about", ("nearly",): "about", ("almost",): "about",
}
_BOUND_LAST = frozenset(words[-1] for words in _BOUNDS)
_MULTIPLIER_WORDS = frozenset(_MULTIPLIERS)
_FIRST = itemgetter(0)


def _bound_before(words: list[str], first: int) -> tuple[str | None, int]:
    """The bound written just before words[first], and where its words start."""
    if not first or words[first - 1] not in _BOUND_LAST:
        return None, first
    for size in (3, 2, 1):
        if first >= size:
            bound = _BOUNDS.get(tuple(words[first - size : first]))
            if bound is not None:
                return bound, first - size
    return None, first


class Number:
    """A number of a sentence: a value or a range, its unit (None when it has none), its bound
    ("min" for "at least", "max" for "up to", "about", or None) and the words that wrote it.
    "a few days" is -1 days, "several" -2; a frequency's unit is "/day", "/week"... ("twice a
    week" is 2 /week); "a day" is 1 day with ``per`` "/day": a duration or a rate."""

    __slots__ = ("lo", "hi", "unit", "bound", "bare", "scaled", "per", "huge", "_words")

    def __init__(
        self, lo: float, hi: float, unit: str | None, words: tuple[str, ...], bound: str | None = None,
        bare: bool = False, per: str | None = None,
    ) -> None:
        self.lo, self.hi, self.unit, self.bound = lo, hi, unit, bound
        self.bare = bare  # no unit and no noun after it: "10" in "10, 12 or 15 cm"
        self.per = per  # "a day": also once "/day"
        self._words = words  # the tokens that wrote it; spelled out only for a failure message
        self.scaled = not _MULTIPLIER_WORDS.isdisjoint(words)  # "3.5 million": a rounded value
        self.huge = lo in _INFINITE or hi in _INFINITE

    @property
    def exact(self) -> tuple:
        """(lo, hi, unit, bound): two numbers with the same ``exact`` always match."""
        return (self.lo, self.hi, self.unit, self.bound) if not self.huge else (self._words, self.unit, self.bound)

    @property
    def text(self) -> str:
        return _spell(self._words)

    def same_amount(self, other: Number) -> bool:
        """Same value or range, and the same unit; a bare number goes with any unit. "3.5 million"
        matches within 5%; a year alone matches a date's year; a frequency matches only the same
        rate ("daily", "once a day") or "a day"; a number too large for a float, only its digits."""
        if self.huge or other.huge:
            return self.huge and other.huge and self._words == other._words and self.unit == other.unit
        if self.unit in FREQUENCY_UNITS or other.unit in FREQUENCY_UNITS:
            rate, other = (self, other) if self.unit in FREQUENCY_UNITS else (other, self)
            if other.unit == rate.unit:
                return rate.lo == other.lo and rate.hi == other.hi
            if other.unit in FREQUENCY_UNITS:  # "every 18 months" and "every 1.5 years"
                return _same_rate(rate, other)
            return other.per == rate.unit and rate.lo == rate.hi == 1.0
        if other.unit == "date":
            return self.unit is None and self.lo == self.hi == other.year  # type: ignore[attr-defined]
        if self.unit != other.unit and self.unit in _CONVERSIONS and other.unit in _CONVERSIONS:
            return _same_converted(self, other)
        if (self.lo != other.lo or self.hi != other.hi) and (
                not (self.scaled or other.scaled) or not (_close(self.lo, other.lo) and _close(self.hi, other.hi))):
            return False
        if self.unit == other.unit:
            return True
        # a bare number goes with any unit ("10, 12 or 15 cm"), but not with "a day"
        return (self.unit is None and self.bare and other.per is None) or (
            other.unit is None and other.bare and self.per is None)

    def matches(self, other: Number) -> bool:
        """The same amount, and not "at least" on one side where the other says "at most"."""
        return self.same_amount(other) and not (
            self.bound != other.bound and self.bound in ("min", "max") and other.bound in ("min", "max")
        )

    @property
    def key(self) -> str:
        if self.huge:
            return "#" + "".join(self._words)
        value = _fmt(self.lo) if self.lo == self.hi else f"{_fmt(self.lo)}-{_fmt(self.hi)}"
        return f"#{value}{self.unit or ''}"


# Unit -> (dimension, factor to its base unit); a month is no whole number of days, so durations
# from a month up are in months. Temperatures convert by formula.
_CONVERSIONS: dict[str, tuple[str, float]] = {
    "mm": ("length", 0.001), "cm": ("length", 0.01), "m": ("length", 1.0), "km": ("length", 1000.0),
    "inch": ("length", 0.0254), "ft": ("length", 0.3048), "yd": ("length", 0.9144), "mile": ("length", 1609.344),
    "mg": ("mass", 1e-6), "g": ("mass", 0.001), "kg": ("mass", 1.0), "lb": ("mass", 0.45359237),
    "oz": ("mass", 0.028349523125),
    "ml": ("volume", 0.001), "l": ("volume", 1.0), "gallon": ("volume", 3.785411784), "cup": ("volume", 0.2365882365),
    "tbsp": ("volume", 0.01478676478125), "tsp": ("volume", 0.00492892159375),
    "second": ("time", 1.0), "minute": ("time", 60.0), "hour": ("time", 3600.0), "day": ("time", 86400.0),
    "week": ("time", 604800.0),
    "month": ("months", 1.0), "year": ("months", 12.0), "decade": ("months", 120.0), "century": ("months", 1200.0),
    "°c": ("temperature", 1.0), "°f": ("temperature", 1.0),
}
CONVERTIBLE_UNITS = frozenset(_CONVERSIONS)


def dimension_of(unit: str | None) -> str | None:
    """The dimension a unit converts in ("cm" -> "length", "/week" -> "/time"), or None."""
    if unit in FREQUENCY_UNITS:
        return "/" + _CONVERSIONS[unit[1:]][0]
    found = _CONVERSIONS.get(unit or "")
    return found[0] if found is not None else None


def _in_base(value: float, unit: str) -> float:
    if unit == "°f":
        return (value - 32.0) * 5.0 / 9.0
    return value * _CONVERSIONS[unit][1]


def _same_converted(a: Number, b: Number) -> bool:
    """Two amounts in units of one dimension, the same once converted ("10 kg" and "23 lb") within
    5% or 1 degree Celsius; durations exactly ("8 weeks" is 56 days, not 54); vague ones never."""
    dimension = _CONVERSIONS[a.unit][0]  # type: ignore[index]
    if dimension != _CONVERSIONS[b.unit][0] or a.per is not None or b.per is not None:  # type: ignore[index]
        return False
    if dimension != "temperature" and (a.lo <= 0 or b.lo <= 0):
        return False
    pairs = ((_in_base(a.lo, a.unit), _in_base(b.lo, b.unit)), (_in_base(a.hi, a.unit), _in_base(b.hi, b.unit)))  # type: ignore[arg-type]
    if dimension == "temperature":
        return all(abs(x - y) <= 1.0 for x, y in pairs)
    tolerance = _EXACT if dimension in _EXACT_DIMENSIONS else 0.05
    return all(abs(x - y) <= tolerance * max(x, y) for x, y in pairs)


_EXACT_DIMENSIONS = frozenset({"time", "months"})
_EXACT = 1e-9  # "the same" for amounts that convert by whole factors: float rounding only


def _same_rate(a: Number, b: Number) -> bool:
    """Two frequencies over periods of one dimension with the same rate once converted."""
    (dimension, size), (other, other_size) = _CONVERSIONS[a.unit[1:]], _CONVERSIONS[b.unit[1:]]  # type: ignore[index]
    if dimension != other:
        return False
    return all(abs(x / size - y / other_size) <= _EXACT * max(x / size, y / other_size)
               for x, y in ((a.lo, b.lo), (a.hi, b.hi)))


def _close(a: float, b: float) -> bool:
    return a == b or (a > 0 and b > 0 and abs(a - b) <= 0.05 * max(a, b))


def _spell(words: Sequence[str]) -> str:
    """Tokens back to text: "10 - 15 cm" -> "10-15 cm", "15 ° c" -> "15°c"."""
    out = ""
    for w in words:
        if out and not (w in ("%", "°", "-", "–", "—", ",", "st", "nd", "rd", "th") or out[-1] in "°-–—$€£"):
            out += " "
        out += w
    return out


_INFINITE = (math.inf, -math.inf)


def _fmt(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"


def _number_at(words: list[str], i: int) -> tuple[float, int] | None:
    """The number written from words[i] on, and the index after it; None if there is none."""
    w = words[i]
    if "0" <= w[0] <= "9":
        value = float(w.replace(",", "") if "," in w else w)
        j = i + 1
    elif w in NUMBER_WORDS:
        value = float(NUMBER_WORDS[w])
        j = i + 1
        if w in _TENS and j < len(words):  # "twenty-five", "twenty five"
            k = j + 1 if words[j] == "-" and j + 1 < len(words) else j
            ones = NUMBER_WORDS.get(words[k], 0)
            if 1 <= ones <= 9 and words[k] not in _WEAK_NUMBER_WORDS:
                value += ones
                j = k + 1
    else:
        return None
    while j < len(words):  # "2 million", "two hundred thousand", "$ 10 - million" (a tokenised "10-million")
        if words[j] in _MULTIPLIERS:
            value *= _MULTIPLIERS[words[j]]
            j += 1
        elif words[j] == "-" and j + 1 < len(words) and words[j + 1] in _MULTIPLIERS:
            value *= _MULTIPLIERS[words[j + 1]]
            j += 2
        else:
            break
    return value, j


def _unit_at(words: list[str], j: int) -> tuple[str | None, int]:
    """The unit written at words[j] ("cm", "°C", "per cent", a month), and the index after it."""
    w = words[j] if j < len(words) else ""
    if w not in _UNIT_STARTS:  # most numbers: no unit, or a plain one
        return None, j
    if w in _PLAIN_UNITS:
        return UNITS[w], j + 1
    start = j
    if j < len(words) and words[j] == "-":  # "10-year", "5-cm"
        j += 1
    if j >= len(words):
        return None, start
    w = words[j]
    if w == "°" or w in ("degree", "degrees"):
        nxt = words[j + 1] if j + 1 < len(words) else ""
        if nxt in ("c", "celsius", "centigrade"):
            return "°c", j + 2
        if nxt in ("f", "fahrenheit"):
            return "°f", j + 2
        return UNITS[w], j + 1
    if w == "per" and j + 1 < len(words) and words[j + 1] == "cent":
        return "%", j + 2
    if w in UNITS:
        return UNITS[w], j + 1
    if w in MONTHS:
        return MONTHS[w], j + 1
    return None, start


_PLAIN_UNITS = frozenset(UNITS) - {"°", "degree", "degrees"}

# --- frequencies -------------------------------------------------------------------------------
# A period of n units is written in the largest unit it fills whole ("every 14 days" is every 2
# weeks, "every 24 hours" daily), so equal rates get equal values.
_LARGER = {"second": ("minute", 60), "minute": ("hour", 60), "hour": ("day", 24), "day": ("week", 7),
           "month": ("year", 12), "year": ("decade", 10), "decade": ("century", 10)}
_PERIOD_UNITS = frozenset(("second", "minute", "hour", "day", "week", "month", "year", "decade", "century"))
FREQUENCY_UNITS = frozenset("/" + u for u in _PERIOD_UNITS)
_ADVERB_PERIODS = {"fortnight": (2.0, "week")}  # "fortnightly": every 2 weeks
_COUNT_WORDS = {"once": 1.0, "twice": 2.0, "thrice": 3.0}


def _rate(count: tuple[float, float], periods: tuple[float, float], unit: str) -> tuple[float, float, str]:
    """(lo, hi, "/unit"): ``count`` times (a range) every ``periods`` units (a range)."""
    lo_n, hi_n = periods
    while unit in _LARGER:
        larger, size = _LARGER[unit]
        if lo_n % size or hi_n % size:
            break
        lo_n, hi_n, unit = lo_n / size, hi_n / size, larger
    lo, hi = count[0] / hi_n, count[1] / lo_n
    return (lo, hi, "/" + unit) if lo <= hi else (hi, lo, "/" + unit)


def _count_before(words: list[str], k: int) -> tuple[tuple[float, float], int] | None:
    """The count written just before words[k] ("once", "twice", "3 times", "2-3 times") and where it
    starts; None if there is none."""
    w = words[k - 1] if k else ""
    if w in _COUNT_WORDS:
        return (_COUNT_WORDS[w], _COUNT_WORDS[w]), k - 1
    if w != "times" or k < 2:
        return None
    end = k - 1
    for first in range(max(end - 5, 0), end):  # the numeral, or range, that ends right before "times"
        found = _range_at(words, first, end, _COUNT_RANGE_WORDS)
        if found is not None and found[2] == end:
            return (min(found[:2]), max(found[:2])), first
    return None


_COUNT_RANGE_WORDS = _RANGE_WORDS | {"or"}  # "2 or 3 times"


def _range_at(words: list[str], i: int, end: int, joiners: frozenset[str] = _RANGE_WORDS) -> tuple[
        float, float, int] | None:
    """The number or range ("2 to 3") written from words[i], before ``end``: (first, second, index after)."""
    found = _number_at(words, i)
    if found is None:
        return None
    lo, j = found
    if j + 1 < end and words[j] in joiners:
        second = _number_at(words, j + 1)
        if second is not None:
            return lo, second[0], second[1]
    return lo, lo, j


def _frequencies(words: list[str], starts: Sequence[int], periods: Sequence[int]) -> list[tuple[int, int, Number]]:
    """The frequencies of a sentence as (first token, token after, Number): "daily", "twice a week",
    "every 3 days", "once every 2-3 weeks", "per year"; not "a day" without a count (``find_numbers``)."""
    found: list[tuple[int, int, Number]] = []
    n = len(words)
    for i in starts:  # "every 3 days", "every 2 to 3 weeks"
        if not i or words[i - 1] not in ("every", "each"):
            continue
        number = _range_at(words, i, n)
        if number is None:
            continue
        lo, hi, j = number
        unit, end = _unit_at(words, j)
        if unit not in _PERIOD_UNITS or lo <= 0 or hi <= 0:
            continue
        first, count = i - 1, (1.0, 1.0)
        counted = _count_before(words, first)
        if counted is not None:
            count, first = counted
        bound, first = _bound_before(words, first)
        found.append((first, end, Number(*_rate(count, (min(lo, hi), max(lo, hi)), unit), tuple(words[first:end]),
                                         bound)))
    for i in periods:  # "daily", "twice a week", "per year"
        w = words[i]
        if w in _PERIOD_ADVERBS:
            unit = _PERIOD_ADVERBS[w]
            size, unit = _ADVERB_PERIODS.get(unit, (1.0, unit))
            k = i
        else:
            unit = UNITS.get(w)
            if unit not in _PERIOD_UNITS:
                continue
            if w == "second" and i + 1 < len(words) and UNITS.get(words[i + 1]) in _PERIOD_UNITS:
                continue  # "every second week": an ordinal, read with the week
            k = i - 1
            if k >= 1 and words[k] in _EVERY_NTH and words[k - 1] in ("every", "each"):  # "every other day"
                size, k = _EVERY_NTH[words[k]], k - 1
            else:
                if k >= 1 and words[k] == "-":  # a tokenised "per - year"
                    k -= 1
                if k < 0 or words[k] not in _PERIOD_WORDS_BEFORE:
                    continue
                size = 1.0
        counted = _count_before(words, k)
        if counted is None and words[k] in ("a", "an"):
            continue  # "a day": a duration or a rate, see find_numbers
        count, first = counted if counted is not None else ((1.0, 1.0), k)
        bound, first = _bound_before(words, first)
        found.append((first, i + 1, Number(*_rate(count, (size, size), unit), tuple(words[first : i + 1]), bound)))
    if len(found) > 1:
        found.sort(key=_FIRST)
    return found


_UNIT_STARTS = frozenset(UNITS) | frozenset(MONTHS) | {"-", "per"}


def find_numbers(words: list[str], starts: Sequence[int] | None = None, periods: Sequence[int] = (),
                 dates: Sequence[tuple[int, int, int | None, Number]] = ()) -> list[Number]:
    """The numbers of a sentence, with their ranges, units and bounds: read from the numerals at
    ``starts`` (all when None), the period words at ``periods`` that state an amount without one
    ("every week") and the dates ``dates.find_dates`` found, in order."""
    numbers: list[Number] = []
    n = len(words)
    done = -1
    consumed: set[int] = set()
    if starts is None:
        starts = [i for i in range(n) if words[i] in NUMBER_WORDS or "0" <= words[i][0] <= "9"]
    rates = _frequencies(words, starts, periods)
    in_rate: set[int] = set()
    for first, end, _ in rates:
        in_rate.update(range(first, end))
    # dates and frequencies, put in order among the other numbers
    pending = sorted([(d[0], d[3]) for d in dates] + [(r[0], r[2]) for r in rates], key=_FIRST) if (
        dates or rates) else []
    for i in starts:
        while pending and pending[0][0] < i:
            numbers.append(pending.pop(0)[1])
        if i < done or i in in_rate:
            continue
        w = words[i]
        if "0" <= w[0] <= "9" and (i + 1 == n or (words[i + 1] not in _MULTIPLIERS and words[i + 1] != "-")):
            lo, j = float(w.replace(",", "") if "," in w else w), i + 1
        else:
            found = _number_at(words, i)
            if found is None:
                continue
            lo, j = found
        hi = lo
        if j + 1 < n and (words[j] in _RANGE_WORDS or (words[j] == "and" and i > 0 and words[i - 1] == "between")):
            hi, j = _range_end(words, lo, j)
        unit, after = _unit_at(words, j)
        if unit is not None and lo == hi and after + 1 < n and words[after] in _RANGE_WORDS:
            second = _number_at(words, after + 1)  # "10 cm to 15 cm"
            if second is not None and _unit_at(words, second[1])[0] == unit:
                hi, j = second[0], second[1]
                after = _unit_at(words, j)[1]
        first = i
        if unit is None and i > 0 and words[i - 1] in _CURRENCIES:
            unit, first = _CURRENCIES[words[i - 1]], i - 1
        elif unit is None and i > 0 and words[i - 1] in MONTHS:
            unit, first = MONTHS[words[i - 1]], i - 1
        previous_end, done = done, max(j, after)
        bound, first = _bound_before(words, first)
        if bound is None and numbers and first == previous_end + 1 and words[previous_end] == "(":
            bound = numbers[-1].bound  # "above 10°C (50°F)": the conversion has the bound of what it converts
        if words[i] in _WEAK_NUMBER_WORDS and (unit is None or unit in MONTH_NAMES) and bound is None:
            continue  # "one of them", but "at least one hole"
        bare = unit is None and (j >= n or _LEXICON[words[j]][0] not in (CONTENT, PERIOD))
        if hi < lo:
            lo, hi = hi, lo
        numbers.append(Number(lo, hi, unit, tuple(words[first:done]), bound, bare))
        if periods:
            consumed.update(range(first, done))
    numbers.extend(number for _, number in pending)
    if periods:
        numbers.extend(_amounts_of_periods(words, periods, consumed, in_rate))
    return numbers


def _range_end(words: list[str], lo: float, j: int) -> tuple[float, int]:
    """The upper end of a range whose range word is ``words[j]`` ("5 to 10", "5-to-4", "between 2
    and 3", "2018-19"), and the token after it; ``(lo, j)`` when no number follows."""
    n = len(words)
    skip = 3 if words[j] == "-" and words[j + 1 : j + 3] == ["to", "-"] else 1  # "5-to-4"
    second = _number_at(words, j + skip) if j + skip < n else None
    if second is None:
        return lo, j
    hi, j = second
    if hi < lo and 1000 <= lo < 3000 and len(words[j - 1]) == 2 and words[j - 1].isdecimal():
        hi += lo // 100 * 100  # "2018-19" is 2018 to 2019, "1999-00" 1999 to 2000
        if hi <= lo:
            hi += 100
    return hi, j


def _amounts_of_periods(words: list[str], periods: Sequence[int], consumed: set[int], in_rate: set[int]) -> list[Number]:
    """The amounts stated by period words without a numeral, those read with a number
    (``consumed``) or a frequency (``in_rate``) aside: "a day" (1 day), "a few hours", "for years"."""
    numbers = []
    for i in periods:
        if i in consumed or i in in_rate:
            continue
        w = words[i]
        prev = words[i - 1]
        if prev == "-" and i >= 2:  # a tokenised "per - year"
            prev = words[i - 2]
        if prev in _VAGUE:  # "a few days"
            value, start = _VAGUE[prev], i - 2 if words[i - 2 : i - 1] == ["a"] else i - 1
        elif prev in _PERIOD_WORDS_BEFORE:  # "a day": 1 day, or once a day
            value, start = 1.0, i - 1
        else:  # "within hours", "for years"
            value, start = -3.0, i
        bound, first = _bound_before(words, start)
        first = min(first, i - 1) if value == -3.0 else first
        per = "/" + UNITS[w] if value == 1.0 and UNITS[w] in _PERIOD_UNITS else None
        numbers.append(Number(value, value, UNITS[w], tuple(words[first : i + 1]), bound, per=per))
    return numbers
