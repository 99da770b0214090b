"""Seasons (RULES.md "Seasons"): defining them, their tables, the archive that a later
correction never changes, and the API and pages that show them."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from django.db import IntegrityError, connection, transaction

from ladder.clubs.access import VISITOR, Viewer
from ladder.matches import operations as matches
from ratings.models import PlayerRating, RatingChange, Season, SeasonStanding
from ratings.pipeline import rate_ladder
from ratings.seasons import SeasonError, freeze_due_seasons, live_rows, season_table
from ratings.tasks import freeze_seasons
from ratings.upkeep import delete_season, save_season
from tests.factories import LadderFactory, hide, login
from tests.ratings.conftest import MakeMatch

TODAY = date.today()


def season(ladder, name: str, first: date, last: date) -> Season:  # type: ignore[no-untyped-def]
    return save_season(
        Season(
            ladder=ladder,
            name=name,
            slug=name.lower().replace(" ", "-"),
            starts_on=first,
            ends_on=last,
        )
    )


@pytest.fixture
def played(club, make_match: MakeMatch):  # type: ignore[no-untyped-def]
    """A past season (60 to 31 days ago) and the current one (30 days ago to 30 days ahead),
    with matches before, in and between them, rated."""
    ladder, p = club
    past = season(ladder, "Spring", TODAY - timedelta(days=60), TODAY - timedelta(days=31))
    now = season(ladder, "Summer", TODAY - timedelta(days=30), TODAY + timedelta(days=30))
    make_match(ladder, [p[0]], [p[1]], [(21, 10), (21, 12)], TODAY - timedelta(days=70))  # before
    make_match(ladder, [p[0]], [p[2]], [(21, 18), (21, 19)], TODAY - timedelta(days=50))
    make_match(ladder, [p[1]], [p[2]], [(15, 21), (21, 17), (21, 19)], TODAY - timedelta(days=45))
    make_match(ladder, [p[3]], [p[0]], [(21, 16), (21, 14)], TODAY - timedelta(days=40))
    make_match(ladder, [p[0]], [p[1]], [(21, 5), (21, 7)], TODAY - timedelta(days=20))
    make_match(ladder, [p[2]], [p[3]], [(21, 19), (22, 20)], TODAY - timedelta(days=2))
    rate_ladder(ladder.pk)
    # Everyone ranked on the board: a current table ranks whom the board ranks (issue 37).
    PlayerRating.objects.filter(ladder=ladder).update(established_until=TODAY + timedelta(days=365))
    return ladder, p, past, now


def expected_rows(ladder, first: date, last: date):  # type: ignore[no-untyped-def]
    """The table worked out by hand from the stored changes: {username: (rating, change,
    matches, wins, losses)}."""
    rows = {}
    for change in RatingChange.objects.filter(
        ladder=ladder, played_on__gte=first, played_on__lte=last
    ).order_by("played_on", "match_id"):
        name = change.user.username
        rating, start, n, wins = rows.get(name, (None, change.rating_before, 0, 0))
        rows[name] = (change.rating_after, start, n + 1, wins + int(change.won))
    return {
        name: (end, end - start, n, wins, n - wins) for name, (end, start, n, wins) in rows.items()
    }


# ---- tables ------------------------------------------------------------------------------


def test_the_current_seasons_table_counts_only_its_matches(played, outsider):
    ladder, p, past, now = played
    table = season_table(now, Viewer.of(outsider))
    expected = expected_rows(ladder, now.starts_on, TODAY)
    assert {row.user.username for row in table} == {"p0", "p1", "p2", "p3"}
    for row in table:
        rating, change, n, wins, losses = expected[row.user.username]
        assert (row.rating, row.change, row.matches, row.wins, row.losses) == (
            pytest.approx(rating),
            pytest.approx(change),
            n,
            wins,
            losses,
        )
    # By rating at the end, best first, ranked 1..n.
    assert [row.rank for row in table] == [1, 2, 3, 4]
    assert [row.rating for row in table] == sorted((row.rating for row in table), reverse=True)
    # p0 played one match this season (won) and two earlier ones: only this season's count.
    p0 = next(row for row in table if row.user == p[0])
    assert (p0.matches, p0.wins, p0.losses) == (1, 1, 0)
    # The rating now is the stored rating (p0's last match is in this season).
    assert p0.rating == pytest.approx(PlayerRating.objects.get(ladder=ladder, user=p[0]).rating)


def test_ratings_carry_across_seasons(played):
    """No reset: a player's first match of a season starts from where the last one left them."""
    ladder, p, past, now = played
    last_spring = RatingChange.objects.filter(
        ladder=ladder, user=p[0], played_on__lte=past.ends_on
    ).last()
    first_summer = RatingChange.objects.filter(
        ladder=ladder, user=p[0], played_on__gte=now.starts_on
    ).first()
    assert first_summer.rating_before == pytest.approx(last_spring.rating_after)
    row = next(r for r in season_table(now, VISITOR) if r.user == p[0])
    assert row.change == pytest.approx(first_summer.rating_after - last_spring.rating_after)


def test_a_seasons_table_is_stored_once_it_is_over_and_a_correction_never_changes_it(played, mod):
    ladder, p, past, now = played
    assert past.frozen_at is None
    table = season_table(past, VISITOR)  # the first read after the end stores it
    past.refresh_from_db()
    assert past.frozen_at is not None
    stored = list(SeasonStanding.objects.filter(season=past).order_by("rank"))
    expected = expected_rows(ladder, past.starts_on, past.ends_on)
    assert [(s.user.username, s.rank) for s in stored] == [
        (row.user.username, row.rank) for row in table
    ]
    for s in stored:
        assert (s.rating, s.change, s.matches, s.wins, s.losses) == pytest.approx(
            expected[s.user.username]
        )
    archived = [(r.user.username, r.rank, r.rating, r.change, r.wins, r.losses) for r in table]

    # A moderator corrects a spring match (p3 beat p0 → p0 beat p3); the ladder replays.
    spring_match = RatingChange.objects.get(
        ladder=ladder, user=p[3], played_on=TODAY - timedelta(days=40)
    ).match
    matches.correct_match(spring_match, mod, [(16, 21), (14, 21)], "Sides the wrong way round")
    rate_ladder(ladder.pk)
    replayed = expected_rows(ladder, past.starts_on, past.ends_on)
    assert replayed["p0"] != expected["p0"]  # the correction changed the ratings…
    assert replayed["p3"][3] == 0
    again = [
        (r.user.username, r.rank, r.rating, r.change, r.wins, r.losses)
        for r in season_table(past, VISITOR)
    ]
    assert again == archived  # …and not the archived table
    assert SeasonStanding.objects.filter(season=past).count() == len(stored)
    # The current season, worked out live, does follow the correction.
    live = {r.user.username: r.rating for r in season_table(now, VISITOR)}
    assert live["p0"] == pytest.approx(PlayerRating.objects.get(ladder=ladder, user=p[0]).rating)


def test_the_periodic_task_stores_each_ended_season_once(played):
    ladder, p, past, now = played
    upcoming = season(ladder, "Autumn", TODAY + timedelta(days=31), TODAY + timedelta(days=90))
    assert freeze_seasons.delay().get() == 1  # the task, through Celery (eager in tests)
    past.refresh_from_db()
    now.refresh_from_db()
    upcoming.refresh_from_db()
    assert past.frozen_at is not None and now.frozen_at is None and upcoming.frozen_at is None
    count = SeasonStanding.objects.filter(season=past).count()
    assert count == 4
    assert freeze_due_seasons() == 0  # never twice
    assert SeasonStanding.objects.filter(season=past).count() == count
    assert season_table(upcoming, VISITOR) == []


def test_the_archive_waits_for_a_result_played_in_the_season(club, make_match: MakeMatch):
    """A match played on the last day and confirmed after it counts in the archived table."""
    ladder, p = club
    late = season(ladder, "Late", TODAY - timedelta(days=20), TODAY - timedelta(days=3))
    make_match(ladder, [p[0]], [p[1]], [(21, 12), (21, 13)], TODAY - timedelta(days=10))
    rate_ladder(ladder.pk)
    waiting = make_match(
        ladder, [p[2]], [p[3]], [(21, 17), (21, 17)], TODAY - timedelta(days=3), state="pending"
    )
    assert freeze_due_seasons() == 0
    assert [r.user for r in season_table(late, VISITOR)] != []
    late.refresh_from_db()
    assert late.frozen_at is None and not late.standings.exists()
    waiting.state, waiting.needs_rating = "confirmed", True
    waiting.save()
    assert freeze_due_seasons() == 0  # confirmed, not rated yet
    rate_ladder(ladder.pk)
    assert freeze_due_seasons() == 1
    stored = {s.user.username: s for s in late.standings.all()}
    assert set(stored) == {"p0", "p1", "p2", "p3"}
    assert (stored["p2"].wins, stored["p3"].losses) == (1, 1)


def test_a_season_nobody_played_in_is_an_empty_table(club):
    ladder, _ = club
    quiet = season(ladder, "Winter", TODAY - timedelta(days=20), TODAY - timedelta(days=10))
    assert season_table(quiet, VISITOR) == []
    quiet.refresh_from_db()
    assert quiet.frozen_at is not None and not quiet.standings.exists()


def test_hidden_members_are_left_out_and_the_rest_ranked_without_a_gap(played, mod):
    ladder, p, past, now = played
    everyone = season_table(now, VISITOR)
    top = everyone[0].user
    hide(ladder=ladder, user=top)
    seen = season_table(now, VISITOR)
    assert top not in [r.user for r in seen]
    assert [r.rank for r in seen] == [1, 2, 3]
    assert [r.user for r in seen] == [r.user for r in everyone[1:]]
    assert season_table(now, Viewer.of(top))[0].user == top  # they see themselves
    assert len(season_table(now, Viewer.of(mod))) == 4  # moderators see everyone
    # The archive too: stored with everyone, shown by the rule.
    hidden_past = season_table(past, Viewer.of(mod))[0].user
    hide(ladder=ladder, user=hidden_past)
    assert hidden_past not in [r.user for r in season_table(past, VISITOR)]
    assert len(season_table(past, Viewer.of(mod))) == len(
        SeasonStanding.objects.filter(season=past)
    )


def test_live_rows_reads_one_query(played, django_assert_num_queries):
    ladder, p, past, now = played
    with django_assert_num_queries(1):
        live_rows(now, TODAY)


# ---- defining seasons --------------------------------------------------------------------


@pytest.mark.parametrize(
    "first, last, message",
    [
        (-25, -10, "These days overlap Summer"),  # shares sixteen days
        (30, 60, "These days overlap Summer"),  # shares the last day
        (-100, 100, "These days overlap Spring"),  # around both
        (50, 40, "The last day cannot be before the first day."),
    ],
)
def test_a_bad_season_is_refused_and_nothing_changes(played, first, last, message):
    ladder, p, past, now = played
    before = list(Season.objects.values_list("pk", "name", "starts_on", "ends_on"))
    with pytest.raises(SeasonError, match=message):
        season(ladder, "Clash", TODAY + timedelta(days=first), TODAY + timedelta(days=last))
    assert list(Season.objects.values_list("pk", "name", "starts_on", "ends_on")) == before


def test_seasons_may_touch_and_other_ladders_may_share_days(played):
    ladder, p, past, now = played
    after = season(
        ladder, "Autumn", now.ends_on + timedelta(days=1), now.ends_on + timedelta(days=60)
    )
    assert after.pk is not None
    other = LadderFactory(name="Other", slug="other")
    assert season(other, "Summer", now.starts_on, now.ends_on).pk is not None


def test_a_second_season_at_the_same_address_is_refused(played):
    ladder, p, past, now = played
    with pytest.raises(SeasonError, match="already has a season at this address"):
        save_season(
            Season(
                ladder=ladder,
                name="Again",
                slug="summer",
                starts_on=TODAY + timedelta(days=40),
                ends_on=TODAY + timedelta(days=50),
            )
        )
    assert Season.objects.filter(ladder=ladder).count() == 2


def test_an_archived_seasons_days_do_not_change(played):
    ladder, p, past, now = played
    season_table(past, VISITOR)
    past.refresh_from_db()
    past.ends_on = past.ends_on - timedelta(days=1)
    with pytest.raises(SeasonError, match="archived: its days can no longer change"):
        save_season(past)
    past.refresh_from_db()
    assert past.ends_on == TODAY - timedelta(days=31)
    past.name = "Spring 2026"  # its name may change
    save_season(past)
    assert Season.objects.get(pk=past.pk).name == "Spring 2026"


def test_deleting_a_season_keeps_the_ratings(played):
    ladder, p, past, now = played
    season_table(past, VISITOR)
    ratings = list(PlayerRating.objects.values_list("user_id", "rating", "rd"))
    delete_season(past)
    assert not Season.objects.filter(pk=past.pk).exists()
    assert not SeasonStanding.objects.filter(season_id=past.pk).exists()
    assert list(PlayerRating.objects.values_list("user_id", "rating", "rd")) == ratings


@pytest.mark.skipif(connection.vendor != "postgresql", reason="an exclusion constraint")
def test_the_database_refuses_overlapping_seasons_too(played):
    ladder, p, past, now = played
    with pytest.raises(IntegrityError), transaction.atomic():
        Season.objects.create(
            ladder=ladder, name="Sneaky", slug="sneaky", starts_on=now.ends_on, ends_on=now.ends_on
        )
    with pytest.raises(IntegrityError), transaction.atomic():
        Season.objects.create(
            ladder=ladder,
            name="Backwards",
            slug="backwards",
            starts_on=TODAY + timedelta(days=90),
            ends_on=TODAY + timedelta(days=80),
        )
    assert Season.objects.filter(ladder=ladder).count() == 2


# ---- the API -----------------------------------------------------------------------------


def test_api_lists_a_ladders_seasons(client, played):
    ladder, p, past, now = played
    response = client.get(f"/api/v1/ladders/{ladder.slug}/seasons/")
    assert response.status_code == 200
    body = response.json()
    assert [(s["slug"], s["name"], s["starts_on"], s["ends_on"], s["state"]) for s in body] == [
        ("summer", "Summer", now.starts_on.isoformat(), now.ends_on.isoformat(), "current"),
        ("spring", "Spring", past.starts_on.isoformat(), past.ends_on.isoformat(), "over"),
    ]
    assert body[0]["page"].endswith(f"/ladders/{ladder.slug}/seasons/summer/")


def test_api_standings(client, played):
    ladder, p, past, now = played
    response = client.get(f"/api/v1/ladders/{ladder.slug}/seasons/summer/standings/")
    assert response.status_code == 200
    rows = response.json()
    table = season_table(now, VISITOR)
    assert [r["username"] for r in rows] == [r.user.username for r in table]
    first = rows[0]
    assert set(first) >= {"username", "rank", "rating", "change", "matches", "wins", "losses"}
    assert first["rank"] == 1
    assert first["rating"] == pytest.approx(table[0].rating)
    assert first["rating_display"] == f"{table[0].rating / 1000:.2f}"
    sign = "+" if table[0].change > 0 else "\u2212"
    assert first["change_display"] == f"{sign}{abs(table[0].change) / 1000:.2f}"
    assert (first["matches"], first["wins"], first["losses"]) == (
        table[0].matches,
        table[0].wins,
        table[0].losses,
    )
    # The archived season answers from its stored table.
    assert client.get(f"/api/v1/ladders/{ladder.slug}/seasons/spring/standings/").status_code == 200
    assert SeasonStanding.objects.filter(season=past).exists()


def test_api_standings_unknown_season_or_unseen_ladder_is_404(
    client, played, private_ladder, outsider
):
    ladder, p, past, now = played
    assert client.get(f"/api/v1/ladders/{ladder.slug}/seasons/nope/standings/").status_code == 404
    season(private_ladder, "Squad season", TODAY - timedelta(days=5), TODAY + timedelta(days=5))
    login(client, outsider)
    assert client.get("/api/v1/ladders/squad/seasons/").status_code == 404
    assert client.get("/api/v1/ladders/squad/seasons/squad-season/standings/").status_code == 404


def test_api_standings_leave_hidden_members_out(client, played):
    ladder, p, past, now = played
    hide(ladder=ladder, user=p[0])
    rows = client.get(f"/api/v1/ladders/{ladder.slug}/seasons/summer/standings/").json()
    assert "p0" not in [r["username"] for r in rows]
    assert [r["rank"] for r in rows] == list(range(1, len(rows) + 1))


# ---- pages -------------------------------------------------------------------------------


def test_the_ladder_page_shows_the_current_seasons_table(client, played):
    ladder, p, past, now = played
    html = client.get(f"/ladders/{ladder.slug}/").content.decode()
    assert 'id="season"' in html and "Summer" in html
    top = season_table(now, VISITOR)[0]
    assert f"{top.rating / 1000:.2f}" in html
    html = client.get(f"/ladders/{ladder.slug}/seasons/spring/").content.decode()
    assert "the table as it stood on" in html
    for row in season_table(past, VISITOR):
        assert row.user.name in html


def test_no_current_season_no_table_on_the_ladder_page(client, club):
    ladder, _ = club
    html = client.get(f"/ladders/{ladder.slug}/").content.decode()
    assert 'id="season"' not in html


def test_a_moderator_adds_a_season_on_the_page(client, played, mod):
    ladder, p, past, now = played
    login(client, mod)
    url = f"/ladders/{ladder.slug}/seasons/"
    data = {
        "name": "Autumn",
        "slug": "autumn",
        "starts_on": (now.ends_on + timedelta(days=1)).isoformat(),
        "ends_on": (now.ends_on + timedelta(days=90)).isoformat(),
    }
    response = client.post(url, data)
    assert response.status_code == 302
    autumn = Season.objects.get(ladder=ladder, slug="autumn")
    assert (autumn.starts_on, autumn.ends_on) == (
        now.ends_on + timedelta(days=1),
        now.ends_on + timedelta(days=90),
    )
    # Overlapping: refused with the reason, nothing saved.
    clash = dict(data, slug="clash", name="Clash")
    response = client.post(url, clash)
    assert response.status_code == 400
    assert "These days overlap Autumn" in response.content.decode()
    assert not Season.objects.filter(slug="clash").exists()
    # Edit and delete.
    edit = f"/ladders/{ladder.slug}/seasons/autumn/edit/"
    assert client.post(edit, dict(data, name="Autumn 2026")).status_code == 302
    assert Season.objects.get(pk=autumn.pk).name == "Autumn 2026"
    assert client.post(edit, {"delete": "1"}).status_code == 302
    assert not Season.objects.filter(pk=autumn.pk).exists()


def test_a_member_may_not_define_seasons(client, played, alice):
    ladder, p, past, now = played
    login(client, alice)
    url = f"/ladders/{ladder.slug}/seasons/"
    data = {"name": "Mine", "slug": "mine", "starts_on": "2030-01-01", "ends_on": "2030-02-01"}
    assert client.post(url, data).status_code == 403
    assert (
        client.post(f"/ladders/{ladder.slug}/seasons/summer/edit/", {"delete": "1"}).status_code
        == 403
    )
    assert not Season.objects.filter(slug="mine").exists()
    assert Season.objects.filter(pk=now.pk).exists()
    assert "Add a season" not in client.get(url).content.decode()


def test_the_seasons_page_lists_every_season(client, played):
    ladder, p, past, now = played
    html = client.get(f"/ladders/{ladder.slug}/seasons/").content.decode()
    assert "Summer" in html and "Spring" in html and "archived" in html
    assert client.get(f"/ladders/{ladder.slug}/seasons/nope/").status_code == 404


def test_a_private_ladders_seasons_are_404_to_strangers(client, private_ladder, alice, outsider):
    season(private_ladder, "Squad season", TODAY - timedelta(days=5), TODAY + timedelta(days=5))
    for url in ("/ladders/squad/seasons/", "/ladders/squad/seasons/squad-season/"):
        assert client.get(url).status_code == 404
        login(client, outsider)
        assert client.get(url).status_code == 404
        login(client, alice)
        assert client.get(url).status_code == 200
        client.logout()


def test_a_visitor_may_not_post_a_season(client, played):
    ladder, p, past, now = played
    data = {"name": "Mine", "slug": "mine", "starts_on": "2030-01-01", "ends_on": "2030-02-01"}
    assert client.post(f"/ladders/{ladder.slug}/seasons/", data).status_code == 403
    edit = client.get(f"/ladders/{ladder.slug}/seasons/summer/edit/")
    assert edit.status_code == 302 and "/accounts/login/" in edit["Location"]
    assert not Season.objects.filter(slug="mine").exists()
