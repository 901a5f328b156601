"""`python -m pytest_sprout.metaeval`: the public entry point of `cli.metaeval`."""

import sys

from .cli.metaeval import main

if __name__ == "__main__":
    sys.exit(main())
