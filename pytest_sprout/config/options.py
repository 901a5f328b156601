"""Command-line and ini options. Each option has one name here; `get` reads it (command line
first, then the ini file, then the default). The checks of option values are pure, in core/option_values.py;
the ones here raise pytest.UsageError."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable, Literal, TypeVar

import pytest

from ..core import option_values
from ..core.errors import SettingsError
from ..core.model import CITATIONS
from ..core.option_values import COUNTS, NOT_PER_CASE, THRESHOLD_NAMES, UNIT, threshold_problem, tier_settings  # noqa: F401 (importers)

T = TypeVar("T")


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
    Opt("--sprout-suites", "sprout_suites", "folder (or one file) of suites: .yaml/.yml, .jsonl or .csv", "sprout_suites", "suites", metavar="PATH"),
    Opt("--sprout-system", "sprout_system", "the system under test as 'module:factory'", "sprout_system", metavar="MOD:FACTORY"),
    Opt("--sprout-citations", "sprout_citations", "what a sentence without [k] markers is judged against: required "
        "(nothing: it is unsupported) or retrieved (every passage retrieved for the answer); a suite's "
        "defaults and a case's own 'citations:' win over it", "sprout_citations", "required", metavar="required|retrieved"),
    Opt("--sprout-report", "sprout_report", "write the results as JSON to PATH (repeatable: one file each)", kind="multi", metavar="PATH"),
    Opt(
        "--sprout-threshold", "sprout_threshold",
        "TIER.NAME=VALUE: a judge setting or pass threshold (repeatable), e.g. groundedness.coverage=0.6",
        "sprout_thresholds", kind="append", metavar="TIER.NAME=VALUE",
    ),
    # --- asking the system ----------------------------------------------------------------------
    Opt("--sprout-concurrency", "sprout_concurrency", "answers asked of the system at once, at least 1 (1: one at a time, in order)", "sprout_concurrency", 8, kind="int", metavar="N"),
    Opt("--sprout-timeout", "sprout_timeout", "seconds one answer may take, retries and waiting for a free slot included: a positive number (default: no limit)", "sprout_timeout", kind="float", metavar="SECONDS"),
    Opt("--sprout-retries", "sprout_retries", "retries (0 or more) of an answer that raised an exception listed in sprout_retry_on (waits double from 0.2 s, at most 30 s each, jittered)", "sprout_retries", 0, kind="int", metavar="N"),
    Opt("--sprout-retry-on", "sprout_retry_on", "an exception class to retry, as module.Class (repeatable)", "sprout_retry_on", kind="append", metavar="EXC"),
    Opt("--sprout-reuse-answers", "sprout_reuse_answers", "reuse the system's answers cached by an earlier run", kind="bool"),
    # --- snapshot guard and golden set ----------------------------------------------------------
    Opt("--sprout-snapshot", "sprout_snapshot", "the dataset snapshot file, relative to the rootdir", "sprout_snapshot", "sprout.snapshot.json", metavar="PATH"),
    Opt("--sprout-update-snapshot", "sprout_update_snapshot", "rewrite the dataset snapshot", kind="bool"),
    Opt("--sprout-check-snapshot", "sprout_check_snapshot", "check the dataset snapshot only, run nothing", kind="bool"),
    Opt("--sprout-record", "sprout_record", "record every answer of the system to a golden set", metavar="PATH"),
    Opt("--sprout-golden", "sprout_golden", "replay a recorded golden set instead of calling the system", metavar="PATH"),
    Opt("--sprout-shard", "sprout_shard", "run shard K of N (also env SPROUT_SHARD=K/N): a hash-based split by case, "
        "applied after -k/-m; merge the shards' reports with python -m pytest_sprout.merge", metavar="K/N"),
    # --- alce tier --------------------------------------------------------------------------
    Opt("--nli-model", "nli_model", "NLI model id or local path for the alce tier", "sprout_nli_model", metavar="ID_OR_PATH"),
    Opt("--nli-device", "nli_device", "cpu, cuda or auto", "sprout_nli_device", "auto"),
    Opt("--nli-batch-size", "nli_batch_size", "pairs per forward pass", "sprout_nli_batch_size", 16, kind="int"),
    Opt("--nli-max-length", "nli_max_length", "tokens per (premise, claim) chunk", "sprout_nli_max_length", 400, kind="int"),
    Opt("--nli-window", "nli_window", "chunk (score sentence-aligned chunks) or off (ALCE: whole premise, truncated)", "sprout_nli_window", "chunk"),
    Opt("--nli-dtype", "nli_dtype", "precision of the NLI model's weights: auto (bfloat16 on a GPU that supports it, "
        "float32 on CPU), float32, bfloat16 or float16", "sprout_nli_dtype", "auto", metavar="auto|float32|bfloat16|float16"),
    Opt("--nli-endpoint", "nli_endpoint", "URL of a text-embeddings-inference server that serves --nli-model: the "
        "alce tier scores its inputs there (/predict) instead of loading the weights; key from env SPROUT_NLI_API_KEY",
        "sprout_nli_endpoint", metavar="URL"),
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
    Opt("--sprout-labels", "sprout_labels", "JSON Lines of your own labels ({\"case_id\", \"sentence\"?, \"supported\"}); the "
        "summary and reports add the rate they correct the judge's to (prediction-powered) and the judge's "
        "sensitivity and specificity against them", "sprout_labels", metavar="PATH"),
    Opt("--sprout-label-sample", "sprout_label_sample", "write N judged sentences to label (a seeded sample, stratified by "
        "the judge's verdict) to sprout-label-sample.jsonl, with \"supported\": null for a person to fill in; "
        "an existing file of that name is never overwritten", kind="int", metavar="N"),
    Opt("--sprout-calibration", "sprout_calibration", "a judge's calibration fitted on your labels (python -m "
        "pytest_sprout.calibrate --out PATH); default: sprout.calibration.json at the rootdir when there is one",
        "sprout_calibration", metavar="PATH"),
    Opt("--sprout-calibrate", "sprout_calibrate", "with --sprout-labels: fit the groundedness judge's threshold to "
        "them (cross-validated; kept only when it clearly beats the shipped one) and write it to --sprout-calibration's "
        "path, else sprout.calibration.json at the rootdir", kind="bool"),
    Opt("--sprout-compare", "sprout_compare", "compare with an earlier --sprout-report JSON", metavar="OLD.json"),
    Opt("--sprout-fail-on-regression", "sprout_fail_on_regression", "fail when a metric drop is statistically distinguishable", kind="bool"),
    Opt("--sprout-fail-on", "sprout_fail_on", "what fails the run: any (every failing item; the default), new (not the "
        "items that failed in the --sprout-compare baseline too: they show as xfailed, known failures), gates (no item "
        "failure; only --sprout-min, --sprout-fail-on-regression and --sprout-max-unscored)", "sprout_fail_on", "any",
        metavar="any|new|gates"),
    Opt("--sprout-compare-any-dataset", "sprout_compare_any_dataset", "allow comparing reports of different datasets", kind="bool"),
    Opt("--sprout-compare-any-judging", "sprout_compare_any_judging", "allow --sprout-compare and --sprout-fail-on=new "
        "against a baseline judged with other settings (--sprout-citations, thresholds, a judge's version, calibration "
        "or model): its differences are then the judge's as much as the system's", kind="bool"),
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
            from ..core.secret import SecretStr

            group.addoption(opt.flag, dest=opt.dest, default=None, type=SecretStr, metavar=opt.metavar, help=opt.help)
        else:
            group.addoption(opt.flag, dest=opt.dest, default=None, metavar=opt.metavar, help=opt.help)
        if opt.ini:
            ini_type: Literal["linelist", "string"] = "linelist" if opt.kind == "append" else "string"
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
        raise pytest.UsageError(f"{name(dest)} needs a {'whole ' if opt.kind == 'int' else ''}number, got {value!r}") from None
    return value


# What a numeric option must be, checked at start (check_values): a bad value is a usage error
# before the first item, never a late one after the reports are touched, nor a tier skipped.
AT_LEAST_1 = ("sprout_concurrency", "nli_batch_size", "nli_max_length", "llm_concurrency")
AT_LEAST_0 = ("sprout_retries", "sprout_md_failures", "nli_entail_label")
SECONDS = ("sprout_timeout", "llm_timeout")
CHOICES = {"nli_window": ("chunk", "off"), "nli_dtype": ("auto", "float32", "bfloat16", "float16"),
           "sprout_citations": CITATIONS}


def name(dest: str) -> str:
    """How a message names an option: its flag, and its ini key when it has one."""
    opt = _BY_DEST[dest]
    return f"{opt.flag} / {opt.ini}" if opt.ini else opt.flag


def check_values(config: pytest.Config) -> None:
    """Every option's value, converted and checked before anything runs: a usage error naming
    the option (command line or ini), like the thresholds and the alce options."""
    import math

    for opt in OPTIONS:
        if opt.kind not in ("int", "float"):
            continue
        value = get(config, opt.dest)  # not a number: a usage error here
        if value is None or opt.dest not in (*AT_LEAST_1, *AT_LEAST_0, *SECONDS):
            continue  # sprout_max_unscored is a fraction: check_fraction says so
        if not math.isfinite(value):
            raise pytest.UsageError(f"{name(opt.dest)} must be a finite number, got {value!r}")
        if opt.dest in AT_LEAST_1 and value < 1:
            raise pytest.UsageError(f"{name(opt.dest)} must be at least 1, got {value:g}")
        if opt.dest in AT_LEAST_0 and value < 0:
            raise pytest.UsageError(f"{name(opt.dest)} must be 0 or more, got {value:g}")
        if opt.dest in SECONDS and not value > 0:
            no_limit = " (leave it out for no limit)" if opt.default is None else ""
            raise pytest.UsageError(f"{name(opt.dest)} must be a positive number of seconds{no_limit}, got {value:g}")
    for dest, choices in CHOICES.items():
        value = get(config, dest)
        if value not in choices:
            raise pytest.UsageError(f"{name(dest)} must be one of {', '.join(choices)}, got {value!r}")


def get_all(config: pytest.Config, dest: str) -> list[str]:
    """Every value of a repeatable path option, in order, without repeats."""
    value = config.getoption(dest)
    values = value if isinstance(value, list) else ([value] if value else [])
    return list(dict.fromkeys(str(v) for v in values if v))


# --- checks of values: pure, in core/option_values.py; here a bad value is a pytest usage error ---------------
def _usage_errors(check: Callable[..., T]) -> Callable[..., T]:
    """core/option_values.py's ``check``, raising pytest.UsageError (same message) where it raises SettingsError."""

    @functools.wraps(check)
    def checked(*args: Any, **kwargs: Any) -> T:
        try:
            return check(*args, **kwargs)
        except SettingsError as exc:
            raise pytest.UsageError(str(exc)) from None

    return checked


parse_assignments = _usage_errors(option_values.parse_assignments)
check_thresholds = _usage_errors(option_values.check_thresholds)
parse_thresholds = _usage_errors(option_values.parse_thresholds)
check_url = _usage_errors(option_values.check_url)
check_fraction = _usage_errors(option_values.check_fraction)


def parse_fail_on(value: Any) -> str:
    from ..core.fail_on import parse_mode

    return _usage_errors(parse_mode)(value)


def parse_shard(value: str, where: str) -> tuple[int, int]:
    from ..core.shard import parse_shard as parse

    return _usage_errors(parse)(value, where)


def explicit(config: pytest.Config, dest: str) -> bool:
    """Whether the user set the option (command line or ini), rather than leaving the default."""
    opt = _BY_DEST[dest]
    if config.getoption(dest) not in (None, [], False):
        return True
    return bool(opt.ini and config.getini(opt.ini))
