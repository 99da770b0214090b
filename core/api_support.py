"""What every API endpoint shares: how it parses a body, pages a list, handles errors and
documents them (REST_FRAMEWORK in settings.py names these classes).

The rule for bad input is one for the whole API: a 4xx with a JSON body that says what is
wrong, never a 500 and never an HTML page, and every status a client can meet is in the
schema (core/api_schema.py; tests/ladder/test_api_fuzz.py checks both with schemathesis).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime
from typing import IO, TYPE_CHECKING, Any, TypeVar

from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.db.models import Model, QuerySet
from drf_spectacular.utils import extend_schema_field
from rest_framework import exceptions, parsers, renderers, serializers, status
from rest_framework.exceptions import ErrorDetail
from rest_framework.fields import empty
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings

from core import errors
from core.inputs import BadInput, parse_day, parse_instant

# What the schema says of text a request sends (core/api_schema.py puts it on every string
# of a request): no NUL byte anywhere (RefuseBadInput, core/refusals.py, refuses a request
# with one before any view reads it), and, where a blank value is refused, one character at
# least that is not a space (DRF trims the spaces first).
NO_NUL = "^[^\\u0000]*$"
NOT_BLANK = "^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$"

if TYPE_CHECKING:
    from rest_framework.views import APIView

_M = TypeVar("_M", bound=Model)
_Row = TypeVar("_Row")


class JSONParser(parsers.JSONParser):
    """JSON bodies; a body nested too deep to read is bad input, not a server error."""

    def parse(
        self,
        stream: IO[bytes],
        media_type: str | None = None,
        parser_context: Mapping[str, object] | None = None,
    ) -> dict[str, object]:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise exceptions.ParseError(
                "JSON parse error - the body is nested too deeply."
            ) from None


class InputSerializer(serializers.Serializer):
    # A request's body: a field it does not read is refused, as the schema says
    # (additionalProperties: false), rather than dropped in silence (a misspelt "reasn").
    # (A comment, not a docstring: the schema would give it as each body's description.)

    def to_internal_value(self, data: object) -> Mapping[str, object]:
        if isinstance(data, Mapping):
            known = [name for name, field in self.fields.items() if not field.read_only]
            unknown = [key for key in data if key not in known]
            if unknown:
                names = ", ".join(repr(key) for key in unknown[:5])
                raise serializers.ValidationError(
                    {
                        api_settings.NON_FIELD_ERRORS_KEY: [
                            f"Unknown field {names}: this request reads only {', '.join(known)}."
                        ]
                    }
                )
        return super().to_internal_value(data)


class TextField(serializers.CharField):
    """A string, as the schema says (type: string): DRF's CharField turns a number into its
    digits ("reason": 0 → "0"), input the schema calls invalid."""

    def to_internal_value(self, data: object) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return str(super().to_internal_value(data))


@extend_schema_field({"type": "string", "minLength": 1, "pattern": NOT_BLANK})
class ReasonField(TextField):
    """A reason or note people read, required, as the schema says (NOT_BLANK): a blank one
    goes on to the domain, which refuses it in its own words ("Say what is wrong…")."""

    def run_validation(self, data: object = empty) -> str:
        if isinstance(data, str) and not data.strip():
            return ""
        return super().run_validation(data)


@extend_schema_field({"type": "string", "format": "date"})
class DayField(serializers.Field[date, object, str | None, object]):
    """A day in a body, ``YYYY-MM-DD`` in the years 1900–2100: the one parser of days
    (``core/inputs.py``), as the web forms read it."""

    def to_internal_value(self, data: object) -> date:
        try:
            return parse_day(data, "The date")
        except BadInput as exc:
            raise serializers.ValidationError(exc.message, code="invalid") from None

    def to_representation(self, value: date | None) -> str | None:
        return value.isoformat() if value is not None else None


@extend_schema_field({"type": "string", "format": "date-time"})
class InstantField(serializers.Field[datetime, object, str | None, object]):
    """An instant in a body (ISO 8601; without an offset, the club's time): the one parser
    of instants (``core/inputs.py``: years 1900–2100, offsets within ±14:00)."""

    def to_internal_value(self, data: object) -> datetime:
        try:
            return parse_instant(data, "The time")
        except BadInput as exc:
            raise serializers.ValidationError(exc.message, code="invalid") from None

    def to_representation(self, value: datetime | None) -> str | None:
        return value.isoformat() if value is not None else None


class QueryChoiceField(serializers.ChoiceField):
    """A query parameter with a fixed set of values: left out, it takes its default; sent
    blank (``status=``), it is refused as the schema's enum says, not read as left out."""

    def get_value(self, dictionary: Mapping[str, object]) -> object:
        return dictionary.get(self.field_name or "", empty)  # named once bound


class BrowsableAPIRenderer(renderers.BrowsableAPIRenderer):
    """DRF's browsable API within the site's Content-Security-Policy (no inline style).

    Its code colours come from static/css/api-code.css (``templates/rest_framework/
    ladder_api.html``) instead of DRF's inline ``<style>``. DRF's own template still floats
    two buttons (a view's extra actions, the filters) with one inline ``style`` attribute:
    the page's policy allows exactly that attribute by its hash, nothing else inline."""

    template = "rest_framework/ladder_api.html"
    # sha256 of DRF's style="float: right; margin-right: 10px" (rest_framework/base.html).
    FLOAT_RIGHT = "'sha256-OfgyIBrd+/vP79JdFMYP+re4T+fIenvkrHPD2HZ8/cs='"

    def get_context(
        self, data: object, accepted_media_type: str | None, renderer_context: Mapping[str, Any]
    ) -> dict[str, object]:
        context = super().get_context(data, accepted_media_type, renderer_context)
        response = renderer_context["response"]
        response._csp_update = {"style-src-attr": ["'unsafe-hashes'", self.FLOAT_RIGHT]}
        return context


class Pagination(PageNumberPagination):
    """`page` is a whole number from 1; anything else is a 400 that says so (DRF's own
    paginator answers 404 for `page=abc` and reads `page=` as page 1)."""

    def paginate_queryset(
        self, queryset: QuerySet[_M, _Row], request: Request, view: APIView | None = None
    ) -> list[_Row] | None:
        raw = request.query_params.get(self.page_query_param)
        if raw is not None and not (raw.isascii() and raw.isdigit() and 0 < int(raw) < 10**9):
            raise exceptions.ValidationError(
                {self.page_query_param: ["A page is a whole number from 1."]}
            )
        return super().paginate_queryset(queryset, request, view)

    def get_paginated_response_schema(self, schema: dict[str, object]) -> dict[str, object]:
        result = super().get_paginated_response_schema(schema)
        result["required"] = ["count", "next", "previous", "results"]
        return result

    def get_schema_operation_parameters(self, view: APIView) -> list[dict[str, object]]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_query_param:
                parameter["schema"] = {"type": "integer", "minimum": 1, "maximum": 10**9 - 1}
        return parameters


class Conflict(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "The state does not allow this now."
    default_code = "conflict"


def api_error(exc: errors.DomainError, rename: Mapping[str, str] | None = None) -> Exception:
    """The DRF exception for a domain error (``core/errors.py``): 400 with the messages
    by field (named as the API calls them: ``rename``), 403, 404, 409, 429 with
    Retry-After, or the error's own status with its message."""
    if isinstance(exc, errors.DomainValidationError):
        names = {errors.ALL: api_settings.NON_FIELD_ERRORS_KEY, **(rename or {})}
        return exceptions.ValidationError(
            {names.get(field, field): messages for field, messages in exc.errors.items()}
        )
    if isinstance(exc, errors.DomainPermissionError):
        return exceptions.PermissionDenied(exc.message)
    if isinstance(exc, errors.DomainNotFound):
        return exceptions.NotFound(exc.message)
    if isinstance(exc, errors.DomainStateError):
        return Conflict(exc.message)
    if isinstance(exc, errors.DomainRateLimited):
        # DRF's handler sends the wait as Retry-After (seconds).
        return exceptions.Throttled(wait=exc.retry_after, detail=exc.message)
    error = exceptions.APIException(exc.message)
    error.status_code = exc.status
    return error


def exception_handler(exc: Exception, context: dict[str, object]) -> Response | None:
    """DRF's handler, plus the site's domain errors (``api_error``: the one place the API
    translates them; a view may name its fields for the API with ``error_fields``, per
    action) and Django's bad-request errors (a body over the size limit, a malformed
    multipart) as a 400 with a message instead of a 500."""
    # Not at the top: REST_FRAMEWORK names this module's parser, which rest_framework.views
    # imports while it is itself being imported.
    from rest_framework.views import exception_handler as drf_exception_handler

    if isinstance(exc, errors.DomainError):
        view = context.get("view")
        renames = getattr(view, "error_fields", {})
        exc = api_error(exc, renames.get(getattr(view, "action", None) or "", {}))
    elif isinstance(exc, RequestDataTooBig):
        exc = exceptions.ParseError("The request body is too large.")
    elif isinstance(exc, SuspiciousOperation):
        exc = exceptions.ParseError("The request could not be read.")
    response = drf_exception_handler(exc, context)
    if response is not None:
        response.data = _bounded(response.data)
    return response


MAX_ECHO = 300  # characters of any one message: an error never sends a client's megabytes back


def _bounded(data: object) -> object:
    if isinstance(data, str) and len(data) > MAX_ECHO:
        return ErrorDetail(data[: MAX_ECHO - 1] + "…", code=getattr(data, "code", None))
    if isinstance(data, dict):
        return {_bounded(k): _bounded(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_bounded(v) for v in data]
    return data
