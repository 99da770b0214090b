"""RATINGS.md §5: every team method on a hand-computed doubles example.

The expected numbers come from the plain arithmetic below (`ref_*`), written from
the spec's formulas as directly as possible and independently of the engine's
optimised code (powers of 10, E (1 - E) as written, f(x) as a function); a few are
also pinned as literals so that a mistake shared by both would still show.
"""

from __future__ import annotations

import functools
import math
from datetime import date

import pytest

from ratings.engine.formats import get_format
from ratings.engine.outcome import Outcome
from ratings.engine.replay import Replayer
from ratings.engine.teams import Contestant, performance_weights, rate_sides
from ratings.engine.types import TEAM_METHODS, EngineError, MatchResult, Params, PlayerState
from tests.ratings.engine import reference

# RATINGS.md's worked examples (§3, §5) assume §2's scale_factor 400 and margin_clamp 0.25;
# the engine's defaults are measured (docs/RATINGS_EVALUATION.md "Defaults").
SpecParams = functools.partial(Params, scale_factor=400.0, margin_clamp=0.25)

S = 173.7178
CENTER = 4500.0
TAU = 0.5

# Side A: a strong player and a weak one; side B: two mid players, one uncertain.
A1 = ("Ann", 4700.0, 120.0, 0.06)
A2 = ("Al", 4300.0, 200.0, 0.06)
B1 = ("Bea", 4600.0, 150.0, 0.06)
B2 = ("Bo", 4450.0, 250.0, 0.06)
GAMES = ((21, 17), (21, 19))  # margin (4 + 2) / 2 / 21
S_A = 0.5 + 0.4 + 0.25 * (3 / 21)
# The `score` model's outcome of GAMES (RATINGS.md §3 step 2): m = 1.
OUT = Outcome("a", 3 / 21, S_A, 1.0)


# -- reference arithmetic ----------------------------------------------------------


def ref_g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi**2 / math.pi**2)


def ref_e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1 / (1 + 10 ** (-ref_g(phi_j) * (mu - mu_j) * S / 400))


def ref_sigma(delta: float, phi: float, v: float, sigma: float) -> float:
    """Glickman (2012) step 5, line by line (the plain model's)."""
    return reference.new_sigma(delta, phi, v, sigma, TAU)


def ref_finish(mu: float, phi: float, sigma: float, v: float, delta: float, gate: bool = True):
    """Steps 6-8 given v and Delta: returns (rating, RD, volatility) in points."""
    sigma_new = ref_sigma(delta, phi, v, sigma)
    phi_star = math.sqrt(phi**2 + sigma_new**2)
    phi_new = 1 / math.sqrt(1 / phi_star**2 + 1 / v) if gate else max(phi, phi_star)
    mu_new = mu + phi_new**2 * (delta / v)
    return S * mu_new + CENTER, S * phi_new, sigma_new


def ref_step(player, opponents, s, gate=True):
    """§3 steps 3-9 for `player` (name, R, RD, sigma) against (R, RD, weight) opponents."""
    _, r, rd, sigma = player
    mu, phi = (r - CENTER) / S, rd / S
    terms = [((rj - CENTER) / S, rdj / S, w) for rj, rdj, w in opponents]
    v = 1 / sum(
        w * ref_g(pj) ** 2 * ref_e(mu, mj, pj) * (1 - ref_e(mu, mj, pj)) for mj, pj, w in terms
    )
    delta = v * sum(w * ref_g(pj) * (s - ref_e(mu, mj, pj)) for mj, pj, w in terms)
    return ref_finish(mu, phi, sigma, v, delta, gate)


def contestants(*players, weights=(1.0, 1.0), stats=None):
    return [
        Contestant(name, r, rd, vol, weights, True, None if stats is None else stats[name])
        for name, r, rd, vol in players
    ]


def rate(params: Params, stats=None):
    side_a = contestants(A1, A2, stats=stats)
    side_b = contestants(B1, B2, stats=stats)
    return rate_sides(side_a, side_b, OUT, params)


def assert_result(result, expected) -> None:
    rating, rd, vol = expected
    assert result.rating == pytest.approx(rating, abs=1e-6)
    assert result.rd == pytest.approx(rd, abs=1e-6)
    assert result.volatility == pytest.approx(vol, abs=1e-9)


# -- composite_opponent ------------------------------------------------------------


@pytest.mark.parametrize(
    ("how", "phi_of"),
    [
        ("mean", lambda a, b: (a + b) / 2),
        ("rms_of_mean", lambda a, b: math.sqrt(a**2 + b**2) / 2),
        ("rms", lambda a, b: math.sqrt((a**2 + b**2) / 2)),
    ],
)
def test_composite_opponent(how: str, phi_of) -> None:
    (ann, al), (bea, bo) = rate(SpecParams(composite_rd=how))
    composite_b = ((B1[1] + B2[1]) / 2, S * phi_of(B1[2] / S, B2[2] / S))
    composite_a = ((A1[1] + A2[1]) / 2, S * phi_of(A1[2] / S, A2[2] / S))
    assert_result(ann, ref_step(A1, [(*composite_b, 1.0)], S_A))
    assert_result(al, ref_step(A2, [(*composite_b, 1.0)], S_A))
    assert_result(bea, ref_step(B1, [(*composite_a, 1.0)], 1 - S_A))
    assert_result(bo, ref_step(B2, [(*composite_a, 1.0)], 1 - S_A))
    mu_a, mu_c = (A1[1] - CENTER) / S, (composite_b[0] - CENTER) / S
    assert ann.expected == pytest.approx(ref_e(mu_a, mu_c, composite_b[1] / S))


def test_composite_opponent_pinned_numbers() -> None:
    """The mean variant, worked once by hand from the formulas above."""
    (ann, al), (bea, bo) = rate(SpecParams())
    # Ann: mu 1.1513, phi 0.6908 against 4525 / 200 (mu 0.1439, phi 1.1513):
    # g = 0.8443, E = 0.7007, v = 6.689, Delta = 1.327, phi' = 0.6697 (116.34),
    # mu' = 1.1513 + 0.6697^2 * 0.8443 * (0.9357 - 0.7007) = 1.2403 -> 4715.46.
    assert ann.expected == pytest.approx(0.7007, abs=1e-4)
    assert ann.rd == pytest.approx(116.34, abs=0.01)
    assert ann.rating == pytest.approx(4715.46, abs=0.01)
    assert al.rating == pytest.approx(4413.30, abs=0.01)
    # Side B meets 4500 / 160.
    assert bea.rating == pytest.approx(4542.84, abs=0.01)
    assert bo.rating == pytest.approx(4364.98, abs=0.01)


def test_composite_weight_is_mean_of_repetition_weights() -> None:
    weights = (1.0, 1 / 1.4)  # met Bea for the first time, Bo twice before
    side_a = [Contestant(*A1, weights, True), Contestant(*A2, (1.0, 1.0), True)]
    (ann, _), _ = rate_sides(side_a, contestants(B1, B2), OUT, SpecParams())
    mean_w = (1.0 + 1 / 1.4) / 2
    assert ann.repetition_weight == pytest.approx(mean_w)
    assert_result(ann, ref_step(A1, [((B1[1] + B2[1]) / 2, (B1[2] + B2[2]) / 2, mean_w)], S_A))


# -- individual --------------------------------------------------------------------


def test_individual() -> None:
    (ann, al), (bea, bo) = rate(SpecParams(team_method="individual"))
    assert_result(ann, ref_step(A1, [(B1[1], B1[2], 1.0), (B2[1], B2[2], 1.0)], S_A))
    assert_result(al, ref_step(A2, [(B1[1], B1[2], 1.0), (B2[1], B2[2], 1.0)], S_A))
    assert_result(bea, ref_step(B1, [(A1[1], A1[2], 1.0), (A2[1], A2[2], 1.0)], 1 - S_A))
    assert_result(bo, ref_step(B2, [(A1[1], A1[2], 1.0), (A2[1], A2[2], 1.0)], 1 - S_A))
    assert ann.rating == pytest.approx(4730.60, abs=0.01)


def test_individual_weights_per_opponent() -> None:
    side_a = [Contestant(*A1, (1.0, 0.5), True), Contestant(*A2, (1.0, 1.0), True)]
    (ann, _), _ = rate_sides(side_a, contestants(B1, B2), OUT, SpecParams(team_method="individual"))
    assert_result(ann, ref_step(A1, [(B1[1], B1[2], 1.0), (B2[1], B2[2], 0.5)], S_A))


def test_individual_is_order_independent() -> None:
    params = SpecParams(team_method="individual")
    (ann, _), _ = rate_sides(contestants(A1, A2), contestants(B1, B2), OUT, params)
    (ann2, _), _ = rate_sides(contestants(A1, A2), contestants(B2, B1), OUT, params)
    assert ann.rating == pytest.approx(ann2.rating, abs=1e-9)
    assert ann.rd == pytest.approx(ann2.rd, abs=1e-9)


# -- composite_team ----------------------------------------------------------------


def test_composite_team_with_squared_phi() -> None:
    (ann, al), (bea, bo) = rate(SpecParams(team_method="composite_team"))
    mu_a = ((A1[1] + A2[1]) / 2 - CENTER) / S
    mu_b = ((B1[1] + B2[1]) / 2 - CENTER) / S
    phi_b = (B1[2] + B2[2]) / 2 / S
    e = ref_e(mu_a, mu_b, phi_b)
    v = 1 / (ref_g(phi_b) ** 2 * e * (1 - e))
    delta = v * ref_g(phi_b) * (S_A - e)
    for player, result in ((A1, ann), (A2, al)):
        mu, phi = (player[1] - CENTER) / S, player[2] / S
        rating, rd, vol = ref_finish(mu, phi, player[3], v, delta)
        assert_result(result, (rating, rd, vol))
        assert result.expected == pytest.approx(e)
    # Both players of a side move by phi'^2 * g * (s - E): the weaker, more uncertain one more.
    assert al.rating - A2[1] > ann.rating - A1[1] > 0
    assert bo.rating < B2[1] and bea.rating < B1[1]
    # The thesis' typo (phi' not squared) would give a different, much larger change.
    phi_new = ann.rd / S
    typo = A1[1] + S * phi_new * ref_g(phi_b) * (S_A - e)
    assert abs(typo - ann.rating) > 10


# -- performance_weighted ----------------------------------------------------------

STATS = {
    "Ann": {"kills": 20, "deaths": 10},
    "Al": {"kills": 10, "deaths": 14},
    "Bea": {"kills": 15, "deaths": 15},
    "Bo": {"kills": 15, "deaths": 15},
}


def test_performance_weights_by_hand() -> None:
    params = SpecParams(stat_weights={"kills": 1.0, "deaths": -1.0})
    # p = 10 and -4; mean 3; population sd 7; z = +1 and -1; w = 1.2 and 0.8 (mean 1).
    w = performance_weights([STATS["Ann"], STATS["Al"]], params)
    sd = math.sqrt(49 + 1e-6)
    assert w == pytest.approx((1 + 0.2 * 7 / sd, 1 - 0.2 * 7 / sd))
    assert sum(w) / 2 == pytest.approx(1.0)
    # Equal performances: sd = sqrt(1e-6), z = 0, weight 1.
    assert performance_weights([STATS["Bea"], STATS["Bo"]], params) == (1.0, 1.0)


def test_performance_weights_clamped_then_normalised() -> None:
    params = SpecParams(stat_weights={"kills": 1.0}, perf_alpha=1.0)
    stats = [{"kills": 30.0}, {"kills": 0.0}, {"kills": 0.0}]
    # p = 30, 0, 0; mean 10; sd = sqrt(200); z = 1.414, -0.707, -0.707;
    # raw 2.414, 0.293, 0.293 -> clamped 1.5, 0.5, 0.5 -> normalised by 2.5 / 3.
    w = performance_weights(stats, params)
    assert w == pytest.approx((1.5 * 3 / 2.5, 0.5 * 3 / 2.5, 0.5 * 3 / 2.5))
    assert sum(w) == pytest.approx(3.0)


def test_performance_weights_without_stats_are_one() -> None:
    params = SpecParams(stat_weights={"kills": 1.0})
    assert performance_weights([None, None], params) == (1.0, 1.0)
    assert performance_weights([STATS["Ann"], None], params) == (1.0, 1.0)


def test_performance_weighted_update() -> None:
    params = SpecParams(
        team_method="performance_weighted", stat_weights={"kills": 1.0, "deaths": -1.0}
    )
    (ann, al), (bea, bo) = rate(params, stats=STATS)
    rms_of_mean = math.sqrt((B1[2] / S) ** 2 + (B2[2] / S) ** 2) / 2
    composite_b = ((B1[1] + B2[1]) / 2, S * rms_of_mean, 1.0)
    sd = math.sqrt(49 + 1e-6)
    for player, result, w in ((A1, ann, 1 + 0.2 * 7 / sd), (A2, al, 1 - 0.2 * 7 / sd)):
        plain_rating, rd, vol = ref_step(player, [composite_b], S_A)
        # RD and volatility are not weighted; the rating change is.
        assert result.rd == pytest.approx(rd, abs=1e-6)
        assert result.volatility == pytest.approx(vol, abs=1e-9)
        assert result.rating - player[1] == pytest.approx(w * (plain_rating - player[1]), abs=1e-6)
        assert result.performance_weight == pytest.approx(w)
    assert bea.performance_weight == bo.performance_weight == 1.0


def test_performance_weighted_without_stats_is_composite_opponent_with_rms_of_mean() -> None:
    (ann, al), _ = rate(SpecParams(team_method="performance_weighted"))
    (ann2, al2), _ = rate(SpecParams(team_method="composite_opponent", composite_rd="rms_of_mean"))
    assert ann.rating == pytest.approx(ann2.rating, abs=1e-9)
    assert al.rd == pytest.approx(al2.rd, abs=1e-9)


def test_performance_weighted_delta_max() -> None:
    weights = {"kills": 1.0, "deaths": -1.0}
    clamped = SpecParams(team_method="performance_weighted", stat_weights=weights, delta_max=10.0)
    free = SpecParams(team_method="performance_weighted", stat_weights=weights)
    (ann, al), (bea, bo) = rate(clamped, stats=STATS)
    (ann_free, al_free), (bea_free, bo_free) = rate(free, stats=STATS)
    for player, result, unclamped in ((A1, ann, ann_free), (A2, al, al_free), (B2, bo, bo_free)):
        change = unclamped.rating - player[1]
        assert abs(change) > 10
        assert result.rating - player[1] == pytest.approx(math.copysign(10.0, change))
        assert result.rd == unclamped.rd  # only the rating change is bounded
    assert abs(bea.rating - B1[1]) <= 10


# -- glicko1_team ------------------------------------------------------------------

Q = math.log(10) / 400


def ref_glicko1(side, opponents, s, boost=True, scale=2.0, rd_max=350.0, m=1.0):
    def g1(rd: float) -> float:
        return 1 / math.sqrt(1 + 3 * Q**2 * rd**2 / math.pi**2)

    def team(players):
        rd = math.sqrt(sum(p[2] ** 2 for p in players) / len(players))
        r = sum(p[1] for p in players) / len(players) + (0.5 * (350 - rd) if boost else 0.0)
        return r, rd

    r_own, _ = team(side)
    r_opp, rd_opp = team(opponents)
    e = 1 / (1 + 10 ** (-g1(rd_opp) * (r_own - r_opp) / 400))
    d2 = 1 / (Q**2 * g1(rd_opp) ** 2 * e * (1 - e))
    out = []
    for _, r, rd, _ in side:
        factor = max(1 / scale, rd / rd_max)
        rd_new_sq = 1 / (1 / rd**2 + m / d2)
        change = scale * factor * Q * rd_new_sq * m * g1(rd_opp) * (s - e)
        out.append((r + change, math.sqrt(rd_new_sq), e))
    return out


@pytest.mark.parametrize("boost", [True, False])
def test_glicko1_team(boost: bool) -> None:
    params = SpecParams(team_method="glicko1_team", g1_boost=boost)
    (ann, al), (bea, bo) = rate(params)
    for result, (rating, rd, e) in zip(
        (ann, al), ref_glicko1([A1, A2], [B1, B2], S_A, boost), strict=True
    ):
        assert result.rating == pytest.approx(rating, abs=1e-6)
        assert result.rd == pytest.approx(rd, abs=1e-6)
        assert result.expected == pytest.approx(e)
        assert result.volatility == 0.06  # Glicko-1 has no volatility
        assert result.repetition_weight == 1.0
    for result, (rating, rd, _) in zip(
        (bea, bo), ref_glicko1([B1, B2], [A1, A2], 1 - S_A, boost), strict=True
    ):
        assert result.rating == pytest.approx(rating, abs=1e-6)
        assert result.rd == pytest.approx(rd, abs=1e-6)


def test_glicko1_boost_matters() -> None:
    """Side A's team RD (165) is below B's (206): with the boost A is expected to do better."""
    (ann_boost, _), _ = rate(SpecParams(team_method="glicko1_team"))
    (ann_plain, _), _ = rate(SpecParams(team_method="glicko1_team", g1_boost=False))
    assert ann_boost.expected > ann_plain.expected
    assert ann_boost.rating < ann_plain.rating  # a more expected win is worth less


def test_glicko1_rd_factor_amplifies_uncertain_players() -> None:
    """rdFactor = max(1/scale, RD/RD_max): above RD 175 a player moves more than Glicko-1."""
    params = SpecParams(team_method="glicko1_team")
    wild = ("Wild", 4500.0, 300.0, 0.06)
    (w,), _ = rate_sides(
        contestants(wild, weights=(1.0,)),
        contestants(B1, weights=(1.0,)),
        Outcome("a", 0.0, 0.9, 1.0),
        params,
    )
    (rating, _, _) = ref_glicko1([wild], [B1], 0.9, scale=2.0)[0]
    assert w.rating == pytest.approx(rating, abs=1e-6)
    plain_glicko1 = ref_glicko1([wild], [B1], 0.9, scale=1.0, rd_max=1e9)[0][0]
    assert (w.rating - 4500) / (plain_glicko1 - 4500) == pytest.approx(2 * 300 / 350)


def test_glicko1_new_players_start_at_130() -> None:
    fmt = get_format("badminton_21")
    replayer = Replayer(SpecParams(team_method="glicko1_team"), fmt)
    assert replayer.state("Nobody").rd == 130.0
    changes = replayer.rate(
        MatchResult(date(2024, 1, 1), ("A", "B"), ("C", "D"), ((21, 10), (21, 12)))
    )
    assert all(c.rd_before == 130.0 for c in changes)
    assert all(c.rd_after < 130.0 for c in changes)


# -- plumbing ----------------------------------------------------------------------


def test_unknown_composite_rd_is_refused() -> None:
    with pytest.raises(EngineError, match="composite_rd"):
        rate(SpecParams(composite_rd="median"))


def test_rate_sides_errors() -> None:
    with pytest.raises(EngineError):
        rate_sides([], contestants(B1), OUT, SpecParams())
    with pytest.raises(EngineError, match="unknown team method"):
        rate_sides(contestants(A1), contestants(B1), OUT, SpecParams(team_method="best_guess"))


@pytest.mark.parametrize("method", ["composite_opponent", "individual", "composite_team"])
def test_singles_methods_agree(method: str) -> None:
    """With one player a side these three methods are the same §3 update."""
    one_a, one_b = contestants(A1, weights=(1.0,)), contestants(B1, weights=(1.0,))
    base = rate_sides(one_a, one_b, OUT, SpecParams())
    other = rate_sides(one_a, one_b, OUT, SpecParams(team_method=method))
    assert other[0][0].rating == pytest.approx(base[0][0].rating, abs=1e-9)
    assert other[1][0].rd == pytest.approx(base[1][0].rd, abs=1e-9)


def test_through_the_replayer_a_doubles_match() -> None:
    """The replayer hands the team methods the states above and reports the changes."""
    initial = {n: PlayerState(r, rd, v) for n, r, rd, v in (A1, A2, B1, B2)}
    replayer = Replayer(SpecParams(outcome_model="score"), get_format("badminton_21"), initial)
    changes = replayer.rate(MatchResult(date(2024, 1, 1), ("Ann", "Al"), ("Bea", "Bo"), GAMES))
    (ann, al), (bea, bo) = rate(SpecParams())
    assert [c.player for c in changes] == ["Ann", "Al", "Bea", "Bo"]
    assert [c.rating_after for c in changes] == [ann.rating, al.rating, bea.rating, bo.rating]
    assert changes[0].outcome == pytest.approx(S_A)
    assert changes[2].outcome == pytest.approx(1 - S_A)


# -- margin_information: m wherever the repetition weight appears (§3 step 2, §5) -----

M = 1.6
# Side A wins with a margin worth m = 1.6 (margin_boost 1, ratio 0.15 of clamp 0.25).
INFO = Outcome("a", 0.15, 1.0, M)
NO_FLOOR = SpecParams(wrong_way_floor=False)


def rate_info(params: Params, weights=(1.0, 1.0)):  # type: ignore[no-untyped-def]
    side_a = contestants(A1, A2, weights=weights)
    return rate_sides(side_a, contestants(B1, B2), INFO, params)


def test_m_composite_opponent() -> None:
    (ann, al), (bea, bo) = rate_info(NO_FLOOR, weights=(1.0, 0.5))
    composite_b = ((B1[1] + B2[1]) / 2, (B1[2] + B2[2]) / 2)
    composite_a = ((A1[1] + A2[1]) / 2, (A1[2] + A2[2]) / 2)
    assert_result(ann, ref_step(A1, [(*composite_b, M * 0.75)], 1.0))
    assert_result(al, ref_step(A2, [(*composite_b, M * 0.75)], 1.0))
    assert_result(bea, ref_step(B1, [(*composite_a, M)], 0.0))
    assert_result(bo, ref_step(B2, [(*composite_a, M)], 0.0))
    assert ann.repetition_weight == 0.75  # the weight without m


def test_m_individual() -> None:
    (ann, _), (bea, _) = rate_info(NO_FLOOR.with_overrides(team_method="individual"), (1.0, 0.5))
    assert_result(ann, ref_step(A1, [(B1[1], B1[2], M), (B2[1], B2[2], M * 0.5)], 1.0))
    assert_result(bea, ref_step(B1, [(A1[1], A1[2], M), (A2[1], A2[2], M)], 0.0))


def test_m_composite_team() -> None:
    (ann, al), _ = rate_info(NO_FLOOR.with_overrides(team_method="composite_team"), (1.0, 0.5))
    mu_a = ((A1[1] + A2[1]) / 2 - CENTER) / S
    mu_b = ((B1[1] + B2[1]) / 2 - CENTER) / S
    phi_b = (B1[2] + B2[2]) / 2 / S
    e = ref_e(mu_a, mu_b, phi_b)
    w = M * 0.75  # m times the mean of the players' weights
    v = 1 / (w * ref_g(phi_b) ** 2 * e * (1 - e))
    delta = v * w * ref_g(phi_b) * (1.0 - e)
    for player, result in ((A1, ann), (A2, al)):
        mu, phi = (player[1] - CENTER) / S, player[2] / S
        assert_result(result, ref_finish(mu, phi, player[3], v, delta))


def test_m_performance_weighted() -> None:
    """composite_opponent with rms_of_mean and m, then the change scaled by performance."""
    params = NO_FLOOR.with_overrides(
        team_method="performance_weighted", stat_weights={"kills": 1.0, "deaths": -1.0}
    )
    side_a = contestants(A1, A2, stats=STATS)
    (ann, al), _ = rate_sides(side_a, contestants(B1, B2, stats=STATS), INFO, params)
    composite_b = ((B1[1] + B2[1]) / 2, math.sqrt(B1[2] ** 2 + B2[2] ** 2) / 2)
    w_ann, w_al = performance_weights([STATS["Ann"], STATS["Al"]], params)
    for player, result, w in ((A1, ann, w_ann), (A2, al, w_al)):
        rating, rd, vol = ref_step(player, [(*composite_b, M)], 1.0)
        assert_result(result, (player[1] + w * (rating - player[1]), rd, vol))


def test_m_glicko1_team() -> None:
    (ann, al), (bea, _) = rate_info(NO_FLOOR.with_overrides(team_method="glicko1_team"))
    for result, (rating, rd, _) in zip(
        (ann, al), ref_glicko1([A1, A2], [B1, B2], 1.0, m=M), strict=True
    ):
        assert result.rating == pytest.approx(rating, abs=1e-6)
        assert result.rd == pytest.approx(rd, abs=1e-6)
    (rating, rd, _) = ref_glicko1([B1, B2], [A1, A2], 0.0, m=M)[0]
    assert bea.rating == pytest.approx(rating, abs=1e-6)
    # m = 1 is Glicko-1 as before; m > 1 moves more and shrinks RD more.
    (plain, _), _ = rate_sides(
        contestants(A1, A2), contestants(B1, B2), Outcome("a", 0.0, 1.0, 1.0),
        NO_FLOOR.with_overrides(team_method="glicko1_team"),
    )  # fmt: skip
    assert ann.rating > plain.rating > A1[1] and ann.rd < plain.rd


@pytest.mark.parametrize("method", TEAM_METHODS)
def test_m_moves_more_in_every_method(method: str) -> None:
    params = SpecParams(team_method=method, stat_weights={"kills": 1.0})
    narrow = rate_sides(
        contestants(A1, A2), contestants(B1, B2), Outcome("a", 0.0, 1.0, 1.0), params
    )
    clear = rate_sides(contestants(A1, A2), contestants(B1, B2), INFO, params)
    for n, c in zip(narrow[0], clear[0], strict=True):
        assert c.rating > n.rating and not c.floor_applied
    for n, c in zip(narrow[1], clear[1], strict=True):
        assert c.rating < n.rating and not c.floor_applied
