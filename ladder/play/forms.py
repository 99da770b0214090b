"""The forms of the play pages: they read the input; ``services.py`` says whether it is valid."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django import forms

from ladder.clubs.models import Ladder
from ladder.play.models import MAX_MESSAGE_LENGTH, MAX_PLACE_LENGTH, MAX_PROPOSED_TIMES
from ratings.engine.scales import DISPLAY_DIVISOR


class DateTimeInput(forms.DateTimeInput):
    input_type = "datetime-local"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(format="%Y-%m-%dT%H:%M", **kwargs)


class DomainErrorsMixin:
    """The domain's errors by key, put on the field they belong to (else the whole form)."""

    domain_keys: Mapping[str, str] = {}

    def add_domain_errors(self, errors: Mapping[str, Sequence[str]]) -> None:
        form: Any = self
        for key, messages in errors.items():
            field = self.domain_keys.get(key, key)
            for message in messages:
                form.add_error(field if field in form.fields else None, message)


class TimesForm(forms.Form):
    """Up to three times (the first required)."""

    time_1 = forms.DateTimeField(label="Time 1", widget=DateTimeInput())
    time_2 = forms.DateTimeField(label="Time 2 (optional)", required=False, widget=DateTimeInput())
    time_3 = forms.DateTimeField(label="Time 3 (optional)", required=False, widget=DateTimeInput())

    def times(self) -> list[Any]:
        return [
            self.cleaned_data[f"time_{i}"]
            for i in range(1, MAX_PROPOSED_TIMES + 1)
            if self.cleaned_data.get(f"time_{i}")
        ]


class ChallengeForm(DomainErrorsMixin, TimesForm):
    """Who (the type-ahead fills usernames in), when (up to three times), where, a message."""

    domain_keys = {"proposed_times": "time_1", "opponents": "opponent_1", "partners": "partner_1"}
    place = forms.CharField(label="Where (optional)", required=False, max_length=MAX_PLACE_LENGTH)
    message = forms.CharField(
        label="Message (optional)",
        required=False,
        max_length=MAX_MESSAGE_LENGTH,
        widget=forms.Textarea(attrs={"rows": 3}),
    )

    def __init__(self, data: Any = None, *, ladder: Ladder, **kwargs: Any) -> None:
        super().__init__(data, **kwargs)
        self.ladder = ladder
        self.opponent_slots = [f"opponent_{i}" for i in range(1, ladder.team_size + 1)]
        self.partner_slots = [f"partner_{i}" for i in range(1, ladder.team_size)]
        for slot in [*self.partner_slots, *self.opponent_slots]:
            label = "Your partner" if slot.startswith("partner") else "Opponent"
            if ladder.team_size > 1 and slot.startswith("opponent"):
                label = f"Opponent {slot[-1]}"
            self.fields[slot] = forms.CharField(label=label, max_length=150)

    def slot_rows(self, slots: list[str]) -> list[dict[str, Any]]:
        return [
            {
                "slot": slot,
                "label": self.fields[slot].label,
                "value": (self.data.get(slot) if self.is_bound else self.initial.get(slot)) or "",
                "errors": list(self.errors.get(slot, [])) if self.is_bound else [],
            }
            for slot in slots
        ]

    @property
    def opponent_rows(self) -> list[dict[str, Any]]:
        return self.slot_rows(self.opponent_slots)

    @property
    def partner_rows(self) -> list[dict[str, Any]]:
        return self.slot_rows(self.partner_slots)

    def arguments(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "opponents": [data[s].strip().lstrip("@") for s in self.opponent_slots],
            "partners": [data[s].strip().lstrip("@") for s in self.partner_slots],
            "proposed_times": self.times(),
            "place": data.get("place", ""),
            "message": data.get("message", ""),
        }


class OpenGameForm(DomainErrorsMixin, forms.Form):
    starts_at = forms.DateTimeField(label="When", widget=DateTimeInput())
    place = forms.CharField(label="Where", max_length=MAX_PLACE_LENGTH)
    team_size = forms.TypedChoiceField(
        label="Game", choices=((1, "Singles"), (2, "Doubles")), coerce=int
    )
    # Levels as members read ratings (4.50); the domain takes rating points (4500).
    level_min = forms.DecimalField(
        label="Lowest rating (optional)",
        required=False,
        min_value=0,
        max_value=20,
        decimal_places=2,
        help_text="As the ladder shows ratings, e.g. 4.00.",
    )
    level_max = forms.DecimalField(
        label="Highest rating (optional)",
        required=False,
        min_value=0,
        max_value=20,
        decimal_places=2,
    )

    def arguments(self) -> dict[str, Any]:
        data = dict(self.cleaned_data)
        for key in ("level_min", "level_max"):
            if data.get(key) is not None:
                data[key] = int(data[key] * DISPLAY_DIVISOR)
        return data
