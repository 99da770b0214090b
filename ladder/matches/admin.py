"""Matches in the admin: read-only, with their players, games, disputes and audit trail
(every change to a match goes through ladder/matches/operations.py)."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from ladder.matches.models import AuditEntry, Dispute, Game, Match, MatchPlayer


class ReadOnlyMixin:
    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


class ReadOnlyInline(ReadOnlyMixin, admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = False


DISPUTE_FIELDS = (
    "raised_by",
    "created_at",
    "reason",
    "proposed_games",
    "resolution",
    "resolved_by",
    "resolution_reason",
    "resolved_at",
)


AUDIT_FIELDS = ("at", "actor", "action", "from_state", "to_state", "before", "after", "reason")


MATCH_FIELDS = (
    "ladder",
    "played_on",
    "reporter",
    "state",
    "created_at",
    "updated_at",
    "decided_at",
    "needs_rating",
    "rated_at",
)


class MatchPlayerInline(ReadOnlyInline):
    model = MatchPlayer
    fields = readonly_fields = ("user", "side", "position", "stats")


class GameInline(ReadOnlyInline):
    model = Game
    fields = readonly_fields = ("number", "a_points", "b_points")


class DisputeInline(ReadOnlyInline):
    model = Dispute
    fields = readonly_fields = DISPUTE_FIELDS


class AuditEntryInline(ReadOnlyInline):
    model = AuditEntry
    fields = readonly_fields = AUDIT_FIELDS
    ordering = ["at", "pk"]


@admin.register(Match)
class MatchAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = [
        "id",
        "played_on",
        "ladder",
        "players",
        "score",
        "state",
        "reporter",
        "created_at",
    ]
    list_display_links = ["id", "played_on"]
    list_filter = ["state", "ladder", "needs_rating"]
    search_fields = ["players__user__username", "players__user__display_name", "=id"]
    date_hierarchy = "played_on"
    list_select_related = ["ladder", "reporter"]
    fields = readonly_fields = MATCH_FIELDS
    inlines = [MatchPlayerInline, GameInline, DisputeInline, AuditEntryInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Match]:
        # No DISTINCT here: the changelist adds it to a search through players itself, and
        # on every page view it made counting 200,000 matches take 100+ ms a count.
        return super().get_queryset(request).prefetch_related("players__user", "games")

    @admin.display(description="players")
    def players(self, match: Match) -> str:
        a = " & ".join(u.name for u in match.side_a_players)
        b = " & ".join(u.name for u in match.side_b_players)
        return f"{a} v {b}"

    @admin.display(description="score")
    def score(self, match: Match) -> str:
        return match.score_text


@admin.register(AuditEntry)
class AuditEntryAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ["at", "match_number", "action", "actor", "from_state", "to_state", "reason"]
    list_filter = ["action", "to_state"]
    search_fields = ["=match__id", "actor__username", "reason"]
    list_select_related = ["actor"]
    fields = readonly_fields = ("match", *AUDIT_FIELDS)
    date_hierarchy = "at"

    def get_actions(
        self, request: HttpRequest
    ) -> dict[str, tuple[Callable[..., str], str, str] | None]:
        return {}  # not even "delete selected"

    @admin.display(description="match", ordering="match_id")
    def match_number(self, entry: AuditEntry) -> str:
        return f"#{entry.match_id}"


@admin.register(Dispute)
class DisputeAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ["pk", "match_number", "raised_by", "created_at", "resolution", "resolved_by"]
    list_filter = ["resolution"]
    list_select_related = ["raised_by", "resolved_by"]
    fields = readonly_fields = ("match", *DISPUTE_FIELDS)

    @admin.display(description="match", ordering="match_id")
    def match_number(self, dispute: Dispute) -> str:
        return f"#{dispute.match_id}"
