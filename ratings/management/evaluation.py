"""What the backtest, tune and simulate commands share: the engine CLI's functions, Django's errors.

The commands are the engine's own subcommands (`python -m ratings.engine backtest ...`)
run through manage.py: same arguments, same output. Only the source of matches can
differ: a FILE, or later `--ladder SLUG` for a ladder's rated history.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any, TextIO, cast

from django.core.management.base import BaseCommand, CommandError

from ratings.engine.types import EngineError

LADDER_NOT_READY = "--ladder needs the ratings pipeline"


def add_ladder_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--ladder", metavar="SLUG", help="use a ladder's rated matches instead of FILE"
    )


def check_source(options: dict[str, Any]) -> None:
    """Exactly one of FILE and --ladder; --ladder is not available yet."""
    if options.get("file") and options.get("ladder"):
        raise CommandError("give FILE or --ladder SLUG, not both")
    if options.get("ladder"):
        raise CommandError(LADDER_NOT_READY)
    if not options.get("file"):
        raise CommandError("give FILE (matches in the import format) or --ladder SLUG")


def run(
    command: BaseCommand,
    func: Callable[[argparse.Namespace, TextIO, TextIO], int],
    options: dict[str, Any],
) -> None:
    """Call an engine CLI function with the command's streams; engine errors become CommandError."""
    from ratings.engine.__main__ import format_from_args, params_from_args
    from ratings.engine.replay import validate_params

    args = argparse.Namespace(**options)
    # The raw stream for the progress bar: OutputWrapper would end each redraw with a newline.
    err = cast(TextIO, getattr(command.stderr, "_out", command.stderr))
    try:
        validate_params(params_from_args(args))
        if hasattr(args, "format"):
            format_from_args(args)
        code = func(args, cast(TextIO, command.stdout), err)
    except EngineError as exc:
        raise CommandError(str(exc)) from exc
    except OSError as exc:
        raise CommandError(f"cannot read {exc.filename}: {exc.strerror}") from exc
    if code:
        raise CommandError(f"{func.__name__} failed (exit code {code})", returncode=code)
