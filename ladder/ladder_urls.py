"""Ladder pages under /ladders/, from each app that has one (the project composes them)."""

from __future__ import annotations

from django.urls import path

from ladder.clubnight import views as clubnight_views
from ladder.clubs import views as club_views
from ladder.matches import report_views
from ratings import views as rating_views

app_name = "ladder"

urlpatterns = [
    path("", club_views.ladder_list, name="list"),
    path("<slug:slug>/", rating_views.ladder_detail, name="detail"),
    path("<slug:slug>/join/", club_views.join, name="join"),
    path("<slug:slug>/report/", report_views.report, name="report"),
    path("<slug:slug>/report/validate/", report_views.report_validate, name="report_validate"),
    path("<slug:slug>/players/", report_views.player_search, name="player_search"),
    path("<slug:slug>/club-night/", clubnight_views.club_night, name="club_night"),
]
