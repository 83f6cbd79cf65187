/**
 * run_python's `packages`: an `exec_request` carries them (and the configured `index_urls`) to the
 * sandbox, a failed install is an `install` error the runner accepts from the worker, and the page's
 * `package_index` setting reaches the runtime as `config.package_index_urls`.
 */

import { describe, expect, it } from "vitest";
import type { WireMessage } from "../src/protocol/codec";
import { parseFromSandbox, runOf } from "../src/protocol/sandbox-messages";
import { agentSettings, defaultSettings } from "../src/settings/model";
import type { AgentSettings } from "../src/protocol/main-worker-messages";
import { AdapterHarness } from "./support/adapter-harness";

const BASE = { type: "exec_request", id: "x1", code: "print(1)", timeout_s: 5, files: {} } as const;

describe("the run an exec_request asks for", () => {
  it.each([
    { name: "no packages", frame: BASE, packages: [], indexUrls: null },
    { name: "packages", frame: { ...BASE, packages: ["tabulate"] }, packages: ["tabulate"], indexUrls: null },
    {
      name: "packages and an index",
      frame: { ...BASE, packages: ["tidepool-demo"], index_urls: ["http://127.0.0.1:9/simple"] },
      packages: ["tidepool-demo"],
      indexUrls: ["http://127.0.0.1:9/simple"],
    },
  ])("carries $name", ({ frame, packages, indexUrls }) => {
    expect(runOf(frame)).toMatchObject({ id: "x1", timeout_s: 5, packages, index_urls: indexUrls });
  });
});

describe("results from the sandbox worker", () => {
  const result = (error: unknown) => ({
    type: "result",
    id: "x1",
    ok: error === null,
    stdout: "",
    stderr: "",
    files: {},
    deleted: [],
    error,
  });

  it.each([
    { kind: "install", accepted: true },
    { kind: "exception", accepted: true },
    { kind: "made-up", accepted: false },
  ])("an error of kind $kind is accepted: $accepted", ({ kind, accepted }) => {
    const parsed = parseFromSandbox(result({ kind, message: "could not install nope" }));
    expect(parsed !== null).toBe(accepted);
    if (accepted) expect(parsed).toMatchObject({ ok: false, error: { kind, message: "could not install nope" } });
  });
});

describe("config.package_index_urls", () => {
  function configSent(settings: AgentSettings): WireMessage | undefined {
    const h = new AdapterHarness();
    h.adapter.start();
    h.adapter.onMain({ type: "configure", settings, key: null });
    h.fromRuntime({ type: "hello", protocol: 1, capabilities: [], agent: "test" });
    return h.sent("config")[0];
  }

  const settings: AgentSettings = { provider: { kind: "ollama", base_url: "http://127.0.0.1:9" }, model: null, permission_mode: "ask" };

  it("is sent when the page names an index", () => {
    const config = configSent({ ...settings, package_index_urls: ["http://127.0.0.1:9/simple"] });
    expect(config).toMatchObject({ type: "config", package_index_urls: ["http://127.0.0.1:9/simple"] });
  });

  it("is left out when the page names none", () => {
    const config = configSent(settings);
    expect(config).toBeDefined();
    expect(config).not.toHaveProperty("package_index_urls");
  });

  it.each([
    { name: "none", urls: [], sent: undefined },
    { name: "one", urls: ["http://127.0.0.1:9/simple"], sent: ["http://127.0.0.1:9/simple"] },
  ])("the page's settings carry $name as config's package_index_urls", ({ urls, sent }) => {
    expect(agentSettings(defaultSettings(), urls).package_index_urls).toEqual(sent);
  });
});
