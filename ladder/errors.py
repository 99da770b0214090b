"""Bad requests and errors for the whole site: a clear 4xx in the surface's own format
(JSON under /api/, a page elsewhere), never a 500 for something a client sent.

- ``RefuseBadInput``: a NUL byte anywhere in the address, the query string or a form or
  JSON body is refused with a 400 before any view sees it (PostgreSQL cannot store one,
  and no name, reason or slug has one); an API body over DATA_UPLOAD_MAX_MEMORY_SIZE is
  refused too (Django checks forms itself; DRF's parsers read the stream unchecked).
- ``page_not_found`` / ``server_error`` / ``bad_request``: the handlers of ladder/urls.py,
  JSON for /api/ addresses and Django's pages for the rest.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import unquote_to_bytes

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import loader
from django.views import defaults

NUL_MESSAGE = "The request contains a NUL character (\\0), which no field accepts."
API_PREFIX = "/api/"


def is_api(request: HttpRequest) -> bool:
    return request.path_info.startswith(API_PREFIX)


def refusal(request: HttpRequest, message: str, status: int = 400) -> HttpResponse:
    """A refused request: {"detail": message} for the API, the error page for the web."""
    if is_api(request):
        return JsonResponse({"detail": message}, status=status)
    template = loader.get_template("error.html")
    context = {"status": status, "message": message}
    return HttpResponse(template.render(context, request), status=status)


def _has_nul(raw: bytes) -> bool:
    return b"\x00" in raw or b"\x00" in unquote_to_bytes(raw)


class RefuseBadInput:
    """Refuse NUL bytes (and oversized API bodies) with a 400 before any view runs."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        path = request.META.get("PATH_INFO", "")
        query = request.META.get("QUERY_STRING", "")
        if "\x00" in path or _has_nul(query.encode("latin-1", "replace")):
            return refusal(request, NUL_MESSAGE)
        content_type = request.content_type or ""
        if request.method in ("POST", "PUT", "PATCH") and not content_type.startswith("multipart/"):
            try:
                body = request.body  # enforces DATA_UPLOAD_MAX_MEMORY_SIZE
            except RequestDataTooBig:
                limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
                return refusal(request, f"The request body is larger than {limit} bytes.", 413)
            if _has_nul(body) or (
                "json" in content_type and b"\\u0000" in body.replace(b"\\\\", b"")
            ):
                return refusal(request, NUL_MESSAGE)
        return self.get_response(request)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api(request):
        return JsonResponse({"detail": "Bad request."}, status=400)
    return defaults.bad_request(request, exception)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api(request):
        return JsonResponse({"detail": "Not found."}, status=404)
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    if is_api(request):
        return JsonResponse({"detail": "Server error."}, status=500)
    return defaults.server_error(request)
