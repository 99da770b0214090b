"""`manage.py simulate [--players N] [--matches N] [--seed S] [--json]`: RATINGS.md §7's synthetic mode."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from ratings.lab.cli import add_simulate_arguments, run_simulate
from ratings.management import evaluation


class Command(BaseCommand):
    help = (
        "Simulate seasons of players with known skill, rally by rally (singles and doubles), "
        "and report how well each team method and peer recovers the true order."
    )

    def add_arguments(self, parser: CommandParser) -> None:

        add_simulate_arguments(parser)

    def handle(self, *args: object, **options: Any) -> None:

        evaluation.run(self, run_simulate, options)
