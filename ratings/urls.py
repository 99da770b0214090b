"""Rating pages: /players/<username>/ and /ladders/<slug>/head-to-head/.

The leaderboard itself is the ladder page, /ladders/<slug>/ (ratings.views.ladder_detail, listed in ladder/ladder_urls.py).
"""

from __future__ import annotations

from django.urls import path

from ratings import views

app_name = "ratings"

urlpatterns = [
    path("players/<str:username>/", views.player, name="player"),
    path("ladders/<slug:slug>/head-to-head/", views.head_to_head, name="head_to_head"),
]
