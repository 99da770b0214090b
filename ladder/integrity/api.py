"""API: a ladder's integrity flags and bans, for moderators.

- ``GET  /api/v1/ladders/{slug}/integrity/``: the flags (403 for members and visitors,
  404 for a ladder the caller may not see);
- ``POST /api/v1/ladders/{slug}/integrity/{id}/`` ``{"state": "kept"|"dismissed", "note"}``;
- ``GET  /api/v1/ladders/{slug}/bans/``: the bans, active first;
- ``POST /api/v1/ladders/{slug}/bans/`` ``{"username", "reason", "void_since": date|null}``
  → 201;
- ``DELETE /api/v1/ladders/{slug}/bans/{username}/`` lifts it (an optional ``reason``).

Thin: the same domain functions as the pages (bans.py, flags.py); their errors become
400 / 403 / 404 / 409 in one place.
"""

from __future__ import annotations

from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers
from rest_framework.permissions import BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import RequestUser
from accounts.tokens import API_AUTHENTICATION
from core.api_schema import ERROR, FIELD_ERRORS, USERNAME_PARAMETER
from core.api_support import InputSerializer, ReasonField, TextField
from ladder.clubs import access
from ladder.clubs.models import Ladder
from ladder.integrity import bans, flags
from ladder.integrity.models import FLAG_KINDS, FLAG_STATES, Ban, Flag


def visible_ladder(user: RequestUser, slug: str) -> Ladder:
    """The ladder ``slug`` if ``user`` may see it (the access policy), else 404."""
    return access.ladder_or_404(access.Viewer.of(user), slug)


class ModerationAPIView(APIView):
    authentication_classes = API_AUTHENTICATION
    # A visitor is asked to sign in (401 with WWW-Authenticate), as everywhere in the API;
    # for a member the domain functions decide (403 with a reason).
    permission_classes: list[type[BasePermission]] = [IsAuthenticated]

    def ladder(self, request: Request, slug: str) -> Ladder:
        ladder = visible_ladder(request.user, slug)
        bans.require_moderator(request.user)
        return ladder


class FlagSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=[k for k, _ in FLAG_KINDS])
    players = serializers.ListField(child=serializers.CharField(), help_text="Usernames.")
    matches = serializers.ListField(child=serializers.IntegerField(), help_text="Match ids.")
    reason = serializers.CharField(help_text="The finding in plain words, with its numbers.")
    state = serializers.ChoiceField(choices=[s for s, _ in FLAG_STATES])
    evidence = serializers.DictField(help_text="The numbers behind the reason.")
    current = serializers.BooleanField(help_text="Whether the detectors still find it.")
    note = serializers.CharField(help_text="The moderator's note on their decision.")
    decided_by = serializers.CharField(allow_null=True)
    decided_at = serializers.DateTimeField(allow_null=True)


class FlagsSerializer(serializers.Serializer):
    flags = FlagSerializer(many=True)


def flag_data(flag: Flag) -> dict[str, object]:
    return {
        "id": flag.pk,
        "kind": flag.kind,
        "players": list(getattr(flag, "usernames", [])),
        "matches": list(flag.matches),
        "reason": flag.reason,
        "state": flag.state,
        "evidence": flag.evidence,
        "current": flag.current,
        "note": flag.note,
        "decided_by": flag.decided_by.username if flag.decided_by else None,
        "decided_at": flag.decided_at,
    }


@extend_schema_field({"type": "string", "enum": [flags.KEPT, flags.DISMISSED]})
class FlagStateField(TextField):
    """kept or dismissed: the domain (flags.decide_flag) refuses anything else, beside the
    note's error when there is one."""


class DecisionSerializer(InputSerializer):
    state = FlagStateField()
    note = ReasonField(max_length=flags.MAX_NOTE_LENGTH, help_text="Required: what you checked.")


class IntegrityView(ModerationAPIView):
    @extend_schema(
        summary="A ladder's integrity flags (moderators)",
        responses={200: FlagsSerializer, 401: ERROR, 403: ERROR, 404: ERROR},
    )
    def get(self, request: Request, slug: str) -> Response:
        ladder = self.ladder(request, slug)
        shown = flags.flags_for(ladder, request.user)
        return Response(FlagsSerializer({"flags": [flag_data(f) for f in shown]}).data)


class FlagDecisionView(ModerationAPIView):
    @extend_schema(
        summary="Keep or dismiss a flag, with a note (moderators)",
        request=DecisionSerializer,
        responses={200: FlagSerializer, 400: FIELD_ERRORS, 401: ERROR, 403: ERROR, 404: ERROR},
    )
    def post(self, request: Request, slug: str, flag_id: int) -> Response:
        ladder = self.ladder(request, slug)
        given = DecisionSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        data = given.validated_data
        flag = flags.decide_flag(ladder, flag_id, request.user, data["state"], data["note"])
        shown = next(f for f in flags.flags_for(ladder, request.user) if f.pk == flag.pk)
        return Response(FlagSerializer(flag_data(shown)).data)


class BanInputSerializer(InputSerializer):
    username = TextField(max_length=150)
    reason = ReasonField(max_length=bans.MAX_REASON_LENGTH)
    void_since = serializers.DateField(
        allow_null=True,
        required=False,
        default=None,
        help_text="Rated matches from this date stop counting; null: all of them.",
    )


class LiftInputSerializer(InputSerializer):
    reason = TextField(
        allow_blank=True, required=False, default="", max_length=bans.MAX_REASON_LENGTH
    )


class BanSerializer(serializers.Serializer):
    username = serializers.CharField()
    reason = serializers.CharField()
    void_since = serializers.DateField(allow_null=True)
    by = serializers.CharField()
    created_at = serializers.DateTimeField()
    lifted_at = serializers.DateTimeField(allow_null=True)
    lifted_by = serializers.CharField(allow_null=True)
    lift_reason = serializers.CharField()
    matches = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="The rated matches the ban withheld (still withheld while it is active).",
    )


class OutcomeSerializer(BanSerializer):
    changed = serializers.DictField(
        child=serializers.CharField(),
        help_text='Each member whose rating the replay changed: username → "+0.04".',
    )
    cancelled = serializers.ListField(child=serializers.IntegerField())


class BansSerializer(serializers.Serializer):
    bans = BanSerializer(many=True)


def ban_data(ban: Ban) -> dict[str, object]:
    return {
        "username": ban.user.username,
        "reason": ban.reason,
        "void_since": ban.void_since,
        "by": ban.by.username,
        "created_at": ban.created_at,
        "lifted_at": ban.lifted_at,
        "lifted_by": ban.lifted_by.username if ban.lifted_by else None,
        "lift_reason": ban.lift_reason,
        "matches": sorted(ban.voids.values_list("match_id", flat=True)),
    }


def outcome_data(outcome: bans.Outcome) -> dict[str, object]:
    names = dict(bans.User.objects.filter(pk__in=outcome.changes).values_list("pk", "username"))
    return {
        **ban_data(outcome.ban),
        "changed": {names[k]: bans.change_text(v) for k, v in sorted(outcome.changes.items())},
        "cancelled": outcome.cancelled,
    }


class BansView(ModerationAPIView):
    @extend_schema(
        summary="A ladder's bans (moderators)",
        responses={200: BansSerializer, 401: ERROR, 403: ERROR, 404: ERROR},
    )
    def get(self, request: Request, slug: str) -> Response:
        ladder = self.ladder(request, slug)
        shown = Ban.objects.filter(ladder=ladder).select_related("user", "by", "lifted_by")
        ordered = sorted(shown, key=lambda b: (not b.is_active, -b.created_at.timestamp()))
        return Response(BansSerializer({"bans": [ban_data(b) for b in ordered]}).data)

    @extend_schema(
        summary="Ban a member from the ladder, voiding their rated matches from a date",
        request=BanInputSerializer,
        responses={
            201: OutcomeSerializer,
            400: FIELD_ERRORS,
            401: ERROR,
            403: ERROR,
            404: ERROR,
            409: OpenApiResponse(ERROR, description="Already banned."),
        },
    )
    def post(self, request: Request, slug: str) -> Response:
        ladder = self.ladder(request, slug)
        given = BanInputSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        outcome = bans.ban_member(
            ladder,
            request.user,
            given.validated_data["username"],
            given.validated_data["reason"],
            given.validated_data["void_since"],
        )
        return Response(OutcomeSerializer(outcome_data(outcome)).data, status=201)


class BanDetailView(ModerationAPIView):
    @extend_schema(
        summary="Lift a ban: the matches it withheld count again",
        parameters=[OpenApiParameter("username", USERNAME_PARAMETER, OpenApiParameter.PATH)],
        request=LiftInputSerializer,
        responses={200: OutcomeSerializer, 401: ERROR, 403: ERROR, 404: ERROR},
    )
    def delete(self, request: Request, slug: str, username: str) -> Response:
        ladder = self.ladder(request, slug)
        given = LiftInputSerializer(data=request.data if isinstance(request.data, dict) else {})
        given.is_valid(raise_exception=True)
        outcome = bans.lift_ban(ladder, request.user, username, given.validated_data["reason"])
        return Response(OutcomeSerializer(outcome_data(outcome)).data)
