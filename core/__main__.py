"""``python -m toolhooks``: the same command line as the ``toolhooks`` console script."""

from ._main import main

if __name__ == "__main__":
    raise SystemExit(main())
