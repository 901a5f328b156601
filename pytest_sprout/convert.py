"""`python -m pytest_sprout.convert`: the public entry point of `cli.convert`."""

import sys

from .cli.convert import main

if __name__ == "__main__":
    sys.exit(main())
