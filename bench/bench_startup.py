"""Start-up cost of third-party pytest plugins that the extras install (deepeval, langsmith,
hypothesis and friends), measured on `pytest -m groundedness` over 10 demo cases.

    .venv/bin/python bench/bench_startup.py [--rounds 3] [--attribute]

Every variant is a whole pytest process in the same throw-away project (the reference system and
the first 10 cases of suites/care.yaml), run in alternation so that machine noise hits all alike:

- core: PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 and ``-p sprout``: only pytest-sprout loads, which is
  what a core-only install (pytest-sprout and its four dependencies) loads.
- all: every plugin the installed extras bring, loaded by pytest as it does by default.
- all minus one (``--attribute``): ``-p no:NAME`` for each heavy plugin, to attribute the cost.
- recommended: the ``addopts`` line that docs/guide.md recommends (``-p no:deepeval -p
  no:langsmith_plugin``), written into the project's ini file, so the measurement covers what a
  user gets by following it.
- explicit plugins only: ``addopts = --disable-plugin-autoload -p sprout -p xdist``: no plugin
  loads unless named (pytest >= 8.4 reads the flag from addopts before it loads entry points).

Prints each variant's median seconds and its ratio against core. Telemetry stays opted out
(DEEPEVAL_TELEMETRY_OPT_OUT=1 and friends) in every variant: nothing is sent anywhere.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
HEAVY = ("deepeval", "langsmith_plugin", "hypothesispytest")
RECOMMENDED = "-p no:deepeval -p no:langsmith_plugin"
EXPLICIT = "--disable-plugin-autoload -p sprout -p xdist"  # docs/guide.md, "Start-up time"


def make_project(root: Path, cases: int = 10) -> None:
    import yaml

    data = yaml.safe_load((REPO / "suites" / "care.yaml").read_text(encoding="utf-8"))
    data["cases"] = data["cases"][:cases]
    data["defaults"] = {"tiers": ["groundedness"]}
    (root / "suites").mkdir()
    (root / "suites" / "care.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    (root / "conftest.py").write_text((REPO / "conftest.py").read_text(encoding="utf-8"), encoding="utf-8")


def variants(attribute: bool) -> dict[str, tuple[list[str], dict[str, str], str]]:
    """name -> (extra pytest args, extra env, ini addopts)."""
    out: dict[str, tuple[list[str], dict[str, str], str]] = {
        "core": (["-p", "sprout"], {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}, ""),
        "all": ([], {}, ""),
    }
    if attribute:
        for name in HEAVY:
            out[f"all, -p no:{name}"] = (["-p", f"no:{name}"], {}, "")
    out["recommended addopts"] = ([], {}, RECOMMENDED)
    out["recommended, -p no:hypothesispytest"] = (["-p", "no:hypothesispytest"], {}, RECOMMENDED)
    out["explicit plugins only (addopts)"] = ([], {}, EXPLICIT)
    return out


def run_once(root: Path, args: list[str], env_extra: dict[str, str], addopts: str) -> float:
    ini = "[pytest]\n" + (f"addopts = {addopts}\n" if addopts else "")
    (root / "pytest.ini").write_text(ini, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "RAGAS_DO_NOT_TRACK": "true",
           "DEEPEVAL_TELEMETRY_OPT_OUT": "1", "DEEPEVAL_DISABLE_DOTENV": "1", "LANGSMITH_TRACING": "false",
           **env_extra}
    env.pop("PYTEST_ADDOPTS", None)
    if "PYTEST_DISABLE_PLUGIN_AUTOLOAD" not in env_extra:
        env.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
    cmd = [sys.executable, "-m", "pytest", "-m", "groundedness", "-q", "-p", "no:cacheprovider", *args]
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=600)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--attribute", action="store_true", help="also time 'all' minus each heavy plugin")
    args = parser.parse_args()
    times: dict[str, list[float]] = {name: [] for name in variants(args.attribute)}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_project(root)
        for _ in range(args.rounds):
            for name, (extra, env, addopts) in variants(args.attribute).items():
                times[name].append(run_once(root, extra, env, addopts))
    core = statistics.median(times["core"])
    print(f"pytest -m groundedness on 10 cases, median of {args.rounds} runs each")
    print(f"{'variant':36} {'seconds':>8} {'x core':>7}")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:36} {median:8.2f} {median / core:7.2f}")
    print(f"recommended addopts: {RECOMMENDED}")
    print(f"explicit plugins only: {EXPLICIT}")


if __name__ == "__main__":
    main()
