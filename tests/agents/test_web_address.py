"""``widderkopf-play --web --host``: one address means one address
(``widderkopf_env.agents.web_address``). Every spelling of the unspecified address, which
listens on every interface, is refused before anything is bound unless
``--allow-all-interfaces`` says so; a non-loopback address gets a warning; the Host
header must name the table. No test here binds any address but 127.0.0.1."""

from __future__ import annotations

import io
import socketserver

import pytest

from widderkopf_env.agents.play_cli import main as play_main
from widderkopf_env.agents.web_address import host_allowed, listen_address
from widderkopf_env.agents.web_play import TableConfig, TableServer
from widderkopf_env.cli import UsageError

#: The unspecified address as the issue and the resolver spell it.
EVERYWHERE = ["0", "0x0", "000.000.000.000", "::0", "0:0:0:0:0:0:0:0", "0.0.0.0", "::", "",
              "00", "0.0", "0.0.0", "[::]", "0000:0000::", "::ffff:0.0.0.0"]
LOOPBACK = ["127.0.0.1", "127.1", "0x7f.0.0.1", "017700000001", "localhost", "::1", "[::1]",
            "127.8.9.10"]


@pytest.fixture
def no_binding(monkeypatch):
    """Any bind fails the test: a refused address must be refused before it."""
    def bind(self):
        raise AssertionError(f"bound {self.server_address}")

    monkeypatch.setattr(socketserver.TCPServer, "server_bind", bind)


@pytest.mark.parametrize("host", EVERYWHERE)
def test_every_spelling_of_every_interface_is_refused(host, no_binding):
    with pytest.raises(UsageError, match="every network interface.*--allow-all-interfaces"):
        listen_address(host)
    config = TableConfig(opponent="random", make_bot=lambda: None)
    with pytest.raises(UsageError, match="unspecified address"):
        TableServer(config, host)
    allowed = listen_address(host, allow_all_interfaces=True)
    assert allowed.everywhere and "every network interface" in allowed.warning


@pytest.mark.parametrize("host", ["0", "0x0", "::0", ""])
def test_the_command_refuses_them_in_one_line(host, no_binding, capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    with pytest.raises(SystemExit) as exit_status:
        play_main(["--web", "--no-browser", "--opponent", "random", "--host", host],
                  stdout=io.StringIO())
    err = capsys.readouterr().err
    assert exit_status.value.code == 2 and "Traceback" not in err
    assert err.startswith("usage: ") and err.endswith("\n"), err  # argparse's form
    line = err.splitlines()[-1]
    assert line.startswith(f"widderkopf-play: error: --host {host!r}")
    assert "--allow-all-interfaces" in line


def test_the_flag_goes_with_web(capsys):
    with pytest.raises(SystemExit) as exit_status:
        play_main(["--allow-all-interfaces"], stdin=io.StringIO(""), stdout=io.StringIO())
    assert exit_status.value.code == 2
    assert "--allow-all-interfaces go with --web" in capsys.readouterr().err


@pytest.mark.parametrize("host", LOOPBACK)
def test_loopback_addresses_are_taken_without_a_warning(host):
    address = listen_address(host)
    assert address.ip.is_loopback and not address.everywhere and address.warning is None


@pytest.mark.parametrize("host, ip", [("192.0.2.7", "192.0.2.7"), ("2001:db8::1", "2001:db8::1"),
                                      ("0xc0.0.2.7", "192.0.2.7"), ("[2001:db8::1]", "2001:db8::1")])
def test_other_addresses_get_a_warning(host, ip):
    address = listen_address(host)
    assert str(address.ip) == ip and not address.everywhere
    assert "not a loopback address" in address.warning


@pytest.mark.parametrize("host", ["no such host.invalid", " 0", "1e0", "[0"])
def test_what_is_no_address_is_refused(host):
    with pytest.raises(UsageError, match="not an address the computer can listen on"):
        listen_address(host)


def test_the_server_binds_and_names_the_address_found(no_binding, monkeypatch):
    monkeypatch.undo()  # this one binds: 127.0.0.1 only
    server = TableServer(TableConfig(opponent="random", make_bot=lambda: None), "0x7f.0.0.1")
    try:
        assert server.server_address[0] == "127.0.0.1"
        assert server.allowed_host == f"127.0.0.1:{server.server_address[1]}"
        assert server.url.startswith(f"http://127.0.0.1:{server.server_address[1]}/?key=")
    finally:
        server.server_close()


def test_the_host_header_names_the_table():
    one = listen_address("127.0.0.1")
    assert host_allowed("127.0.0.1:80", one, 80)
    for header in ("localhost:80", "127.0.0.1:81", "127.1:80", None, "127.0.0.1", "0x7f.0.0.1:80"):
        assert not host_allowed(header, one, 80), header
    six = listen_address("::1")
    assert host_allowed("[::1]:80", six, 80) and not host_allowed("::1:80", six, 80)
    every = listen_address("0.0.0.0", allow_all_interfaces=True)
    for header in ("127.0.0.1:80", "192.0.2.7:80", "[::1]:80"):
        assert host_allowed(header, every, 80), header
    for header in ("evil.example:80", "localhost:80", "192.0.2.7:81", "127.1:80", "::1:80",
                   "[127.0.0.1]:80", None, ""):
        assert not host_allowed(header, every, 80), header
