"""Issue 5 in the browser: the skills catalog with 200 skills installed.

200 skill folders (`.agents/skills/<name>/SKILL.md`) are written into the workspace in OPFS before
boot; the time is from clicking `skills-open` to 200 `skill-entry` rows in the page. Baseline: the
same with 1 skill installed, the two taking turns.
"""

from __future__ import annotations

import base64

from playwright.sync_api import Browser

from .common import READY_WATCH, Row, Samples, boot_ready_ms, seed_opfs

OPEN_AND_COUNT = """
async ([want, limit]) => {
  const t0 = performance.now();
  document.querySelector('[data-testid="skills-open"]').click();
  return await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`fewer than ${want} skills after ${limit} ms`)), limit);
    const check = () => {
      if (document.querySelectorAll('[data-testid="skill-entry"]').length >= want) {
        clearTimeout(timer); observer.disconnect(); resolve(performance.now() - t0);
      }
    };
    const observer = new MutationObserver(check);
    observer.observe(document.body, { subtree: true, childList: true });
    check();
  });
}
"""


def skill_files(count: int) -> dict[str, str]:
    out = {}
    for i in range(count):
        name = f"bench-skill-{i:03d}"
        text = f"---\nname: {name}\ndescription: Benchmark skill number {i}, for the catalog.\n---\nDo {i}.\n"
        out[f"files/.agents/skills/{name}/SKILL.md"] = base64.b64encode(text.encode()).decode("ascii")
    return out


def open_catalog_ms(browser: Browser, base: str, count: int) -> float:
    ctx = browser.new_context()
    ctx.add_init_script(READY_WATCH)
    page = ctx.new_page()
    seed_opfs(page, base, {"files": skill_files(count)})
    boot_ready_ms(page, base)
    page.wait_for_timeout(500)
    ms = float(page.evaluate(OPEN_AND_COUNT, [count, 60_000]))
    ctx.close()
    return ms


def measure_catalog(browser: Browser, base: str, runs: int, count: int = 200) -> list[Row]:
    one: list[float] = []
    many: list[float] = []
    for _ in range(runs):  # alternating, so a load that moves falls on both alike
        one.append(open_catalog_ms(browser, base, 1))
        many.append(open_catalog_ms(browser, base, count))
    return [Row(f"skills catalog: open the panel, {count} skills listed", "same, 1 skill", Samples(one),
                Samples(many), "median", "—", note="cold context, OPFS seeded before boot")]
