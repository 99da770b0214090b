"""The rating-over-time chart of a player page: an inline SVG drawn on the server.

No JavaScript and no chart library: ``rating_chart`` turns a player's history into
coordinates, and ``templates/ratings/_chart.html`` draws them. The line is the rating
at the end of each day the player played; the band around it is ± RD; the axes read
in x.xx (RATINGS.md §1) and dates.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from ladder.clubs.formatting import format_change, format_rating, format_rd

WIDTH = 720
HEIGHT = 280
# The chart a phone shows (site.css picks one by the screen's width): drawn at about the size
# it is seen, so its labels read at 11 px instead of 5.
NARROW_WIDTH = 360
NARROW_HEIGHT = 240
LEFT, RIGHT, TOP, BOTTOM = 48, 12, 12, 28  # room for the axis labels
# More days than this and every k-th day is drawn (the last always is).
MAX_POINTS = 400
# Dots on the line only while they stay apart.
MAX_DOTS = 60
# Rating steps between gridlines, in points (0.05 … 1.00 on the display scale).
Y_STEPS = (50, 100, 200, 250, 500, 1000)
Y_TICKS = 5
X_TICKS = 7
# The periods a reader can choose (``?range=``), as (key, label, days back; None for all).
RANGES = (("3m", "3 months", 91), ("1y", "A year", 365), ("all", "All", None))
DEFAULT_RANGE = "all"
# The table beside the chart (its text alternative) lists this many days at most, newest first.
TABLE_DAYS = 60
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    day: date
    rating: float
    rd: float
    matches: int  # matches played that day
    wins: int = 0
    change: float = 0.0  # the day's change in rating points

    @property
    def played(self) -> str:
        """ "start", "won 1", "won 1 of 2": the day's matches."""
        if self.matches == 0:
            return "start"
        if self.matches == 1:
            return "won" if self.wins else "lost"
        return f"won {self.wins} of {self.matches}"

    @property
    def change_text(self) -> str:
        """The day's change as every change reads: "+0.07", "\u22120.03", "0.00"."""
        return "0.00" if self.matches == 0 else format_change(self.change, self.rating)

    @property
    def label(self) -> str:
        rating = f"{format_rating(self.rating)} ± {format_rd(self.rd)}"
        if self.matches == 0:
            return f"{self.day.day} {self.day:%b %Y}: {rating} (start)"
        return f"{self.day.day} {self.day:%b %Y}: {rating}, {self.change_text} ({self.played})"


@dataclass(frozen=True)
class Dot:
    """A point as the template draws it: its centre in the SVG and its tooltip."""

    cx: str
    cy: str
    title: str


@dataclass(frozen=True)
class Tick:
    at: str  # x or y in the SVG
    label: str


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    # The plot area's edges in the SVG, formatted once for all the ticks that reach them.
    left: str
    right: str
    top: str
    bottom: str
    line: str  # SVG path data
    band: str
    points: tuple[Point, ...]
    y_ticks: tuple[Tick, ...]
    x_ticks: tuple[Tick, ...]
    summary: str  # for screen readers
    table: tuple[Point, ...]  # the text alternative: the newest days, newest first
    # Formatted here rather than in the template, where a filter per number costs more
    # than the rest of the chart.
    dots: tuple[Dot, ...]


Day = tuple[date, float, float, int, int, float]  # day, rating, rd, matches, wins, change


def daily(history: Iterable[Sequence[Any]]) -> list[Day]:
    """(day, rating, rd, matches, wins, change) at the end of each day, starting with the
    state before the first match; ``history`` is (played_on, rating_before, rd_before,
    rating_after, rd_after, match_id, side, won) in playing order."""
    days: list[Day] = []
    for played_on, rating_before, rd_before, rating_after, rd_after, *rest in history:
        won = int(bool(rest[2])) if len(rest) >= 3 else 0
        if not days:
            days.append((played_on, rating_before, rd_before, 0, 0, 0.0))
        last = days[-1]
        if last[0] == played_on and last[3] > 0:
            change = last[5] + rating_after - rating_before
            days[-1] = (played_on, rating_after, rd_after, last[3] + 1, last[4] + won, change)
        else:
            days.append((played_on, rating_after, rd_after, 1, won, rating_after - rating_before))
    return days


def since_of(key: str, today: date) -> date | None:
    """The first day a range (``RANGES``) shows; None for all."""
    back = next((days for k, _, days in RANGES if k == key), None)
    return None if back is None else date.fromordinal(today.toordinal() - back)


def in_range(days: list[Day], since: date | None) -> list[Day]:
    """The days on or after ``since``, led by the rating they started from (the end of the
    last day before, drawn as a start)."""
    if since is None or not days or days[0][0] >= since:
        return days
    before = [d for d in days if d[0] < since]
    after = [d for d in days if d[0] >= since]
    start = before[-1]
    return [(since, start[1], start[2], 0, 0, 0.0), *after]


def rating_chart(
    history: Sequence[Sequence[Any]],
    width: int = WIDTH,
    height: int = HEIGHT,
    since: date | None = None,
) -> Chart | None:
    """The chart of a history (see ``daily``) from ``since`` (all of it by default); None
    without a single match in that time."""
    days = in_range(daily(history), since)
    if len(days) < 2:
        return None
    table = tuple(
        Point(0, 0, day, rating, rd, matches, wins, change)
        for day, rating, rd, matches, wins, change in reversed(days[-TABLE_DAYS:])
    )
    if len(days) > MAX_POINTS:
        step = math.ceil(len(days) / MAX_POINTS)
        days = days[::step] + ([days[-1]] if (len(days) - 1) % step else [])
    first, last = days[0][0].toordinal(), days[-1][0].toordinal()
    low = min(d[1] - d[2] for d in days)
    high = max(d[1] + d[2] for d in days)
    y_step = next((s for s in Y_STEPS if (high - low) / s <= Y_TICKS), Y_STEPS[-1])
    low = math.floor(low / y_step) * y_step
    high = math.ceil(high / y_step) * y_step
    if high == low:
        high = low + y_step
    right, bottom = width - RIGHT, height - BOTTOM
    span = max(last - first, 1)

    def x_of(day: date, index: int) -> float:
        if last == first:  # everything on one day: spread the points evenly
            return LEFT + (right - LEFT) * index / (len(days) - 1)
        return LEFT + (right - LEFT) * (day.toordinal() - first) / span

    def y_of(rating: float) -> float:
        return bottom - (bottom - TOP) * (rating - low) / (high - low)

    # The starting state shares its x with the end of the first day: a vertical first step.
    points = [
        Point(x_of(day, i), y_of(rating), day, rating, rd, matches, wins, change)
        for i, (day, rating, rd, matches, wins, change) in enumerate(days)
    ]
    line = "M" + " L".join(f"{p.x:.1f},{p.y:.1f}" for p in points)
    upper = [f"{p.x:.1f},{y_of(p.rating + p.rd):.1f}" for p in points]
    lower = [f"{p.x:.1f},{y_of(p.rating - p.rd):.1f}" for p in reversed(points)]
    band = "M" + " L".join(upper + lower) + " Z"
    y_ticks = tuple(
        Tick(f"{y_of(value):.1f}", format_rating(value)) for value in _range(low, high, y_step)
    )
    x_ticks = tuple(
        Tick(f"{x_of(day, 0):.1f}", label)
        for day, label in _date_ticks(days[0][0], days[-1][0])
        if last != first
    )
    dots = (
        tuple(Dot(f"{p.x:.1f}", f"{p.y:.1f}", p.label) for p in points)
        if len(points) <= MAX_DOTS
        else ()
    )
    summary = (
        f"Rating from {format_rating(days[0][1])} on {days[0][0]:%d %b %Y} to {format_rating(days[-1][1])}"
        f" on {days[-1][0]:%d %b %Y}, with the ± RD band."
    )
    return Chart(
        width,
        height,
        str(LEFT),
        f"{right:.1f}",
        str(TOP),
        f"{bottom:.1f}",
        line,
        band,
        tuple(points),
        y_ticks,
        x_ticks,
        summary,
        table,
        dots,
    )


def _range(low: float, high: float, step: float) -> list[float]:
    count = round((high - low) / step)
    return [low + i * step for i in range(count + 1)]


def _date_ticks(start: date, end: date) -> list[tuple[date, str]]:
    """Up to about ``X_TICKS`` round dates between ``start`` and ``end``."""
    days = (end - start).days
    if days <= 62:
        step = next(s for s in (1, 2, 7, 14, 31) if days / s <= X_TICKS)
        ticks = []
        ordinal = start.toordinal()
        while ordinal <= end.toordinal():
            day = date.fromordinal(ordinal)
            ticks.append((day, f"{day.day} {MONTHS[day.month - 1]}"))
            ordinal += step
        return ticks
    months = (end.year - start.year) * 12 + end.month - start.month
    step = next((s for s in (1, 2, 3, 6, 12, 24, 60) if months / s <= X_TICKS), 120)
    ticks = []
    index = start.year * 12 + start.month  # months since year 0, of the month after ``start``
    while True:
        year, month = divmod(index, 12)  # month 0 is January
        day = date(year, month + 1, 1)
        if day > end:
            return ticks
        if step < 12 and month % step == 0:
            ticks.append((day, f"{MONTHS[month]} {year}"))
        elif step >= 12 and month == 0 and year % (step // 12) == 0:
            ticks.append((day, str(year)))
        index += 1
