"""The proxy's larger body limit for wheel files: the sandbox installs packages through /api/proxy, and
many wheels are over the 5 MiB every other answer is held to. Only a `.whl` under `/packages/` from a
package index host gets it (files.pythonhosted.org; here 127.0.0.1 is made one with `--wheel-host`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import aiohttp
import pytest
from yarl import URL

from scripts.fakes.processes import serve_process
from scripts.server.proxy import PACKAGE_FILE_HOSTS, ProxyConfig, body_limit

MiB = 1024 * 1024
WHEEL_MAX_MIB = 8  # small for the test; 64 by default


@pytest.fixture(scope="module")
def wheel_server(dist: Path) -> Iterator[str]:
    """serve.py with 127.0.0.1 as a package index host and an 8 MiB wheel limit (5 MiB for the rest)."""
    args = [
        "--allow-private-host",
        "127.0.0.1",
        "--wheel-host",
        "127.0.0.1",
        "--proxy-wheel-max-mib",
        str(WHEEL_MAX_MIB),
    ]
    with serve_process(dist, *args) as url:
        yield url


async def fetch(client: aiohttp.ClientSession, server: str, url: str) -> tuple[int, int, str]:
    async with client.get(f"{server}/api/proxy?url={quote(url, safe='')}", headers={"Origin": server}) as resp:
        body = await resp.read()
        return resp.status, len(body), resp.headers.get("X-Proxy-Error", "")


@pytest.mark.parametrize(
    ("path", "mib", "status", "error"),
    [
        pytest.param("/packages/ab/cd/demo-1.0-py3-none-any.whl", 6, 200, "", id="6-MiB-wheel-is-served"),
        pytest.param("/packages/ab/cd/demo-1.0-py3-none-any.whl", 9, 413, "too_large", id="over-the-wheel-limit"),
        pytest.param("/packages/ab/cd/demo-1.0.tar.gz", 6, 413, "too_large", id="6-MiB-sdist-is-refused"),
        pytest.param("/files/demo-1.0-py3-none-any.whl", 6, 413, "too_large", id="6-MiB-wheel-outside-packages"),
    ],
)
async def test_only_wheels_from_an_index_host_get_the_larger_limit(
    client: aiohttp.ClientSession, wheel_server: str, upstream: str, path: str, mib: int, status: int, error: str
) -> None:
    got_status, size, got_error = await fetch(client, wheel_server, f"{upstream}{path}?mib={mib}")
    assert (got_status, got_error) == (status, error)
    if status == 200:
        assert size == mib * MiB


async def test_a_wheel_from_a_host_that_is_no_package_index_keeps_the_5_mib_limit(
    client: aiohttp.ClientSession, server: str, upstream: str
) -> None:
    status, _, error = await fetch(client, server, f"{upstream}/packages/ab/demo-1.0-py3-none-any.whl?mib=6")
    assert (status, error) == (413, "too_large")


@pytest.mark.parametrize(
    ("url", "limit"),
    [
        pytest.param(
            "https://files.pythonhosted.org/packages/a1/b2/numpy-2.0-py3-none-any.whl", 64 * MiB, id="pypi-wheel"
        ),
        pytest.param("https://files.pythonhosted.org/packages/a1/b2/numpy-2.0.tar.gz", 5 * MiB, id="pypi-sdist"),
        pytest.param("https://files.pythonhosted.org/simple/x.whl", 5 * MiB, id="not-under-packages"),
        pytest.param("https://example.com/packages/a/x.whl", 5 * MiB, id="other-host"),
    ],
)
def test_the_limit_by_url(url: str, limit: int) -> None:
    assert "files.pythonhosted.org" in PACKAGE_FILE_HOSTS
    assert body_limit(URL(url), ProxyConfig()) == limit
