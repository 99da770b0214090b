"""`python -m ratings.lab ...`: the lab's command line (ratings/lab/cli.py)."""

from ratings.lab.cli import main

if __name__ == "__main__":
    raise SystemExit(main(prog="python -m ratings.lab"))
