"""Text analysis for the lexical judge: word lists, the tokeniser, word keys and token kinds."""

from __future__ import annotations

import re
from functools import lru_cache
from operator import itemgetter
from typing import Any, Callable

from . import lexicon

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
) | frozenset(  # discourse adverbs: they link an answer's sentences and say nothing about the world
    """additionally furthermore moreover meanwhile overall ultimately basically essentially likewise
    similarly consequently nevertheless nonetheless accordingly firstly secondly thirdly lastly""".split()
)

NEGATIONS = frozenset(
    "not no never without none nor neither nothing nobody nowhere cannot".split()
)

# Words that say "no" without a negation cue ("unless it rains", "zero English", "lacks a
# nucleus", "prevents a dictator from seizing power", "is against alcohol").
NEGATIVE_WORDS = frozenset("""unless non zero lack lacks lacked lacking fail fails failed failing prevent prevents
    prevented preventing avoid avoids avoided avoiding absence absent unable inability impossible refuse refuses refused
    deny denies denied hardly barely against instead rather stop stops stopped""".split())

# word -> (class, family). Words of one family are interchangeable.
QUANTIFIERS: dict[str, tuple[str, str]] = {}
for _cls, _families in {
    "quantity": {"all": "all every each", "most": "most", "many": "many",
                 "some": "some several a_few certain various", "few": "few", "none": "none"},
    "frequency": {"always": "always", "often": "often frequently usually generally typically normally commonly",
                  "sometimes": "sometimes occasionally", "rarely": "rarely seldom", "never": "never"},
    "degree": {"more": "more", "less": "less fewer"},
    "modality": {"must": "must", "should": "should ought",
                 "may": "may might could can cannot perhaps possibly potentially probably likely"},
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
_MULTIPLIERS = {"hundred": 100.0, "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "bn": 1e9}
# Number words that are too often not numbers ("no one", "one of", "half the"): only with a unit.
_WEAK_NUMBER_WORDS = frozenset({"one", "half"})
_RANGE_WORDS = frozenset({"-", "–", "—", "to"})

UNITS: dict[str, str] = {}
for _canon, _names in {
    "mm": "mm millimetre millimetres millimeter millimeters",
    "cm": "cm centimetre centimetres centimeter centimeters", "m": "m metre metres meter meters",
    "km": "km kilometre kilometres kilometer kilometers", "inch": "inch inches", "ft": "ft foot feet",
    "yd": "yd yard yards", "mile": "mile miles", "°c": "celsius centigrade", "°f": "fahrenheit", "°": "°",
    "degree": "degree degrees", "%": "% percent", "mg": "mg milligram milligrams", "g": "g gram grams",
    "kg": "kg kilogram kilograms kilo kilos", "lb": "lb lbs pound pounds", "oz": "oz ounce ounces",
    "ml": "ml millilitre millilitres milliliter milliliters", "l": "l litre litres liter liters",
    "gallon": "gallon gallons", "cup": "cup cups", "tsp": "tsp teaspoon teaspoons",
    "tbsp": "tbsp tablespoon tablespoons", "second": "second seconds sec secs", "minute": "minute minutes min mins",
    "hour": "hour hours hr hrs h", "day": "day days", "week": "week weeks", "month": "month months",
    "year": "year years yr yrs", "decade": "decade decades", "century": "century centuries", "times": "times",
    "am": "am", "pm": "pm", "lux": "lux", "w": "w watt watts", "ppm": "ppm", "mph": "mph",
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

# --- word keys -----------------------------------------------------------------------------------

_VOWELS = frozenset("aeiouy")
_NO_UNDOUBLE = frozenset("lsz")


_STEMS: dict[str, str] = {}  # stem's memo: a pure function of the word


def stem(word: str) -> str:
    """The key of a lower-cased word: its lemma ("won" -> "win"), then a light suffix stripper for
    what the lemmatiser does not know; it maps the forms of a word to one key ("dried" -> "dri")."""
    key = _STEMS.get(word)
    if key is None:
        key = _strip(lexicon.lemma(word))
        if len(_STEMS) > 1 << 19:
            _STEMS.clear()
        _STEMS[word] = key
    return key


def _strip(word: str) -> str:
    if len(word) > 3:
        if word.endswith("ies") and len(word) > 4:
            word = word[:-3] + "y"
        elif word.endswith(("sses", "shes", "ches", "xes", "zzes")):
            word = word[:-2]
        elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
            word = word[:-1]
        if word.endswith("ied") and len(word) > 4:
            word = word[:-3] + "y"
        elif word.endswith("ing") and len(word) >= 5 and not _VOWELS.isdisjoint(word[:-3]):
            word = _undouble(word[:-3])
        elif word.endswith("ed") and not word.endswith("eed") and len(word) >= 4 and not _VOWELS.isdisjoint(word[:-2]):
            word = _undouble(word[:-2])
    if word.endswith("e") and len(word) >= 3 and not word.endswith("ee"):
        word = word[:-1]
    if word.endswith("y") and len(word) >= 3:
        word = word[:-1] + "i"
    return word


@lru_cache(maxsize=1 << 16)
def synonym_keys(word: str) -> tuple[str, ...]:
    """The keys of a word's WordNet synonyms (``lexicon.synonyms`` of its lemma), sorted."""
    return tuple(sorted({stem(w) for w in lexicon.synonyms(lexicon.lemma(word))} - {stem(word)}))


@lru_cache(maxsize=1 << 16)
def related_keys(word: str) -> tuple[str, ...]:
    """The keys of a word's WordNet synonyms, then of its derivationally related forms ("explanation"
    -> "explain"), each sorted."""
    own = synonym_keys(word)
    forms = {stem(w) for w in lexicon.derived(lexicon.lemma(word))} - set(own) - {stem(word)}
    return own + tuple(sorted(forms))


@lru_cache(maxsize=1 << 16)
def antonym_keys(word: str) -> tuple[str, ...]:
    """The keys of a word's WordNet antonyms, sorted."""
    return tuple(sorted({stem(w) for w in lexicon.antonyms(lexicon.lemma(word))} - {stem(word)}))


@lru_cache(maxsize=1 << 16)
def weight(word: str) -> float:
    """How much a content word counts in coverage: 0.25 for the commonest words to 1.25 for unseen ones."""
    return 0.25 + lexicon.rarity(lexicon.lemma(word))


def _undouble(word: str) -> str:
    if len(word) >= 3 and word[-1] == word[-2] and word[-1] not in _NO_UNDOUBLE and word[-1] not in _VOWELS:
        return word[:-1]
    return word


# --- tokens and numbers ------------------------------------------------------------------------

_MARKERS = re.compile(r"\[\s*\d+(?:\s*,\s*\d+)*\s*\]")
_TOKEN = re.compile(  # tokens with symbols inside: "15°c", "10-15", "don't"
    r"\d+(?:,\d{3})+(?:\.\d+)?(?!\d|,\d)|\d+(?:\.\d+)?|[^\W\d_]+(?:'[^\W\d_]+)*|[%°$€£]|[-–—]|[,;:()]"
)
_CONTRACTION_BASES = {"ca": "can", "wo": "will", "sha": "shall", "ai": "is"}
_CLITICS = ("'s", "'re", "'ve", "'ll", "'d", "'m")


class _Memo(dict):
    """``make(key)`` by key, computed on first sight; bounded (emptied when over ``size``)."""

    __slots__ = ("make", "size")

    def __init__(self, make: Callable[[Any], Any], size: int = 1 << 16) -> None:
        super().__init__()
        self.make, self.size = make, size

    def __missing__(self, key: Any) -> Any:
        if len(self) > self.size:
            self.clear()
        found = self[key] = self.make(key)
        return found


# A whitespace-separated token without an apostrophe -> the tokens ``words_of`` makes of it.
_PIECES = _Memo(lambda tok: tuple(_TOKEN.findall(tok)), 1 << 18)
_pieces_of = _PIECES.__getitem__


def words_of(text: str) -> list[str]:
    """Lower-cased tokens; citation markers dropped, contractions opened ("don't" -> do not).

    "cannot" stays one token: it is both a negation and a modal ("can not" gives the same cues).
    A whitespace-separated token without an apostrophe is looked up in ``_PIECES``.
    """
    if "[" in text:
        text = _MARKERS.sub(" ", text)
    if text.endswith("."):  # a full stop is never a token
        text = text[:-1]
    text = text.lower()
    if "\u2019" in text or "\u2018" in text:
        text = text.replace("\u2019", "'").replace("\u2018", "'")
    out: list[str] = []
    if "'" not in text:
        for tok in text.split():
            out += _pieces_of(tok)
        return out
    append = out.append
    for tok in text.split():
        if "'" not in tok:
            out += _pieces_of(tok)
            continue
        for piece in _TOKEN.findall(tok):
            if "'" in piece:
                if piece.endswith("n't"):
                    if len(piece) > 3:  # "don't" -> do not; a detached "n't" ("did n't") -> not
                        append(_CONTRACTION_BASES.get(piece[:-3], piece[:-3]))
                    elif out and out[-1] in _CONTRACTION_BASES:  # "ca n't" -> can not
                        out[-1] = _CONTRACTION_BASES[out[-1]]
                    append("not")
                    continue
                piece = piece.split("'", 1)[0] if piece.endswith(_CLITICS) else piece.replace("'", "")
            append(piece)
    return out


# Periods that count as an amount without a numeral, after these words ("every week").
_PERIODS = frozenset("second seconds minute minutes hour hours day days week weeks month months year years decade decades".split())
_PERIOD_WORDS_BEFORE = frozenset({"a", "an", "each", "every", "per"})
# "every other day" is every 2 days, "every third week" every 3 weeks.
_EVERY_NTH = {"other": 2.0, "second": 2.0, "third": 3.0, "fourth": 4.0, "fifth": 5.0, "sixth": 6.0}
_VAGUE = {"few": -1.0, "several": -2.0}  # vague amounts; -3.0 is a bare plural ("for years")
_BARE_PERIOD_AFTER = frozenset({"within", "for", "after", "over"})
_PERIOD_ADVERBS = {"hourly": "hour", "daily": "day", "nightly": "day", "weekly": "week", "fortnightly": "fortnight",
                   "monthly": "month", "yearly": "year", "annually": "year"}


_SENTENCE_OPENERS = frozenset(".!?:;\"'“‘([-–—")
_ARTICLES = frozenset({"the", "a", "an"})
_TRUTH_WORDS = frozenset({"true", "case", "correct"})
_LIST_JOINERS = frozenset({",", "and", "or", "&", "the", "a", "an", "as", "well", "also", "plus"})
# Words between two neighbours that make their order matter ("from November to February").
_RELATIONS = frozenset({"to", "than", "into", "onto", "from", "before", "after", "versus", "vs", "over"})

# Words that open a clause of their own when a subject follows them ("before he won").
_CLAUSE_OPENERS = frozenset({"before", "after", "as", "once", "or", "whilst", "then"})

# Verbs that negate what follows them ("failed to get" says "did not get"), each a negation cue as
# well as content, by the word they take (``scan._negative_verb``): right after, () for any but "of",
# or "from" within a few words.
_NEGATIVE_VERBS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("fail", "fails", "failed", "failing", "refuse", "refuses", "refused", "refusing", "unable"), ("to",)),
    **dict.fromkeys(("lack", "lacks", "lacked", "lacking"), ()),
    **dict.fromkeys(("prevent", "prevents", "prevented", "preventing"), ("from",)),
    "unlikely": ("to", "that"),
}


# Words whose reading depends on the words around them: ``_scan`` looks at them more closely.
_ODD = frozenset(_EVERY_NTH) | _TRUTH_WORDS | frozenset(_NEGATIVE_VERBS) | _CLAUSE_OPENERS

_FIRST = itemgetter(0)
# Token kinds, from one dictionary lookup per token.
CONTENT, STOP, NEG, QUANT, BREAK, AND, OTHER, NUMERAL, PERIOD = range(9)  # CONTENT is 0: Sentence tests `not kind`


class _Lexicon(dict):
    """Token -> (kind, key: the stem for content words, whether it is ``_ODD``), classified on first sight."""

    __slots__ = ()

    def __missing__(self, word: str) -> tuple[int, str, bool]:
        return _classify(word)


_LEXICON: dict[str, tuple[int, str, bool]] = _Lexicon()


def _classify(word: str) -> tuple[int, str, bool]:
    if word in _PUNCT_BREAKS or word in CLAUSE_BREAKS:
        kind = BREAK
    elif word == "and":
        kind = AND
    elif word in NEGATIONS:
        kind = NEG
    elif word in QUANTIFIERS:
        kind = QUANT
    elif word in NUMBER_WORDS or "0" <= word[0] <= "9":
        kind = NUMERAL
    elif word in STOPWORDS or word in _MULTIPLIERS:
        kind = STOP
    elif not word[0].isalpha():
        kind = OTHER
    elif word in _PERIODS or word in _PERIOD_ADVERBS:
        kind = PERIOD
    else:
        kind = CONTENT
    info = (kind, stem(_PERIOD_ADVERBS.get(word, word)) if kind in (CONTENT, PERIOD) else word, word in _ODD)
    if len(_LEXICON) > 1 << 19:
        _LEXICON.clear()
    _LEXICON[word] = info
    return info


# Decimals and thousands split by a tokeniser ("7. 8 per cent", "1, 500 fans"), re-joined before a
# text is split into sentences: a short whole part and one or two decimals ("in 2019. 15 people"
# stays apart), three digits after a comma that no list continues ("78, 100 and 92" does). (Each
# begins with a digit, then looks behind it: the search skips to the next digit.)
_SPLIT_DECIMAL = re.compile(r"(\d(?<![\d.,]\d)\d{0,2})\. (\d{1,2})(?![\d,.]?\d)")
_SPLIT_THOUSANDS = re.compile(r"(\d(?<![\d.,]\d)(?<!\d, \d)\d{0,2}), (\d{3})(?![\d,.]?\d| and \d|, \d)")


# "[.,] \d" after a digit: each search starts from its literal prefix, faster than one for "\d[.,] \d".
_SPLIT_AFTER = (re.compile(r", \d"), re.compile(r"\. \d"))


def _has_split_number(text: str) -> bool:
    """Whether ``text`` has "\\d[.,] \\d" (``\\d`` is what str.isdecimal says)."""
    for pattern in _SPLIT_AFTER:
        for m in pattern.finditer(text):
            k = m.start()
            if k and text[k - 1].isdecimal():
                return True
    return False


# A decimal without its whole part ("$.99"), not after a letter, a digit, a point or a comma
# ("No.5", "2.0.5" stay): read as "0.99", not 99.
_BARE_DECIMAL = re.compile(r"\.(?<![\w.,]\.)(?=\d)")


# A decimal comma before a percent sign ("99,9%"): no thousands, no list of numbers.
_DECIMAL_COMMA = re.compile(r"(?<![\d.,])(\d{1,3}),(\d{1,2})(?=\s?%)")
_COMMA_PERCENT = re.compile(r",\d\d?\s?%")  # its tail: a quick search (from the comma) before the slow one


def rejoin_numbers(text: str) -> str:
    """``text`` with its split decimals and thousands written whole ("7. 8 per cent" -> "7.8 per
    cent"), "$.99" written "$0.99" and "99,9%" written "99.9%"."""
    if _BARE_DECIMAL.search(text) is not None:
        text = _BARE_DECIMAL.sub("0.", text)
    if "%" in text and _COMMA_PERCENT.search(text) is not None:
        text = _DECIMAL_COMMA.sub(r"\1.\2", text)
    if not _has_split_number(text):
        return text
    return _SPLIT_THOUSANDS.sub(r"\1,\2", _SPLIT_DECIMAL.sub(r"\1.\2", text))
