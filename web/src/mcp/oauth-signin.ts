/**
 * Sign in to an MCP server, in the page: the SDK's `auth()` walks 401 -> protected resource metadata ->
 * authorization server metadata -> dynamic client registration -> PKCE; the authorization page opens in
 * a popup (opened at once, inside the click, so the browser allows it) or, when no popup may open, in
 * this tab. How the answer comes back is oauth-return.ts.
 */

import { auth } from "@modelcontextprotocol/client";
import { callbackUrl } from "../settings/oauth";
import { EndpointReporter } from "./oauth-fetch";
import { McpOAuthProvider, type Interactive } from "./oauth-provider";
import { newState, savePending, waitForAnswer, type Answer, type Pending, type SignInOutcome } from "./oauth-answer";
export type { SignInOutcome } from "./oauth-answer";

const DEFAULT_TIMEOUT_MS = 5 * 60_000;

/** Exchange the code the authorization server sent back (checking it answers this sign-in) for tokens. */
async function finish(provider: McpOAuthProvider, answer: Answer, reporter: EndpointReporter): Promise<SignInOutcome> {
  if (answer.error) {
    const why = answer.description ? `${answer.error}: ${answer.description}` : answer.error;
    return { kind: "error", message: `The authorization server refused the sign-in (${why}).` };
  }
  if (!answer.code) return { kind: "error", message: "The sign-in came back without a code: sign in again." };
  try {
    // `iss` (RFC 9207): the SDK refuses an answer from another authorization server than the one it asked.
    const iss = answer.iss ?? undefined;
    await auth(provider, {
      serverUrl: provider.serverUrl,
      authorizationCode: answer.code,
      iss,
      fetchFn: reporter.fetch,
    });
    return { kind: "signed-in" };
  } catch (err) {
    return { kind: "error", message: reporter.explain(err) };
  } finally {
    await provider.store.put("verifier", undefined);
  }
}

async function run(
  serverUrl: string,
  popup: Window | null,
  timeoutMs: number,
  cancel?: AbortSignal,
): Promise<SignInOutcome> {
  const state = newState();
  const done = new AbortController();
  const answer = popup
    ? waitForAnswer(state, timeoutMs, cancel ? AbortSignal.any([done.signal, cancel]) : done.signal)
    : null;
  answer?.catch(() => undefined); // awaited below only when the popup is used; never an unhandled rejection
  const open: Interactive["open"] = (url) => {
    if (popup) {
      popup.location.href = url.href;
      return;
    }
    savePending({ state, serverUrl });
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
  } finally {
    done.abort(); // stop listening for an answer that will not be used
  }
}

/**
 * Start signing in to `serverUrl`. Call it synchronously from the click on `tool-server-signin`: the
 * popup opens before the first await. Resolves when tokens are stored (the worker's transport finds them
 * on its next connect), with a message when it failed, or `redirecting` when this tab is leaving.
 * `cancel` ends a sign-in whose window was closed: the page cannot see that itself, since the app's
 * opener policy parts it from the window once that goes to the authorization server.
 */
export function signIn(
  serverUrl: string,
  timeoutMs: number = DEFAULT_TIMEOUT_MS,
  cancel?: AbortSignal,
): Promise<SignInOutcome> {
  const popup = window.open("about:blank", "_blank", "popup,width=520,height=720");
  return run(serverUrl, popup, timeoutMs, cancel);
}

/** After a redirect: finish the sign-in this tab started before it left. */
export function finishRedirect(pending: Pending, answer: Answer): Promise<SignInOutcome> {
  const provider = new McpOAuthProvider(pending.serverUrl, callbackUrl(), {
    state: pending.state,
    open: () => undefined,
  });
  return finish(provider, answer, new EndpointReporter());
}
