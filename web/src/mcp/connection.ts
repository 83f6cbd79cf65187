/**
 * One tool server, on the official SDK: connect over Streamable HTTP (the stateless 2026-07-28
 * revision when `server/discover` says the server speaks it, else the 2025 one, sessionful with
 * `Mcp-Session-Id` or stateless: revision.ts), list its tools, follow `notifications/tools/list_changed`
 * (in 2026-07-28, on the `subscriptions/listen` stream; and say when its prompts or resources changed),
 * call a tool or get a prompt within a time limit. A call that the server
 * answers 404 (its session is gone: it restarted; the reference server says 400) gets a new session and
 * is tried once more.
 * Every request goes through `serverFetch` (egress.ts): this server's origin only, its token only there.
 * A server without a bearer token gets the quiet OAuth provider (oauth-provider.ts): the token the page's
 * sign-in sealed, refreshed by the SDK; `wantsSignIn(error)` says when a person has to sign in again.
 */

import {
  Client,
  SdkHttpError,
  StreamableHTTPClientTransport,
  type CallToolResult,
  type GetPromptResult,
  type Prompt,
  type PriorDiscovery,
  type Tool,
} from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { McpEgressError, McpTooLargeError, serverFetch, type ServerFetch } from "./egress";
import { McpOAuthProvider, needsSignIn } from "./oauth-provider";
import { keepListening, NEGOTIATION, PROBE_REFUSED_NOTE, probeRefused, revisionOf, type Revision } from "./revision";
import { SKILLS_EXTENSION } from "./skill-manifest";
import { MAX_TOOLS, type ToolServerConfig } from "../protocol/tool-servers";

const CONNECT_TIMEOUT_MS = 15_000;
const LIST_TIMEOUT_MS = 15_000;

export interface ConnectionEvents {
  /** The server's tool list changed (it said so); `tools` is the new list, or the error listing it. */
  toolsChanged(tools: Tool[] | Error): void;
  /** The connection closed or failed by itself. */
  lost(error: Error): void;
  /** The server said its resource list changed (`notifications/resources/list_changed`). */
  resourcesChanged?(): void;
  /** The server said its prompt list changed (`notifications/prompts/list_changed`). */
  promptsChanged?(): void;
}

export class ServerConnection {
  private client: Client | null = null;
  private oauth: McpOAuthProvider | null = null;
  private fetch: ServerFetch | null = null;
  /** The revision of the last connect that succeeded. */
  revision: Revision | null = null;

  constructor(
    readonly config: ToolServerConfig,
    private readonly events: ConnectionEvents,
    /** The app page's address, where a sign-in's answer comes back (the client registration names it). */
    private readonly callbackUrl: string,
  ) {}

  /** True when `error` (from connect or call) means a person has to sign in (again) to this server. */
  wantsSignIn(error: unknown): boolean {
    return this.oauth !== null && (this.oauth.signInNeeded || needsSignIn(error));
  }

  /** Connect (a fresh session) and return the tools; the 2025 handshake when the browser refused the probe. */
  async connect(): Promise<Tool[]> {
    try {
      return await this.connectAs(undefined, "");
    } catch (error) {
      if (!probeRefused(error)) throw error;
      return await this.connectAs({ kind: "legacy" }, PROBE_REFUSED_NOTE);
    }
  }

  private async connectAs(prior: PriorDiscovery | undefined, note: string): Promise<Tool[]> {
    await this.close();
    const client = new Client(
      { name: "tidepool", version: "0.1.0" },
      {
        capabilities: { extensions: { [SKILLS_EXTENSION]: {} } }, // skills/list is asked only of a server that declares it too
        jsonSchemaValidator: new CfWorkerJsonSchemaValidator(), // eval-free: the page's CSP refuses eval
        versionNegotiation: NEGOTIATION, // server/discover first (revision.ts): extensions are 2026-07-28 capabilities
        listChanged: {
          prompts: {
            autoRefresh: false,
            onChanged: () => {
              if (this.client === client) this.events.promptsChanged?.();
            },
          },
          tools: {
            onChanged: (error, tools) => {
              if (this.client === client) this.events.toolsChanged(error ?? limitTools(tools ?? []));
            },
          },
          resources: {
            autoRefresh: false, // resources.ts lists them, bounded
            onChanged: () => {
              if (this.client === client) this.events.resourcesChanged?.();
            },
          },
        },
      },
    );
    client.onerror = (error) => {
      if (this.client === client && error instanceof McpEgressError) this.events.lost(error);
    };
    const { url, token } = this.config;
    const oauth = token ? null : new McpOAuthProvider(url, this.callbackUrl); // a bearer token: no OAuth
    this.oauth = oauth;
    this.fetch = serverFetch(url, token, undefined, undefined, oauth ? () => oauth.authOrigins() : undefined);
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      fetch: this.fetch,
      ...(oauth ? { authProvider: oauth } : {}),
    });
    this.client = client;
    const listed = async (): Promise<Tool[]> => {
      await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS, ...(prior ? { prior } : {}) });
      this.revision = revisionOf(client, note);
      keepListening(
        client,
        () => this.client === client,
        () => void this.relist(client),
        (error) => this.events.lost(error),
      );
      return limitTools((await client.listTools(undefined, { timeout: LIST_TIMEOUT_MS })).tools);
    };
    try {
      return await withDeadline(
        listed(),
        CONNECT_TIMEOUT_MS + LIST_TIMEOUT_MS,
        () => void client.close().catch(() => undefined),
      );
    } catch (error) {
      if (this.client === client) await this.close(); // an SSE stream left open by a failed start is cut
      throw this.cutOr(error);
    }
  }

  /** Call `tool`; on a 404 (the session is gone) reconnect once and call again. */
  call(tool: string, args: Record<string, unknown>, timeoutMs: number): Promise<CallToolResult> {
    return this.ask((client) => client.callTool({ name: tool, arguments: args }, { timeout: timeoutMs }));
  }

  /** The server's prompts, every page (none when it offers no prompts). */
  listPrompts(): Promise<Prompt[]> {
    return this.ask(async (client) =>
      client.getServerCapabilities()?.prompts
        ? (await client.listPrompts(undefined, { timeout: LIST_TIMEOUT_MS })).prompts
        : [],
    );
  }

  /** `prompts/get` within `timeoutMs`. */
  getPrompt(name: string, args: Record<string, string>, timeoutMs: number): Promise<GetPromptResult> {
    return this.ask((client) => client.getPrompt({ name, arguments: args }, { timeout: timeoutMs }));
  }

  /** One request on the session; on a 404 (the session is gone) reconnect once and ask again. */
  private async ask<T>(run: (client: Client) => Promise<T>): Promise<T> {
    try {
      return await this.askOnce(run);
    } catch (error) {
      if (!sessionGone(error)) throw error;
      await this.connect();
      return await this.askOnce(run);
    }
  }

  /** Run `work` on the connected client (resources.ts): a body cut at the egress limit fails with its own message. */
  async with<T>(work: (client: Client) => Promise<T>): Promise<T> {
    const client = this.client;
    if (client === null) throw new Error("not connected");
    this.fetch?.takeCut();
    try {
      return await work(client);
    } catch (error) {
      throw this.cutOr(error);
    }
  }

  /** The listen stream was opened again: changes may have been missed, so the list is asked for anew. */
  private async relist(client: Client): Promise<void> {
    let tools: Tool[] | Error;
    try {
      tools = limitTools((await client.listTools(undefined, { timeout: LIST_TIMEOUT_MS })).tools);
    } catch (error) {
      tools = error instanceof Error ? error : new Error(String(error));
    }
    if (this.client === client) this.events.toolsChanged(tools);
  }

  /** The SDK client of the current session (skills.ts asks it for skills), or null when not connected. */
  get sdk(): Client | null {
    return this.client;
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = null;
    await client?.close().catch(() => undefined);
  }

  private async askOnce<T>(run: (client: Client) => Promise<T>): Promise<T> {
    if (this.client === null) await this.connect();
    const client = this.client;
    if (client === null) throw new Error("not connected");
    this.fetch?.takeCut();
    try {
      return await run(client);
    } catch (error) {
      throw this.cutOr(error);
    }
  }

  /** The cut body's own error when this failure came from one (whatever the browser called it). */
  private cutOr(error: unknown): unknown {
    const cut = this.fetch?.takeCut();
    return cut && !(error instanceof McpTooLargeError) ? new McpTooLargeError(cut) : error;
  }
}

/** The server no longer knows our session: 404 as the spec says, or the 400 "no valid session ID" of
 * the reference server-everything after a restart. */
function sessionGone(error: unknown): boolean {
  if (!(error instanceof SdkHttpError)) return false;
  return error.status === 404 || (error.status === 400 && /session/i.test(error.message));
}

/** `work`, or an error once `ms` have passed (then `onLate` runs): a server that never answers costs bounded time. */
async function withDeadline<T>(work: Promise<T>, ms: number, onLate: () => void): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onLate();
      reject(
        new Error(`the server did not answer within ${ms / 1000} s: is it the Streamable HTTP endpoint (often /mcp)?`),
      );
    }, ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

function limitTools(tools: Tool[]): Tool[] {
  if (tools.length > MAX_TOOLS)
    throw new Error(`the server lists ${tools.length} tools, over the ${MAX_TOOLS} this app takes from one server`);
  return tools;
}
