"""Issue 37: every number a member reads agrees with the others on the page, on the demo.
A change shown beside ratings is their difference (before + change = after on every row),
a change that reads 0.00 is neither up nor down, win chances are percentages, and the
season table ranks whom the leaderboard ranks."""

from __future__ import annotations

import re
from decimal import Decimal
from html import unescape
from io import StringIO

import time_machine
from django.core.management import call_command
from django.test import TestCase, override_settings
from django.utils import timezone

from accounts.models import User
from ladder.clubs.formatting import format_rating
from ladder.clubs.models import Ladder
from ladder.matches.models import Match
from ratings.models import PROVISIONAL, RANKED, PlayerRating, RatingChange, active_since
from ratings.pipeline import bump_board

SIGNED = r"([+\u2212]?\d\.\d\d)"
ARROW = r'<span class="(up|down|muted)" title="[^"]*">(?:▲|▼)?(\d\.\d\d)</span>'


def number(text: str) -> Decimal:
    return Decimal(text.replace("\u2212", "-"))


def arrow(kind: str, size: str) -> Decimal:
    value = Decimal(size)
    assert (kind == "muted") == (value == 0), (kind, size)  # zero is neutral, only zero
    return -value if kind == "down" else value


@time_machine.travel("2026-12-07 18:00Z", tick=False)
@override_settings(DEBUG=True)
class DemoNumbersTests(TestCase):
    @classmethod
    def setUpTestData(cls) -> None:
        with cls.captureOnCommitCallbacks(execute=True):
            call_command("seed_demo", stdout=StringIO())

    def setUp(self) -> None:
        self.client.force_login(User.objects.get(username="mod"))

    def page(self, path: str) -> str:
        response = self.client.get(path)
        assert response.status_code == 200, path
        return unescape(response.content.decode())

    def test_every_match_page_adds_up(self) -> None:
        rows = 0
        for pk in Match.objects.filter(state="confirmed").values_list("pk", flat=True)[:80]:
            page = self.page(f"/matches/{pk}/")
            for before, after, kind, size, explained in re.findall(
                r'<span class="nowrap">(\d\.\d\d) → (\d\.\d\d)</span>\s*'
                + ARROW
                + r'\s*<p class="explain">[^<]*?: '
                + SIGNED,
                page,
            ):
                change = arrow(kind, size)
                assert Decimal(before) + change == Decimal(after), (pk, before, after, change)
                assert number(explained) == change
                rows += 1
            assert "Expected 0." not in page and "xpected 1." not in page
            assert re.search(r"\d+% chance to win|<1% chance to win|>99% chance to win", page)
        assert rows >= 150

    def test_every_player_page_adds_up(self) -> None:
        rows = 0
        for ladder in Ladder.objects.all():
            for user in User.objects.filter(memberships__ladder=ladder):
                page = self.page(f"/players/{user.username}/?ladder={ladder.slug}")
                assert "Expected 0." not in page
                # Each row of the history is one link to its match (issue 37.5).
                found = re.findall(
                    r'<a class="row-link" href="/matches/(\d+)/">(?:(?!</a>).)*?'
                    r'<span class="delta ?(up|down|)">'
                    + SIGNED
                    + r'</span>\s*<span class="after nowrap"[^>]*>→ (\d\.\d\d)</span>'
                    r'(?:(?!</a>).)*?<span class="explain">[^<]*?: ' + SIGNED,
                    page,
                    re.S,
                )
                for match_id, kind, delta, after, explained in found:
                    change = RatingChange.objects.get(user=user, match_id=match_id)
                    before = Decimal(format_rating(change.rating_before))
                    assert before + number(delta) == Decimal(after), (user, match_id)
                    assert number(explained) == number(delta)
                    assert kind == ("up" if number(delta) > 0 else "down" if number(delta) else "")
                    rows += 1
        assert rows >= 300

    def test_the_season_table_adds_up_and_ranks_as_the_leaderboard(self) -> None:
        today = timezone.localdate()
        ranked = unranked = 0
        # Daniel Kim, the best player, not ranked yet (his RD still above the ladder's
        # limit, as the issue saw him): the board says so, and so must the season table.
        PlayerRating.objects.filter(user__username="daniel").update(established_until=None)
        bump_board(*Ladder.objects.values_list("pk", flat=True))
        for ladder in Ladder.objects.all():
            season = ladder.seasons.order_by("-starts_on").first()
            page = self.page(season.get_absolute_url())  # the whole table
            table = page[page.index('class="season-table"') :]
            table = table[: table.index("</table>")]
            rows = re.findall(
                r'<td class="num rank">(.*?)</td>\s*<td class="player"><a href="/players/(\w+)/'
                r'[^"]*">[^<]*</a>.*?</td>\s*<td class="num rating">(\d\.\d\d)(.*?)</td>\s*'
                r'<td class="num trend">' + ARROW,
                table,
            )
            assert rows, ladder
            for rank, username, rating, marks, kind, size in rows:
                first = (
                    RatingChange.objects.filter(ladder=ladder, user__username=username)
                    .filter(played_on__gte=season.starts_on)
                    .order_by("played_on", "match_id")
                    .first()
                )
                start = Decimal(format_rating(first.rating_before))
                assert start + arrow(kind, size) == Decimal(rating), (ladder, username)
                rated = PlayerRating.objects.get(ladder=ladder, user__username=username)
                status = rated.status_on(today, active_since(ladder.lookback_days, today))
                assert rank.strip().isdigit() == (status == RANKED), (ladder, username, status)
                assert ("provisional" in marks) == (status == PROVISIONAL)
                ranked += status == RANKED
                unranked += status != RANKED
        assert ranked and unranked  # the demo has both: the rule is seen at work

    def test_the_member_card_says_when_they_joined_before_their_first_match(self) -> None:
        # Issue 37: "Since 7 December 2026, starting at 4.50" beside three months of matches.
        mei = User.objects.get(username="mei")
        self.client.force_login(mei)
        for membership in mei.memberships.select_related("ladder"):
            first = RatingChange.objects.filter(user=mei, ladder=membership.ladder)
            first_day = first.order_by("played_on").values_list("played_on", flat=True)[0]
            assert timezone.localdate(membership.joined_at) < first_day
            page = self.page(f"/ladders/{membership.ladder.slug}/")
            assert f"Since {membership.joined_at:%-d %B %Y}, starting at" in page
            assert "Since 7 December 2026" not in page
