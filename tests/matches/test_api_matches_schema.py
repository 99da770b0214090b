"""The OpenAPI schema validates without warnings, documents every /api/v1/ endpoint, and the
interactive docs are served from this site (no CDN)."""

from __future__ import annotations

import re

import pytest
from django.contrib.staticfiles import finders
from django.core.management import call_command
from django.urls import URLPattern, URLResolver, get_resolver


def test_the_schema_validates_without_warnings(db, tmp_path):
    out = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    assert "/api/v1/matches/{id}/confirm/" in out.read_text()


def _routes(patterns, prefix=""):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _routes(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            yield prefix + str(pattern.pattern), pattern


def _as_openapi(route: str) -> str:
    route = route.replace("^", "").replace("$", "")
    route = re.sub(r"\(\?P<(\w+)>[^)]*\)", r"{\1}", route)  # router regexes
    route = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route)  # path() converters
    return "/" + route.replace("{pk}", "{id}")


def api_routes():
    routes = set()
    for route, pattern in _routes(get_resolver().url_patterns):
        if not route.startswith("api/v1/"):
            continue
        if "(?P<format>" in route or "\\.(?P" in route:
            continue  # ".json" suffix variants of the same endpoints
        if pattern.name == "api-root":
            continue  # the browsable index of the router, not an endpoint
        routes.add(_as_openapi(route))
    return routes


def test_every_api_endpoint_is_in_the_schema(client, db):
    response = client.get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    documented = set(response.json()["paths"])
    routes = api_routes()
    expected = {
        "/api/v1/matches/",
        "/api/v1/matches/{id}/",
        *(
            f"/api/v1/matches/{{id}}/{a}/"
            for a in ("confirm", "dispute", "cancel", "resolve", "correct", "void")
        ),
        "/api/v1/inbox/",
        "/api/v1/players/",
        "/api/v1/players/{username}/",
        "/api/v1/predict/",
        "/api/v1/auth/token/",
        "/api/v1/ladders/",
    }
    assert expected <= routes
    assert routes - documented == set()


MATCH_ENDPOINTS = (
    "/api/v1/matches/",
    "/api/v1/matches/{id}/",
    *(
        f"/api/v1/matches/{{id}}/{a}/"
        for a in ("confirm", "dispute", "cancel", "resolve", "correct", "void")
    ),
    "/api/v1/inbox/",
    "/api/v1/players/",
    "/api/v1/players/{username}/",
    "/api/v1/predict/",
    "/api/v1/auth/token/",
)


def test_the_match_endpoints_document_summaries_and_errors(client, db):
    paths = client.get("/api/schema/", {"format": "json"}).json()["paths"]
    for path in MATCH_ENDPOINTS:
        for method, operation in paths[path].items():
            assert operation.get("summary"), (method, path)
            assert {"200", "201", "204"} & set(operation["responses"]), (method, path)
            if method == "post" and path.startswith("/api/v1/matches/{id}/"):
                assert {"400", "401", "403", "404", "409"} <= set(operation["responses"]), path


@pytest.mark.parametrize("page", ["/api/docs/", "/api/redoc/"])
def test_the_docs_are_served_offline(client, db, page):
    response = client.get(page)
    assert response.status_code == 200
    html = response.content.decode()
    references = re.findall(r"""(?:src|href)\s*=\s*["']([^"']+)["']""", html)
    assert references
    for ref in references:
        assert not re.match(r"^(https?:)?//", ref), f"{page} loads {ref} from another host"
    assert not re.search(
        r"https?://(?!127\.0\.0\.1|localhost|testserver)[\w.-]+",
        html.replace("http://www.w3.org", ""),
    ), "an external URL in the page"
    for ref in references:
        if ref.startswith("/static/"):
            assert finders.find(ref.removeprefix("/static/")), f"{ref} is not a static file here"
    if "?script=" in html:  # Swagger UI's set-up script is a file (the CSP allows no inline one)
        html = client.get(page, {"script": ""}).content.decode()
    assert "/api/schema/" in html
