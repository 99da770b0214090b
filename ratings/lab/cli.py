"""Command line: `python -m ratings.engine rate FILE.csv [--method M] [--format F] [--param k=v ...]`,
and `backtest`, `tune`, `simulate` (RATINGS.md §7) and `season` (a generated club season).

performance_weighted takes its stat weights as `--stat-weight kills=1 --stat-weight deaths=-1`
(or `--param stat_weights=kills:1,deaths:-1`).

Adding a subcommand is one function and one registration: write
`def add_NAME(subparsers) -> None` that adds its parser (use `add_input_arguments`
for FILE/--method/--format/--param) and sets `func=` to a function taking the parsed
arguments and returning the exit code, then append it to `SUBCOMMANDS`.

Team method: composite_opponent (§2) for every team size, also when the file has
stats; `--method` (or `--param team_method=...`) picks another.
Exit codes: 0 done, 1 the file has problems (listed on stderr), 2 bad arguments.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
from collections.abc import Callable, Mapping, Sequence
from datetime import date
from typing import Protocol, TextIO, TypeAlias

from ratings.engine.formats import FORMAT_NAMES, ScoringFormat, get_format
from ratings.engine.replay import Replayer, encode_rows, validate_params
from ratings.engine.settings import SETTING, Kind, SettingValue
from ratings.engine.types import TEAM_METHODS, EngineError, MatchResult, Params, defaults_for
from ratings.lab import evaluate
from ratings.lab import simulate as simulate_
from ratings.lab import thesis as thesis_
from ratings.lab import tune as tune_
from ratings.lab.importfmt import parse_matches, parse_rows, spreadsheet_safe, write_matches

RATINGS_HEADER = ("player", "rating", "rd", "volatility", "matches")


# What ``add_subparsers`` returns: each subcommand adds its parser to it.
Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


class ParamError(EngineError):
    """A --param that does not name a parameter or does not parse to its type."""


def parse_param(text: str) -> tuple[str, SettingValue]:
    """`name=value` parsed to the kind of that setting (the engine's list of settings).

    stat_weights takes JSON (`{"kills": 1, "deaths": -1}`) or `kills:1,deaths:-1`;
    season_starts takes first days as ISO dates, `2024-01-01,2024-04-01`;
    delta_max takes `none` to switch it off; booleans take true/false/1/0/yes/no.
    """
    name, sep, raw = text.partition("=")
    name, raw = name.strip(), raw.strip()
    if not sep or not name:
        raise ParamError(f"--param {text!r}: write it as name=value")
    if name not in SETTING:
        raise ParamError(f"--param {name!r}: unknown parameter; known: {', '.join(SETTING)}")
    try:
        return name, _parse_value(SETTING[name].kind, raw)
    except (ValueError, TypeError) as exc:
        raise ParamError(f"--param {name}={raw!r}: {exc}") from None


def _parse_value(kind: Kind, raw: str) -> SettingValue:
    """``raw`` as a value of a setting of ``kind`` (the engine's list says which)."""
    if kind == "weights":
        return _parse_stat_weights(raw)
    if kind == "dates":  # season_starts: first days, comma-separated ISO dates
        return tuple(
            sorted(date.fromisoformat(day.strip()) for day in raw.split(",") if day.strip())
        )
    if kind == "optional_float":
        return None if raw.lower() in ("none", "off", "") else float(raw)
    if kind == "bool":
        lowered = raw.lower()
        if lowered in ("true", "1", "yes", "on"):
            return True
        if lowered in ("false", "0", "no", "off"):
            return False
        raise ValueError("expected true or false")
    if kind == "int":
        return int(raw)
    if kind == "float":
        return float(raw)
    return raw


def _parse_stat_weights(raw: str) -> dict[str, float]:
    if raw.startswith("{"):
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ValueError(f"not valid JSON ({exc.msg})") from None
        if not isinstance(value, dict):
            raise ValueError('expected {"stat": weight, ...}')
        items = list(value.items())
    else:
        items = []
        for part in filter(None, (p.strip() for p in raw.split(","))):
            stat, colon, weight = part.partition(":")
            if not colon:
                raise ValueError("expected stat:weight pairs like kills:1,deaths:-1")
            items.append((stat.strip(), weight.strip()))
    weights = {}
    for stat, weight in items:
        if isinstance(weight, bool):
            raise ValueError(f"weight of {stat!r} must be a number")
        weights[str(stat)] = float(weight)
    return weights


def parse_stat_weight(text: str) -> tuple[str, float]:
    """One `--stat-weight NAME=WEIGHT`, e.g. `kills=1` or `adr=0.01`."""
    name, sep, raw = text.partition("=")
    name, raw = name.strip(), raw.strip()
    if not sep or not name or not raw:
        raise ParamError(f"--stat-weight {text!r}: write it as NAME=WEIGHT, e.g. kills=1")
    try:
        weight = float(raw)
    except ValueError:
        raise ParamError(f"--stat-weight {name}={raw!r}: the weight must be a number") from None
    if not math.isfinite(weight):
        raise ParamError(f"--stat-weight {name}={raw!r}: the weight must be a finite number")
    return name, weight


def params_from_args(
    args: argparse.Namespace, base: Params | None = None, team_size: int = 1
) -> Params:
    """Params from --param pairs, --stat-weight and --method.

    They change the ladder's settings (manage.py --ladder), or else the defaults for
    ``team_size`` a side (a team game's preset: ``types.defaults_for``). --method wins over
    --param team_method; each --stat-weight adds to (or replaces one stat of) the weights
    a --param stat_weights or the ladder gave.
    """
    start = base or getattr(args, "base_params", None) or defaults_for(team_size)
    overrides = dict(parse_param(p) for p in args.param or ())
    if getattr(args, "method", None):
        overrides["team_method"] = args.method
    extra = [parse_stat_weight(w) for w in getattr(args, "stat_weight", None) or ()]
    if extra:
        given = overrides.get("stat_weights", start.stat_weights)  # --param's: a mapping
        weights = dict(given if isinstance(given, Mapping) else start.stat_weights)
        weights.update(extra)
        overrides["stat_weights"] = weights
    if overrides.get(
        "team_method", start.team_method
    ) == "performance_weighted" and not overrides.get("stat_weights", start.stat_weights):
        raise ParamError(
            "performance_weighted needs stat weights: give each stat's weight with "
            "--stat-weight NAME=WEIGHT (repeatable), e.g. --stat-weight kills=1 "
            "--stat-weight deaths=-1"
        )
    # manage.py --ladder starts from the ladder's own settings (args.base_params).
    return start.with_overrides(**overrides)


def check_stat_weights(
    params: Params, matches: Sequence[MatchResult | Mapping[str, Mapping[str, float]] | None]
) -> None:
    """Refuse stat weights that name no stat of any match (a typo would weigh nothing).

    `matches` may also be each match's stats alone (`rate` reads plain rows)."""
    if not params.stat_weights or params.team_method != "performance_weighted":
        return
    every = [m.stats if isinstance(m, MatchResult) else m for m in matches]
    present = {stat for s in every for stats in (s or {}).values() for stat in stats}
    missing = sorted(set(params.stat_weights) - present)
    if missing:
        have = ", ".join(sorted(present)) or "none"
        raise EngineError(
            f"stat weight(s) for {', '.join(missing)}: no match has such a stat "
            f"(the stats in this file: {have})"
        )


def team_size(matches: Sequence[MatchResult]) -> int:
    """Players a side in a file: its largest side (what a ladder of these matches would have)."""
    return max((len(side) for m in matches for side in (m.side_a, m.side_b)), default=1)


def format_from_args(args: argparse.Namespace) -> ScoringFormat:
    """The scoring format named by --format (with --best-of / --points-per-game for generic)."""
    return get_format(args.format, args.best_of, args.points_per_game)


def load_matches(path: str, scoring_format: ScoringFormat) -> list[MatchResult]:
    """The matches of an import file (raises ImportFormatError listing every bad line)."""
    with open(path, encoding="utf-8", newline="") as f:
        return parse_matches(f, scoring_format)


def add_input_arguments(parser: argparse.ArgumentParser, file_optional: bool = False) -> None:
    """FILE, --method, --format, --best-of, --points-per-game, --param: shared by subcommands.

    `file_optional` lets a caller offer another source (manage.py's --ladder).
    """
    parser.add_argument(
        "file",
        metavar="FILE.csv",
        nargs="?" if file_optional else None,
        help="matches in the import format",
    )
    parser.add_argument(
        "--method", choices=TEAM_METHODS, help="team method (default composite_opponent)"
    )
    parser.add_argument(
        "--format",
        default="badminton_21",
        choices=FORMAT_NAMES,
        help="scoring format (default badminton_21)",
    )
    parser.add_argument(
        "--best-of",
        type=int,
        help="generic format only: the longest match, odd (default 1); a match may be "
        "any whole best-of up to it, e.g. tennis best-of-3 and best-of-5 with --best-of 5",
    )
    parser.add_argument(
        "--points-per-game", type=int, help="points per game, needed by the generic format"
    )
    parser.add_argument(
        "--param",
        action="append",
        metavar="NAME=VALUE",
        help="override a rating parameter (RATINGS.md §2), e.g. tau=0.4; repeatable",
    )
    parser.add_argument(
        "--stat-weight",
        action="append",
        metavar="NAME=WEIGHT",
        help="performance_weighted: the weight of one per-player stat of the file's stats "
        "column, e.g. --stat-weight kills=1 --stat-weight deaths=-1; repeatable",
    )


# -- rate -------------------------------------------------------------------------


def add_rate(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "rate",
        help="replay a file and print each player's rating after their last match",
        description="Replay FILE.csv and print player,rating,rd,volatility,matches (full precision).",
    )
    add_input_arguments(parser)
    parser.set_defaults(func=run_rate)


def run_rate(args: argparse.Namespace) -> int:
    """Read the file as plain rows (`parse_rows`: each distinct cell checked once, no
    MatchResult built) straight into columns, and replay them in C: only the final states
    are printed. The same ratings as `rate_all` of `load_matches` (tests: test_engine_cli)."""
    scoring_format = format_from_args(args)
    with open(args.file, encoding="utf-8", newline="") as f:
        rows = parse_rows(f, scoring_format)
    size = max((len(side) for row in rows for side in (row[1], row[2])), default=1)
    params = params_from_args(args, team_size=size)
    check_stat_weights(params, [stats for *_, stats in rows])
    replayer = Replayer(params, scoring_format)
    replayer.rate_history(encode_rows(rows))
    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow(RATINGS_HEADER)
    states = replayer.states
    for player in sorted(states):
        s = states[player]
        writer.writerow(
            (spreadsheet_safe(player), repr(s.rating), repr(s.rd), repr(s.volatility), s.matches)
        )
    return 0


# -- evaluation: backtest, tune, simulate (RATINGS.md §7) ---------------------------
# The work is in evaluate.py, tune.py and simulate.py; these only parse, show progress
# and print. The manage.py commands of the same names call the same functions.


class ProgressBar(Protocol):
    """What the commands use of a tqdm bar (tqdm has no types)."""

    unit: str

    def update(self, n: float | None = 1) -> bool | None: ...

    def __enter__(self) -> ProgressBar: ...

    def __exit__(self, *exc: object) -> None: ...


def _bar(total: int, err: TextIO, desc: str) -> ProgressBar:
    """A tqdm progress bar on `err`, shown only when `err` is a terminal."""
    from tqdm import tqdm

    bar: ProgressBar = tqdm(
        total=total, file=err, desc=desc, unit="match", unit_scale=True, disable=None, leave=False
    )
    return bar


def add_backtest_arguments(parser: argparse.ArgumentParser, file_optional: bool = False) -> None:
    """FILE, --method, --format, --param ... and --json."""
    add_input_arguments(parser, file_optional=file_optional)
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object instead of a table"
    )


def add_backtest(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "backtest",
        help="predict-then-rate evaluation against Elo, Glicko-2, TrueSkill and OpenSkill",
        description="RATINGS.md §7 on FILE.csv: each match is predicted, then rated; "
        "metrics over the last half, the engine beside its peers.",
    )
    add_backtest_arguments(parser)
    parser.set_defaults(func=run_backtest)


def run_backtest(
    args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    scoring_format = format_from_args(args)
    matches = load_matches(args.file, scoring_format)
    params = params_from_args(args, team_size=team_size(matches))
    check_stat_weights(params, matches)
    with _bar(len(matches) * len(evaluate.SYSTEMS), err, "backtest") as bar:
        result = evaluate.backtest(matches, params, scoring_format, progress=bar.update)
    if args.json:
        out.write(json.dumps(result, indent=2) + "\n")
        return 0
    out.write(evaluate.format_backtest(result) + "\n")
    for name, reason in evaluate.unavailable_reasons().items():
        out.write(f"{name}: {reason}\n")
    return 0


def add_tune_arguments(parser: argparse.ArgumentParser, file_optional: bool = False) -> None:
    """The input arguments (--param sets the starting point), the search's, and --json."""
    add_input_arguments(parser, file_optional=file_optional)
    parser.add_argument(
        "--budget",
        type=int,
        default=tune_.DEFAULT_BUDGET,
        help=f"settings to try (default {tune_.DEFAULT_BUDGET})",
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the random part of the search (default 0)"
    )
    parser.add_argument("--workers", type=int, help="processes (default: up to 2, one per CPU)")
    parser.add_argument(
        "--no-floor",
        action="store_true",
        help="for comparison only: search with the wrong-way floor (RATINGS.md §3 step 9) off; "
        "a ladder always has it on, so the result is not for a ladder",
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object instead of tables"
    )


def add_tune(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "tune",
        help="search parameters on the first half of a file, report on the second",
        description="Minimise log-loss on the first half of FILE.csv (online, no look-ahead), then "
        "report the tuned setting, the defaults and the peers on the second half.",
    )
    add_tune_arguments(parser)
    parser.set_defaults(func=run_tune)


def run_tune(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    if args.budget < 1:
        raise EngineError("--budget must be at least 1")
    scoring_format = format_from_args(args)
    if not params_from_args(args).wrong_way_floor:
        raise EngineError(
            "tune keeps the wrong-way floor on, as on every ladder; "
            "to compare without it, use --no-floor instead of --param wrong_way_floor=false"
        )
    matches = load_matches(args.file, scoring_format)
    params = params_from_args(args, team_size=team_size(matches))
    check_stat_weights(params, matches)
    with _bar(args.budget, err, "tune") as bar:
        bar.unit = "setting"
        result = tune_.tune(
            matches,
            params,
            scoring_format,
            budget=args.budget,
            seed=args.seed,
            workers=args.workers,
            progress=bar.update,
            floor=not args.no_floor,
        )
    if args.json:
        out.write(json.dumps(result, indent=2) + "\n")
    else:
        out.write(tune_.format_tune(result, params, len(matches)) + "\n")
    return 0


def add_simulate_arguments(parser: argparse.ArgumentParser) -> None:
    """--players, --matches, --seed, --param, --json; --thesis and --runs for the thesis' run."""
    parser.add_argument(
        "--players",
        type=int,
        help=f"players (default {simulate_.DEFAULT_PLAYERS}; not with --thesis)",
    )
    parser.add_argument(
        "--matches",
        type=int,
        help=f"matches per mode (default {simulate_.DEFAULT_MATCHES}; not with --thesis)",
    )
    parser.add_argument(
        "--seed", type=int, default=simulate_.DEFAULT_SEED, help="random seed (default 1)"
    )
    parser.add_argument(
        "--param",
        action="append",
        metavar="NAME=VALUE",
        help="override a rating parameter; repeatable (not with --thesis)",
    )
    parser.add_argument(
        "--thesis",
        action="store_true",
        help="the thesis' experiment (Abstracting Glicko-2 for Team Games, chapter III): 25 "
        "players, teams of 5, its matchmaking, 100 games a run, four update methods",
    )
    parser.add_argument(
        "--runs",
        type=int,
        help=f"--thesis only: runs per method (default {thesis_.DEFAULT_RUNS})",
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object instead of tables"
    )


def add_simulate(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "simulate",
        help="synthetic seasons of known skill: how well each team method finds it",
        description="Players of known skill play badminton rally by rally (singles, then doubles); "
        "every team method and peer rates the same season. With --thesis: the thesis' "
        "5-a-side experiment (chapter III), its four update methods, mean ± SD over --runs.",
    )
    add_simulate_arguments(parser)
    parser.set_defaults(func=run_simulate)


def run_simulate(
    args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    check_simulate_arguments(args)
    if getattr(args, "thesis", False):
        return run_thesis(args, out)
    players = simulate_.DEFAULT_PLAYERS if args.players is None else args.players
    matches = simulate_.DEFAULT_MATCHES if args.matches is None else args.matches
    if players < 4 or matches < 1:
        raise EngineError("--players must be at least 4 and --matches at least 1")
    params = params_from_args(args)
    with _bar(simulate_.work_size(matches), err, "simulate") as bar:
        result = simulate_.simulate(
            players=players,
            matches=matches,
            seed=args.seed,
            params=params,
            progress=bar.update,
        )
    if args.json:
        out.write(json.dumps(result, indent=2) + "\n")
    else:
        out.write(simulate_.format_simulation(result) + "\n")
    return 0


def check_simulate_arguments(args: argparse.Namespace) -> None:
    """`simulate`'s combinations: --thesis fixes its protocol, --runs belongs to it."""
    if not getattr(args, "thesis", False):
        if getattr(args, "runs", None) is not None:
            raise EngineError("--runs is for --thesis only")
        return
    fixed = [
        name for name in ("players", "matches", "param") if getattr(args, name, None) is not None
    ]
    if fixed:
        given = ", ".join(f"--{name}" for name in fixed)
        raise EngineError(f"--thesis runs the thesis' protocol as written: drop {given}")
    if args.runs is not None and args.runs < 1:
        raise EngineError("--runs must be at least 1")


def run_thesis(args: argparse.Namespace, out: TextIO) -> int:
    """`simulate --thesis`: the thesis' experiment, as a table or JSON."""
    runs = thesis_.DEFAULT_RUNS if args.runs is None else args.runs
    result = thesis_.thesis_experiment(runs=runs, seed=args.seed)
    if args.json:
        out.write(json.dumps(result, indent=2) + "\n")
    else:
        out.write(thesis_.format_thesis(result) + "\n")
    return 0


# -- season: a generated club season in the import format ------------------------

WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def _weekdays(text: str) -> tuple[int, ...]:
    days = [d.strip().lower()[:3] for d in text.split(",") if d.strip()]
    unknown = [d for d in days if d not in WEEKDAYS]
    if not days or unknown:
        raise argparse.ArgumentTypeError(f"weekdays like tue,thu (from {', '.join(WEEKDAYS)})")
    return tuple(sorted({WEEKDAYS.index(d) for d in days}))


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError("a date as YYYY-MM-DD") from None


def add_season_arguments(parser: argparse.ArgumentParser) -> None:
    """The club's size and levels, its nights, the scoring format, --output and --levels."""
    parser.add_argument("--players", type=int, default=simulate_.CLUB_DEFAULT_PLAYERS)
    parser.add_argument("--weeks", type=int, default=simulate_.CLUB_DEFAULT_WEEKS)
    parser.add_argument(
        "--spread",
        type=float,
        default=simulate_.CLUB_DEFAULT_SPREAD,
        help="true levels from centre - spread to centre + spread (default 1.1)",
    )
    parser.add_argument("--centre", type=float, default=simulate_.CLUB_DEFAULT_CENTRE)
    parser.add_argument("--team-size", type=int, default=1, choices=range(1, 6))
    parser.add_argument(
        "--nights", type=_weekdays, default=simulate_.CLUB_DEFAULT_NIGHTS, help="e.g. tue,thu"
    )
    parser.add_argument("--rounds", type=int, default=simulate_.CLUB_DEFAULT_ROUNDS)
    parser.add_argument(
        "--attendance",
        type=float,
        default=simulate_.CLUB_DEFAULT_ATTENDANCE,
        help="chance that a player comes to a club night (default 0.8)",
    )
    parser.add_argument("--end", type=_day, help="last day of the season (default today)")
    parser.add_argument("--seed", type=int, default=simulate_.DEFAULT_SEED)
    parser.add_argument(
        "--format", default="badminton_21", choices=FORMAT_NAMES, help="scoring format"
    )
    parser.add_argument("--best-of", type=int, help="games per match, generic format only")
    parser.add_argument("--points-per-game", type=int, help="generic format only")
    parser.add_argument("--output", metavar="FILE.csv", help="the matches (default stdout)")
    parser.add_argument("--levels", metavar="FILE.csv", help="write player,level here too")


def add_season(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "season",
        help="generate a weekly club season of known true levels, in the import format",
        description="Club nights over --weeks weeks up to --end: players of known true level "
        "(evenly spread around --centre), paired near their level, every match played rally by "
        "rally. Writes the import format (manage.py import_matches reads it) and, with "
        "--levels, each player's true level.",
    )
    add_season_arguments(parser)
    parser.set_defaults(func=run_season)


def run_season(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Write the season of :func:`simulate.club_season` in the import format."""
    out = out or sys.stdout
    if args.players < 2 * args.team_size or args.weeks < 1 or args.rounds < 1:
        raise EngineError("--players must fill two sides, --weeks and --rounds be at least 1")
    if not 0 < args.attendance <= 1:
        raise EngineError("--attendance is a chance between 0 and 1")
    levels = simulate_.spread_levels(args.players, args.centre, args.spread, args.seed)
    world = simulate_.club_season(
        levels,
        end=args.end or date.today(),
        weeks=args.weeks,
        team_size=args.team_size,
        scoring_format=format_from_args(args),
        nights=args.nights,
        rounds=args.rounds,
        attendance=args.attendance,
        seed=args.seed,
    )
    text = write_matches(world.matches)
    if args.output:
        with open(args.output, "w", encoding="utf-8", newline="") as f:
            f.write(text)
    else:
        out.write(text)
    if args.levels:
        with open(args.levels, "w", encoding="utf-8", newline="") as f:
            writer = csv.writer(f, lineterminator="\n")
            writer.writerow(("player", "level"))
            writer.writerows(sorted(levels.items()))
    return 0


# -- registration -----------------------------------------------------------------

SUBCOMMANDS: list[Callable[[Subparsers], None]] = [
    add_rate,
    add_backtest,
    add_tune,
    add_simulate,
    add_season,
]


def build_parser(prog: str = "python -m ratings.engine") -> argparse.ArgumentParser:
    """The command line, named in its usage and errors as it was run (``prog``)."""
    parser = argparse.ArgumentParser(
        prog=prog, description="The ladder's rating engine (RATINGS.md)."
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in SUBCOMMANDS:
        add(subparsers)
    return parser


def main(argv: Sequence[str] | None = None, prog: str = "python -m ratings.engine") -> int:
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    try:  # bad arguments exit 2 before any work starts
        if hasattr(args, "param"):
            validate_params(params_from_args(args))
        if hasattr(args, "format"):
            format_from_args(args)
        if args.func is run_simulate:
            check_simulate_arguments(args)
    except EngineError as exc:
        parser.error(str(exc))
    try:
        return int(args.func(args))
    except EngineError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    except BrokenPipeError:  # e.g. piped into head: nothing left to say
        sys.stderr.close()
        return 0
    except OSError as exc:
        print(f"cannot read {exc.filename}: {exc.strerror}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
