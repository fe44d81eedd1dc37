"""What the workspace answers at all: requests that name its own address, and from its own page.

A web page elsewhere must not be able to use the workspace through the designer's browser:

- **Host.** A name an attacker controls can be made to point at 127.0.0.1 (DNS rebinding),
  and the browser then treats the workspace as that name's site. Only requests whose `Host`
  names the address the server listens on (or a name given with `allow_hosts`) are served;
  the others get 421 and one line.
- **Origin and content type.** Requests that change something or do expensive work are
  POSTs with a JSON body: a cross-site form cannot send `application/json`, and a browser
  sends a cross-site `fetch` with it only after asking the server first, which this server
  never allows. A POST must say `Content-Type: application/json` (else 415), and its
  `Origin`, when the client sends one, must be the workspace's own (else 403).
- **Fetch metadata.** A browser says where an API request comes from (`Sec-Fetch-Site`); a
  request from another site (an `<img>` or a script's `fetch` on another page) gets 403.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from starlette.datastructures import Headers
from starlette.responses import JSONResponse

from curator.common.errors import one_line

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
OWN_SITE = frozenset({"same-origin", "none"})
"""`Sec-Fetch-Site` values of the workspace's own page, or of an address typed by hand."""
WILDCARDS = frozenset({"", "0.0.0.0", "::"})
"""Listening addresses that mean every address of the machine."""


@dataclass(frozen=True)
class Hosts:
    """The `Host` names the workspace answers to (lower case, without port or brackets)."""

    names: frozenset[str]
    any_address: bool = False
    """Whether any IP address is a name too (the server listens on every address: a request
    naming an address is not a rebound name)."""

    def allow(self, host: str) -> bool:
        """Whether a `Host` header value (`name`, `name:port`, `[v6]:port`) is served."""
        name = host_name(host)
        if name is None:
            return False
        if name in self.names:
            return True
        return self.any_address and _is_address(name)


def hosts_for(listen: str, extra: Iterable[str] = ()) -> Hosts:
    """The names a server listening on `listen` answers to, with `extra` names allowed too.

    >>> sorted(hosts_for("127.0.0.1").names)
    ['127.0.0.1', 'localhost']
    >>> hosts_for("127.0.0.1").allow("evil.example:8000"), hosts_for("::1").allow("[::1]:8000")
    (False, True)
    """
    names = {name for name in (host_name(value) for value in extra) if name}
    listen_name = host_name(listen) or listen.lower()
    if listen_name in WILDCARDS:
        names |= {"localhost", socket.gethostname().lower()}
        return Hosts(frozenset(names), any_address=True)
    names.add(listen_name)
    loopback = _is_address(listen_name) and ipaddress.ip_address(listen_name).is_loopback
    if listen_name == "localhost" or loopback:
        names.add("localhost")  # never a name someone else controls
    return Hosts(frozenset(names))


def host_name(host: str) -> str | None:
    """The name in a `Host` value, lower case, without its port or an IPv6 address's
    brackets; None if it is not one."""
    host = host.strip().lower()
    if host.startswith("["):
        end = host.find("]")
        if end < 0 or (host[end + 1:] and not _port(host[end + 1:])):
            return None
        return host[1:end] if _is_address(host[1:end]) else None
    if host.count(":") > 1:
        return host if _is_address(host) else None
    name, _, port = host.partition(":")
    if port and not _port(":" + port):
        return None
    plain = name.isascii() and all(ch.isalnum() or ch in "-._" for ch in name)
    sized = 0 < len(name) < 254 and all(0 < len(part) < 64 for part in name.split("."))
    return name if plain and sized else None


def _port(text: str) -> bool:
    return text.startswith(":") and text[1:].isdigit() and 0 < len(text) <= 6


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class Guard:
    """ASGI middleware refusing what `curator.web.guard` says, before the app sees it."""

    def __init__(self, app: Any, hosts: Hosts) -> None:
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = self.refusal(scope)
        if refusal is None:
            await self.app(scope, receive, send)
            return
        status, detail = refusal
        await JSONResponse({"detail": detail}, status_code=status)(scope, receive, send)

    def refusal(self, scope: dict[str, Any]) -> tuple[int, str] | None:
        """(status, one line) of a request that is not served, or None."""
        headers = Headers(scope=scope)
        host = headers.get("host", "")
        if not self.hosts.allow(host):
            return 421, f"this workspace does not answer to the Host {one_line(host[:80])!r}"
        api = scope["path"].startswith("/api/")
        site = headers.get("sec-fetch-site")
        if api and site is not None and site.lower() not in OWN_SITE:
            return 403, f"the API answers its own page only (Sec-Fetch-Site: {one_line(site[:40])})"
        if scope["method"] in SAFE_METHODS:
            return None
        origin = headers.get("origin")
        own = f"{scope.get('scheme', 'http')}://{host}".lower()
        if origin is not None and origin.lower() != own:
            return 403, "requests that change or compute something are taken from the workspace's page only"
        kind = headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            return 415, "send the request's body as JSON (Content-Type: application/json)"
        return None
