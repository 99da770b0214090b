"""python manage.py export_ratings --ladder SLUG [--output FILE]"""

from __future__ import annotations

from ratings.imports import export_ratings
from ratings.management.commands._export import ExportCommand


class Command(ExportCommand):
    help = "Write player,rating,rd,volatility,matches of a ladder as CSV."
    export = staticmethod(export_ratings)
