/**
 * An MCP sign-in's answer and what a tab keeps while it waits for one: the state it sent (`mcp.` and a
 * random part), the BroadcastChannel a popup's return page hands the answer over, and the pending
 * sign-in a redirect leaves in sessionStorage. Shared by the return page (oauth-return.ts) and the
 * sign-in (oauth-signin.ts).
 */

import { makeVerifier } from "../settings/oauth";

export type SignInOutcome = { kind: "signed-in" } | { kind: "redirecting" } | { kind: "error"; message: string };

export const CHANNEL = "tidepool.mcp-signin";
const STATE_PREFIX = "mcp.";
const PENDING_KEY = "tidepool.mcp-signin.pending";

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

export function readAnswer(url: URL): Answer | null {
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
    const ended = (): Error =>
      signal.reason instanceof Error ? signal.reason : new Error("the sign-in ended before its answer came");
    signal.addEventListener("abort", () => stop(ended()), { once: true });
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

export function takePending(): Pending | null {
  const text = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as Partial<Pending>;
    return typeof value.state === "string" && typeof value.serverUrl === "string"
      ? { state: value.state, serverUrl: value.serverUrl }
      : null;
  } catch {
    return null;
  }
}
