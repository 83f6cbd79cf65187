"""SSRF guard for /api/proxy: which addresses a proxied request may reach, checked at connect time.

Every address a host name resolves to is checked, and the connection is made to exactly the addresses
that were checked (the resolver below is the connector's only source of addresses), so there is no
window for DNS rebinding between the check and the connect. IP literals never reach a resolver in
aiohttp, so `check_literal` is called for them before each request.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable
from dataclasses import dataclass

from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.resolver import ThreadedResolver

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

NAT64_PREFIX = ipaddress.IPv6Network("64:ff9b::/96")
# Non-public ranges newer than some Pythons' tables (3.11 calls these global): refused by name here.
EXTRA_NON_PUBLIC = (
    (ipaddress.IPv6Network("3fff::/20"), "documentation"),  # RFC 9637
    (ipaddress.IPv6Network("64:ff9b:1::/48"), "local-use NAT64"),  # RFC 8215
    (ipaddress.IPv6Network("5f00::/16"), "segment routing"),  # RFC 9602
)


class ProxyRefused(Exception):
    """The proxy refuses a request; `code` and `status` become the JSON error the client sees."""

    def __init__(self, code: str, message: str, status: int = 403) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


def normalize_host(host: str) -> str:
    """The form hosts are compared in: lower case, no IPv6 brackets, no trailing dot."""
    return host.strip().strip("[]").rstrip(".").lower()


def embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries (mapped, 6to4, Teredo, NAT64), if any."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    if ip in NAT64_PREFIX:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def refusal_reason(ip: IPAddress) -> str | None:
    """Why an address must not be reached from the proxy, or None when it is a public address."""
    if isinstance(ip, ipaddress.IPv6Address):
        inner = embedded_ipv4(ip)
        if ip.ipv4_mapped is not None:
            return "IPv4-mapped IPv6"
        if inner is not None and refusal_reason(inner) is not None:
            return f"IPv6 embedding a non-public IPv4 address ({inner})"
    for network, name in EXTRA_NON_PUBLIC:
        if ip in network:
            return name
    checks = [
        ("unspecified", ip.is_unspecified),
        ("loopback", ip.is_loopback),
        ("link-local", ip.is_link_local),
        ("multicast", ip.is_multicast),
        ("reserved", ip.is_reserved),
        ("private", ip.is_private),
        ("site-local", isinstance(ip, ipaddress.IPv6Address) and ip.is_site_local),
        ("not globally routable", not ip.is_global),
    ]
    for name, hit in checks:
        if hit:
            return name
    return None


@dataclass(frozen=True)
class AddressPolicy:
    """Hosts (as written in the URL) that may resolve to non-public addresses: for local testing only."""

    allowed_private_hosts: frozenset[str] = frozenset()

    @classmethod
    def of(cls, hosts: Iterable[str]) -> AddressPolicy:
        return cls(frozenset(normalize_host(h) for h in hosts))

    def allows_private(self, host: str) -> bool:
        return normalize_host(host) in self.allowed_private_hosts

    def check(self, host: str, addresses: Iterable[str]) -> None:
        """Raise ProxyRefused unless every address is public or the host is explicitly allowed."""
        if self.allows_private(host):
            return
        for text in addresses:
            ip = ipaddress.ip_address(text.split("%", 1)[0])
            reason = refusal_reason(ip)
            if reason is not None:
                what = f"{host} is" if normalize_host(host) == str(ip) else f"{host} resolves to {ip}, which is"
                what = f"{what} not a public address ({reason})"
                raise ProxyRefused(
                    "forbidden_address",
                    f"{what}: the proxy only reaches public addresses "
                    "(for local testing, start the server with --allow-private-host HOST)",
                )

    def check_literal(self, host: str) -> None:
        """Check a URL host that is an IP literal; host names are checked by the resolver instead."""
        try:
            ip = ipaddress.ip_address(normalize_host(host))
        except ValueError:
            return
        self.check(host, [str(ip)])


class GuardedResolver(AbstractResolver):
    """Resolves with getaddrinfo, then refuses the whole host if any of its addresses is non-public."""

    def __init__(self, policy: AddressPolicy) -> None:
        self._policy = policy
        self._inner = ThreadedResolver()

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        try:
            results = await self._inner.resolve(host, port, family)
        except OSError as exc:
            raise ProxyRefused("dns_error", f"could not resolve {host}: {exc}", status=502) from exc
        self._policy.check(host, [r["host"] for r in results])
        return results

    async def close(self) -> None:
        await self._inner.close()
