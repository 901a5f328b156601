"""Command-line and ini options. Each option has one name here; `get` reads it (command line
first, then the ini file, then the default)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest


@dataclass(frozen=True)
class Opt:
    flag: str  # command-line flag
    dest: str  # attribute on config.option
    help: str
    ini: str | None = None  # ini key, when the option can live in the config file
    default: Any = None
    kind: str = "string"  # "string", "bool", "int", "float", "append", "multi" (repeatable path), "secret"
    metavar: str | None = None


OPTIONS: tuple[Opt, ...] = (
    # --- suites, system, report ------------------------------------------------------------
    Opt("--sprout-suites", "sprout_suites", "folder (or file) of YAML suites", "sprout_suites", "suites", metavar="PATH"),
    Opt("--sprout-system", "sprout_system", "the system under test as 'module:factory'", "sprout_system", metavar="MOD:FACTORY"),
    Opt("--sprout-report", "sprout_report", "write the results as JSON to PATH (repeatable: one file each)", kind="multi", metavar="PATH"),
    Opt(
        "--sprout-threshold", "sprout_threshold",
        "TIER.NAME=VALUE: a judge setting or pass threshold (repeatable), e.g. groundedness.coverage=0.6",
        "sprout_thresholds", kind="append", metavar="TIER.NAME=VALUE",
    ),
    # --- asking the system ----------------------------------------------------------------------
    Opt("--sprout-concurrency", "sprout_concurrency", "answers asked of the system at once (1: one at a time, in order)", "sprout_concurrency", 8, kind="int", metavar="N"),
    Opt("--sprout-timeout", "sprout_timeout", "seconds one answer may take, retries included (default: no limit)", "sprout_timeout", kind="float", metavar="SECONDS"),
    Opt("--sprout-retries", "sprout_retries", "retries of an answer that raised an exception listed in sprout_retry_on", "sprout_retries", 0, kind="int", metavar="N"),
    Opt("--sprout-retry-on", "sprout_retry_on", "an exception class to retry, as module.Class (repeatable)", "sprout_retry_on", kind="append", metavar="EXC"),
    Opt("--sprout-reuse-answers", "sprout_reuse_answers", "reuse the system's answers cached by an earlier run", kind="bool"),
    # --- snapshot guard and golden set ----------------------------------------------------------
    Opt("--sprout-snapshot", "sprout_snapshot", "the dataset snapshot file, relative to the rootdir", "sprout_snapshot", "sprout.snapshot.json", metavar="PATH"),
    Opt("--sprout-update-snapshot", "sprout_update_snapshot", "rewrite the dataset snapshot", kind="bool"),
    Opt("--sprout-check-snapshot", "sprout_check_snapshot", "check the dataset snapshot only, run nothing", kind="bool"),
    Opt("--sprout-record", "sprout_record", "record every answer of the system to a golden set", metavar="PATH"),
    Opt("--sprout-golden", "sprout_golden", "replay a recorded golden set instead of calling the system", metavar="PATH"),
    # --- alce tier --------------------------------------------------------------------------
    Opt("--nli-model", "nli_model", "NLI model id or local path for the alce tier", "sprout_nli_model", metavar="ID_OR_PATH"),
    Opt("--nli-device", "nli_device", "cpu, cuda or auto", "sprout_nli_device", "auto"),
    Opt("--nli-batch-size", "nli_batch_size", "pairs per forward pass", "sprout_nli_batch_size", 16, kind="int"),
    Opt("--nli-max-length", "nli_max_length", "tokens per (premise, claim) chunk", "sprout_nli_max_length", 400, kind="int"),
    Opt("--nli-window", "nli_window", "chunk (score sentence-aligned chunks) or off (ALCE: whole premise, truncated)", "sprout_nli_window", "chunk"),
    Opt("--nli-no-cache", "nli_no_cache", "do not reuse NLI verdicts cached on disk", kind="bool"),
    Opt("--nli-entail-label", "nli_entail_label", "class index that means entailed/supported, for a classifier whose labels do not say", "sprout_nli_entail_label", kind="int", metavar="N"),
    Opt("--nli-trust-remote-code", "nli_trust_remote_code", "allow an NLI model that ships its own Python code (it runs on this machine)", kind="bool"),
    # --- llm tier ---------------------------------------------------------------------------
    Opt("--llm-base-url", "llm_base_url", "OpenAI-compatible endpoint for the llm tier", "sprout_llm_base_url", metavar="URL"),
    Opt("--llm-model", "llm_model", "model name at that endpoint", "sprout_llm_model"),
    Opt("--llm-api-key", "llm_api_key", "API key (or env SPROUT_LLM_API_KEY); never printed", kind="secret"),
    Opt("--llm-timeout", "llm_timeout", "seconds per LLM call", "sprout_llm_timeout", 60.0, kind="float"),
    Opt("--llm-concurrency", "llm_concurrency", "LLM calls in flight at once", "sprout_llm_concurrency", 4, kind="int"),
    Opt("--llm-metrics", "llm_metrics", "comma-separated llm metrics to run (auto: minicheck for a MiniCheck model, else the Ragas and DeepEval ones)", "sprout_llm_metrics", "auto", metavar="NAMES"),
    # --- reports and gates ------------------------------------------------------------------
    Opt("--sprout-md", "sprout_md", "write the summary as Markdown to PATH", metavar="PATH"),
    Opt("--sprout-html", "sprout_html", "write a self-contained HTML report to PATH", metavar="PATH"),
    Opt("--sprout-md-failures", "sprout_md_failures", "failing cases listed, with their reasons, in --sprout-md (default 10)",
        "sprout_md_failures", 10, kind="int", metavar="N"),
    Opt(
        "--sprout-min", "sprout_min",
        "TIER.METRIC=VALUE: fail when the 95%% lower bound is below VALUE (repeatable)",
        "sprout_min", kind="append", metavar="TIER.METRIC=VALUE",
    ),
    Opt("--sprout-compare", "sprout_compare", "compare with an earlier --sprout-report JSON", metavar="OLD.json"),
    Opt("--sprout-fail-on-regression", "sprout_fail_on_regression", "fail when a metric drop is statistically distinguishable", kind="bool"),
    Opt("--sprout-compare-any-dataset", "sprout_compare_any_dataset", "allow comparing reports of different datasets", kind="bool"),
    # --- judging the judges -----------------------------------------------------------------
    Opt(
        "--sprout-max-unscored", "sprout_max_unscored",
        "fail a tier when more than this fraction of its judged items was unscored (0-1)",
        "sprout_max_unscored", 0.5, kind="float", metavar="FRACTION",
    ),
    Opt("--sprout-mutate", "sprout_mutate", "also judge mutants of every answer and report kill rates", kind="bool"),
)

_BY_DEST = {opt.dest: opt for opt in OPTIONS}


def register(parser: pytest.Parser) -> None:
    group = parser.getgroup("sprout", "pytest-sprout: RAG grounding evaluation")
    for opt in OPTIONS:
        if opt.kind == "bool":
            group.addoption(opt.flag, dest=opt.dest, action="store_true", default=False, help=opt.help)
        elif opt.kind in ("append", "multi"):
            group.addoption(opt.flag, dest=opt.dest, action="append", default=[], metavar=opt.metavar, help=opt.help)
        elif opt.kind == "secret":
            from .secret import SecretStr

            group.addoption(opt.flag, dest=opt.dest, default=None, type=SecretStr, metavar=opt.metavar, help=opt.help)
        else:
            group.addoption(opt.flag, dest=opt.dest, default=None, metavar=opt.metavar, help=opt.help)
        if opt.ini:
            ini_type = "linelist" if opt.kind == "append" else "string"
            parser.addini(opt.ini, opt.help.replace("%%", "%"), type=ini_type, default=[] if ini_type == "linelist" else None)


def get(config: pytest.Config, dest: str) -> Any:
    """The option's value: command line, else ini, else default, converted to its kind."""
    opt = _BY_DEST[dest]
    value = config.getoption(dest)
    if opt.kind == "bool":
        return bool(value)
    if opt.kind == "append":
        ini_values = list(config.getini(opt.ini)) if opt.ini else []
        return ini_values + list(value or [])
    if opt.kind == "multi":  # a repeatable path: get() gives the first, get_all() every one
        return get_all(config, dest)[0] if get_all(config, dest) else None
    if value is None and opt.ini:
        value = config.getini(opt.ini) or None
    if value is None:
        value = opt.default
    if value is None:
        return None
    try:
        if opt.kind == "int":
            return int(value)
        if opt.kind == "float":
            return float(value)
    except ValueError:
        raise pytest.UsageError(f"{opt.flag} needs a number, got {value!r}") from None
    return value


def get_all(config: pytest.Config, dest: str) -> list[str]:
    """Every value of a repeatable path option, in order, without repeats."""
    value = config.getoption(dest)
    values = value if isinstance(value, list) else ([value] if value else [])
    return list(dict.fromkeys(str(v) for v in values if v))


def parse_assignments(values: list[str], flag: str) -> dict[tuple[str, str], float]:
    """Parse repeatable 'TIER.NAME=VALUE' options into {(tier, name): value}."""
    parsed: dict[tuple[str, str], float] = {}
    for raw in values:
        key, sep, number = raw.partition("=")
        tier, dot, name = key.strip().partition(".")
        if not sep or not dot or not tier or not name:
            raise pytest.UsageError(f"{flag}: expected TIER.NAME=VALUE, got {raw!r}")
        try:
            parsed[(tier, name.strip())] = float(number)
        except ValueError:
            raise pytest.UsageError(f"{flag}: {raw!r}: {number!r} is not a number") from None
    return parsed


# --- thresholds: one validation for --sprout-threshold / sprout_thresholds and a case's own ------
# Names each tier reads (kept here, not imported from the tiers: reading options stays cheap).
# Every value is a fraction in [0, 1], except the counts in COUNTS (a whole number in its range).
THRESHOLD_NAMES: dict[str, tuple[str, ...]] = {
    "groundedness": ("coverage", "facts"),
    "alce": ("entailment", "recall", "precision", "max_citations"),
    "ragas": ("context_precision", "context_recall", "string_similarity"),
    "llm": (
        "ragas_faithfulness", "ragas_answer_relevancy", "ragas_context_precision", "ragas_context_recall",
        "deepeval_faithfulness", "deepeval_answer_relevancy", "deepeval_contextual_precision",
        "deepeval_contextual_recall",
        "minicheck_citation_recall", "minicheck_citation_precision", "minicheck_entailment",
        "minicheck_chunk_words", "minicheck_max_citations",
    ),
}
UNIT = (0.0, 1.0)
# Settings that count something: a whole number in its range, not a fraction.
COUNTS: dict[tuple[str, str], tuple[float, float]] = {
    ("alce", "max_citations"): (1.0, 1000.0),
    ("llm", "minicheck_chunk_words"): (1.0, 1_000_000.0),
    ("llm", "minicheck_max_citations"): (1.0, 1000.0),
}
# Settings a case may not change on its own: they change how the judge works (the NLI model's
# cut-off, how many citations ALCE reads), not only where an item passes.
NOT_PER_CASE = frozenset({("alce", "entailment"), ("alce", "max_citations"), *(
    ("llm", n) for n in ("minicheck_entailment", "minicheck_chunk_words", "minicheck_max_citations"))})


def tier_settings() -> dict[str, dict[str, tuple[float, float]]]:
    """Every TIER.NAME that --sprout-threshold / sprout_thresholds accepts, with its range."""
    return {tier: {name: COUNTS.get((tier, name), UNIT) for name in names} for tier, names in THRESHOLD_NAMES.items()}


def threshold_problem(tier: str, name: str, value: Any, per_case: bool = False) -> str | None:
    """Why ``tier.name = value`` is not a valid threshold, or None when it is."""
    import math

    if tier not in THRESHOLD_NAMES:
        return f"unknown tier {tier!r} in {tier}.{name}; known tiers: {', '.join(THRESHOLD_NAMES)}"
    if name not in THRESHOLD_NAMES[tier]:
        valid = ", ".join(f"{tier}.{n}" for n in THRESHOLD_NAMES[tier])
        return f"unknown setting {tier}.{name}; valid names: {valid}"
    if per_case and (tier, name) in NOT_PER_CASE:
        return f"{tier}.{name} changes the judge itself and can only be set for the whole run (--sprout-threshold)"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"{tier}.{name} must be a number, got {value!r}"
    low, high = COUNTS.get((tier, name), UNIT)
    if not math.isfinite(value) or not low <= value <= high:
        return f"{tier}.{name}={value:g} is out of range; it must be from {low:g} to {high:g}"
    if (tier, name) in COUNTS and value != int(value):
        return f"{tier}.{name}={value:g} must be a whole number"
    return None


def check_thresholds(parsed: dict[tuple[str, str], float], flag: str = "--sprout-threshold / sprout_thresholds") -> None:
    """Refuse an unknown tier or setting name, or a value out of its range, naming the valid ones."""
    for (tier, name), value in parsed.items():
        problem = threshold_problem(tier, name, value)
        if problem:
            raise pytest.UsageError(f"{flag}: {problem}")


def parse_thresholds(values: list[str], flag: str = "--sprout-threshold") -> dict[tuple[str, str], float]:
    """Parse and validate --sprout-threshold / sprout_thresholds."""
    parsed = parse_assignments(values, flag)
    check_thresholds(parsed, flag)
    return parsed


def check_url(url: str, flag: str = "--llm-base-url") -> None:
    """An http(s) URL with a host, checked before any client is built (a malformed one would fail
    inside the HTTP client, deep in a traceback)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  (parses the port: "http://host:99999" raises here)
    except ValueError as exc:
        raise pytest.UsageError(f"{flag}: {url!r} is not a valid URL ({exc})") from None
    if parts.scheme not in ("http", "https"):
        raise pytest.UsageError(f"{flag}: {url!r} must start with http:// or https://")
    if not parts.hostname:
        raise pytest.UsageError(f"{flag}: {url!r} names no host")
    if any(ch.isspace() or ord(ch) < 32 for ch in url):
        raise pytest.UsageError(f"{flag}: {url!r} contains spaces or control characters")


def check_fraction(value: float, flag: str) -> None:
    import math

    if not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise pytest.UsageError(f"{flag} must be a fraction from 0 to 1, got {value:g}")


def explicit(config: pytest.Config, dest: str) -> bool:
    """Whether the user set the option (command line or ini), rather than leaving the default."""
    opt = _BY_DEST[dest]
    if config.getoption(dest) not in (None, [], False):
        return True
    return bool(opt.ini and config.getini(opt.ini))
