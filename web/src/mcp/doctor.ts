/**
 * The connection doctor's checks for one tool server, as plain logic over an injected `fetch` (the
 * page's own, so the browser's CORS rules apply as they do to the worker's client): reachable (a
 * `no-cors` probe), CORS (which part is missing, found by adding one request header at a time),
 * auth state (401, `WWW-Authenticate`), the protocol revision (`server/discover` for 2026-07-28, else
 * `initialize`; doctor-revision.ts), and the tool count
 * (`tools/list`; a sessionful server whose `Mcp-Session-Id` is hidden is caught here). Each result says
 * what to tell the server's owner. Every request is bounded in time and in bytes read.
 */

import type { CheckResult, CheckState } from "../settings/doctor";
import {
  bareDiscover,
  MODERN,
  modernRequest,
  offersModern,
  refusedAdvice,
  refusedModernHeader,
  speaksModern,
} from "./doctor-revision";
import { ServerAuthStore, type ServerAuth } from "./oauth-store";
import { loadServers } from "./servers-store";
import { MAX_TOOLS } from "../protocol/tool-servers";

export interface McpDoctorInput {
  name: string;
  url: string;
  token?: string;
  /** The token is the OAuth sign-in's access token, not one the person gave. */
  signedIn?: boolean;
  /** This page's origin (what the server must allow). */
  pageOrigin: string;
  fetch: typeof fetch;
  timeoutMs?: number;
}

const REVISION = "2025-06-18";
const MAX_READ_BYTES = 1024 * 1024;
const ACCEPT = "application/json, text/event-stream";

type Rpc = { result?: Record<string, unknown>; error?: { code?: number; message?: string } };

class Probe {
  constructor(private readonly input: McpDoctorInput) {}

  /** The answer, or null when the browser refused it or nothing answered in time. */
  async send(mode: RequestMode, init: RequestInit = {}): Promise<Response | null> {
    try {
      const response = await this.input.fetch(this.input.url, {
        ...init,
        mode,
        credentials: "omit",
        cache: "no-store",
        redirect: mode === "no-cors" ? "follow" : "manual", // no-cors takes "follow" only
        signal: AbortSignal.timeout(this.input.timeoutMs ?? 10_000),
      });
      return response;
    } catch {
      return null;
    }
  }

  /** Whether the browser let the answer through; its body is dropped. */
  async passes(mode: RequestMode, init?: RequestInit): Promise<boolean> {
    const response = await this.send(mode, init);
    void response?.body?.cancel().catch(() => undefined);
    return response !== null;
  }

  post(headers: Record<string, string>, body: unknown): Promise<Response | null> {
    return this.send("cors", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: ACCEPT, ...headers },
      body: JSON.stringify(body),
    });
  }
}

function result(input: McpDoctorInput, check: CheckResult["check"], state: CheckState, text: string): CheckResult {
  return { check, state, text: `${input.name}: ${text}`, server: input.name };
}

/** The checks of every kept tool server, side by side; a store that cannot be read gives none. */
export async function checkAllServers(pageOrigin: string, fetchFn: typeof fetch): Promise<CheckResult[]> {
  const servers = await loadServers().catch(() => []);
  const checks = servers.map(async (config) => {
    const auth: ServerAuth = config.token ? {} : await new ServerAuthStore(config.url).read().catch(() => ({}));
    const access = auth.tokens?.access_token;
    const token = config.token ?? access;
    return checkServer({
      name: config.name,
      url: config.url,
      pageOrigin,
      fetch: fetchFn,
      ...(token ? { token } : {}),
      signedIn: access !== undefined,
    });
  });
  return (await Promise.all(checks)).flat();
}

/** Every check for one server; later checks are left out once an earlier one fails. */
export async function checkServer(input: McpDoctorInput): Promise<CheckResult[]> {
  const probe = new Probe(input);
  const origin = new URL(input.url).origin;
  if (!(await probe.passes("no-cors"))) {
    return [
      result(
        input,
        "mcp-reachable",
        "fail",
        `nothing answers at ${input.url}. Is the server running, and is this its Streamable HTTP endpoint (often /mcp)?`,
      ),
    ];
  }
  const out = [result(input, "mcp-reachable", "ok", `${origin} answers.`)];
  const cors = await corsProblem(probe, input);
  if (cors)
    return [
      ...out,
      result(input, "mcp-cors", "fail", `${cors} Until then the browser hides the server's answers from this app.`),
    ];
  const refused = await refusedModernHeader((headers) => ping(probe, headers));
  // A refused 2026 header matters only for a server that speaks 2026-07-28 (a 2025 server needs none).
  const warn = refused !== null && (await modernBehindCors(probe, input));
  out.push(
    refused && warn
      ? result(input, "mcp-cors", "warn", refusedAdvice(refused, input.pageOrigin))
      : result(
          input,
          "mcp-cors",
          "ok",
          `requests from ${input.pageOrigin} are allowed (origin, methods and MCP headers).`,
        ),
  );
  return [...out, ...(await session(probe, input, refused === null))];
}

/** Whether the server answers the envelope-only `server/discover` as a 2026-07-28 server does. */
async function modernBehindCors(probe: Probe, input: McpDoctorInput): Promise<boolean> {
  const { headers, body } = bareDiscover();
  const answered = await probe.post(
    { ...headers, ...(input.token ? { Authorization: `Bearer ${input.token}` } : {}) },
    body,
  );
  return answered !== null && speaksModern(await readRpc(answered));
}

/** Whether a preflighted POST (a ping) with these extra request headers gets through. */
function ping(probe: Probe, headers: Record<string, string>): Promise<boolean> {
  return probe.passes("cors", {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: ACCEPT, ...headers },
    body: '{"jsonrpc":"2.0","id":0,"method":"ping"}',
  });
}

/** Which CORS part is missing: each step adds one request header to a preflighted POST. */
async function corsProblem(probe: Probe, input: McpDoctorInput): Promise<string | null> {
  const ask = (what: string): string => `Ask the server's owner to ${what} for the origin ${input.pageOrigin}.`;
  if (!(await probe.passes("cors", { method: "GET", headers: { Accept: "text/event-stream" } }))) {
    return `the server sends no Access-Control-Allow-Origin header. ${ask("send Access-Control-Allow-Origin")}`;
  }
  if (!(await ping(probe, {}))) {
    return (
      "the preflight (OPTIONS) was refused: the server answers OPTIONS with an error (often 401: sign-in asked before CORS) or " +
      `without Access-Control-Allow-Methods POST and Access-Control-Allow-Headers Content-Type. ${ask("answer OPTIONS with 204 and those headers, without sign-in,")}`
    );
  }
  const steps: [string, Record<string, string>][] = [
    ["mcp-protocol-version", { "mcp-protocol-version": REVISION }],
    ["Mcp-Session-Id", { "Mcp-Session-Id": "doctor-probe" }],
    ...(input.token
      ? ([["Authorization", { Authorization: `Bearer ${input.token}` }]] as [string, Record<string, string>][])
      : []),
  ];
  for (const [header, headers] of steps) {
    if (!(await ping(probe, headers))) {
      return `the request header ${header} is not allowed (Access-Control-Allow-Headers). ${ask(`add ${header} to Access-Control-Allow-Headers`)}`;
    }
  }
  return null;
}

/** `server/discover` (when its headers may be sent), then `tools/list` as 2026-07-28 asks; else the 2025 way. */
async function session(probe: Probe, input: McpDoctorInput, modernAllowed: boolean): Promise<CheckResult[]> {
  const auth: Record<string, string> = input.token ? { Authorization: `Bearer ${input.token}` } : {};
  if (modernAllowed) {
    const discover = modernRequest(1, "server/discover");
    const answered = await probe.post({ ...auth, ...discover.headers }, discover.body);
    if (answered && (answered.status === 401 || answered.status === 403)) return [authState(input, answered)];
    const answer = answered?.ok ? await readRpc(answered) : null;
    if (answered && offersModern(answer?.result)) {
      const protocol = `protocol revision ${MODERN}, stateless (server/discover; change events on subscriptions/listen).`;
      const list = modernRequest(2, "tools/list");
      return [
        authState(input, answered),
        result(input, "mcp-protocol", "ok", protocol),
        await toolCount(probe, input, { ...auth, ...list.headers }, null, list.body),
      ];
    }
    void answered?.body?.cancel().catch(() => undefined);
  }
  return await initialized(probe, input, auth);
}

/** `initialize`, then `tools/list` on the session it gave: auth state, revision, tool count. */
async function initialized(probe: Probe, input: McpDoctorInput, auth: Record<string, string>): Promise<CheckResult[]> {
  const init = await probe.post(
    { ...auth, "mcp-protocol-version": REVISION },
    {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: REVISION,
        capabilities: {},
        clientInfo: { name: "tidepool-doctor", version: "0.1.0" },
      },
    },
  );
  if (!init)
    return [
      result(input, "mcp-protocol", "fail", "initialize got no answer in time: is this the Streamable HTTP endpoint?"),
    ];
  const authCheck = authState(input, init);
  if (authCheck.state === "fail" || init.status === 401) return [authCheck];
  const answer = await readRpc(init);
  const revision = answer?.result?.protocolVersion;
  if (typeof revision !== "string") {
    return [
      authCheck,
      result(
        input,
        "mcp-protocol",
        "fail",
        `initialize did not answer as MCP does (HTTP ${init.status}${answer?.error?.message ? `: ${answer.error.message}` : ""}). Is this the Streamable HTTP endpoint?`,
      ),
    ];
  }
  const sessionId = init.headers.get("Mcp-Session-Id");
  const protocol = result(
    input,
    "mcp-protocol",
    "ok",
    `protocol revision ${revision}, ${sessionId ? "sessionful (Mcp-Session-Id)" : "stateless or without a session"}.`,
  );
  return [authCheck, protocol, await toolCount(probe, input, { ...auth, "mcp-protocol-version": revision }, sessionId)];
}

function authState(input: McpDoctorInput, init: Response): CheckResult {
  if (init.status === 401 || init.status === 403) {
    const challenge = init.headers.get("WWW-Authenticate") ?? "";
    if (input.signedIn)
      return result(
        input,
        "mcp-auth",
        "warn",
        `the sign-in is no longer accepted (HTTP ${init.status}): it expired or was revoked; the app refreshes it when it can, else sign in again in the Tool servers panel.`,
      );
    if (input.token)
      return result(input, "mcp-auth", "fail", `the server refused the token (HTTP ${init.status}): give a valid one.`);
    const oauth = /resource_metadata=/i.test(challenge);
    const hidden =
      challenge === ""
        ? " (its WWW-Authenticate header is not exposed to this page: ask its owner to add it to Access-Control-Expose-Headers)"
        : "";
    return result(
      input,
      "mcp-auth",
      "warn",
      oauth
        ? "the server asks for OAuth sign-in: use Sign in in the Tool servers panel."
        : `the server asks for sign-in (HTTP ${init.status}): give it a token${hidden}.`,
    );
  }
  const how = input.signedIn
    ? "signed in; the sign-in is accepted."
    : input.token
      ? "the token is accepted."
      : "no sign-in is needed.";
  return result(input, "mcp-auth", "ok", how);
}

async function toolCount(
  probe: Probe,
  input: McpDoctorInput,
  headers: Record<string, string>,
  sessionId: string | null,
  /** A 2026-07-28 `tools/list` (self-contained: no `notifications/initialized` before it). */
  modernList?: unknown,
): Promise<CheckResult> {
  const withSession = sessionId ? { ...headers, "Mcp-Session-Id": sessionId } : headers;
  if (modernList === undefined) await probe.post(withSession, { jsonrpc: "2.0", method: "notifications/initialized" });
  const listed = await probe.post(withSession, modernList ?? { jsonrpc: "2.0", id: 2, method: "tools/list" });
  const answer = listed ? await readRpc(listed) : null;
  if (sessionId) void probe.send("cors", { method: "DELETE", headers: withSession });
  const tools = answer?.result?.tools;
  if (!Array.isArray(tools)) {
    if (!sessionId && listed && (listed.status === 400 || listed.status === 404)) {
      return result(
        input,
        "mcp-tools",
        "fail",
        "the server wants a session but this page cannot see its Mcp-Session-Id. Ask the server's owner to add Mcp-Session-Id to Access-Control-Expose-Headers.",
      );
    }
    return result(
      input,
      "mcp-tools",
      "fail",
      `tools/list failed (${listed ? `HTTP ${listed.status}` : "no answer"}${answer?.error?.message ? `: ${answer.error.message}` : ""}).`,
    );
  }
  const more = typeof answer?.result?.nextCursor === "string" ? " on the first page" : "";
  if (tools.length > MAX_TOOLS)
    return result(
      input,
      "mcp-tools",
      "fail",
      `${tools.length} tools${more}, over the ${MAX_TOOLS} this app takes from one server.`,
    );
  return result(
    input,
    "mcp-tools",
    tools.length ? "ok" : "warn",
    `${tools.length} tool${tools.length === 1 ? "" : "s"}${more}.`,
  );
}

/** The JSON-RPC answer in a JSON or SSE body, reading at most MAX_READ_BYTES. */
async function readRpc(response: Response): Promise<Rpc | null> {
  const text = await readBounded(response);
  const sse = (response.headers.get("Content-Type") ?? "").includes("text/event-stream");
  const payloads = sse
    ? text
        .split(/\r?\n/)
        .filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5).trim())
    : [text];
  for (const payload of payloads) {
    try {
      const parsed: unknown = JSON.parse(payload);
      if (typeof parsed === "object" && parsed !== null && ("result" in parsed || "error" in parsed))
        return parsed as Rpc;
    } catch {
      // not JSON: the next line, or nothing
    }
  }
  return null;
}

async function readBounded(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return "";
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      // An SSE answer ends with its message's blank line; a stream held open past it is not waited for.
      if (text.length > MAX_READ_BYTES || (/"(result|error)"/.test(text) && /\r?\n\r?\n/.test(text))) break;
    }
  } catch {
    // cut off or timed out: what arrived is parsed
  } finally {
    void reader.cancel().catch(() => undefined);
  }
  return text;
}
