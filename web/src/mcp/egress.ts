/**
 * The egress rule's MCP kind: the MCP client (only it, never the runtime's `http_request`) may reach
 * a configured server's origin (and, for a server signed in with OAuth, its authorization server's, to
 * refresh the token), and a token goes to the server's origin only. Anything else the
 * SDK asks to fetch — a redirect elsewhere, another origin named in a response — is refused. Bodies
 * are counted as they arrive and cut past a limit, so a huge tool list or result costs bounded memory.
 */

export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

export class McpEgressError extends Error {}

/** One answer was larger than a tool server's answer may be. The server is not lost for it: the
 * listing or call it answered fails with this message, and the rest goes on. */
export class McpTooLargeError extends Error {}

/** True when `raw` is at the server's origin (scheme, host and port). */
export function atServerOrigin(raw: string, serverUrl: string): boolean {
  try {
    return new URL(raw).origin === new URL(serverUrl).origin;
  } catch {
    return false;
  }
}

export type FetchFn = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** Origins besides the server's that its OAuth may reach (its authorization server's), asked per request. */
export type AuthOrigins = () => Promise<string[]>;

/** A server's fetch that also says whether it cut a body: a browser may report a body whose stream
 * was errored as a bare "Failed to fetch", so the cut is told by the fetch, not by the error. */
export interface ServerFetch extends FetchFn {
  /** The message of a cut since the last call, once. */
  takeCut(): string | null;
}

/**
 * A fetch for one server: its origin only, its token added there, redirects refused, bodies bounded.
 * `authOrigins` (a server signed in with OAuth): those origins too, for the SDK's token refresh, and
 * never with an `Authorization` header — a token goes to the server's origin only.
 */
export function serverFetch(
  serverUrl: string,
  token: string | undefined,
  maxBytes = MAX_RESPONSE_BYTES,
  base: FetchFn = fetch,
  authOrigins: AuthOrigins = () => Promise.resolve([]),
): ServerFetch {
  let cut: string | null = null;
  const tooLarge = (): McpTooLargeError => {
    const error = new McpTooLargeError(
      `the tool server sent more than ${maxBytes / 1024 / 1024} MB in one answer (the most this app reads); cut off there`,
    );
    cut = error.message;
    return error;
  };
  const fetchFn = async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const url = String(input);
    const atServer = atServerOrigin(url, serverUrl);
    if (!atServer && !(await authOrigins()).includes(originOf(url))) {
      throw new McpEgressError(
        `refused: ${url.slice(0, 200)} is not at the tool server's origin ${new URL(serverUrl).origin}`,
      );
    }
    const headers = new Headers(init?.headers);
    if (!atServer) headers.delete("Authorization");
    else if (token) headers.set("Authorization", `Bearer ${token}`);
    const response = await base(url, { ...init, headers, redirect: "manual", credentials: "omit" });
    if (response.type === "opaqueredirect" || (response.status >= 300 && response.status < 400)) {
      throw new McpEgressError(
        "the tool server answered with a redirect; redirects are not followed: give the URL it answers at",
      );
    }
    if (Number(response.headers.get("Content-Length") ?? 0) > maxBytes) {
      void response.body?.cancel().catch(() => undefined);
      throw tooLarge();
    }
    return bounded(response, maxBytes, tooLarge);
  };
  return Object.assign(fetchFn, {
    takeCut: (): string | null => {
      const said = cut;
      cut = null;
      return said;
    },
  });
}

function originOf(raw: string): string {
  try {
    return new URL(raw).origin;
  } catch {
    return "";
  }
}

const NULL_BODY = new Set([101, 204, 205, 304]);

function bounded(response: Response, maxBytes: number, tooLarge: () => Error): Response {
  if (response.body === null || NULL_BODY.has(response.status)) return response;
  let seen = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > maxBytes) {
        controller.error(tooLarge());
      } else controller.enqueue(chunk);
    },
  });
  return new Response(response.body.pipeThrough(counter), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
