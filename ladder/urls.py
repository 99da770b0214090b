"""Site addresses (PRODUCT.md "Addresses").

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

from ladder import views, views_matches

# The API docs pages run third-party bundles (drf-spectacular-sidecar): Swagger UI's set-up
# script is served as a file (the split view), but both it and Redoc write inline styles,
# and Redoc searches in a Web Worker it makes from a blob. Only these two pages get that.
api_docs_csp = csp_update({"style-src": [UNSAFE_INLINE], "worker-src": [SELF, "blob:"]})

urlpatterns = [
    path("", views.home, name="home"),
    path("accounts/", include("accounts.urls")),
    path("ladders/", include("ladder.ladder_urls")),
    path("", include("ratings.urls")),  # /players/<username>/, /ladders/<slug>/head-to-head/
    path("matches/<int:pk>/", views_matches.match_detail, name="match_detail"),
    path("matches/<int:pk>/confirm/", views_matches.confirm, name="match_confirm"),
    path("matches/<int:pk>/dispute/", views_matches.dispute, name="match_dispute"),
    path("matches/<int:pk>/cancel/", views_matches.cancel, name="match_cancel"),
    path("matches/<int:pk>/resolve/", views_matches.resolve, name="match_resolve"),
    path("matches/<int:pk>/correct/", views_matches.correct, name="match_correct"),
    path("matches/<int:pk>/void/", views_matches.void, name="match_void"),
    path("inbox/", views_matches.inbox, name="inbox"),
    path("inbox/badge/", views_matches.inbox_badge, name="inbox_badge"),
    path("moderation/", views_matches.moderation, name="moderation"),
    path("admin/", admin.site.urls),
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

# JSON for /api/ addresses, Django's pages elsewhere (ladder/errors.py).
handler400 = "ladder.errors.bad_request"
handler404 = "ladder.errors.page_not_found"
handler500 = "ladder.errors.server_error"
