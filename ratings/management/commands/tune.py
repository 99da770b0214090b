"""`manage.py tune (FILE | --ladder SLUG) [--budget N] [--json] [--apply [LADDER_SLUG]]`: search on the first half, report on the second."""

from __future__ import annotations

import io
import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ratings.engine.types import EngineError
from ratings.lab.cli import add_tune_arguments, run_tune
from ratings.management import evaluation
from ratings.services import apply_params


class Command(BaseCommand):
    help = (
        "Search the rating parameters that minimise log-loss on the first half of a history "
        "(online, no look-ahead); report them against the defaults and the peers on the second half."
    )

    def add_arguments(self, parser: CommandParser) -> None:

        add_tune_arguments(parser, file_optional=True)
        evaluation.add_ladder_argument(parser)
        parser.add_argument(
            "--apply",
            nargs="?",
            const=True,
            metavar="LADDER_SLUG",
            help="store the tuned settings on LADDER_SLUG (or, without a slug, on the --ladder "
            "tuned) through the ladder's own validation, then replay its ratings",
        )

    def handle(self, *args: object, **options: Any) -> None:

        target = options["apply"]
        if target is True:
            target = options.get("ladder")
            if not target:
                raise CommandError(
                    "--apply stores settings on a ladder: give --apply LADDER_SLUG, "
                    "or tune one with --ladder SLUG --apply"
                )
        if target and options.get("no_floor"):
            raise CommandError(
                "--no-floor settings are for comparison only; a ladder keeps the floor"
            )
        evaluation.check_source(options)
        if options["budget"] < 1:
            raise CommandError("--budget must be at least 1")
        if not target:
            evaluation.run(self, run_tune, options)
            return
        buffer = io.StringIO()
        self.stdout, shown = type(self.stdout)(buffer), self.stdout
        try:
            evaluation.run(self, run_tune, {**options, "json": True})
        finally:
            self.stdout = shown
        result = json.loads(buffer.getvalue())

        try:
            ladder = apply_params(target, result["params"])
        except EngineError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(buffer.getvalue(), ending="")
        self.stdout.write(
            f"Applied the tuned settings to {ladder.slug}; its ratings were replayed with them."
        )
