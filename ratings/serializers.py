"""API representations of leaderboards and rating histories."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from rest_framework import serializers

from core.api_support import InputSerializer, QueryChoiceField
from ladder.clubs import access
from ladder.clubs.access import viewer_for
from ladder.clubs.formatting import format_change, format_rd
from ladder.clubs.models import Ladder
from ladder.matches.serializers import UsernamesField, visible_ladder
from ratings import leaderboards
from ratings.engine.scales import display
from ratings.histories import Entry
from ratings.leaderboards import ALL, STATUS_FILTERS, BoardRow
from ratings.models import STATUSES, Season
from ratings.seasons import TableRow


def _absolute(context: dict[str, Any], path: str) -> str:
    request = context.get("request")
    return request.build_absolute_uri(path) if request else path


class LeaderboardQuerySerializer(serializers.Serializer):
    """The leaderboard's query parameters (the same search and filter as the page)."""

    q = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=leaderboards.MAX_QUERY_LENGTH,
        help_text="Part of a name or username.",
    )
    status = QueryChoiceField(
        choices=[value for value, _ in STATUS_FILTERS], required=False, default=ALL
    )


class LeaderboardRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField(
        allow_null=True, help_text="Place among the ranked players; null when not ranked."
    )
    username = serializers.CharField(source="user.username")
    name = serializers.CharField(source="user.name")
    status = serializers.ChoiceField(
        choices=STATUSES,
        help_text="RATINGS.md §8, with the ladder's ranked_min_matches and ranked_rd: ranked; "
        "provisional (fewer rated matches, or rd_today above ranked_rd); inactive (no match "
        "within the ladder's lookback_days).",
    )
    rating = serializers.FloatField(help_text="In rating points, e.g. 4523.7.")
    rating_display = serializers.SerializerMethodField(help_text='As shown: "4.52".')
    rd = serializers.FloatField(help_text="Rating deviation in points, after the last match.")
    rd_today = serializers.FloatField(
        help_text="The RD grown for inactivity up to today, in points: what ranked status "
        "compares with ranked_rd."
    )
    rd_display = serializers.SerializerMethodField(
        help_text='rd_today as shown beside the rating: 189 → "0.19".'
    )
    trend = serializers.FloatField(
        allow_null=True,
        help_text="Rating change over the last 30 days in points; null without a match then.",
    )
    trend_display = serializers.SerializerMethodField(
        help_text='The trend as shown, signed, in rating units: "+0.15", "\u22120.15" (a real '
        "minus sign, as on the pages); null without a match."
    )
    wins = serializers.IntegerField()
    losses = serializers.IntegerField()
    matches = serializers.IntegerField()
    last_played = serializers.DateField(allow_null=True)
    away_until = serializers.DateField(
        allow_null=True,
        help_text="The last day of the player's time away, if they are away today; else null. "
        'RULES.md "Time away": the board reads "Away until …" instead of "inactive".',
    )
    player = serializers.SerializerMethodField(help_text="The player's page on the site.")

    def get_rating_display(self, row: BoardRow) -> str:
        return display(row.rating)

    def get_rd_display(self, row: BoardRow) -> str:
        return format_rd(row.rd_today)

    def get_trend_display(self, row: BoardRow) -> str | None:
        return None if row.trend is None else format_change(row.trend, row.rating)

    def get_player(self, row: BoardRow) -> str:
        path = reverse("ratings:player", args=[row.user.username])
        return _absolute(self.context, f"{path}?ladder={row.ladder.slug}")


class PersonSerializer(serializers.Serializer):
    name = serializers.CharField()
    username = serializers.CharField(
        allow_null=True,
        help_text='Null for a member hidden from you (their name then reads "Hidden player").',
    )


class RatingChangeSerializer(serializers.Serializer):
    """One rated match of the player: the stored change and its explanation in words."""

    match = serializers.IntegerField(source="change.match_id")
    ladder = serializers.CharField(source="change.ladder.slug")
    played_on = serializers.DateField(source="change.played_on")
    side = serializers.CharField(source="change.side")
    partners = PersonSerializer(many=True)
    opponents = PersonSerializer(many=True)
    score = serializers.CharField(help_text="The games from the player's side: 21-12 21-15.")
    won = serializers.BooleanField(help_text="The player's side won the match.")
    rating_before = serializers.FloatField(source="change.rating_before")
    rating_after = serializers.FloatField(source="change.rating_after")
    rating_after_display = serializers.SerializerMethodField(help_text='As shown: "4.58".')
    rd_before = serializers.FloatField(
        source="change.rd_before", help_text="After growth for inactivity."
    )
    rd_after = serializers.FloatField(source="change.rd_after")
    rd_after_display = serializers.SerializerMethodField(help_text='As shown: "0.19".')
    volatility_before = serializers.FloatField(source="change.volatility_before")
    volatility_after = serializers.FloatField(source="change.volatility_after")
    expected = serializers.FloatField(source="change.expected")
    outcome = serializers.FloatField(
        source="change.outcome",
        help_text="The result as counted: 1 or 0 when the margin is information "
        "(outcome_model margin_information), the margin-aware score under score.",
    )
    margin_multiplier = serializers.FloatField(
        source="change.margin_multiplier",
        help_text="How much the margin made the match count (RATINGS.md §3 step 2); 1 for "
        "the narrowest win and under the score model.",
    )
    floor_applied = serializers.BooleanField(
        source="change.floor_applied",
        help_text="The wrong-way floor kept the rating where it was (a win never lowers it, "
        "a loss never raises it).",
    )
    repetition_weight = serializers.FloatField(source="change.repetition_weight")
    diversity_ratio = serializers.FloatField(source="change.diversity_ratio")
    gate_open = serializers.BooleanField(source="change.gate_open")
    performance_weight = serializers.FloatField(source="change.performance_weight")
    change = serializers.FloatField(source="change.change", help_text="In rating points.")
    change_display = serializers.SerializerMethodField(help_text='As shown: "+0.08".')
    explanation = serializers.CharField(
        help_text='In words: "31% chance to win, won 21-12 21-15: +0.08; …".'
    )

    def get_rating_after_display(self, entry: Entry) -> str:
        return display(entry.change.rating_after)

    def get_rd_after_display(self, entry: Entry) -> str:
        return format_rd(entry.change.rd_after)

    def get_change_display(self, entry: Entry) -> str:
        return format_change(entry.change.change, entry.change.rating_after)


class PredictInputSerializer(InputSerializer):
    """A lineup to predict; a name that is no member of the ladder listed to the caller
    (whether or not such an account exists, hidden or deactivated: the access policy) makes
    no prediction, like an incomplete side."""

    ladder = serializers.SlugField(max_length=80)
    side_a = UsernamesField(allow_empty=True)
    side_b = UsernamesField(allow_empty=True)
    on = serializers.DateField(
        required=False, allow_null=True, help_text="The day of the match (default: today)."
    )

    def validate_ladder(self, slug: str) -> Ladder:
        return visible_ladder(self.context["request"], slug)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        names = [*attrs["side_a"], *attrs["side_b"]]
        members = access.named(viewer_for(self.context["request"]), attrs["ladder"], names)
        attrs["complete"] = all(name in members for name in names)
        attrs["side_a"] = [members[n] for n in attrs["side_a"] if n in members]
        attrs["side_b"] = [members[n] for n in attrs["side_b"] if n in members]
        return attrs


class StakeSerializer(serializers.Serializer):
    """One player's points at stake: raw rating points and the display form (RATINGS.md §8)."""

    username = serializers.CharField(source="user.username")
    side = serializers.CharField(help_text='"a" or "b".')
    rating = serializers.FloatField(help_text="Today's rating, in points.")
    rating_display = serializers.CharField(help_text='As shown: "4.52".')
    narrow_win = serializers.FloatField(help_text="Change in points if their side wins narrowly.")
    clear_win = serializers.FloatField(help_text="... wins clearly.")
    narrow_loss = serializers.FloatField(help_text="... loses narrowly.")
    clear_loss = serializers.FloatField(help_text="... loses clearly.")
    display = serializers.DictField(
        source="shown",
        child=serializers.CharField(),
        help_text='The four changes as shown, by name: {"narrow_win": "+0.03", ...}.',
    )


class StakesSerializer(serializers.Serializer):
    """RATINGS.md §6 points at stake: what a narrow and a clear win either way would do."""

    on = serializers.DateField()
    narrow_score = serializers.CharField(
        help_text='The narrow win, the winner\'s points first: "22-20 22-20".'
    )
    clear_score = serializers.CharField(help_text='The clear win: "21-10 21-10".')
    players = StakeSerializer(many=True, help_text="Side A's players, then side B's.")


class PredictionSerializer(serializers.Serializer):
    probability = serializers.FloatField(
        allow_null=True,
        help_text="RATINGS.md §6: the chance side A wins; null when there is no honest "
        "prediction (a side incomplete, a player twice or not a member).",
    )
    quality = serializers.FloatField(
        allow_null=True,
        help_text="RATINGS.md §6: match quality Q in (0, 1], 1 is an ideal match; null as above.",
    )
    stakes = StakesSerializer(
        allow_null=True,
        help_text="RATINGS.md §6 points at stake, when both sides are complete; null otherwise.",
    )


class SeasonSerializer(serializers.Serializer):
    """A ladder's season (RULES.md "Seasons")."""

    slug = serializers.SlugField()
    name = serializers.CharField()
    starts_on = serializers.DateField(help_text="The first day.")
    ends_on = serializers.DateField(help_text="The last day (included).")
    days_display = serializers.CharField(source="days_label", help_text='"1 Sep – 30 Nov 2026".')
    state = serializers.SerializerMethodField(
        help_text='"upcoming", "current", or "over" (its table archived as it was on the last day).'
    )
    page = serializers.SerializerMethodField(help_text="The season's table on the site.")

    def get_state(self, season: Season) -> str:
        on = self.context["on"]
        return "upcoming" if season.starts_on > on else "over" if season.is_over(on) else "current"

    def get_page(self, season: Season) -> str:
        return _absolute(self.context, season.get_absolute_url())


class StandingSerializer(serializers.Serializer):
    """One line of a season's table as the caller sees it (hidden members left out)."""

    rank = serializers.IntegerField(
        allow_null=True,
        help_text="Place by rating at the season's end (or now); in the current season "
        "among the players the leaderboard ranks, null for the others (status).",
    )
    status = serializers.CharField(
        help_text="ranked, provisional or inactive, as on the leaderboard."
    )
    username = serializers.CharField(source="user.username")
    name = serializers.CharField(source="user.name")
    rating = serializers.FloatField(
        help_text="In points: after the player's last match of the season (for the current "
        "season: now)."
    )
    rating_display = serializers.SerializerMethodField(help_text='As shown: "4.52".')
    change = serializers.FloatField(help_text="Over the season, in points.")
    change_display = serializers.SerializerMethodField(help_text='"+0.15", "\u22120.15".')
    matches = serializers.IntegerField(help_text="Rated matches played in the season.")
    wins = serializers.IntegerField()
    losses = serializers.IntegerField()

    def get_rating_display(self, row: TableRow) -> str:
        return display(row.rating)

    def get_change_display(self, row: TableRow) -> str:
        return format_change(row.change, row.rating)
