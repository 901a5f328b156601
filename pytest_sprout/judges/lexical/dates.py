"""Dates of a sentence ("March 3, 2011", "the 3rd of March", "2011-03-03"), compared by value."""

from __future__ import annotations

import re

from .numbers import Number
from .text import MONTHS

MONTH_NUMBERS = {name: k + 1 for k, name in enumerate(
    "january february march april may june july august september october november december".split())}
_MONTH_NAME_OF = {number: name for name, number in MONTH_NUMBERS.items()}
ORDINAL_SUFFIXES = frozenset({"st", "nd", "rd", "th"})
_MONTH_TOKENS = frozenset(MONTHS)
_ISO_TAIL = re.compile(r"-\s*\d\d\s*-\s*\d\d")  # an ISO date after its year, found fast from its dash


def has_iso_date(text: str) -> bool:
    """Whether ``text`` matches "\\d{4}\\s*-\\s*\\d\\d\\s*-\\s*\\d\\d": its tail, then the year before it."""
    for m in _ISO_TAIL.finditer(text):  # a failed tail holds no dash a date could start from
        j = m.start()
        while j and text[j - 1].isspace():  # ``\s``: what str.isspace says
            j -= 1
        if j >= 4 and text[j - 4 : j].isdecimal():  # ``\d``: a decimal digit
            return True
    return False


class Date(Number):
    """A date: its month (1-12), and its year and day or None; its value is yyyymmdd (zeros for what
    is not stated), its unit "date". A claim's date matches one with the same month, day if it has
    one, and year, or no year where it has a day ("3 March" supports "March 3, 2011")."""

    __slots__ = ("year", "month", "day")

    def __init__(self, year: int | None, month: int, day: int | None, words: tuple[str, ...]) -> None:
        code = float((year or 0) * 10000 + month * 100 + (day or 0))
        super().__init__(code, code, "date", words)
        self.year, self.month, self.day = year, month, day

    def same_amount(self, other: Number) -> bool:
        if not isinstance(other, Date):
            # a month and year ("March 2011") against a bare year of the evidence: the month is a
            # word the coverage checks; a date with a day needs a date
            return self.day is None and self.year is not None and other.unit is None and (
                other.lo == other.hi == self.year)
        if self.month != other.month or (self.day is not None and other.day != self.day):
            return False
        if self.year is not None and other.year != self.year:
            return other.year is None and self.day is not None  # the evidence does not say the year
        return True

    matches = same_amount  # no bounds

    @property
    def key(self) -> str:
        return f"#date{self.year or ''}-{self.month}-{self.day or ''}"


def _small_day(w: str) -> int | None:
    if len(w) <= 2 and w.isdecimal() and 1 <= int(w) <= 31:
        return int(w)
    return None


def _year(w: str) -> int | None:
    if len(w) == 4 and w.isdecimal() and 1000 <= int(w) <= 2999:
        return int(w)
    return None


def find_dates(words: list[str] | tuple[str, ...]) -> list[tuple[int, int, int | None, Date]]:
    """The dates of a sentence's tokens: (first token, end token, index of an ISO date's month
    token or None, the date). A month name alone is not a date: it needs a day or a year."""
    out: list[tuple[int, int, int | None, Date]] = []
    n = len(words)
    taken = -1
    for i, w in enumerate(words):
        if i < taken:
            continue
        if w in _MONTH_TOKENS:
            if w == "may" and not (  # the modal, unless a number is next to it
                    (i + 1 < n and words[i + 1][:1].isdecimal()) or (i and words[i - 1][:1].isdecimal())
                    or (i >= 2 and words[i - 1] == "of" and words[i - 2] in ORDINAL_SUFFIXES)):
                continue
            month = MONTH_NUMBERS[MONTHS[w]]
            start, end, day, year = i, i + 1, None, None
            # a day before: "3 March", "3rd March", "3rd of March"
            k, of = i - 1, False
            if k >= 2 and words[k] == "of" and words[k - 1] in ORDINAL_SUFFIXES:
                k, of = k - 1, True
            if k >= 1 and words[k] in ORDINAL_SUFFIXES:
                k -= 1
            elif of:
                k = -1
            if k >= 0 and k >= taken:
                day = _small_day(words[k])
                if day is not None:
                    start = k
            if day is None and end < n:  # a day after: "March 3", "March 3rd"
                day = _small_day(words[end])
                if day is not None:
                    end += 1
                    if end < n and words[end] in ORDINAL_SUFFIXES:
                        end += 1
            j = end + 1 if end < n and words[end] in (",", "of") else end
            if j < n:
                year = _year(words[j])
                if year is not None:
                    end = j + 1
            if day is None and year is None:
                continue
            out.append((start, end, None, Date(year, month, day, tuple(words[start:end]))))
            taken = end
        elif len(w) == 4 and i + 4 < n and words[i + 1] == "-" and words[i + 3] == "-":  # "2011-03-03"
            year = _year(w)
            mm, dd = words[i + 2], words[i + 4]
            if year is None or len(mm) != 2 or len(dd) != 2 or not (mm.isdecimal() and dd.isdecimal()):
                continue
            month, day = int(mm), int(dd)
            if 1 <= month <= 12 and 1 <= day <= 31:
                out.append((i, i + 5, i + 2, Date(year, month, day, tuple(words[i : i + 5]))))
                taken = i + 5
    return out


def month_name(month: int) -> str:
    return _MONTH_NAME_OF[month]
