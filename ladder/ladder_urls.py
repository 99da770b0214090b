"""Ladder pages under /ladders/, from each app that has one (the project composes them)."""

from __future__ import annotations

from django.urls import path

from ladder.clubnight import score_views as clubnight_score_views
from ladder.clubnight import views as clubnight_views
from ladder.clubs import views as club_views
from ladder.integrity import views as integrity_views
from ladder.matches import report_views
from ladder.play import views as play_views
from ratings import views as rating_views

app_name = "ladder"

urlpatterns = [
    path("", club_views.ladder_list, name="list"),
    path("<slug:slug>/", rating_views.ladder_detail, name="detail"),
    path("<slug:slug>/join/", club_views.join, name="join"),
    path("<slug:slug>/away/", club_views.away, name="away"),
    path("<slug:slug>/seasons/", rating_views.seasons, name="seasons"),
    path("<slug:slug>/seasons/<slug:season>/", rating_views.season, name="season"),
    path("<slug:slug>/seasons/<slug:season>/edit/", rating_views.edit_season, name="edit_season"),
    path("<slug:slug>/report/", report_views.report, name="report"),
    path("<slug:slug>/report/validate/", report_views.report_validate, name="report_validate"),
    path("<slug:slug>/players/", report_views.player_search, name="player_search"),
    path("<slug:slug>/club-night/", clubnight_views.club_night, name="club_night"),
    # The club night page's buttons, one address each (POST only).
    path(
        "<slug:slug>/club-night/rounds/propose/",
        clubnight_views.propose_round,
        name="club_night_propose",
    ),
    path(
        "<slug:slug>/club-night/rounds/start-over/",
        clubnight_views.start_over,
        name="club_night_start_over",
    ),
    path(
        "<slug:slug>/club-night/guests/add/",
        clubnight_views.add_guest,
        name="club_night_add_guest",
    ),
    path(
        "<slug:slug>/club-night/guests/remove/",
        clubnight_views.remove_guest,
        name="club_night_remove_guest",
    ),
    path(
        "<slug:slug>/club-night/rounds/<int:number>/scores/",
        clubnight_score_views.round_scores,
        name="club_night_scores",
    ),
    path(
        "<slug:slug>/club-night/rounds/<int:number>/courts/<int:court>/correct/",
        clubnight_score_views.correct_score,
        name="club_night_correct",
    ),
    path("<slug:slug>/integrity/", integrity_views.integrity, name="integrity"),
    path(
        "<slug:slug>/integrity/<int:flag_id>/",
        integrity_views.decide,
        name="integrity_decide",
    ),
    path("<slug:slug>/bans/", integrity_views.ban, name="integrity_ban"),
    path("<slug:slug>/bans/<str:username>/lift/", integrity_views.lift, name="integrity_lift"),
    path("<slug:slug>/ban/", integrity_views.my_ban, name="my_ban"),
    path("<slug:slug>/challenge/", play_views.challenge_new, name="challenge"),
    path("<slug:slug>/open-games/", play_views.open_games, name="open_games"),
]
