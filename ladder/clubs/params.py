"""A ladder's rating settings, read from the engine's one list of them
(``ratings/engine/settings.py``): which are fields of ``Ladder`` (RATINGS.md §2) and what
each field is made of, which are keys of ``Ladder.method_options`` (RATINGS.md §5) beside
the site's own (``stat_labels``), and the engine's refusals put on the ladder's fields."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from django.core.validators import BaseValidator, MaxValueValidator, MinValueValidator

from ratings.engine.errors import Problem
from ratings.engine.settings import SETTING, SETTINGS, TEAM_METHOD_LABELS, Setting
from ratings.engine.types import Params

DEFAULTS = Params()

#: The settings a ladder keeps as fields of its own, named as in the engine's Params.
PARAM_FIELDS = tuple(s.name for s in SETTINGS if s.store == "field")

# What a method option must hold, in words, by the kind of its setting.
_EXPECTS = {
    "weights": "an object of stat name → number",
    "float": "a number",
    "optional_float": "a number, or null for off",
    "bool": "true or false",
}
#: RATINGS.md §5 method settings kept in Ladder.method_options, with what each must hold.
METHOD_OPTIONS: dict[str, str] = {s.name: _EXPECTS[s.kind] for s in SETTINGS if s.store == "option"}
#: Method options that are no rating parameter: how the site words the method's settings.
SITE_OPTIONS: dict[str, str] = {
    "stat_labels": "an object of stat name → the label members read (1–40 characters)",
}
# A stat's label is a column heading on a phone: a few words.
STAT_LABEL_MAX = 40


def field_options(name: str) -> dict[str, Any]:
    """The options of the ``Ladder`` field of setting ``name``, all from the engine's list:
    default, the words beside it, its choices, and the bounds a ladder holds it to beyond
    the engine's (most ranges are the engine's alone: ``validate_params`` checks them in
    ``Ladder.clean`` and its refusal reads on the field)."""
    setting = SETTING[name]
    options: dict[str, Any] = {"default": setting.default}
    if setting.label:
        options["verbose_name"] = setting.label
    if setting.choices:
        options["choices"] = list(setting.choices)
    validators: list[BaseValidator] = []
    if setting.ladder_minimum is not None:
        validators.append(MinValueValidator(setting.ladder_minimum))
    if setting.ladder_maximum is not None:
        validators.append(MaxValueValidator(setting.ladder_maximum))
    if validators:
        options["validators"] = validators
    if setting.help:
        options["help_text"] = setting.words(setting.help)
    return options


def problem_field(problem: Problem) -> str:
    """The ladder field a refusal of ``validate_params`` goes on: its setting's field, or
    the method options for a setting kept there (or one the ladder does not set)."""
    return problem.setting if problem.setting in PARAM_FIELDS else "method_options"


def problem_message(problem: Problem) -> str:
    """A refusal as a form shows it: the setting by its field's name ("margin_boost must be
    …" → "Margin boost must be …"), a team method by its label, ending with a full stop."""
    name, _, rest = problem.message.partition(" ")
    setting: Setting | None = SETTING.get(name)
    if setting is not None and name in PARAM_FIELDS:
        name = setting.verbose_name
    elif name in TEAM_METHOD_LABELS:
        name = TEAM_METHOD_LABELS[name]
    return sentence(f"{name} {rest}")


def sentence(text: str) -> str:
    """``text`` with a capital first letter and one full stop at its end."""
    text = text.rstrip(".") + "."
    return text[:1].upper() + text[1:]


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _option_ok(name: str, value: object) -> bool:
    """Whether a method option holds what its kind needs; its range is the engine's to check."""
    if name == "stat_labels":
        return isinstance(value, dict) and all(
            isinstance(k, str) and isinstance(v, str) and 0 < len(v.strip()) <= STAT_LABEL_MAX
            for k, v in value.items()
        )
    kind = SETTING[name].kind
    if kind == "weights":
        return isinstance(value, dict) and all(
            isinstance(k, str) and k and _is_number(v) for k, v in value.items()
        )
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "optional_float":
        return value is None or _is_number(value)
    return _is_number(value)


def method_option_errors(options: object) -> list[str]:
    """Readable problems with a ladder's method_options (empty when they are fine)."""
    if not isinstance(options, dict):
        return ['Method options must be a JSON object, e.g. {"stat_weights": {"kills": 1}}.']
    errors = []
    for name, value in options.items():
        if name not in METHOD_OPTIONS and name not in SITE_OPTIONS:
            allowed = ", ".join([*METHOD_OPTIONS, *SITE_OPTIONS])
            errors.append(f"Unknown method option {name!r}; allowed: {allowed}.")
        elif not _option_ok(name, value):
            must = METHOD_OPTIONS.get(name) or SITE_OPTIONS[name]
            errors.append(f"Method option {name!r} must be {must}.")
    if not errors:
        unknown = sorted(set(options.get("stat_labels", {})) - set(options.get("stat_weights", {})))
        if unknown:
            errors.append(
                f"Stat labels name stats without a weight: {', '.join(unknown)}; label only the "
                "stats of stat_weights."
            )
    return errors


def ladder_values(fields: Mapping[str, Any], options: Mapping[str, Any]) -> dict[str, Any]:
    """A ladder's stored settings (its fields, its method options from JSON) as the engine's
    Params holds them; the site's own options left out."""
    values = {name: int(v) if SETTING[name].kind == "int" else v for name, v in fields.items()}
    for name, value in options.items():
        if name in SITE_OPTIONS:
            continue  # the site's wording, not a rating parameter
        kind = SETTING[name].kind if name in SETTING else None
        if kind == "weights":
            value = MappingProxyType({k: float(v) for k, v in value.items()})
        elif kind in ("float", "optional_float") and value is not None:
            value = float(value)
        values[name] = value
    return values
