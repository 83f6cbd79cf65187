"""Driving the app through the UI contract (`data-testid`s only) and reading its storage back."""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Locator, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

BOOT_TIMEOUT_MS = 180_000
REPLY_TIMEOUT_MS = 30_000


def wait_ready(page: Page) -> None:
    expect(page.get_by_test_id("runtime-status")).to_have_attribute("data-state", "ready", timeout=BOOT_TIMEOUT_MS)


def open_settings(page: Page) -> None:
    if not page.get_by_test_id("provider-select").is_visible():
        page.get_by_test_id("settings-open").click()
    expect(page.get_by_test_id("provider-select")).to_be_visible()


def close_settings(page: Page) -> None:
    """Settings closed (a save that connects closes the panel by itself; otherwise press its close button)."""
    close = page.get_by_test_id("settings-close")
    if close.is_visible():
        with contextlib.suppress(PlaywrightTimeoutError):  # it may close by itself meanwhile
            close.click(timeout=2_000)
    expect(page.get_by_test_id("provider-select")).to_be_hidden()


def configure_provider(page: Page, kind: str, base_url: str, key: str | None = None) -> None:
    """Choose the provider, base URL and key in settings and save (the connection is then tested)."""
    open_settings(page)
    page.get_by_test_id("provider-select").select_option(kind)
    page.get_by_test_id("base-url-input").fill(base_url)
    if key is not None:
        page.get_by_test_id("api-key-input").fill(key)
    page.get_by_test_id("settings-save").click()


def connect_openrouter(page: Page, base_url: str, key: str, model_id: str) -> None:
    """Connect to an OpenRouter-compatible provider at ``base_url`` (the fake's ``/api/v1``), wait for the
    connection to check out, and choose ``model_id``."""
    configure_provider(page, "openrouter", base_url, key)
    expect(page.get_by_test_id("connection-status")).to_have_attribute("data-state", "ok", timeout=60_000)
    choose_model(page, model_id)


def model_option(page: Page, model_id: str) -> Locator:
    return page.locator(f'[data-testid="model-select"] option[value="{model_id}"]')


def choose_model(page: Page, model_id: str) -> None:
    expect(model_option(page, model_id)).to_have_count(1, timeout=REPLY_TIMEOUT_MS)
    open_settings(page)
    page.get_by_test_id("model-select").select_option(model_id)


def send(page: Page, text: str) -> None:
    """Type and send a message, as a person would: once Send is enabled (the previous turn has ended)."""
    expect(page.get_by_test_id("chat-send")).to_be_enabled(timeout=REPLY_TIMEOUT_MS)
    box = page.get_by_test_id("chat-input")
    box.fill(text)
    box.press("Enter")


def messages(page: Page, role: str) -> Locator:
    return page.locator(f'[data-testid="message"][data-role="{role}"]')


def last_message(page: Page, role: str, containing: str | re.Pattern[str] | None = None) -> Locator:
    found = messages(page, role)
    if containing is not None:
        found = found.filter(has_text=containing)
    return found.last


def send_for_reply(page: Page, text: str, role: str = "assistant") -> Locator:
    """Send `text`; return the first `role` message that appears after it (not one from an earlier turn)."""
    before = messages(page, role).count()
    send(page, text)
    return messages(page, role).nth(before)


# Everything a page can read back from its origin's storage: every OPFS file (bytes decoded as latin1),
# every IndexedDB database/store (keys and values; binary as latin1; CryptoKeys described), local/session storage.
DUMP_STORAGE_JS = """
async () => {
  const out = { opfs: {}, idb: {}, localStorage: {}, sessionStorage: {}, errors: [] };
  const latin1 = (buf) => new TextDecoder("latin1").decode(buf);
  const plain = (v, depth = 0) => {
    if (depth > 20 || v === null || typeof v !== "object") return v;
    if (v instanceof ArrayBuffer) return latin1(v);
    if (ArrayBuffer.isView(v)) return latin1(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
    if (typeof CryptoKey !== "undefined" && v instanceof CryptoKey)
      return { cryptoKey: v.algorithm.name, extractable: v.extractable, usages: v.usages };
    if (v instanceof Blob) return { blob: v.size };
    if (Array.isArray(v)) return v.map((x) => plain(x, depth + 1));
    const o = {};
    for (const [k, x] of Object.entries(v)) o[k] = plain(x, depth + 1);
    return o;
  };
  const walk = async (dir, prefix) => {
    for await (const [name, handle] of dir.entries()) {
      const path = prefix + name;
      if (handle.kind === "directory") { await walk(handle, path + "/"); continue; }
      try { out.opfs[path] = latin1(await (await handle.getFile()).arrayBuffer()); }
      catch (e) { out.errors.push(`opfs ${path}: ${e}`); }
    }
  };
  try { await walk(await navigator.storage.getDirectory(), ""); } catch (e) { out.errors.push(`opfs: ${e}`); }
  const done = (r) => new Promise((ok, fail) => { r.onsuccess = () => ok(r.result); r.onerror = () => fail(r.error); });
  for (const { name } of await indexedDB.databases()) {
    const db = await done(indexedDB.open(name));
    for (const storeName of db.objectStoreNames) {
      const store = db.transaction(storeName, "readonly").objectStore(storeName);
      const keys = await done(store.getAllKeys());
      out.idb[`${name}/${storeName}`] = plain({ keys, values: await done(store.getAll()) });
    }
    db.close();
  }
  for (const [k, v] of Object.entries(localStorage)) out.localStorage[k] = v;
  for (const [k, v] of Object.entries(sessionStorage)) out.sessionStorage[k] = v;
  return out;
}
"""


def dump_storage(page: Page) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate(DUMP_STORAGE_JS)
    return result


def eventually(page: Page, check: Callable[[], bool], timeout_s: float = 10.0, what: str = "condition") -> None:
    """Poll `check` while letting Playwright run its handlers (never time.sleep in these tests)."""
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")
        page.wait_for_timeout(100)
