"""Moderators manage ladders and their members here (see ladder/moderators.py for who may)."""

from __future__ import annotations

from typing import Any, cast

from django.contrib import admin
from django.contrib.humanize.templatetags.humanize import intcomma
from django.db.models import QuerySet
from django.forms import BaseInlineFormSet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html

from ladder.models import (
    AuditEntry,
    Dispute,
    Game,
    Ladder,
    LadderQuerySet,
    Match,
    MatchPlayer,
    Membership,
)

admin.site.site_header = "Club ladder admin"
admin.site.site_title = "Club ladder admin"
admin.site.index_title = "Ladders, members and accounts"


# Up to this many members a ladder's page lists them to edit in place; past it, it links to
# them in the Memberships list. A form of every member is slow to draw, and past ~150 rows
# its fields exceed DATA_UPLOAD_MAX_NUMBER_FIELDS, so saving the ladder's settings failed.
MEMBER_INLINE_LIMIT = 100


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ["user"]
    fields = [
        "user",
        "is_public",
        "self_level",
        "self_certainty",
        "initial_rating",
        "initial_rd",
        "joined_at",
    ]
    # The starting rating follows from the self-assessment (RATINGS.md §4); set on save.
    readonly_fields = ["initial_rating", "initial_rd", "joined_at"]


@admin.register(Ladder)
class LadderAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "slug",
        "is_public",
        "team_size",
        "scoring_format",
        "team_method",
        "member_count",
    ]
    list_filter = ["is_public", "scoring_format", "team_method", "team_size"]
    search_fields = ["name", "slug", "description"]
    prepopulated_fields = {"slug": ["name"]}
    inlines = [MembershipInline]
    readonly_fields = ["members"]
    fieldsets = [
        ("Basics", {"fields": ["name", "slug", "description", "is_public", "members"]}),
        (
            "Scoring",
            {
                "fields": ["team_size", "scoring_format", "best_of", "points_per_game"],
                "description": "Badminton formats set best of and points per game themselves; "
                "the generic format needs both, and takes a match of any length up to its "
                "best of (tennis best-of-3 and best-of-5 in one ladder: best of 5, 6 points "
                "per game).",
            },
        ),
        (
            "Rating method and parameters",
            {
                "fields": [
                    "team_method",
                    "composite_rd",
                    "method_options",
                    ("initial_rating", "initial_rd", "initial_volatility"),
                    ("tau", "scale_factor"),
                    ("outcome_model", "margin_boost", "margin_clamp"),
                    ("match_win_bonus", "margin_weight"),
                    ("repetition_alpha", "diversity_threshold"),
                    ("lookback_days", "rating_period_days"),
                    ("rating_center", "rating_min", "rating_max", "rd_max"),
                ],
                "description": "RATINGS.md §2 and §5. The defaults suit most clubs; new "
                "settings replay the ladder's rated matches. Margin boost applies to the "
                "margin-as-information model, the match-win bonus and margin weight to the "
                "score model. A win never lowers a rating and a loss never raises one: that "
                "floor is always on. Method options may name the stats for members: "
                '{"stat_labels": {"adr": "Damage per round"}}.',
            },
        ),
        (
            "Ranking",
            {
                "fields": [("ranked_min_matches", "ranked_rd")],
                "description": "RATINGS.md §8: a player is ranked with at least this many rated "
                "matches, an RD (grown for inactivity up to today) of at most the ranked RD, "
                "and a match within the lookback days. RD is in points: 120 reads ± 0.12.",
            },
        ),
        (
            "Match policy",
            {
                "fields": [
                    "max_report_age_days",
                    "confirm_within_hours",
                    "max_pending_reports",
                    "reports_per_hour",
                ]
            },
        ),
    ]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Ladder]:
        return cast(LadderQuerySet, super().get_queryset(request)).with_member_count()

    def get_inlines(self, request: HttpRequest, obj: Ladder | None) -> list[Any]:
        if obj is not None and _member_count(obj) > MEMBER_INLINE_LIMIT:
            return []
        return list(self.inlines)

    @admin.display(description="members")
    def members(self, ladder: Ladder) -> str:
        if ladder.pk is None:
            return "Add members below, or after saving."
        count = _member_count(ladder)
        url = reverse("admin:ladder_membership_changelist") + f"?ladder__id__exact={ladder.pk}"
        if count > MEMBER_INLINE_LIMIT:
            return format_html('{} — <a href="{}">see and edit them</a>', intcomma(count), url)
        return format_html('{} (below, or <a href="{}">in the list</a>)', count, url)

    @admin.display(description="members", ordering="member_count")
    def member_count(self, ladder: Ladder) -> int:
        return ladder.member_count  # type: ignore[attr-defined]

    def save_formset(
        self, request: HttpRequest, form: Any, formset: BaseInlineFormSet, change: bool
    ) -> None:
        if formset.model is not Membership:
            super().save_formset(request, form, formset, change)
            return
        memberships = formset.save(commit=False)
        for membership in memberships:
            assessment = {"self_level", "self_certainty"}
            changed = membership.pk is None or assessment & set(
                next(f.changed_data for f in formset.forms if f.instance is membership)
            )
            if changed:
                membership.apply_self_assessment(membership.self_level, membership.self_certainty)
            membership.save()
        for membership in formset.deleted_objects:
            membership.delete()
        formset.save_m2m()


def _member_count(ladder: Ladder) -> int:
    """The count the admin's queryset annotates, or a count of its own."""
    count = getattr(ladder, "member_count", None)
    return ladder.memberships.count() if count is None else int(count)


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["user", "ladder", "is_public", "self_level", "self_certainty", "joined_at"]
    list_filter = ["ladder", "is_public", "self_certainty"]
    search_fields = ["user__username", "user__display_name", "user__email", "ladder__name"]
    list_select_related = ["user", "ladder"]
    autocomplete_fields = ["user", "ladder"]
    readonly_fields = ["initial_rating", "initial_rd"]

    def save_model(self, request: HttpRequest, obj: Membership, form: Any, change: bool) -> None:
        if not change or {"ladder", "self_level", "self_certainty"} & set(form.changed_data):
            obj.apply_self_assessment(obj.self_level, obj.self_certainty)
        super().save_model(request, obj, form, change)


# ---- matches: read-only ------------------------------------------------------------------
#
# Every change to a match goes through ladder/matches.py (on the site: the match page and
# the moderation queue), which checks the rules and writes the audit trail. The admin only
# shows matches, their players, games, disputes and audit trail; nobody may add, change
# or delete them here, superusers included.


class ReadOnlyMixin:
    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
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

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
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
