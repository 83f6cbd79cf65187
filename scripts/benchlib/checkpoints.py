"""Issue 22: what a checkpoint adds to a turn that changes one file in a 10,000-file workspace.

The same `write_file` round as the `tools` rows (end of the tool-call reply → the next request, at the
fake), on a file that exists, so each turn keeps its earlier bytes. In one workspace the rounds alternate
between checkpoints on (the default bound, after `warm` checkpointed turns, so the store is not empty)
and off (bound 0, set in the Profile panel): the same tab, files and history, only the checkpoint differs.
"""

from __future__ import annotations

from playwright.sync_api import Browser, Page

from .common import Row, Samples
from .tools import TimedFakeLLM, _workspace, tool_round_ms

MB = 1024 * 1024


def set_checkpoint_limit(page: Page, mb: int) -> None:
    """Set the bound in the Profile panel and wait until the runtime reports it."""
    page.get_by_test_id("profile-open").click()
    box = page.get_by_test_id("checkpoint-limit")
    box.fill(str(mb))
    box.blur()
    page.wait_for_selector(f'[data-testid="checkpoint-storage"][data-limit="{mb * MB}"]', state="attached",
                           timeout=60_000)
    page.keyboard.press("Escape")


def measure_checkpoints(browser: Browser, base: str, fake: TimedFakeLLM, fake_base: str, runs: int,
                        count: int = 10_000, warm: int = 10) -> list[Row]:
    ctx, page, _ = _workspace(browser, base, fake_base, count)
    on: list[float] = []
    off: list[float] = []
    try:
        for i in range(warm):
            tool_round_ms(page, fake, "write_file", {"path": "notes.txt", "content": f"warm {i}\n"})
        for run in range(max(runs, 5)):
            for sink, mb in ((on, 200), (off, 0)) if run % 2 == 0 else ((off, 0), (on, 200)):
                set_checkpoint_limit(page, mb)
                sink.append(tool_round_ms(page, fake, "write_file", {"path": "notes.txt", "content": f"r{run}-{mb}\n"}))
    finally:
        ctx.close()
    return [Row(f"a turn changing one file, {count:,}-file workspace, with its checkpoint",
                "same turn, checkpoints off", Samples(off), Samples(on), "median", "≤ 1.1 ×",
                note=f"after {warm} checkpointed turns; on/off alternate in one tab")]
