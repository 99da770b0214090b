"""API views: ladders, and the players of a ladder (for reporting a match against them)."""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_view,
)
from rest_framework import permissions, viewsets
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import User
from accounts.tokens import API_AUTHENTICATION
from ladder.clubs import access
from ladder.clubs.access import viewer_for
from ladder.clubs.models import LadderQuerySet, Membership, MembershipQuerySet
from ladder.clubs.serializers import (
    AwaySerializer,
    AwayStateSerializer,
    LadderSerializer,
    PlayerSerializer,
)
from ladder.clubs.services import set_away

MAX_PLAYER_RESULTS = 10


class LadderViewSet(viewsets.ReadOnlyModelViewSet):
    """Ladders you may see: public ones, plus private ones you belong to (all for moderators)."""

    serializer_class = LadderSerializer
    lookup_field = "slug"
    lookup_value_regex = "[-a-zA-Z0-9_]+"  # a slug: the schema says so, anything else is a 404
    permission_classes = [permissions.AllowAny]

    def get_queryset(self) -> LadderQuerySet:
        user = self.request.user
        return (
            access.ladders(viewer_for(self.request))
            .with_member_count()
            .with_is_member(user)
            .order_by("name")
        )


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

    authentication_classes = API_AUTHENTICATION
    permission_classes = [permissions.AllowAny]
    serializer_class = PlayerSerializer
    pagination_class = None
    lookup_field = "username"
    lookup_value_regex = r"[\w.@+-]+"

    def _memberships(self) -> MembershipQuerySet:
        memberships = Membership.objects.filter(
            ladder__in=access.ladders(viewer_for(self.request)).values("pk")
        )
        slug = self.request.query_params.get("ladder")
        if slug:
            memberships = memberships.filter(ladder__slug=slug)
        return memberships

    def get_queryset(self) -> QuerySet[User]:
        search = ""
        if self.action == "list":  # one player: by username, listed to the caller
            search = (self.request.query_params.get("search") or "").strip()
        found = access.found_q(viewer_for(self.request), self._memberships(), search)
        return User.objects.filter(found).order_by("username")

    def list(self, request: Request, *args: object, **kwargs: object) -> Response:
        players = self.get_queryset()[:MAX_PLAYER_RESULTS]
        return Response(self.get_serializer(players, many=True).data)


@extend_schema(
    tags=["ladders"],
    request=AwaySerializer,
    responses=AwayStateSerializer,
    summary="Mark yourself away (or back)",
    description='Your own time away on this ladder (RULES.md "Time away"): the board shows '
    '"away until …" instead of "inactive", and no one may challenge you meanwhile. '
    "A day before today is refused (400), as is one more than a year ahead; not a member: 403.",
)
class AwayView(APIView):
    """PUT: the caller's time away on a ladder (``ladder.clubs.services.set_away``)."""

    authentication_classes = API_AUTHENTICATION
    permission_classes = [permissions.IsAuthenticated]

    def put(self, request: Request, slug: str) -> Response:
        ladder = access.ladder_or_404(viewer_for(request), slug)
        body = AwaySerializer(data=request.data)
        body.is_valid(raise_exception=True)
        membership = set_away(request.user, ladder, body.validated_data["until"])
        return Response(AwayStateSerializer(membership).data)
