/**
 * The tool servers inside the agent worker: the page posts their definitions (`setServers`), this
 * connects to each (connection.ts), tells the runtime their tools (`mcp_tools`; the runtime answers
 * which names it took) and the page each server's status, and performs the runtime's `mcp_call`s.
 * A server that fails is marked `error` with what to do and its tools withdrawn; the others go on.
 * Tokens stay here: never in a frame, a status or a log line.
 */

import type { CallToolResult, Tool } from "@modelcontextprotocol/client";
import { SdkHttpError } from "@modelcontextprotocol/client";
import type { HostMessage, RuntimeMessage } from "../protocol/messages";
import { ServerConnection } from "./connection";
import { McpEgressError } from "./egress";
import { describe } from "./faults";
import { readResource, listResources, tooLarge } from "./resources";
import { toContent, MAX_RESULT_CHARS } from "./results";
import { getPrompt, listPrompts, PROMPTS_NOTE } from "./prompts";
import type { RequestResult } from "../protocol/main-worker-messages";
import type { SkillEntry } from "./skill-manifest";
import { fetchSkill, listSkills, type FetchedSkill } from "./skills";
import type { ToolServerConfig, ToolServerState, ToolServerStatus } from "../protocol/tool-servers";

type McpCall = Extract<RuntimeMessage, { type: "mcp_call" }>;
type McpToolSpec = Extract<HostMessage, { type: "mcp_tools" }>["tools"][number];
type Refused = { name: string; reason: string };

const RETRY_MS = 3_000;
const SIGN_IN =
  "this server wants you to sign in: press Sign in (its sign-in page opens in a window), or remove it and add it again with a bearer token";

export interface McpHostIO {
  /** A frame to the runtime; returns why it could not be sent, or null. */
  send(message: HostMessage): string | null;
  /** A server's status to the page. */
  status(status: ToolServerStatus): void;
  /** The app's origin (named in the CORS advice). */
  appOrigin: string;
}

interface Entry {
  config: ToolServerConfig;
  connection: ServerConnection;
  tools: Tool[];
  /** The skills it lists (skills.ts), as the page was shown them. */
  skills: SkillEntry[];
  status: ToolServerStatus;
}

export class McpHost {
  private readonly entries = new Map<string, Entry>();
  private readonly waiting = new Map<string, (accepted: string[], refused: Refused[]) => void>();
  private ready = false;
  private nextId = 1;
  private callbackUrl = "";

  constructor(private readonly io: McpHostIO) {}

  /** The servers the page keeps now: new or changed ones connect, gone ones are closed and withdrawn. */
  setServers(configs: ToolServerConfig[], callbackUrl: string): void {
    this.callbackUrl = callbackUrl;
    const wanted = new Map(configs.map((c) => [c.name, c]));
    for (const [name, entry] of this.entries) {
      const next = wanted.get(name);
      if (next && next.url === entry.config.url && next.token === entry.config.token) continue;
      this.entries.delete(name);
      void entry.connection.close();
      this.offer(name, []);
    }
    for (const config of configs) {
      const entry = this.entries.get(config.name);
      if (!entry) void this.connect(config);
      // Told again (after a sign-in, a restart): one that is not working tries again.
      else if (entry.status.state === "auth-required" || entry.status.state === "error") void this.connect(config, 0);
    }
  }

  /** The runtime is ready (a fresh one after a restart knows no server tools): tell it all of them. */
  runtimeReady(): void {
    this.ready = true;
    for (const entry of this.entries.values()) if (entry.tools.length) this.publish(entry);
  }

  /** A runtime `reply`; true when it answered one of our `mcp_tools` frames. */
  onReply(message: Extract<RuntimeMessage, { type: "reply" }>): boolean {
    const settle = this.waiting.get(message.id);
    if (!settle) return false;
    this.waiting.delete(message.id);
    const result = (message.result ?? {}) as { accepted?: string[]; refused?: Refused[] };
    settle(result.accepted ?? [], result.refused ?? []);
    return true;
  }

  /** Perform a runtime `mcp_call` and answer it with `mcp_result`. */
  async call(message: McpCall): Promise<void> {
    const entry = this.entries.get(message.server);
    const reply = (fields: {
      ok: boolean;
      is_error?: boolean;
      content?: ReturnType<typeof toContent>;
      error?: string;
    }): void => {
      const error = this.io.send({ type: "mcp_result", id: message.id, is_error: false, content: [], ...fields });
      if (error)
        this.io.send({
          type: "mcp_result",
          id: message.id,
          ok: false,
          is_error: false,
          content: [],
          error: `the result is too large to hand over (${error})`,
        });
    };
    if (!entry || entry.status.state !== "connected") {
      return reply({
        ok: false,
        error: `the tool server '${message.server}' is not connected${entry ? `: ${entry.status.message}` : ""}`,
      });
    }
    try {
      const result: CallToolResult = await entry.connection.call(
        message.tool,
        message.arguments,
        Math.min(message.timeout_s, 300) * 1000,
      );
      const content = toContent(result);
      const size = JSON.stringify(content).length;
      if (size > MAX_RESULT_CHARS)
        return reply({
          ok: false,
          error: `the result is ${(size / 1e6).toFixed(1)} MB, over the ${MAX_RESULT_CHARS / 1e6} MB a tool result may be`,
        });
      reply({ ok: true, is_error: result.isError === true, content });
    } catch (error) {
      const signIn = entry.connection.wantsSignIn(error);
      reply({ ok: false, error: signIn ? SIGN_IN : describe(error) });
      if (signIn) void this.failed(entry, error);
      else if (error instanceof McpEgressError || isUnreachable(error)) void this.connect(entry.config); // mark it, try again
    }
  }

  private async connect(config: ToolServerConfig, retries = 1): Promise<void> {
    const previous = this.entries.get(config.name);
    const entry: Entry = previous ?? {
      config,
      connection: new ServerConnection(
        config,
        {
          toolsChanged: (tools) =>
            tools instanceof Error ? void this.failed(entry, tools) : this.listed(entry, tools),
          lost: (error) => void this.failed(entry, error),
          resourcesChanged: () => void this.listResources(entry),
          promptsChanged: () => void this.listPrompts(entry),
        },
        this.callbackUrl,
      ),
      tools: [],
      skills: [],
      status: { name: config.name, url: config.url, state: "connecting", tools: [], message: "" },
    };
    this.entries.set(config.name, entry);
    this.report(entry, "connecting", "");
    try {
      this.listed(entry, await entry.connection.connect());
      void this.listSkills(entry);
    } catch (error) {
      if (this.entries.get(config.name) !== entry) return; // removed meanwhile
      console.warn(`tool server ${config.name}: ${describe(error)}`);
      await this.failed(entry, error);
      // A connection left over from the page before a reload can hold the server's answer back: once more, later.
      if (retries > 0 && !(error instanceof TypeError) && entry.status.state !== "auth-required")
        setTimeout(() => void this.retry(entry, retries - 1), RETRY_MS);
    }
  }

  /** Fetch and check one of a server's listed skills for the importer (skills.ts); any problem refuses it whole. */
  async fetchSkill(server: string, uri: string): Promise<FetchedSkill> {
    const entry = this.entries.get(server);
    const client = entry?.status.state === "connected" ? entry.connection.sdk : null;
    if (!entry || !client) return { ok: false, message: `The tool server '${server}' is not connected.` };
    const skill = entry.skills.find((s) => s.uri === uri);
    if (!skill) return { ok: false, message: `The tool server '${server}' does not list the skill ${uri}.` };
    const fetched = await fetchSkill(client, server, skill);
    if (!fetched.ok) void this.listSkills(entry); // a changed skill shows as it is now
    return fetched;
  }

  /** Ask a connected server for its skills (when it declares the extension) and show them in its status. */
  private async listSkills(entry: Entry): Promise<void> {
    const client = entry.connection.sdk;
    if (!client) return;
    let skills: SkillEntry[] = [];
    let note = "";
    try {
      skills = await listSkills(client);
    } catch (error) {
      note = `its skills could not be listed: ${describe(error)}`;
    }
    if (this.entries.get(entry.config.name) !== entry || entry.status.state !== "connected") return;
    entry.skills = skills;
    const shown = skills.map(({ name, description, uri, files, problem }) => ({
      name,
      description,
      uri,
      files: files.length,
      problem,
    }));
    const message = [entry.status.message, note].filter(Boolean).join("; ");
    entry.status = { ...entry.status, skills: shown, message };
    this.io.status(entry.status);
  }

  private retry(entry: Entry, retries: number): void {
    if (this.entries.get(entry.config.name) === entry) void this.connect(entry.config, retries);
  }

  private listed(entry: Entry, tools: Tool[]): void {
    if (this.entries.get(entry.config.name) !== entry) return;
    entry.tools = tools;
    this.report(entry, "connected", "");
    this.publish(entry);
    void this.listResources(entry);
    void this.listPrompts(entry);
  }

  /** List the entry's resources for the panel (a server that cannot list them still gives its tools). */
  private async listResources(entry: Entry): Promise<void> {
    const resources = await entry.connection.with(listResources).catch((error: unknown) => {
      console.warn(`tool server ${entry.config.name}: resources not listed: ${describe(error)}`);
      return [];
    });
    if (this.entries.get(entry.config.name) !== entry || entry.status.state !== "connected") return;
    entry.status = { ...entry.status, resources };
    this.io.status(entry.status);
  }

  /** List the entry's prompts into its status (a failure is said there; the tools stay). */
  private async listPrompts(entry: Entry): Promise<void> {
    const { prompts, note } = await listPrompts(entry.connection);
    if (this.entries.get(entry.config.name) !== entry || entry.status.state !== "connected") return;
    const others = entry.status.message.split("; ").filter((part) => part && !part.startsWith(PROMPTS_NOTE));
    const message = [...others, note].filter(Boolean).join("; ");
    entry.status = { ...entry.status, prompts, message };
    this.io.status(entry.status);
  }

  /** Read one of a server's resources for a message the person is writing (the panel's Attach). */
  async read(server: string, uri: string): Promise<RequestResult> {
    const entry = this.entries.get(server);
    if (!entry || entry.status.state !== "connected") return notConnected(server, entry);
    const listed = entry.status.resources?.find((r) => r.uri === uri && !r.template);
    const refused = tooLarge(listed?.size);
    if (refused) return { ok: false, code: "too_large", message: refused };
    try {
      const value = await entry.connection.with((client) => readResource(client, server, uri, listed?.name ?? uri));
      return { ok: true, value };
    } catch (error) {
      if (error instanceof McpEgressError || isUnreachable(error)) void this.connect(entry.config); // mark it, try again
      return { ok: false, code: "read_failed", message: `could not read ${uri} from '${server}': ${describe(error)}` };
    }
  }

  /** The page's `mcp_prompt`: `prompts/get` on a connected server, as the user turn it becomes. */
  async prompt(server: string, name: string, args: Record<string, string>): Promise<RequestResult> {
    const entry = this.entries.get(server);
    if (!entry || entry.status.state !== "connected") return notConnected(server, entry);
    return getPrompt(entry.connection, entry.status.prompts ?? [], name, args);
  }

  private async failed(entry: Entry, error: unknown): Promise<void> {
    entry.tools = [];
    this.offer(entry.config.name, []);
    if (entry.connection.wantsSignIn(error)) return this.report(entry, "auth-required", SIGN_IN);
    const refused = error instanceof SdkHttpError && error.status === 401; // with a bearer token
    const message = refused
      ? "the server refused the token (401): remove the server and add it with a valid token"
      : await this.advice(entry.config, error);
    this.report(entry, refused ? "auth-required" : "error", message);
  }

  /** Offer the entry's tools to the runtime; the status says which it took and why not the rest. */
  private publish(entry: Entry): void {
    this.offer(entry.config.name, entry.tools.map(spec), (accepted, refused) => {
      if (this.entries.get(entry.config.name) !== entry) return;
      const notes = refused.map((r) => `${r.name} refused: ${r.reason}`).join("; ");
      entry.status = { ...entry.status, tools: accepted, message: notes };
      this.io.status(entry.status);
    });
  }

  private offer(server: string, tools: McpToolSpec[], settle?: (accepted: string[], refused: Refused[]) => void): void {
    if (!this.ready) return;
    const id = `m${this.nextId++}`;
    this.waiting.set(id, settle ?? (() => undefined)); // a withdrawal's reply is ours too, not an unknown one
    const error = this.io.send({ type: "mcp_tools", id, server, tools });
    if (error) {
      this.waiting.delete(id);
      settle?.([], [{ name: "(all)", reason: `the tool list is too large to hand over (${error})` }]);
    }
  }

  private report(entry: Entry, state: ToolServerState, message: string): void {
    const connected = state === "connected";
    if (!connected) entry.skills = [];
    const { protocol: _, ...rest } = entry.status;
    const version = entry.connection.revision?.version;
    entry.status = {
      ...rest,
      state,
      message,
      tools: connected ? entry.status.tools : [],
      resources: connected ? entry.status.resources : [],
      prompts: connected ? entry.status.prompts : [],
      skills: connected ? entry.status.skills : [],
      ...(connected && version ? { protocol: version } : {}),
    };
    this.io.status(entry.status);
  }

  /** What to tell the person when connecting failed: a CORS refusal is told apart from a server that is down. */
  private async advice(config: ToolServerConfig, error: unknown): Promise<string> {
    if (!(error instanceof TypeError) && !isUnreachable(error)) return describe(error);
    const origin = new URL(config.url).origin;
    // An opaque answer to a plain GET proves the server is up; no-cors takes only redirect "follow".
    const answered = await fetch(config.url, { mode: "no-cors", credentials: "omit" }).then(
      () => true,
      () => false,
    );
    if (!answered) return `${origin} is not reachable: is the server running at ${config.url}? (${describe(error)})`;
    return (
      `${origin} answered, but without CORS headers for this page, so the browser hid its answer. Ask the server's owner ` +
      `to allow the origin ${this.io.appOrigin} (Access-Control-Allow-Origin), the request headers Content-Type, ` +
      "Authorization, Mcp-Session-Id and mcp-protocol-version, to expose Mcp-Session-Id, and to answer OPTIONS without sign-in."
    );
  }
}

function spec(tool: Tool): McpToolSpec {
  return {
    name: tool.name,
    description: tool.description ?? "",
    input_schema: tool.inputSchema ?? { type: "object" },
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
  };
}

function isUnreachable(error: unknown): boolean {
  return error instanceof TypeError || (error instanceof Error && error.cause instanceof TypeError);
}

function notConnected(server: string, entry: { status: ToolServerStatus } | undefined): RequestResult {
  const why = entry?.status.message ? `: ${entry.status.message}` : "";
  return { ok: false, code: "not_connected", message: `the tool server '${server}' is not connected${why}` };
}
