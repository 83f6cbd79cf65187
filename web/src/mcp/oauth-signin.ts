/**
 * Sign in to an MCP server, in the page: the SDK's `auth()` walks 401 -> protected resource metadata ->
 * authorization server metadata -> dynamic client registration -> PKCE; the authorization page opens in
 * a popup (opened at once, inside the click, so the browser allows it) or, when no popup may open, in
 * this tab. The answer comes back to this app's own page (`callbackUrl()`, the OpenRouter sign-in's
 * return address too): `handleSignInReturn()` at boot hands a popup's answer to the tab that opened it
 * over a BroadcastChannel (the app's COOP cuts `window.opener`), or finishes a redirect in place.
 * The states this flow sends start with `mcp.`; the OpenRouter return sends none.
 */

import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { callbackUrl, makeVerifier } from "../settings/oauth";
import { EndpointReporter } from "./oauth-fetch";
import { McpOAuthProvider, type Interactive } from "./oauth-provider";

const CHANNEL = "tidepool.mcp-signin";
const STATE_PREFIX = "mcp.";
const PENDING_KEY = "tidepool.mcp-signin.pending";
const DEFAULT_TIMEOUT_MS = 5 * 60_000;

export type SignInOutcome =
  | { kind: "signed-in" }
  | { kind: "redirecting" }
  | { kind: "error"; message: string };

export type SignInReturn = { kind: "none" } | { kind: "popup" } | SignInOutcome;

interface Answer {
  state: string;
  code: string | null;
  error: string | null;
  description: string | null;
  iss: string | null;
}

interface Pending {
  state: string;
  serverUrl: string;
}

function readAnswer(url: URL): Answer | null {
  const state = url.searchParams.get("state");
  if (!state?.startsWith(STATE_PREFIX)) return null;
  const p = url.searchParams;
  return { state, code: p.get("code"), error: p.get("error"), description: p.get("error_description"), iss: p.get("iss") };
}

function waitForAnswer(state: string, timeoutMs: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const channel = new BroadcastChannel(CHANNEL);
    const timer = setTimeout(() => {
      channel.close();
      reject(new Error(`the sign-in window gave no answer within ${Math.round(timeoutMs / 1000)} s: sign in again`));
    }, timeoutMs);
    channel.onmessage = (event: MessageEvent<Answer>) => {
      if (event.data?.state !== state) return;
      clearTimeout(timer);
      channel.close();
      resolve(event.data);
    };
  });
}

/** Exchange the code the authorization server sent back (checking it answers this sign-in) for tokens. */
async function finish(provider: McpOAuthProvider, answer: Answer, reporter: EndpointReporter): Promise<SignInOutcome> {
  if (answer.error) {
    const why = answer.description ? `${answer.error}: ${answer.description}` : answer.error;
    return { kind: "error", message: `The authorization server refused the sign-in (${why}).` };
  }
  if (!answer.code) return { kind: "error", message: "The sign-in came back without a code: sign in again." };
  const issuer = (await provider.store.read()).discovery?.authorizationServerMetadata?.issuer;
  if (answer.iss !== null && issuer !== undefined && answer.iss !== issuer) {
    return { kind: "error", message: `The sign-in answer came from ${answer.iss}, not from ${issuer}: refused.` };
  }
  try {
    await auth(provider, { serverUrl: provider.serverUrl, authorizationCode: answer.code, fetchFn: reporter.fetch });
    return { kind: "signed-in" };
  } catch (err) {
    return { kind: "error", message: reporter.explain(err) };
  } finally {
    await provider.store.put("verifier", undefined);
  }
}

async function run(serverUrl: string, popup: Window | null, timeoutMs: number): Promise<SignInOutcome> {
  const state = STATE_PREFIX + makeVerifier();
  const answer = popup ? waitForAnswer(state, timeoutMs) : null;
  const open: Interactive["open"] = (url) => {
    if (popup) {
      popup.location.href = url.href;
      return;
    }
    sessionStorage.setItem(PENDING_KEY, JSON.stringify({ state, serverUrl } satisfies Pending));
    window.location.assign(url.href);
  };
  const provider = new McpOAuthProvider(serverUrl, callbackUrl(), { state, open });
  const reporter = new EndpointReporter();
  try {
    if ((await auth(provider, { serverUrl, fetchFn: reporter.fetch })) === "AUTHORIZED") {
      popup?.close(); // a stored refresh token was enough
      return { kind: "signed-in" };
    }
    if (!answer) return { kind: "redirecting" };
    return await finish(provider, await answer, reporter);
  } catch (err) {
    popup?.close();
    return { kind: "error", message: reporter.explain(err) };
  }
}

/**
 * Start signing in to `serverUrl`. Call it synchronously from the click on `tool-server-signin`: the
 * popup opens before the first await. Resolves when tokens are stored (the worker's transport finds them
 * on its next connect), with a message when it failed, or `redirecting` when this tab is leaving.
 */
export function signIn(serverUrl: string, timeoutMs: number = DEFAULT_TIMEOUT_MS): Promise<SignInOutcome> {
  const popup = window.open("about:blank", "_blank", "popup,width=520,height=720");
  return run(serverUrl, popup, timeoutMs);
}

/**
 * Call first thing at boot. When this page is the authorization server's answer to an MCP sign-in, it
 * cleans the address bar and either passes the answer to the tab that opened this popup (then closes
 * itself; the caller should stop booting) or, after a redirect, finishes the sign-in here.
 */
export async function handleSignInReturn(loc: Location = window.location): Promise<SignInReturn> {
  const url = new URL(loc.href);
  const answer = readAnswer(url);
  if (!answer) return { kind: "none" };
  history.replaceState(null, "", url.pathname);
  const pending = parsePending(sessionStorage.getItem(PENDING_KEY));
  if (pending?.state === answer.state) {
    sessionStorage.removeItem(PENDING_KEY);
    const provider = new McpOAuthProvider(pending.serverUrl, callbackUrl(), { state: pending.state, open: () => undefined });
    return finish(provider, answer, new EndpointReporter());
  }
  const channel = new BroadcastChannel(CHANNEL);
  channel.postMessage(answer);
  channel.close();
  window.close();
  return { kind: "popup" };
}

function parsePending(text: string | null): Pending | null {
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as Partial<Pending>;
    return typeof value.state === "string" && typeof value.serverUrl === "string" ? { state: value.state, serverUrl: value.serverUrl } : null;
  } catch {
    return null;
  }
}

/** Forget a server's tokens and registration (it was removed). */
export async function forgetSignIn(serverUrl: string): Promise<void> {
  await new McpOAuthProvider(serverUrl, callbackUrl()).store.forget();
}
