import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { base64Url, makeVerifier, s256Challenge } from "../src/settings/oauth";
import { sanitizeSettings } from "../src/settings/model";
import { explainFailure } from "../src/ui/settings/connection";

describe("PKCE", () => {
  it("makes a 43-character base64url verifier, different each time", () => {
    const a = makeVerifier();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(makeVerifier()).not.toBe(a);
  });

  it.each(["abc", makeVerifier(), "x".repeat(128)])(
    "S256 challenge of %s matches an independent SHA-256",
    async (verifier) => {
      const expected = createHash("sha256").update(verifier).digest("base64url");
      expect(await s256Challenge(verifier)).toBe(expected);
    },
  );

  it("base64url has no padding or +/", () => {
    expect(base64Url(new Uint8Array([0xfb, 0xff, 0xfe]))).toBe("-__-");
  });
});

describe("connection explanations", () => {
  const origin = "http://127.0.0.1:8000";
  it.each([
    ["401", { kind: "status", status: 401 }, "openrouter", /401 Unauthorized.*key/],
    ["402", { kind: "status", status: 402 }, "openrouter", /out of credits/],
    ["404", { kind: "status", status: 404 }, "openrouter", /check the base URL/],
    ["503", { kind: "status", status: 503 }, "openrouter", /server error/],
    ["network, OpenRouter", { kind: "network", status: null }, "openrouter", /CORS or unreachable/],
    ["network, Ollama", { kind: "network", status: null }, "ollama", /OLLAMA_ORIGINS=http:\/\/127\.0\.0\.1:8000/],
    ["timeout", { kind: "timeout", status: null }, "ollama", /Timed out/],
  ] as const)("%s", (_name, failure, provider, pattern) => {
    const text = explainFailure(
      provider,
      "http://localhost:11434",
      origin,
      { url: "u", message: "m", ...failure },
      "runtime says",
    );
    expect(text).toMatch(pattern);
  });

  it("falls back to the runtime's words when the adapter saw no HTTP failure", () => {
    expect(explainFailure("openrouter", "https://openrouter.ai/api/v1", origin, null, "runtime says")).toBe(
      "runtime says",
    );
  });
});

describe("stored settings", () => {
  it.each([
    ["nothing stored", null, { provider: "openrouter", permissionMode: "ask", keyStorage: "encrypted" }],
    [
      "valid values",
      { provider: "ollama", permissionMode: "full-auto", keyStorage: "session" },
      { provider: "ollama", permissionMode: "full-auto", keyStorage: "session" },
    ],
    [
      "damaged values",
      { provider: "evil", permissionMode: "yolo", keyStorage: 3 },
      { provider: "openrouter", permissionMode: "ask", keyStorage: "encrypted" },
    ],
  ])("%s", (_name, stored, expected) => {
    expect(sanitizeSettings(stored)).toMatchObject(expected);
  });
});
