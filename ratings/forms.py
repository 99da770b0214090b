"""The leaderboard's search and filter (a GET form: it works without JavaScript too)."""

from __future__ import annotations

from django import forms

from ratings.leaderboards import ALL, STATUS_FILTERS


class LeaderboardFilterForm(forms.Form):
    q = forms.CharField(required=False, max_length=100, label="Search players")
    status = forms.ChoiceField(required=False, choices=STATUS_FILTERS, label="Show")

    def values(self) -> tuple[str, str]:
        """(search text, status); anything invalid reads as "no filter"."""
        if not self.is_bound or not self.is_valid():
            return "", ALL
        return self.cleaned_data["q"].strip(), self.cleaned_data["status"] or ALL
