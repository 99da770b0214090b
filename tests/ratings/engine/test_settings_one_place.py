"""A rating setting is defined in one place: its field of ``Params`` in
ratings/engine/settings.py, the engine's one list of settings (issue 38).

The source tree (ladder/, ratings/, accounts/; not tests or migrations) is read as Python
and every place that gives a setting a default or a range of its own is listed: a
literal default given to the setting's name (``tau: float = 0.5``, ``tau=0.5``,
``{"tau": 0.5}``, a field's ``default=0.5``), a bound set on it (``MinValueValidator(0.01)``
in what is assigned to ``tau``) or compared with it (``params.margin_boost <= 10``, where
10 is a bound of the setting). Outside the list, that list must be empty. Where each
setting is read is listed too (``where_read``): every setting is read by the engine.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ladder.clubs.models import Ladder
from ladder.clubs.params import PARAM_FIELDS, field_options
from ratings.engine.settings import SETTING, SETTINGS, Params

ROOT = Path(__file__).resolve().parents[3]
THE_LIST = ROOT / "ratings" / "engine" / "settings.py"
VALIDATORS = {"MinValueValidator", "MaxValueValidator"}
ORDER = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def sources() -> Iterator[Path]:
    for top in ("ladder", "ratings", "accounts"):
        for path in sorted((ROOT / top).rglob("*.py")):
            if "migrations" not in path.parts and path != THE_LIST:
                yield path


def _is_default(name: str, node: ast.expr) -> bool:
    """``node`` is a literal equal to the setting's default (True is no 1, 0 no False)."""
    default = SETTING[name].default
    return (
        isinstance(node, ast.Constant)
        and type(node.value) is type(default)
        and node.value == default
    ) or (
        isinstance(node, ast.Constant)
        and isinstance(default, float)
        and type(node.value) is int
        and node.value == default
    )


def _bounds(name: str) -> set[float]:
    s = SETTING[name]
    return {
        float(b)
        for b in (s.minimum, s.maximum, s.ladder_minimum, s.ladder_maximum)
        if isinstance(b, int | float)
    }


def _named(node: ast.expr) -> str | None:
    """The setting ``node`` names: ``tau``, ``params.tau``, ``self.tau``."""
    name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
    return name if name in SETTING else None


def _own_definitions(name: str, value: ast.expr) -> Iterator[str]:
    """What ``value``, given to setting ``name``, defines of its own: a default, bounds."""
    if _is_default(name, value):
        yield f"{name}: default {ast.unparse(value)}"
    for node in ast.walk(value):
        if isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg == "default" and isinstance(keyword.value, ast.Constant):
                    yield f"{name}: default {ast.unparse(keyword.value)}"
            callee = getattr(node.func, "attr", getattr(node.func, "id", None))
            if callee in VALIDATORS and any(isinstance(a, ast.Constant) for a in node.args):
                yield f"{name}: range {ast.unparse(node)}"


def _mentioned(node: ast.AST) -> str | None:
    """The setting ``node`` names as a string (``options.get("delta_max")``), if any."""
    for inner in ast.walk(node):
        if (
            isinstance(inner, ast.Constant)
            and isinstance(inner.value, str)
            and inner.value in SETTING
        ):
            return inner.value
    return None


def _ranges(node: ast.AST, alias: Callable[[ast.expr], str | None]) -> Iterator[str]:
    """Comparisons in ``node`` of a setting (as ``alias`` reads an operand) with its bounds."""
    for compare in ast.walk(node):
        if not (
            isinstance(compare, ast.Compare) and all(isinstance(op, ORDER) for op in compare.ops)
        ):
            continue
        operands = [compare.left, *compare.comparators]
        for name in {n for n in map(alias, operands) if n is not None}:
            if any(
                isinstance(o, ast.Constant)
                and isinstance(o.value, int | float)
                and not isinstance(o.value, bool)
                and float(o.value) in _bounds(name)
                for o in operands
            ):
                yield f"{compare.lineno}: {name}: range {ast.unparse(compare)}"


def _through(aliases: dict[str, str]) -> Callable[[ast.expr], str | None]:
    """Reads an operand as its setting: by name, or a variable given a setting's value."""

    def alias(operand: ast.expr) -> str | None:
        if isinstance(operand, ast.Name) and operand.id in aliases:
            return aliases[operand.id]
        return _named(operand)

    return alias


def _any_name_is(setting: str) -> Callable[[ast.expr], str | None]:
    """Reads every variable as ``setting`` (under an ``if`` that names it)."""
    return lambda operand: setting if isinstance(operand, ast.Name) else _named(operand)


def definitions(text: str) -> list[str]:
    """Every default or range of a setting that ``text`` (Python) gives of its own.

    A setting is read by its name (``params.tau``, ``tau = ...``, ``tau=...``, ``{"tau": ...}``),
    through a variable given its value (``low = options.get("perf_weight_min")``), or as any
    variable under an ``if`` that names it (``if name == "delta_max": return value > 0``)."""
    tree = ast.parse(text)
    found: list[str] = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        pairs: list[tuple[str | None, ast.expr | None]] = []
        if isinstance(node, ast.Assign):
            pairs = [(_named(target), node.value) for target in node.targets]
        elif isinstance(node, ast.AnnAssign):
            pairs = [(_named(node.target), node.value)]
        elif isinstance(node, ast.Call):
            pairs = [(k.arg if k.arg in SETTING else None, k.value) for k in node.keywords]
        elif isinstance(node, ast.Dict):
            pairs = [
                (k.value if isinstance(k, ast.Constant) and k.value in SETTING else None, v)
                for k, v in zip(node.keys, node.values, strict=True)
            ]
        if isinstance(node, ast.Call | ast.Dict):
            # Naming one of a setting's choices (team_method="individual") picks it; only
            # a number given to a setting restates its default there.
            pairs = [
                (n, v)
                for n, v in pairs
                if not (isinstance(v, ast.Constant) and isinstance(v.value, str))
            ]
        for name, value in pairs:
            if name is not None and value is not None:
                found.extend(f"{line}: {what}" for what in _own_definitions(name, value))
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef):
            aliases = {
                inner.targets[0].id: setting
                for inner in ast.walk(node)
                if isinstance(inner, ast.Assign)
                and len(inner.targets) == 1
                and isinstance(inner.targets[0], ast.Name)
                and (setting := _mentioned(inner.value)) is not None
            }
            found.extend(_ranges(node, _through(aliases)))
        if isinstance(node, ast.If) and (setting := _mentioned(node.test)) is not None:
            for statement in node.body:
                found.extend(_ranges(statement, _any_name_is(setting)))
    return sorted(set(found))


def where_read() -> dict[str, list[str]]:
    """Setting → the modules (outside the list) that read it as an attribute."""
    readers: dict[str, set[str]] = {s.name: set() for s in SETTINGS}
    for path in sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.ctx, ast.Load)
                and node.attr in readers
            ):
                readers[node.attr].add(str(path.relative_to(ROOT)))
    return {name: sorted(files) for name, files in readers.items()}


#: Comparisons with a bound that are a formula's own case, not a range: (file, setting).
NOT_A_RANGE = {
    # A clamp of 0 ignores the margin (RATINGS.md §3 step 2): m = 1, no division by it.
    ("ratings/engine/outcome.py", "margin_clamp"),
}


def test_no_setting_has_a_second_default_or_range() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{where}"
        for path in sources()
        for where in definitions(path.read_text(encoding="utf-8"))
        if (str(path.relative_to(ROOT)), where.split(": ")[1]) not in NOT_A_RANGE
    ]
    assert found == [], (
        "a rating setting's default or range is written outside ratings/engine/settings.py; "
        f"read it from the list (SETTING[name]) instead: {found}"
    )


@pytest.mark.parametrize(
    "code",
    [
        # The Ladder's fields as they were (ladder/clubs/models.py before issue 38).
        "tau = models.FloatField(default=DEFAULTS.tau, validators=[MinValueValidator(0.01)])",
        "rd_max = models.FloatField('RD max', default=500.0)",
        "margin_clamp = models.FloatField(default=x, validators=[MaxValueValidator(1)])",
        # The engine's checks as they were (ratings/engine/replay.py), the method options'
        # (ladder/clubs/params.py).
        'need(0 <= params.margin_boost <= 10, "margin_boost must be between 0 and 10")',
        "ok = 0 <= params.season_start_periods <= 1000",
        'need(params.tau > 0, "tau must be positive")',
        'low = options.get("perf_weight_min", 0.5)\nif not 0 < low <= 1:\n    errors.append("")',
        'def ok(name, value):\n    if name == "delta_max":\n        return value is None or value > 0',
        "if self.lookback_days < 1: errors.append('at least a day')",
        # A default restated: a dataclass, a dict, a call.
        "class Settings:\n    rating_period_days: int = 7",
        'DEFAULTS = {"scale_factor": 400.0}',
        "Params(initial_rd=250)",
    ],
)
def test_a_second_definition_is_found(code: str) -> None:
    assert definitions(code) != []


def test_what_is_no_definition_is_not_found() -> None:
    code = """
tau = models.FloatField(**field_options("tau"))
if params.season_start_periods == 0: pass
preset = {"margin_boost": 0.0}
space = {"tau": Dimension(0.3, 1.2, 3)}
"""
    assert definitions(code) == []


def test_every_setting_is_read_by_the_engine() -> None:
    """No setting that nothing reads: each is read in ratings/engine (outside the list)."""
    unread = [
        name
        for name, files in where_read().items()
        if not any(f.startswith("ratings/engine/") for f in files)
    ]
    assert unread == []


def test_the_ladders_setting_fields_are_the_lists() -> None:
    """Each setting a ladder keeps as a field is made from the list (its default, words,
    choices and bounds), in a column of its kind; and no other field is a setting."""
    kinds = {"float": "FloatField", "int": "PositiveIntegerField", "choice": "CharField"}
    fields = {f.name: f for f in Ladder._meta.get_fields() if f.name in SETTING}
    assert set(fields) == set(PARAM_FIELDS)
    for name, model_field in fields.items():
        _, _, _, kwargs = model_field.deconstruct()  # type: ignore[union-attr]
        kwargs.pop("max_length", None)
        assert kwargs == field_options(name), name
        assert type(model_field).__name__ == kinds[SETTING[name].kind], name
    assert Ladder().params() == Params()


def test_the_c_kernel_bounds_a_seasons_raise_as_the_list_does() -> None:
    native = (ROOT / "ratings" / "engine" / "_native.c").read_text(encoding="utf-8")
    bound = re.search(r"#define MAX_PER_START (\d+)\n#define MAX_PER_START_TEXT \"(\d+)\"", native)
    assert bound is not None
    assert int(bound[1]) == int(bound[2]) == SETTING["season_start_periods"].maximum
