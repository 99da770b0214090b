"""The self-assessment asked when joining a ladder (RATINGS.md §4)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, cast

from django import forms

from ladder.models import Ladder, format_rating, format_rd
from ratings.engine.initial import CERTAINTY_CHOICES, LEVEL_CHOICES


class JoinForm(forms.Form):
    """Both questions are optional: skipping them starts you at the ladder's defaults."""

    level = forms.TypedChoiceField(
        required=False,
        coerce=Decimal,
        empty_value=None,
        label="Your level",
        help_text="The level sets your starting rating.",
    )
    certainty = forms.ChoiceField(
        required=False,
        widget=forms.RadioSelect,
        label="How sure are you?",
        help_text="The surer you are, the less your first matches move your rating.",
    )

    def __init__(self, *args: Any, ladder: Ladder, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.ladder = ladder
        start = ladder.default_start()
        level = cast(forms.TypedChoiceField, self.fields["level"])
        certainty = cast(forms.ChoiceField, self.fields["certainty"])
        level.choices = [
            ("", f"Skip – ladder default ({format_rating(start.rating)})"),
            *LEVEL_CHOICES,
        ]
        certainty.choices = [
            *CERTAINTY_CHOICES,
            ("", f"Skip – ladder default (± {format_rd(start.rd)})"),
        ]
        certainty.initial = ""
