"""The API of challenges, open games and the calendar (docs/API.md): thin views over
``services.py``; the domain's errors become HTTP in the API's one place
(``core/api_support.py:exception_handler``: 400 with field errors, 403, 409, 429; what you
may not see is 404)."""

from __future__ import annotations

from typing import Any

from django.http import Http404
from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.tokens import API_AUTHENTICATION
from core.api_schema import ERROR, FIELD_ERRORS
from core.api_support import InputSerializer
from ladder.clubs import access
from ladder.clubs.access import viewer_for
from ladder.clubs.models import Ladder
from ladder.matches.permissions import require_signed_in
from ladder.matches.serializers import visible_ladder
from ladder.play import services
from ladder.play.models import (
    CHALLENGE_STATES,
    MAX_MESSAGE_LENGTH,
    MAX_PLACE_LENGTH,
    MAX_PROPOSED_TIMES,
    Challenge,
    OpenGame,
)

_NAMES = serializers.ListField(child=serializers.CharField(max_length=150), max_length=4)
ERRORS = {400: FIELD_ERRORS, 401: ERROR, 403: ERROR, 404: ERROR, 409: ERROR}
# Where the limits on what reaches others apply (a pair's cool-down, the daily cap): a 429
# with Retry-After.
LIMITED = {**ERRORS, 429: ERROR}


class ChallengeInputSerializer(InputSerializer):
    opponents = serializers.ListField(
        child=serializers.CharField(max_length=150), max_length=4, help_text="Usernames."
    )
    partners = serializers.ListField(
        child=serializers.CharField(max_length=150),
        max_length=3,
        required=False,
        default=list,
        help_text="Your partner's username in doubles.",
    )
    message = serializers.CharField(
        max_length=MAX_MESSAGE_LENGTH, required=False, allow_blank=True, default=""
    )
    place = serializers.CharField(
        max_length=MAX_PLACE_LENGTH, required=False, allow_blank=True, default=""
    )
    proposed_times = serializers.ListField(
        child=serializers.CharField(max_length=40),
        max_length=MAX_PROPOSED_TIMES,
        help_text="ISO 8601 times, one to three (an offset, or the club's time zone).",
    )


class AcceptInputSerializer(InputSerializer):
    time = serializers.CharField(max_length=40, help_text="One of the proposed times (ISO 8601).")
    place = serializers.CharField(max_length=MAX_PLACE_LENGTH, required=False, allow_blank=True)


class ProposeInputSerializer(InputSerializer):
    proposed_times = serializers.ListField(
        child=serializers.CharField(max_length=40), max_length=MAX_PROPOSED_TIMES
    )


class ChallengeSerializer(serializers.ModelSerializer[Challenge]):
    ladder: serializers.SlugRelatedField[Ladder] = serializers.SlugRelatedField(
        slug_field="slug", read_only=True
    )
    challenger = serializers.CharField(source="challenger.username", read_only=True)
    side_a = serializers.SerializerMethodField(help_text="The challenger and partners.")
    side_b = serializers.SerializerMethodField(help_text="The challenged.")
    state = serializers.ChoiceField(choices=CHALLENGE_STATES, read_only=True)
    answering = serializers.SerializerMethodField(
        help_text="Usernames of the side that answers the proposed times now."
    )
    match = serializers.IntegerField(source="match_id", read_only=True, allow_null=True)
    report_page = serializers.SerializerMethodField()

    class Meta:
        model = Challenge
        fields = [
            "id",
            "ladder",
            "state",
            "challenger",
            "side_a",
            "side_b",
            "message",
            "place",
            "proposed_times",
            "answering",
            "starts_at",
            "expires_at",
            "created_at",
            "decided_at",
            "match",
            "report_page",
        ]
        read_only_fields = fields

    def get_side_a(self, obj: Challenge) -> list[str]:
        return [u.username for u in obj.side_a]

    def get_side_b(self, obj: Challenge) -> list[str]:
        return [u.username for u in obj.side_b]

    def get_answering(self, obj: Challenge) -> list[str]:
        return [u.username for u in obj.side(obj.answering_side)] if obj.state == "open" else []

    def get_report_page(self, obj: Challenge) -> str | None:
        if obj.state != "scheduled":
            return None
        return reverse("ladder:report", args=[obj.ladder.slug]) + f"?challenge={obj.pk}"


class _Authenticated(APIView):
    authentication_classes = API_AUTHENTICATION
    permission_classes = [permissions.IsAuthenticated]

    def _input(self, serializer_class: type[InputSerializer]) -> dict[str, Any]:
        serializer = serializer_class(data=self.request.data)
        serializer.is_valid(raise_exception=True)
        return dict(serializer.validated_data)

    def _ladder(self, slug: str) -> Ladder:
        try:
            return visible_ladder(self.request, slug)
        except serializers.ValidationError:
            raise Http404("No such ladder.") from None


class LadderChallengesView(_Authenticated):
    @extend_schema(
        summary="Challenge members of a ladder",
        request=ChallengeInputSerializer,
        responses={201: ChallengeSerializer, **LIMITED},
    )
    def post(self, request: Request, slug: str) -> Response:
        ladder = self._ladder(slug)
        data = self._input(ChallengeInputSerializer)
        by = require_signed_in(request.user)
        challenge = services.create_challenge(ladder=ladder, by=by, **data)
        return Response(ChallengeSerializer(challenge).data, status=status.HTTP_201_CREATED)


class ChallengeListView(_Authenticated):
    @extend_schema(
        summary="Your challenges (every one for moderators), newest first",
        responses={200: ChallengeSerializer(many=True), 401: ERROR},
    )
    def get(self, request: Request) -> Response:
        queryset = services.challenges_for(require_signed_in(request.user))
        state = request.query_params.get("state")
        if state:
            queryset = queryset.filter(state=state)
        return Response(ChallengeSerializer(queryset[:200], many=True).data)


class ChallengeDetailView(_Authenticated):
    @extend_schema(summary="A challenge", responses={200: ChallengeSerializer, **ERRORS})
    def get(self, request: Request, pk: int) -> Response:
        challenge = services.get_challenge_for_user(require_signed_in(request.user), pk)
        return Response(ChallengeSerializer(challenge).data)


class ChallengeActionView(_Authenticated):
    """accept / propose / decline / cancel."""

    action_name = ""

    def post(self, request: Request, pk: int) -> Response:
        user = require_signed_in(request.user)
        challenge = services.get_challenge_for_user(user, pk)
        if self.action_name == "accept":
            data = self._input(AcceptInputSerializer)
            challenge = services.accept_challenge(challenge, user, data["time"], data.get("place"))
        elif self.action_name == "propose":
            data = self._input(ProposeInputSerializer)
            challenge = services.propose_times(challenge, user, data["proposed_times"])
        elif self.action_name == "decline":
            challenge = services.decline_challenge(challenge, user)
        else:
            challenge = services.cancel_challenge(challenge, user)
        return Response(ChallengeSerializer(challenge).data)


# One view per answer, so that the schema gives each its own body (a closed one, as every
# request body: core/api_schema.py).
class AcceptChallengeView(ChallengeActionView):
    action_name = "accept"

    @extend_schema(
        summary="Accept a challenge at one of its proposed times",
        request=AcceptInputSerializer,
        responses={200: ChallengeSerializer, **ERRORS},
    )
    def post(self, request: Request, pk: int) -> Response:
        return super().post(request, pk)


class ProposeTimesView(ChallengeActionView):
    action_name = "propose"

    @extend_schema(
        summary="Propose other times for a challenge",
        request=ProposeInputSerializer,
        responses={200: ChallengeSerializer, **LIMITED},
    )
    def post(self, request: Request, pk: int) -> Response:
        return super().post(request, pk)


class DeclineChallengeView(ChallengeActionView):
    action_name = "decline"

    @extend_schema(
        summary="Decline a challenge", request=None, responses={200: ChallengeSerializer, **ERRORS}
    )
    def post(self, request: Request, pk: int) -> Response:
        return super().post(request, pk)


class CancelChallengeView(ChallengeActionView):
    action_name = "cancel"

    @extend_schema(
        summary="Cancel a challenge", request=None, responses={200: ChallengeSerializer, **ERRORS}
    )
    def post(self, request: Request, pk: int) -> Response:
        return super().post(request, pk)


class OpenGameInputSerializer(InputSerializer):
    starts_at = serializers.CharField(max_length=40, help_text="ISO 8601.")
    place = serializers.CharField(max_length=MAX_PLACE_LENGTH)
    level_min = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text="The lowest rating, in points (4500 reads 4.50), inside the ladder's scale "
        "(2000 to 9000 by default).",
    )
    level_max = serializers.IntegerField(
        required=False, allow_null=True, help_text="The highest rating, in points."
    )
    team_size = serializers.IntegerField(
        required=False,
        help_text="The ladder's team size (1 singles, 2 doubles); left out, the ladder's. "
        "Any other is a 400.",
    )


class OpenGameSerializer(serializers.ModelSerializer[OpenGame]):
    ladder: serializers.SlugRelatedField[Ladder] = serializers.SlugRelatedField(
        slug_field="slug", read_only=True
    )
    host = serializers.SerializerMethodField(
        help_text="The host's username; null for a member you may not see (a hidden one)."
    )
    players = serializers.SerializerMethodField(
        help_text="The players' usernames, the host first; null for a member you may not see."
    )
    places_left = serializers.IntegerField(read_only=True)
    match = serializers.IntegerField(source="match_id", read_only=True, allow_null=True)

    class Meta:
        model = OpenGame
        fields = [
            "id",
            "ladder",
            "state",
            "host",
            "starts_at",
            "place",
            "level_min",
            "level_max",
            "team_size",
            "players",
            "places_left",
            "match",
        ]
        read_only_fields = fields

    def _people(self, obj: OpenGame) -> list[access.Person]:
        """The players as the request's viewer may see them (the access policy)."""
        viewer = viewer_for(self.context["request"])
        unseen = self.context.setdefault("unseen", {})
        if obj.ladder_id not in unseen:
            unseen[obj.ladder_id] = access.unseen(viewer, [obj.ladder_id]).get(obj.ladder_id, set())
        return access.people(viewer, obj.players_list, unseen[obj.ladder_id])

    def get_host(self, obj: OpenGame) -> str | None:
        shown = dict(zip((u.pk for u in obj.players_list), self._people(obj), strict=True))
        host = shown.get(obj.host_id)
        return host.username if host else None

    def get_players(self, obj: OpenGame) -> list[str | None]:
        return [p.username for p in self._people(obj)]


# GET …/open-games/?show=: the games to come (the default), or your own started games
# whose result is still to report (the open games page's "Your games to report").
SHOW_CHOICES = ("coming", "to_report")


class LadderOpenGamesView(_Authenticated):
    @extend_schema(
        summary="A ladder's open and full games to come, or your games to report",
        parameters=[
            OpenApiParameter(
                "show",
                str,
                enum=list(SHOW_CHOICES),
                description="coming (the default): the open and full games to come. "
                "to_report: your full games that started in the last 30 days and are not "
                'played yet (one reported shows its match); report one with "open_game": its id.',
            )
        ],
        responses={200: OpenGameSerializer(many=True), **ERRORS},
    )
    def get(self, request: Request, slug: str) -> Response:
        ladder = self._ladder(slug)
        show = request.query_params.get("show", "coming")
        if show not in SHOW_CHOICES:
            raise serializers.ValidationError(
                {"show": [f"Choose one of {', '.join(SHOW_CHOICES)}."]}
            )
        if show == "to_report":
            games = services.games_to_report(ladder, require_signed_in(request.user))
        else:
            games = services.open_games(ladder)
        return Response(OpenGameSerializer(games, many=True, context={"request": request}).data)

    @extend_schema(
        summary="Post a game for others to join",
        request=OpenGameInputSerializer,
        responses={201: OpenGameSerializer, **ERRORS},
    )
    def post(self, request: Request, slug: str) -> Response:
        ladder = self._ladder(slug)
        data = self._input(OpenGameInputSerializer)
        game = services.post_open_game(ladder=ladder, by=require_signed_in(request.user), **data)
        return Response(
            OpenGameSerializer(game, context={"request": request}).data,
            status=status.HTTP_201_CREATED,
        )


class OpenGameActionView(_Authenticated):
    """join / leave / cancel."""

    action_name = ""

    @extend_schema(
        summary="Join, leave or cancel a game",
        request=None,
        responses={200: OpenGameSerializer, **LIMITED},
    )
    def post(self, request: Request, pk: int) -> Response:
        user = require_signed_in(request.user)
        game = services.get_game(pk, user)
        operation = {
            "join": services.join_open_game,
            "leave": services.leave_open_game,
            "cancel": services.cancel_open_game,
        }[self.action_name]
        return Response(
            OpenGameSerializer(operation(game, user), context={"request": request}).data
        )


class CalendarUrlSerializer(serializers.Serializer[dict[str, str]]):
    url = serializers.URLField(help_text="Your private feed (text/calendar); keep it secret.")


class MyCalendarView(_Authenticated):
    @extend_schema(
        summary="Your private calendar feed's address",
        responses={200: CalendarUrlSerializer, 401: ERROR},
    )
    def get(self, request: Request) -> Response:
        feed = services.feed_of(require_signed_in(request.user))
        return Response({"url": request.build_absolute_uri(feed.get_absolute_url())})

    @extend_schema(
        summary="Revoke your feed's address and get a new one",
        request=None,
        responses={200: CalendarUrlSerializer, 401: ERROR},
    )
    def post(self, request: Request) -> Response:
        feed = services.renew_feed(require_signed_in(request.user))
        return Response({"url": request.build_absolute_uri(feed.get_absolute_url())})
