"""The leaderboard's search and filter (a GET form: it works without JavaScript too), and a
season as moderators define it."""

from __future__ import annotations

from django import forms

from core.inputs import DayField
from ratings.leaderboards import ALL, STATUS_FILTERS
from ratings.models import Season


class LeaderboardFilterForm(forms.Form):
    q = forms.CharField(required=False, max_length=100, label="Search players")
    status = forms.ChoiceField(required=False, choices=STATUS_FILTERS, label="Show")

    def values(self) -> tuple[str, str]:
        """(search text, status); anything invalid reads as "no filter"."""
        if not self.is_bound or not self.is_valid():
            return "", ALL
        return self.cleaned_data["q"].strip(), self.cleaned_data["status"] or ALL


class SeasonForm(forms.ModelForm):
    """A season's name, address and days; ``Season.clean`` checks them (RULES.md "Seasons")."""

    class Meta:
        model = Season
        fields = ["name", "slug", "starts_on", "ends_on"]
        # A date input takes ISO dates only: the site's own format (en-GB, 17/11/2026) left
        # an edited season's days blank in the browser.
        widgets = {
            "starts_on": forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
            "ends_on": forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
        }
        field_classes = {"starts_on": DayField, "ends_on": DayField}
        help_texts = {"slug": "Letters, digits and hyphens, e.g. spring-2027: the page's address."}
