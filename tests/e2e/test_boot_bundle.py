"""What a boot loads: the page's entry script stays small, and what only some people use (the MCP
client, the backup's zip writer and reader, the code highlighter) loads when it is used, not at boot."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import expect

from tests.e2e.conftest import App
from tests.e2e.test_backup import export_backup
from tests.e2e.ui import wait_ready

# The entry was 522 KB while the connection doctor pulled the MCP SDK and zod into it (~160 KB) and the backup
# its zip library (~25 KB); 337 KB without them.
ENTRY_LIMIT_BYTES = 400_000
LAZY = (
    "/assets/host-",
    "/assets/oauth-signin-",
    "/assets/backup-export-",
    "/assets/backup-verify-",
    "/assets/highlighter-",
)


def test_the_boot_loads_a_small_entry_and_nothing_lazy(app: App, dist: Path) -> None:
    entry = re.search(r'<script type="module"[^>]* src="/assets/(index-[^"]+\.js)"', (dist / "index.html").read_text())
    assert entry, "index.html names its entry script"
    size = (dist / "assets" / entry.group(1)).stat().st_size
    assert size < ENTRY_LIMIT_BYTES, f"the page's entry script is {size} bytes"

    wait_ready(app.page)
    loaded = [r for r in app.traffic.requests if r.split("?")[0].endswith(".js")]
    assert any(entry.group(1) in r for r in loaded)
    assert not [r for r in loaded if any(lazy in r for lazy in LAZY)], loaded

    assert export_backup(app.page)[:2] == b"PK"  # the writer loads now
    assert [r for r in app.traffic.requests if "/assets/backup-export-" in r]
    app.page.keyboard.press("Escape")
    expect(app.page.get_by_test_id("chat-input")).to_be_visible()
