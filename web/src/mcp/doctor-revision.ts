/**
 * The doctor's part for the stateless 2026-07-28 revision: whether the server's CORS allows the
 * request headers that revision adds (`Mcp-Method`, `Mcp-Name`: without them the browser refuses the
 * app's `server/discover` probe and the app speaks 2025), and the requests that revision takes
 * (`server/discover`, then `tools/list`, each one self-contained: its `_meta` envelope, no session).
 */

export const MODERN = "2026-07-28";

/** The headers the 2026-07-28 revision adds to every request, in the order they are checked. */
export const MODERN_HEADERS = ["Mcp-Method", "Mcp-Name"] as const;

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientInfo": { name: "tidepool-doctor", version: "0.1.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** The first 2026-07-28 request header that `ping` (a preflighted POST with those headers) finds refused. */
export async function refusedModernHeader(
  ping: (headers: Record<string, string>) => Promise<boolean>,
): Promise<string | null> {
  let headers: Record<string, string> = { "mcp-protocol-version": MODERN };
  for (const header of MODERN_HEADERS) {
    headers = { ...headers, [header]: "ping" };
    if (!(await ping(headers))) return header;
  }
  return null;
}

/** What the doctor says when a header is refused: the app still works, on the 2025 revision. */
export function refusedAdvice(header: string, pageOrigin: string): string {
  return (
    `the 2026-07-28 revision's request header ${header} is not allowed (Access-Control-Allow-Headers), so the ` +
    `browser refuses that revision and the app speaks 2025 to this server. Ask the server's owner to add ` +
    `${MODERN_HEADERS.join(" and ")} to Access-Control-Allow-Headers for the origin ${pageOrigin}.`
  );
}

/** A 2026-07-28 request: its headers (beside auth) and its JSON-RPC body. */
export function modernRequest(
  id: number,
  method: string,
  params: Record<string, unknown> = {},
): { headers: Record<string, string>; body: unknown } {
  const name: Record<string, string> = typeof params.name === "string" ? { "Mcp-Name": params.name } : {};
  return {
    headers: { "mcp-protocol-version": MODERN, "Mcp-Method": method, ...name },
    body: { jsonrpc: "2.0", id, method, params: { ...params, _meta: ENVELOPE } },
  };
}

/** The envelope-only `server/discover` (no 2026 headers, so no preflight for them) that tells whether a server
 * speaks 2026-07-28 although its CORS refuses that revision's headers. */
export function bareDiscover(): { headers: Record<string, string>; body: unknown } {
  const { body } = modernRequest(1, "server/discover");
  return { headers: { "mcp-protocol-version": MODERN }, body };
}

/** A 2026-07-28 server answers the bare discover, or refuses it for its missing headers (-32020, HeaderMismatch). */
export function speaksModern(answer: { result?: Record<string, unknown>; error?: { code?: number } } | null): boolean {
  return offersModern(answer?.result) || answer?.error?.code === HEADER_MISMATCH;
}

const HEADER_MISMATCH = -32020;

/** True when a `server/discover` result offers the 2026-07-28 revision. */
export function offersModern(result: Record<string, unknown> | undefined): boolean {
  const versions = result?.supportedVersions;
  return Array.isArray(versions) && versions.includes(MODERN);
}
