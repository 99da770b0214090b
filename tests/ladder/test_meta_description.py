"""Issue 37.6: every public page carries a meta description (Lighthouse SEO 91 without)."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from tests.factories import LadderFactory, MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db

META = re.compile(r'<meta name="description" content="([^"]+)">')


def test_public_pages_describe_themselves() -> None:
    ladder = LadderFactory(name="Club Singles", slug="singles")
    MembershipFactory(ladder=ladder, user=UserFactory(username="ann", display_name="Ann Lee"))
    client = Client()
    found = {}
    for url in ("/", "/ladders/", "/ladders/singles/", "/players/ann/", "/accounts/login/"):
        response = client.get(url)
        assert response.status_code == 200, url
        match = META.search(response.content.decode())
        assert match and len(match.group(1)) > 50, url
        found[url] = match.group(1)
    assert found["/ladders/singles/"].startswith("Club Singles: the leaderboard")
    assert found["/players/ann/"].startswith("Ann Lee on the club ladder")
