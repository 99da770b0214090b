"""API representations of ladders and their players."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from accounts.models import User
from core.api_support import DayField, InputSerializer
from ladder.clubs.formatting import format_day, format_rd
from ladder.clubs.models import Ladder
from ratings.engine.settings import SETTINGS


class PageLinkMixin:
    """`page`: the object's web page, as an absolute address when there is a request."""

    context: dict[str, Any]

    def get_page(self, obj: Any) -> str:
        request = self.context.get("request")
        path = obj.get_absolute_url()
        return request.build_absolute_uri(path) if request else path


class LadderSerializer(PageLinkMixin, serializers.HyperlinkedModelSerializer):
    url = serializers.HyperlinkedIdentityField(view_name="api:ladder-detail", lookup_field="slug")
    page = serializers.SerializerMethodField(help_text="The ladder's page on the site.")
    member_count = serializers.IntegerField(read_only=True)
    is_member = serializers.BooleanField(read_only=True, help_text="Whether you are a member.")
    params = serializers.SerializerMethodField(
        help_text="Every rating parameter (RATINGS.md §2, §5) as the engine uses it; "
        "wrong_way_floor is always true on a ladder. season_start_periods: the rating periods "
        "each season's first day adds to a returning player's RD (RATINGS.md §3 step 1); the "
        "seasons themselves are at /api/v1/ladders/{slug}/seasons/."
    )
    ranked_rd_display = serializers.SerializerMethodField(
        help_text='ranked_rd as the pages show it: 120 → "0.12".'
    )

    class Meta:
        model = Ladder
        fields = [
            "url",
            "page",
            "slug",
            "name",
            "description",
            "is_public",
            "team_size",
            "scoring_format",
            "best_of",
            "points_per_game",
            "team_method",
            "outcome_model",
            "margin_boost",
            "params",
            "ranked_min_matches",
            "ranked_rd",
            "ranked_rd_display",
            "max_report_age_days",
            "confirm_within_hours",
            "max_pending_reports",
            "reports_per_hour",
            "member_count",
            "is_member",
        ]
        read_only_fields = fields

    def get_ranked_rd_display(self, ladder: Ladder) -> str:
        return format_rd(ladder.ranked_rd)

    def get_params(self, ladder: Ladder) -> dict[str, Any]:
        params = ladder.params()
        # Every setting of the engine's list but those the site works out (the seasons' first
        # days: the ladder's seasons give them).
        values = {s.name: getattr(params, s.name) for s in SETTINGS if s.store != "derived"}
        values["stat_weights"] = dict(values["stat_weights"])
        return values


class PlayerSerializer(serializers.ModelSerializer):
    name = serializers.CharField(read_only=True, help_text="Display name, else the username.")

    class Meta:
        model = User
        fields = ["username", "name"]
        read_only_fields = fields


class AwaySerializer(InputSerializer):
    """``PUT /api/v1/ladders/{slug}/away/``: the caller's own time away (RULES.md "Time away")."""

    until = DayField(
        allow_null=True,
        help_text="The last day away (YYYY-MM-DD; today or later, at most a year ahead), "
        "or null: back.",
    )


class AwayStateSerializer(serializers.Serializer):
    ladder = serializers.CharField(source="ladder.slug")
    until = serializers.DateField(
        source="away_until", allow_null=True, help_text="The last day away; null: not away."
    )
    until_display = serializers.SerializerMethodField(help_text='As shown: "20 Dec 2026".')

    def get_until_display(self, membership: Any) -> str | None:
        return format_day(membership.away_until) if membership.away_until else None
