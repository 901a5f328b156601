"""Suite files into cases: `loader` reads a folder of YAML, JSON Lines or CSV suites (`formats`) once
per process and validates each case into a `Case`, or into a `SuiteError` naming the file, the case
and the field (`yaml_lines` finds the line of a bad key). Plain Python: no pytest."""

from .loader import SuiteError, load_suite, load_suites

__all__ = ["SuiteError", "load_suite", "load_suites"]
