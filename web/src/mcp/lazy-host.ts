/**
 * The tool servers' host (host.ts) loaded on first use: the MCP SDK it brings (its schemas are built
 * when its module is evaluated, a tenth of a second of the worker's start) is fetched and evaluated only
 * once the page names a tool server, so a boot without tool servers never pays for it. Calls made
 * while it loads run in order once it is there.
 */

import type { RequestResult } from "../protocol/main-worker-messages";
import type { RuntimeMessage } from "../protocol/messages";
import type { ToolServerConfig } from "../protocol/tool-servers";
import type { McpHost, McpHostIO } from "./host";
import type { FetchedSkill } from "./skills";

type McpCall = Extract<RuntimeMessage, { type: "mcp_call" }>;

export class LazyMcpHost {
  private host: McpHost | null = null;
  private loading: Promise<McpHost> | null = null;
  private ready = false;

  constructor(private readonly io: McpHostIO) {}

  /** As `McpHost.setServers`; no servers before any were named: nothing to load. */
  setServers(configs: ToolServerConfig[], callbackUrl: string): void {
    if (configs.length === 0 && !this.loading) return;
    void this.load().then((host) => host.setServers(configs, callbackUrl));
  }

  runtimeReady(): void {
    this.ready = true;
    this.host?.runtimeReady();
  }

  /** True when it answered one of the host's own `mcp_tools` frames (none before it is loaded). */
  onReply(message: Extract<RuntimeMessage, { type: "reply" }>): boolean {
    return this.host?.onReply(message) ?? false;
  }

  call(message: McpCall): Promise<void> {
    return this.load().then((host) => host.call(message));
  }

  fetchSkill(server: string, uri: string): Promise<FetchedSkill> {
    return this.load().then((host) => host.fetchSkill(server, uri));
  }

  read(server: string, uri: string): Promise<RequestResult> {
    return this.load().then((host) => host.read(server, uri));
  }

  prompt(server: string, name: string, args: Record<string, string>): Promise<RequestResult> {
    return this.load().then((host) => host.prompt(server, name, args));
  }

  private load(): Promise<McpHost> {
    this.loading ??= import("./host").then(({ McpHost }) => {
      const host = new McpHost(this.io);
      if (this.ready) host.runtimeReady();
      this.host = host;
      return host;
    });
    return this.loading;
  }
}
