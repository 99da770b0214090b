"""`python -m ratings.engine ...` is the lab's command line (ratings/lab/cli.py), kept under
this name too: the rules live here, the commands that run them beside them in the lab."""

from ratings.lab.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
