"""Seasons in the admin: moderators define a ladder's seasons here or on the ladder's
seasons page (ratings.views.seasons); both go through ``Season.clean``, and a saved or
deleted season gives its ladder a new board version (ratings.signals)."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from ratings.models import Season, SeasonStanding


class StandingInline(admin.TabularInline):
    """An archived table, read only: it stands as it was on the season's last day."""

    model = SeasonStanding
    fields = ("rank", "user", "rating", "change", "matches", "wins", "losses")
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ("rank",)

    def has_add_permission(self, request: HttpRequest, obj: Season | None = None) -> bool:
        return False


@admin.register(Season)
class SeasonAdmin(admin.ModelAdmin):
    list_display = ("name", "ladder", "starts_on", "ends_on", "frozen_at")
    list_filter = ("ladder",)
    search_fields = ("name", "slug")
    prepopulated_fields = {"slug": ("name",)}
    readonly_fields = ("frozen_at",)
    inlines = [StandingInline]
