"""`python -m pytest_sprout.calibrate`: the public entry point of `cli.calibrate`."""

import sys

from .cli.calibrate import main

if __name__ == "__main__":
    sys.exit(main())
