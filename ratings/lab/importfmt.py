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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from ratings.engine.formats import ScoreError, ScoringFormat
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
) -> list[MatchResult]:
    """The matches of an import file, sorted by date (file order within a day).

    `team_size`: players a side must have; None takes the first match's size for the
    whole file. `limits`: what the caller can store. Raises ImportFormatError listing every
    problem found.
    """
    if team_size is not None and not 1 <= team_size <= MAX_TEAM_SIZE:
        raise EngineError(f"team size must be 1 to {MAX_TEAM_SIZE}, not {team_size}")
    lines = (
        lines_or_text.splitlines(keepends=True) if isinstance(lines_or_text, str) else lines_or_text
    )
    reader = csv.reader(_strip_bom(lines), strict=True)
    errors: list[tuple[int, str]] = []
    matches: list[MatchResult] = []
    expected_size = team_size
    first_size_line = 0
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
        if not row or all(not cell.strip() for cell in row):
            continue  # blank lines are allowed, e.g. at the end of the file
        problems: list[str] = []
        if any("\x00" in cell for cell in row):
            errors.append((line, "the row contains a NUL character (\\0)"))
            continue
        match = _parse_row(row, line, len(matches) + 1, scoring_format, problems)
        if match is not None:
            _check_limits(match, limits, problems)
        if match is not None and len(match.side_a) == len(match.side_b):
            size = len(match.side_a)
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
            matches.append(match)
    if errors:
        raise ImportFormatError(errors)
    # Stable: rows of one day keep their file order (= id order).
    matches.sort(key=lambda m: m.played_on)
    return matches


def _check_limits(match: MatchResult, limits: Limits, problems: list[str]) -> None:
    if limits.earliest is not None and match.played_on < limits.earliest:
        problems.append(f"played_on {match.played_on} is before {limits.earliest}")
    if limits.latest is not None and match.played_on > limits.latest:
        problems.append(f"played_on {match.played_on} is after {limits.latest}")
    if limits.max_name_length is not None:
        for name in (*match.side_a, *match.side_b):
            if len(name) > limits.max_name_length:
                problems.append(
                    f"player name {name[:20]!r}… has {len(name)} characters; "
                    f"at most {limits.max_name_length}"
                )
    if limits.max_points is not None:
        for number, game in enumerate(match.games, 1):
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


def _parse_row(
    row: list[str], line: int, match_id: int, scoring_format: ScoringFormat, problems: list[str]
) -> MatchResult | None:
    if len(row) not in (4, 5):
        problems.append(f"expected 5 columns ({','.join(HEADER)}), found {len(row)}")
        return None
    played_on = _parse_date(row[0].strip(), problems)
    side_a = _parse_side(row[1], "A", problems)
    side_b = _parse_side(row[2], "B", problems)
    games = _parse_score(row[3], scoring_format, problems)
    if side_a and side_b:
        if len(side_a) != len(side_b):
            problems.append(f"side A has {len(side_a)} players but side B has {len(side_b)}")
        everyone = side_a + side_b
        twice = sorted({n for n in everyone if everyone.count(n) > 1})
        if twice:
            problems.append(f"{', '.join(twice)} appears twice in the match")
    stats = _parse_stats(
        row[4] if len(row) == 5 else "", set(side_a or ()) | set(side_b or ()), problems
    )
    if played_on is None or side_a is None or side_b is None or games is None:
        return None
    return MatchResult(
        played_on=played_on,
        side_a=side_a,
        side_b=side_b,
        games=games,
        stats=stats,
        id=match_id,
        line=line,
    )


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
