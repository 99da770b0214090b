"""The REST API under /api/v1/ (namespace "api")."""

from __future__ import annotations

from rest_framework.routers import DefaultRouter

from ladder.api import LadderViewSet

app_name = "api"

router = DefaultRouter()
router.register("ladders", LadderViewSet, basename="ladder")

urlpatterns = router.urls
