"""Moderators manage ladders and their members here (accounts/roles.py says who may).

A ladder's settings and its memberships are stored through the clubs services
(``save_settings``, ``save_membership``, ``remove_membership``), as on every other page:
they tell the ratings app at once (new settings replay the ladder, a member's change relists
their rating rows)."""

from __future__ import annotations

from typing import Any, cast

from django.contrib import admin
from django.contrib.humanize.templatetags.humanize import intcomma
from django.db.models import QuerySet
from django.forms import BaseInlineFormSet, ModelForm
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html

from ladder.clubs.models import Ladder, LadderQuerySet, Membership
from ladder.clubs.params import PARAM_FIELDS
from ladder.clubs.services import remove_membership, save_membership, save_settings

# Up to this many members a ladder's page lists them to edit in place; past it, it links to
# them in the Memberships list. A form of every member is slow to draw, and past ~150 rows
# its fields exceed DATA_UPLOAD_MAX_NUMBER_FIELDS, so saving the ladder's settings failed.
MEMBER_INLINE_LIMIT = 100


def rating_rows(*layout: str | tuple[str, ...]) -> tuple[str | tuple[str, ...], ...]:
    """The admin's rows of rating settings: ``layout`` (settings that read together share a
    row), then a row for each setting of the engine's list that it does not place, so a new
    setting is on the form without a word here."""
    placed = {name for row in layout for name in ((row,) if isinstance(row, str) else row)}
    return (*layout, *(name for name in PARAM_FIELDS if name not in placed))


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
                "fields": rating_rows(
                    "team_method",
                    "composite_rd",
                    "method_options",
                    ("initial_rating", "initial_rd", "initial_volatility"),
                    "newcomer_start",
                    ("tau", "scale_factor"),
                    ("outcome_model", "margin_boost", "margin_clamp"),
                    ("match_win_bonus", "margin_weight"),
                    ("repetition_alpha", "diversity_threshold"),
                    ("lookback_days", "rating_period_days", "season_start_periods"),
                    ("rating_center", "rating_min", "rating_max", "rd_max"),
                ),
                "description": "RATINGS.md §2 and §5. The defaults suit most clubs; new "
                "settings replay the ladder's rated matches. A new ladder of 3–5 a side starts "
                "with margin boost 0 (a team game's preset: a map's round margin says little "
                "beyond who won) unless another value is given. Margin boost applies to the "
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

    class Media:
        # The members' table scrolls in its own box, not the page (static/css/admin.css).
        css = {"all": ["css/admin.css"]}

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
        url = reverse("admin:clubs_membership_changelist") + f"?ladder__id__exact={ladder.pk}"
        if count > MEMBER_INLINE_LIMIT:
            return format_html('{} — <a href="{}">see and edit them</a>', intcomma(count), url)
        return format_html('{} (below, or <a href="{}">in the list</a>)', count, url)

    @admin.display(description="members", ordering="member_count")
    def member_count(self, ladder: Ladder) -> int:
        return ladder.member_count  # type: ignore[attr-defined]

    def save_model(
        self, request: HttpRequest, obj: Ladder, form: ModelForm[Ladder], change: bool
    ) -> None:
        save_settings(obj)

    def save_formset(
        self,
        request: HttpRequest,
        form: ModelForm[Ladder],
        formset: BaseInlineFormSet,
        change: bool,
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
            save_membership(membership)
        for membership in formset.deleted_objects:
            remove_membership(membership)
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

    def save_model(
        self, request: HttpRequest, obj: Membership, form: ModelForm[Membership], change: bool
    ) -> None:
        if not change or {"ladder", "self_level", "self_certainty"} & set(form.changed_data):
            obj.apply_self_assessment(obj.self_level, obj.self_certainty)
        save_membership(obj)

    def delete_model(self, request: HttpRequest, obj: Membership) -> None:
        remove_membership(obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Membership]) -> None:
        """The list's "delete selected": one by one, so each member's rows are relisted."""
        for membership in queryset:
            remove_membership(membership)
