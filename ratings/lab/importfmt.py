"""The match import format (RULES.md "Import format"): `played_on,side_a,side_b,score,stats` (CSV, UTF-8).

`parse_matches` checks every row and reports every problem at once, with 1-based file
line numbers (the header is line 1). Matches get ids in file order (1, 2, ...), and the
list comes back sorted stably by date: rows of one day keep their file order, and a row
dated before the row above it (BWF's file has a few) moves to its date.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from operator import itemgetter
from typing import Any

from ratings.engine.formats import ScoreError, ScoringFormat
from ratings.engine.replay import MatchRow
from ratings.engine.types import MAX_TEAM_SIZE, EngineError, MatchResult

HEADER = ("played_on", "side_a", "side_b", "score", "stats")
PLAYER_SEPARATOR = ";"
# A cell a spreadsheet would run as a formula (CSV injection): written with a leading
# apostrophe, which spreadsheets show as text and parse_matches takes off again.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
TEXT_MARK = "'"
MAX_POINT_DIGITS = 9  # beyond any game; and int() of thousands of digits is refused anyway
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_GAME = re.compile(r"(\d+)-(\d+)")


@dataclass(frozen=True)
class Limits:
    """What the store behind an import can hold; a row beyond them is refused with its line
    rather than cut, wrapped or failing half-way (the site passes its own: ratings/imports.py)."""

    max_name_length: int | None = None
    max_points: int | None = None
    earliest: date | None = None
    latest: date | None = None


NO_LIMITS = Limits()


class ImportFormatError(EngineError):
    """Every problem found in a file, as (line number, problem) pairs."""

    def __init__(self, errors: Sequence[tuple[int, str]]) -> None:
        self.errors: list[tuple[int, str]] = sorted(errors, key=lambda e: e[0])
        super().__init__("\n".join(f"line {line}: {problem}" for line, problem in self.errors))


def parse_matches(
    lines_or_text: str | Iterable[str],
    scoring_format: ScoringFormat,
    team_size: int | None = None,
    limits: Limits = NO_LIMITS,
    cached: bool = True,
) -> list[MatchResult]:
    """The matches of an import file, sorted by date (file order within a day).

    `team_size`: players a side must have; None takes the first match's size for the
    whole file. `limits`: what the caller can store. Raises ImportFormatError listing every
    problem found.

    Each distinct date, side and score text is parsed and checked once (a file of 200,000
    rows has a few hundred dates, a few thousand players and score lines): the answer, or
    the problems, are kept for the next row with the same text. `cached=False` parses every
    cell afresh; the result is the same (tests/ratings/lab/test_engine_importfmt.py).
    """
    return _parse(lines_or_text, scoring_format, team_size, limits, cached, MatchResult)


def parse_rows(
    lines_or_text: str | Iterable[str],
    scoring_format: ScoringFormat,
    team_size: int | None = None,
    limits: Limits = NO_LIMITS,
) -> list[MatchRow]:
    """`parse_matches` as plain rows (`replay.MatchRow`: played_on, side_a, side_b, games, id,
    stats), for `replay.encode_rows`: the same checks and errors, no MatchResult built
    (`rate` on a large file)."""
    return _parse(lines_or_text, scoring_format, team_size, limits, True, _row)


def _row(
    played_on: date,
    side_a: tuple[str, ...],
    side_b: tuple[str, ...],
    games: tuple[tuple[int, int], ...],
    stats: dict[str, dict[str, float]] | None,
    match_id: int,
    line: int,
) -> MatchRow:
    return (played_on, side_a, side_b, games, match_id, stats)


def _parse(
    lines_or_text: str | Iterable[str],
    scoring_format: ScoringFormat,
    team_size: int | None,
    limits: Limits,
    cached: bool,
    make: Callable[..., Any],
) -> list[Any]:
    if team_size is not None and not 1 <= team_size <= MAX_TEAM_SIZE:
        raise EngineError(f"team size must be 1 to {MAX_TEAM_SIZE}, not {team_size}")
    lines = (
        lines_or_text.splitlines(keepends=True) if isinstance(lines_or_text, str) else lines_or_text
    )
    reader = csv.reader(_strip_bom(lines), strict=True)
    errors: list[tuple[int, str]] = []
    matches: list[Any] = []
    expected_size = team_size
    first_size_line = 0
    cells = _Cells(scoring_format) if cached else None
    good = cells.good if cells is not None else None
    plain = make is _row  # rows built in place on the common path (what _row builds)
    try:
        header = next(reader, None)
    except csv.Error as exc:
        raise ImportFormatError([(1, f"the header is not valid CSV ({exc})")]) from None
    end_of_last = reader.line_num
    if header is None:
        raise ImportFormatError([(1, f"the file is empty; it needs the header {','.join(HEADER)}")])
    names = tuple(h.strip().lower() for h in header)
    if names not in (HEADER, HEADER[:4]):
        raise ImportFormatError(
            [(1, f"the header must be {','.join(HEADER)}, not {','.join(header)}")]
        )
    while True:
        line = end_of_last + 1
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            errors.append((line, f"not valid CSV ({exc})"))
            end_of_last = reader.line_num
            continue
        end_of_last = reader.line_num
        if good is not None and NO_LIMITS is limits and 4 <= len(row) <= 5:
            # The common row: every cell seen before and valid, no stats. The same checks as
            # below, answered by the cells' earlier answers.
            played_on = good.dates.get(row[0])
            side_a, side_b = good.sides.get(row[1]), good.sides.get(row[2])
            games = good.scores.get(row[3])
            if (
                played_on is not None
                and side_a is not None
                and side_b is not None
                and games is not None
                and (len(row) == 4 or not row[4])
                and len(side_a) == len(side_b) == expected_size
                and (
                    side_a[0] != side_b[0]
                    if expected_size == 1
                    else len({*side_a, *side_b}) == 2 * expected_size
                )
            ):
                if plain:
                    matches.append((played_on, side_a, side_b, games, len(matches) + 1, None))
                else:
                    matches.append(
                        make(played_on, side_a, side_b, games, None, len(matches) + 1, line)
                    )
                continue
        joined = "".join(row)
        if not joined.strip():
            continue  # blank lines are allowed, e.g. at the end of the file
        problems: list[str] = []
        if "\x00" in joined:
            errors.append((line, "the row contains a NUL character (\\0)"))
            continue
        match = _parse_row(row, line, len(matches) + 1, scoring_format, problems, cells)
        if match is not None and limits is not NO_LIMITS:
            _check_limits(match, limits, problems)
        if match is not None and len(match[1]) == len(match[2]):
            size = len(match[1])
            if expected_size is None:
                expected_size, first_size_line = size, line
            elif size != expected_size:
                if team_size is not None:
                    problems.append(
                        f"sides have {size} players; this ladder plays {team_size} per side"
                    )
                else:
                    problems.append(
                        f"sides have {size} players but the first match (line {first_size_line}) "
                        f"has {expected_size}; a file holds one team size"
                    )
        errors.extend((line, p) for p in problems)
        if match is not None and not problems:
            matches.append(make(*match))
    if errors:
        raise ImportFormatError(errors)
    # Stable: rows of one day keep their file order (= id order).
    matches.sort(key=(lambda m: m.played_on) if make is MatchResult else itemgetter(0))
    return matches


def _check_limits(match: _Parts, limits: Limits, problems: list[str]) -> None:
    played_on, side_a, side_b, games = match[:4]
    if limits.earliest is not None and played_on < limits.earliest:
        problems.append(f"played_on {played_on} is before {limits.earliest}")
    if limits.latest is not None and played_on > limits.latest:
        problems.append(f"played_on {played_on} is after {limits.latest}")
    if limits.max_name_length is not None:
        for name in (*side_a, *side_b):
            if len(name) > limits.max_name_length:
                problems.append(
                    f"player name {name[:20]!r}… has {len(name)} characters; "
                    f"at most {limits.max_name_length}"
                )
    if limits.max_points is not None:
        for number, game in enumerate(games, 1):
            if max(game) > limits.max_points:
                problems.append(
                    f"game {number} ({game[0]}-{game[1]}) has more than {limits.max_points} points"
                )


def _strip_bom(lines: Iterable[str]) -> Iterable[str]:
    first = True
    for line in lines:
        if first:
            line = line.removeprefix("\ufeff")
            first = False
        yield line


# A valid row's parts: played_on, side_a, side_b, games, stats, id, line (MatchResult's order
# but id before line, as `make` takes them).
_Parts = tuple[
    date,
    tuple[str, ...],
    tuple[str, ...],
    tuple[tuple[int, int], ...],
    dict[str, dict[str, float]] | None,
    int,
    int,
]


@dataclass(frozen=True, slots=True)
class _Good:
    """Cell texts that parsed with no problem, and what they parsed to."""

    dates: dict[str, date]
    sides: dict[str, tuple[str, ...]]
    scores: dict[str, tuple[tuple[int, int], ...]]


class _Cells:
    """What each distinct cell text parsed to, with its problems: each is parsed once."""

    def __init__(self, scoring_format: ScoringFormat) -> None:
        self.scoring_format = scoring_format
        self.dates: dict[str, tuple[date | None, list[str]]] = {}
        self.sides: dict[tuple[str, str], tuple[tuple[str, ...] | None, list[str]]] = {}
        self.scores: dict[str, tuple[tuple[tuple[int, int], ...] | None, list[str]]] = {}
        self.good = _Good({}, {}, {})  # the texts that parsed with no problem, and to what

    def date(self, text: str, problems: list[str]) -> date | None:
        found = self.dates.get(text)
        if found is None:
            mine: list[str] = []
            found = self.dates[text] = (_parse_date(text.strip(), mine), mine)
            if found[0] is not None and not mine:
                self.good.dates[text] = found[0]
        problems.extend(found[1])
        return found[0]

    def side(self, text: str, label: str, problems: list[str]) -> tuple[str, ...] | None:
        found = self.sides.get((text, label))
        if found is None:
            mine: list[str] = []
            found = self.sides[(text, label)] = (_parse_side(text, label, mine), mine)
            if found[0] is not None and not mine:
                self.good.sides[text] = found[0]
        problems.extend(found[1])
        return found[0]

    def score(self, text: str, problems: list[str]) -> tuple[tuple[int, int], ...] | None:
        found = self.scores.get(text)
        if found is None:
            mine: list[str] = []
            found = self.scores[text] = (_parse_score(text, self.scoring_format, mine), mine)
            if found[0] is not None and not mine:
                self.good.scores[text] = found[0]
        problems.extend(found[1])
        return found[0]


def _parse_row(
    row: list[str],
    line: int,
    match_id: int,
    scoring_format: ScoringFormat,
    problems: list[str],
    cells: _Cells | None = None,
) -> _Parts | None:
    if len(row) not in (4, 5):
        problems.append(f"expected 5 columns ({','.join(HEADER)}), found {len(row)}")
        return None
    if cells is not None:
        played_on = cells.date(row[0], problems)
        side_a = cells.side(row[1], "A", problems)
        side_b = cells.side(row[2], "B", problems)
        games = cells.score(row[3], problems)
    else:
        played_on = _parse_date(row[0].strip(), problems)
        side_a = _parse_side(row[1], "A", problems)
        side_b = _parse_side(row[2], "B", problems)
        games = _parse_score(row[3], scoring_format, problems)
    if side_a and side_b:
        if len(side_a) != len(side_b):
            problems.append(f"side A has {len(side_a)} players but side B has {len(side_b)}")
        everyone = side_a + side_b
        if len(set(everyone)) != len(everyone):
            twice = sorted({n for n in everyone if everyone.count(n) > 1})
            problems.append(f"{', '.join(twice)} appears twice in the match")
    stats_text = row[4] if len(row) == 5 else ""
    stats = (
        _parse_stats(stats_text, set(side_a or ()) | set(side_b or ()), problems)
        if stats_text.strip()
        else None
    )
    if played_on is None or side_a is None or side_b is None or games is None:
        return None
    return (played_on, side_a, side_b, games, stats, match_id, line)


def _parse_date(text: str, problems: list[str]) -> date | None:
    if not _DATE.fullmatch(text):
        problems.append(f"played_on {text!r} is not a date like 2024-03-31")
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        problems.append(f"played_on {text!r} is not a real date")
        return None


def spreadsheet_safe(cell: str) -> str:
    """`cell` as a spreadsheet will show it and never run it (OWASP's CSV injection advice)."""
    return TEXT_MARK + cell if cell.lstrip(TEXT_MARK).startswith(FORMULA_STARTS) else cell


def from_spreadsheet_safe(cell: str) -> str:
    """The cell spreadsheet_safe was given (other cells as they are)."""
    if cell.startswith(TEXT_MARK) and cell.lstrip(TEXT_MARK).startswith(FORMULA_STARTS):
        return cell[1:]
    return cell


def _parse_side(text: str, label: str, problems: list[str]) -> tuple[str, ...] | None:
    text = from_spreadsheet_safe(text.strip())
    names = tuple(n.strip() for n in text.split(PLAYER_SEPARATOR))
    if not text.strip():
        problems.append(f"side {label} has no players")
        return None
    if any(not n for n in names):
        problems.append(f"side {label} {text!r} has an empty player name")
        return None
    if len(names) > MAX_TEAM_SIZE:
        problems.append(f"side {label} has {len(names)} players; at most {MAX_TEAM_SIZE} per side")
        return None
    return names


def _parse_score(
    text: str, scoring_format: ScoringFormat, problems: list[str]
) -> tuple[tuple[int, int], ...] | None:
    tokens = text.split()
    if not tokens:
        problems.append("score is empty; write games like 21-15 19-21 21-18")
        return None
    games = []
    for token in tokens:
        m = _GAME.fullmatch(token)
        if m is None:
            problems.append(
                f"score {text.strip()!r} is not games like 21-15 19-21 21-18 ({token!r})"
            )
            return None
        if max(len(m.group(1)), len(m.group(2))) > MAX_POINT_DIGITS:
            problems.append(f"score {token[:30]!r} has more points than any game")
            return None
        games.append((int(m.group(1)), int(m.group(2))))
    result = tuple(games)
    try:
        scoring_format.validate_games(result)
    except ScoreError as exc:
        problems.extend(exc.problems)
        return None
    return result


def _parse_stats(
    text: str, players: set[str], problems: list[str]
) -> dict[str, dict[str, float]] | None:
    if not text.strip():
        return None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        problems.append(f"stats are not valid JSON ({exc.msg} at character {exc.pos})")
        return None
    shape = 'stats must look like {"player": {"stat": number}}'
    if not isinstance(raw, dict):
        problems.append(shape)
        return None
    stats: dict[str, dict[str, float]] = {}
    for player, values in raw.items():
        if players and player not in players:
            problems.append(f"stats for {player!r}, who is not in this match")
            continue
        if not isinstance(values, dict) or not all(_is_number(v) for v in values.values()):
            problems.append(f"{shape}; the stats of {player!r} are not")
            continue
        stats[player] = {stat: float(v) for stat, v in values.items()}
    return stats


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def write_matches(matches: Iterable[MatchResult]) -> str:
    """The matches in the import format, in the order given (parse_matches reads it back)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(HEADER)
    for m in matches:
        for name in (*m.side_a, *m.side_b):
            if PLAYER_SEPARATOR in name or name != name.strip() or not name:
                raise EngineError(f"player name {name!r} cannot be written to the import format")
        writer.writerow(
            (
                m.played_on.isoformat(),
                spreadsheet_safe(PLAYER_SEPARATOR.join(m.side_a)),
                spreadsheet_safe(PLAYER_SEPARATOR.join(m.side_b)),
                " ".join(f"{a}-{b}" for a, b in m.games),
                _stats_text(m.stats),
            )
        )
    return out.getvalue()


def _stats_text(stats: Mapping[str, Mapping[str, float]] | None) -> str:
    if not stats:
        return ""
    return json.dumps({p: dict(v) for p, v in stats.items()}, sort_keys=True, ensure_ascii=False)
