"""What the backtest, tune and simulate commands share: the engine CLI's functions, Django's errors.

The commands are the engine's own subcommands (`python -m ratings.engine backtest ...`)
run through manage.py: same arguments, same output. Only the source of matches can
differ: a FILE, or later `--ladder SLUG` for a ladder's rated history.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Callable
from typing import Any, TextIO, cast

from django.core.management.base import BaseCommand, CommandError

from ladder.clubs.models import Ladder
from ratings.engine.replay import validate_params
from ratings.engine.types import EngineError
from ratings.imports import export_matches
from ratings.lab.cli import format_from_args, params_from_args
from ratings.models import rating_params


def add_ladder_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--ladder", metavar="SLUG", help="use a ladder's rated matches instead of FILE"
    )


def check_source(options: dict[str, Any]) -> None:
    """Exactly one of FILE and --ladder. With --ladder, the ladder's rated history (written
    to a temporary file in the import format), scoring format and settings stand in."""
    if options.get("file") and options.get("ladder"):
        raise CommandError("give FILE or --ladder SLUG, not both")
    if options.get("ladder"):
        _use_ladder(options)
    elif not options.get("file"):
        raise CommandError("give FILE (matches in the import format) or --ladder SLUG")


def _use_ladder(options: dict[str, Any]) -> None:
    ladder = Ladder.objects.filter(slug=options["ladder"]).first()
    if ladder is None:
        raise CommandError(f"no ladder {options['ladder']!r}")
    with tempfile.NamedTemporaryFile(
        "w", suffix=".csv", prefix=f"{ladder.slug}-", delete=False, encoding="utf-8"
    ) as f:
        f.write(export_matches(ladder))
    scoring = ladder.scoring()
    options.update(
        file=f.name,
        format=scoring.name,
        best_of=scoring.best_of,
        points_per_game=scoring.points_per_game,
        # as a file, its players start by the ladder's own rule (RATINGS.md §4)
        base_params=rating_params(ladder).with_overrides(newcomer_start=ladder.newcomer_start),
    )


def run(
    command: BaseCommand,
    func: Callable[[argparse.Namespace, TextIO, TextIO], int],
    options: dict[str, Any],
) -> None:
    """Call an engine CLI function with the command's streams; engine errors become CommandError."""

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
