"""API views: ladders, matches and their transitions, the inbox, players, predictions.

Thin, like the pages: fetch through the same access helpers, parse with a serializer,
call the domain operation in ladder/matches.py, respond. The domain's errors become
HTTP in one place (``DomainErrorsMixin``): 400 with field errors, 403, 409; a match the
user may not see is 404.
"""

from __future__ import annotations

from typing import Any, cast

from django.db.models import Q, QuerySet
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import exceptions, mixins, permissions, serializers, status, viewsets
from rest_framework.authentication import SessionAuthentication
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from accounts.models import User, name_contains
from accounts.security import ScopedRateThrottle
from accounts.tokens import TokenAuthentication
from ladder import matches
from ladder.api_schema import ERROR, FIELD_ERRORS
from ladder.models import (
    MATCH_STATES,
    Ladder,
    LadderQuerySet,
    Match,
    Membership,
    MembershipQuerySet,
)
from ladder.serializers import (
    CorrectInputSerializer,
    DisputeInputSerializer,
    InboxSerializer,
    LadderSerializer,
    MatchDetailSerializer,
    MatchSerializer,
    PlayerSerializer,
    PredictInputSerializer,
    PredictionSerializer,
    ReportSerializer,
    ResolveInputSerializer,
    StakesSerializer,
    VoidInputSerializer,
)

# Token first: an anonymous request that needs a user gets 401 with
# "WWW-Authenticate: Token" (session-first would answer 403). Both work either way.
AUTHENTICATION = [TokenAuthentication, SessionAuthentication]

MAX_PLAYER_RESULTS = 10


class LadderViewSet(viewsets.ReadOnlyModelViewSet):
    """Ladders you may see: public ones, plus private ones you belong to (all for moderators)."""

    serializer_class = LadderSerializer
    lookup_field = "slug"
    permission_classes = [permissions.AllowAny]

    def get_queryset(self) -> LadderQuerySet:
        user = self.request.user
        return (
            Ladder.objects.visible_to(user)
            .with_member_count()
            .with_is_member(user)
            .order_by("name")
        )


# ---- the domain's errors as HTTP ----------------------------------------------------------


class Conflict(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "The match is not in a state that allows this."
    default_code = "conflict"


def api_exception(exc: matches.MatchError, rename: dict[str, str] | None = None) -> Exception:
    """The DRF exception for a domain error (field names as the API calls them)."""
    if isinstance(exc, matches.MatchValidationError):
        rename = {"__all__": api_settings.NON_FIELD_ERRORS_KEY, **(rename or {})}
        return exceptions.ValidationError(
            {rename.get(field, field): messages for field, messages in exc.errors.items()}
        )
    if isinstance(exc, matches.MatchPermissionError):
        return exceptions.PermissionDenied(exc.message)
    if isinstance(exc, matches.MatchStateError):
        return Conflict(exc.message)
    error = exceptions.APIException(exc.message)
    error.status_code = exc.status
    return error


class DomainErrorsMixin:
    """Turn a MatchError raised anywhere in a view into the API's 400 / 403 / 409."""

    # Per action: domain error key -> the API's field name.
    error_fields: dict[str, dict[str, str]] = {}

    def handle_exception(self, exc: Exception) -> Response:
        if isinstance(exc, matches.MatchError):
            rename = self.error_fields.get(getattr(self, "action", None) or "", {})
            exc = api_exception(exc, rename)
        return super().handle_exception(exc)  # type: ignore[misc]


ERRORS = {
    400: FIELD_ERRORS,
    401: OpenApiResponse(ERROR, description="Not signed in."),
    403: OpenApiResponse(ERROR, description="You may not do this to this match."),
    404: OpenApiResponse(ERROR, description="No such match, or not one you may see."),
    409: OpenApiResponse(ERROR, description="The match's state does not allow this now."),
}


def transition_schema(summary: str, request: Any = None) -> Any:
    return extend_schema(
        summary=summary,
        request=request,
        responses={200: MatchDetailSerializer, **ERRORS},
    )


# ---- matches ------------------------------------------------------------------------------


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
        description="It waits for an opponent to confirm it. The rules of PRODUCT.md "
        '"Matches" apply: you play in it, all players are distinct members, team sizes, '
        "the date (not in the future, not older than the ladder's max_report_age_days), "
        "scores valid for the ladder's format, no duplicate, the pending and hourly limits.",
        request=ReportSerializer,
        responses={201: MatchDetailSerializer, **ERRORS, 429: ERROR},
    ),
)
class MatchViewSet(
    DomainErrorsMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    viewsets.GenericViewSet,
):
    """Matches and their transitions (confirm, dispute, cancel; moderators resolve, correct, void)."""

    authentication_classes = AUTHENTICATION
    permission_classes = [permissions.IsAuthenticatedOrReadOnly]
    error_fields = {"dispute": {"games": "proposed_games"}}

    def get_queryset(self) -> QuerySet[Match]:
        visible = Match.objects.visible_to(self.request.user)
        params = self.request.query_params
        if self.action != "list":
            return visible.with_details()
        queryset = visible
        if params.get("ladder"):
            # The ladder's id, not its slug through a join: with the id, PostgreSQL walks
            # the (ladder, played_on) index for a page instead of sorting every match.
            ladders = Ladder.objects.visible_to(self.request.user).filter(slug=params["ladder"])
            ladder_id = ladders.values_list("pk", flat=True).first()
            queryset = Match.objects.filter(ladder_id=ladder_id) if ladder_id else visible.none()
        state = params.get("state")
        if state is not None:
            if state not in dict(MATCH_STATES):
                allowed = ", ".join(value for value, _ in MATCH_STATES)
                raise exceptions.ValidationError({"state": [f"Choose one of {allowed}."]})
            queryset = queryset.filter(state=state)
        if params.get("player"):
            # Not the matches of a member hidden from you (ladder.models' visibility rule).
            memberships = Membership.objects.filter(user__username=params["player"])
            hidden_on = cast(MembershipQuerySet, memberships).hidden_from(self.request.user)
            queryset = queryset.filter(players__user__username=params["player"]).exclude(
                ladder_id__in=hidden_on.values("ladder_id")
            )
        return queryset.with_details().order_by("-played_on", "-pk")

    def get_serializer(self, *args: Any, **kwargs: Any) -> Any:
        if args and args[0] is not None:
            shown = args[0] if kwargs.get("many") else [args[0]]
            matches.mask_hidden_players(shown, self.request.user)
        return super().get_serializer(*args, **kwargs)

    def get_serializer_class(self) -> type[serializers.BaseSerializer]:
        if self.action == "list":
            return MatchSerializer
        if self.action == "create":
            return ReportSerializer
        return MatchDetailSerializer

    def get_throttles(self) -> list[Any]:
        throttles = super().get_throttles()
        if self.action == "create":
            self.throttle_scope = "match_report"
            throttles.append(ScopedRateThrottle())
        return throttles

    def get_object(self) -> Match:
        return matches.get_match_for_user(self.request.user, self.kwargs["pk"])

    def _detail(self, match: Match, status_code: int = 200) -> Response:
        match = matches.get_match_for_user(self.request.user, match.pk)
        matches.mask_hidden_players([match], self.request.user)
        data = MatchDetailSerializer(match, context=self.get_serializer_context()).data
        # str(): the field gives a Hyperlink (a str subclass) that WSGI servers refuse.
        headers = {"Location": str(data["url"])} if status_code == 201 else None
        return Response(data, status=status_code, headers=headers)

    def _input(self, serializer_class: type[serializers.Serializer]) -> dict[str, Any]:
        serializer = serializer_class(data=self.request.data, context=self.get_serializer_context())
        serializer.is_valid(raise_exception=True)
        return dict(serializer.validated_data)

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = self._input(ReportSerializer)
        match = matches.report_match(
            ladder=data["ladder"],
            reporter=request.user,  # type: ignore[arg-type]
            played_on=data["played_on"],
            side_a=data["side_a"],
            side_b=data["side_b"],
            games=data["games"],
            stats=data.get("stats"),
        )
        return self._detail(match, status.HTTP_201_CREATED)

    @transition_schema("Confirm a match reported against you")
    @action(detail=True, methods=["post"])
    def confirm(self, request: Request, pk: str) -> Response:
        return self._detail(matches.confirm_match(self.get_object(), request.user))  # type: ignore[arg-type]

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


# ---- inbox, players, predictions ------------------------------------------------------


class InboxView(DomainErrorsMixin, APIView):
    """What waits for you: matches to confirm, your pending reports, open disputes (moderators).

    One object, not a list (an APIView: a viewset's list is documented as an array)."""

    authentication_classes = AUTHENTICATION
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(summary="Your inbox", responses={200: InboxSerializer, 401: ERRORS[401]})
    def get(self, request: Request) -> Response:
        inbox = matches.inbox_for(request.user)
        data = {
            "count": inbox.count,
            "to_confirm": inbox.to_confirm,
            "my_pending": inbox.my_pending,
            "disputes": inbox.disputes,
        }
        return Response(InboxSerializer(data, context={"request": request}).data)


@extend_schema_view(
    list=extend_schema(
        summary="Find players (type-ahead)",
        description=f"Up to {MAX_PLAYER_RESULTS} players whose username or display name "
        "contains `search`, among the members of `ladder` (or of every ladder you may see). "
        "Members who chose not to be listed publicly appear only to moderators and themselves, "
        "or, to a signed-in member, when `search` is their exact username.",
        parameters=[
            OpenApiParameter("search", str, description="Part of a username or display name."),
            OpenApiParameter("ladder", str, description="Only members of this ladder (slug)."),
        ],
    ),
    retrieve=extend_schema(summary="A player"),
)
class PlayerViewSet(viewsets.ReadOnlyModelViewSet):
    """Players: members of the ladders you may see."""

    authentication_classes = AUTHENTICATION
    permission_classes = [permissions.AllowAny]
    serializer_class = PlayerSerializer
    pagination_class = None
    lookup_field = "username"
    lookup_value_regex = r"[\w.@+-]+"

    def _memberships(self) -> QuerySet[Membership]:
        user = self.request.user
        memberships = Membership.objects.filter(
            ladder__in=Ladder.objects.visible_to(user).values("pk")
        )
        slug = self.request.query_params.get("ladder")
        if slug:
            memberships = memberships.filter(ladder__slug=slug)
        return memberships

    def get_queryset(self) -> QuerySet[User]:
        memberships = self._memberships()
        listed = cast(MembershipQuerySet, memberships).listed_for(self.request.user)
        search = (self.request.query_params.get("search") or "").strip()
        users = User.objects.filter(is_active=True)
        if self.action != "list":
            return users.filter(pk__in=listed.values("user_id"))
        if search:
            found = Q(pk__in=listed.values("user_id")) & name_contains(search)
            if self.request.user.is_authenticated:
                # A member reporting a match against a hidden member names them exactly;
                # a visitor never finds a hidden member (issue 15: no public answer).
                found |= Q(username__iexact=search, pk__in=memberships.values("user_id"))
            users = users.filter(found)
        else:
            users = users.filter(pk__in=listed.values("user_id"))
        return users.order_by("username")

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        players = self.get_queryset()[:MAX_PLAYER_RESULTS]
        return Response(self.get_serializer(players, many=True).data)


class PredictView(APIView):
    """RATINGS.md §6: the probability that side A beats side B on a ladder, from current ratings."""

    authentication_classes = AUTHENTICATION
    permission_classes = [permissions.AllowAny]

    def _predict(self, request: Request, data: Any) -> Response:
        serializer = PredictInputSerializer(data=data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        values = serializer.validated_data
        nothing = {"probability": None, "quality": None, "stakes": None}
        if not values["complete"]:
            return Response(nothing)
        lineup = (values["ladder"], values["side_a"], values["side_b"])
        on = values.get("on") or timezone.localdate()
        prediction = matches.predict_sides(*lineup, on)
        if prediction is None:
            return Response(nothing)
        stakes = matches.stakes_for_lineup(*lineup, on)
        body = {"probability": prediction.probability, "quality": prediction.quality}
        body["stakes"] = None if stakes is None else StakesSerializer(stakes).data
        return Response(body)

    @extend_schema(
        summary="Predicted win probability (query parameters)",
        parameters=[
            OpenApiParameter("ladder", str, required=True, description="The ladder's slug."),
            OpenApiParameter(
                "side_a", str, many=True, description="Usernames, repeated or comma-separated."
            ),
            OpenApiParameter(
                "side_b", str, many=True, description="Usernames, repeated or comma-separated."
            ),
            OpenApiParameter("on", OpenApiTypes.DATE, description="Default: today."),
        ],
        responses={200: PredictionSerializer, 400: FIELD_ERRORS},
    )
    def get(self, request: Request) -> Response:
        params = request.query_params

        def names(key: str) -> list[str]:
            return [n.strip() for v in params.getlist(key) for n in v.split(",") if n.strip()]

        data = {
            "ladder": params.get("ladder", ""),
            "side_a": names("side_a"),
            "side_b": names("side_b"),
        }
        if params.get("on"):
            data["on"] = params["on"]
        return self._predict(request, data)

    @extend_schema(
        summary="Predicted win probability",
        request=PredictInputSerializer,
        responses={200: PredictionSerializer, 400: FIELD_ERRORS},
    )
    def post(self, request: Request) -> Response:
        return self._predict(request, request.data)
