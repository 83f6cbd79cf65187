import { describe, expect, it } from "vitest";
import { offlineReason } from "../src/protocol/offline";
import { isOwnPath } from "../src/sandbox/own-files";

describe("requests that fail because the app is offline", () => {
  const app = "http://127.0.0.1:8000";

  it("say so for the app's own /api/ (web_fetch, skill import by URL)", () => {
    expect(offlineReason(`${app}/api/proxy?url=https%3A%2F%2Fexample.com`, app, true)).toMatch(/^the app is offline/);
    expect(offlineReason("/api/proxy?url=x", app, true)).toMatch(/server does not answer/);
  });

  it("say so for a provider only when the device has no network", () => {
    expect(offlineReason("https://openrouter.ai/api/v1/chat/completions", app, false)).toMatch(
      /no network connection, so https:\/\/openrouter.ai cannot be reached/,
    );
    expect(offlineReason("https://openrouter.ai/api/v1/chat/completions", app, true)).toBeNull();
    expect(offlineReason("http://127.0.0.1:11434/api/chat", app, true)).toBeNull();
  });
});

describe("the app's files a sandbox may ask its host for", () => {
  it("are the Pyodide core and the sandbox's wheels, nothing else", () => {
    expect(isOwnPath("/pyodide/pyodide.asm.wasm")).toBe(true);
    expect(isOwnPath("/wheels/sandbox/micropip-0.11.1-py3-none-any.whl")).toBe(true);
    expect(isOwnPath("/wheels/sandbox/manifest.json")).toBe(true);
    for (const path of [
      "/wheels/tidepool_runtime-0.1.0-py3-none-any.whl",
      "/api/proxy",
      "/index.html",
      "/pyodide/../index.html",
      "/pyodide/a/b.js",
      "/pyodide/..",
      "pyodide/pyodide.mjs",
    ]) {
      expect(isOwnPath(path), path).toBe(false);
    }
  });
});
