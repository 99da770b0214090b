"""Forms of the clubs app: the self-assessment asked when joining a ladder (RATINGS.md §4),
and a member's profile (their name, and which ladders show them publicly)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, cast

from django import forms

from accounts.models import User
from accounts.signals import account_saved
from core.inputs import DayField
from ladder.clubs.formatting import format_rating, format_rd
from ladder.clubs.models import Ladder, Membership
from ladder.clubs.services import save_membership
from ratings.engine.initial import CERTAINTY_CHOICES, level_choices_for


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
        skip = (
            "where newcomers stand"
            if ladder.newcomer_start == "recent_newcomers"
            else "ladder default"
        )
        level.choices = [
            ("", f"Skip – {skip} ({format_rating(start.rating)})"),
            *level_choices_for(ladder.scoring_format),
        ]
        # Skipping is not the level of the same number (issue 37: 4.50 read as "Strong club
        # player"): the start is a placeholder the first matches move quickly.
        level.help_text = (
            f"The level sets your starting rating. Skip it and you start at "
            f"{format_rating(start.rating)}, {skip}: not a level, only where your first "
            "matches start from, with a wide ± so that they place you quickly."
        )
        certainty.choices = [
            *CERTAINTY_CHOICES,
            ("", f"Skip – ladder default (± {format_rd(start.rd)})"),
        ]
        certainty.initial = ""


class LadderChoiceField(forms.ModelMultipleChoiceField):
    """Memberships, each labelled with its ladder's name."""

    def label_from_instance(self, obj: Membership) -> str:
        return obj.ladder.name


class ProfileForm(forms.ModelForm):
    """Your display name and which of your ladders you appear on publicly."""

    public_memberships = LadderChoiceField(
        queryset=Membership.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        label="Show me publicly on",
        help_text="Unticked: you stay a member and can play, but only you and moderators "
        "see you on that ladder.",
    )

    class Meta:
        model = User
        fields = ("display_name",)
        help_texts = {
            "display_name": "Shown on ladders and match pages instead of your username. "
            "Leave blank to use your username."
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Only this user's memberships are choices: anyone else's id is an invalid choice.
        self.memberships = list(
            Membership.objects.filter(user=self.instance)
            .select_related("ladder")
            .order_by("ladder__name")
        )
        if not self.memberships:
            del self.fields["public_memberships"]
            return
        field = cast(LadderChoiceField, self.fields["public_memberships"])
        field.queryset = Membership.objects.filter(
            pk__in=[m.pk for m in self.memberships]
        ).order_by("ladder__name")
        field.initial = [m.pk for m in self.memberships if m.is_public]

    def save(self, commit: bool = True) -> User:
        """Store the name (the ladders relist the member: ``account_saved``) and which
        ladders show them (``save_membership``, which relists their rating row there)."""
        user = super().save(commit=commit)
        if not commit:
            return user
        account_saved(user, self.changed_data)
        if "public_memberships" in self.fields:
            chosen = {m.pk for m in self.cleaned_data["public_memberships"]}
            for membership in self.memberships:
                wanted = membership.pk in chosen
                if membership.is_public != wanted:
                    membership.is_public = wanted
                    save_membership(membership, update_fields=["is_public"])
        return user


class AwayForm(forms.Form):
    """ "Away until": the last day away, or empty to say you are back (RULES.md "Time away")."""

    until = DayField(
        required=False,
        label="Away until",
        widget=forms.DateInput(attrs={"type": "date"}),
        help_text="The last day you are away (injury, holiday). Your rating does not change.",
    )
