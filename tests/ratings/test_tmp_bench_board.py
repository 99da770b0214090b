import random, time
from datetime import timedelta
from django.db import connection
from django.test.utils import CaptureQueriesContext
from accounts.models import User
from ladder.models import Match, Membership
from ratings.models import PlayerRating, RatingChange
from tests.factories import LadderFactory
from tests.ratings.pages_support import NOON, TODAY

def test_bench(client, db, time_machine):
    time_machine.move_to(NOON, tick=False)
    ladder = LadderFactory(name="Bench", slug="bench")
    users = User.objects.bulk_create([User(username=f"u{i}", email=f"u{i}@x.org", display_name=f"User {i}") for i in range(10000)])
    Membership.objects.bulk_create([Membership(ladder=ladder, user=u, initial_rating=4500, initial_rd=250, is_public=i % 50 != 0) for i, u in enumerate(users)])
    rnd = random.Random(1)
    PlayerRating.objects.bulk_create([PlayerRating(ladder=ladder, user=u, rating=rnd.uniform(3000, 7000), rd=rnd.uniform(40, 200), volatility=0.06, matches=rnd.randint(1, 60), wins=3, losses=4, last_played=TODAY - timedelta(days=rnd.randint(0, 200))) for u in users])
    matches = Match.objects.bulk_create([Match(ladder=ladder, played_on=TODAY - timedelta(days=rnd.randint(0, 365)), reporter=users[0], state="confirmed") for _ in range(100000)])
    rows = []
    for m in matches:
        a, b = rnd.sample(users, 2)
        for u, side in ((a, "a"), (b, "b")):
            rows.append(RatingChange(match=m, user=u, ladder=ladder, played_on=m.played_on, side=side, rating_before=4500, rd_before=100, volatility_before=0.06, rating_after=4510, rd_after=99, volatility_after=0.06, expected=0.5, outcome=0.6, repetition_weight=1, diversity_ratio=1, gate_open=True, performance_weight=1, change=10))
    RatingChange.objects.bulk_create(rows, batch_size=5000)
    with connection.cursor() as c:
        c.execute("ANALYZE")
    for url in ["/ladders/bench/", "/ladders/bench/?page=150", "/ladders/bench/?q=user 12", "/ladders/bench/?status=ranked&page=20", "/players/u5/", "/api/v1/ladders/bench/leaderboard/", "/players/u5/?page=3"]:
        client.get(url)
        times = []
        for _ in range(5):
            t = time.perf_counter()
            with CaptureQueriesContext(connection) as q:
                r = client.get(url)
            times.append(time.perf_counter() - t)
            assert r.status_code == 200
        slow = sorted(((float(x["time"]), x["sql"][:150]) for x in q.captured_queries), reverse=True)[:2]
        print(url, f"median {sorted(times)[2]*1000:.0f} ms", len(q), slow)
