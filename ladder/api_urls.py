"""The REST API under /api/v1/ (namespace "api")."""

from __future__ import annotations

from django.urls import path
from rest_framework.routers import DefaultRouter

from accounts.api import TokenView
from ladder.clubnight.api import ClubNightView
from ladder.clubs.api import AwayView, LadderViewSet, PlayerViewSet
from ladder.integrity.api import BanDetailView, BansView, FlagDecisionView, IntegrityView
from ladder.matches.api import InboxView, MatchViewSet
from ladder.play import api as play
from ratings.api import (
    HistoryView,
    LeaderboardView,
    PredictView,
    SeasonListView,
    SeasonStandingsView,
)

app_name = "api"

router = DefaultRouter()
router.register("ladders", LadderViewSet, basename="ladder")
router.register("matches", MatchViewSet, basename="match")
router.register("players", PlayerViewSet, basename="player")

urlpatterns = [
    path("ladders/<slug:slug>/leaderboard/", LeaderboardView.as_view(), name="leaderboard"),
    path("players/<str:username>/history/", HistoryView.as_view(), name="history"),
    path("predict/", PredictView.as_view(), name="predict"),
    path("ladders/<slug:slug>/away/", AwayView.as_view(), name="away"),
    path("ladders/<slug:slug>/seasons/", SeasonListView.as_view(), name="seasons"),
    path(
        "ladders/<slug:slug>/seasons/<slug:season>/standings/",
        SeasonStandingsView.as_view(),
        name="season-standings",
    ),
    path("ladders/<slug:slug>/club-night/", ClubNightView.as_view(), name="club-night"),
    path("ladders/<slug:slug>/integrity/", IntegrityView.as_view(), name="integrity"),
    path(
        "ladders/<slug:slug>/integrity/<int:flag_id>/",
        FlagDecisionView.as_view(),
        name="integrity-decision",
    ),
    path("ladders/<slug:slug>/bans/", BansView.as_view(), name="bans"),
    path("ladders/<slug:slug>/bans/<str:username>/", BanDetailView.as_view(), name="ban"),
    path("inbox/", InboxView.as_view(), name="inbox"),
    path(
        "ladders/<slug:slug>/challenges/",
        play.LadderChallengesView.as_view(),
        name="ladder-challenges",
    ),
    path("challenges/", play.ChallengeListView.as_view(), name="challenges"),
    path("challenges/<int:pk>/", play.ChallengeDetailView.as_view(), name="challenge"),
    *(
        path(
            f"challenges/<int:pk>/{view.action_name}/",
            view.as_view(),
            name=f"challenge-{view.action_name}",
        )
        for view in (
            play.AcceptChallengeView,
            play.ProposeTimesView,
            play.DeclineChallengeView,
            play.CancelChallengeView,
        )
    ),
    path(
        "ladders/<slug:slug>/open-games/",
        play.LadderOpenGamesView.as_view(),
        name="ladder-open-games",
    ),
    *(
        path(
            f"open-games/<int:pk>/{name}/",
            play.OpenGameActionView.as_view(action_name=name),
            name=f"open-game-{name}",
        )
        for name in ("join", "leave", "cancel")
    ),
    path("me/calendar/", play.MyCalendarView.as_view(), name="my-calendar"),
    path("auth/token/", TokenView.as_view(), name="token"),
    *router.urls,
]
