"""Peer rating systems run side by side with the ladder's engine (RATINGS.md §7).

Every system here follows one small protocol, :class:`RatingSystem`: ``predict``
a match before it is played, then ``update`` with its result. The evaluation in
``evaluate.py`` drives them all the same way, in the same run, so the numbers
are comparable.

- ``default``: the ladder's engine (``replay.Replayer``) with the ladder's params.
- ``elo``: Elo, K = 32, a team counts as its mean rating, win/loss only.
- ``glicko2``: plain Glicko-2 (1500/350/0.06, tau 0.5): win/loss, no margin,
  no repetition damping, no diversity gate; a team meets one composite opponent.
- ``trueskill`` and ``openskill`` (Plackett-Luce): the PyPI packages with their
  default settings, when installed. A missing package makes that peer
  unavailable (:class:`PeerUnavailable`), never a crash.

Each system also says how wide "±50 ladder points" is on its own scale
(``convergence_band``), so convergence is measured against the same change in
predicted win probability for every system (see ``docs/RATINGS_EVALUATION.md``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from datetime import date
from typing import Protocol

from ratings.engine import glicko2
from ratings.engine.formats import ScoringFormat
from ratings.engine.replay import Replayer
from ratings.engine.scales import GLICKO2_SCALE
from ratings.engine.types import MatchResult, Params

#: Convergence band on the ladder scale (RATINGS.md §7: "within ±50").
LADDER_BAND = 50.0
#: Win-probability slope at an even match for an Elo-like 400-point logistic,
#: per point. A band of 50 points is this slope times 50 in probability.
_ELO_SLOPE = math.log(10) / (4 * 400)


def actual_result(match: MatchResult) -> float:
    """1.0 if side A won more games, 0.0 if side B did, 0.5 for an even count."""
    return game_result(match.games)


def game_result(games: Iterable[tuple[int, int]]) -> float:
    """`actual_result` of a score line."""
    games = tuple(games)
    won_a = sum(1 for a, b in games if a > b)
    won_b = sum(1 for a, b in games if b > a)
    if won_a == won_b:
        return 0.5
    return 1.0 if won_a > won_b else 0.0


def gaussian_band(beta: float) -> float:
    """The ±50-ladder-point band for a system predicting ``Phi(d / (sqrt 2 * beta))``.

    Matched at an even match: 50 ladder points (at scale_factor 400) move the win
    probability by ``50 * ln10 / 1600``; the same move needs ``d`` skill units
    with slope ``1 / (2 sqrt(pi) beta)``.
    """
    return LADDER_BAND * _ELO_SLOPE * 2.0 * math.sqrt(math.pi) * beta


class PeerUnavailable(RuntimeError):
    """A peer whose package is not installed; the message says what to install."""


class RatingSystem(Protocol):
    """What the evaluation needs from a rating system."""

    name: str
    #: how many of this system's rating units equal ±50 ladder points
    convergence_band: float

    def predict(self, side_a: Sequence[str], side_b: Sequence[str], on: date) -> float:
        """Probability that side A beats side B in a match played on ``on``."""
        ...

    def update(self, match: MatchResult) -> None:
        """Rate a played match."""
        ...

    def rating(self, player: str) -> float:
        """The player's current rating on this system's scale (initial if unseen)."""
        ...


# --------------------------------------------------------------------------- Elo


class Elo:
    """Elo with a fixed K; a team plays as its mean rating; win/loss only."""

    name = "elo"
    convergence_band = LADDER_BAND  # Elo points are the 400-scale the band is defined on

    def __init__(self, k: float = 32.0, initial: float = 1500.0) -> None:
        self.k = k
        self.initial = initial
        self.ratings: dict[str, float] = {}

    def rating(self, player: str) -> float:
        return self.ratings.get(player, self.initial)

    def _mean(self, side: Sequence[str]) -> float:
        return sum(self.rating(p) for p in side) / len(side)

    def predict(self, side_a: Sequence[str], side_b: Sequence[str], on: date) -> float:
        return 1.0 / (1.0 + 10.0 ** ((self._mean(side_b) - self._mean(side_a)) / 400.0))

    def update(self, match: MatchResult) -> None:
        expected_a = self.predict(match.side_a, match.side_b, match.played_on)
        step = self.k * (actual_result(match) - expected_a)
        for p in match.side_a:
            self.ratings[p] = self.rating(p) + step
        for p in match.side_b:
            self.ratings[p] = self.rating(p) - step


# ---------------------------------------------------------------------- Glicko-2


class Glicko2:
    """Plain Glicko-2: each match is one rating period for its players.

    Teams: each player meets one composite opponent (mean mu, mean phi of the
    other side), as the thesis' composite-opponent method. RD grows for
    inactivity once per whole ``rating_period_days`` without a match, as in
    Glickman's rating periods (set it to 0 to switch that off).
    """

    name = "glicko2"
    convergence_band = LADDER_BAND  # Glicko-2 and the ladder share the 173.7178 scaling

    def __init__(
        self,
        rating: float = 1500.0,
        rd: float = 350.0,
        volatility: float = 0.06,
        tau: float = 0.5,
        rating_period_days: int = 7,
    ) -> None:
        self.center = rating
        self.initial = (0.0, rd / GLICKO2_SCALE, volatility)
        self.phi_max = rd / GLICKO2_SCALE
        self.tau = tau
        self.rating_period_days = rating_period_days
        # player -> (mu, phi, sigma, last played)
        self.states: dict[str, tuple[float, float, float, date | None]] = {}

    def rating(self, player: str) -> float:
        mu = self.states[player][0] if player in self.states else self.initial[0]
        return self.center + GLICKO2_SCALE * mu

    def _current(self, player: str, on: date) -> tuple[float, float, float]:
        """mu, phi, sigma with phi inflated for inactivity up to ``on``."""
        if player not in self.states:
            return self.initial
        mu, phi, sigma, last = self.states[player]
        if last is not None and self.rating_period_days > 0:
            periods = (on - last).days // self.rating_period_days
            phi = glicko2.inflate(phi, sigma, periods, self.phi_max)
        return mu, phi, sigma

    def _side(self, side: Sequence[str], on: date) -> tuple[float, float, float]:
        """Mean mu, mean phi, and rms phi of a side."""
        states = [self._current(p, on) for p in side]
        n = len(states)
        mu = sum(s[0] for s in states) / n
        phi_mean = sum(s[1] for s in states) / n
        phi_rms = math.sqrt(sum(s[1] * s[1] for s in states) / n)
        return mu, phi_mean, phi_rms

    def predict(self, side_a: Sequence[str], side_b: Sequence[str], on: date) -> float:
        mu_a, _, phi_a = self._side(side_a, on)
        mu_b, _, phi_b = self._side(side_b, on)
        g = glicko2.g(math.sqrt(phi_a * phi_a + phi_b * phi_b))
        return 1.0 / (1.0 + math.exp(-g * (mu_a - mu_b)))

    def update(self, match: MatchResult) -> None:
        on = match.played_on
        s_a = actual_result(match)
        opp_of_a = self._side(match.side_b, on)
        opp_of_b = self._side(match.side_a, on)
        new: dict[str, tuple[float, float, float, date | None]] = {}
        for side, (mu_o, phi_o, _), score in (
            (match.side_a, opp_of_a, s_a),
            (match.side_b, opp_of_b, 1.0 - s_a),
        ):
            for p in side:
                mu, phi, sigma = self._current(p, on)
                # The engine's own step with everything the ladder adds switched
                # off: weight 1, gate open, the standard slope (scale_factor 400).
                mu_new, phi_new, sigma_new, _ = glicko2.update_one(
                    mu, phi, sigma, mu_o, phi_o, score, 1.0, self.tau, 1.0, True
                )
                new[p] = (mu_new, min(phi_new, self.phi_max), sigma_new, on)
        self.states.update(new)


# ----------------------------------------------------------------- TrueSkill


class TrueSkill:
    """TrueSkill (``trueskill`` package); team = sum of skills.

    The package's defaults except ``draw_probability = 0``: a match always has a
    winner in every ladder format (the default 10% draw margin costs ~0.002 log-loss
    on the BWF file, 0.6149 against 0.6131).
    """

    name = "trueskill"

    def __init__(self) -> None:
        try:
            import trueskill
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise PeerUnavailable("trueskill is not installed (pip install trueskill)") from exc
        self.env = trueskill.TrueSkill(draw_probability=0.0)
        self.convergence_band = gaussian_band(self.env.beta)
        self.ratings: dict[str, object] = {}

    def _get(self, player: str):  # a rating of the untyped library
        r = self.ratings.get(player)
        return r if r is not None else self.env.create_rating()

    def rating(self, player: str) -> float:
        return float(self._get(player).mu)

    def predict(self, side_a: Sequence[str], side_b: Sequence[str], on: date) -> float:
        a = [self._get(p) for p in side_a]
        b = [self._get(p) for p in side_b]
        delta = sum(r.mu for r in a) - sum(r.mu for r in b)
        var = (len(a) + len(b)) * self.env.beta**2 + sum(r.sigma**2 for r in a + b)
        return _phi_major(delta / math.sqrt(var))

    def update(self, match: MatchResult) -> None:
        result = actual_result(match)
        if result == 0.5:
            return  # no draws in this environment (valid formats have none either)
        ranks = [0, 1] if result == 1.0 else [1, 0]
        a = tuple(self._get(p) for p in match.side_a)
        b = tuple(self._get(p) for p in match.side_b)
        new_a, new_b = self.env.rate([a, b], ranks=ranks)
        self.ratings.update(zip(match.side_a, new_a, strict=True))
        self.ratings.update(zip(match.side_b, new_b, strict=True))


def _phi_major(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


# ------------------------------------------------------------------ OpenSkill


class OpenSkill:
    """OpenSkill's Plackett-Luce model (``openskill`` package, default settings)."""

    name = "openskill"

    def __init__(self) -> None:
        try:
            from openskill.models import PlackettLuce
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise PeerUnavailable("openskill is not installed (pip install openskill)") from exc
        self.model = PlackettLuce()
        self.convergence_band = gaussian_band(self.model.beta)
        self.ratings: dict[str, object] = {}

    def _get(self, player: str):  # a rating of the untyped library
        r = self.ratings.get(player)
        if r is None:
            r = self.model.rating(name=player)
            self.ratings[player] = r
        return r

    def rating(self, player: str) -> float:
        r = self.ratings.get(player)
        return float(r.mu) if r is not None else float(self.model.mu)  # type: ignore[attr-defined]

    def predict(self, side_a: Sequence[str], side_b: Sequence[str], on: date) -> float:
        teams = [[self._get(p) for p in side_a], [self._get(p) for p in side_b]]
        return float(self.model.predict_win(teams)[0])

    def update(self, match: MatchResult) -> None:
        result = actual_result(match)
        ranks = [1.0, 1.0] if result == 0.5 else ([1.0, 2.0] if result == 1.0 else [2.0, 1.0])
        teams = [[self._get(p) for p in match.side_a], [self._get(p) for p in match.side_b]]
        new_a, new_b = self.model.rate(teams, ranks=ranks)
        self.ratings.update(zip(match.side_a, new_a, strict=True))
        self.ratings.update(zip(match.side_b, new_b, strict=True))


# --------------------------------------------------------------- the engine


class Default:
    """The ladder's own engine behind the same protocol (``replay.Replayer``)."""

    convergence_band = LADDER_BAND

    def __init__(
        self, params: Params, scoring_format: ScoringFormat, name: str = "default"
    ) -> None:
        self.name = name
        self.params = params
        self.replayer = Replayer(params, scoring_format)

    def rating(self, player: str) -> float:
        return float(self.replayer.state(player).rating)

    def predict(self, side_a: Sequence[str], side_b: Sequence[str], on: date) -> float:
        return float(self.replayer.predict(tuple(side_a), tuple(side_b), on))

    def update(self, match: MatchResult) -> None:
        self.replayer.rate(match)


#: Peer constructors by name, in report order (the engine itself is built apart).
PEERS: dict[str, Callable[[], RatingSystem]] = {
    "glicko2": Glicko2,
    "elo": Elo,
    "trueskill": TrueSkill,
    "openskill": OpenSkill,
}


def make_peers(names: Iterable[str] = PEERS) -> dict[str, RatingSystem | PeerUnavailable]:
    """Build the named peers; a peer that cannot run is its :class:`PeerUnavailable`."""
    out: dict[str, RatingSystem | PeerUnavailable] = {}
    for name in names:
        try:
            out[name] = PEERS[name]()
        except PeerUnavailable as exc:
            out[name] = exc
    return out
