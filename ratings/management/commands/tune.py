"""`manage.py tune (FILE | --ladder SLUG) [--budget N] [--json]`: search on the first half, report on the second."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ratings.management import evaluation


class Command(BaseCommand):
    help = (
        "Search the rating parameters that minimise log-loss on the first half of a history "
        "(online, no look-ahead); report them against the defaults and the peers on the second half."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        from ratings.engine.__main__ import add_tune_arguments

        add_tune_arguments(parser, file_optional=True)
        evaluation.add_ladder_argument(parser)
        parser.add_argument(
            "--apply",
            action="store_true",
            help="store the tuned parameters on the ladder (--ladder only)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        from ratings.engine.__main__ import run_tune

        if options["apply"] and not options.get("ladder"):
            raise CommandError("--apply stores parameters on a ladder: use it with --ladder SLUG")
        evaluation.check_source(options)
        if options["budget"] < 1:
            raise CommandError("--budget must be at least 1")
        if not options["apply"]:
            evaluation.run(self, run_tune, options)
            return
        import io
        import json

        buffer = io.StringIO()
        self.stdout, shown = type(self.stdout)(buffer), self.stdout
        try:
            evaluation.run(self, run_tune, {**options, "json": True})
        finally:
            self.stdout = shown
        result = json.loads(buffer.getvalue())
        from ratings.services import apply_params

        ladder = apply_params(options["ladder"], result["params"])
        self.stdout.write(buffer.getvalue(), ending="")
        self.stdout.write(
            f"Applied the tuned settings to {ladder.slug}; its ratings were replayed with them."
        )
