"""The ratings API: a ladder's leaderboard and a player's rating history.

The same data, filters and visibility as the pages (both read through ``ratings.leaderboards``,
``ratings.histories`` and ``ratings.predictions``, and ask the access policy,
``ladder.clubs.access``): an invisible ladder or player is 404. Predictions are /api/v1/predict/ (PredictView, below).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

from django.core.validators import slug_re
from django.http import Http404, HttpResponse, HttpResponseBase
from django.shortcuts import get_object_or_404
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
)
from rest_framework import generics, permissions
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.tokens import API_AUTHENTICATION
from core.api_schema import ERROR, FIELD_ERRORS, USERNAME_PARAMETER
from core.api_support import Pagination
from core.cache import cache_get, cache_set
from ladder.clubs import access
from ladder.clubs.access import viewer_for
from ladder.clubs.models import Ladder, Membership
from ratings import histories, leaderboards, predictions
from ratings.models import RatingChange, RatingChangeQuerySet, Season, today
from ratings.seasons import season_table
from ratings.serializers import (
    LeaderboardQuerySerializer,
    LeaderboardRowSerializer,
    PredictInputSerializer,
    PredictionSerializer,
    RatingChangeSerializer,
    SeasonSerializer,
    StakesSerializer,
    StandingSerializer,
)
from ratings.stakes import stakes_for_lineup


class LeaderboardPagination(Pagination):
    page_size = leaderboards.LEADERBOARD_PAGE_SIZE


class HistoryPagination(Pagination):
    page_size = histories.HISTORY_PAGE_SIZE


@extend_schema(
    tags=["ratings"],
    parameters=[
        OpenApiParameter(
            "q",
            {"type": "string", "maxLength": leaderboards.MAX_QUERY_LENGTH},
            description="Part of a name or username.",
        ),
        OpenApiParameter(
            "status",
            OpenApiTypes.STR,
            enum=[value for value, _ in leaderboards.STATUS_FILTERS],
            description="Only players of this status (default: all).",
        ),
    ],
)
class LeaderboardView(generics.ListAPIView):
    """A ladder's leaderboard: ranked players by rating, then provisional, then inactive."""

    serializer_class = LeaderboardRowSerializer
    pagination_class = LeaderboardPagination
    permission_classes = [permissions.AllowAny]

    def get_queryset(self) -> Any:
        viewer = viewer_for(self.request)
        ladder = access.ladder_or_404(viewer, self.kwargs["slug"])
        query = LeaderboardQuerySerializer(data=self.request.query_params)
        query.is_valid(raise_exception=True)
        return leaderboards.Board(
            ladder,
            viewer,
            text=query.validated_data.get("q", ""),
            status=query.validated_data["status"],
        )

    # A plain response for kept bytes: DRF's Response would render them again.
    def list(self, request: Request, *args: object, **kwargs: object) -> HttpResponseBase:  # type: ignore[override]
        """The page from the shared cache, kept under the ladder's ``board_version`` (as the
        web page's rows are: ``leaderboards.board_page``), what the caller may see and the whole
        address (the page's links hold it); built and kept on a miss. JSON (every client but
        the browsable API) is kept as the bytes sent, so a hit renders nothing. An address
        with parameters the view does not read is not kept (one entry per junk value)."""
        extra = set(request.query_params) - {"q", "status", "page", "format"}
        if extra or not isinstance(request.accepted_renderer, JSONRenderer):
            ladder, _, text, status = self.board_of()
            return Response(self.page(ladder, text, status, today()))
        on = today()
        media = request.accepted_media_type
        address = f"api {media} {request.build_absolute_uri()}"
        ladder, seen, text, status = self.board_of()
        key = leaderboards.board_key(ladder, seen, text, status, address, on)
        body = cache_get(key)
        if body is None:
            data = self.page(ladder, text, status, on)
            body = request.accepted_renderer.render(data, media, self.get_renderer_context())
            cache_set(key, body)
        return HttpResponse(body, content_type=media)

    def board_of(self) -> tuple[Ladder, str, str, str]:
        """The ladder, which of its rows the caller may see, the search and the status (400
        for a bad one)."""
        query = LeaderboardQuerySerializer(data=self.request.query_params)
        query.is_valid(raise_exception=True)
        ladder, seen = self.ladder_and_viewer()
        return ladder, seen, query.validated_data.get("q", ""), query.validated_data["status"]

    def page(self, ladder: Ladder, text: str, status: str, on: date) -> object:
        board = leaderboards.Board(
            ladder, viewer_for(self.request), text=text, status=status, on=on
        )
        rows: Any = self.paginate_queryset(board)  # type: ignore[arg-type]
        return self.get_paginated_response(self.get_serializer(rows, many=True).data).data

    def ladder_and_viewer(self) -> tuple[Ladder, str]:
        """The ladder (404 if the caller may not see it) and which of its rows they may see
        (``access.rows_seen``)."""
        viewer = viewer_for(self.request)
        ladder = access.ladder_or_404(viewer, self.kwargs["slug"])
        own = None
        if viewer.user_id is not None and not viewer.sees_everyone:
            own = (
                Membership.objects.filter(ladder=ladder, user_id=viewer.user_id).order_by().first()
            )
        return ladder, access.rows_seen(viewer, own)


@extend_schema(
    tags=["ratings"],
    parameters=[
        OpenApiParameter(
            "ladder", OpenApiTypes.STR, description="Only this ladder (slug); default: all."
        ),
        OpenApiParameter("username", USERNAME_PARAMETER, OpenApiParameter.PATH),
    ],
)
class HistoryView(generics.ListAPIView):
    """A player's rated matches, newest first, each with its rating change explained."""

    serializer_class = RatingChangeSerializer
    pagination_class = HistoryPagination
    permission_classes = [permissions.AllowAny]

    def get_queryset(self) -> RatingChangeQuerySet:
        player, memberships = access.player_for(viewer_for(self.request), self.kwargs["username"])
        ladders = {m.ladder_id: m.ladder for m in memberships}
        slug = self.request.query_params.get("ladder")
        if slug:
            ladders = {pk: ladder for pk, ladder in ladders.items() if ladder.slug == slug}
            if not ladders:
                raise Http404("No such player.")
        self.ladders = ladders
        return RatingChange.objects.history(player).filter(ladder_id__in=list(ladders))

    def list(self, request: Request, *args: object, **kwargs: object) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        assert page is not None  # always paginated
        hidden = access.unseen(viewer_for(request), self.ladders)
        entries = histories.history_entries(page, self.ladders, hidden)
        return self.get_paginated_response(self.get_serializer(entries, many=True).data)


class PredictView(APIView):
    """RATINGS.md §6: the probability that side A beats side B on a ladder, from current ratings."""

    authentication_classes = API_AUTHENTICATION
    permission_classes = [permissions.AllowAny]

    def _predict(self, request: Request, data: Mapping[str, object]) -> Response:
        serializer = PredictInputSerializer(data=data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        values = serializer.validated_data
        nothing = {"probability": None, "quality": None, "stakes": None}
        if not values["complete"]:
            return Response(nothing)
        lineup = (values["ladder"], values["side_a"], values["side_b"])
        on = values.get("on") or timezone.localdate()
        prediction = predictions.predict_sides(*lineup, on)
        if prediction is None:
            return Response(nothing)
        stakes = stakes_for_lineup(*lineup, on)
        body: dict[str, object] = {
            "probability": prediction.probability,
            "quality": prediction.quality,
        }
        body["stakes"] = None if stakes is None else StakesSerializer(stakes).data
        return Response(body)

    @extend_schema(
        summary="Predicted win probability (query parameters)",
        parameters=[
            # A slug, as PredictInputSerializer's SlugField reads it: blank is refused.
            OpenApiParameter(
                "ladder",
                {"type": "string", "minLength": 1, "maxLength": 80, "pattern": "^[-a-zA-Z0-9_]+$"},
                required=True,
                description="The ladder's slug.",
            ),
            OpenApiParameter(
                "side_a", str, many=True, description="Usernames, repeated or comma-separated."
            ),
            OpenApiParameter(
                "side_b", str, many=True, description="Usernames, repeated or comma-separated."
            ),
            OpenApiParameter("on", OpenApiTypes.DATE, description="Default: today."),
        ],
        responses={200: PredictionSerializer, 400: FIELD_ERRORS, 404: ERROR},
    )
    def get(self, request: Request) -> Response:
        params = request.query_params

        def names(key: str) -> list[str]:
            return [n.strip() for v in params.getlist(key) for n in v.split(",") if n.strip()]

        slug = params.get("ladder", "")
        if slug_re.match(slug):  # the ladder the answer is about: unknown to you is a 404
            access.ladder_or_404(viewer_for(request), slug)
        data = {
            "ladder": slug,
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


@extend_schema(tags=["ratings"], responses=SeasonSerializer(many=True))
class SeasonListView(APIView):
    """A ladder's seasons, newest first (RULES.md "Seasons")."""

    authentication_classes = API_AUTHENTICATION
    permission_classes = [permissions.AllowAny]

    def get(self, request: Request, slug: str) -> Response:
        ladder = access.ladder_or_404(viewer_for(request), slug)
        seasons = Season.objects.filter(ladder=ladder).select_related("ladder")
        context = {"request": request, "on": today()}
        return Response(SeasonSerializer(seasons, many=True, context=context).data)


@extend_schema(tags=["ratings"], responses=StandingSerializer(many=True))
class SeasonStandingsView(APIView):
    """A season's table: the stored one once the season is over, else as it stands now.
    Members hidden from the caller are left out and the others ranked without a gap."""

    authentication_classes = API_AUTHENTICATION
    permission_classes = [permissions.AllowAny]

    def get(self, request: Request, slug: str, season: str) -> Response:
        viewer = viewer_for(request)
        ladder = access.ladder_or_404(viewer, slug)
        found = get_object_or_404(
            Season.objects.select_related("ladder"), ladder=ladder, slug=season
        )
        rows = season_table(found, viewer)
        return Response(StandingSerializer(rows, many=True).data)
