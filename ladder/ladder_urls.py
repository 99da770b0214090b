"""Ladder pages under /ladders/."""

from __future__ import annotations

from django.urls import path

from ladder import views, views_clubnight, views_matches

app_name = "ladder"

urlpatterns = [
    path("", views.ladder_list, name="list"),
    path("<slug:slug>/", views.ladder_detail, name="detail"),
    path("<slug:slug>/join/", views.join, name="join"),
    path("<slug:slug>/report/", views_matches.report, name="report"),
    path("<slug:slug>/report/validate/", views_matches.report_validate, name="report_validate"),
    path("<slug:slug>/players/", views_matches.player_search, name="player_search"),
    path("<slug:slug>/club-night/", views_clubnight.club_night, name="club_night"),
]
