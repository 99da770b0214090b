"""RATINGS.md v2 §3 and §5 written out as plainly as possible, for tests only.

An independent model of the rules (no caches, no incremental windows, no C, no shared
code with `ratings.engine` beyond reading a CSV): every match rescans each player's
history for the lookback window, and every formula is spelled the way the spec writes
it (10^x, E (1 - E), f(x) as a function). The engine must agree with it to a small
fraction of a rating point; it is slow. It covers every team method (performance_weighted
without match stats, where every player's weight is 1), every composite_rd and both
outcome models: the product has one implementation of the update (the C kernel), and
this model is what checks it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import date

S = 173.7178


@dataclass
class Settings:
    tau: float = 0.5
    scale_factor: float = 400.0
    repetition_alpha: float = 0.2
    diversity_threshold: float = 0.2
    outcome_model: str = "margin_information"
    margin_boost: float = 1.0
    margin_clamp: float = 0.25
    match_win_bonus: float = 0.4
    margin_weight: float = 0.25
    wrong_way_floor: bool = True
    rating_center: float = 4500.0
    rating_min: float = 2000.0
    rating_max: float = 9000.0
    rd_max: float = 500.0
    initial_rating: float = 4500.0
    initial_rd: float = 250.0
    initial_volatility: float = 0.06
    lookback_days: int = 90
    rating_period_days: int = 7
    season_start_periods: int = 0
    season_starts: tuple[date, ...] = ()
    team_method: str = "composite_opponent"
    composite_rd: str = "mean"
    g1_scale: float = 2.0
    g1_rd_max: float = 350.0
    g1_boost: bool = True
    g1_initial_rd: float = 130.0


@dataclass
class Player:
    rating: float
    rd: float
    sigma: float
    last: date | None = None
    # (played_on, opponents) of every rated match, oldest first
    history: list[tuple[date, tuple[str, ...]]] = field(default_factory=list)


def outcome(games, ppg: float, st: Settings) -> tuple[bool, float, float]:  # type: ignore[no-untyped-def]
    """(side A won, s_A, m) by §3 step 2."""
    a_games = sum(1 for a, b in games if a > b)
    b_games = sum(1 for a, b in games if b > a)
    a_won = a_games > b_games
    mean_margin = sum((a - b) if a_won else (b - a) for a, b in games) / len(games)
    ratio = mean_margin / ppg
    if st.outcome_model == "margin_information":
        ratio = min(max(ratio, 0.0), st.margin_clamp)
        m = 1 + st.margin_boost * ratio / st.margin_clamp if st.margin_clamp > 0 else 1.0
        s_w = 1.0
    else:
        ratio = min(max(ratio, -st.margin_clamp), st.margin_clamp)
        m = 1.0
        s_w = min(max(0.5 + st.match_win_bonus + st.margin_weight * ratio, 0.0), 1.0)
    return a_won, (s_w if a_won else 1 - s_w), m


def g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi**2 / math.pi**2)


def expected(mu: float, mu_j: float, phi_j: float, st: Settings) -> float:
    return 1 / (1 + 10 ** (-g(phi_j) * (mu - mu_j) * S / st.scale_factor))


def volatility_objective(
    x: float, delta: float, phi: float, v: float, sigma: float, tau: float
) -> float:
    """Glickman's f(x), whose root A gives sigma' = exp(A / 2) (§3 step 6)."""
    ex = math.exp(x)
    return (
        ex * (delta**2 - phi**2 - v - ex) / (2 * (phi**2 + v + ex) ** 2)
        - (x - math.log(sigma**2)) / tau**2
    )


def new_sigma(delta: float, phi: float, v: float, sigma: float, tau: float) -> float:
    """Glickman (2012) step 5, Illinois."""
    a = math.log(sigma**2)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta**2 - phi**2 - v - ex) / (2 * (phi**2 + v + ex) ** 2) - (x - a) / tau**2

    big_a = a
    if delta**2 > phi**2 + v:
        big_b = math.log(delta**2 - phi**2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    for _ in range(10_000):
        if abs(big_b - big_a) <= 1e-6:
            break
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a = f_a / 2
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2)


def composite(phis: list[float], how: str) -> float:
    """A side's RD on the Glicko-2 scale (§5 composite_rd)."""
    if how == "mean":
        return sum(phis) / len(phis)
    if how == "rms_of_mean":
        return math.sqrt(sum(x * x for x in phis)) / len(phis)
    return math.sqrt(sum(x * x for x in phis) / len(phis))


def bounded(rating: float, before: float, won: bool, st: Settings) -> float:
    """§3 step 9: the bounds, then the wrong-way floor."""
    rating = min(max(rating, st.rating_min), st.rating_max)
    if st.wrong_way_floor:
        rating = max(rating, before) if won else min(rating, before)
    return rating


def _glicko1_side(own, other, s, won, m, before, players, st):  # type: ignore[no-untyped-def]
    """§5 glicko1_team for one side, in rating points."""
    q = math.log(10) / 400
    rd = {n: S * before[n][1] for n in (*own, *other)}

    def team(side):  # type: ignore[no-untyped-def]
        rd_team = math.sqrt(sum(rd[n] ** 2 for n in side) / len(side))
        rating = sum(players[n].rating for n in side) / len(side)
        return rating + (0.5 * (350 - rd_team) if st.g1_boost else 0.0), rd_team

    r_own, _ = team(own)
    r_opp, rd_opp = team(other)
    g_opp = 1 / math.sqrt(1 + 3 * q**2 * rd_opp**2 / math.pi**2)
    e = 1 / (1 + 10 ** (-g_opp * (r_own - r_opp) / 400))
    d2 = 1 / (q**2 * g_opp**2 * e * (1 - e))
    out = {}
    for n in own:
        rd_new_sq = 1 / (1 / rd[n] ** 2 + m / d2)
        rd_factor = max(1 / st.g1_scale, rd[n] / st.g1_rd_max)
        change = st.g1_scale * rd_factor * q * rd_new_sq * m * g_opp * (s - e)
        p = players[n]
        out[n] = (
            bounded(p.rating + change, p.rating, won, st),
            min(math.sqrt(rd_new_sq), st.rd_max),
            p.sigma,
        )
    return out


def in_window(then: date, now: date, st: Settings) -> bool:
    return (now - then).days <= st.lookback_days


def replay(matches, ppg: float, st: Settings) -> dict[str, Player]:  # type: ignore[no-untyped-def]
    """Rate `matches` (engine MatchResult objects or anything with the same fields) in order."""
    players: dict[str, Player] = {}

    glicko1 = st.team_method == "glicko1_team"

    def player(name: str) -> Player:
        if name not in players:
            rd = st.g1_initial_rd if glicko1 else st.initial_rd  # §5: Glicko-1's own start
            players[name] = Player(st.initial_rating, rd, st.initial_volatility)
        return players[name]

    # §1 and §5: glicko1_team's RD never exceeds Glicko-1's 350 (g1_rd_max).
    ceiling = min(st.rd_max, st.g1_rd_max) if glicko1 else st.rd_max
    for match in sorted(matches, key=lambda m: (m.played_on, m.id or 0)):
        day = match.played_on
        a_won, s_a, m = outcome(match.games, ppg, st)
        before: dict[str, tuple[float, float, float]] = {}  # name -> (mu, phi, sigma) pre-match
        for name in (*match.side_a, *match.side_b):
            p = player(name)
            phi = p.rd / S
            if p.last is not None:
                n = (day - p.last).days // st.rating_period_days
                # and the periods of each season start crossed since: last < F <= day
                crossed = sum(1 for first in st.season_starts if p.last < first <= day)
                n += st.season_start_periods * crossed
                phi = min(math.sqrt(phi**2 + n * p.sigma**2), ceiling / S)
            before[name] = ((p.rating - st.rating_center) / S, phi, p.sigma)
        new: dict[str, tuple[float, float, float]] = {}
        for own, other, s, won in (
            (match.side_a, match.side_b, s_a, a_won),
            (match.side_b, match.side_a, 1 - s_a, not a_won),
        ):
            # Steps 4 and 7 for every player of this side.
            weights: dict[str, list[float]] = {}
            gates: dict[str, bool] = {}
            for name in own:
                recent = [opps for then, opps in players[name].history if in_window(then, day, st)]
                weights[name] = [
                    1 / (1 + st.repetition_alpha * sum(o in opps for opps in recent)) for o in other
                ]
                slots = sum(len(opps) for opps in recent) + len(other)
                distinct = len({o for opps in recent for o in opps} | set(other))
                gates[name] = distinct / slots >= st.diversity_threshold
            if st.team_method == "glicko1_team":
                new.update(_glicko1_side(own, other, s, won, m, before, players, st))
                continue
            for name in own:
                p = players[name]
                mu, phi, sigma = before[name]
                w_mean = sum(weights[name]) / len(other)
                if st.team_method == "composite_team":
                    # One E, v and Delta for the side: its composite against the other's.
                    mu_own = sum(before[x][0] for x in own) / len(own)
                    mu_c = sum(before[o][0] for o in other) / len(other)
                    phi_c = composite([before[o][1] for o in other], st.composite_rd)
                    side_w = sum(sum(weights[x]) / len(other) for x in own) / len(own)
                    e = expected(mu_own, mu_c, phi_c, st)
                    v = 1 / (m * side_w * g(phi_c) ** 2 * e * (1 - e))
                    total = m * side_w * g(phi_c) * (s - e)
                else:
                    if st.team_method == "individual":
                        terms = [
                            (before[o][0], before[o][1], w)
                            for o, w in zip(other, weights[name], strict=True)
                        ]
                    else:  # composite_opponent; performance_weighted without stats is the same
                        how = (
                            "rms_of_mean"
                            if st.team_method == "performance_weighted"
                            else st.composite_rd
                        )
                        mu_c = sum(before[o][0] for o in other) / len(other)
                        terms = [(mu_c, composite([before[o][1] for o in other], how), w_mean)]
                    v = 1 / sum(
                        m
                        * w
                        * g(pj) ** 2
                        * expected(mu, mj, pj, st)
                        * (1 - expected(mu, mj, pj, st))
                        for mj, pj, w in terms
                    )
                    total = sum(
                        m * w * g(pj) * (s - expected(mu, mj, pj, st)) for mj, pj, w in terms
                    )
                sigma_new = new_sigma(v * total, phi, v, sigma, st.tau)
                phi_star = math.sqrt(phi**2 + sigma_new**2)
                gate = gates[name]
                phi_new = 1 / math.sqrt(1 / phi_star**2 + 1 / v) if gate else max(phi, phi_star)
                mu_new = mu + phi_new**2 * total
                new[name] = (
                    bounded(S * mu_new + st.rating_center, p.rating, won, st),
                    min(S * phi_new, st.rd_max),
                    sigma_new,
                )
        for own, other in ((match.side_a, match.side_b), (match.side_b, match.side_a)):
            for name in own:
                p = players[name]
                p.rating, p.rd, p.sigma = new[name]
                p.last = day
                p.history.append((day, tuple(other)))
    return players
