/**
 * Where an MCP sign-in's answer comes back: this app's own page (`callbackUrl()`, the OpenRouter
 * sign-in's return address too). `handleSignInReturn()` runs first at boot: a popup hands the answer to
 * the tab that opened it over a BroadcastChannel (the app's COOP cuts `window.opener`) and closes; after
 * a redirect (no popup could open) the sign-in finishes in this tab. The states this flow sends start
 * with `mcp.`; the OpenRouter return sends none. No SDK code here: the page loads it only to finish.
 */

import { makeVerifier } from "../settings/oauth";
import type { SignInOutcome } from "./oauth-signin";

const CHANNEL = "tidepool.mcp-signin";
const STATE_PREFIX = "mcp.";
const PENDING_KEY = "tidepool.mcp-signin.pending";

export type SignInReturn = { kind: "none" } | { kind: "popup" } | SignInOutcome;

export interface Answer {
  state: string;
  code: string | null;
  error: string | null;
  description: string | null;
  iss: string | null;
}

export interface Pending {
  state: string;
  serverUrl: string;
}

export function newState(): string {
  return STATE_PREFIX + makeVerifier();
}

function readAnswer(url: URL): Answer | null {
  const state = url.searchParams.get("state");
  if (!state?.startsWith(STATE_PREFIX)) return null;
  return {
    state,
    code: url.searchParams.get("code"),
    error: url.searchParams.get("error"),
    description: url.searchParams.get("error_description"),
    iss: url.searchParams.get("iss"),
  };
}

/** The answer to the sign-in sent with `state`, from the popup's return page; rejects after `timeoutMs` or on abort. */
export function waitForAnswer(state: string, timeoutMs: number, signal: AbortSignal): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const channel = new BroadcastChannel(CHANNEL);
    const stop = (err?: Error): void => {
      clearTimeout(timer);
      channel.close();
      if (err) reject(err);
    };
    const timer = setTimeout(() => {
      stop(new Error(`the sign-in window gave no answer within ${Math.round(timeoutMs / 1000)} s: sign in again`));
    }, timeoutMs);
    signal.addEventListener("abort", () => stop(new Error("the sign-in ended before its answer came")), { once: true });
    channel.onmessage = (event: MessageEvent<Answer>) => {
      if (event.data?.state !== state) return;
      stop();
      resolve(event.data);
    };
  });
}

/** Before this tab leaves for the authorization page: what it needs to finish when it comes back. */
export function savePending(pending: Pending): void {
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
}

function takePending(): Pending | null {
  const text = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as Partial<Pending>;
    return typeof value.state === "string" && typeof value.serverUrl === "string" ? { state: value.state, serverUrl: value.serverUrl } : null;
  } catch {
    return null;
  }
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
  const pending = takePending();
  if (pending?.state === answer.state) {
    const { finishRedirect } = await import("./oauth-signin");
    return finishRedirect(pending, answer);
  }
  // A popup: the tab that opened it takes the answer only if the state is the one it sent (a forged
  // link's is not). A tab the person opened themselves cannot be closed by script: it boots as usual.
  const channel = new BroadcastChannel(CHANNEL);
  channel.postMessage(answer);
  channel.close();
  window.close();
  return window.closed ? { kind: "popup" } : { kind: "none" };
}
