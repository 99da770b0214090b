"""The thesis' experiment (seeds: "Abstracting Glicko-2 for Team Games", chapter III), rerun.

`python -m ratings.engine simulate --thesis [--runs N] [--seed S] [--json]`. The protocol,
as the thesis writes it, and what it leaves open (chosen here, said in
docs/RATINGS_EVALUATION.md "The thesis' experiment"):

- **25 players with hidden skills, teams of five, 100 games a run** (§3.3). The thesis' players
  are RoboCup robots; here each has a hidden skill drawn from N(1500, :data:`SKILL_SD`²) on the
  Glicko-2 rating scale, and the pivot's side wins with the logistic win probability of the
  two sides' mean skills, ``1 / (1 + 10^(-(mean_A - mean_B) / 400))``. No game is a tie (the
  thesis' soccer games sometimes were).
- **Matchmaking** (§3.5): the pivot is the player with the fewest games (ties drawn at
  random); the 20 players closest to the pivot's current rating are candidates; each gets
  Glicko-2's prediction against the pivot, ``E(mu_p, mu_j, phi_j)``; the 9 whose prediction
  is closest to 1/2 ("the top predictions") are dealt out alternately, first to the opposing
  side, then to the pivot's, so both sides have five. Matchmaking is the same for every
  method, as in the thesis, but it reads each method's own ratings.
- **Prediction** (§3.6): each side's mean rating and mean deviation, then Glicko's prediction
  of a game, ``P = 1 / (1 + exp(-g(sqrt(phi_A² + phi_B²)) (mu_A - mu_B)))``.
- **Update methods**: ``individual_engine``: every opponent in one rating period (the
  engine's ``individual`` team method); ``individual_sequential``: the thesis' Algorithm 1, a
  full Glicko-2 update against each opponent in turn (opponents at their pre-game values);
  ``composite_opponent``: one update against the opposing side's mean rating and deviation
  (Algorithm 2); ``composite_team``: Algorithm 3, the side's mean rating against the
  opponents' mean gives ``v`` and the improvement, applied to each player's own deviation and
  volatility (``mu' = mu + phi'² g (s - E)``, Glicko-2's step 7; the thesis prints ``phi'``).
  All four call the engine's Glicko-2 kernel (``glicko2.update``, ``update_one``,
  ``finish``): 1500 / 350 / 0.06, tau :data:`TAU`.
- **Error** (§3.6, §4.2): the thesis does not define it. Both plausible ones are computed
  for every game, ``absolute`` mean ``|y - P|`` and ``squared`` mean ``(y - P)²``; "full" is
  the mean over a run's 100 games, "last20" over its last 20, then mean ± SD over the runs.
  :func:`matching_error` names the one nearer the thesis' figures.
- **Top player** (§4.4): the player with the highest hidden skill; their rating before their
  first game and after each game, averaged over the runs (up to the fewest games any run's
  top player played).
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Callable, Mapping, Sequence
from typing import Literal, NotRequired, TypedDict

from ratings.engine import glicko2
from ratings.engine.scales import GLICKO2_SCALE

PLAYERS = 25
TEAM_SIZE = 5
GAMES = 100
CANDIDATES = 20  # the players closest to the pivot's rating (§3.5)
LAST = 20  # "the last 20 games" (§4.2)
DEFAULT_RUNS = 20
DEFAULT_SEED = 1
#: Hidden skills on the rating scale: N(1500, 200²). A one-SD gap between two players wins
#: 76% of 1v1 games; between two random sides of five, the mean gap's SD is 126 (67%).
SKILL_MEAN = 1500.0
SKILL_SD = 200.0
INITIAL_RATING = 1500.0
INITIAL_RD = 350.0
INITIAL_VOLATILITY = 0.06
TAU = 0.5
METHODS = ("individual_engine", "individual_sequential", "composite_opponent", "composite_team")
ERROR_FUNCTIONS = ("absolute", "squared")
PARTS: tuple[Literal["full"], Literal["last20"]] = ("full", "last20")  # of a run: all, the last 20
#: The thesis' table 4.2 (error in %, as fractions): its Individual is Algorithm 1.
THESIS = {
    "individual_sequential": {"full": 0.2146, "last20": 0.2171},
    "composite_opponent": {"full": 0.2211, "last20": 0.2296},
    "composite_team": {"full": 0.2223, "last20": 0.2208},
}

State = list[float]  # [mu, phi, sigma] on the Glicko-2 scale


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def _individual_engine(own: list[State], other: list[State], s: float) -> list[State]:
    opponents = [(o[0], o[1], s, 1.0) for o in other]
    return [list(glicko2.update(p[0], p[1], p[2], opponents, TAU)) for p in own]


def _individual_sequential(own: list[State], other: list[State], s: float) -> list[State]:
    out = []
    for p in own:
        mu, phi, sigma = p
        for o in other:
            mu, phi, sigma, _ = glicko2.update_one(
                mu, phi, sigma, o[0], o[1], s, 1.0, TAU, 1.0, True
            )
        out.append([mu, phi, sigma])
    return out


def _composite_opponent(own: list[State], other: list[State], s: float) -> list[State]:
    mu_c, phi_c = _mean([o[0] for o in other]), _mean([o[1] for o in other])
    return [
        list(glicko2.update_one(p[0], p[1], p[2], mu_c, phi_c, s, 1.0, TAU, 1.0, True)[:3])
        for p in own
    ]


def _composite_team(own: list[State], other: list[State], s: float) -> list[State]:
    mu_a, mu_b = _mean([p[0] for p in own]), _mean([o[0] for o in other])
    g_b = glicko2.g(_mean([o[1] for o in other]))
    e = glicko2.expected(mu_a, mu_b, g_b)
    v = 1.0 / (g_b * g_b * e * (1.0 - e))
    improvement = g_b * (s - e)
    return [list(glicko2.finish(p[0], p[1], p[2], v, improvement, TAU, True)) for p in own]


UPDATES: dict[str, Callable[[list[State], list[State], float], list[State]]] = {
    "individual_engine": _individual_engine,
    "individual_sequential": _individual_sequential,
    "composite_opponent": _composite_opponent,
    "composite_team": _composite_team,
}


def win_probability(side_a: Sequence[State], side_b: Sequence[State]) -> float:
    """§3.6: each side's mean rating and deviation, then Glicko's prediction of a game."""
    mu_a, mu_b = _mean([p[0] for p in side_a]), _mean([p[0] for p in side_b])
    phi_a, phi_b = _mean([p[1] for p in side_a]), _mean([p[1] for p in side_b])
    return glicko2.expected(mu_a, mu_b, glicko2.g(math.hypot(phi_a, phi_b)))


def matchmake(
    states: Sequence[State], games: Sequence[int], rng: random.Random
) -> tuple[list[int], list[int]]:
    """§3.5: the pivot's side and the opposing side (indices), five each."""
    fewest = min(games)
    pivot = rng.choice([i for i, n in enumerate(games) if n == fewest])
    mu, _, _ = states[pivot]
    others = sorted(
        (i for i in range(len(states)) if i != pivot), key=lambda i: (abs(states[i][0] - mu), i)
    )
    candidates = others[:CANDIDATES]
    evenness = sorted(
        candidates,
        key=lambda j: (abs(glicko2.expected(mu, states[j][0], glicko2.g(states[j][1])) - 0.5), j),
    )
    picked = evenness[: 2 * TEAM_SIZE - 1]
    opposing, mates = picked[0::2], picked[1::2]
    return [pivot, *mates], opposing


def _skill_win_probability(
    skills: Sequence[float], side_a: Sequence[int], side_b: Sequence[int]
) -> float:
    gap = _mean([skills[i] for i in side_a]) - _mean([skills[i] for i in side_b])
    return float(1.0 / (1.0 + 10.0 ** (-gap / 400.0)))


class Run(TypedDict):
    """One run of one method: each game's P and y, and the top player's ratings."""

    probs: list[float]
    results: list[float]
    top_player: list[float]


class Summary(TypedDict):
    """An error's mean and SD over the runs."""

    mean: float
    sd: float


class Errors(TypedDict):
    """An error function over the whole run and over its last :data:`LAST` games."""

    full: Summary
    last20: Summary


class MethodResult(TypedDict):
    """A method over the runs: each error function's, the matching one's (``full`` and
    ``last20``, once chosen) and the top player's mean trace."""

    errors: dict[str, Errors]
    top_player: list[float]
    full: NotRequired[Summary]
    last20: NotRequired[Summary]


class Protocol(TypedDict):
    players: int
    team_size: int
    games: int
    runs: int
    seed: int
    candidates: int
    skill_sd: float
    tau: float


class ThesisResult(TypedDict):
    """What :func:`thesis_experiment` returns (``simulate --thesis --json`` prints it)."""

    protocol: Protocol
    error_function: str
    methods: dict[str, MethodResult]
    thesis: dict[str, dict[str, float]]


def run_once(method: str, seed: int, run: int) -> Run:
    """One 100-game run of one method: each game's P and y, and the top player's ratings."""
    skill_rng = random.Random(f"thesis:{seed}:{run}:skills")
    skills = [skill_rng.gauss(SKILL_MEAN, SKILL_SD) for _ in range(PLAYERS)]
    top = max(range(PLAYERS), key=skills.__getitem__)
    # The same draws for every method: matchmaking's ties and the games' coin flips.
    rng = random.Random(f"thesis:{seed}:{run}:games")
    start = [
        (INITIAL_RATING - SKILL_MEAN) / GLICKO2_SCALE,
        INITIAL_RD / GLICKO2_SCALE,
        INITIAL_VOLATILITY,
    ]
    states = [list(start) for _ in range(PLAYERS)]
    played = [0] * PLAYERS
    update = UPDATES[method]
    probs: list[float] = []
    results: list[float] = []
    trace = [INITIAL_RATING]
    for _ in range(GAMES):
        side_a, side_b = matchmake(states, played, rng)
        a, b = [states[i] for i in side_a], [states[i] for i in side_b]
        probs.append(win_probability(a, b))
        y = 1.0 if rng.random() < _skill_win_probability(skills, side_a, side_b) else 0.0
        results.append(y)
        new_a, new_b = update(a, b, y), update(b, a, 1.0 - y)
        for i, state in zip([*side_a, *side_b], [*new_a, *new_b], strict=True):
            states[i] = state
            played[i] += 1
        if top in side_a or top in side_b:
            trace.append(SKILL_MEAN + GLICKO2_SCALE * states[top][0])
    return {"probs": probs, "results": results, "top_player": trace}


def _errors(probs: Sequence[float], results: Sequence[float], kind: str) -> list[float]:
    if kind == "absolute":
        return [abs(y - p) for p, y in zip(probs, results, strict=True)]
    return [(y - p) ** 2 for p, y in zip(probs, results, strict=True)]


def _summary(values: Sequence[float]) -> Summary:
    return {
        "mean": statistics.fmean(values),
        "sd": statistics.stdev(values) if len(values) > 1 else 0.0,
    }


def matching_error(methods: Mapping[str, MethodResult]) -> str:
    """The error function whose means lie nearest the thesis' six figures (mean absolute gap)."""

    def distance(kind: str) -> float:
        gaps = [
            abs(methods[m]["errors"][kind][part]["mean"] - figures[part])
            for m, figures in THESIS.items()
            for part in PARTS
        ]
        return statistics.fmean(gaps)

    return min(ERROR_FUNCTIONS, key=distance)


def thesis_experiment(runs: int = DEFAULT_RUNS, seed: int = DEFAULT_SEED) -> ThesisResult:
    """Every method over ``runs`` runs; see the module docstring for the protocol.

    ``methods.{name}.full`` and ``.last20`` are the matching error function's mean and SD
    over the runs (``error_function`` names it); ``.errors.{function}`` holds both.
    """
    if runs < 1:
        raise ValueError("runs must be at least 1")
    methods: dict[str, MethodResult] = {}
    for method in METHODS:
        outcomes = [run_once(method, seed, run) for run in range(runs)]
        errors: dict[str, Errors] = {}
        for kind in ERROR_FUNCTIONS:
            per_run = [_errors(o["probs"], o["results"], kind) for o in outcomes]
            errors[kind] = {
                "full": _summary([statistics.fmean(e) for e in per_run]),
                "last20": _summary([statistics.fmean(e[-LAST:]) for e in per_run]),
            }
        shortest = min(len(o["top_player"]) for o in outcomes)
        methods[method] = {
            "errors": errors,
            "top_player": [
                statistics.fmean(o["top_player"][k] for o in outcomes) for k in range(shortest)
            ],
        }
    chosen = matching_error(methods)
    for entry in methods.values():
        entry["full"] = entry["errors"][chosen]["full"]
        entry["last20"] = entry["errors"][chosen]["last20"]
    return {
        "protocol": {
            "players": PLAYERS,
            "team_size": TEAM_SIZE,
            "games": GAMES,
            "runs": runs,
            "seed": seed,
            "candidates": CANDIDATES,
            "skill_sd": SKILL_SD,
            "tau": TAU,
        },
        "error_function": chosen,
        "methods": methods,
        "thesis": THESIS,
    }


def _pct(summary: Summary) -> str:
    return f"{summary['mean'] * 100:.2f} ± {summary['sd'] * 100:.2f}%"


def format_thesis(result: ThesisResult) -> str:
    """The table beside the thesis' figures, the error functions, and the top player's trace."""
    p = result["protocol"]
    chosen = result["error_function"]
    lines = [
        f"The thesis' experiment: {p['players']} players, teams of {p['team_size']}, "
        f"{p['games']} games a run, {p['runs']} runs (seed {p['seed']}); error as mean ± SD "
        "over the runs.",
        "",
        "| method | absolute full | absolute last 20 | squared full | squared last 20 "
        "| thesis full | thesis last 20 |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, entry in result["methods"].items():
        errors = entry["errors"]
        thesis = result["thesis"].get(name)
        paper = (
            (f"{thesis['full'] * 100:.2f}%", f"{thesis['last20'] * 100:.2f}%")
            if thesis
            else ("—", "—")
        )
        lines.append(
            f"| {name} | {_pct(errors['absolute']['full'])} | {_pct(errors['absolute']['last20'])} "
            f"| {_pct(errors['squared']['full'])} | {_pct(errors['squared']['last20'])} "
            f"| {paper[0]} | {paper[1]} |"
        )
    lines += [
        "",
        f"The thesis' figures match the {chosen} error "
        + ("(mean (y − P)²)." if chosen == "squared" else "(mean |y − P|)."),
        "",
        "Top player's rating (mean over the runs) before their first game and after each 5th game:",
    ]
    for name, entry in result["methods"].items():
        trace = entry["top_player"]
        points = ", ".join(f"{trace[k]:.0f}" for k in range(0, len(trace), 5))
        lines.append(f"- {name}: {points}")
    return "\n".join(lines)
