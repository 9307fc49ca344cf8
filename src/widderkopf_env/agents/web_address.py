"""The address the browser table (``widderkopf-play --web``) listens on: one address.

``--host`` is read as the operating system reads it (``127.1``, ``0x7f.0.0.1`` and a
name such as ``localhost`` are 127.0.0.1; ``0``, ``0x0``, ``000.000.000.000``, ``::0``
and ``0:0:0:0:0:0:0:0`` are the unspecified address) and checked as an address
(:mod:`ipaddress`), never as text. An unspecified address listens on every interface
of the machine, and is refused unless ``--allow-all-interfaces`` says so; any address
that is not a loopback one gets a warning: other machines can reach the table, with the
key of its address as the only guard. The server binds the address found, and names it
in the address it prints.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass

from widderkopf_env.cli import UsageError

ALL_INTERFACES_FLAG = "--allow-all-interfaces"


@dataclass(frozen=True)
class ListenAddress:
    """Where the table listens: ``ip`` (an :mod:`ipaddress` address), whether that is
    every interface (``everywhere``), and the warning to print (None for a loopback
    address)."""

    ip: ipaddress.IPv4Address | ipaddress.IPv6Address
    everywhere: bool
    warning: str | None

    @property
    def family(self) -> int:
        return socket.AF_INET6 if self.ip.version == 6 else socket.AF_INET

    @property
    def bind(self) -> str:
        """The address to bind, as the socket takes it."""
        return str(self.ip)

    def url_host(self) -> str:
        """The host part of the printed address (a loopback one where the table listens
        everywhere, for a browser on the same computer)."""
        ip = self.ip
        if self.everywhere:
            ip = ipaddress.ip_address("::1" if ip.version == 6 else "127.0.0.1")
        return f"[{ip}]" if ip.version == 6 else str(ip)


def _unwrap(ip):
    """An IPv4 address written as IPv6 (``::ffff:0.0.0.0``) is that IPv4 address."""
    mapped = getattr(ip, "ipv4_mapped", None)
    return mapped if mapped is not None else ip


def listen_address(host: str, allow_all_interfaces: bool = False) -> ListenAddress:
    """The address ``--host host`` means (see the module documentation); a
    :class:`UsageError` says why not."""
    text = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if text == "":
        found = [ipaddress.ip_address("0.0.0.0")]  # what bind("") means
    else:
        try:
            found = [ipaddress.ip_address(text)]
        except ValueError:
            found = _resolve(host, text)
    ip = found[0]
    everywhere = any(_unwrap(a).is_unspecified for a in found)
    if everywhere and not allow_all_interfaces:
        raise UsageError(f"--host {host!r} is the unspecified address "
                         f"({_unwrap(ip) if text else 'the empty one'}), which listens on "
                         "every network interface of the computer, so that other machines "
                         "can reach the table: give one address (default 127.0.0.1), or add "
                         f"{ALL_INTERFACES_FLAG} if that is what you want")
    warning = None
    if everywhere:
        warning = (f"--host {host!r} listens on every network interface "
                   f"({ALL_INTERFACES_FLAG}): other machines can reach the table; the key "
                   "in its address is the only guard")
    elif not all(_unwrap(a).is_loopback for a in found):
        warning = (f"--host {host!r} ({ip}) is not a loopback address: other machines can "
                   "reach the table; the key in its address is the only guard")
    return ListenAddress(ip, everywhere, warning)


def _resolve(host: str, text: str) -> list:
    try:
        infos = socket.getaddrinfo(text, None, socket.AF_UNSPEC, socket.SOCK_STREAM)
    except (OSError, UnicodeError) as err:
        raise UsageError(f"--host {host!r} is not an address the computer can listen on "
                         f"({getattr(err, 'strerror', None) or err}): give an address such as "
                         "127.0.0.1 or ::1") from None
    found = []
    for *_, sockaddr in infos:
        ip = ipaddress.ip_address(sockaddr[0].split("%", 1)[0])
        if ip not in found:
            found.append(ip)
    return found


def host_allowed(header: str | None, listen: ListenAddress, port: int) -> bool:
    """Whether a request's ``Host`` header names the table: exactly its address and port;
    where it listens everywhere, any address written as a number (never a name, which an
    attacker's DNS could point here) with its port."""
    if header is None:
        return False
    if not listen.everywhere:
        return header == f"{listen.url_host()}:{port}"
    name, sep, given_port = header.rpartition(":")
    if not sep or given_port != str(port):
        return False
    if name.startswith("[") and name.endswith("]"):
        name, version = name[1:-1], 6
    else:
        version = 4
    try:
        return ipaddress.ip_address(name).version == version
    except ValueError:
        return False
