"""Player pages /players/<username>/ and head-to-head /ladders/<slug>/head-to-head/."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext

from ladder.clubs.formatting import format_percent
from ladder.clubs.models import Membership
from ratings.engine.predict import match_quality, win_probability
from ratings.engine.types import PlayerState
from ratings.models import PlayerRating, RatingChange, status_of
from ratings.pipeline import rate_ladder
from ratings.predictions import head_to_head_matches
from tests.factories import LadderFactory, MembershipFactory, UserFactory, hide
from tests.ratings.pages_support import (
    NOON,
    TODAY,
    member,
    play,
    rated,
    row_of,
    season,
    text_of,
)

MATCHES = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "matches"}


@pytest.fixture(autouse=True)
def frozen(time_machine):  # type: ignore[no-untyped-def]
    time_machine.move_to(NOON, tick=False)


@pytest.fixture
def club(db):  # type: ignore[no-untyped-def]
    """A singles ladder: Ann plays Ben three times, and Cat once."""
    ladder = LadderFactory(name="Club", slug="club")
    ann, ben, cat = (member(ladder, n, f"{n.capitalize()} N") for n in ("ann", "ben", "cat"))
    play(ladder, [ann], [ben], [(21, 12), (21, 15)], TODAY - timedelta(days=20))
    play(ladder, [ben], [ann], [(21, 19), (21, 17)], TODAY - timedelta(days=15))
    play(ladder, [cat], [ann], [(12, 21), (21, 18), (15, 21)], TODAY - timedelta(days=12))
    play(ladder, [ann], [ben], [(21, 10), (21, 11)], TODAY - timedelta(days=5))
    rate_ladder(ladder.pk)
    return ladder, ann, ben, cat


def test_player_page_ratings_chart_matches_and_head_to_head(client, club):
    ladder, ann, ben, cat = club
    response = client.get("/players/ann/")
    assert response.status_code == 200
    page = response.content.decode()
    rating = PlayerRating.objects.get(ladder=ladder, user=ann)
    ladder_row = text_of(row_of(page, ">Club<"))
    # Played five days ago: the RD shown is the stored one, in display units; "?" as
    # provisional (RATINGS.md §8).
    assert f"{rating.rating / 1000:.2f} ? ± {rating.rd / 1000:.2f} Provisional" in ladder_row
    assert "3–1 4" in ladder_row

    # The chart: a line, a ± RD band, axis labels in x.xx, one dot per day played.
    svg = page[page.index("<svg") : page.index("</svg>")]
    assert 'class="line" d="M' in svg and 'class="band" d="M' in svg
    assert re.search(r'class="y-label"[^>]*>\d\.\d\d<', svg)
    assert svg.count('<circle class="dot"') == 5  # the start and four days

    # Every match, newest first, with its change in words.
    entries = response.context["entries"]
    assert [e.change.played_on for e in entries] == sorted(
        (e.change.played_on for e in entries), reverse=True
    )
    last = entries[0]
    assert last.score == "21-10 21-11" and last.won
    assert last.explanation.startswith(
        f"{format_percent(last.change.expected)} chance to win, won 21-10 21-11: +"
    )
    assert "third match against Ben N in 90 days, counted at 0.71" in last.explanation
    lost = next(e for e in entries if not e.won)
    assert lost.score == "19-21 17-21"  # from Ann's side although she was side B
    assert "lost 19-21 17-21: \u2212" in lost.explanation
    first = entries[-1]
    assert "first rated match, starting from 4.50 ± 0.25" in first.explanation
    assert "Third match against Ben N" not in page and "third match against Ben N" in page

    # Head-to-head records: W–L from Ann's side, with a link to the head-to-head page.
    opponents = {
        r.username: (r.wins, r.losses, r.last_played) for r in response.context["opponents"]
    }
    assert opponents == {
        "ben": (2, 1, TODAY - timedelta(days=5)),
        "cat": (1, 0, TODAY - timedelta(days=12)),
    }
    assert 'href="/ladders/club/head-to-head/?a=ann&amp;b=ben"' in page
    assert "Partners" not in page  # singles


def test_match_list_pages_with_htmx(client, db):
    ladder = LadderFactory(name="Long", slug="long")
    a, b, c = (member(ladder, n) for n in ("aa", "bb", "cc"))
    for i in range(25):
        play(ladder, [a], [b if i % 2 else c], [(21, 15), (21, 17)], TODAY - timedelta(days=50 - i))
    rate_ladder(ladder.pk)
    first = client.get("/players/aa/")
    assert len(first.context["entries"]) == 20
    page = first.content.decode()
    assert 'href="?page=2"' in page and 'hx-target="#matches"' in page
    second = client.get("/players/aa/", {"page": 2}, **MATCHES)
    fragment = second.content.decode()
    assert fragment.lstrip().startswith('<div id="matches">') and "<svg" not in fragment
    assert len(second.context["entries"]) == 5
    # The previous match of the first row on page 2 is on page 1: still explained right.
    oldest = second.context["entries"][-1]
    assert "first rated match" in oldest.explanation
    assert "first rated match" not in second.context["entries"][-2].explanation


def test_a_long_break_is_explained(client, db):
    ladder = LadderFactory(name="Break", slug="break")
    a, b = member(ladder, "aa", "Al"), member(ladder, "bb", "Bo")
    play(ladder, [a], [b], [(21, 15), (21, 17)], TODAY - timedelta(days=200))
    play(ladder, [a], [b], [(21, 15), (21, 17)], TODAY - timedelta(days=10))
    rate_ladder(ladder.pk)
    entry = client.get("/players/aa/").context["entries"][0]
    before = RatingChange.objects.filter(user=a).order_by("played_on").first()
    was, now = f"{before.rd_after / 1000:.2f}", f"{entry.change.rd_before / 1000:.2f}"
    assert entry.change.rd_before > before.rd_after + 5
    grown = f"from ± {was} to ± {now}" if was != now else f"a little, to ± {now}"
    assert f"first match in 190 days: RD had grown {grown}" in entry.explanation


def test_the_ladder_shown_is_chosen_or_the_latest(client, club, db):
    ladder, ann, ben, _ = club
    other = LadderFactory(name="Other", slug="other")
    MembershipFactory(ladder=other, user=ann)
    MembershipFactory(ladder=other, user=ben)
    play(other, [ann], [ben], [(21, 15), (21, 17)], TODAY - timedelta(days=1))
    rate_ladder(other.pk)
    assert client.get("/players/ann/").context["ladder"] == other  # played there last
    response = client.get("/players/ann/", {"ladder": "club"})
    assert response.context["ladder"] == ladder and len(response.context["entries"]) == 4
    assert client.get("/players/ann/", {"ladder": "nope"}).status_code == 404
    assert client.get("/players/nobody/").status_code == 404


def test_doubles_partners(client, db):
    ladder = LadderFactory(name="Pairs", slug="pairs", team_size=2)
    a, b, c, d = (member(ladder, n, f"{n.capitalize()} D") for n in ("ad", "bd", "cd", "dd"))
    play(ladder, [a, b], [c, d], [(21, 15), (21, 17)], TODAY - timedelta(days=3))
    play(ladder, [a, c], [b, d], [(15, 21), (17, 21)], TODAY - timedelta(days=2))
    play(ladder, [a, b], [c, d], [(21, 19), (21, 19)], TODAY - timedelta(days=1))
    rate_ladder(ladder.pk)
    response = client.get("/players/ad/")
    partners = {r.username: (r.played, r.wins, r.losses) for r in response.context["partners"]}
    assert partners == {"bd": (2, 2, 0), "cd": (1, 0, 1)}
    opponents = {r.username: (r.played, r.wins, r.losses) for r in response.context["opponents"]}
    assert opponents == {"cd": (2, 2, 0), "dd": (3, 2, 1), "bd": (1, 0, 1)}
    page = response.content.decode()
    assert "Partners" in page
    entry = response.context["entries"][0]
    assert [p.name for p in entry.partners] == ["Bd D"]
    assert [p.name for p in entry.opponents] == ["Cd D", "Dd D"]


def test_standing_and_rank_agree_with_the_leaderboard_at_the_boundaries(client, db, mod):
    # The player page works out each status from the rating row (PlayerRating.status_on);
    # the leaderboard filters by PlayerRatingQuerySet.of_status; club night from the state
    # (ratings.models.status_of). All agree, edges included.
    ladder = LadderFactory(name="Board", slug="board", lookback_days=90)
    for name, fields in {
        "top": dict(rating=8000.0, rd=50.0, matches=30),  # ranked, but hidden
        "ria": dict(rating=5200.0, rd=120.0, matches=5),
        "rob": dict(rating=4800.0, rd=60.0, matches=20, last_played=TODAY - timedelta(days=90)),
        "pam": dict(rating=6000.0, rd=120.5, matches=30),
        "pat": dict(rating=5900.0, rd=50.0, matches=4),
        "ivy": dict(rating=5500.0, rd=119.0, matches=9, last_played=TODAY - timedelta(days=21)),
        "ida": dict(rating=5400.0, rd=119.0, matches=9, last_played=TODAY - timedelta(days=20)),
        "ian": dict(rating=7004.9, rd=50.0, matches=40, last_played=TODAY - timedelta(days=91)),
    }.items():
        rated(ladder, member(ladder, name, is_public=name != "top"), **fields)
    cutoffs = {ladder.pk: TODAY - timedelta(days=90)}
    pairs = [
        (username, status)
        for status in ("ranked", "provisional", "inactive")
        for username in PlayerRating.objects.of_status(status, cutoffs, TODAY).values_list(
            "user__username", flat=True
        )
    ]
    statuses = dict(pairs)
    assert len(pairs) == len(statuses) == 8  # each row has exactly one status
    for row in PlayerRating.objects.filter(ladder=ladder).select_related("user"):
        state = PlayerState(row.rating, row.rd, row.volatility, row.matches, row.last_played)
        assert status_of(state, ladder, TODAY) == statuses[row.user.username]

    def standing(name):  # type: ignore[no-untyped-def]
        rating = client.get(f"/players/{name}/").context["rating"]
        return rating.status, rating.rank

    # A hidden member leaves no gap in the ranks of those who may not see them.
    expected = {"ida": 1, "ria": 2, "rob": 3, "pam": None, "pat": None, "ivy": None, "ian": None}
    assert {n: standing(n) for n in expected} == {n: (statuses[n], r) for n, r in expected.items()}
    assert statuses["ria"] == statuses["rob"] == statuses["ida"] == "ranked"
    # RD 119 grows past 120 in the third idle week (RATINGS.md §8: after inflation to today).
    assert statuses["ivy"] == "provisional" and statuses["ian"] == "inactive"
    client.force_login(mod)
    assert [standing(n) for n in ("top", "ida", "ria", "rob")] == [
        ("ranked", 1), ("ranked", 2), ("ranked", 3), ("ranked", 4)
    ]  # fmt: skip


def test_a_member_away_is_said_on_each_ladder_they_are_away_from(client, db):
    # RULES.md "Time away": as the leaderboard's tag, on every ladder the viewer may see,
    # ranked or not; the last day away is today at the latest; a private ladder's stays unsaid.
    club = LadderFactory(name="Club", slug="club")
    league = LadderFactory(name="League", slug="league")
    squad = LadderFactory(name="Squad", slug="squad", is_public=False)
    kim = member(club, "kim", "Kim N")
    for ladder in (league, squad):
        MembershipFactory(ladder=ladder, user=kim)
    rated(club, kim, rd=50.0, matches=30)  # ranked
    rated(league, kim, rd=50.0, matches=30)
    Membership.objects.filter(user=kim, ladder=club).update(away_until=TODAY)
    Membership.objects.filter(user=kim, ladder=league).update(away_until=TODAY - timedelta(days=1))
    Membership.objects.filter(user=kim, ladder=squad).update(away_until=TODAY + timedelta(days=9))
    response = client.get("/players/kim/", {"ladder": "club"})
    assert response.context["rating"].rank == 1
    page = response.content.decode()
    assert '<span class="tag away">Away until 30 Jun 2024</span>' in row_of(page, ">Club<")
    assert page.count("Away until") == 1  # not League (yesterday), not the private Squad
    client.force_login(kim)
    page = client.get("/players/kim/").content.decode()
    assert '<span class="tag away">Away until 9 Jul 2024</span>' in row_of(page, ">Squad<")
    assert page.count("Away until") == 2


# ---- visibility ---------------------------------------------------------------------------


def test_private_ladders_are_left_out_for_those_who_may_not_see_them(
    client, private_ladder, alice, ladder, outsider, mod
):
    # alice: public Club Singles and private Squad.
    other = UserFactory(username="sam")
    MembershipFactory(ladder=private_ladder, user=other)
    play(private_ladder, [alice], [other], [(21, 15), (21, 17)], TODAY - timedelta(days=1))
    rate_ladder(private_ladder.pk)
    page = client.get("/players/alice/").content.decode()
    assert "Club Singles" in page and "Squad" not in page
    assert client.get("/players/alice/", {"ladder": "squad"}).status_code == 404
    assert client.get("/players/sam/").status_code == 404  # only on a private ladder
    client.force_login(outsider)
    assert client.get("/players/sam/").status_code == 404
    client.force_login(mod)
    assert client.get("/players/sam/").status_code == 200
    client.force_login(alice)
    response = client.get("/players/alice/")
    assert response.context["ladder"] == private_ladder


def test_hidden_members(client, club, mod):
    ladder, ann, ben, cat = club
    hide(user=ben)
    assert client.get("/players/ben/").status_code == 404
    # On Ann's page Ben is "a hidden player": no name, no link, no head-to-head row.
    response = client.get("/players/ann/")
    page = response.content.decode()
    assert "Ben N" not in page and "/players/ben/" not in page
    assert "third match against a hidden player" in page
    assert [r.username for r in response.context["opponents"]] == ["cat"]
    client.force_login(ben)
    page = client.get("/players/ben/").content.decode()
    assert "Hidden" in page and "Ann N" in page
    client.force_login(mod)
    assert "Ben N" in client.get("/players/ann/").content.decode()


def test_your_own_page_before_joining(client, outsider):
    assert client.get("/players/outsider/").status_code == 404
    client.force_login(outsider)
    assert "You have not joined a ladder yet" in client.get("/players/outsider/").content.decode()


# ---- head-to-head --------------------------------------------------------------------------


def test_head_to_head_record_and_prediction(client, club):
    ladder, ann, ben, cat = club
    response = client.get("/ladders/club/head-to-head/", {"a": "ann", "b": "Ben N"})
    assert response.status_code == 200
    result = response.context["result"]
    assert (result.wins, result.losses) == (2, 1)
    assert [m.score for m in result.meetings] == ["21-10 21-11", "19-21 17-21", "21-12 21-15"]
    states = {
        r.user_id: PlayerState(r.rating, r.rd, r.volatility, r.matches, r.last_played)
        for r in PlayerRating.objects.filter(ladder=ladder)
    }
    params = ladder.params()
    p = win_probability([states[ann.pk]], [states[ben.pk]], params, TODAY)
    assert result.prediction.probability == pytest.approx(p)
    assert result.prediction.quality == pytest.approx(
        match_quality([states[ann.pk]], [states[ben.pk]], params, TODAY)
    )
    page = text_of(response.content.decode())
    assert f"win with probability {p:.0%}" in page.replace("wins with", "win with")
    # The probability once, as a percentage (a decimal beside it read "1.00" beside ">99%").
    assert f"(match quality {result.prediction.quality:.2f} of 1)" in page
    assert "2 – 1" in page
    # The meetings are looked for among the first player's matches (a join on their rows),
    # not by testing every match of the ladder: with 200,000 that took half a second.
    sql = str(head_to_head_matches(ladder, [ann], [ben]).query)
    assert 'INNER JOIN "ladder_matchplayer"' in sql


def test_head_to_head_from_starting_ratings(client, ladder, alice, bob):
    response = client.get("/ladders/singles/head-to-head/", {"a": "alice", "b": "bob"})
    start = {m.user_id: m for m in Membership.objects.filter(ladder=ladder)}
    a = PlayerState(start[alice.pk].initial_rating, start[alice.pk].initial_rd, 0.06)
    b = PlayerState(start[bob.pk].initial_rating, start[bob.pk].initial_rd, 0.06)
    expected = win_probability([a], [b], ladder.params(), TODAY)
    assert response.context["result"].prediction.probability == pytest.approx(expected)
    assert "have not played each other" in response.content.decode()


def test_head_to_head_doubles(client, db):
    ladder = LadderFactory(name="Pairs", slug="pairs", team_size=2)
    a, b, c, d = (member(ladder, n) for n in ("ad", "bd", "cd", "dd"))
    play(ladder, [a, b], [c, d], [(21, 15), (21, 17)], TODAY - timedelta(days=3))
    play(ladder, [c, d], [a, b], [(21, 15), (21, 17)], TODAY - timedelta(days=2))
    play(ladder, [a, c], [b, d], [(21, 15), (21, 17)], TODAY - timedelta(days=1))
    rate_ladder(ladder.pk)
    pairs = client.get("/ladders/pairs/head-to-head/?a=ad,bd&b=cd&b=dd").context["result"]
    assert (pairs.wins, pairs.losses) == (1, 1) and pairs.prediction is not None
    # One player a side: every match with them opposite, whoever the partners were.
    single = client.get("/ladders/pairs/head-to-head/", {"a": "ad", "b": "dd"}).context["result"]
    assert (single.wins, single.losses) == (2, 1) and single.prediction is None
    assert "Name 2 players a side for a prediction" in text_of(
        client.get("/ladders/pairs/head-to-head/", {"a": "ad", "b": "dd"}).content.decode()
    )


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"a": "ann", "b": "zed"}, "No member of Club is called “zed”."),
        (
            {"a": "ann,ben", "b": "cat"},
            "Side A has 2 players; Club is played with 1 player a side.",
        ),
        ({"a": "ann", "b": "ann"}, "Each player can only be named once."),
        ({"a": "ann"}, "Name the player of side B."),
    ],
)
def test_head_to_head_errors(client, club, query, message):
    response = client.get("/ladders/club/head-to-head/", query)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert response.context["result"] is None


def test_head_to_head_form_and_visibility(client, club, private_ladder, alice):
    page = client.get("/ladders/club/head-to-head/").content.decode()
    assert '<datalist id="h2h-members">' in page and '<option value="ann">Ann N</option>' in page
    assert page.count('name="a"') == 1 and page.count('name="b"') == 1
    assert client.get("/ladders/squad/head-to-head/").status_code == 404
    hide(user__username="ben")
    assert client.get("/ladders/club/head-to-head/", {"a": "ann", "b": "ben"}).status_code == 400
    assert client.post("/ladders/club/head-to-head/").status_code == 405


def test_head_to_head_names_come_as_the_visitor_types(client, club, monkeypatch):
    """The page lists the members of a club-sized ladder by name; typing in a name box asks
    for the members matching it (HTMX), never a hidden one: all a big ladder offers."""
    for i in range(3):
        member(club[0], f"zed{i}", f"Zed {i}")
    hide(user__username="zed2")
    page = client.get("/ladders/club/head-to-head/").content.decode()
    listed = ["ann", "ben", "cat", "zed0", "zed1"]
    assert re.findall(r'<option value="([^"]+)">', page) == listed
    assert 'hx-get="/ladders/club/head-to-head/"' in page and 'hx-target="#h2h-members"' in page
    monkeypatch.setattr("ratings.views.H2H_MEMBER_LIST", 4)  # fewer than the listed members
    caches["leaderboard"].clear()  # the visitors' page kept with the longer list
    page = client.get("/ladders/club/head-to-head/").content.decode()
    assert '<datalist id="h2h-members">' in page and "<option" not in page
    suggest = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "h2h-members"}
    response = client.get("/ladders/club/head-to-head/", {"b": "ZED"}, **suggest)
    fragment = response.content.decode()
    assert response.status_code == 200 and fragment.strip().endswith("</datalist>")
    assert re.findall(r'<option value="([^"]+)">([^<]+)<', fragment) == [
        ("zed0", "Zed 0"),
        ("zed1", "Zed 1"),
    ]
    monkeypatch.setattr("ratings.views.H2H_SUGGESTIONS", 1)
    fragment = client.get("/ladders/club/head-to-head/", {"a": "@zed"}, **suggest).content
    assert re.findall(rb'<option value="([^"]+)">', fragment) == [b"zed0"]
    empty = client.get("/ladders/club/head-to-head/", {"a": "nobody"}, **suggest).content
    assert b"<option" not in empty


# ---- a fixed number of queries -------------------------------------------------------------


def page_queries(client, url):  # type: ignore[no-untyped-def]
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    return len(queries)


def big_season(ladder, count=50):  # type: ignore[no-untyped-def]
    """50 players, 200 matches, and one player with 30 more (more than a page of them)."""
    players = [member(ladder, f"{ladder.slug[0]}{i:02d}") for i in range(count)]
    season(ladder, players, 200)
    size = ladder.team_size
    for i in range(30):
        side_a = [players[0], *players[1:size]]
        side_b = players[size + i % 10 : 2 * size + i % 10]
        play(ladder, side_a, side_b, [(21, 15), (21, 17)], TODAY - timedelta(days=i % 20))
    rate_ladder(ladder.pk)
    return players


@pytest.mark.parametrize("team_size", [1, 2])
def test_player_and_head_to_head_queries_do_not_grow(client, db, team_size):
    small = LadderFactory(name="Small", slug="small", team_size=team_size)
    few = [member(small, f"s{i}") for i in range(2 * team_size + 1)]
    play(small, few[:team_size], few[team_size : 2 * team_size], [(21, 9), (21, 9)], TODAY)
    season(small, few, 8)
    big = LadderFactory(name="Large", slug="large", team_size=team_size)
    many = big_season(big)
    assert RatingChange.objects.filter(user=many[0]).count() > 30

    def sides(users):  # type: ignore[no-untyped-def]
        return "&".join(
            [f"a={u.username}" for u in users[:team_size]]
            + [f"b={u.username}" for u in users[team_size : 2 * team_size]]
        )

    assert page_queries(client, f"/players/{few[0].username}/") == page_queries(
        client, f"/players/{many[0].username}/"
    )
    assert page_queries(client, f"/players/{few[0].username}/?page=2") == page_queries(
        client, f"/players/{many[0].username}/?page=2"
    )
    assert page_queries(client, f"/ladders/small/head-to-head/?{sides(few)}") == page_queries(
        client, f"/ladders/large/head-to-head/?{sides(many)}"
    )


def test_player_page_query_count_is_pinned(client, django_assert_num_queries, db):
    ladder = LadderFactory(name="Large", slug="large")
    big_season(ladder)
    # Memberships (with the player), ratings, hidden members, every match played (the chart, the count
    # of matches, the head-to-head table) and their players, the matches page and its games.
    with django_assert_num_queries(7):
        client.get("/players/l00/")
    # The match list alone: memberships, ratings, hidden members, the count, the
    # page, its players and games.
    with django_assert_num_queries(7):
        client.get("/players/l00/", {"page": 2}, **MATCHES)
    # Head-to-head: the ladder, sides, matches with their players and
    # games, the states for the prediction (memberships, ratings), the points at stake (last
    # rated match, ratings, memberships, the lookback window's matches), the members for the
    # type-ahead (counted first: a big ladder lists none), hidden members.
    with django_assert_num_queries(14):
        client.get("/ladders/large/head-to-head/?a=l00&b=l01")
    # A visitor's repeat is answered by ladder.pagecache: tests/ratings/test_page_cache*.py.


def test_the_chart_has_periods_tooltips_with_the_change_and_a_table(client, club) -> None:  # type: ignore[no-untyped-def]
    """Issue 16 #6: 3 months, a year, all; each dot's tooltip says the day's change and
    result; the table beside it is the chart in words."""
    ladder, ann, ben, _ = club
    url = f"/players/ann/?ladder={ladder.slug}"
    page = client.get(url).content.decode()
    assert 'aria-current="page" class="current">All</a>' in page
    for key in ("3m", "1y", "all"):
        assert f"range={key}" in page
    last = RatingChange.objects.filter(user=ann).order_by("-played_on").first()
    size = f"{abs(last.change) / 1000:.2f}"
    arrow = "+" if last.change > 0 else "\u2212"
    day = f"{last.played_on.day} {last.played_on:%b %Y}"
    tooltip = f"<title>{day}: {last.rating_after / 1000:.2f} ± {last.rd_after / 1000:.2f}, {arrow}{size} (won)</title>"
    assert tooltip in page
    table = text_of(page[page.index('<details class="chart-table">') :])
    assert table.startswith("The chart as a table Day Rating ± RD Change Matches")
    assert f"{last.rating_after / 1000:.2f} {last.rd_after / 1000:.2f} {arrow}{size} won" in table
    assert text_of(page).count(" start") >= 1  # the starting rating, before the first match


def test_a_period_shows_only_its_days(client, club) -> None:  # type: ignore[no-untyped-def]
    ladder, ann, *_ = club
    old = TODAY - timedelta(days=200)
    play(ladder, [ann], [club[2]], [(21, 5), (21, 6)], old)
    rate_ladder(ladder.pk)
    everything = client.get(f"/players/ann/?ladder={ladder.slug}&range=all").content.decode()
    assert f"{old.day} {old:%b %Y}:" in everything
    quarter = client.get(f"/players/ann/?ladder={ladder.slug}&range=3m").content.decode()
    assert f"{old.day} {old:%b %Y}:" not in quarter
    assert 'aria-current="page" class="current">3 months</a>' in quarter
    # The period starts from the rating the player had then (a start, not a match).
    start = TODAY - timedelta(days=91)
    assert f"<title>{start.day} {start:%b %Y}: " in quarter and "(start)</title>" in quarter
    # An unknown period is the default one.
    odd = client.get(f"/players/ann/?ladder={ladder.slug}&range=forever")
    assert odd.status_code == 200
    assert 'aria-current="page" class="current">All</a>' in odd.content.decode()
