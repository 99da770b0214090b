"""Types of the C module `_native.c`: the rating update and the batch replay."""

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ratings.engine.types import PlayerChange

API_VERSION: int

# (scale, tau, slope, three_over_pi_squared, epsilon, max_iterations, max_bracket_steps)
Maths = tuple[float, float, float, float, float, int, int]
# (rating, rd, volatility, expected, repetition_weight, performance_weight, floor_applied)
RawResult = tuple[float, float, float, float, float, float, bool]

def inflate(phi: float, sigma: float, periods: int, phi_max: float, /) -> float: ...
def inactivity_periods(
    last: int, on: int, period: int, starts: Sequence[int], per_start: int, /
) -> int: ...
def win_probability(
    ratings: Sequence[float], rds: Sequence[float], n_a: int, maths: Maths, /
) -> float: ...
def new_volatility(delta: float, phi: float, v: float, sigma: float, maths: Maths, /) -> float: ...
def finish(
    mu: float,
    phi: float,
    sigma: float,
    v: float,
    improvement: float,
    gate_open: bool,
    maths: Maths,
    /,
) -> tuple[float, float, float]: ...
def update(
    mu: float,
    phi: float,
    sigma: float,
    results: Sequence[tuple[float, float, float, float]],
    gate_open: bool,
    maths: Maths,
    /,
) -> tuple[float, float, float]: ...
def update_one(
    mu: float,
    phi: float,
    sigma: float,
    mu_opp: float,
    phi_opp: float,
    score: float,
    weight: float,
    gate_open: bool,
    maths: Maths,
    /,
) -> tuple[float, float, float, float]: ...
def rate_sides(
    rules: tuple[Any, ...],
    side_a: Sequence[tuple[float, float, float, Sequence[float], bool, float]],
    side_b: Sequence[tuple[float, float, float, Sequence[float], bool, float]],
    s_a: float,
    s_b: float,
    m: float,
    a_won: bool,
    /,
) -> tuple[tuple[RawResult, ...], tuple[RawResult, ...]]: ...
def plain_loop(
    n_players: int,
    a: bytes,
    b: bytes,
    ordinals: bytes,
    outcomes: bytes,
    team: int,
    rules: tuple[Any, ...],
    window: tuple[int, float, float, int, float, float, float, float],
    /,
) -> float: ...

class History:
    """Matches in columns (replay.encode)."""

    names: list[Any]
    lines: list[tuple[tuple[int, int], ...]]
    stats: dict[int, Any]
    def __init__(self, *, match: type, match_fields: tuple[str, ...]) -> None: ...
    def __len__(self) -> int: ...
    def extend(self, matches: Sequence[Any], start: int = 0, /) -> int: ...
    def row(
        self, i: int, /
    ) -> tuple[int, tuple[Any, ...], tuple[Any, ...], tuple[tuple[int, int], ...], int | None]: ...
    def column(self, name: str, /) -> memoryview: ...

class Changes:
    """The rows of a columnar run; changes[i] is match i's tuple of PlayerChange."""

    def __init__(
        self, *, names: list[Any], change: type, change_fields: tuple[str, ...], fast_change: bool
    ) -> None: ...
    def __len__(self) -> int: ...
    def __getitem__(self, i: int, /) -> tuple[PlayerChange, ...]: ...
    def __iter__(self) -> Iterator[tuple[PlayerChange, ...]]: ...
    def column(self, name: str, /) -> memoryview: ...

class Replay:
    fast: tuple[bool, bool]
    def __init__(
        self,
        *,
        constants: tuple[Any, ...],
        player: Callable[[str], Any],
        outcomes: dict[Any, Any],
        outcome: Callable[[Any], Any],
        performance: Callable[[Any], Any],
        change: type,
        change_fields: tuple[str, ...],
        fast_change: bool,
        match: type,
        match_fields: tuple[str, ...],
        deque: type,
        last: tuple[int, Any],
    ) -> None: ...
    def run(
        self,
        matches: Sequence[Any],
        start: int,
        out: list[Any],
        probs: list[float] | None = None,
        /,
    ) -> int: ...
    def run_history(
        self,
        history: History,
        start: int,
        stop: int,
        outcomes: Any,
        out: Changes,
        probs: list[float] | None,
        performance: Callable[[int], Any] | None,
        /,
    ) -> int: ...
    def export(self) -> tuple[int, Any]: ...
