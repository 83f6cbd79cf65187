/**
 * run_python's `packages`: an `exec_request` carries them to the sandbox, a failed install is an
 * `install` error the runner accepts from the worker, and the page's package indexes stay in the worker
 * (agent.worker.ts hands them to the sandbox runner): no `config` carries them to the runtime.
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
    { name: "no packages", frame: BASE, packages: [] },
    { name: "packages", frame: { ...BASE, packages: ["tabulate"] }, packages: ["tabulate"] },
  ])("carries $name and no index (the runner has its own)", ({ frame, packages }) => {
    const run = runOf(frame);
    expect(run).toMatchObject({ id: "x1", timeout_s: 5, packages });
    expect(run).not.toHaveProperty("index_urls");
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

describe("the page's package indexes and config", () => {
  function configSent(settings: AgentSettings, extra: { packageIndexUrls?: string[] } = {}): WireMessage | undefined {
    const h = new AdapterHarness();
    h.adapter.start();
    h.adapter.onMain({ type: "configure", settings, key: null, ...extra });
    h.fromRuntime({ type: "hello", protocol: 1, capabilities: [], agent: "test" });
    return h.sent("config")[0];
  }

  const settings: AgentSettings = {
    provider: { kind: "ollama", base_url: "http://127.0.0.1:9" },
    model: null,
    permission_mode: "ask",
  };

  it.each([
    { name: "absent", extra: {} },
    { name: "empty", extra: { packageIndexUrls: [] } },
    { name: "named by the page", extra: { packageIndexUrls: ["http://127.0.0.1:9/simple"] } },
  ])("is never sent to the runtime: $name", ({ extra }) => {
    const config = configSent(settings, extra);
    expect(config).toBeDefined();
    expect(config).not.toHaveProperty("package_index_urls");
  });

  it("the settings the page gives the worker hold no package index", () => {
    expect(agentSettings(defaultSettings())).not.toHaveProperty("package_index_urls");
  });
});
