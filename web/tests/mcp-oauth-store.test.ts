// The MCP sign-in state on the real sealed store (AES-GCM under a non-extractable key, in IndexedDB as
// fake-indexeddb implements it under Node): what the SDK saves reads back, per server, never in clear.
import "fake-indexeddb/auto";
import { OAuthError, OAuthErrorCode, SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import { beforeEach, describe, expect, it } from "vitest";
import { McpOAuthProvider, SignInRequired, needsSignIn } from "../src/mcp/oauth-provider";
import { recordName, ServerAuthStore } from "../src/mcp/oauth-store";
import { KeyRing, sealSecret } from "../src/settings/store";

const SERVER = "http://127.0.0.1:9100/mcp";
const CALLBACK = "http://127.0.0.1:8000/";
const TOKENS = { access_token: "at-secret-1234567890", token_type: "Bearer", refresh_token: "rt-secret-0987654321" };
const CLIENT = { client_id: "client-abc", registration_access_token: "reg-secret-5555" };

function interactive(): McpOAuthProvider {
  return new McpOAuthProvider(SERVER, CALLBACK, { state: "mcp.s", open: () => undefined });
}

/** Every value in the app's IndexedDB store, as text (bytes as latin1), to look for secrets in clear. */
async function rawStore(): Promise<string> {
  const db = await new Promise<IDBDatabase>((ok, fail) => {
    const req = indexedDB.open("tidepool", 1);
    req.onsuccess = () => ok(req.result);
    req.onerror = () => fail(req.error ?? new Error("indexedDB failed"));
  });
  const values = await new Promise<unknown[]>((ok, fail) => {
    const req = db.transaction("kv", "readonly").objectStore("kv").getAll();
    req.onsuccess = () => ok(req.result);
    req.onerror = () => fail(req.error ?? new Error("indexedDB failed"));
  });
  db.close();
  const text = (v: unknown): string => {
    if (v instanceof ArrayBuffer) return new TextDecoder("latin1").decode(v);
    if (ArrayBuffer.isView(v)) return new TextDecoder("latin1").decode(v);
    if (typeof v === "object" && v !== null) return Object.values(v).map(text).join("|");
    return String(v);
  };
  return values.map(text).join("\n");
}

beforeEach(async () => {
  await new Promise<void>((ok) => {
    const req = indexedDB.deleteDatabase("tidepool");
    req.onsuccess = () => ok();
    req.onerror = () => ok();
  });
});

describe("MCP sign-in state", () => {
  it("reads back what the SDK saved, from a new provider, and keeps none of it in clear", async () => {
    const page = interactive();
    await page.saveClientInformation(CLIENT);
    await page.saveTokens(TOKENS);
    await page.saveCodeVerifier("verifier-xyz");
    const worker = new McpOAuthProvider(SERVER, CALLBACK);
    expect(await worker.tokens()).toEqual(TOKENS);
    expect(await worker.clientInformation()).toEqual(CLIENT);
    expect(await page.codeVerifier()).toBe("verifier-xyz");
    const raw = await rawStore();
    expect(raw.length).toBeGreaterThan(0);
    for (const secret of [
      TOKENS.access_token,
      TOKENS.refresh_token,
      CLIENT.registration_access_token,
      "verifier-xyz",
    ]) {
      expect(raw).not.toContain(secret);
    }
  });

  it("keeps each server's record apart, one name per URL however it is spelled", async () => {
    await interactive().saveTokens(TOKENS);
    expect(recordName("HTTP://127.0.0.1:9100/mcp")).toBe(recordName(SERVER));
    expect(await new McpOAuthProvider("HTTP://127.0.0.1:9100/mcp", CALLBACK).tokens()).toEqual(TOKENS);
    expect(await new McpOAuthProvider("http://127.0.0.1:9101/mcp", CALLBACK).tokens()).toBeUndefined();
    expect(await new McpOAuthProvider("http://127.0.0.1:9100/other", CALLBACK).tokens()).toBeUndefined();
  });

  it("loses no part when the SDK saves several at once", async () => {
    const p = interactive();
    const discovery = { authorizationServerUrl: "http://127.0.0.1:9200/" };
    await Promise.all([p.saveTokens(TOKENS), p.saveClientInformation(CLIENT), p.saveDiscoveryState(discovery)]);
    expect(await p.store.read()).toEqual({ tokens: TOKENS, client: CLIENT, discovery });
  });

  it("drops only what the SDK invalidates, and everything on 'all' or when the server is removed", async () => {
    const p = interactive();
    await p.saveClientInformation(CLIENT);
    await p.saveTokens(TOKENS);
    await p.invalidateCredentials("tokens");
    expect(await p.tokens()).toBeUndefined();
    expect(await p.clientInformation()).toEqual(CLIENT);
    await p.saveTokens(TOKENS);
    await p.invalidateCredentials("all");
    expect(await p.store.read()).toEqual({});
    await p.saveTokens(TOKENS);
    await new ServerAuthStore(SERVER).forget();
    expect(await p.tokens()).toBeUndefined();
  });

  it("in the worker (quiet mode) never registers, never keeps a verifier, and says a person is needed", async () => {
    const quiet = new McpOAuthProvider(SERVER, CALLBACK);
    const missing = await quiet.clientInformation().catch((err: unknown) => err);
    expect(missing).toBeInstanceOf(SignInRequired);
    expect(needsSignIn(missing)).toBe(true);
    expect(() => quiet.state()).toThrow(SignInRequired);
    await quiet.saveCodeVerifier("from-the-worker");
    await expect(quiet.codeVerifier()).rejects.toBeInstanceOf(SignInRequired);
    quiet.redirectToAuthorization(new URL("http://127.0.0.1:9200/auth"));
    expect(quiet.signInNeeded).toBe(true);
    expect(needsSignIn(new Error("HTTP 500"))).toBe(false);
    expect(
      needsSignIn(new SdkError(SdkErrorCode.ClientHttpAuthentication, "Server returned 401 after re-authentication")),
    ).toBe(true);
    expect(needsSignIn(new OAuthError(OAuthErrorCode.InvalidGrant, "refresh token revoked"))).toBe(true);
    expect(needsSignIn(new OAuthError(OAuthErrorCode.ServerError, "down"))).toBe(false);
  });

  it("in the worker, discovers nothing itself and names only the authorization server's origins the sign-in found", async () => {
    const quiet = new McpOAuthProvider(SERVER, CALLBACK);
    await expect(quiet.discoveryState()).rejects.toBeInstanceOf(SignInRequired); // the page discovers, at sign-in
    expect(await quiet.authOrigins()).toEqual([]);
    expect(await interactive().discoveryState()).toBeUndefined(); // the page's sign-in may discover
    const discovery = {
      authorizationServerUrl: "http://127.0.0.1:9200/",
      authorizationServerMetadata: {
        issuer: "http://127.0.0.1:9200",
        authorization_endpoint: "http://127.0.0.1:9200/auth",
        token_endpoint: "http://127.0.0.1:9201/token",
        response_types_supported: ["code"],
      },
    };
    await interactive().saveDiscoveryState(discovery);
    expect(await quiet.discoveryState()).toEqual(discovery);
    expect(await quiet.authOrigins()).toEqual(["http://127.0.0.1:9200", "http://127.0.0.1:9201"]);
  });

  it("reads a damaged record as signed out, and signing in again replaces it", async () => {
    await sealSecret(recordName(SERVER), "{not json");
    const p = interactive();
    expect(await p.store.read()).toEqual({});
    await p.saveTokens(TOKENS);
    expect(await p.tokens()).toEqual(TOKENS);
  });

  it("shares the wrapping key with the provider keys, which still read back", async () => {
    const ring = new KeyRing();
    await ring.set("openrouter", "encrypted", "sk-or-provider-key");
    await interactive().saveTokens(TOKENS);
    expect(await ring.get("openrouter", "encrypted")).toBe("sk-or-provider-key");
    expect(await new McpOAuthProvider(SERVER, CALLBACK).tokens()).toEqual(TOKENS);
  });
});
