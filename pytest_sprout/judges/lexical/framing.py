"""Openings that frame an answer without stating anything about the world ("Based on the given
context, ...", "According to the document, ..."): the judge sets them aside before reading a claim."""

from __future__ import annotations

import re

_SOURCE = (
    r"(?:the |this |these |our |my )?(?:given |provided |above |retrieved |cited |available |supplied |following )?"
    r"(?:context|contexts|document|documents|passage|passages|text|texts|source|sources|information|article|"
    r"articles|excerpt|excerpts|search results?|references?|evidence|material|data)"
    r"(?: (?:provided|given|above|supplied))?"
)
# The words that say where a statement comes from ("according to" the passage).
_ACCORDING = (r"(?:based (?:on|upon)|according to|as (?:stated|mentioned|described|noted|shown|indicated|explained) "
              r"(?:in|by)|from|per|judging (?:from|by))")
_BOILERPLATE = re.compile(
    r"^\s*(?:"
    rf"(?:{_ACCORDING}|in) {_SOURCE}\s*(?:,\s*|\s+)"
    rf"|{_SOURCE} (?:states|says|mentions|notes|indicates|suggests|shows|explains|reports|claims) that\s+"
    # the source's course: "The passage then focuses on X", "The document begins with an introduction to X"
    rf"|{_SOURCE} (?:then |also |mainly |primarily |first |further |next |later |finally |briefly )?"
    r"(?:(?:focuses|focused|concentrates|turns|moves|shifts|begins|starts|ends|concludes|continues) (?:on|to|with|by)"
    r"|goes on to (?:describe|discuss|explain|mention|talk about|say that)) "
    r"(?:(?:an? |the )?(?:brief |short )?(?:introduction|discussion|description|overview|summary|explanation|"
    r"mention) (?:of|to|about|on) )?"
    r"|(?:it is|it's) (?:stated|mentioned|noted|reported|explained) (?:in (?:the |this )?\w+ )?that\s+"
    r"|(?:however,\s*|additionally,\s*)?(?:it is|it's|it\u2019s) (?:also )?(?:important|worth|interesting) (?:to (?:note|remember|mention)|noting|remembering|mentioning) that\s+"
    r"|(?:however,\s*|additionally,\s*)?(?:it should be noted|keep in mind|note) that\s+"
    r"|(?:in (?:conclusion|addition|summary|short|sum|general|fact|other words|brief)|for (?:example|instance)|"
    r"as a (?:result|consequence)|last but not least|all in all|to (?:sum up|summari[sz]e|conclude)),\s*"
    r")",
    re.IGNORECASE,
)


# The first words a framing opening can start with: most claims skip the regular expression.
_OPENERS = frozenset("based according as from per in judging the this these our my given provided above retrieved "
                     "cited available supplied following context document documents passage passages text texts "
                     "source sources information article articles excerpt excerpts search references reference "
                     "evidence material data it it's it\u2019s for last all to however however, additionally "
                     "additionally, keep note".split())

# A list marker that opens a sentence ("1. Messi scored twice", "(2) The club ..."): no number of the claim.
_LIST_LEAD = re.compile(r"\s*(?:\(?\d{1,2}[.)]|\(\d{1,2}\)|[*\u2022])\s+(?=[A-Z\"'\u201c])")


def strip_list_marker(claim: str) -> str:
    """The claim without a list marker that opens it."""
    if not claim or not (claim[0].isdigit() or claim[0] in "(*\u2022 "):
        return claim
    m = _LIST_LEAD.match(claim)
    return claim if m is None else claim[m.end():]


def strip_boilerplate(claim: str) -> tuple[str, str]:
    """(the claim without a framing opening, the opening set aside or "")."""
    first = claim[:12].lstrip().split(" ", 1)[0].lower()
    if first not in _OPENERS:
        return claim, ""
    m = _BOILERPLATE.match(claim)
    if m is None or m.end() >= len(claim) - 1:
        return claim, ""
    rest = claim[m.end():]
    return rest[:1].upper() + rest[1:], claim[: m.end()].strip().rstrip(",")
