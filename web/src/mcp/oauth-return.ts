/**
 * Where an MCP sign-in's answer comes back: this app's own page (`callbackUrl()`, the OpenRouter
 * sign-in's return address too). `handleSignInReturn()` runs first at boot: a popup hands the answer to
 * the tab that opened it over a BroadcastChannel (the app's COOP cuts `window.opener`) and closes; after
 * a redirect (no popup could open) the sign-in finishes in this tab. The states this flow sends start
 * with `mcp.`; the OpenRouter return sends none. No SDK code here: the page loads it only to finish.
 */

import { CHANNEL, readAnswer, takePending, type SignInOutcome } from "./oauth-answer";

/** `popup`: this page was the sign-in popup (stop booting); otherwise, after a redirect, how it ended and for which server. */
export type SignInReturn = { kind: "none" } | { kind: "popup" } | (SignInOutcome & { serverUrl: string });

/** Whether this page's address carries a sign-in's answer (then `handleSignInReturn` decides whether it boots). */
export function carriesSignInAnswer(loc: Location = window.location): boolean {
  return readAnswer(new URL(loc.href)) !== null;
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
    return { ...(await finishRedirect(pending, answer)), serverUrl: pending.serverUrl };
  }
  // A popup: the tab that opened it takes the answer only if the state is the one it sent (a forged
  // link's is not). A tab the person opened themselves cannot be closed by script: it boots as usual.
  const channel = new BroadcastChannel(CHANNEL);
  channel.postMessage(answer);
  channel.close();
  window.close();
  return window.closed ? { kind: "popup" } : { kind: "none" };
}
