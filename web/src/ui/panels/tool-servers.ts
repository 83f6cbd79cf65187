/**
 * The Tool servers panel: add a server (a name, its Streamable HTTP URL, an optional bearer token),
 * see each one's state and tool count with what is wrong and what to do, remove it (its token is
 * forgotten). Definitions are kept across reloads (mcp/servers-store.ts); the worker is told the
 * whole list after each start and each change, and answers with statuses.
 */

import type { WorkerToMain } from "../../protocol/main-worker-messages";
import { setServerTools } from "../../mcp/owners";
import { addServer, loadServers, removeServer } from "../../mcp/servers-store";
import type { ToolServerConfig, ToolServerStatus } from "../../protocol/tool-servers";
import { el } from "../common/dom";
import { registerPanel } from "./registry";
import "./tool-servers.css";

export type PostServers = (servers: ToolServerConfig[]) => void;

const STATE_TEXT: Record<ToolServerStatus["state"], string> = {
  connecting: "connecting…",
  connected: "connected",
  "auth-required": "sign-in needed",
  error: "not working",
};

class ToolServersPanel {
  private readonly list = el("ul", { class: "tool-server-list" });
  private readonly problem = el("p", { class: "tool-server-problem", role: "alert" });
  private readonly name = el("input", { "data-testid": "tool-server-name", placeholder: "name, e.g. everything", autocomplete: "off" });
  private readonly url = el("input", { "data-testid": "tool-server-url", placeholder: "https://example.org/mcp", autocomplete: "off", type: "url" });
  private readonly token = el("input", { "data-testid": "tool-server-token", placeholder: "bearer token (optional)", type: "password", autocomplete: "off" });
  private readonly statuses = new Map<string, ToolServerStatus>();
  private servers: ToolServerConfig[] = [];

  constructor(private readonly post: PostServers) {}

  mount(body: HTMLElement): void {
    const add = el("button", { type: "button", class: "btn", "data-testid": "tool-server-add" }, "Add server");
    add.addEventListener("click", () => void this.add());
    const intro = el("p", { class: "hint" }, "Tools from MCP servers (Streamable HTTP). Their tools ask before they run, like every tool that reaches the network.");
    body.append(intro, el("div", { class: "tool-server-form" }, this.name, this.url, this.token, add), this.problem, this.list);
    void this.reload(false);
  }

  /** The worker (re)started or the runtime is ready: tell it the servers. */
  follow(message: WorkerToMain): void {
    if (message.type === "event" && message.event.kind === "ready") void this.reload(true);
    if (message.type !== "mcp_status") return;
    const status = message.status;
    if (!this.servers.some((s) => s.name === status.name)) return; // removed meanwhile
    this.statuses.set(status.name, status);
    setServerTools(status.name, status.tools);
    this.render();
  }

  private async reload(tell: boolean): Promise<void> {
    this.servers = await loadServers();
    if (tell) this.post(this.servers);
    this.render();
  }

  private async add(): Promise<void> {
    const name = this.name.value.trim();
    const problem = await addServer(name, this.url.value, this.token.value.trim());
    this.problem.textContent = problem ?? "";
    if (problem) return; // what was typed stays, to be corrected
    this.name.value = this.url.value = this.token.value = "";
    this.statuses.set(name, { name, url: "", state: "connecting", tools: [], message: "" });
    await this.reload(true);
  }

  private async remove(name: string): Promise<void> {
    await removeServer(name);
    this.statuses.delete(name);
    setServerTools(name, []);
    await this.reload(true);
  }

  private render(): void {
    this.list.replaceChildren(...this.servers.map((s) => this.entry(s)));
  }

  private entry(server: ToolServerConfig): HTMLElement {
    const status = this.statuses.get(server.name) ?? { name: server.name, url: server.url, state: "connecting", tools: [], message: "" };
    const remove = el("button", { type: "button", class: "btn btn-ghost", "data-testid": "tool-server-remove", "aria-label": `Remove ${server.name}` }, "Remove");
    remove.addEventListener("click", () => void this.remove(server.name));
    const count = status.state === "connected" ? `${status.tools.length} tool${status.tools.length === 1 ? "" : "s"}` : STATE_TEXT[status.state];
    return el(
      "li",
      { class: `tool-server tool-server-${status.state}`, "data-testid": "tool-server-entry", "data-name": server.name, "data-state": status.state, "data-tools": String(status.tools.length) },
      el("div", { class: "tool-server-head" }, el("strong", {}, server.name), el("span", { class: "tool-server-count" }, count), remove),
      el("div", { class: "tool-server-url" }, server.url),
      status.message ? el("p", { class: "tool-server-message" }, status.message) : null,
    );
  }
}

/** Mount the panel; the returned function follows the worker's messages. */
export function mountToolServersPanel(post: PostServers): (message: WorkerToMain) => void {
  const panel = new ToolServersPanel(post);
  registerPanel({ id: "tool-servers", buttonTestId: "tool-servers-open", title: "Tool servers", mount: (body) => panel.mount(body) });
  return (message) => panel.follow(message);
}
