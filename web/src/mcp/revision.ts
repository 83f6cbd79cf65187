/**
 * Which MCP revision a tool server speaks, as the official SDK negotiates it: `server/discover` first
 * (the stateless 2026-07-28 revision: one request per POST, change events on a `subscriptions/listen`
 * stream), the 2025 `initialize` handshake (sessionful with `Mcp-Session-Id`, or stateless) when the
 * server answers as a 2025 server does. A probe the browser refused outright (the server's CORS
 * preflight does not allow the 2026 request headers `Mcp-Method`/`Mcp-Name`: the SDK sees only a
 * `TypeError`) is taken as "speak 2025" too, and said so; a server that is down then fails as before.
 */

import { SdkError, SdkErrorCode, type Client, type McpSubscription } from "@modelcontextprotocol/client";

const RELISTEN_MS = 1_000;

/** What the entry and the doctor say about the revision in use. */
export interface Revision {
  /** The negotiated protocol version, e.g. "2026-07-28" or "2025-11-25". */
  version: string;
  era: "modern" | "legacy";
  /** Why the modern revision was not used although it may be offered (empty when nothing to say). */
  note: string;
}

/** The client's negotiation: probe, fall back to the 2025 handshake unless the answer is modern. */
export const NEGOTIATION = { mode: "auto" } as const;

export const PROBE_REFUSED_NOTE =
  "the 2026-07-28 probe was refused by the browser (the server's CORS does not allow Mcp-Method and Mcp-Name), so the 2025 revision is used";

/** True when the `server/discover` probe failed because the browser refused the request (CORS or network). */
export function probeRefused(error: unknown): boolean {
  if (!(error instanceof SdkError) || error.code !== SdkErrorCode.EraNegotiationFailed) return false;
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof TypeError || (cause instanceof Error && cause.name === "TypeError");
}

export function revisionOf(client: Client, note: string): Revision {
  const era = client.getProtocolEra() ?? "legacy";
  return { version: client.getNegotiatedProtocolVersion() ?? "", era, note };
}

/**
 * Keep a modern connection's listen stream open: when the server or the network ends it (not us),
 * listen again and say so (`reopened`: events may have been missed, the caller lists again); when
 * listening again fails, `failed`. A legacy connection has no listen stream (its server notifies on
 * its own streams), nothing to do.
 */
export function keepListening(
  client: Client,
  alive: () => boolean,
  reopened: () => void,
  failed: (error: Error) => void,
): void {
  const watch = (subscription: McpSubscription | undefined): void => {
    if (!subscription) return;
    void subscription.closed.then(async (how) => {
      if (how === "local" || !alive()) return;
      await new Promise((resolve) => setTimeout(resolve, RELISTEN_MS)); // a server that ends every stream costs little
      if (!alive()) return;
      try {
        const again = await client.listen(subscription.honoredFilter);
        if (!alive()) return void again.close();
        watch(again);
        reopened();
      } catch (error) {
        if (alive()) failed(error instanceof Error ? error : new Error(String(error)));
      }
    });
  };
  watch(client.autoOpenedSubscription);
}
