"""The browser table's server refuses what it must (``widderkopf_env.agents.web_play``):
a wrong Host header (DNS rebinding), a missing or wrong key or session token, oversized,
chunked or malformed bodies, stale and replayed moves; each gets a 4xx status with a
one-line reason, and the game is unchanged afterwards. No answer carries a CORS header;
sessions are bounded; a bot that fails stops the match with a message, and the error's
text (which may name the bot's cards) does not reach the page.
"""

from __future__ import annotations

import json

import pytest
from web_client import Client, running_table

from widderkopf_env.agents.web_play import MAX_BODY, MAX_SESSIONS, TOKEN_HEADER, TableConfig
from widderkopf_env.registry import load_agent


@pytest.fixture
def table():
    config = TableConfig(opponent="heuristic", make_bot=lambda: load_agent("heuristic"),
                         seed=11, hands=2)
    with running_table(config) as server:
        yield server, Client(server)


def refused(status: int, body: bytes, expected: int) -> str:
    """The one-line reason of a refusal with status ``expected``."""
    assert status == expected, (status, body)
    reason = json.loads(body)["error"]
    assert reason and "\n" not in reason
    return reason


def test_wrong_host_header_is_refused(table):
    server, client = table
    before = client.post("/api/state")
    port = server.server_address[1]
    for host in (f"evil.example:{port}", f"localhost:{port}", "127.0.0.1", None,
                 f"127.0.0.1:{port + 1}"):
        status, body = client.post("/api/move", {"step": 0, "action": 36}, {"Host": host})
        assert "answers only requests for 127.0.0.1:" in refused(status, body, 421)
        status, body = client.get(f"/?key={server.key}", {"Host": host})
        refused(status, body, 421)
    assert client.post("/api/state") == before


def test_the_page_needs_the_key_and_the_api_the_token(table):
    server, client = table
    before = client.post("/api/state")
    wrong = server.key[:-1] + ("y" if server.key[-1] != "y" else "z")
    for path in ("/", "/?key=", "/?key=" + wrong, "/?key=" + server.key + "x"):
        assert "wrong key" in refused(*client.get(path), 403)
    refused(*client.get("/favicon.ico"), 404)
    opened = len(server.sessions)
    assert client.request("HEAD", f"/?key={server.key}")[0] == 405  # opens no session
    assert len(server.sessions) == opened
    for token in (None, "", "x" * 32, client.token + "x"):
        status, body = client.post("/api/move", {"step": before[0], "action": 36},
                                   {TOKEN_HEADER: token})
        assert TOKEN_HEADER in refused(status, body, 403)
    assert client.post("/api/state") == before


def test_bad_bodies_are_refused_and_change_nothing(table):
    server, client = table
    before = client.post("/api/state")
    step = client.state()["step"]
    move = json.dumps({"step": step, "action": client.state()["legal"][0]["action"]}).encode()
    cases = [
        (move + b" " * MAX_BODY, {}, 413),
        (move, {"Content-Length": None}, 411),
        (move, {"Transfer-Encoding": "chunked"}, 411),
        (move, {"Content-Length": "ten"}, 400),
        (b"{", {}, 400), (b"[1, 2]", {}, 400), (b"\xff\xfe", {}, 400), (b"", {}, 400),
    ]
    for body, headers, status in cases:
        refused(*client.post("/api/move", body, headers), status)
    refused(*client.post("/api/nothing", {}), 404)
    refused(*client.request("PUT", "/api/move", move, {TOKEN_HEADER: client.token}), 405)
    refused(*client.request("OPTIONS", "/api/move", b"", {"Origin": "http://evil.example"}), 405)
    assert client.post("/api/state") == before


def test_replayed_and_refused_moves_change_nothing(table):
    server, client = table
    state = client.state()
    move = {"step": state["step"], "action": state["legal"][0]["action"]}
    status, after = client.post("/api/move", move)
    assert status == 200
    assert "repeated or out-of-date" in refused(*client.post("/api/move", move), 409)
    assert client.post("/api/state")[1] == after
    step = json.loads(after)["step"]
    for body in ({"step": step, "action": 99}, {"step": step, "action": "36"},
                 {"step": step, "action": 36.0}, {"step": step, "action": True},
                 {"step": step, "text": "no such move"}, {"step": step},
                 {"step": str(step), "action": 36}):
        status, reason = client.post("/api/move", body)
        assert status in (409, 422), (body, status, reason)
        assert client.post("/api/state")[1] == after
    refused(*client.post("/api/new", {"match": 1}), 409)
    assert "only a hand that is over" in refused(*client.post("/api/review", {"hand": 0}), 422)
    assert client.post("/api/state")[1] == after


def test_no_answer_carries_a_cors_header(table):
    server, client = table
    for method, path, headers in (("GET", f"/?key={server.key}", {}),
                                  ("POST", "/api/state", {TOKEN_HEADER: client.token}),
                                  ("POST", "/api/state", {}),
                                  ("OPTIONS", "/api/state", {})):
        client.request(method, path, b"{}" if method == "POST" else None,
                       headers | {"Origin": "http://evil.example"})
        assert not any(h.lower().startswith("access-control-") for h in client.last_headers)
        assert client.last_headers.get("X-Frame-Options") == "DENY"


def test_sessions_are_bounded(table):
    server, first = table
    clients = [Client(server) for _ in range(MAX_SESSIONS)]
    assert len(server.sessions) == MAX_SESSIONS
    refused(*first.post("/api/state"), 403)  # the session idle longest was closed
    assert all(c.post("/api/state")[0] == 200 for c in clients)


class FailingBot:
    """Makes the first legal move until its fourth decision, then raises."""

    def __init__(self):
        self.moves = 0

    def act(self, view):
        self.moves += 1
        if self.moves == 4:
            raise ValueError(f"secret: my hand is {view.hand}")
        return view.legal_actions()[0]


def test_a_failing_bot_stops_the_match_with_a_message(capsys):
    config = TableConfig(opponent="failing", make_bot=FailingBot, seed=3)
    with running_table(config) as server:
        client = Client(server)
        state = client.state()
        while not state["over"]:
            state = client.call("/api/move", {"step": state["step"],
                                              "action": state["legal"][0]["action"]})
        summary = state["summary"]
        assert summary["result"] == "stopped"
        assert summary["failed"].startswith("The bot (failing) failed (ValueError)")
        assert state["legal"] == [] and state["events"][-1] == summary["failed"]
        status, body = client.post("/api/state")
        assert b"secret" not in body and status == 200
        refused(*client.post("/api/move", {"step": state["step"], "action": 36}), 422)
        state = client.call("/api/new", {"match": 0})  # a new match starts
        assert state["match"] == 1 and state["step"] >= 0
    assert "ValueError: secret" in capsys.readouterr().err  # the operator's console has it
