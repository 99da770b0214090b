"""A club night under load (issue 17 item 4), for Locust; benchmarks/clubnight_load.py runs it
against the production processes and checks the database afterwards.

Two kinds of users, in the ratio of ``--members`` to ``--visitors`` (Locust's class weights
are set from LADDER_LOAD_MEMBERS / LADDER_LOAD_VISITORS):

- **Member** (API, token auth as a phone app or script would): looks at their inbox and
  confirms what was reported against them, now and then reports a match they "played"
  against another member, and glances at the leaderboard.
- **Visitor** (signed out, no cookie, as a browser): the ladder list, the leaderboard (first
  page, a later page, a search), player pages and head-to-heads.

LADDER_LOAD_TOKENS names a JSON file ``{"ladder": slug, "members": {username: token}}`` the
runner wrote. Every match a member reported (201) and every confirmation that succeeded are
written to LADDER_LOAD_RESULTS when the test stops, for the runner's database checks.
"""

from __future__ import annotations

import json
import os
import random
import threading
from datetime import date
from pathlib import Path
from typing import Any

from locust import HttpUser, between, events, task

SETUP = json.loads(Path(os.environ["LADDER_LOAD_TOKENS"]).read_text())
SLUG = SETUP["ladder"]
TOKENS: dict[str, str] = SETUP["members"]
NAMES = sorted(TOKENS)
HEADERS = {"X-Forwarded-Proto": "https"}  # as behind the site's TLS proxy

# Seconds between one action and the next (LADDER_LOAD_THINK="member_min,member_max,
# visitor_min,visitor_max"). The defaults: a member glances at their phone every ~30 s and
# reports a match every ~4.5 min (one action in nine), far more often than anyone plays; a
# visitor reads a page for ~25 s.
_think = [float(x) for x in os.environ.get("LADDER_LOAD_THINK", "15,45,10,40").split(",")]
THINK = {"member": (_think[0], _think[1]), "visitor": (_think[2], _think[3])}

reported: list[int] = []
confirmed: list[int] = []
free = list(NAMES)  # each Member takes its own name
lock = threading.Lock()


@events.test_stop.add_listener
def write_results(**_: Any) -> None:
    with open(os.environ["LADDER_LOAD_RESULTS"], "w") as out:
        json.dump({"reported": reported, "confirmed": confirmed}, out)


class Member(HttpUser):
    weight = int(os.environ.get("LADDER_LOAD_MEMBERS", "200"))
    wait_time = between(*THINK["member"])

    def on_start(self) -> None:
        with lock:
            self.username = free.pop() if free else random.choice(NAMES)
        self.headers = {**HEADERS, "Authorization": f"Token {TOKENS[self.username]}"}

    @task(6)
    def inbox_and_confirm(self) -> None:
        response = self.client.get("/api/v1/inbox/", headers=self.headers, name="API inbox")
        if response.status_code != 200:
            return
        for match in response.json()["to_confirm"]:
            confirm = self.client.post(
                f"/api/v1/matches/{match['id']}/confirm/",
                json={},
                headers=self.headers,
                name="API confirm",
            )
            if confirm.status_code == 200:
                confirmed.append(match["id"])

    @task(1)
    def report(self) -> None:
        opponent = random.choice([n for n in NAMES if n != self.username])
        games = [
            [21, random.randint(0, 19)],
            [random.randint(0, 19), 21],
            [21, random.randint(0, 19)],
        ]
        if random.random() < 0.5:
            games = games[:1] + games[2:]
        response = self.client.post(
            "/api/v1/matches/",
            json={
                "ladder": SLUG,
                "played_on": date.today().isoformat(),
                "side_a": [self.username],
                "side_b": [opponent],
                "games": games,
            },
            headers=self.headers,
            name="API report",
        )
        if response.status_code == 201:
            reported.append(response.json()["id"])

    @task(2)
    def leaderboard(self) -> None:
        self.client.get(
            f"/api/v1/ladders/{SLUG}/leaderboard/", headers=self.headers, name="API leaderboard"
        )


class Visitor(HttpUser):
    weight = int(os.environ.get("LADDER_LOAD_VISITORS", "500"))
    wait_time = between(*THINK["visitor"])

    def get(self, path: str, name: str) -> None:
        self.client.get(path, headers=HEADERS, name=name)

    @task(5)
    def leaderboard(self) -> None:
        self.get(f"/ladders/{SLUG}/", "leaderboard")

    @task(1)
    def leaderboard_page(self) -> None:
        self.get(f"/ladders/{SLUG}/?page={random.randint(2, 4)}", "leaderboard, a later page")

    @task(1)
    def search(self) -> None:
        self.get(f"/ladders/{SLUG}/?q={random.choice(NAMES)[:-1]}", "leaderboard search")

    @task(4)
    def player(self) -> None:
        self.get(f"/players/{random.choice(NAMES)}/", "player page")

    @task(1)
    def head_to_head(self) -> None:
        a, b = random.sample(NAMES, 2)
        self.get(f"/ladders/{SLUG}/head-to-head/?a={a}&b={b}", "head-to-head")

    @task(1)
    def ladders(self) -> None:
        self.get("/ladders/", "ladder list")
