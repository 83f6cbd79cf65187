import { describe, expect, it } from "vitest";
import { normalizeBaseUrl } from "../src/settings/base-url";
import { decideEgress, type EgressPolicy } from "../src/worker/egress";

const OPENROUTER: EgressPolicy = {
  providerBaseUrl: "https://openrouter.ai/api/v1",
  appOrigin: "http://127.0.0.1:8000",
};
const OLLAMA: EgressPolicy = { providerBaseUrl: "http://localhost:11434", appOrigin: "https://tidepool.example" };
const LLAMA: EgressPolicy = { providerBaseUrl: "http://127.0.0.1:8081/v1", appOrigin: "http://127.0.0.1:8000" };
const NONE: EgressPolicy = { providerBaseUrl: null, appOrigin: "http://127.0.0.1:8000" };

type Case = [name: string, url: string, auth: "provider" | "none", policy: EgressPolicy, expected: string];

// expected: "provider+auth", "provider" (no key), "proxy", "refused"
const cases: Case[] = [
  [
    "chat completions with the key",
    "https://openrouter.ai/api/v1/chat/completions",
    "provider",
    OPENROUTER,
    "provider+auth",
  ],
  [
    "llama-server's /props beside /v1, never with the key",
    "http://127.0.0.1:8081/props",
    "provider",
    LLAMA,
    "provider",
  ],
  ["/props with a query", "http://127.0.0.1:8081/props?x=1", "provider", LLAMA, "refused"],
  ["another path beside /v1", "http://127.0.0.1:8081/slots", "provider", LLAMA, "refused"],
  ["/props on another port", "http://127.0.0.1:8082/props", "provider", LLAMA, "refused"],
  [
    "/props beside a base without /v1",
    "http://127.0.0.1:8081/props",
    "provider",
    { ...LLAMA, providerBaseUrl: "http://127.0.0.1:8081/llama" },
    "refused",
  ],
  ["model list with the key", "https://openrouter.ai/api/v1/models", "provider", OPENROUTER, "provider+auth"],
  ["the base URL itself", "https://openrouter.ai/api/v1", "provider", OPENROUTER, "provider+auth"],
  ["provider URL without auth asked", "https://openrouter.ai/api/v1/models", "none", OPENROUTER, "provider"],
  ["explicit default port", "https://openrouter.ai:443/api/v1/models", "provider", OPENROUTER, "provider+auth"],
  ["lookalike host prefix", "https://openrouter.ai.evil.com/api/v1/models", "provider", OPENROUTER, "refused"],
  ["lookalike with @ userinfo", "https://openrouter.ai@evil.com/api/v1/models", "provider", OPENROUTER, "refused"],
  ["credentials in the URL", "https://user:pw@openrouter.ai/api/v1/models", "provider", OPENROUTER, "refused"],
  ["subdomain", "https://api.openrouter.ai/api/v1/models", "provider", OPENROUTER, "refused"],
  ["http when the base is https", "http://openrouter.ai/api/v1/models", "provider", OPENROUTER, "refused"],
  ["other port", "https://openrouter.ai:8443/api/v1/models", "provider", OPENROUTER, "refused"],
  ["path prefix that is not a segment", "https://openrouter.ai/api/v10/models", "provider", OPENROUTER, "refused"],
  ["outside the base path", "https://openrouter.ai/api/v2/keys", "provider", OPENROUTER, "refused"],
  ["dot segments escaping the base", "https://openrouter.ai/api/v1/../../auth/keys", "provider", OPENROUTER, "refused"],
  ["encoded dot segments", "https://openrouter.ai/api/v1/%2e%2e/%2E%2E/x", "provider", OPENROUTER, "refused"],
  ["another host", "https://example.com/", "none", OPENROUTER, "refused"],
  ["another host asking for the key", "https://example.com/api/v1/models", "provider", OPENROUTER, "refused"],
  ["the app's proxy", "http://127.0.0.1:8000/api/proxy?url=https%3A%2F%2Fexample.com", "none", OPENROUTER, "proxy"],
  ["the app's proxy, relative", "/api/proxy?url=https%3A%2F%2Fexample.com", "none", OPENROUTER, "proxy"],
  ["the proxy never gets the key", "http://127.0.0.1:8000/api/proxy?url=x", "provider", OPENROUTER, "proxy"],
  ["proxy path on another origin", "http://127.0.0.1:9000/api/proxy?url=x", "none", OPENROUTER, "refused"],
  ["other path on the app origin", "http://127.0.0.1:8000/index.html", "none", OPENROUTER, "refused"],
  ["proxy lookalike path", "http://127.0.0.1:8000/api/proxyx?url=x", "none", OPENROUTER, "refused"],
  ["data URL", "data:text/plain,hi", "none", OPENROUTER, "refused"],
  ["file URL", "file:///etc/passwd", "none", OPENROUTER, "refused"],
  ["garbage", "http://", "none", OPENROUTER, "refused"],
  ["ollama chat", "http://localhost:11434/v1/chat/completions", "provider", OLLAMA, "provider+auth"],
  ["ollama tags", "http://localhost:11434/api/tags", "none", OLLAMA, "provider"],
  ["ollama other port", "http://localhost:11435/api/tags", "none", OLLAMA, "refused"],
  ["ollama via 127.0.0.1 is another origin", "http://127.0.0.1:11434/api/tags", "none", OLLAMA, "refused"],
  ["no provider configured", "https://openrouter.ai/api/v1/models", "provider", NONE, "refused"],
];

function summary(url: string, auth: "provider" | "none", policy: EgressPolicy): string {
  const d = decideEgress(url, auth, policy);
  if (d.kind === "provider") return d.authorize ? "provider+auth" : "provider";
  return d.kind;
}

describe("egress and credential rule", () => {
  it.each(cases)("%s", (_name, url, auth, policy, expected) => {
    expect(summary(url, auth, policy)).toBe(expected);
  });

  it("gives a reason when it refuses", () => {
    const d = decideEgress("https://openrouter.ai.evil.com/x", "provider", OPENROUTER);
    expect(d.kind).toBe("refused");
    expect(d.kind === "refused" && d.reason).toContain("openrouter.ai.evil.com");
  });

  it("a base URL with a trailing slash matches the same URLs", () => {
    const policy = { ...OPENROUTER, providerBaseUrl: "https://openrouter.ai/api/v1/" };
    expect(summary("https://openrouter.ai/api/v1/models", "provider", policy)).toBe("provider+auth");
    expect(summary("https://openrouter.ai/api/v10", "provider", policy)).toBe("refused");
  });
});

describe("base URL normalization", () => {
  it.each([
    ["https://openrouter.ai/api/v1/", "https://openrouter.ai/api/v1"],
    ["  http://localhost:11434 ", "http://localhost:11434"],
    ["ftp://example.com", null],
    ["https://u:p@example.com", null],
    ["https://example.com/?q=1", null],
    ["not a url", null],
  ])("%s", (raw, expected) => {
    expect(normalizeBaseUrl(raw)).toBe(expected);
  });
});
