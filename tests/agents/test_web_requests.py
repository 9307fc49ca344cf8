"""Every request to the browser table's server gets an answer
(``widderkopf_env.agents.web_play``): numeric headers are read strictly, a body's JSON is
parsed within bounds, http.server's own refusals (an unknown method, a malformed request
line) come as the table's JSON with every header of every answer, a fault of the table
is a 500, a new match starts only when the match is over, and a client that hangs up is
let go without a traceback. Every server here listens on 127.0.0.1 only."""

from __future__ import annotations

import json
import socket
import struct
import threading
import time

import pytest
from web_client import Client, running_table

from widderkopf_env.agents.web_match import WebMatch
from widderkopf_env.agents.web_play import MAX_BODY, MAX_DEPTH, TOKEN_HEADER, TableConfig
from widderkopf_env.registry import load_agent

HEADERS = {"Content-Security-Policy", "X-Frame-Options", "X-Content-Type-Options",
           "Cache-Control", "Referrer-Policy", "Content-Type"}


@pytest.fixture
def table():
    config = TableConfig(opponent="heuristic", make_bot=lambda: load_agent("heuristic"),
                         seed=11, hands=2)
    with running_table(config) as server:
        yield server, Client(server)


def refused(client, status: int, body: bytes, expected: int) -> str:
    assert status == expected, (status, body)
    assert HEADERS <= set(client.last_headers), client.last_headers
    reason = json.loads(body)["error"]
    assert reason and "\n" not in reason
    return reason


@pytest.mark.parametrize("length", ["²", "³", "¹", "1_0", "+5", "-1", "0x10", "5, 5", "1e3", ""])
def test_content_length_is_read_strictly(table, length):
    server, client = table
    before = client.post("/api/state")
    reason = refused(client, *client.post("/api/state", b"{}" + b" " * 3,
                                          {"Content-Length": length}), 400)
    assert "Content-Length must be one number of bytes" in reason
    assert client.post("/api/state") == before


def test_a_huge_or_doubled_content_length_is_refused(table):
    server, client = table
    refused(client, *client.post("/api/state", b"{}", {"Content-Length": "9" * 40}), 413)
    raw = raw_request(server, b"POST /api/state HTTP/1.1\r\nHost: " + server.allowed_host.encode()
                      + b"\r\n" + TOKEN_HEADER.encode() + b": " + client.token.encode()
                      + b"\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{} ")
    assert raw.startswith(b"HTTP/1.0 400 ") and b"one number of bytes" in raw


@pytest.mark.parametrize("body", [b"[" * 4000, b"{" * MAX_BODY, b'{"a":' * 600,
                                  b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1),
                                  b'{"step": ' + b"[" * 2000 + b"]" * 2000 + b"}"])
def test_deeply_nested_bodies_get_a_400(table, body):
    server, client = table
    before = client.post("/api/state")
    assert len(body) <= MAX_BODY
    reason = refused(client, *client.post("/api/move", body), 400)
    assert "JSON object" in reason
    assert client.post("/api/state") == before


def test_brackets_inside_strings_are_not_nesting(table):
    server, client = table
    state = client.state()
    status, body = client.post("/api/move", {"step": state["step"], "text": "[" * 100})
    assert status == 422, body  # parsed, and refused as a move


@pytest.mark.parametrize("method", ["FOO", "PROPFIND", "TRACE", "CONNECT", "BREW"])
def test_unknown_methods_get_a_405_with_every_header(table, method):
    server, client = table
    status, body = client.request(method, "/api/state", b"", {TOKEN_HEADER: client.token})
    assert method in refused(client, status, body, 405)
    assert client.last_headers["Allow"] == "GET, POST"
    assert client.last_headers["Content-Security-Policy"] == "default-src 'none'"


def test_a_malformed_request_line_gets_the_tables_answer(table):
    server, client = table
    for line in (b"GARBAGE\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n",
                 b"GET /" + b"x" * 70000 + b" HTTP/1.1\r\n\r\n", b"GET / HTTP/1.1\r\nX: " + b"y" * 70000 + b"\r\n\r\n"):
        raw = raw_request(server, line)
        head, _, body = raw.partition(b"\r\n\r\n")
        assert head.split(b" ")[1] in (b"400", b"414", b"431", b"505"), head
        assert b"Content-Security-Policy: default-src 'none'" in head and b"<html" not in raw.lower()
        assert json.loads(body)["error"]


def test_a_new_match_only_when_the_match_is_over(table):
    server, client = table
    before = client.post("/api/state")
    reason = refused(client, *client.post("/api/new", {"match": 0}), 409)
    assert "match 0 is not over" in reason
    assert client.post("/api/state") == before
    state = client.state()
    while not state["over"]:
        state = client.call("/api/move", {"step": state["step"],
                                          "action": state["legal"][0]["action"]})
    assert client.call("/api/new", {"match": 0})["match"] == 1


def test_a_fault_of_the_table_gets_a_500_and_the_terminal_the_traceback(table, capfd,
                                                                          monkeypatch):
    server, client = table

    def broken(self, hand):
        raise RuntimeError("a fault")

    monkeypatch.setattr(WebMatch, "review", broken)
    reason = refused(client, *client.post("/api/review", {"hand": 0}), 500)
    assert "RuntimeError" in reason and "a fault" not in reason
    assert "RuntimeError: a fault" in capfd.readouterr().err
    assert client.post("/api/state")[0] == 200


def raw_request(server, data: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", server.server_address[1]), timeout=30) as s:
        s.sendall(data)
        chunks = []
        while chunk := s.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def hang_up(server, data: bytes) -> None:
    """Send ``data`` and reset the connection (no answer read)."""
    s = socket.create_connection(("127.0.0.1", server.server_address[1]), timeout=30)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.sendall(data)
    s.close()


def test_clients_that_hang_up_are_let_go_quietly(table, capfd):
    server, client = table
    head = (f"POST /api/state HTTP/1.1\r\nHost: {server.allowed_host}\r\n"
            f"{TOKEN_HEADER}: {client.token}\r\n").encode()
    cut = [b"POST /api/st", head, head + b"Content-Length: 100\r\n\r\n{\"a\": 1",
           head + b"Content-Length: 2\r\n\r\n{}",
           f"GET /?key={server.key} HTTP/1.1\r\nHost: {server.allowed_host}\r\n\r\n".encode()]
    for _ in range(4):
        for data in cut:
            hang_up(server, data)
    for _ in range(600):  # until the server's threads for them are done (bounded)
        if not any("process_request" in t.name for t in threading.enumerate()):
            break
        time.sleep(0.05)
    assert client.post("/api/state")[0] == 200
    err = capfd.readouterr().err
    assert "Traceback" not in err and "Broken" not in err and "reset" not in err, err
