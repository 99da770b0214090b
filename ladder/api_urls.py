"""The REST API under /api/v1/ (namespace "api")."""

from __future__ import annotations

from django.urls import path
from rest_framework.routers import DefaultRouter

from accounts.api import TokenView
from ladder.clubnight.api import ClubNightView
from ladder.clubs.api import LadderViewSet, PlayerViewSet
from ladder.matches.api import InboxView, MatchViewSet
from ratings.api import HistoryView, LeaderboardView, PredictView

app_name = "api"

router = DefaultRouter()
router.register("ladders", LadderViewSet, basename="ladder")
router.register("matches", MatchViewSet, basename="match")
router.register("players", PlayerViewSet, basename="player")

urlpatterns = [
    path("ladders/<slug:slug>/leaderboard/", LeaderboardView.as_view(), name="leaderboard"),
    path("players/<str:username>/history/", HistoryView.as_view(), name="history"),
    path("predict/", PredictView.as_view(), name="predict"),
    path("ladders/<slug:slug>/club-night/", ClubNightView.as_view(), name="club-night"),
    path("inbox/", InboxView.as_view(), name="inbox"),
    path("auth/token/", TokenView.as_view(), name="token"),
    *router.urls,
]
