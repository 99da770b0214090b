"""Numbers as a person reads them: ratings, RDs, changes and probabilities (RATINGS.md §1
and §8). Pages, explanations, the chart, e-mails, notices and the API's ``*_display`` fields
call these; nothing else turns a rating into text. Every amount of rating points reads
through the engine's ``scales.display`` (decimal, half up), so 4505 is "4.51" everywhere."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from ratings.engine.scales import DISPLAY_DIVISOR, display


def format_rating(value: float | None) -> str:
    """A rating in points as the ladder shows it: 4500 → "4.50" (RATINGS.md §1)."""
    return "–" if value is None else display(value)


def format_rd(value: float | None) -> str:
    """An RD (or any spread or change) in display units, two decimals: 189 → "0.19"
    (RATINGS.md §8: never raw points beside a 2.0–9.0 rating)."""
    return "–" if value is None else display(value)


def format_percent(probability: float | None) -> str:
    """A probability as people read it: 0.634 → "63%"; None → "–" (no prediction, never a
    made-up number). Only a certainty reads "100%" or "0%": 0.9996 is ">99%"."""
    if probability is None:
        return "–"
    shown = f"{probability:.0%}"
    if shown == "100%" and probability < 1.0:
        return ">99%"
    if shown == "0%" and probability > 0.0:
        return "<1%"
    return shown


def shown_change(value: float, after: float) -> float:
    """A change of rating as a reader checks it beside the rating it led to: the shown
    ``after`` minus the shown rating before (``after − value``), in points. 4674 → 4628
    reads "4.67 → 4.63", so its change is −40 ("−0.04"), not the −46 ("−0.05") the two
    unrounded ends differ by (issue 37): before + change = after on every row."""
    before = Decimal(display(after - value)) * DISPLAY_DIVISOR
    return float(Decimal(display(after)) * DISPLAY_DIVISOR - before)


def format_change(value: float | None, after: float | None = None) -> str:
    """A change of rating in display units, signed: +31 → "+0.03", −151 → "−0.15" (a real
    minus sign); a change too small to show reads "0.00", without a sign. With ``after``,
    the rating it led to, it is the change between the two shown ratings (``shown_change``):
    every change shown beside a rating passes it."""
    if value is None:
        return "–"
    if after is not None:
        value = shown_change(value, after)
    size = display(abs(value))
    if size == "0.00":
        return size
    return f"+{size}" if value > 0 else f"\u2212{size}"


_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def format_day(value: date | None) -> str:
    """A date as the tables write it: "5 Mar 2026" (English month names, like the site)."""
    return "" if value is None else f"{value.day} {_MONTHS[value.month - 1]} {value.year}"


def format_days(first: date, last: date) -> str:
    """A stretch of days, both included: "1 Sep – 30 Nov 2026", or with both years when
    they differ: "1 Dec 2026 – 28 Feb 2027"."""
    if first.year != last.year:
        return f"{format_day(first)} – {format_day(last)}"
    return f"{first.day} {_MONTHS[first.month - 1]} – {format_day(last)}"
