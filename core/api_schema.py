"""The API's OpenAPI schema: drf-spectacular's, with the errors every endpoint can answer,
and the rules of what a request may send that the validation holds (issue 22.10: the schema
and the validation agree, both ways; tests/ladder/test_api_fuzz.py checks it).

REST_FRAMEWORK's DEFAULT_SCHEMA_CLASS (settings.py). What a request may send:
- a body has only the fields it reads (``additionalProperties: false``; api_support's
  InputSerializer refuses any other);
- text has no NUL byte (``NO_NUL``), and text that may not be blank has a character that is
  not a space (``NOT_BLANK``): put on every string of a request body, query and path that
  has no pattern, enum or format of its own;
- slugs and usernames in a path have their patterns (slugs: PATH_CONVERTER_OVERRIDES in
  settings.py; USERNAME), so a well-formed one that names nothing you may see is a 404.
What no schema can say (a name that is no member, a score that is no game, a duplicate, the
date rules that depend on today and the ladder) stays a 400 with its message: docs/API.md
"Errors" lists them.
"""

from __future__ import annotations

from typing import Any, Literal

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiResponse, inline_serializer
from rest_framework import serializers

from core.api_support import NO_NUL, NOT_BLANK

USERNAME = "^[\\w.@+-]+$"  # accounts.User.username's validator (Django's)
USERNAME_PARAMETER = {"type": "string", "pattern": USERNAME, "maxLength": 150}
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
COMMON_ERRORS: dict[str, tuple[object, str]] = {  # a body (serializer or response), why
    "400": (FIELD_ERRORS, "Bad input."),
    "401": (ERROR, "Not signed in, or the token is not valid."),
    "403": (ERROR, "You may not do this."),
    "404": (ERROR, "Not found: no such object, or not one you may see, or no such page."),
    "413": (ERROR, "The request body is too large."),
    "429": (ERROR, "Too many requests; try again later."),
}


class Schema(AutoSchema):
    """drf-spectacular's schema, with the errors every endpoint can answer documented."""

    def _get_response_bodies(
        self, direction: Literal["request", "response"] = "response"
    ) -> dict[str, Any]:
        responses = super()._get_response_bodies(direction)
        for code, (body, description) in COMMON_ERRORS.items():
            if code not in responses:
                if isinstance(body, OpenApiResponse):
                    body, description = body.response, body.description
                responses[code] = self._get_response_for_code(
                    OpenApiResponse(body, description=description), code, direction=direction
                )
        return responses

    def _map_basic_serializer(
        self, serializer: Any, direction: Literal["request", "response"]
    ) -> Any:
        schema = super()._map_basic_serializer(serializer, direction)
        if direction == "request":
            schema["additionalProperties"] = False
            fields = serializer.fields
            for name, prop in schema.get("properties", {}).items():
                text_rules(prop, fields.get(name))
        return schema

    def _get_parameters(self) -> Any:
        parameters = super()._get_parameters()
        for parameter in parameters:
            text_rules(parameter.get("schema", {}), None)
        return parameters


def text_rules(schema: dict[str, Any], field: Any) -> None:
    """Put the rules of a request's text on ``schema`` (and its items): no NUL byte, and a
    character that is not a space where DRF refuses a blank value."""
    if isinstance(field, serializers.ListField) and isinstance(schema.get("items"), dict):
        text_rules(schema["items"], field.child)
    elif schema.get("type") == "array" and isinstance(schema.get("items"), dict):
        text_rules(schema["items"], None)
    if schema.get("type") != "string" or {"enum", "format", "pattern", "oneOf"} & set(schema):
        return
    if getattr(field, "read_only", False):
        return
    refuses_blank = isinstance(field, serializers.CharField) and not field.allow_blank
    if refuses_blank:
        schema["minLength"] = max(schema.get("minLength", 0), 1)
    schema["pattern"] = NOT_BLANK if refuses_blank and field.trim_whitespace else NO_NUL
