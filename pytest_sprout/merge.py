"""`python -m pytest_sprout.merge`: the public entry point of `cli.merge`."""

import sys

from .cli.merge import main

if __name__ == "__main__":
    sys.exit(main())
