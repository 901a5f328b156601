"""Deterministic, offline groundedness judge: lexical coverage plus rules that must agree.

A claim is supported by the passages it cites when a window of up to ``window`` consecutive
sentences of one cited passage, among those that cover the most of the claim,

1. covers at least ``coverage`` of the claim's content keys (lower-cased, lightly stemmed words;
   stopwords, numbers with their units, negations, quantifiers and modals left out: the rules
   below check those) -- rule "coverage",
2. contains every name of the claim, a word it capitalises mid-sentence ("Boston fern") --
   rule "entity",
3. contains every number of the claim with its range, unit and bound ("10-15 cm", "15°C",
   "six weeks", "at least 6 hours", "every week") -- rule "number",
4. agrees on quantifiers and modals, clause by clause (all/most/some/few/none,
   always/often/sometimes/rarely/never, more/less, must/should/may) -- rule "quantifier",
5. agrees on negation, clause by clause -- rule "negation", and
6. does not show, by word order, that the claim swapped two entities of the evidence
   ("cats are more sensitive than dogs" -> "dogs ... than cats") -- rule "entity-swap".

A claim that cites nothing is unsupported -- rule "uncited". The rules run in that order. Only the
windows of best coverage are judged (single sentences before pairs), so a window that covers
less of the claim cannot rescue a claim the best one contradicts. Sentence analysis of passages
is cached by passage text (the 4,096 most recent passages).

Speed (bench/bench_lexical.py; docs/BENCHMARKS.md): each cached passage keeps, per word, a bit
mask of the sentences that hold it (and of the pairs of neighbours), so the sentences that cover a
whole claim are one AND over the claim's words. When one exists, the best windows are known without
the search over every window: a claim supported by such a sentence (the common case) costs its
analysis and one pass of the rules. A claim copied from its passage reuses the passage's analysis
and skips the rules, which cannot fail a sentence against itself. None of this changes a verdict:
tests/test_lexical.py checks each shortcut against what it replaces.
"""

from __future__ import annotations

import re
from functools import lru_cache
from operator import itemgetter
from typing import Iterable, NamedTuple, Sequence

from pytest_sprout.model import Passage, Verdict, split_sentences

__all__ = ["LexicalJudge"]

RULES_VERSION = 1  # bump when a rule changes what it decides: it is part of settings()

# --- word lists -------------------------------------------------------------------------------

STOPWORDS = frozenset(
    """a an the this that these those there here it its itself they them their theirs themselves
    he him his himself she her hers herself we us our ours ourselves you your yours yourself
    yourselves i me my mine myself one ones who whom whose which what when where why how whether
    is are was were be been being am do does did doing done have has had having get gets got
    will would shall to of in on at by for with from into onto upon about above below over under
    between among through during before after until till against toward towards around across
    along within out off up down as than like unlike such so too very just also only even still
    yet already again ever then thus hence therefore and or but if because since while although
    though whereas however unless except instead either both each every any other another same
    own much lot lots quite rather really well also per via etc e.g i.e s""".split()
)

NEGATIONS = frozenset(
    "not no never without none nor neither nothing nobody nowhere cannot".split()
)

# word -> (class, family). Words of one family are interchangeable.
QUANTIFIERS: dict[str, tuple[str, str]] = {}
for _cls, _families in {
    "quantity": {
        "all": "all",
        "most": "most",
        "many": "many",
        "some": "some several a_few certain various",
        "few": "few",
        "none": "none",
    },
    "frequency": {
        "always": "always",
        "often": "often frequently usually generally typically normally commonly",
        "sometimes": "sometimes occasionally",
        "rarely": "rarely seldom",
        "never": "never",
    },
    "degree": {"more": "more", "less": "less fewer"},
    "modality": {
        "must": "must",
        "should": "should ought",
        "may": "may might could can cannot perhaps possibly potentially probably likely",
    },
}.items():
    for _family, _words in _families.items():
        for _word in _words.split():
            QUANTIFIERS[_word.replace("_", " ")] = (_cls, _family)
# Upward scales: a claim may say less than its evidence ("some" where the evidence says "most").
# Families off the scales (few, none, rarely, never) must match exactly.
STRENGTH = {"some": 1, "many": 2, "most": 3, "all": 4, "sometimes": 1, "often": 2, "always": 3,
            "may": 1, "should": 2, "must": 3}
# A claim may not add these when the evidence has no word of their class (it would overclaim).
CLAIM_ONLY_FLAGGED = frozenset({"all", "always", "few", "rarely", "seldom"})
# A claim may not drop these hedges when it has no word of their class.
EVIDENCE_ONLY_FLAGGED = frozenset(
    {"some", "several", "a few", "few", "sometimes", "occasionally", "rarely", "seldom", "may", "might",
     "perhaps", "possibly"}
)
# "all" in these idioms is no quantifier: "all over", "at all", "after all".
_ALL_IDIOM_NEXT = frozenset({"over", "along", "around", "alone", "together", "too", "right"})
_ALL_IDIOM_PREV = frozenset({"at", "after", "above"})
# A negation followed by these does not negate: "not only", "no matter", "not unusual" (and un-/non- words).
_NEGATION_EXEMPT_NEXT = frozenset({"only", "just", "merely", "simply", "matter", "doubt", "impossible", "infrequent"})

_COMPARATIVES = frozenset({"more", "less", "fewer"})

# Words that end a clause (the scope of a negation or quantifier); punctuation and dashes do too.
CLAUSE_BREAKS = frozenset(
    """but although though whereas while because however yet unless except instead whereby which who
    whom whose where when if so until""".split()
)
_PUNCT_BREAKS = frozenset(",;:()–—")

NUMBER_WORDS: dict[str, float] = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
    "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
    "hundred": 100, "thousand": 1000, "dozen": 12, "half": 0.5,
}
_TENS = frozenset({"twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"})
_MULTIPLIERS = {"hundred": 100.0, "thousand": 1e3, "million": 1e6, "billion": 1e9}
# Number words that are too often not numbers ("no one", "one of", "half the"): only with a unit.
_WEAK_NUMBER_WORDS = frozenset({"one", "half"})
_RANGE_WORDS = frozenset({"-", "–", "—", "to"})

UNITS: dict[str, str] = {}
for _canon, _names in {
    "mm": "mm millimetre millimetres millimeter millimeters",
    "cm": "cm centimetre centimetres centimeter centimeters",
    "m": "m metre metres meter meters",
    "km": "km kilometre kilometres kilometer kilometers",
    "inch": "inch inches",
    "ft": "ft foot feet",
    "°c": "celsius centigrade",
    "°f": "fahrenheit",
    "°": "°",
    "degree": "degree degrees",
    "%": "% percent",
    "mg": "mg milligram milligrams",
    "g": "g gram grams",
    "kg": "kg kilogram kilograms kilo kilos",
    "lb": "lb lbs pound pounds",
    "oz": "oz ounce ounces",
    "ml": "ml millilitre millilitres milliliter milliliters",
    "l": "l litre litres liter liters",
    "gallon": "gallon gallons",
    "cup": "cup cups",
    "tsp": "tsp teaspoon teaspoons",
    "tbsp": "tbsp tablespoon tablespoons",
    "second": "second seconds sec secs",
    "minute": "minute minutes min mins",
    "hour": "hour hours hr hrs h",
    "day": "day days",
    "week": "week weeks",
    "month": "month months",
    "year": "year years yr yrs",
    "decade": "decade decades",
    "century": "century centuries",
    "times": "times",
    "am": "am",
    "pm": "pm",
    "lux": "lux",
    "w": "w watt watts",
    "ppm": "ppm",
    "mph": "mph",
}.items():
    for _name in _names.split():
        UNITS[_name] = _canon
_CURRENCIES = {"$": "$", "€": "€", "£": "£"}

MONTHS: dict[str, str] = {}
for _name in "january february march april may june july august september october november december".split():
    MONTHS[_name] = _name
    MONTHS[_name[:3]] = _name
MONTHS["sept"] = "september"
MONTH_NAMES = frozenset(MONTHS.values())
_UNIT_TOKENS = frozenset(UNITS) | {"c", "f", "-", "°"}  # unit tokens right after a number

# --- stemming ----------------------------------------------------------------------------------

_IRREGULAR = {
    "leaves": "leaf", "knives": "knife", "lives": "life", "wolves": "wolf", "halves": "half",
    "shelves": "shelf", "children": "child", "mice": "mouse", "feet": "foot", "teeth": "tooth",
    "geese": "goose", "men": "man", "women": "woman", "people": "person", "went": "go",
    "gone": "go", "made": "make", "grew": "grow", "grown": "grow", "fed": "feed", "kept": "keep",
    "took": "take", "taken": "take", "gave": "give", "given": "give", "found": "find",
    "bought": "buy", "brought": "bring", "thought": "think", "caught": "catch", "chose": "choose",
    "chosen": "choose", "ate": "eat", "eaten": "eat", "fell": "fall", "fallen": "fall", "ran": "run",
    "began": "begin", "begun": "begin", "wrote": "write", "written": "write", "drank": "drink",
    "drunk": "drink", "sent": "send", "built": "build", "held": "hold", "spent": "spend",
    "lost": "lose", "met": "meet", "paid": "pay", "sold": "sell", "told": "tell", "won": "win",
    "hidden": "hide", "rose": "rise", "risen": "rise", "froze": "freeze", "frozen": "freeze",
    "dying": "die", "lying": "lie", "better": "good", "best": "good", "worse": "bad", "worst": "bad",
}
_VOWELS = frozenset("aeiouy")
_NO_UNDOUBLE = frozenset("lsz")


def _has_vowel(word: str) -> bool:
    return any(c in _VOWELS for c in word)


def stem(word: str) -> str:
    """A light, deterministic stemmer: plurals, -ing, -ed, final -e and -y, doubled consonants.

    It only has to map the forms of one word to one key ("water", "waters", "watered",
    "watering" -> "water"; "dries", "dried", "dry" -> "dri"); it never has to be a real root.
    """
    word = _IRREGULAR.get(word, word)
    if len(word) > 3:
        if word.endswith("ies") and len(word) > 4:
            word = word[:-3] + "y"
        elif word.endswith(("sses", "shes", "ches", "xes", "zzes")):
            word = word[:-2]
        elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
            word = word[:-1]
        if word.endswith("ied") and len(word) > 4:
            word = word[:-3] + "y"
        elif word.endswith("ing") and len(word) >= 5 and _has_vowel(word[:-3]):
            word = _undouble(word[:-3])
        elif word.endswith("ed") and not word.endswith("eed") and len(word) >= 4 and _has_vowel(word[:-2]):
            word = _undouble(word[:-2])
    if word.endswith("e") and len(word) >= 3 and not word.endswith("ee"):
        word = word[:-1]
    if word.endswith("y") and len(word) >= 3:
        word = word[:-1] + "i"
    return word


def _undouble(word: str) -> str:
    if len(word) >= 3 and word[-1] == word[-2] and word[-1] not in _NO_UNDOUBLE and word[-1] not in _VOWELS:
        return word[:-1]
    return word


# --- tokens and numbers ------------------------------------------------------------------------

_MARKERS = re.compile(r"\[\s*\d+(?:\s*,\s*\d+)*\s*\]")
_TOKEN = re.compile(  # tokens with symbols inside: "15°c", "10-15", "don't"
    r"\d+(?:,\d{3})+(?:\.\d+)?(?![\d,])|\d+(?:\.\d+)?|[^\W\d_]+(?:'[^\W\d_]+)*|[%°$€£]|[-–—]|[,;:()]"
)
_CONTRACTION_BASES = {"ca": "can", "wo": "will", "sha": "shall", "ai": "is"}
_CLITICS = ("'s", "'re", "'ve", "'ll", "'d", "'m")
_TRAILING = ".,;:!?\"')]"
_KEPT_PUNCT = frozenset(",;:()")


def words_of(text: str) -> list[str]:
    """Lower-cased tokens; citation markers dropped, contractions opened ("don't" -> do not).

    "cannot" stays one token: it is both a negation and a modal ("can not" gives the same cues).

    Plain words and numbers take a fast path (``str.split``); only tokens with symbols inside
    ("15°c", "10-15", "don't", "(50°f)") go through the regular expression.
    """
    if "[" in text:
        text = _MARKERS.sub(" ", text)
    if text.endswith("."):  # a full stop is never a token: the last word takes the fast path below
        text = text[:-1]
    text = text.lower()
    if "\u2019" in text or "\u2018" in text:
        text = text.replace("\u2019", "'").replace("\u2018", "'")
    out: list[str] = []
    append = out.append
    for tok in text.split():
        if tok.isalpha() or tok.isdigit():
            append(tok)
            continue
        if tok[-1] in _TRAILING:
            core = tok.rstrip(_TRAILING)
            if core and (core.isalpha() or core.isdigit()):
                append(core)
                for ch in tok[len(core):]:
                    if ch in _KEPT_PUNCT:
                        append(ch)
                continue
        for piece in _TOKEN.findall(tok):
            if "'" in piece:
                if piece.endswith("n't"):
                    if piece[:-3]:  # a tokenizer-split "did n't" leaves "n't" alone: no empty base
                        append(_CONTRACTION_BASES.get(piece[:-3], piece[:-3]))
                    append("not")
                    continue
                piece = piece.split("'", 1)[0] if piece.endswith(_CLITICS) else piece.replace("'", "")
            append(piece)
    return out


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
# Periods that count as an amount without a numeral, after these words ("every week").
_PERIODS = frozenset("hour hours day days week weeks month months year years decade decades".split())
_PERIOD_WORDS_BEFORE = frozenset({"a", "an", "each", "every", "per"})
_VAGUE = {"few": -1.0, "several": -2.0}  # vague amounts; -3.0 is a bare plural ("for years")
_BARE_PERIOD_AFTER = frozenset({"within", "for", "after", "over"})
_PERIOD_ADVERBS = {"hourly": "hour", "daily": "day", "nightly": "day", "weekly": "week", "fortnightly": "fortnight",
                   "monthly": "month", "yearly": "year", "annually": "year"}


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
    Vague amounts of a unit have negative values: "a few days" is -1 days, "several" -2."""

    __slots__ = ("lo", "hi", "unit", "bound", "bare", "_words")

    def __init__(
        self, lo: float, hi: float, unit: str | None, words: tuple[str, ...], bound: str | None = None,
        bare: bool = False,
    ) -> None:
        self.lo, self.hi, self.unit, self.bound = lo, hi, unit, bound
        self.bare = bare  # no unit and no noun after it: "10" in "10, 12 or 15 cm"
        self._words = words  # the tokens that wrote it; spelled out only for a failure message

    @property
    def text(self) -> str:
        return _spell(self._words)

    def same_amount(self, other: "Number") -> bool:
        """Same value or range, and the same unit; a bare number goes with any unit."""
        if self.lo != other.lo or self.hi != other.hi:
            return False
        return self.unit == other.unit or (self.unit is None and self.bare) or (other.unit is None and other.bare)

    def matches(self, other: "Number") -> bool:
        """The same amount, and not "at least" on one side where the other says "at most"."""
        return self.same_amount(other) and not (
            self.bound != other.bound and self.bound in ("min", "max") and other.bound in ("min", "max")
        )

    def overlaps(self, other: "Number") -> bool:
        return self.lo <= other.hi and other.lo <= self.hi

    @property
    def key(self) -> str:
        value = _fmt(self.lo) if self.lo == self.hi else f"{_fmt(self.lo)}-{_fmt(self.hi)}"
        return f"#{value}{self.unit or ''}"


def _spell(words: Sequence[str]) -> str:
    """Tokens back to text: "10 - 15 cm" -> "10-15 cm", "15 ° c" -> "15°c"."""
    out = ""
    for w in words:
        if out and not (w in ("%", "°", "-", "–", "—") or out[-1] in "°-–—$€£"):
            out += " "
        out += w
    return out


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
    if j < len(words) and words[j] in _MULTIPLIERS:
        value *= _MULTIPLIERS[words[j]]
        j += 1
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
_UNIT_STARTS = frozenset(UNITS) | frozenset(MONTHS) | {"-", "per"}


def find_numbers(words: list[str], starts: Sequence[int] | None = None, periods: Sequence[int] = ()) -> list[Number]:
    """The numbers of a sentence, with their ranges, units and bounds.

    ``starts``: the indices of the tokens that are numerals (digits or number words), when the
    caller knows them; a range or compound consumes the numerals after its first. ``periods``:
    the indices of period words that state an amount without a numeral ("every week").
    """
    numbers: list[Number] = []
    n = len(words)
    done = -1
    consumed: set[int] = set()
    for i in range(n) if starts is None else starts:
        if i < done:
            continue
        w = words[i]
        if "0" <= w[0] <= "9" and (i + 1 == n or words[i + 1] not in _MULTIPLIERS):  # most numbers: digits
            lo, j = float(w.replace(",", "") if "," in w else w), i + 1
        else:
            found = _number_at(words, i)
            if found is None:
                continue
            lo, j = found
        hi = lo
        if j + 1 < n and (words[j] in _RANGE_WORDS or (words[j] == "and" and i > 0 and words[i - 1] == "between")):
            second = _number_at(words, j + 1)
            if second is not None:
                hi, j = second
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
        done = max(j, after)
        bound, first = _bound_before(words, first)
        if words[i] in _WEAK_NUMBER_WORDS and (unit is None or unit in MONTH_NAMES) and bound is None:
            continue  # "one of them", but "at least one hole"
        bare = unit is None and (j >= n or (_LEXICON.get(words[j]) or _classify(words[j]))[0] not in (CONTENT, PERIOD))
        if hi < lo:
            lo, hi = hi, lo
        numbers.append(Number(lo, hi, unit, tuple(words[first:done]), bound, bare))
        if periods:
            consumed.update(range(first, done))
    for i in periods:  # "a day", "every week", "a few hours", "weekly"
        if i in consumed:
            continue
        w = words[i]
        if w in _PERIOD_ADVERBS:
            numbers.append(Number(1.0, 1.0, _PERIOD_ADVERBS[w], (w,), _bound_before(words, i)[0]))
            continue
        prev = words[i - 1]
        if prev in _VAGUE:  # "a few days"
            value, start = _VAGUE[prev], i - 2 if words[i - 2 : i - 1] == ["a"] else i - 1
        elif prev in _PERIOD_WORDS_BEFORE:  # "a day", "every week"
            value, start = 1.0, i - 1
        else:  # "within hours", "for years"
            value, start = -3.0, i
        bound, first = _bound_before(words, start)
        first = min(first, i - 1) if value == -3.0 else first
        numbers.append(Number(value, value, UNITS[w], tuple(words[first : i + 1]), bound))
    return numbers


# --- sentence analysis -------------------------------------------------------------------------

_NAME = re.compile(r"\b[A-Z][^\W\d_]+")
_SENTENCE_OPENERS = frozenset(".!?:;\"'“‘([-–—")
_ARTICLES = frozenset({"the", "a", "an"})
_TRUTH_WORDS = frozenset({"true", "case", "correct"})
_LIST_JOINERS = frozenset({",", "and", "or", "&", "the", "a", "an", "as", "well", "also", "plus"})
# Words between two neighbours that make their order matter ("from November to February").
_RELATIONS = frozenset({"to", "than", "into", "onto", "from", "before", "after", "versus", "vs", "over"})

_FIRST = itemgetter(0)
# Token kinds, from one dictionary lookup per token.
CONTENT, STOP, NEG, QUANT, BREAK, AND, OTHER, NUMERAL, PERIOD = range(9)
_LEXICON: dict[str, tuple[int, str]] = {}


def _classify(word: str) -> tuple[int, str]:
    """The kind of a token and its key (the stem, for content words), memoised."""
    if word in _PUNCT_BREAKS or word in CLAUSE_BREAKS:
        kind = BREAK
    elif word == "and":
        kind = AND
    elif word in NEGATIONS:
        kind = NEG
    elif word in QUANTIFIERS:
        kind = QUANT
    elif word in NUMBER_WORDS or "0" <= word[:1] <= "9":  # [:1]: never an IndexError, whatever the token
        kind = NUMERAL
    elif word in STOPWORDS or word in _MULTIPLIERS:
        kind = STOP
    elif not word[:1].isalpha():
        kind = OTHER
    elif word in _PERIODS or word in _PERIOD_ADVERBS:
        kind = PERIOD
    else:
        kind = CONTENT
    info = (kind, stem(_PERIOD_ADVERBS.get(word, word)) if kind in (CONTENT, PERIOD) else word)
    if len(_LEXICON) > 1 << 19:
        _LEXICON.clear()
    _LEXICON[word] = info
    return info


class Clause(NamedTuple):
    """A clause with content: its keys, its polarity, its first negation cue, a word to name it,
    and its quantifiers and modals as (class, family, word)."""

    keys: frozenset[str]
    negated: bool
    cue: str
    word: str
    quants: tuple[tuple[str, str, str], ...]


class Sentence:
    """What the rules need to know about one sentence, computed once.

    ``words`` are its tokens, ``numbers`` its numbers; ``content`` lists (stem, token index) of
    the content tokens in order, ``keys`` their set; ``has_negation`` and ``has_quantifier`` say
    whether it has such cues at all (a cheap test before the clause rules); ``clauses()`` gives
    each clause's keys, polarity and quantifiers. A clause runs to punctuation, a dash or a
    conjunction such as "but", "which", "when"; "and" ends one once a cue has been followed by
    content ("do not overwater and keep it warm"); a clause without content words hands its cues
    to the next one.
    """

    __slots__ = ("text", "words", "content", "seq", "keys", "numbers", "has_negation", "has_quantifier", "has_cue",
                 "_starts", "_cues", "_clauses", "_names", "_once")

    def __init__(self, text: str) -> None:
        self.text = text
        words = words_of(text)
        numerals: list[int] = []
        periods: list[int] = []
        content: list[tuple[str, int]] = []
        starts: list[int] = []  # where each clause's content begins in ``content``; clause k is starts[k]
        cues: list[tuple[int, str, int, int]] = []  # (kind, word, clause, token index)
        clause = 0
        filled = False  # the clause has content words
        cue_seen = cue_open = False  # "and" ends a clause once a cue has been followed by content
        has_negation = has_quantifier = False
        lexicon = _LEXICON
        after_number = False  # units right after a number are the number rule's, not content
        for idx, w in enumerate(words):
            kind, key = lexicon.get(w) or _classify(w)
            if after_number:
                if w in _UNIT_TOKENS:
                    continue
                after_number = False
            if kind == CONTENT:
                if cue_seen and not filled and w in _TRUTH_WORDS and words[idx + 1 : idx + 2] == ["that"]:
                    continue  # "it is not true that X": the negation is X's
                if not filled:  # a clause ends only once it has content, so clause k starts starts[k]
                    starts.append(len(content))
                    filled = True
                content.append((key, idx))
                cue_open = cue_seen  # (cue_open implies cue_seen)
            elif kind == STOP or kind == OTHER:
                continue
            elif kind == NUMERAL:
                numerals.append(idx)
                after_number = True
            elif kind == PERIOD:  # content, and maybe an amount: "every week", "weekly"
                if not filled:
                    starts.append(len(content))
                    filled = True
                content.append((key, idx))
                prev = words[idx - 1] if idx else ""
                if w in _PERIOD_ADVERBS or prev in _PERIOD_WORDS_BEFORE or prev in _VAGUE or (
                        prev in _BARE_PERIOD_AFTER and w[-1] == "s"):
                    periods.append(idx)
            elif kind == BREAK or (kind == AND and cue_open):
                if filled:  # a clause without content words hands its cues to the next one
                    clause += 1
                    filled = cue_seen = cue_open = False
            elif kind == NEG:
                if w == "without" and filled:  # "without X" negates X, not the clause before it
                    clause += 1
                    filled = cue_seen = cue_open = False
                nxt = words[idx + 1] if idx + 1 < len(words) else ""
                if not (nxt in _NEGATION_EXEMPT_NEXT or (nxt.startswith(("un", "non")) and len(nxt) > 5) or (
                        nxt in _COMPARATIVES and words[idx + 2 : idx + 3] == ["than"])):  # "no more than 3": a bound
                    cues.append((NEG, w, clause, idx))
                    has_negation = True
                    cue_seen = True
                if w in QUANTIFIERS:
                    cues.append((QUANT, w, clause, idx))
                    has_quantifier = True
            elif kind == QUANT:
                prev = words[idx - 1] if idx else ""
                if w == "may" and (prev[:1].isdigit() or (idx + 1 < len(words) and words[idx + 1][:1].isdigit())):
                    if not filled:
                        starts.append(len(content))
                        filled = True
                    content.append((stem(w), idx))  # the month: "May 2021", "3 May"
                elif not ((w == "most" and prev in ("the", "at")) or (w == "all" and (prev in _ALL_IDIOM_PREV or (
                        idx + 1 < len(words) and words[idx + 1] in _ALL_IDIOM_NEXT)))):  # superlative, bound, idiom
                    cues.append((QUANT, "a few" if w == "few" and prev == "a" else w, clause, idx))
                    has_quantifier = True
                    cue_seen = True
        # Tuples, not lists: tuples of strings and ints drop out of the garbage collector's walks.
        self.words = tuple(words)
        self.numbers = tuple(find_numbers(words, numerals, periods)) if numerals or periods else ()
        self.content = tuple(content)
        self.seq = seq = tuple(map(_FIRST, content))
        self.keys = frozenset(seq)
        self._starts = tuple(starts)
        self._cues = tuple(cues)
        self._clauses: tuple[Clause, ...] | None = None
        self._names: dict[str, str] | None = None
        self._once: frozenset[str] | None = None
        self.has_negation = has_negation
        self.has_quantifier = has_quantifier
        self.has_cue = has_negation or has_quantifier

    def clauses(self) -> tuple[Clause, ...]:
        """The clauses that have content words (computed on first use).

        A clause is negated when it holds an odd number of negation cues ("never use a pot
        without drainage" is positive); "nor" counts only when it is a clause's sole cue.
        """
        if self._clauses is None:
            negs: dict[int, list[tuple[str, int]]] = {}
            quants: dict[int, list[tuple[str, str, str]]] = {}
            for kind, w, cl, at in self._cues:
                if kind == NEG:
                    negs.setdefault(cl, []).append((w, at))
                else:
                    quants.setdefault(cl, []).append((*QUANTIFIERS[w], w))
            out = []
            words, content, seq = self.words, self.content, self.seq
            for cl, (start, end) in enumerate(zip(self._starts, self._starts[1:] + (len(content),))):
                items = content[start:end]
                keys = frozenset(seq[start:end])
                found = negs.get(cl)
                if not found:
                    out.append(Clause(keys, False, "", words[items[0][1]], tuple(quants.get(cl, ()))))
                    continue
                counted = [n for n in found if n[0] != "nor"] or found
                cue, at = found[0]
                word = words[next((i for _, i in items if i > at), items[0][1])]
                out.append(Clause(keys, len(counted) % 2 == 1, cue, word, tuple(quants.get(cl, ()))))
            self._clauses = tuple(out)
        return self._clauses

    def names(self) -> dict[str, str]:
        """Content keys written with a capital inside the sentence ("Boston fern"), to the word."""
        if self._names is None:
            self._names = {}
            rest = self.text[1:]
            if rest == rest.lower():  # no capital after the first character: no names
                return self._names
            for m in _NAME.finditer(self.text):
                before = self.text[: m.start()].rstrip()
                if not before or before[-1] in _SENTENCE_OPENERS:  # a capital that starts a sentence
                    continue
                word = m.group().lower()
                kind, key = _LEXICON.get(word) or _classify(word)
                if kind == CONTENT and key in self.keys:
                    self._names.setdefault(key, m.group())
        return self._names

    def once(self) -> frozenset[str]:
        """The content keys the sentence holds exactly once."""
        if self._once is None:
            if len(self.seq) == len(self.keys):
                self._once = self.keys
            else:
                seen: set[str] = set()
                twice: set[str] = set()
                for key in self.seq:
                    (twice if key in seen else seen).add(key)
                self._once = frozenset(seen - twice)
        return self._once

    def surface(self, key: str) -> str:
        """The word as written for a content key."""
        for k, idx in self.content:
            if k == key:
                return self.words[idx]
        return key

    def allkeys(self) -> frozenset[str]:
        """Every word and number of the sentence: what a claim without content words is matched on."""
        return frozenset(w for w in self.words if w[0].isalpha()) | {n.key for n in self.numbers}


class _Prepared:
    """A passage split into analysed sentences.

    ``index`` maps a content key to the indices of the sentences holding it, ``masks`` to the same
    as a bit mask (bit i: sentence i) and ``pair_masks`` to the pairs of neighbours holding it
    (bit i: sentence i or i+1); ``shared[i]`` holds the keys that sentences i and i+1 have in
    common; ``by_text`` maps each sentence's text to its analysis.
    """

    __slots__ = ("sentences", "keysets", "shared", "index", "masks", "pair_masks", "by_text")

    def __init__(self, text: str) -> None:
        self.sentences = tuple(Sentence(s) for s in split_sentences(text))
        self.by_text = {s.text: s for s in self.sentences}  # a claim copied from the passage is analysed already
        self.keysets = [s.keys for s in self.sentences]
        self.shared = [a & b for a, b in zip(self.keysets, self.keysets[1:])]
        index: dict[str, list[int]] = {}
        for i, keys in enumerate(self.keysets):
            for key in keys:
                index.setdefault(key, []).append(i)
        self.index = {key: tuple(where) for key, where in index.items()}
        self.masks = {key: sum(1 << i for i in where) for key, where in index.items()}
        last = (1 << (len(self.sentences) - 1)) - 1 if self.sentences else 0  # bit i: sentences i and i+1
        self.pair_masks = {key: (mask | (mask >> 1)) & last for key, mask in self.masks.items()}

    def cover(self, keys: frozenset[str]) -> int:
        """Bit mask of the sentences that hold every one of ``keys`` (not empty)."""
        masks = self.masks
        common = -1
        for key in keys:
            common &= masks.get(key, 0)
            if not common:
                break
        return common

    def pair_cover(self, keys: frozenset[str], single: int) -> int:
        """Bit mask of the pairs of neighbours (bit i: sentences i and i+1) that hold every one of
        ``keys`` together where neither does alone (``single``: the mask from ``cover``)."""
        masks = self.pair_masks
        common = -1
        for key in keys:
            common &= masks.get(key, 0)
            if not common:
                return 0
        return common & ~(single | (single >> 1))


def _text(window: tuple[Sentence, ...]) -> str:
    return window[0].text if len(window) == 1 else " ".join(s.text for s in window)


def _bits(mask: int) -> list[int]:
    """The positions of the bits set in ``mask``, lowest first."""
    if not mask & (mask - 1):  # none, or one
        return [mask.bit_length() - 1] if mask else []
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


_prepare_passage = lru_cache(maxsize=4096)(_Prepared)
# From this many sentences on, a passage's index of words finds the sentences that hold a claim's
# words faster than intersecting the claim's words with each sentence's.
_INDEX_FROM = 24


# --- rules -------------------------------------------------------------------------------------

Failure = tuple[str, str]  # (rule, reason)
RULE_ORDER = ("entity", "number", "quantifier", "negation", "entity-swap")
_RULE_RANK = {rule: rank for rank, rule in enumerate(RULE_ORDER)}


def check_names(claim: Sentence, window: Sequence[Sentence]) -> Failure | None:
    """Every name of the claim (a capitalised word inside it) must be in the evidence."""
    for key, word in claim.names().items():
        if not any(key in s.keys for s in window):
            return "entity", f"name '{word}' of the claim is not in the evidence"
    return None


def check_numbers(claim: Sentence, window: Sequence[Sentence]) -> Failure | None:
    """Every number of the claim, with its range and unit, must be in the evidence."""
    if not claim.numbers:
        return None
    evidence = [num for s in window for num in s.numbers]
    for num in claim.numbers:
        if any(num.matches(e) for e in evidence):
            continue
        bounded = next((e for e in evidence if e.same_amount(num)), None)
        if bounded is not None:
            return "number", f"claim says '{num.text}' but evidence says '{bounded.text}'"
        if not evidence:
            return "number", f"number '{num.text}' of the claim is not in the evidence (it has no numbers)"
        near = next((e for e in evidence if e.overlaps(num)), None) or next(
            (e for e in evidence if e.unit == num.unit), evidence[0]
        )
        return "number", f"number '{num.text}' of the claim is not in the evidence (evidence has '{near.text}')"
    return None


def align(claim: Sentence, window: Sequence[Sentence]) -> list[tuple[Clause, list[Clause], list[Clause]]]:
    """Each clause of the claim with the evidence clauses closest to it, and those of them to
    which it is also (one of) the closest: (clause, closest, mutual).

    Closeness is the Jaccard similarity of the clauses' keys; ties are kept. A claim clause that
    carries a cue (negation, quantifier) is compared with its closest evidence clauses; one that
    carries none only with mutual ones, so a fronted phrase ("In winter, ...") is not compared
    with the whole negated clause it was cut from.
    """
    ours = claim.clauses()
    theirs = [c for s in window for c in s.clauses()]
    table: list[list[float]] | None = None
    best_theirs: list[float] = []
    out = []
    for k, a in enumerate(ours):
        same = [b for b in theirs if b.keys == a.keys]
        if same:  # the same words: as close as clauses get, so the pairing is mutual
            out.append((a, same, same))
            continue
        if table is None:
            table = [[_similarity(c.keys, b.keys) for b in theirs] for c in ours]
            best_theirs = [max(row[j] for row in table) for j in range(len(theirs))]
        row = table[k]
        best = max(row, default=0.0)
        closest = [(b, x == top) for b, x, top in zip(theirs, row, best_theirs) if x and x == best]
        out.append((a, [b for b, _ in closest], [b for b, mutual in closest if mutual]))
    return out


def _similarity(a: frozenset[str], b: frozenset[str]) -> float:
    shared = len(a & b)
    return shared / (len(a) + len(b) - shared) if shared else 0.0


Alignment = list[tuple[Clause, list[Clause], list[Clause]]]


def check_quantifiers(claim: Sentence, window: Sequence[Sentence], pairs: Alignment | None = None) -> Failure | None:
    """Quantifiers and modals of each claim clause must agree with its closest evidence clause;
    a claim may say less than the evidence ("some" for "most"), not add a universal ("always")
    nor drop a hedge ("may"). Where several evidence clauses are equally close, one is enough."""
    if not claim.has_quantifier and not any(s.has_quantifier for s in window):
        return None
    for ours, closest, mutual in pairs if pairs is not None else align(claim, window):
        problems = [_quantifier_conflict(ours.quants, c.quants) for c in (closest if ours.quants else mutual)]
        if problems and all(problems):
            return "quantifier", problems[0]
    return None


@lru_cache(maxsize=4096)  # a pure function of two small tuples, and few distinct pairs occur
def _quantifier_conflict(
    mine: tuple[tuple[str, str, str], ...], theirs: tuple[tuple[str, str, str], ...]
) -> str | None:
    if mine == theirs:
        return None
    for cls in ("quantity", "frequency", "degree", "modality"):
        ours = {family: w for c, family, w in reversed(mine) if c == cls}
        other = {family: w for c, family, w in reversed(theirs) if c == cls}
        for family, w in ours.items():
            if family in other or any(STRENGTH.get(f, 0) >= STRENGTH.get(family, 9) for f in other):
                continue
            if other:
                return f"claim says '{w}' but evidence says '{next(iter(other.values()))}'"
            if w in CLAIM_ONLY_FLAGGED:
                return f"claim says '{w}' but the evidence does not"
        if not ours:
            for w in other.values():
                if w in EVIDENCE_ONLY_FLAGGED:
                    return f"evidence says '{w}' but the claim does not"
    return None


def check_negation(claim: Sentence, window: Sequence[Sentence], pairs: Alignment | None = None) -> Failure | None:
    """Each clause of the claim must have the polarity of the evidence clause most like it (one
    of them, on a tie); and the claim may not state, without negation, a whole clause that the
    evidence negates ("Pothos is not fussy about humidity and does well" -> "Pothos is fussy
    about humidity and does well")."""
    if not claim.has_negation and not any(s.has_negation for s in window):
        return None
    for ours, closest, mutual in pairs if pairs is not None else align(claim, window):
        if ours.negated and closest and not any(c.negated for c in closest):
            return "negation", f"claim negates '{ours.word}' ('{ours.cue}') but the evidence does not"
        if not ours.negated and mutual and all(c.negated for c in mutual):
            other = mutual[0]
            return "negation", f"evidence negates '{other.word}' ('{other.cue}') but the claim does not"
    ours_negated = [c.keys for c in claim.clauses() if c.negated]
    for other in (c for s in window for c in s.clauses()):
        if other.negated and not any(keys & other.keys for keys in ours_negated):
            if any(not c.negated and other.keys <= c.keys for c in claim.clauses()):
                return "negation", f"evidence negates '{other.word}' ('{other.cue}') but the claim does not"
    return None


def check_swap(claim: Sentence, window: Sequence[Sentence]) -> Failure | None:
    """Catch a claim that swaps two entities of the evidence, where word order shows it."""
    if len(claim.content) < 3:
        return None
    found = _transposition(claim, window)
    return found if found is not None else _then_reversal(claim, window)


def _transposition(claim: Sentence, window: Sequence[Sentence]) -> Failure | None:
    """Same words, two entities trading places: "cats are more sensitive than dogs" -> "dogs ...
    than cats"; an entity may be several words ("the aloe vera ... than the ZZ plant")."""
    evidence_keys = window[0].keys if len(window) == 1 else frozenset().union(*(s.keys for s in window))
    evidence_seq = window[0].seq if len(window) == 1 else [k for s in window for k in s.seq]
    if list(filter(evidence_keys.__contains__, claim.seq)) == list(filter(claim.keys.__contains__, evidence_seq)):
        return None  # the shared words come in the same order
    # The words that the claim and the evidence each hold exactly once.
    if len(window) == 1:
        theirs = window[0].once()
    else:
        theirs = frozenset().union(*(
            s.once().difference(*(t.keys for t in window if t is not s)) for s in window))
    shared = claim.once() & theirs
    mine = [k for k in claim.seq if k in shared]
    other = [(key, si, idx) for si, s in enumerate(window) for key, idx in s.content if key in shared]
    if len(mine) < 3 or len(mine) < 0.6 * len(claim.keys):
        return None  # too few shared words for word order to say anything
    diffs = [i for i, k in enumerate(mine) if k != other[i][0]]
    if not diffs:
        return None
    start, end = diffs[0], diffs[-1] + 1
    span = [k for k, _, _ in other[start:end]]
    # The evidence span is X + middle + Y, the claim's Y + middle + X. The shared words occur once
    # on each side, so the claim's first word fixes where Y starts, and its last where X ends.
    if mine[start] not in span or mine[end - 1] not in span:
        return None
    size = len(span)
    y = size - span.index(mine[start])
    x = span.index(mine[end - 1]) + 1
    if x + y <= size and mine[start:end] == span[size - y :] + span[x : size - y] + span[:x]:
        return _swap_failure(claim, window, other[start : start + x], other[end - y : end], x + y == size)
    return None


def _swap_failure(
    claim: Sentence, window: Sequence[Sentence], first: list[tuple[str, int, int]], second: list[tuple[str, int, int]],
    neighbours: bool,
) -> Failure | None:
    """The entity-swap failure for two runs of evidence words that trade places in the claim
    with the words between them unchanged ("cats are more sensitive than dogs" -> "dogs are more
    sensitive than cats"), unless their order says nothing: they are not in one clause (clauses
    may be reordered freely; steps around "then" are checked apart), they are neighbours with no
    relation word ("to", "than") between them, they are items of a list, or one side is in the
    passive voice."""
    sentence = first[0][1]
    if any(si != sentence for _, si, _ in first + second):
        return None
    words = window[sentence].words
    if any(w in _PUNCT_BREAKS or w in CLAUSE_BREAKS or w == "then" for w in words[first[0][2] : second[-1][2]]):
        return None
    between = words[first[-1][2] + 1 : second[0][2]]
    positions = {k: i for k, i in claim.content}
    theirs_first, ours_second = positions[first[0][0]], positions[second[-1][0]]
    if [w for w in claim.words[ours_second + 1 : theirs_first] if w not in _ARTICLES] != [
            w for w in between if w not in _ARTICLES]:
        return None  # the words between changed too: a rephrasing, not a swap
    if neighbours and not _RELATIONS.intersection(between):
        return None  # "the soil is dry" -> "dry soil"
    if any(w in (",", "and", "or", "&") for w in between) and all(
        w in _LIST_JOINERS or not (w in STOPWORDS or w in NEGATIONS or w in QUANTIFIERS) for w in between
    ):
        return None  # "cats, dogs and rabbits"
    if ("by" in claim.words) != any("by" in s.words for s in window):
        return None  # "mice are chased by cats"
    a = " ".join(claim.surface(k) for k, _, _ in second)
    b = " ".join(claim.surface(k) for k, _, _ in first)
    return "entity-swap", f"claim swaps '{a}' and '{b}' relative to the evidence"


def _sides_of_then(sentences: Sequence[Sentence]) -> tuple[set[str], set[str]] | None:
    """Content keys before and after the one 'then' of the text (None unless exactly one)."""
    hits = [(si, i) for si, s in enumerate(sentences) for i, w in enumerate(s.words) if w == "then"]
    if len(hits) != 1:
        return None
    at = hits[0]
    before: set[str] = set()
    after: set[str] = set()
    for si, s in enumerate(sentences):
        for key, idx in s.content:
            (before if (si, idx) < at else after).add(key)
    return before - after, after - before


def _then_reversal(claim: Sentence, window: Sequence[Sentence]) -> Failure | None:
    """Steps reversed around 'then' ("water the soil, then mist the leaves" -> the other way)."""
    if "then" not in claim.words:
        return None
    mine = _sides_of_then((claim,))
    other = _sides_of_then(window) if mine else None
    if mine is None or other is None:
        return None
    moved_back = [k for k, _ in claim.content if k in mine[0] and k in other[1]]
    moved_forward = [k for k, _ in claim.content if k in mine[1] and k in other[0]]
    if moved_back and moved_forward:
        first, second = claim.surface(moved_back[0]), claim.surface(moved_forward[0])
        return "entity-swap", f"claim puts '{first}' before 'then' and '{second}' after it; the evidence has the reverse"
    return None


# --- the judge ---------------------------------------------------------------------------------


class LexicalJudge:
    """Offline groundedness judge: coverage of the claim by its cited passages, plus rules."""

    name = "lexical"

    def __init__(self, coverage: float = 0.6, window: int = 2) -> None:
        if isinstance(coverage, bool) or not isinstance(coverage, (int, float)) or not 0.0 < coverage <= 1.0:
            raise ValueError(f"coverage must be a number in (0, 1], got {coverage!r}")
        if isinstance(window, bool) or not isinstance(window, int) or window < 1:
            raise ValueError(f"window must be a whole number of sentences >= 1, got {window!r}")
        self.coverage = float(coverage)
        self.window = window
        self._prepare = _prepare_passage  # claims are analysed afresh: they rarely repeat

    def settings(self) -> dict:
        """What decides the verdicts, as JSON-able values (part of every cache key)."""
        return {"coverage": self.coverage, "window": self.window, "rules_version": RULES_VERSION}

    def judge_many(self, pairs: Iterable[tuple[str, Sequence[Passage | str]]]) -> list[Verdict]:
        """``judge`` on each (claim, sources) pair; a passage cited by several is analysed once."""
        return [self.judge(claim, sources) for claim, sources in pairs]

    def judge(self, claim: str, sources: Sequence[Passage | str]) -> Verdict:
        """Whether the passages a claim cites support it; ``score`` is the coverage."""
        if not isinstance(claim, str):
            raise TypeError(f"claim must be a str, got {type(claim).__name__}")
        if isinstance(sources, (str, bytes)):
            raise TypeError("sources must be a sequence of passages (Passage or str), not a single str")
        texts = [s if isinstance(s, str) else Passage.coerce(s, i).text for i, s in enumerate(sources)]
        if not texts:
            return Verdict(False, 0.0, None, "the sentence cites no passage", "uncited")
        prepared = [self._prepare(text) for text in texts]
        for p in prepared:  # a sentence copied from a cited passage: analysed already (analysis is pure)
            ours = p.by_text.get(claim)
            if ours is not None:
                break
        else:
            ours = Sentence(claim)
        keys = ours.keys or ours.allkeys()
        if not keys:  # only symbols ("* * *"): supported where they are written in a cited passage
            for p in prepared:
                found = next((s.text for s in p.sentences if claim.strip() in s.text), None)
                if found is not None and claim.strip():
                    return Verdict(True, 1.0, found, "the claim has no words; its text is in the evidence")
            return Verdict(False, 0.0, None, "the claim has no words to check", "coverage")
        total = len(keys)
        need = self.coverage * total - 1e-9
        content = bool(ours.keys)
        covers: list[int] = []  # per passage, the sentences that cover the whole claim (bit mask)
        failures: list[tuple[tuple[Sentence, ...], Failure]] = []  # windows judged so far, with the rule each fails
        if self.window >= 2:  # first pass: a single sentence that covers the whole claim and passes
            for p in prepared:
                if content:
                    covers.append(p.cover(keys))
                else:
                    covers.append(sum(1 << i for i, h in enumerate(self._hits(keys, content, p)) if h == total))
                for i in _bits(covers[-1]):
                    window = p.sentences[i : i + 1]
                    if window[0] is ours:  # the claim is this sentence: every rule holds
                        return self._supported(1.0, window)
                    failure = self._rules(ours, window)
                    if failure is None:
                        return self._supported(1.0, window)
                    failures.append((window, failure))
        if failures and self.window == 2 and content:
            # The best windows cover the whole claim: the sentences above, which all failed, then the
            # pairs of neighbours that cover it together where neither does alone.
            for p, cover in zip(prepared, covers):
                for i in _bits(p.pair_cover(keys, cover)):
                    window = p.sentences[i : i + 2]
                    failure = self._rules(ours, window)
                    if failure is None:
                        return self._supported(1.0, window)
                    failures.append((window, failure))
            return self._furthest(1.0, failures)
        found = [(p, self._hits(keys, content, p)) for p in prepared]
        hits, windows = self._best_windows(keys, content, found)
        if not windows:
            return Verdict(False, 0.0, None, f"coverage 0.00 < {self.coverage:.2f}; the cited passages are empty", "coverage")
        score = hits / total
        if hits >= need:
            # The windows of best coverage, single sentences first (those of the first pass again,
            # when a wider window than two is allowed).
            judged = {id(window[0]): failure for window, failure in failures}
            failures = []
            for window in windows:
                known = len(window) == 1 and id(window[0]) in judged
                failure = judged[id(window[0])] if known else self._rules(ours, window)
                if failure is None:
                    return self._supported(score, window)
                failures.append((window, failure))
            return self._furthest(score, failures)
        window = windows[0]
        if ours.keys:
            seen = frozenset().union(*(s.keys for s in window))
            missing = [ours.words[idx] for k, idx in ours.content if k not in seen]
        else:
            seen = frozenset().union(*(s.allkeys() for s in window))
            missing = [k.lstrip("#") for k in sorted(keys) if k not in seen]
        missing = list(dict.fromkeys(missing))
        shown = ", ".join(missing[:6]) + (f" (+{len(missing) - 6} more)" if len(missing) > 6 else "")
        return Verdict(
            False, score, " ".join(s.text for s in window),
            f"coverage {score:.2f} < {self.coverage:.2f}; missing: {shown}", "coverage",
        )

    @staticmethod
    def _furthest(score: float, failures: list[tuple[tuple[Sentence, ...], Failure]]) -> Verdict:
        """The verdict for windows that all failed: the one that got furthest through the rules (the
        first such), as it is the closest to supporting the claim."""
        window, (rule, reason) = max(failures, key=lambda f: _RULE_RANK[f[1][0]])
        return Verdict(False, score, _text(window), reason, rule)

    def _supported(self, score: float, window: tuple[Sentence, ...]) -> Verdict:
        return Verdict(
            True, score, _text(window),
            f"coverage {score:.2f} >= {self.coverage:.2f}; numbers, quantifiers, negation agree",
        )

    @staticmethod
    def _rules(ours: Sentence, window: tuple[Sentence, ...]) -> Failure | None:
        failure = check_names(ours, window) or check_numbers(ours, window)
        if failure is None and (ours.has_cue or any(s.has_cue for s in window)):
            pairs = align(ours, window)  # shared by the two clause-level rules
            failure = check_quantifiers(ours, window, pairs) or check_negation(ours, window, pairs)
        return failure or check_swap(ours, window)

    @staticmethod
    def _hits(keys: frozenset[str], content: bool, prepared: "_Prepared") -> list[int]:
        """How many of the claim's keys each sentence of the passage holds."""
        if not content:  # a claim without content words: match on every word and number
            return [len(keys & s.allkeys()) for s in prepared.sentences]
        keysets = prepared.keysets
        if len(keysets) <= _INDEX_FROM:  # a short passage: one set intersection per sentence
            return [len(keys & other) for other in keysets]
        counts = [0] * len(keysets)  # a long one: only the sentences that hold a key are visited
        index = prepared.index
        for key in keys:
            for i in index.get(key, ()):
                counts[i] += 1
        return counts

    def _best_windows(
        self, keys: frozenset[str], content: bool, found: list[tuple["_Prepared", list[int]]]
    ) -> tuple[int, list[tuple[Sentence, ...]]]:
        """The best coverage (claim keys found) and the windows that reach it, in passage order,
        single sentences first. A larger window counts only when it covers more than each of its
        sentences does. Only the best windows are judged: a window that covers less of the claim
        cannot rescue a claim the best one contradicts.
        """
        best = 0
        tier: list[tuple[int, int, tuple[Sentence, ...]]] = []  # (size, order, window)
        order = 0
        for prepared, counts in found:
            sentences = prepared.sentences
            n = len(sentences)
            if not n:
                continue
            top = max(counts)
            if not top:
                if not tier and best == 0:
                    tier.append((1, order, sentences[:1]))  # nothing matches: the first sentence, for the report
                order += n
                continue
            if top > best:
                best, tier = top, []
            if top == best:
                tier.extend((1, order + i, sentences[i : i + 1]) for i, h in enumerate(counts) if h == top)
            # A larger window can only join the tier if its sentences' counts add up to the best.
            if self.window >= 2 and n > 1:
                for i in [i for i, (a, b) in enumerate(zip(counts, counts[1:])) if a and b and a + b >= best]:
                    a, b = counts[i], counts[i + 1]
                    shared = prepared.shared[i] if content else sentences[i].allkeys() & sentences[i + 1].allkeys()
                    both = a + b - (len(keys & shared) if shared else 0)
                    if both > a and both > b and both >= best:
                        if both > best:
                            best, tier = both, []
                        tier.append((2, order + i, sentences[i : i + 2]))
                for size in range(3, min(self.window, n) + 1):
                    for i in range(n - size + 1):
                        inner = counts[i : i + size]
                        if max(inner) and sum(inner) > max(inner) and sum(inner) >= best:
                            sets = prepared.keysets if content else [s.allkeys() for s in sentences]
                            union = len(keys & frozenset().union(*sets[i : i + size]))
                            if union > max(inner) and union >= best:
                                if union > best:
                                    best, tier = union, []
                                tier.append((size, order + i, sentences[i : i + size]))
            order += n
        tier.sort(key=lambda w: (w[0], w[1]))
        return best, [w for _, _, w in tier]
