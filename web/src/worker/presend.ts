/**
 * The request that leaves at Send (docs/protocol.md, `runtime/host/presend.py`). While idle the runtime
 * offers the first request a plain message would send now (`http_offer`), its body split where the text
 * goes. At Send the adapter puts the text in, escaped exactly as Python's `json.dumps` escapes it, and
 * starts the request under the offer's id before the message reaches the runtime. The runtime's turn checks
 * that its own first request is that one byte for byte, and cancels it otherwise.
 *
 * An offer is used once, and dropped whenever anything else happens first: any other message to the
 * runtime, any event or request from it, a write from the files panel. One that crossed a message on its
 * way (the runtime had not read all this worker had sent it: its `heard`) is out of date as it arrives.
 */

import type { OfferedRequest, PresendUse, RuntimeMessage } from "../protocol/messages";
import type { HttpRequestMessage } from "./http";

/** Runtime messages after which the offer may no longer be what the runtime would send. */
const DROPPED_BY = new Set<RuntimeMessage["type"]>([
  "event",
  "http_request",
  "exec_request",
  "flush_request",
  "mcp_call",
  "cancel",
  "error",
]);

export class Presend {
  private offer: OfferedRequest | null = null;

  /** The runtime offered a request (or withdrew its offer: null), after `said` frames went to it from here. */
  offered(offer: OfferedRequest | null, said: number): void {
    this.offer = offer !== null && offer.heard === said ? offer : null;
  }

  /** The runtime said something else: the offer may be out of date. */
  heard(type: RuntimeMessage["type"]): void {
    if (DROPPED_BY.has(type)) this.offer = null;
  }

  drop(): void {
    this.offer = null;
  }

  /**
   * The request to send now for a plain message's `text` (null: a message that is not plain, a text that
   * starts a `/skill` turn or does not fit the offer's room, or no offer). The offer is spent either way.
   */
  take(text: string | null): { request: HttpRequestMessage; use: PresendUse } | null {
    const offer = this.offer;
    this.offer = null;
    if (offer === null || text === null || text.startsWith("/")) return null;
    const escaped = escapeJsonText(text);
    if (escaped.length > offer.room) return null;
    const request: HttpRequestMessage = {
      type: "http_request",
      id: offer.id,
      method: offer.method,
      url: offer.url,
      headers: offer.headers,
      body: offer.before + escaped + offer.after,
      stream: true,
      auth: offer.auth,
      timeout_s: offer.timeout_s,
    };
    return { request, use: { id: offer.id, text: escaped } };
  }
}

const SHORT: Record<string, string> = {
  '"': '\\"',
  "\\": "\\\\",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
};
/** What Python's `json.dumps` escapes by default: `"`, `\` and every character outside printable ASCII. */
const ESCAPED = /["\\]|[^\x20-\x7e]/g;

/**
 * `text` inside a JSON string as Python's `json.dumps` writes it (its `ensure_ascii` default): the short
 * escapes, and `\u` with four lowercase hex digits for every other character outside printable ASCII,
 * each UTF-16 unit on its own (so a character beyond the BMP is its surrogate pair, as Python writes it).
 */
export function escapeJsonText(text: string): string {
  return text.replace(ESCAPED, (ch) => SHORT[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
