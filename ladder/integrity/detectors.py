"""The integrity detectors: plain Python over a ladder's rated matches (no Django).

Each detector reads the same evidence, a list of ``Played`` matches (in (played_on, id)
order, with each player's rating before and the change the match made) and the ladder's
``Member`` list, and returns ``Finding`` objects: who, which matches, the numbers, and a
reason in plain words. ``flags.py`` builds the evidence from the database and stores the
findings; ``benchmarks/integrity.py`` builds it from a generated club season with planted
cases and measures what they catch (docs/INTEGRITY.md).

Ratings are in points (4500 is the 4.50 a member reads, RATINGS.md §1).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from datetime import date, datetime
from itertools import combinations
from statistics import fmean
from typing import Any

from ratings.engine.scales import display
from ratings.engine.types import Params

POINTS_PER_LEVEL = 1000.0  # 4500 points read 4.50
PERFORMANCE_RANGE = (0.0, 12000.0)  # points: wider than any ladder's ratings
PERFORMANCE_STEPS = 60  # bisection steps: far below a point of precision
LABEL_ROUNDS = 30  # label propagation settles in a few rounds on a club's graph; a cap


@dataclass(frozen=True)
class Thresholds:
    """When a detector flags; a ladder overrides any of them (IntegritySettings.thresholds).
    The defaults are measured on a generated club season (docs/INTEGRITY.md)."""

    # win trading: a pair of opponents who meet far more than the ladder's pairs do...
    trade_min_matches: int = 10
    trade_norm_factor: float = 3.0  # ... at least this many times the mean meetings of a pair
    trade_alternation: float = 0.8  # and whose results alternate this often (share of switches)
    trade_one_sided: float = 0.85  # or one of whom wins this share of their meetings
    trade_margin: float = 0.3  # by this mean margin (points difference / points played)
    # farming: a player whose rating gain comes mostly from repeated wins over new or
    # much lower players
    farm_new_matches: int = 10  # a player is new for their first this many matches
    farm_gap: float = 1.0  # much lower: this many levels below, before the match
    farm_min_wins: int = 6
    farm_win_share: float = 0.4
    farm_repeats: float = 2.0  # wins per victim, on average
    # closed pool: a community of the match graph that plays almost only itself and whose
    # ratings drifted away from the rest
    pool_min_size: int = 3
    pool_max_share: float = 0.34  # of the ladder's players: past that it is the ladder
    pool_min_matches: int = 8
    pool_max_out: float = 0.1  # share of their matches against outsiders
    pool_drift: float = 0.75  # levels between the pool's mean rating and the rest's
    # sandbagging: the level the first matches show, far above the self-assessment
    sandbag_matches: int = 5
    sandbag_gap: float = 1.5  # levels
    # report patterns
    fast_seconds: int = 60  # a confirmation this soon after the report
    late_days: int = 7  # a report this long after the match
    report_min: int = 5  # reports of a kind before it is a pattern
    report_share: float = 0.5  # of the reporter's reports
    report_few: int = 2  # "the same few opponents": at most this many confirm them

    @classmethod
    def with_overrides(cls, overrides: Mapping[str, object] | None) -> Thresholds:
        """The defaults with a ladder's overrides; ValueError names a bad key or value."""
        if not overrides:
            return cls()
        types = {f.name: f.type for f in fields(cls)}
        values: dict[str, Any] = {}
        for key, value in overrides.items():
            if key not in types:
                raise ValueError(f"{key!r} is not a threshold; known: {', '.join(sorted(types))}.")
            want = int if types[key] in (int, "int") else float
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise ValueError(f"{key} must be a non-negative number, not {value!r}.")
            if want is int and value != int(value):
                raise ValueError(f"{key} must be a whole number, not {value!r}.")
            values[key] = want(value)
        return replace(cls(), **values)

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


@dataclass(frozen=True)
class Played:
    """One rated match as the detectors read it."""

    id: int
    played_on: date
    side_a: tuple[str, ...]
    side_b: tuple[str, ...]
    winner: str  # "a" or "b"
    margin: float  # (winner's points - loser's points) / points played, 0..1
    before: Mapping[str, float] = field(default_factory=dict)  # rating before, per player
    change: Mapping[str, float] = field(default_factory=dict)  # rating change, per player
    reporter: str | None = None
    reported_at: datetime | None = None
    confirmed_by: str | None = None
    confirmed_at: datetime | None = None

    @property
    def players(self) -> tuple[str, ...]:
        return self.side_a + self.side_b

    def won(self, player: str) -> bool:
        return (player in self.side_a) == (self.winner == "a")

    def opponents(self, player: str) -> tuple[str, ...]:
        return self.side_b if player in self.side_a else self.side_a


@dataclass(frozen=True)
class Member:
    name: str  # the key players are named by in ``Played``
    display: str  # how a moderator reads it
    self_level: float | None = None  # the self-assessment (2.0-9.0), None if not given
    rating: float | None = None  # points now


@dataclass(frozen=True)
class Finding:
    kind: str
    players: tuple[str, ...]  # sorted
    matches: tuple[int, ...]  # sorted
    reason: str
    evidence: dict[str, object]  # numbers and names, stored as JSON


def level(points: float) -> str:
    """4512.3 → "4.51"."""
    return display(points)


def margin_of(games: Sequence[tuple[int, int]]) -> tuple[str, float]:
    """The winner ("a"/"b", by games) and the margin (points difference / points played)."""
    won_a = sum(1 for a, b in games if a > b)
    winner = "a" if won_a * 2 > len(games) else "b"
    a_pts = sum(a for a, _ in games)
    b_pts = sum(b for _, b in games)
    total = a_pts + b_pts
    diff = (a_pts - b_pts) if winner == "a" else (b_pts - a_pts)
    return winner, (diff / total if total else 0.0)


def detect_all(
    played: Sequence[Played], members: Iterable[Member], t: Thresholds | None = None
) -> list[Finding]:
    """Every detector's findings on one ladder."""
    t = t or Thresholds()
    people = {m.name: m for m in members}
    found: list[Finding] = []
    for detector in (win_trading, farming, closed_pools, sandbagging, report_patterns):
        found.extend(detector(played, people, t))
    return found


def _name(people: Mapping[str, Member], key: str) -> str:
    member = people.get(key)
    return member.display if member else key


def _finding(
    kind: str, players: Iterable[str], matches: Iterable[int], reason: str, **evidence: object
) -> Finding:
    return Finding(kind, tuple(sorted(set(players))), tuple(sorted(set(matches))), reason, evidence)


# ---- win trading ---------------------------------------------------------------------------


def win_trading(
    played: Sequence[Played], people: Mapping[str, Member], t: Thresholds
) -> list[Finding]:
    """Pairs of opponents who meet far more than the ladder's pairs do, with alternating
    results or one-sided margins."""
    meetings: dict[tuple[str, str], list[Played]] = defaultdict(list)
    for m in played:
        for x in m.side_a:
            for y in m.side_b:
                meetings[(min(x, y), max(x, y))].append(m)
    if not meetings:
        return []
    norm = fmean(len(ms) for ms in meetings.values())
    found = []
    for (x, y), ms in sorted(meetings.items()):
        n = len(ms)
        if n < t.trade_min_matches or n < t.trade_norm_factor * norm:
            continue
        winners = [x if m.won(x) else y for m in ms]
        switches = sum(1 for u, v in zip(winners, winners[1:], strict=False) if u != v)
        alternation = switches / (n - 1)
        top, wins = Counter(winners).most_common(1)[0]
        share = wins / n
        mean_margin = fmean(m.margin for m in ms if (x if m.won(x) else y) == top)
        ax, ay = _name(people, x), _name(people, y)
        if alternation >= t.trade_alternation:
            why = (
                f"{ax} and {ay} played each other {n} times, {n / norm:.1f}× as often as "
                f"the ladder's pairs meet on average ({norm:.1f}), and the winner changed "
                f"in {switches} of {n - 1} consecutive meetings."
            )
        elif share >= t.trade_one_sided and mean_margin >= t.trade_margin:
            why = (
                f"{ax} and {ay} played each other {n} times, {n / norm:.1f}× as often as "
                f"the ladder's pairs meet on average ({norm:.1f}); {_name(people, top)} won "
                f"{wins} of them by a mean margin of {mean_margin:.0%} of the points played."
            )
        else:
            continue
        found.append(
            _finding(
                "win_trading",
                (x, y),
                (m.id for m in ms),
                why,
                meetings=n,
                ladder_mean=round(norm, 2),
                alternation=round(alternation, 2),
                top_share=round(share, 2),
                mean_margin=round(mean_margin, 2),
            )
        )
    return found


# ---- farming -------------------------------------------------------------------------------


def farming(played: Sequence[Played], people: Mapping[str, Member], t: Thresholds) -> list[Finding]:
    """Players whose wins, and the rating they gained, come mostly from repeated wins over
    new or much lower players (new: in their first ``farm_new_matches``; the farmer is not
    new). The engine damps such wins (RATINGS.md §3), so the share of wins is what shows
    the farming; the points it brought are in the reason."""
    count: Counter[str] = Counter()
    wins: Counter[str] = Counter()
    gain: defaultdict[str, float] = defaultdict(float)
    farmed: dict[str, list[tuple[Played, float, tuple[str, ...]]]] = defaultdict(list)
    gap = t.farm_gap * POINTS_PER_LEVEL
    for m in played:
        for p in m.players:
            delta = m.change.get(p, 0.0)
            gain[p] += max(delta, 0.0)
            if not m.won(p):
                continue
            wins[p] += 1
            mine = m.before.get(p)
            victims = tuple(
                o
                for o in m.opponents(p)
                if count[o] < t.farm_new_matches
                or (mine is not None and m.before.get(o, mine) <= mine - gap)
            )
            if count[p] >= t.farm_new_matches and len(victims) == len(m.opponents(p)):
                farmed[p].append((m, max(delta, 0.0), victims))
        for p in m.players:
            count[p] += 1
    found = []
    for p, won in sorted(farmed.items()):
        beaten = Counter(v for _, _, vs in won for v in vs)
        repeated = {v for v, n in beaten.items() if n >= 2}  # the repeated ones are named
        if not repeated:
            continue
        share = len(won) / wins[p]
        repeats = len(won) / len(repeated)
        if len(won) < t.farm_min_wins or share < t.farm_win_share or repeats < t.farm_repeats:
            continue
        from_victims = sum(d for _, d, _ in won)
        names = ", ".join(sorted(_name(people, v) for v in repeated))
        why = (
            f"{len(won)} of {_name(people, p)}'s {wins[p]} wins ({share:.0%}) were over new or "
            f"much lower players, {repeats:.1f} wins over each of {names}; they brought "
            f"{level(from_victims)} of the {level(gain[p])} rating points gained."
        )
        found.append(
            _finding(
                "farming",
                (p, *repeated),
                (m.id for m, _, _ in won),
                why,
                farmer=p,
                wins=len(won),
                victims=len(repeated),
                win_share=round(share, 2),
                points=round(from_victims, 1),
            )
        )
    return found


# ---- closed pools --------------------------------------------------------------------------


def communities(played: Sequence[Played]) -> list[set[str]]:
    """The match graph's communities, by label propagation (weights: matches played together);
    deterministic: players in name order, ties to the smallest label."""
    weight: dict[str, Counter[str]] = defaultdict(Counter)
    for m in played:
        for x, y in combinations(m.players, 2):
            weight[x][y] += 1
            weight[y][x] += 1
    label = {p: p for p in sorted(weight)}
    for _ in range(LABEL_ROUNDS):
        changed = False
        for p in sorted(weight):
            votes: Counter[str] = Counter()
            for q, w in weight[p].items():
                votes[label[q]] += w
            votes[label[p]] += 0  # keep one's own label in the running
            best = max(votes.values())
            choice = min(lab for lab, v in votes.items() if v == best)
            if choice != label[p]:
                label[p], changed = choice, True
        if not changed:
            break
    groups: dict[str, set[str]] = defaultdict(set)
    for p, lab in label.items():
        groups[lab].add(p)
    return sorted(groups.values(), key=lambda g: sorted(g))


def closed_pools(
    played: Sequence[Played], people: Mapping[str, Member], t: Thresholds
) -> list[Finding]:
    """Groups that play almost only among themselves, whose ratings drifted from the rest."""
    everyone = {p for m in played for p in m.players}
    found = []
    for group in communities(played):
        if not t.pool_min_size <= len(group) <= t.pool_max_share * len(everyone):
            continue
        inside = [m for m in played if set(m.players) <= group]
        touching = [m for m in played if group & set(m.players)]
        out = len(touching) - len(inside)
        if len(inside) < t.pool_min_matches or out > t.pool_max_out * len(touching):
            continue
        ratings = {p: people[p].rating for p in everyone if p in people}
        pool = [r for p, r in ratings.items() if p in group and r is not None]
        rest = [r for p, r in ratings.items() if p not in group and r is not None]
        if not pool or not rest:
            continue
        drift = (fmean(pool) - fmean(rest)) / POINTS_PER_LEVEL
        if abs(drift) < t.pool_drift:
            continue
        names = ", ".join(sorted(_name(people, p) for p in group))
        why = (
            f"{names} played {len(inside)} matches among themselves and {out} against anyone "
            f"else ({out / len(touching):.0%}); their mean rating is {abs(drift):.2f} "
            f"{'above' if drift > 0 else 'below'} the rest of the ladder's."
        )
        found.append(
            _finding(
                "closed_pool",
                group,
                (m.id for m in inside),
                why,
                inside=len(inside),
                outside=out,
                drift=round(drift, 2),
            )
        )
    return found


# ---- sandbagging ---------------------------------------------------------------------------


def performance(opponents: Sequence[float], wins: float, prior: float) -> float:
    """The level (points) at which ``wins`` is the expected score against ``opponents``
    (their ratings, points), with one virtual draw against ``prior`` (the self-assessment):
    all wins or all losses then give a finite answer that leans on what the member said.
    The outcome model is the engine's logistic at its default scale (RATINGS.md §3)."""
    scale = Params().scale_factor
    field = [*opponents, prior]
    target = wins + 0.5

    def expected(level: float) -> float:
        return float(sum(1.0 / (1.0 + 10.0 ** ((r - level) / scale)) for r in field))

    low, high = PERFORMANCE_RANGE
    for _ in range(PERFORMANCE_STEPS):  # bisection: expected() rises with the level
        mid = (low + high) / 2
        if expected(mid) < target:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def sandbagging(
    played: Sequence[Played], people: Mapping[str, Member], t: Thresholds
) -> list[Finding]:
    """Members whose first matches show a level far above their self-assessment (their
    performance rating over those matches, ``performance``)."""
    first: dict[str, list[Played]] = defaultdict(list)
    for m in played:
        for p in m.players:
            if len(first[p]) < t.sandbag_matches:
                first[p].append(m)
    found = []
    for p, ms in sorted(first.items()):
        member = people.get(p)
        if member is None or member.self_level is None or len(ms) < t.sandbag_matches:
            continue
        said = member.self_level * POINTS_PER_LEVEL
        faced = [fmean(m.before.get(o, said) for o in m.opponents(p)) for m in ms]
        won = sum(1 for m in ms if m.won(p))
        shown = performance(faced, won, said) / POINTS_PER_LEVEL
        gap = shown - member.self_level
        if gap < t.sandbag_gap:
            continue
        why = (
            f"{member.display} assessed themselves at {member.self_level:.1f}, but won {won} "
            f"of their first {len(ms)} matches against opponents rated "
            f"{fmean(faced) / POINTS_PER_LEVEL:.2f} on average: they play at about "
            f"{shown:.2f}, {gap:.2f} higher."
        )
        found.append(
            _finding(
                "sandbagging",
                (p,),
                (m.id for m in ms),
                why,
                self_level=member.self_level,
                shown=round(shown, 2),
                gap=round(gap, 2),
            )
        )
    return found


# ---- report patterns -----------------------------------------------------------------------


def report_patterns(
    played: Sequence[Played], people: Mapping[str, Member], t: Thresholds
) -> list[Finding]:
    """Reporters whose reports the same few opponents confirm within seconds, or who report
    long after the match. Only matches reported on the site have the times."""
    reports: dict[str, list[Played]] = defaultdict(list)
    for m in played:
        if m.reporter is not None and m.reported_at is not None:
            reports[m.reporter].append(m)
    found = []
    for r, ms in sorted(reports.items()):
        fast = [
            m
            for m in ms
            if m.confirmed_at is not None
            and (m.confirmed_at - m.reported_at).total_seconds() <= t.fast_seconds  # type: ignore[operator]
        ]
        confirmers = {m.confirmed_by for m in fast if m.confirmed_by}
        who = _name(people, r)
        if (
            len(fast) >= t.report_min
            and len(fast) >= t.report_share * len(ms)
            and len(confirmers) <= t.report_few
        ):
            by = ", ".join(sorted(_name(people, c) for c in confirmers))
            why = (
                f"{len(fast)} of {who}'s {len(ms)} reports were confirmed within "
                f"{t.fast_seconds} seconds, all by {by}."
            )
            found.append(
                _finding(
                    "report_pattern",
                    (r, *confirmers),
                    (m.id for m in fast),
                    why,
                    pattern="fast_confirmations",
                    fast=len(fast),
                    reports=len(ms),
                )
            )
        late = [m for m in ms if (m.reported_at.date() - m.played_on).days >= t.late_days]  # type: ignore[union-attr]
        if len(late) >= t.report_min and len(late) >= t.report_share * len(ms):
            days = fmean((m.reported_at.date() - m.played_on).days for m in late)  # type: ignore[union-attr]
            why = (
                f"{len(late)} of {who}'s {len(ms)} reports came {t.late_days} days or more "
                f"after the match ({days:.0f} days on average)."
            )
            found.append(
                _finding(
                    "report_pattern",
                    (r,),
                    (m.id for m in late),
                    why,
                    pattern="late_reports",
                    late=len(late),
                    reports=len(ms),
                )
            )
    return found
