"""A browser table (:mod:`widderkopf_env.agents.web_play`) served from a thread, and a raw
HTTP client for it: the helpers of tests/agents/test_web_*.py."""

from __future__ import annotations

import contextlib
import http.client
import json
import re
import threading

from widderkopf_env.agents.web_play import TOKEN_HEADER, TableConfig, TableServer


@contextlib.contextmanager
def running_table(config: TableConfig):
    """A :class:`TableServer` for ``config`` on a free port of 127.0.0.1, serving in a
    thread; stopped on exit."""
    server = TableServer(config)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


class Client:
    """One page load of ``server``: ``token`` is the session's; :meth:`post` sends raw
    requests (any Host, token or body) and returns ``(status, body bytes)``."""

    def __init__(self, server: TableServer):
        self.server = server
        self.host, self.port = server.server_address[:2]
        status, html = self.get("/?key=" + server.key)
        assert status == 200, html
        self.token = re.search(rb'name="widderkopf-token" content="([^"]+)"', html)[1].decode()

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict | None = None) -> tuple[int, bytes]:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
        try:
            conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
            head = {"Host": self.server.allowed_host} | (headers or {})
            if body is not None and "Content-Length" not in head:
                head["Content-Length"] = str(len(body))
            for name, value in head.items():
                if value is not None:
                    conn.putheader(name, value)
            conn.endheaders(body)
            response = conn.getresponse()
            self.last_headers = dict(response.getheaders())
            return response.status, response.read()
        finally:
            conn.close()

    def get(self, path: str, headers: dict | None = None) -> tuple[int, bytes]:
        return self.request("GET", path, headers=headers)

    def post(self, path: str, body=None, headers: dict | None = None) -> tuple[int, bytes]:
        raw = body if isinstance(body, bytes) else json.dumps(body or {}).encode()
        return self.request("POST", path, raw, {TOKEN_HEADER: self.token} | (headers or {}))

    def call(self, path: str, body=None) -> dict:
        """A request that must succeed: its JSON answer."""
        status, raw = self.post(path, body)
        assert status == 200, (status, raw)
        return json.loads(raw)

    def state(self) -> dict:
        return self.call("/api/state")
