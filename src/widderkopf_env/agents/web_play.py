"""``widderkopf-play --web``: play the bots at a card table in your browser.

    widderkopf-play --web [--no-browser] [--host 127.0.0.1] [--port 0] [--no-record]
                    [--opponent heuristic] [--num-hands N] [--seat 0|1] [--seed S] [--variant V]

A local HTTP server (the standard library's ``ThreadingHTTPServer``) keeps every game;
the page (``web_table.html``, ``.js``, ``.css``, package data: no network, no web fonts)
shows what :meth:`~.web_match.WebMatch.state` returns and sends the moves. Each load of
the page opens a session: one match at a time, then a new one.

The security model of a local server:

- One address (:mod:`.web_address`): ``--host`` is read as an address; one that listens
  on every interface (``0``, ``::0``, ...) is refused unless ``--allow-all-interfaces``
  is given, and one that is not a loopback address gets a warning.
- Only the address it was started on: a request whose ``Host`` header is not exactly
  that ``host:port`` is refused (421), so a web page whose name an attacker points at
  127.0.0.1 (DNS rebinding) gets nothing.
- The page is served only at the printed address, which holds a random key; each load
  of it opens a session whose random token is written into the page, and every API
  request must carry that token in the ``X-Widderkopf-Token`` header. No cookie and no
  CORS header: another site's script can neither send that header nor read an answer,
  and another local user cannot act without the key.
- At most :data:`MAX_SESSIONS` sessions (opening one more closes the one idle longest)
  and request bodies of at most :data:`MAX_BODY` bytes.
- A malformed, oversized, unauthorised or stale request (a move sent for an earlier step,
  such as a repeated request), a body nested more than :data:`MAX_DEPTH` levels, a
  ``Content-Length`` that is not plain digits, an unknown method (405) and a new match
  asked for while one is being played get a 4xx status with a one-line JSON reason,
  with the same headers as every answer, and change nothing; a fault of the table gets
  a 500 (its traceback goes to the terminal); a client that hangs up is let go quietly.
  Ctrl-C stops the server (exit status 130).
"""

from __future__ import annotations

import json
import secrets
import sys
import threading
import traceback
import webbrowser
from collections import OrderedDict
from dataclasses import dataclass
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from urllib.parse import parse_qs, urlsplit

from widderkopf_env.agent import reset_agent
from widderkopf_env.canvas import svg_symbols
from widderkopf_env.cli import UsageError, io_error
from widderkopf_env.picture import CARD_H, CARD_W, SYMBOLS
from widderkopf_env.rules import Game
from widderkopf_env.seeding import derive_seed

from .web_address import host_allowed, listen_address
from .web_match import MoveRefused, StaleMove, WebMatch
from .web_record import MatchRecord, RecordDamaged, match_entry

MAX_SESSIONS = 8  #: open sessions (page loads) at a time
MAX_BODY = 4096  #: bytes in a request body
MAX_DEPTH = 8  #: levels of nesting in a request body (the API's bodies are flat objects)
TOKEN_HEADER = "X-Widderkopf-Token"


@dataclass
class TableConfig:
    """What every match of a server is: the bot (``make_bot()`` a fresh one, shown as
    ``opponent``), the human's seat, the match's hands and variant, the seed (None:
    random), the record. ``new_game(n)``, if given, makes match ``n``'s game and seed
    (tests give scripted deals)."""

    opponent: str
    make_bot: object
    seat: int = 0
    hands: int = 1
    variant: str = "full"
    seed: int | None = None
    record: MatchRecord | None = None
    new_game: object = None

    def game(self, n: int):
        """Match ``n``'s game and deal seed (match 0 plays ``seed`` itself, so that the
        terminal game's ``--seed`` deals the same)."""
        if self.new_game is not None:
            return self.new_game(n)
        if self.seed is None:
            seed = secrets.randbits(32)
        else:
            seed = self.seed if n == 0 else derive_seed(self.seed, "web-match", n) >> 31
        return Game.new(seed=seed, num_hands=self.hands, variant=self.variant), seed


class Session:
    """One page load: its token, its bot and its current match (guarded by ``lock``)."""

    def __init__(self, config: TableConfig):
        self.config, self.lock = config, threading.Lock()
        self.token = secrets.token_urlsafe(24)
        self.nonce = secrets.token_urlsafe(12)
        self.bot = config.make_bot()
        self.number = -1
        self.match: WebMatch | None = None
        self.new_match()

    def new_match(self) -> None:
        c = self.config
        self.number += 1
        game, seed = c.game(self.number)
        reset_agent(self.bot, seed)
        self.match = WebMatch(game, c.seat, self.bot, c.opponent, seed)
        self._finish()

    def _finish(self) -> None:
        """Record a match that just ended and rate the record."""
        m, record = self.match, self.config.record
        if not m.over or m.rating is not None or record is None:
            return
        saved = repeat = None
        if m.failed is None:
            try:
                repeat = not record.add(match_entry(m.game, m.seat, m.opponent, m.seed))
            except OSError as err:
                saved = f"the match could not be recorded: {io_error(err)}"
            except RecordDamaged as err:  # the rating below is of the matches read before
                saved = f"the match could not be recorded: {err}"
        m.rating = record.rating() | {"recorded": str(record.path) if record.path else None,
                                      "save_error": saved, "repeated_deal": repeat}

    def state(self) -> dict:
        return {"match": self.number} | self.match.state()

    def move(self, body: dict) -> dict:
        self.match.act(body.get("step"), body.get("action"), body.get("text"))
        self._finish()
        return self.state()

    def new(self, body: dict) -> dict:
        if body.get("match") != self.number:
            raise StaleMove(f"a new match was asked for from match {body.get('match')!r}, "
                            f"but this page is at match {self.number}: a repeated or "
                            "out-of-date request")
        if not self.match.over:
            raise HttpError(409, f"match {self.number} is not over: a new match starts "
                                 "only when this one has ended")
        self.new_match()
        return self.state()


class HttpError(Exception):
    """A refused request: its status and a one-line reason."""

    def __init__(self, status: int, reason: str):
        super().__init__(reason)
        self.status = status


class TableServer(ThreadingHTTPServer):
    """The HTTP server of :mod:`.web_play` (:data:`allowed_host` is its ``host:port``)."""

    daemon_threads = True
    block_on_close = False

    def __init__(self, config: TableConfig, host: str = "127.0.0.1", port: int = 0,
                 allow_all_interfaces: bool = False):
        self.listen = listen_address(host, allow_all_interfaces)  # refuses a wildcard
        self.address_family = self.listen.family
        super().__init__((self.listen.bind, port), Handler)
        self.config, self.key = config, secrets.token_urlsafe(24)
        self.allowed_host = f"{self.listen.url_host()}:{self.server_address[1]}"
        self.url = f"http://{self.allowed_host}/?key={self.key}"
        self.sessions: OrderedDict[str, Session] = OrderedDict()
        self.sessions_lock = threading.Lock()

    def handle_error(self, request, client_address) -> None:
        """A client that hung up or timed out is let go quietly; anything else is
        printed (the request was answered with a 500 where it could be)."""
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)

    def open_session(self) -> Session:
        session = Session(self.config)
        with self.sessions_lock:
            while len(self.sessions) >= MAX_SESSIONS:
                self.sessions.popitem(last=False)  # the one idle longest
            self.sessions[session.token] = session
        return session

    def session(self, token) -> Session:
        with self.sessions_lock:
            session = self.sessions.get(token) if isinstance(token, str) else None
            if session is None:
                raise HttpError(403, f"missing or unknown {TOKEN_HEADER}: reload the page "
                                     "from the address widderkopf-play printed")
            self.sessions.move_to_end(token)
            return session


@cache
def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


@cache
def _symbols() -> str:
    return svg_symbols(SYMBOLS, (CARD_W, CARD_H))


def page(session: Session) -> str:
    """The HTML page of ``session``: its token, the card pictures, the script and style."""
    parts = {"TOKEN": session.token, "NONCE": session.nonce, "SYMBOLS": _symbols(),
             "STYLE": _asset("web_table.css"), "SCRIPT": _asset("web_table.js")}
    html = _asset("web_table.html")
    for key, value in parts.items():
        html = html.replace("{{" + key + "}}", value)
    return html


class Handler(BaseHTTPRequestHandler):
    """The requests of one connection (see the module documentation for what is refused)."""

    server: TableServer
    timeout = 15  # seconds a connection may take to send its request
    server_version = "widderkopf-play"
    sys_version = ""

    def log_message(self, format, *args):  # no line per request on the terminal
        pass

    def _send(self, status: int, body: bytes, ctype: str, csp: str = "default-src 'none'",
              extra: tuple = ()):
        if getattr(self, "request_version", None) == "HTTP/0.9":
            self.request_version = "HTTP/1.0"  # a malformed line: answered with headers too
        self.send_response(status)
        for name, value in (("Content-Type", ctype), ("Content-Length", str(len(body))),
                            ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff"),
                            ("Referrer-Policy", "no-referrer"), ("X-Frame-Options", "DENY"),
                            ("Content-Security-Policy", csp), ("Connection", "close"), *extra):
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def send_error(self, code: int, message=None, explain=None) -> None:
        """http.server's own refusals (a malformed request line or header, an unknown
        method) as the table's: one-line JSON, every header of every answer."""
        self.close_connection = True
        if code == 501:  # a method http.server has no handler for
            return self._refuse_method()
        self._json(code, {"error": str(message or self.responses.get(code, ("",))[0])[:200]})

    def _json(self, status: int, data: dict, extra: tuple = ()) -> None:
        self._send(status, json.dumps(data, ensure_ascii=False).encode(),
                   "application/json; charset=utf-8", extra=extra)

    def _check_host(self) -> None:
        if not host_allowed(self.headers.get("Host"), self.server.listen,
                            self.server.server_address[1]):
            raise HttpError(421, f"the table answers only requests for "
                                 f"{self.server.allowed_host} (Host header "
                                 f"{self.headers.get('Host')!r})")

    def do_GET(self):
        try:
            self._check_host()
            url = urlsplit(self.path)
            if url.path != "/":
                raise HttpError(404, f"no page {url.path!r}: open the address "
                                     "widderkopf-play printed")
            key = parse_qs(url.query).get("key", [""])[0]
            if not secrets.compare_digest(key.encode(), self.server.key.encode()):
                raise HttpError(403, "missing or wrong key: open the address "
                                     "widderkopf-play printed")
            session = self.server.open_session()
        except HttpError as err:
            return self._json(err.status, {"error": str(err)})
        except Exception as err:  # noqa: BLE001 (answered, and shown on the terminal)
            return self._fault(err)
        n = session.nonce
        self._send(200, page(session).encode(), "text/html; charset=utf-8",
                   f"default-src 'none'; script-src 'nonce-{n}'; style-src 'nonce-{n}'; "
                   "connect-src 'self'; img-src 'self' data:; base-uri 'none'; "
                   "form-action 'none'; frame-ancestors 'none'")

    def _body(self) -> dict:
        if "Transfer-Encoding" in self.headers:
            raise HttpError(411, "send the body with a Content-Length, not chunked")
        lengths = self.headers.get_all("Content-Length") or []
        if not lengths:
            raise HttpError(411, "a Content-Length header is required")
        length = lengths[0].strip()
        if len(lengths) > 1 or not (length.isascii() and length.isdigit()):
            raise HttpError(400, "Content-Length must be one number of bytes (digits 0-9), "
                                 f"got {', '.join(lengths)!r}"[:200])
        if len(length) > 9 or int(length) > MAX_BODY:
            raise HttpError(413, f"the body may hold at most {MAX_BODY} bytes, got {length}"[:200])
        raw = self.rfile.read(int(length))
        if len(raw) != int(length):
            raise HttpError(400, f"the body ended after {len(raw)} of {length} bytes")
        if _depth(raw) > MAX_DEPTH:
            raise HttpError(400, f"the body must be a JSON object nested at most {MAX_DEPTH} "
                                 "levels deep")
        try:
            body = json.loads(raw)
        except (ValueError, UnicodeDecodeError, RecursionError):
            raise HttpError(400, "the body must be a JSON object") from None
        if not isinstance(body, dict):
            raise HttpError(400, "the body must be a JSON object")
        return body

    def do_POST(self):
        routes = {"/api/state": lambda s, b: s.state(), "/api/move": Session.move,
                  "/api/new": Session.new,
                  "/api/review": lambda s, b: s.match.review(b.get("hand"))}
        try:
            self._check_host()
            session = self.server.session(self.headers.get(TOKEN_HEADER))
            route = routes.get(self.path)
            if route is None:
                raise HttpError(404, f"no API {self.path!r}: one of {', '.join(routes)}")
            body = self._body()
            with session.lock:
                try:
                    data = route(session, body)
                except StaleMove as err:
                    raise HttpError(409, str(err)) from None
                except MoveRefused as err:
                    raise HttpError(422, str(err)) from None
        except HttpError as err:
            return self._json(err.status, {"error": str(err)})
        except Exception as err:  # noqa: BLE001 (answered, and shown on the terminal)
            return self._fault(err)
        self._json(200, data)

    def _fault(self, err: Exception) -> None:
        """A fault of the table: shown on the terminal, and the page gets a 500 naming
        only the error's type. A client that is gone gets nothing."""
        if isinstance(err, (ConnectionError, TimeoutError)):
            raise err  # TableServer.handle_error lets it go quietly
        print(f"widderkopf-play: the request {self.command} {self.path!r} failed:",
              file=sys.stderr)
        traceback.print_exception(err, file=sys.stderr)
        self._json(500, {"error": f"the table failed ({type(err).__name__}); the terminal "
                                  "that runs it shows why"})

    def _refuse_method(self):
        self._json(405, {"error": f"{str(self.command)[:20]!r} is not served: GET the page, "
                                  "POST to the API"}, extra=(("Allow", "GET, POST"),))

    do_HEAD = do_PUT = do_DELETE = do_OPTIONS = do_PATCH = _refuse_method


def _depth(raw: bytes) -> int:
    """How deep the JSON text ``raw`` nests arrays and objects (strings skipped)."""
    depth = most = 0
    in_string = escaped = False
    for c in raw:
        if in_string:
            if escaped:
                escaped = False
            elif c == 0x5C:  # backslash
                escaped = True
            elif c == 0x22:  # quote
                in_string = False
        elif c == 0x22:
            in_string = True
        elif c in b"[{":
            depth += 1
            most = max(most, depth)
        elif c in b"]}":
            depth -= 1
    return most


def serve(config: TableConfig, host: str = "127.0.0.1", port: int = 0,
          browser: bool = True, out=None, allow_all_interfaces: bool = False) -> int:
    """Run the table until Ctrl-C: print its address and open it in the browser."""
    out = sys.stdout if out is None else out
    try:
        server = TableServer(config, host, port, allow_all_interfaces)
    except OSError as err:
        raise UsageError(f"cannot serve on {host}:{port}: {io_error(err)}") from None
    if server.listen.warning:
        print(f"widderkopf-play: warning: {server.listen.warning}", file=sys.stderr)
    with server:
        print(f"Widderkopf table against {config.opponent}: {server.url}", file=out)
        print("Open that address in your browser; Ctrl-C stops the table.", file=out)
        if config.record is not None and config.record.path is not None:
            print(f"Matches are recorded in {config.record.path} (--no-record: not).", file=out)
        out.flush()
        if browser:
            threading.Thread(target=webbrowser.open, args=(server.url,), daemon=True).start()
        server.serve_forever(poll_interval=0.2)
    return 0


def run_web(args, out=None) -> int:
    """``widderkopf-play --web`` from the parsed command line (:mod:`.play_cli`)."""
    from .cli_args import load_agents
    from .web_record import FILE_NAME, data_dir

    load_agents(args.opponent, safe=args.safe)  # a spec that does not load ends here
    record = MatchRecord(None if args.no_record else data_dir() / FILE_NAME)
    config = TableConfig(
        opponent=args.opponent, seat=args.seat, hands=args.hands, variant=args.variant,
        seed=args.seed, record=record,
        make_bot=lambda: load_agents(args.opponent, safe=args.safe)[0])
    return serve(config, "127.0.0.1" if args.host is None else args.host, args.port or 0,
                 browser=not args.no_browser, out=out,
                 allow_all_interfaces=args.allow_all_interfaces)
