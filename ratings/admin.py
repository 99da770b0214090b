"""Seasons in the admin: moderators define a ladder's seasons here or on the ladder's
seasons page (ratings.views.seasons); both go through ``Season.clean``, and both store and
remove them through ratings.upkeep, which gives the ladder a new board version (and replays
it when a season's first day raises RDs)."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.forms import ModelForm
from django.http import HttpRequest

from ratings.models import Season, SeasonStanding
from ratings.upkeep import delete_season, store_season


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

    def save_model(
        self, request: HttpRequest, obj: Season, form: ModelForm[Season], change: bool
    ) -> None:
        store_season(obj)

    def delete_model(self, request: HttpRequest, obj: Season) -> None:
        delete_season(obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Season]) -> None:
        """The list's "delete selected": one by one, each through ``delete_season``."""
        for season in queryset:
            delete_season(season)
