"""API representations of matches, their transitions and the inbox, and the fields that
read games and usernames."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.http import HttpRequest
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.utils.model_meta import FieldInfo

from accounts.models import User
from core.api_support import DayField, InputSerializer, InstantField, ReasonField, TextField
from ladder.clubs import access
from ladder.clubs.access import viewer_for
from ladder.clubs.models import Ladder
from ladder.clubs.serializers import PageLinkMixin
from ladder.matches.models import MATCH_STATES, AuditEntry, Dispute, Match
from ladder.matches.permissions import allowed_actions
from ladder.matches.validation import MAX_REASON_LENGTH, no_member_called
from ladder.matches.visibility import ShownMatch
from ratings.engine.types import MAX_TEAM_SIZE

# What a report may say it was scheduled as (ladder.matches.hooks.PlayHooks.link_reported).
SCHEDULED_LINKS = ("challenge", "open_game")
MAX_GAMES = 25  # more than any format plays; a bound on what a request can make us check


def _short(value: object, limit: int = 40) -> str:
    """An input as an error message quotes it: never more than `limit` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


@extend_schema_field(
    {
        "type": "array",
        "maxItems": MAX_GAMES,
        "items": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2},
        "example": [[21, 15], [19, 21], [21, 18]],
    }
)
class GamesField(serializers.Field):
    """Games as ``[[21, 15], [19, 21]]`` from side A's view; whole numbers, two per game
    (JSON numbers, as the schema says: ``"21"`` is refused, in a report and a PATCH alike)."""

    default_error_messages = {
        "not_a_list": "Enter the games as a list of scores, like [[21, 15], [21, 18]].",
        "not_a_pair": "Game {number}: {value} is not a score like [21, 15].",
        "not_a_number": "Game {number}: points are whole numbers, like [21, 15].",
        "too_many": "A match has at most {limit} games.",
    }

    def to_internal_value(self, data: object) -> list[tuple[int, int]]:
        if not isinstance(data, list):
            self.fail("not_a_list")
        if len(data) > MAX_GAMES:
            self.fail("too_many", limit=MAX_GAMES)
        games = []
        for number, game in enumerate(data, start=1):
            if not isinstance(game, list | tuple) or len(game) != 2:
                self.fail("not_a_pair", number=number, value=_short(game))
            points = []
            for value in game:
                if isinstance(value, bool):
                    self.fail("not_a_number", number=number)
                if isinstance(value, float) and value.is_integer():
                    value = int(value)
                if not isinstance(value, int):
                    self.fail("not_a_number", number=number)
                points.append(value)
            games.append((points[0], points[1]))
        return games

    def to_representation(self, value: Iterable[tuple[int, int]]) -> list[list[int]]:
        return [[a, b] for a, b in value]


@extend_schema_field(
    {
        "type": "array",
        "minItems": 1,
        "maxItems": MAX_GAMES,
        "items": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2},
        "example": [[21, 15], [19, 21], [21, 18]],
    }
)
class ScoreField(GamesField):
    """A match's score: one game at least (a dispute's proposed score may be left empty)."""

    default_error_messages = {
        **GamesField.default_error_messages,
        "empty": "A match needs at least one game.",
    }

    def to_internal_value(self, data: object) -> list[tuple[int, int]]:
        if data == []:
            self.fail("empty")
        return super().to_internal_value(data)


@extend_schema_field(
    {
        "type": "object",
        "maxProperties": 2 * MAX_TEAM_SIZE,
        # Keys are usernames and stat names, without NUL (RefuseBadInput): OpenAPI 3.0 has no
        # propertyNames to say so.
        "additionalProperties": {"type": "object", "additionalProperties": {"type": "number"}},
    }
)
class StatsField(serializers.DictField):
    """Numbers by name for each player: ``{"username": {"kills": 21}}``."""


class UsernamesField(serializers.ListField):
    """Players by username (at most a team's worth); the serializer resolves them against
    the ladder's members, so no answer tells whether an account of that name exists."""

    child = TextField(max_length=150)

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("max_length", MAX_TEAM_SIZE)
        super().__init__(**kwargs)


def resolve_members(ladder: Ladder, names: list[str]) -> tuple[dict[str, User], list[str]]:
    """The members of `ladder` among `names` by username, and the names that are none:
    unknown and non-member names alike (ladder.matches.no_member_called)."""
    found = {
        u.username: u
        for u in User.objects.filter(username__in=names, memberships__ladder=ladder).distinct()
    }
    return found, [n for n in dict.fromkeys(names) if n not in found]


class UsernameField(serializers.CharField):
    """A player's username; null for a member hidden from you (the access policy,
    ladder.clubs.access: their name then reads "Hidden player")."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("read_only", True)
        kwargs.setdefault("allow_null", True)
        super().__init__(**kwargs)

    def to_representation(self, value: object) -> str | None:  # type: ignore[override]
        return str(value) if value else None


class MatchPlayerSerializer(serializers.Serializer):
    # A visibility.ShownPlayer: the player as the caller may see them.
    username = UsernameField()
    name = serializers.CharField(read_only=True)
    stats = serializers.JSONField(read_only=True, allow_null=True)


class DisputeSerializer(serializers.ModelSerializer):
    raised_by = UsernameField(source="raised_by.username")
    resolved_by = serializers.CharField(
        source="resolved_by.username", read_only=True, allow_null=True, default=None
    )
    proposed_games = serializers.JSONField(read_only=True, allow_null=True)
    is_open = serializers.BooleanField(read_only=True)

    class Meta:
        model = Dispute
        fields = [
            "id",
            "raised_by",
            "reason",
            "proposed_games",
            "created_at",
            "is_open",
            "resolution",
            "resolved_by",
            "resolution_reason",
            "resolved_at",
        ]
        read_only_fields = fields


class AuditEntrySerializer(serializers.ModelSerializer):
    actor = UsernameField(
        source="actor.username",
        default=None,
        help_text="Username; null for the system (expiry) or a member hidden from you.",
    )
    actor_name = serializers.CharField(read_only=True)
    from_state = serializers.ChoiceField(
        choices=MATCH_STATES,
        allow_blank=True,
        read_only=True,
        help_text='The state before; "" for the report itself (there was none).',
    )
    before = serializers.JSONField(read_only=True, allow_null=True)
    after = serializers.JSONField(read_only=True, allow_null=True)

    class Meta:
        model = AuditEntry
        fields = [
            "at",
            "actor",
            "actor_name",
            "action",
            "from_state",
            "to_state",
            "before",
            "after",
            "reason",
        ]
        read_only_fields = fields


class MatchSerializer(PageLinkMixin, serializers.ModelSerializer):
    """A match as lists show it; ``allowed_actions`` are those of the requesting user."""

    # It serialises a visibility.ShownMatch, the match as the caller may see it: the names
    # from it, everything else from its match (the model's fields too: build_field).
    url = serializers.HyperlinkedIdentityField(view_name="api:match-detail")
    page = serializers.SerializerMethodField(help_text="The match's page on the site.")
    ladder = serializers.CharField(
        source="match.ladder.slug",
        read_only=True,
        help_text="The ladder's slug, as in its address: /ladders/<slug>/.",
    )
    reporter = UsernameField(source="reporter.username")
    side_a = MatchPlayerSerializer(many=True, read_only=True)
    side_b = MatchPlayerSerializer(many=True, read_only=True)
    games = GamesField(source="match.game_scores", read_only=True)
    score = serializers.CharField(source="match.score_text", read_only=True)
    winner = serializers.ChoiceField(
        source="match.winner_side", choices=["a", "b"], read_only=True, allow_null=True
    )
    expires_at = serializers.DateTimeField(
        source="match.expires_at",
        read_only=True,
        help_text="When a pending report stops being confirmable.",
    )
    allowed_actions = serializers.SerializerMethodField(
        help_text="What you may do now: confirm, dispute, cancel, edit, resolve, correct, void."
    )

    class Meta:
        model = Match
        fields = [
            "id",
            "url",
            "page",
            "ladder",
            "played_on",
            "state",
            "reporter",
            "side_a",
            "side_b",
            "games",
            "score",
            "winner",
            "created_at",
            "updated_at",
            "decided_at",
            "expires_at",
            "needs_rating",
            "rated_at",
            "allowed_actions",
        ]
        read_only_fields = fields

    @extend_schema_field(
        serializers.ListField(
            child=serializers.ChoiceField(
                choices=["confirm", "dispute", "cancel", "edit", "resolve", "correct", "void"]
            )
        )
    )
    def get_allowed_actions(self, shown: ShownMatch) -> list[str]:
        request = self.context.get("request")
        user = getattr(request, "user", None)
        return sorted(allowed_actions(shown.match, user))

    def build_field(
        self, field_name: str, info: FieldInfo, model_class: type[Match], nested_depth: int
    ) -> tuple[type[serializers.Field], dict[str, Any]]:
        """The model's fields, as ``ModelSerializer`` makes them, read from the shown match's
        ``match``."""
        field_class, kwargs = super().build_field(field_name, info, model_class, nested_depth)
        return field_class, {**kwargs, "source": f"match.{field_name}"}


class MatchDetailSerializer(MatchSerializer):
    """A match with its disputes and audit trail, for its players and moderators (the access
    policy: ``access.knows_players``); null for everyone else, who see its result."""

    disputes = DisputeSerializer(
        many=True,
        read_only=True,
        allow_null=True,
        help_text="Null unless you played the match or moderate: the reasons are theirs.",
    )
    audit = AuditEntrySerializer(
        many=True,
        read_only=True,
        allow_null=True,
        help_text="Null unless you played the match or moderate.",
    )

    class Meta(MatchSerializer.Meta):
        fields = [*MatchSerializer.Meta.fields, "disputes", "audit"]
        read_only_fields = fields


class ReportSerializer(InputSerializer):
    """Report a match you played (POST /api/v1/matches/)."""

    ladder = serializers.SlugField(max_length=80, help_text="The ladder's slug.")
    played_on = DayField(help_text="The day it was played (YYYY-MM-DD).")
    side_a = UsernamesField(
        allow_empty=True, help_text="Usernames of side A (you may be on either side)."
    )
    side_b = UsernamesField(allow_empty=True, help_text="Usernames of side B.")
    games = ScoreField(help_text="Game scores from side A's view.")
    stats = StatsField(
        child=serializers.DictField(),
        required=False,
        help_text='Performance-weighted ladders only: {"username": {"kills": 21, "deaths": 14}}.',
    )
    challenge = serializers.IntegerField(
        required=False, min_value=1, help_text="The challenge this match was played for."
    )
    open_game = serializers.IntegerField(
        required=False, min_value=1, help_text="The open game this match was played as."
    )

    def validate_ladder(self, slug: str) -> Ladder:
        return visible_ladder(self.context["request"], slug)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        me = self.context["request"].user
        names = [*attrs["side_a"], *attrs["side_b"]]
        # You yourself: the domain says whether you may report here (403).
        members, strangers = resolve_members(
            attrs["ladder"], [n for n in names if n != me.username]
        )
        members[me.username] = me
        if strangers:
            raise serializers.ValidationError(
                {"players": [no_member_called(attrs["ladder"], n) for n in strangers]}
            )
        attrs["side_a"] = [members[n] for n in attrs["side_a"]]
        attrs["side_b"] = [members[n] for n in attrs["side_b"]]
        attrs["links"] = {k: attrs.pop(k) for k in SCHEDULED_LINKS if k in attrs}
        return attrs


def visible_ladder(request: HttpRequest | Request, slug: str) -> Ladder:
    """The ladder ``slug`` if the caller may see it (the access policy); a field error if not."""
    ladder = access.ladders(viewer_for(request)).filter(slug=slug).first()
    if ladder is None:
        raise serializers.ValidationError(f"No ladder called {slug!r}.")
    return ladder


class DisputeInputSerializer(InputSerializer):
    reason = ReasonField(
        trim_whitespace=False,
        help_text="What is wrong (required).",
        max_length=MAX_REASON_LENGTH,
    )
    proposed_games = GamesField(
        required=False, allow_null=True, help_text="The score you say is right (optional)."
    )


class ResolveInputSerializer(InputSerializer):
    decision = serializers.ChoiceField(
        choices=["uphold", "correct", "void"],
        help_text="uphold: the report stands; correct: new games (and date); void.",
    )
    reason = ReasonField(help_text="Required; the players see it.", max_length=MAX_REASON_LENGTH)
    games = ScoreField(required=False, allow_null=True, help_text="For correct: the score.")
    played_on = DayField(
        required=False, allow_null=True, help_text="For correct: the date, if it was wrong."
    )


class CorrectInputSerializer(InputSerializer):
    games = ScoreField(help_text="The correct score.")
    reason = ReasonField(help_text="Required; the players see it.", max_length=MAX_REASON_LENGTH)
    played_on = DayField(required=False, allow_null=True, help_text="The date, if it was wrong.")


class EditInputSerializer(InputSerializer):
    games = ScoreField(
        required=False, help_text="The score, as it should read now (default: as it reads)."
    )
    played_on = DayField(required=False, allow_null=True, help_text="The date, if it was wrong.")


class ConfirmInputSerializer(InputSerializer):
    seen = InstantField(
        required=False,
        allow_null=True,
        help_text="The match's updated_at as you read it: if its reporter changed it since, "
        "the confirm is refused (409) so you can read the new version first.",
    )


class VoidInputSerializer(InputSerializer):
    reason = ReasonField(help_text="Required; the players see it.", max_length=MAX_REASON_LENGTH)


class InboxSerializer(serializers.Serializer):
    # Its matches are visibility.ShownMatch (MatchSerializer).
    count = serializers.IntegerField(help_text="Matches waiting for your confirmation.")
    to_confirm = MatchSerializer(many=True, help_text="Reported against you; confirm or dispute.")
    my_pending = MatchSerializer(many=True, help_text="Your reports still pending or disputed.")
    disputes = MatchSerializer(many=True, help_text="Moderators: open disputes, oldest first.")
