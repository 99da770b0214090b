"""The forms of the play pages: they read the input; ``services.py`` says whether it is valid."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from decimal import Decimal
from typing import TypedDict

from django import forms

from core.inputs import InstantField
from ladder.clubs.models import Ladder
from ladder.play.models import MAX_MESSAGE_LENGTH, MAX_PLACE_LENGTH, MAX_PROPOSED_TIMES
from ratings.engine.scales import DISPLAY_DIVISOR


class DateTimeInput(forms.DateTimeInput):
    input_type = "datetime-local"

    def __init__(self, attrs: dict[str, str] | None = None) -> None:
        super().__init__(attrs, format="%Y-%m-%dT%H:%M")


class SlotRow(TypedDict):
    """One player's box of the challenge form, as its template draws it."""

    slot: str
    label: str
    value: str
    errors: list[str]


class ChallengeArguments(TypedDict):
    """What ``services.create_challenge`` takes from the form."""

    opponents: list[str]
    partners: list[str]
    proposed_times: list[datetime]
    place: str
    message: str


class OpenGameArguments(TypedDict):
    """What ``services.post_open_game`` takes from the form (levels in rating points)."""

    starts_at: datetime
    place: str
    level_min: int | None
    level_max: int | None


class DomainErrorsForm(forms.Form):
    """The domain's errors by key, put on the field they belong to (else the whole form)."""

    domain_keys: Mapping[str, str] = {}

    def add_domain_errors(self, errors: Mapping[str, Sequence[str]]) -> None:
        for key, messages in errors.items():
            field = self.domain_keys.get(key, key)
            for message in messages:
                self.add_error(field if field in self.fields else None, message)


class TimesForm(forms.Form):
    """Up to three times (the first required)."""

    time_1 = InstantField(label="Time 1", widget=DateTimeInput())
    time_2 = InstantField(label="Time 2 (optional)", required=False, widget=DateTimeInput())
    time_3 = InstantField(label="Time 3 (optional)", required=False, widget=DateTimeInput())

    def times(self) -> list[datetime]:
        return [
            self.cleaned_data[f"time_{i}"]
            for i in range(1, MAX_PROPOSED_TIMES + 1)
            if self.cleaned_data.get(f"time_{i}")
        ]


class ChallengeForm(DomainErrorsForm, TimesForm):
    """Who (the type-ahead fills usernames in), when (up to three times), where, a message."""

    domain_keys = {"proposed_times": "time_1", "opponents": "opponent_1", "partners": "partner_1"}
    place = forms.CharField(label="Where (optional)", required=False, max_length=MAX_PLACE_LENGTH)
    message = forms.CharField(
        label="Message (optional)",
        required=False,
        max_length=MAX_MESSAGE_LENGTH,
        widget=forms.Textarea(attrs={"rows": 3}),
    )

    def __init__(
        self,
        data: Mapping[str, object] | None = None,
        *,
        ladder: Ladder,
        initial: Mapping[str, object] | None = None,
    ) -> None:
        super().__init__(data, initial=dict(initial or {}))
        self.ladder = ladder
        self.opponent_slots = [f"opponent_{i}" for i in range(1, ladder.team_size + 1)]
        self.partner_slots = [f"partner_{i}" for i in range(1, ladder.team_size)]
        for slot in [*self.partner_slots, *self.opponent_slots]:
            label = "Your partner" if slot.startswith("partner") else "Opponent"
            if ladder.team_size > 1 and slot.startswith("opponent"):
                label = f"Opponent {slot[-1]}"
            self.fields[slot] = forms.CharField(label=label, max_length=150)

    def slot_rows(self, slots: list[str]) -> list[SlotRow]:
        return [
            {
                "slot": slot,
                "label": str(self.fields[slot].label),
                "value": str((self.data if self.is_bound else self.initial).get(slot) or ""),
                "errors": [str(e) for e in self.errors.get(slot, [])] if self.is_bound else [],
            }
            for slot in slots
        ]

    @property
    def opponent_rows(self) -> list[SlotRow]:
        return self.slot_rows(self.opponent_slots)

    @property
    def partner_rows(self) -> list[SlotRow]:
        return self.slot_rows(self.partner_slots)

    def arguments(self) -> ChallengeArguments:
        data = self.cleaned_data
        return {
            "opponents": [data[s].strip().lstrip("@") for s in self.opponent_slots],
            "partners": [data[s].strip().lstrip("@") for s in self.partner_slots],
            "proposed_times": self.times(),
            "place": data.get("place", ""),
            "message": data.get("message", ""),
        }


class OpenGameForm(DomainErrorsForm):
    """A game of the ladder's own team size (not a choice: a doubles game on a singles ladder
    could never be reported); levels as members read ratings, checked by the domain."""

    starts_at = InstantField(label="When", widget=DateTimeInput())
    place = forms.CharField(label="Where", max_length=MAX_PLACE_LENGTH)
    # Levels as members read ratings (4.50); the domain takes rating points (4500) and
    # says when one is outside the ladder's scale.
    level_min = forms.DecimalField(
        label="Lowest rating (optional)",
        required=False,
        decimal_places=2,
        help_text="As the ladder shows ratings, e.g. 4.00.",
    )
    level_max = forms.DecimalField(
        label="Highest rating (optional)", required=False, decimal_places=2
    )

    def arguments(self) -> OpenGameArguments:
        data = self.cleaned_data

        def points(level: Decimal | None) -> int | None:
            return None if level is None else int(level * DISPLAY_DIVISOR)

        return {
            "starts_at": data["starts_at"],
            "place": data["place"],
            "level_min": points(data.get("level_min")),
            "level_max": points(data.get("level_max")),
        }
