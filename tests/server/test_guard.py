"""The address classification behind /api/proxy: public addresses pass, every non-public range is named."""

from __future__ import annotations

import ipaddress

import pytest

from scripts.server.guard import AddressPolicy, ProxyRefused, refusal_reason

ADDRESSES = [
    pytest.param("93.184.215.14", None, id="public-ipv4"),
    pytest.param("1.1.1.1", None, id="public-resolver"),
    pytest.param("2606:4700:4700::1111", None, id="public-ipv6"),
    pytest.param("127.0.0.1", "loopback", id="loopback"),
    pytest.param("0.0.0.0", "unspecified", id="unspecified"),
    pytest.param("10.1.2.3", "private", id="rfc1918-10"),
    pytest.param("172.16.0.1", "private", id="rfc1918-172"),
    pytest.param("100.64.0.1", "not globally routable", id="cgnat"),
    pytest.param("169.254.169.254", "link-local", id="metadata"),
    pytest.param("224.0.0.251", "multicast", id="multicast"),
    pytest.param("240.0.0.1", "reserved", id="reserved"),
    pytest.param("::1", "loopback", id="ipv6-loopback"),
    pytest.param("::", "unspecified", id="ipv6-unspecified"),
    pytest.param("fc00::1", "private", id="ipv6-unique-local"),
    pytest.param("fe80::1", "link-local", id="ipv6-link-local"),
    pytest.param("::ffff:8.8.8.8", "IPv4-mapped IPv6", id="mapped-even-when-public"),
    pytest.param("2002:7f00:1::", "IPv6 embedding a non-public IPv4 address (127.0.0.1)", id="6to4-of-loopback"),
    pytest.param("64:ff9b::a00:1", "IPv6 embedding a non-public IPv4 address (10.0.0.1)", id="nat64-of-private"),
    pytest.param("3fff::1", "documentation", id="ipv6-documentation-3fff"),
    pytest.param("3fff:fff:ffff::1", "documentation", id="ipv6-documentation-3fff-end"),
    pytest.param("64:ff9b:1::1", "local-use NAT64", id="local-use-nat64"),
    pytest.param("5f00::1", "segment routing", id="srv6-sids"),
]


@pytest.mark.parametrize(("address", "reason"), ADDRESSES)
def test_refusal_reason(address: str, reason: str | None) -> None:
    assert refusal_reason(ipaddress.ip_address(address)) == reason


POLICY = [
    pytest.param("127.0.0.1", ["127.0.0.1"], True, id="allowed-host"),
    pytest.param("[::1]", ["::1"], False, id="other-loopback-host"),
    pytest.param("localhost", ["127.0.0.1"], False, id="name-not-allowed"),
    pytest.param("example.com", ["93.184.215.14", "10.0.0.1"], False, id="one-private-address-refuses-all"),
    pytest.param("example.com", ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"], True, id="all-public"),
]


@pytest.mark.parametrize(("host", "addresses", "ok"), POLICY)
def test_policy(host: str, addresses: list[str], ok: bool) -> None:
    policy = AddressPolicy.of(["127.0.0.1"])
    if ok:
        policy.check(host, addresses)
    else:
        with pytest.raises(ProxyRefused) as refused:
            policy.check(host, addresses)
        assert refused.value.code == "forbidden_address"
