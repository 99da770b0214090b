"""Seasons in the admin: moderators define a ladder's seasons here or on the ladder's
seasons page (ratings.views.manage_seasons); both go through ``Season.clean``."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from ratings.models import Season, SeasonStanding
from ratings.pipeline import bump_board


class StandingInline(admin.TabularInline):
    """An archived table, read only: it stands as it was on the season's last day."""

    model = SeasonStanding
    fields = ("rank", "user", "rating", "change", "matches", "wins", "losses")
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ("rank",)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Season)
class SeasonAdmin(admin.ModelAdmin):
    list_display = ("name", "ladder", "starts_on", "ends_on", "frozen_at")
    list_filter = ("ladder",)
    search_fields = ("name", "slug")
    prepopulated_fields = {"slug": ("name",)}
    readonly_fields = ("frozen_at",)
    inlines = [StandingInline]

    def save_model(self, request: HttpRequest, obj: Season, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        bump_board(obj.ladder_id)  # the ladder page shows the current season's table

    def delete_model(self, request: HttpRequest, obj: Season) -> None:
        ladder_id = obj.ladder_id
        super().delete_model(request, obj)
        bump_board(ladder_id)

    def delete_queryset(self, request: HttpRequest, queryset: Any) -> None:
        ladder_ids = set(queryset.values_list("ladder_id", flat=True))
        super().delete_queryset(request, queryset)
        bump_board(*ladder_ids)
