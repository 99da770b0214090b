"""Site addresses (RULES.md "Addresses").

The probes /healthz and /readyz are answered by ``ladder.health.ProbeMiddleware``, ahead of
the host check and the HTTPS redirect, so they are not listed here.
"""

from csp.constants import SELF, UNSAFE_INLINE
from csp.decorators import csp_update
from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)

from ladder import views
from ladder.clubs import views as club_views
from ladder.matches import report_views
from ladder.matches import views as match_views
from ladder.play import views as play_views

# The API docs pages run third-party bundles (drf-spectacular-sidecar): Swagger UI's set-up
# script is served as a file (the split view), but both it and Redoc write inline styles,
# and Redoc searches in a Web Worker it makes from a blob. Only these two pages get that.
api_docs_csp = csp_update({"style-src": [UNSAFE_INLINE], "worker-src": [SELF, "blob:"]})

urlpatterns = [
    path("", views.home, name="home"),
    path("accounts/profile/", club_views.profile, name="profile"),
    path("accounts/", include("accounts.urls")),
    path("ladders/", include("ladder.ladder_urls")),
    path("", include("ratings.urls")),  # /players/<username>/, /ladders/<slug>/head-to-head/
    path("matches/<int:pk>/", match_views.match_detail, name="match_detail"),
    path("matches/<int:pk>/confirm/", match_views.confirm, name="match_confirm"),
    path("matches/<int:pk>/dispute/", match_views.dispute, name="match_dispute"),
    path("matches/<int:pk>/cancel/", match_views.cancel, name="match_cancel"),
    path("matches/<int:pk>/edit/", match_views.edit, name="match_edit"),
    path("matches/<int:pk>/resolve/", match_views.resolve, name="match_resolve"),
    path("matches/<int:pk>/correct/", match_views.correct, name="match_correct"),
    path("matches/<int:pk>/void/", match_views.void, name="match_void"),
    path("report/", report_views.report_start, name="report_start"),
    path("inbox/", match_views.inbox, name="inbox"),
    path("notifications/", match_views.notifications, name="notifications"),
    path(
        "notifications/settings/",
        match_views.notification_settings,
        name="notification_settings",
    ),
    path(
        "notifications/read-all/",
        match_views.notifications_read_all,
        name="notifications_read_all",
    ),
    path("inbox/badge/", match_views.inbox_badge, name="inbox_badge"),
    path("moderation/", match_views.moderation, name="moderation"),
    path("challenges/", play_views.challenges, name="challenges"),
    path("challenges/<int:pk>/ics/", play_views.challenge_ics, name="challenge_ics"),
    path(
        "challenges/<int:pk>/<slug:action>/",
        play_views.challenge_action,
        name="challenge_action",
    ),
    path("open-games/<int:pk>/ics/", play_views.open_game_ics, name="open_game_ics"),
    path(
        "open-games/<int:pk>/<slug:action>/",
        play_views.open_game_action,
        name="open_game_action",
    ),
    path("calendar/", play_views.calendar_settings, name="calendar"),
    path("calendar/<str:token>.ics", play_views.calendar_feed, name="calendar_feed"),
    path("admin/", admin.site.urls),
    # Browsers ask for /favicon.ico whatever the pages link (feed readers, bookmarks, tabs
    # opened on a JSON answer): the icon the pages use.
    path("favicon.ico", views.favicon, name="favicon"),
    path("api/v1/", include("ladder.api_urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path(
        "api/docs/",
        api_docs_csp(SpectacularSwaggerSplitView.as_view(url_name="api-schema")),
        name="api-docs",
    ),
    path(
        "api/redoc/",
        api_docs_csp(SpectacularRedocView.as_view(url_name="api-schema")),
        name="api-redoc",
    ),
]

# JSON for /api/ addresses, Django's pages elsewhere (core/refusals.py).
handler400 = "core.refusals.bad_request"
handler404 = "core.refusals.page_not_found"
handler500 = "core.refusals.server_error"
