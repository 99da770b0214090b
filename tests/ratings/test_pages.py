"""The leaderboard: the ladder page /ladders/<slug>/ (RULES.md "Ratings in the site")."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from ladder.clubs.access import VISITOR
from ratings import leaderboards
from ratings.engine.predict import inflated_rd
from ratings.engine.types import PlayerState
from ratings.models import PlayerRating, RatingChange
from ratings.pipeline import rate_ladder
from tests.factories import LadderFactory, MembershipFactory, UserFactory, hide
from tests.ratings.pages_support import NOON, TODAY, member, play, rated, row_of, season, text_of

HTMX = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "leaderboard"}


@pytest.fixture(autouse=True)
def frozen(time_machine):  # type: ignore[no-untyped-def]
    time_machine.move_to(NOON, tick=False)


@pytest.fixture
def board(db):  # type: ignore[no-untyped-def]
    """Five rated players at the edges of ranked / provisional / inactive, one unrated."""
    ladder = LadderFactory(name="Board", slug="board", lookback_days=90)
    users = {}
    for name, fields in {
        "ria": dict(rating=5200.0, rd=120.0, matches=5, wins=4, losses=1),
        "rob": dict(
            rating=4800.0,
            rd=60.0,
            matches=20,
            wins=12,
            losses=8,
            last_played=TODAY - timedelta(days=90),
        ),
        "pam": dict(rating=6000.0, rd=120.5, matches=30, wins=25, losses=5),
        "pat": dict(rating=5900.0, rd=50.0, matches=4, wins=4, losses=0),
        # RD 119 after the last match, three weeks ago: grown by 3 periods to 120.4 today.
        "ivy": dict(
            rating=5500.0,
            rd=119.0,
            matches=12,
            wins=6,
            losses=6,
            last_played=TODAY - timedelta(days=21),
        ),
        "ian": dict(
            rating=7004.9,
            rd=50.0,
            matches=40,
            wins=39,
            losses=1,
            last_played=TODAY - timedelta(days=91),
        ),
    }.items():
        users[name] = member(ladder, name, f"{name.capitalize()} Player")
        rated(ladder, users[name], **fields)
    users["una"] = member(ladder, "una", "Una Unrated", self_level="5.5", self_certainty="rated")
    return ladder, users


def statuses(response):  # type: ignore[no-untyped-def]
    return [(r.user.username, r.status, r.rank) for r in response.context["page"].object_list]


def test_ranked_provisional_and_inactive_apart_at_the_boundaries(client, board):
    ladder, users = board
    response = client.get("/ladders/board/")
    assert response.status_code == 200
    # RD exactly 120 today with exactly 5 matches: ranked; last played exactly lookback_days
    # ago (RD grown to 70 since): ranked. RD 120.5, 4 matches, or an RD of 119 grown to 120.4
    # by three idle weeks (RATINGS.md §8: RD after inflation to today): provisional; 91 days
    # ago: inactive. Each section by rating.
    assert statuses(response) == [
        ("ria", "ranked", 1),
        ("rob", "ranked", 2),
        ("pam", "provisional", None),
        ("pat", "provisional", None),
        ("ivy", "provisional", None),
        ("ian", "inactive", None),
    ]
    page = response.content.decode()
    sections = [
        page.index(f"section-head section-{s}") for s in ("ranked", "provisional", "inactive")
    ]
    assert sections == sorted(sections)
    assert "2 ranked · 3 provisional · 1 inactive" in text_of(page)
    ria = text_of(row_of(page, "Ria Player"))
    # ± RD in display units (RATINGS.md §8): RD 120 reads ± 0.12.
    assert ria.startswith("1 Ria Player 5.20 ± 0.12")
    assert "4–1 5" in ria
    assert TODAY.strftime("%-d %b %Y").lstrip("0") in ria or "1 Apr 2024" in ria
    # Half-up to two decimals: 7004.9 points read 7.00; no rank outside the ranked section.
    # The RD shown is grown for inactivity up to today: 50 after 13 idle weeks is 62.
    assert text_of(row_of(page, "Ian Player")).startswith("– Ian Player 7.00 ± 0.06")
    # A provisional rating is shown with "?" (RATINGS.md §8); a ranked one without.
    assert text_of(row_of(page, "Ivy Player")).startswith(
        "– Ivy Player ± above 0.12: closer-rated opponents lower it most 5.50 ? ± 0.12"
    )
    assert "?" not in text_of(row_of(page, "Rob Player"))
    # The member without a rated match: listed apart, with their starting rating.
    unrated = text_of(row_of(page, "Una Unrated"))
    assert "5.50" in unrated and "Level 5.5, league-rated" in unrated
    assert page.index("Not yet rated") > page.index("Ian Player")


def test_a_lookback_of_one_more_day_makes_the_inactive_player_active(client, board):
    ladder, _ = board
    ladder.lookback_days = 91
    ladder.save(update_fields=["lookback_days"])
    assert ("ian", "ranked", 1) in statuses(client.get("/ladders/board/"))


def test_everyone_inactive_still_reads_well(client, board):
    ladder, _ = board
    PlayerRating.objects.filter(ladder=ladder).update(last_played=TODAY - timedelta(days=400))
    response = client.get("/ladders/board/")
    assert {s for _, s, _ in statuses(response)} == {"inactive"}
    page = text_of(response.content.decode())
    assert "No one is ranked right now" in page
    assert "0 ranked · 0 provisional · 6 inactive" in page


def test_numbers_from_a_rated_history(client, db):
    ladder = LadderFactory(name="Numbers", slug="numbers")
    ann, ben, cat = (member(ladder, n, f"{n.capitalize()} N") for n in ("ann", "ben", "cat"))
    play(ladder, [ann], [ben], [(21, 10), (21, 12)], TODAY - timedelta(days=45))
    play(ladder, [ann], [cat], [(21, 19), (21, 19)], TODAY - timedelta(days=30))
    play(ladder, [ben], [ann], [(21, 17), (21, 15)], TODAY - timedelta(days=10))
    play(ladder, [ann], [cat], [(21, 5), (21, 5)], TODAY - timedelta(days=2))
    rate_ladder(ladder.pk)
    ann_rating = PlayerRating.objects.get(ladder=ladder, user=ann)
    # 30 days back is the end of that day: the match played then is not in the trend.
    before = RatingChange.objects.filter(ladder=ladder, user=ann).order_by("played_on")[1]
    trend = ann_rating.rating - before.rating_after
    assert trend == pytest.approx(
        sum(
            RatingChange.objects.filter(
                ladder=ladder, user=ann, played_on__gt=TODAY - timedelta(days=30)
            ).values_list("change", flat=True)
        )
    )

    response = client.get("/ladders/numbers/")
    row = next(r for r in response.context["page"].object_list if r.user == ann)
    assert row.trend == pytest.approx(trend)
    html = row_of(response.content.decode(), "Ann N")
    text = text_of(html)
    assert f"{ann_rating.rating / 1000:.2f}" in text
    # Played two days ago: no whole rating period since, the RD shown is the stored one.
    assert f"± {ann_rating.rd / 1000:.2f}" in text
    assert "3–1 4" in text  # W–L, matches
    # The trend in rating units beside the rating: 151 points read ▲0.15.
    arrow = "▲" if trend > 0 else "▼"
    assert f"{arrow}{abs(trend) / 1000:.2f}" in text
    assert text.endswith(f"{(TODAY - timedelta(days=2)):%-d %b %Y}")
    assert 'href="/players/ann/?ladder=numbers"' in html
    # Four matches, RD still high: everyone is provisional, nobody ranked.
    assert {r.status for r in response.context["page"].object_list} == {"provisional"}


def test_no_trend_without_a_match_in_30_days(client, board):
    response = client.get("/ladders/board/")
    assert all(r.trend is None for r in response.context["page"].object_list)
    assert "No match in this period" in response.content.decode()


# ---- search, filters, pages ----------------------------------------------------------------


def test_search_with_htmx_returns_just_the_table(client, board):
    response = client.get("/ladders/board/", {"q": "pa"}, **HTMX)
    assert response.status_code == 200
    page = response.content.decode()
    assert page.lstrip().startswith('<div id="leaderboard"')
    assert "<html" not in page and 'name="q"' not in page
    assert [u for u, _, _ in statuses(response)] == ["pam", "pat"]
    assert "HX-Request" in response["Vary"]


def test_search_without_htmx_is_the_whole_page(client, board):
    response = client.get("/ladders/board/", {"q": "RIA"})
    page = response.content.decode()
    assert "<html" in page and 'value="RIA"' in page
    assert [u for u, _, _ in statuses(response)] == ["ria"]
    assert "Una Unrated" not in page  # the unrated list is searched too


def test_a_history_restore_gets_the_whole_page(client, board):
    response = client.get(
        "/ladders/board/", {"q": "pa"}, **HTMX, HTTP_HX_HISTORY_RESTORE_REQUEST="true"
    )
    assert "<html" in response.content.decode()


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        ("ranked", ["ria", "rob"]),
        ("provisional", ["pam", "pat", "ivy"]),
        ("inactive", ["ian"]),
        ("all", ["ria", "rob", "pam", "pat", "ivy", "ian"]),
        ("bogus", ["ria", "rob", "pam", "pat", "ivy", "ian"]),
    ],
)
def test_filters(client, board, status, expected):
    response = client.get("/ladders/board/", {"status": status}, **HTMX)
    assert [u for u, _, _ in statuses(response)] == expected
    # Ranks are places among all ranked players, whatever the filter or search.
    response = client.get("/ladders/board/", {"status": "ranked", "q": "rob"}, **HTMX)
    assert statuses(response) == [("rob", "ranked", 2)]


def test_the_unrated_section_only_on_everyone(client, board):
    assert "Una Unrated" not in client.get("/ladders/board/", {"status": "ranked"}).content.decode()
    assert (
        "No rated player matches “zz”"
        in client.get("/ladders/board/", {"q": "zz"}).content.decode()
    )


def test_pages_of_fifty_with_links_for_htmx_and_without(client, db):
    ladder = LadderFactory(name="Big", slug="big")
    for i in range(60):
        user = member(ladder, f"u{i:02d}")
        rated(ladder, user, rating=5000.0 - i)
    first = client.get("/ladders/big/", {"status": "ranked"})
    assert len(first.context["page"].object_list) == 50
    page = first.content.decode()
    assert 'href="?status=ranked&amp;page=2"' in page
    assert 'hx-get="?status=ranked&amp;page=2"' in page and 'hx-target="#leaderboard"' in page
    second = client.get("/ladders/big/", {"status": "ranked", "page": 2}, **HTMX)
    rows = second.context["page"].object_list
    assert [r.rank for r in rows] == list(range(51, 61))
    assert "Page 2 of 2" in second.content.decode()
    assert client.get("/ladders/big/", {"page": "x"}).status_code == 200  # a bad page: the first


def test_every_page_filter_and_search_equals_a_plain_sort(client, db):
    """The board is read section by section (ranked, provisional, inactive), each from the
    rating index: pages that span sections, ties, a hidden member, a player who never played
    and searches must read exactly as sorting every row in Python does."""
    import random

    rng = random.Random(5)
    ladder = LadderFactory(name="Mixed", slug="mixed", lookback_days=90)
    for i in range(130):
        user = member(ladder, f"m{i:03d}", is_public=i % 17 != 3)
        kind = rng.choice(["ranked", "ranked", "provisional", "inactive"])
        fields = {
            "rating": rng.choice([4500.0, 4600.0, 4700.0])
            if i % 5 == 0
            else rng.uniform(3000, 7000),
            # RDs near 120, idle up to 12 weeks: the RD grown to today decides (RATINGS.md §8).
            "rd": rng.uniform(121, 150) if kind == "provisional" else rng.uniform(80, 120),
            "matches": rng.choice([4, 5, 12]),
            "last_played": TODAY
            - timedelta(days=200 if kind == "inactive" else rng.randint(0, 90)),
        }
        if i == 7:
            fields["last_played"] = None
        rated(ladder, user, **fields)
    params = ladder.params()

    def established(r):  # type: ignore[no-untyped-def]
        # §8 straight from the engine's inflation, not from the stored established_until.
        state = PlayerState(r.rating, r.rd, r.volatility, r.matches, r.last_played)
        return r.matches >= 5 and inflated_rd(state, TODAY, params) <= 120

    rows = [
        (r.user.username, r.rating, r.pk, established(r), r.last_played)
        for r in PlayerRating.objects.filter(
            ladder=ladder, user__memberships__is_public=True
        ).select_related("user")
    ]
    # Both kinds of row are there: idle weeks made some low RDs provisional.
    assert any(not r[3] and r[4] and r[4] >= TODAY - timedelta(days=90) for r in rows)
    cutoff = TODAY - timedelta(days=90)

    def status(row):  # type: ignore[no-untyped-def]
        active = row[4] is not None and row[4] >= cutoff
        return "ranked" if active and row[3] else "provisional" if active else "inactive"

    order = {"ranked": 0, "provisional": 1, "inactive": 2}
    board = sorted(rows, key=lambda r: (order[status(r)], -r[1], r[2]))
    ranks = {r[0]: place for place, r in enumerate([r for r in board if status(r) == "ranked"], 1)}
    for filters in ({}, {"status": "ranked"}, {"status": "inactive"}, {"q": "7"}, {"q": "m1"}):
        wanted = [
            (r[0], status(r), ranks.get(r[0]))
            for r in board
            if filters.get("status", status(r)) == status(r) and filters.get("q", "") in r[0]
        ]
        seen = []
        for number in range(1, 5):
            response = client.get("/ladders/mixed/", {**filters, "page": number})
            if response.context["page"].number < number:
                break
            seen += statuses(response)
        assert seen == wanted, filters
        counts = response.context["counts"]
        assert sum(counts.values()) == len([r for r in board if filters.get("q", "") in r[0]]), (
            filters
        )
    # As a sequence: one place, every place, and past the end.
    everyone = leaderboards.Board(ladder, VISITOR)
    assert everyone[3].user.username == board[3][0]
    assert [r.user.username for r in everyone] == [r[0] for r in board]
    with pytest.raises(IndexError):
        everyone[len(board)]
    caches["leaderboard"].clear()


# ---- visibility ----------------------------------------------------------------------------


def test_hidden_members_are_hidden_from_everyone_but_themselves_and_moderators(client, board, mod):
    ladder, users = board
    hide(user=users["ria"])
    visitor = client.get("/ladders/board/")
    assert "Ria Player" not in visitor.content.decode()
    assert statuses(visitor)[0] == ("rob", "ranked", 1)  # no gap where she was
    client.force_login(users["rob"])
    assert "Ria Player" not in client.get("/ladders/board/").content.decode()
    client.force_login(users["ria"])
    page = client.get("/ladders/board/").content.decode()
    assert "Hidden" in row_of(page, "Ria Player") and "You" in row_of(page, "Ria Player")
    client.force_login(mod)
    response = client.get("/ladders/board/")
    assert statuses(response)[:2] == [("ria", "ranked", 1), ("rob", "ranked", 2)]


def test_private_ladders_404_for_visitors_and_outsiders(client, private_ladder, alice, outsider):
    rated(private_ladder, alice)
    assert client.get("/ladders/squad/").status_code == 404
    assert client.get("/ladders/squad/", **HTMX).status_code == 404
    client.force_login(outsider)
    assert client.get("/ladders/squad/").status_code == 404
    client.force_login(alice)
    assert "Alice Archer" in client.get("/ladders/squad/").content.decode()


def test_the_side_panel_stays(client, board):
    ladder, users = board
    client.force_login(users["rob"])
    page = client.get("/ladders/board/").content.decode()
    assert "You're a member" in page and "Match rules" in page
    text = text_of(page)
    assert "A win is a win; a clear one counts up to 2.0× a narrow one" in text
    assert "At least 5 rated matches, ± 0.12 or less, and a match in the last 90 days" in text
    assert 'href="/ladders/board/head-to-head/"' in page


# ---- a fixed number of queries --------------------------------------------------------------


def leaderboard_queries(client, slug):  # type: ignore[no-untyped-def]
    with CaptureQueriesContext(connection) as queries:
        response = client.get(f"/ladders/{slug}/")
    assert response.status_code == 200
    return len(queries)


@pytest.mark.parametrize("signed_in", [False, True])
def test_leaderboard_queries_do_not_grow_with_players_and_matches(
    client, db, django_assert_num_queries, signed_in
):
    # Everyone rated is ranked on both ladders, so each first page shows one status section
    # (a page spanning two sections reads one more query, whatever the ladder's size).
    everyone_ranked = {"ranked_min_matches": 1, "ranked_rd": 500.0}
    small = LadderFactory(name="Small", slug="small", **everyone_ranked)
    small_players = [member(small, f"s{i}") for i in range(5)]
    season(small, small_players, 8)
    big = LadderFactory(name="Large", slug="large", **everyone_ranked)
    big_players = [member(big, f"b{i:02d}") for i in range(50)]
    season(big, big_players, 200)
    for i in range(3):  # and a few members without a rated match
        MembershipFactory(ladder=big, user=UserFactory(username=f"new{i}"))
    assert PlayerRating.objects.filter(ladder=big).count() == 50
    if signed_in:  # a member of both, not yet rated
        viewer = User.objects.get(username="new0")
        client.force_login(viewer)
        MembershipFactory(ladder=small, user=viewer)
    caches["leaderboard"].clear()  # the rating runs left the visitors' first pages in it
    counts = (leaderboard_queries(client, "small"), leaderboard_queries(client, "large"))
    assert counts[0] == counts[1]
    # Anonymous: ladder, status counts (which give the page count), page rows (one query per
    # status the page shows: one here), their users, their trends, unrated members, the
    # current season (none here: RULES.md "Seasons"); ranks come from the places. Signed in:
    # + session, user, moderator check, the navigation's
    # inbox badge and unread notifications; a member's own membership brings the ladder (and says whether their own
    # row is hidden: the cache key).
    caches["leaderboard"].clear()
    with django_assert_num_queries(12 if signed_in else 7):
        client.get("/ladders/large/")
    # Again: the page's data comes from the cache (the ladder row carries its version); a
    # visitor's whole page does, after its versions.
    with django_assert_num_queries(6 if signed_in else 1):
        client.get("/ladders/large/")
    if signed_in:
        # A member whose own row is on the page: the same (the row says if it is hidden).
        client.force_login(big_players[0])
        caches["leaderboard"].clear()
        with django_assert_num_queries(12):
            client.get("/ladders/large/")
