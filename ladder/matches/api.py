"""API views: matches and their transitions, the inbox.

Thin, like the pages: fetch through the same access helpers, parse with a serializer,
call the domain operation in ladder/matches/operations.py, respond. The domain's errors
become HTTP in one place for the whole API (``core/api_support.py:exception_handler``):
400 with field errors (``error_fields`` names them as the API does), 403, 409, 429; a match
the user may not see is 404.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django.db import Error as DatabaseFailure
from django.db import connection
from django.db.models import QuerySet
from django.urls import reverse
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import exceptions, mixins, permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from accounts.security import ScopedRateThrottle
from accounts.tokens import API_AUTHENTICATION
from core.api_schema import ERROR, FIELD_ERRORS
from ladder.clubs import access
from ladder.clubs.access import viewer_for
from ladder.matches import operations as matches
from ladder.matches.inbox import inbox_for
from ladder.matches.models import MATCH_STATES, Match
from ladder.matches.serializers import (
    ConfirmInputSerializer,
    CorrectInputSerializer,
    DisputeInputSerializer,
    EditInputSerializer,
    InboxSerializer,
    MatchDetailSerializer,
    MatchSerializer,
    ReportSerializer,
    ResolveInputSerializer,
    VoidInputSerializer,
)
from ladder.matches.validation import Report
from ladder.matches.visibility import (
    get_match_for_user,
    player_matches,
    shown_match,
    shown_matches,
    visible_matches,
)

ERRORS = {
    400: FIELD_ERRORS,
    401: OpenApiResponse(ERROR, description="Not signed in."),
    403: OpenApiResponse(ERROR, description="You may not do this to this match."),
    404: OpenApiResponse(ERROR, description="No such match, or not one you may see."),
    409: OpenApiResponse(ERROR, description="The match's state does not allow this now."),
}


_View = TypeVar("_View", bound=Callable[..., Response])


def transition_schema(
    summary: str, request: type[serializers.Serializer] | None = None
) -> Callable[[_View], _View]:
    return extend_schema(
        summary=summary,
        request=request,
        responses={200: MatchDetailSerializer, **ERRORS},
    )


@extend_schema_view(
    list=extend_schema(
        summary="Matches you may see, newest first",
        parameters=[
            OpenApiParameter("ladder", str, description="Only this ladder (slug)."),
            OpenApiParameter(
                "state",
                str,
                enum=[value for value, _ in MATCH_STATES],
                description="Only this state.",
            ),
            OpenApiParameter("player", str, description="Only matches this username played."),
        ],
        responses={200: MatchSerializer(many=True), 400: FIELD_ERRORS},
    ),
    retrieve=extend_schema(
        summary="A match with its players, games, disputes, audit trail and your allowed actions",
        responses={200: MatchDetailSerializer, 404: ERRORS[404]},
    ),
    create=extend_schema(
        summary="Report a match you played",
        description="It waits for an opponent to confirm it. "
        'The rules of docs/RULES.md "Matches" apply: you play in it, all players are distinct '
        "members, team sizes, "
        "the date (not in the future, not older than the ladder's max_report_age_days), "
        "scores valid for the ladder's format, no duplicate, the pending and hourly limits.",
        request=ReportSerializer,
        parameters=[
            OpenApiParameter(
                "Idempotency-Key",
                str,
                OpenApiParameter.HEADER,
                description="Your name for this report (1-64 visible ASCII characters, a "
                "UUID made for it, say). Sent again with the same report, as a client does "
                "after an answer it never got, it answers 201 with the match the first made, "
                "as it is now (header Idempotent-Replayed: true), and makes nothing.",
            )
        ],
        responses={
            201: MatchDetailSerializer,
            **ERRORS,
            422: OpenApiResponse(
                ERROR, description="The Idempotency-Key was sent before with another report."
            ),
            429: ERROR,
        },
    ),
)
class MatchViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    viewsets.GenericViewSet,
):
    """Matches and their transitions (confirm, dispute, cancel; moderators resolve, correct, void)."""

    authentication_classes = API_AUTHENTICATION
    permission_classes = [permissions.IsAuthenticatedOrReadOnly]
    error_fields = {
        "dispute": {"games": "proposed_games"},
        "create": {"report_key": "Idempotency-Key"},
    }

    def get_queryset(self) -> QuerySet[Match]:
        visible = visible_matches(viewer_for(self.request), Match.objects.all())
        params = self.request.query_params
        if self.action != "list":
            return visible.with_details()
        queryset = visible
        if params.get("ladder"):
            # The ladder's id, not its slug through a join: with the id, PostgreSQL walks
            # the (ladder, played_on) index for a page instead of sorting every match.
            ladders = access.ladders(viewer_for(self.request)).filter(slug=params["ladder"])
            ladder_id = ladders.values_list("pk", flat=True).first()
            queryset = Match.objects.filter(ladder_id=ladder_id) if ladder_id else visible.none()
        state = params.get("state")
        if state is not None:
            if state not in dict(MATCH_STATES):
                allowed = ", ".join(value for value, _ in MATCH_STATES)
                raise exceptions.ValidationError({"state": [f"Choose one of {allowed}."]})
            queryset = queryset.filter(state=state)
        if params.get("player"):
            queryset = player_matches(viewer_for(self.request), queryset, params["player"])
        return queryset.with_details().order_by("-played_on", "-pk")

    def get_serializer(self, *args: Any, **kwargs: Any) -> Any:
        """A serializer of the matches a list or a match's answer shows, as the caller may see
        them (``visibility.ShownMatch``)."""
        if args and args[0] is not None:
            viewer = viewer_for(self.request)
            many = kwargs.get("many")
            shown = shown_matches(viewer, args[0]) if many else shown_match(viewer, args[0])
            args = (shown, *args[1:])
        return super().get_serializer(*args, **kwargs)

    def get_serializer_class(self) -> type[serializers.BaseSerializer]:
        if self.action == "list":
            return MatchSerializer
        if self.action == "create":
            return ReportSerializer
        return MatchDetailSerializer

    def get_throttles(self) -> list[BaseThrottle]:
        throttles = super().get_throttles()
        if self.action == "create":
            self.throttle_scope = "match_report"
            throttles.append(ScopedRateThrottle())
        return throttles

    def get_object(self) -> Match:
        return get_match_for_user(viewer_for(self.request), self.kwargs["pk"])

    def _detail(self, match: Match, status_code: int = 200) -> Response:
        """The match as the caller sees it. Every action's answer: its work has committed, so
        should the database fail while the answer is read (a restart), it is read once more
        on a new connection, and failing that the answer is what was committed (id, state,
        url) rather than a 5xx (issue 29.2; docs/API.md)."""
        data: dict[str, object]
        for _ in range(2):
            try:
                viewer = viewer_for(self.request)
                shown = shown_match(viewer, get_match_for_user(viewer, match.pk))
                data = MatchDetailSerializer(shown, context=self.get_serializer_context()).data
                break
            except DatabaseFailure:  # OperationalError, InterfaceError (connection closed)
                if connection.in_atomic_block:
                    raise
                connection.close()  # broken: the next query opens a new one
        else:
            path = reverse("api:match-detail", args=[match.pk])
            data = {
                "id": match.pk,
                "state": match.state,
                "url": self.request.build_absolute_uri(path),
            }
        # str(): the field gives a Hyperlink (a str subclass) that WSGI servers refuse.
        headers = {"Location": str(data["url"])} if status_code == 201 else None
        return Response(data, status=status_code, headers=headers)

    def _input(self, serializer_class: type[serializers.Serializer]) -> dict[str, Any]:
        serializer = serializer_class(data=self.request.data, context=self.get_serializer_context())
        serializer.is_valid(raise_exception=True)
        return dict(serializer.validated_data)

    def create(self, request: Request, *args: object, **kwargs: object) -> Response:
        data = self._input(ReportSerializer)
        report = Report(
            ladder=data["ladder"],
            reporter=request.user,  # type: ignore[arg-type]
            played_on=data["played_on"],
            side_a=data["side_a"],
            side_b=data["side_b"],
            games=data["games"],
            stats=data.get("stats"),
        )
        match = matches.report_match(
            report,
            key=request.headers.get("Idempotency-Key"),
            links=data.get("links"),
        )
        answer = self._detail(match, status.HTTP_201_CREATED)
        if match.repeated:
            answer["Idempotent-Replayed"] = "true"
        return answer

    @extend_schema(
        summary="Change your own pending report (its score, and maybe its date)",
        description="Only its reporter, while it waits for confirmation; the players stay "
        "(cancel and report again to change them). The opponents are told and confirm the "
        "new version; the audit trail keeps both.",
        request=EditInputSerializer,
        responses={200: MatchDetailSerializer, **ERRORS},
    )
    def partial_update(self, request: Request, pk: str) -> Response:
        match = self.get_object()
        data = self._input(EditInputSerializer)
        match = matches.edit_match(
            match,
            request.user,  # type: ignore[arg-type]
            data.get("games", match.game_scores),
            played_on=data.get("played_on"),
        )
        return self._detail(match)

    @transition_schema("Confirm a match reported against you", ConfirmInputSerializer)
    @action(detail=True, methods=["post"])
    def confirm(self, request: Request, pk: str) -> Response:
        match = self.get_object()
        seen = self._input(ConfirmInputSerializer).get("seen")
        return self._detail(matches.confirm_match(match, request.user, seen=seen))  # type: ignore[arg-type]

    @transition_schema("Dispute a match reported against you", DisputeInputSerializer)
    @action(detail=True, methods=["post"])
    def dispute(self, request: Request, pk: str) -> Response:
        match = self.get_object()
        data = self._input(DisputeInputSerializer)
        match = matches.dispute_match(
            match,
            request.user,  # type: ignore[arg-type]
            data["reason"],
            data.get("proposed_games"),
        )
        return self._detail(match)

    @transition_schema("Cancel your own pending report")
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, pk: str) -> Response:
        return self._detail(matches.cancel_match(self.get_object(), request.user))  # type: ignore[arg-type]

    @transition_schema(
        "Moderators: settle a dispute (uphold, correct, void)", ResolveInputSerializer
    )
    @action(detail=True, methods=["post"])
    def resolve(self, request: Request, pk: str) -> Response:
        match = self.get_object()
        data = self._input(ResolveInputSerializer)
        match = matches.resolve_dispute(
            match,
            request.user,  # type: ignore[arg-type]
            data["decision"],
            data["reason"],
            games=data.get("games"),
            played_on=data.get("played_on"),
        )
        return self._detail(match)

    @transition_schema("Moderators: correct a confirmed match", CorrectInputSerializer)
    @action(detail=True, methods=["post"])
    def correct(self, request: Request, pk: str) -> Response:
        match = self.get_object()
        data = self._input(CorrectInputSerializer)
        match = matches.correct_match(
            match,
            request.user,  # type: ignore[arg-type]
            data["games"],
            data["reason"],
            played_on=data.get("played_on"),
        )
        return self._detail(match)

    @transition_schema("Moderators: void a confirmed match", VoidInputSerializer)
    @action(detail=True, methods=["post"])
    def void(self, request: Request, pk: str) -> Response:
        match = self.get_object()
        data = self._input(VoidInputSerializer)
        return self._detail(matches.void_match(match, request.user, data["reason"]))  # type: ignore[arg-type]


class InboxView(APIView):
    """What waits for you: matches to confirm, your pending reports, open disputes (moderators).

    One object, not a list (an APIView: a viewset's list is documented as an array)."""

    authentication_classes = API_AUTHENTICATION
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(summary="Your inbox", responses={200: InboxSerializer, 401: ERRORS[401]})
    def get(self, request: Request) -> Response:
        inbox = inbox_for(request.user)
        viewer = viewer_for(request)
        data = {
            "count": inbox.count,
            "to_confirm": shown_matches(viewer, inbox.to_confirm),
            "my_pending": shown_matches(viewer, inbox.my_pending),
            "disputes": shown_matches(viewer, inbox.disputes),
        }
        return Response(InboxSerializer(data, context={"request": request}).data)
