"""The API's OpenAPI schema: drf-spectacular's, with the errors every endpoint can answer.

REST_FRAMEWORK's DEFAULT_SCHEMA_CLASS (settings.py).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiResponse, inline_serializer
from rest_framework import serializers

ERROR = inline_serializer("Error", {"detail": serializers.CharField()})
FIELD_ERRORS = OpenApiResponse(
    {"type": "object", "additionalProperties": True},
    description='Bad input: field → messages, e.g. {"games": ["Game 1: 21-20 is not a valid '
    'badminton game to 21: a game won at 21 needs a 2-point lead."]}; problems that '
    'concern the whole request under non_field_errors, or {"detail": "…"}.',
)

# Statuses any endpoint can answer, whatever its own schema says: bad input (a NUL byte,
# an unreadable body, a bad page), a bad token, a refusal, a wrong address or page number,
# the throttles.
COMMON_ERRORS: dict[str, tuple[Any, str]] = {
    "400": (FIELD_ERRORS, "Bad input."),
    "401": (ERROR, "Not signed in, or the token is not valid."),
    "403": (ERROR, "You may not do this."),
    "404": (ERROR, "Not found: no such object, or not one you may see, or no such page."),
    "413": (ERROR, "The request body is too large."),
    "429": (ERROR, "Too many requests; try again later."),
}


class Schema(AutoSchema):
    """drf-spectacular's schema, with the errors every endpoint can answer documented."""

    def _get_response_bodies(self, direction: Any = "response") -> Any:
        responses = super()._get_response_bodies(direction)
        for code, (body, description) in COMMON_ERRORS.items():
            if code not in responses:
                if isinstance(body, OpenApiResponse):
                    body, description = body.response, body.description
                responses[code] = self._get_response_for_code(
                    OpenApiResponse(body, description=description), code, direction=direction
                )
        return responses
