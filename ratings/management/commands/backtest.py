"""`manage.py backtest (FILE | --ladder SLUG) [--method M] [--param k=v ...] [--json]` (RATINGS.md §7)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from ratings.lab.cli import add_backtest_arguments, run_backtest
from ratings.management import evaluation


class Command(BaseCommand):
    help = (
        "Predict each match, then rate it; report log-loss, Brier, accuracy, average error, "
        "Spearman and convergence over the last half, beside Elo, Glicko-2, TrueSkill and OpenSkill."
    )

    def add_arguments(self, parser: CommandParser) -> None:

        add_backtest_arguments(parser, file_optional=True)
        evaluation.add_ladder_argument(parser)

    def handle(self, *args: object, **options: Any) -> None:

        evaluation.check_source(options)
        evaluation.run(self, run_backtest, options)
