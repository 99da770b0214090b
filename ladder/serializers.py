"""API representations of ladders."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from rest_framework import serializers

from ladder.models import Ladder


class LadderSerializer(serializers.HyperlinkedModelSerializer):
    url = serializers.HyperlinkedIdentityField(view_name="api:ladder-detail", lookup_field="slug")
    page = serializers.SerializerMethodField(help_text="The ladder's page on the site.")
    member_count = serializers.IntegerField(read_only=True)
    is_member = serializers.BooleanField(read_only=True, help_text="Whether you are a member.")
    params = serializers.SerializerMethodField(
        help_text="Every rating parameter (RATINGS.md §2, §5) as the engine uses it."
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
            "params",
            "max_report_age_days",
            "confirm_within_hours",
            "max_pending_reports",
            "reports_per_hour",
            "member_count",
            "is_member",
        ]
        read_only_fields = fields

    def get_page(self, ladder: Ladder) -> str:
        request = self.context.get("request")
        path = ladder.get_absolute_url()
        return request.build_absolute_uri(path) if request else path

    def get_params(self, ladder: Ladder) -> dict[str, Any]:
        params = ladder.params()
        values = {f.name: getattr(params, f.name) for f in fields(params)}
        values["stat_weights"] = dict(values["stat_weights"])
        return values
