"""Bad requests and errors for the whole site: a clear 4xx in the surface's own format
(JSON under /api/, a page elsewhere), never a 500 for something a client sent.

- ``RefuseBadInput``: a NUL byte anywhere in the address, the query string or a form
  (url-encoded or multipart), JSON or other body is refused with a 400 before any view sees
  it (PostgreSQL cannot store one, and no name, reason or slug has one). Every body, of any
  content type, is held to one limit, DATA_UPLOAD_MAX_MEMORY_SIZE: a larger one is refused
  with a 413 from its Content-Length, before a byte of it is read or spooled (Django checks
  only the non-file parts of a form; DRF's parsers read the stream unchecked), and a body
  without a length (chunked) with a 411. The proxy in front should refuse the same size
  (nginx: ``client_max_body_size 256k;``; docs/DEPLOY.md "The proxy").
- ``page_not_found`` / ``server_error`` / ``bad_request``: the handlers of ladder/urls.py,
  JSON for /api/ addresses and Django's pages for the rest.
- ``form_action``: a button's view (POST only, signed in). A visit to its address gets a
  page saying nothing was changed (405), not an empty answer; signed out, the sign-in page
  returns to the page the button was on.
- ``DomainErrorPages``: the pages' one translation of the site's domain errors
  (``core/errors.py``) that a view leaves to it: a permission refused is the 403 page
  (``forbidden``), any other the error page with the error's status (a 429 with
  Retry-After). A view still catches what it shows in its own way (a form's field errors,
  a message on the page it returns to). The API has its own, ``api_support.exception_handler``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from urllib.parse import unquote_to_bytes, urlsplit

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import loader
from django.utils.http import url_has_allowed_host_and_scheme
from django.views import defaults

from core import errors

NUL_MESSAGE = "The request contains a NUL character (\\0), which no field accepts."
TOO_LARGE_MESSAGE = "The request body is larger than {limit} KB, the most this site accepts."
LENGTH_REQUIRED_MESSAGE = "Send the request body with a Content-Length header."
API_PREFIX = "/api/"
FORM_ACTION_MESSAGE = (
    "This address belongs to a button, so opening it changes nothing. Go back to the page "
    "and press the button again."
)


def is_api(request: HttpRequest) -> bool:
    return request.path_info.startswith(API_PREFIX)


def refusal(request: HttpRequest, message: str, status: int = 400) -> HttpResponse:
    """A refused request: {"detail": message} for the API, the error page for the web."""
    if is_api(request):
        return JsonResponse({"detail": message}, status=status)
    template = loader.get_template("error.html")
    context = {"status": status, "message": message}
    return HttpResponse(template.render(context, request), status=status)


def forbidden(request: HttpRequest, message: str) -> HttpResponse:
    """The 403 page (or, for HTMX, just the message) explaining what is not allowed."""
    htmx = getattr(request, "htmx", False)
    name = "matches/_refusal.html" if htmx else "forbidden.html"
    return HttpResponse(loader.get_template(name).render({"message": message}, request), status=403)


class DomainErrorPages:
    """A domain error a page's view did not catch, as a page: 403 for a permission refused,
    else the error page with the error's status and message."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exc: Exception) -> HttpResponse | None:
        if not isinstance(exc, errors.DomainError):
            return None
        if isinstance(exc, errors.DomainPermissionError):
            return forbidden(request, exc.message)
        response = refusal(request, exc.message, exc.status)
        if isinstance(exc, errors.DomainRateLimited):
            response["Retry-After"] = str(exc.retry_after)
        return response


def form_action(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A button's view: POST only, for a signed-in user.

    A visit (GET or HEAD: a link followed, an address typed, or the sign-in page returning
    to it) is answered 405 with ``Allow: POST`` and a page saying nothing was changed. A
    signed-out POST (an expired session at the court) goes to the sign-in page, which then
    returns to the page the button was on (the Referer, when it is this site's), where the
    button can be pressed again; not to this address, which a visit cannot use.
    """

    @wraps(view)
    def wrapped(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        if request.method != "POST":
            response = refusal(request, FORM_ACTION_MESSAGE, 405)
            response["Allow"] = "POST"
            return response
        if not request.user.is_authenticated:
            return redirect_to_login(_page_of_button(request))
        return view(request, *args, **kwargs)

    return wrapped


def _page_of_button(request: HttpRequest) -> str:
    """The path of the page a form was posted from (its Referer, on this site), else "/"."""
    referer = request.headers.get("referer", "")
    if referer and url_has_allowed_host_and_scheme(
        referer, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        parts = urlsplit(referer)
        return parts.path + (f"?{parts.query}" if parts.query else "")
    return "/"


def _has_nul(raw: bytes) -> bool:
    return b"\x00" in raw or b"\x00" in unquote_to_bytes(raw)


class RefuseBadInput:
    """Refuse NUL bytes (400), oversized bodies (413) and bodies of unknown length (411) before
    any view runs."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        path = request.META.get("PATH_INFO", "")
        query = request.META.get("QUERY_STRING", "")
        if "\x00" in path or _has_nul(query.encode("latin-1", "replace")):
            return refusal(request, NUL_MESSAGE)
        size = _body_size(request)
        if size is None:
            return refusal(request, LENGTH_REQUIRED_MESSAGE, 411)
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if size > limit:
            return refusal(request, TOO_LARGE_MESSAGE.format(limit=limit // 1024), 413)
        content_type = request.content_type or ""
        if size:
            body = request.body  # within the limit: read into memory (a form is parsed from it)
            if content_type.startswith("multipart/"):  # no file uploads here: all text
                refused = b"\x00" in body
            else:
                refused = _has_nul(body) or (
                    "json" in content_type and b"\\u0000" in body.replace(b"\\\\", b"")
                )
            if refused:
                return refusal(request, NUL_MESSAGE)
        return self.get_response(request)


def _body_size(request: HttpRequest) -> int | None:
    """The declared size of the request's body (0: none); None for a body sent without a
    Content-Length (chunked), which Django would read as empty."""
    declared = request.META.get("CONTENT_LENGTH") or ""
    if not declared:
        return None if request.META.get("HTTP_TRANSFER_ENCODING") else 0
    try:
        return max(int(declared), 0)
    except ValueError:
        return None


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
