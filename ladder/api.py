"""API views for ladders; the same visibility rules as the pages."""

from __future__ import annotations

from rest_framework import permissions, viewsets

from ladder.models import Ladder, LadderQuerySet
from ladder.serializers import LadderSerializer


class LadderViewSet(viewsets.ReadOnlyModelViewSet):
    """Ladders you may see: public ones, plus private ones you belong to (all for moderators)."""

    serializer_class = LadderSerializer
    lookup_field = "slug"
    permission_classes = [permissions.AllowAny]

    def get_queryset(self) -> LadderQuerySet:
        user = self.request.user
        return (
            Ladder.objects.visible_to(user)
            .with_member_count()
            .with_is_member(user)
            .order_by("name")
        )
