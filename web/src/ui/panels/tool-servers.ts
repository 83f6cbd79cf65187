/**
 * The Tool servers panel: add a server (a name, its Streamable HTTP URL, an optional bearer token kept
 * encrypted on this device or for this session only, as a provider key is),
 * see each one's state and tool count with what is wrong and what to do, sign in to one that wants
 * OAuth (mcp/oauth-signin.ts: a popup opened inside the click, or this tab), remove it (its token and
 * sign-in are forgotten). Definitions are kept across reloads (mcp/servers-store.ts); the worker is told
 * the whole list after each start, each change and each sign-in, and answers with statuses.
 */

import type { WorkerToMain } from "../../protocol/main-worker-messages";
import { setServerTools } from "../../mcp/owners";
import { setServerPrompts } from "../../mcp/prompt-list";
import type { SignInReturn } from "../../mcp/oauth-return";
import { addServer, giveSessionToken, loadServers, removeServer, tokensNeeded } from "../../mcp/servers-store";
import type { ToolServerConfig, ToolServerStatus } from "../../protocol/tool-servers";
import { defaultSettings, KEY_STORAGE_HELP, type KeyStorage } from "../../settings/model";
import { el } from "../common/dom";
import { serverResources, type AttachResource } from "../resources/server-resources";
import { registerPanel } from "./registry";
import { renderServerSkills, type ImportServerSkill } from "./tool-server-skills";
import "./tool-servers.css";

export type PostServers = (servers: ToolServerConfig[]) => void;

import type { SignInOutcome } from "../../mcp/oauth-answer";
type SignInModule = typeof import("../../mcp/oauth-signin");
let signInModule: Promise<SignInModule> | null = null;
let signInLoaded: SignInModule | null = null;

/** The sign-in (and the SDK under it) loads once a server wants it; the click needs it loaded to open the popup at once. */
function loadSignIn(): Promise<SignInModule> {
  signInModule ??= import("../../mcp/oauth-signin").then((m) => (signInLoaded = m));
  return signInModule;
}

const STATE_TEXT: Record<ToolServerStatus["state"], string> = {
  connecting: "connecting…",
  connected: "connected",
  "auth-required": "sign-in needed",
  error: "not working",
};

class ToolServersPanel {
  private readonly list = el("ul", { class: "tool-server-list" });
  private readonly problem = el("p", { class: "tool-server-problem", role: "alert" });
  private readonly name = el("input", {
    type: "text",
    "data-testid": "tool-server-name",
    placeholder: "name, e.g. everything",
    autocomplete: "off",
  });
  private readonly url = el("input", {
    "data-testid": "tool-server-url",
    placeholder: "https://example.org/mcp",
    autocomplete: "off",
    type: "url",
  });
  private readonly token = el("input", {
    "data-testid": "tool-server-token",
    placeholder: "bearer token (optional)",
    type: "password",
    autocomplete: "off",
  });
  private readonly tokenStorage = el(
    "select",
    { "data-testid": "tool-server-token-storage", "aria-label": "Keep the token" },
    el("option", { value: "encrypted", title: KEY_STORAGE_HELP.encrypted }, "Keep the token encrypted on this device"),
    el("option", { value: "session", title: KEY_STORAGE_HELP.session }, "Keep the token for this session only"),
  );
  private readonly statuses = new Map<string, ToolServerStatus>();
  /** Servers whose session-only token went with the last session: not told to the worker until given again. */
  private needed = new Set<string>();
  /** What the last sign-in to a server said when it failed (by name), shown in its entry. */
  private readonly signInNotes = new Map<string, string>();
  /** The sign-ins waiting for their window's answer (by name): each can be cancelled. */
  private readonly signingIn = new Map<string, AbortController>();
  private servers: ToolServerConfig[] = [];
  /** The servers whose resource list is open. */
  private readonly resourcesOpen = new Set<string>();
  /** A session-only token being typed again, per server: an entry is drawn again at every status update. */
  private readonly tokenDrafts = new Map<string, string>();

  constructor(
    private readonly post: PostServers,
    private readonly attach: AttachResource,
    private readonly importSkill: ImportServerSkill,
  ) {
    this.tokenStorage.value = defaultSettings().keyStorage; // as the provider key's default
  }

  mount(body: HTMLElement): void {
    const add = el("button", { type: "button", class: "btn", "data-testid": "tool-server-add" }, "Add server");
    add.addEventListener("click", () => void this.add());
    const intro = el(
      "p",
      { class: "hint" },
      "Tools from MCP servers (Streamable HTTP). Their tools ask before they run, like every tool that reaches the network.",
    );
    body.append(
      intro,
      el("div", { class: "tool-server-form" }, this.name, this.url, this.token, this.tokenStorage, add),
      this.problem,
      this.list,
    );
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
    setServerPrompts(status.name, status.prompts ?? []);
    this.render();
  }

  private async reload(tell: boolean): Promise<void> {
    this.servers = await loadServers();
    this.needed = await tokensNeeded();
    if (tell) this.post(this.servers.filter((s) => !this.needed.has(s.name)));
    this.render();
  }

  private async add(): Promise<void> {
    const name = this.name.value.trim();
    const storage: KeyStorage = this.tokenStorage.value === "session" ? "session" : "encrypted";
    const problem = await addServer(name, this.url.value, this.token.value.trim(), storage);
    this.problem.textContent = problem ?? "";
    if (problem) return; // what was typed stays, to be corrected
    this.name.value = this.url.value = this.token.value = "";
    this.statuses.set(name, { name, url: "", state: "connecting", tools: [], message: "" });
    await this.reload(true);
  }

  /** The result of a sign-in that took this tab to the authorization page and back (main.ts, at boot). */
  signInReturned(result: SignInReturn): void {
    if (result.kind !== "error" && result.kind !== "signed-in") return;
    void loadServers().then((servers) => {
      const named = servers.filter((s) => s.url === result.serverUrl).map((s) => s.name);
      const text = result.kind === "error" ? result.message : "";
      for (const name of named) this.signInNotes.set(name, text);
      if (result.kind === "error" && named.length === 0) this.problem.textContent = result.message;
      this.render();
    });
  }

  /** Sign in to `server`; called synchronously in the click, so that the popup may open. */
  private signIn(server: ToolServerConfig): void {
    const cancel = new AbortController();
    const begin = (m: SignInModule): Promise<SignInOutcome> => m.signIn(server.url, undefined, cancel.signal);
    const started = signInLoaded ? begin(signInLoaded) : loadSignIn().then(begin);
    this.signInNotes.set(server.name, "");
    this.signingIn.set(server.name, cancel);
    this.render();
    void started.then(async (outcome) => {
      if (this.signingIn.get(server.name) === cancel) this.signingIn.delete(server.name);
      if (outcome.kind === "redirecting") return;
      this.signInNotes.set(server.name, outcome.kind === "error" ? outcome.message : "");
      if (outcome.kind === "signed-in")
        this.statuses.set(server.name, { ...this.status(server), state: "connecting", message: "" });
      await this.reload(true); // told again, the worker reconnects a server that wanted sign-in
    });
  }

  /** A session-only token given again (after a reload): the server is told to the worker again. */
  private async giveToken(name: string, input: HTMLInputElement): Promise<void> {
    const token = input.value.trim();
    if (!token) return;
    this.tokenDrafts.delete(name);
    giveSessionToken(name, token);
    this.statuses.set(name, { name, url: "", state: "connecting", tools: [], message: "" });
    await this.reload(true);
  }

  private async remove(name: string): Promise<void> {
    await removeServer(name); // its token and its sign-in are forgotten
    this.signInNotes.delete(name);
    this.tokenDrafts.delete(name);
    this.statuses.delete(name);
    setServerTools(name, []);
    setServerPrompts(name, []);
    await this.reload(true);
  }

  /** Draw every entry again; a token being typed keeps its text (tokenDrafts) and its focus. */
  private render(): void {
    const typing = document.activeElement?.closest<HTMLElement>("[data-testid='tool-server-entry']");
    const again = typing?.querySelector("[data-testid='tool-server-token-again']") === document.activeElement;
    this.list.replaceChildren(...this.servers.map((s) => this.entry(s)));
    if (!again || !typing?.dataset.name) return;
    const entry = [...this.list.children].find(
      (li) => li instanceof HTMLElement && li.dataset.name === typing.dataset.name,
    );
    entry?.querySelector<HTMLInputElement>("[data-testid='tool-server-token-again']")?.focus();
  }

  private status(server: ToolServerConfig): ToolServerStatus {
    if (this.needed.has(server.name))
      return {
        name: server.name,
        url: server.url,
        state: "auth-required",
        tools: [],
        message: "Its token was kept for the last session only: give it again to connect.",
      };
    return (
      this.statuses.get(server.name) ?? {
        name: server.name,
        url: server.url,
        state: "connecting",
        tools: [],
        message: "",
      }
    );
  }

  private entry(server: ToolServerConfig): HTMLElement {
    const status = this.status(server);
    const oauth = status.state === "auth-required" && !server.token && !this.needed.has(server.name);
    const signIn = oauth ? this.signInButton(server) : null;
    const note = this.signInNotes.get(server.name) ?? "";
    const remove = el(
      "button",
      {
        type: "button",
        class: "btn btn-ghost",
        "data-testid": "tool-server-remove",
        "aria-label": `Remove ${server.name}`,
      },
      "Remove",
    );
    remove.addEventListener("click", () => void this.remove(server.name));
    const skills = status.state === "connected" ? (status.skills ?? []) : [];
    const count =
      status.state === "connected"
        ? `${status.tools.length} tool${status.tools.length === 1 ? "" : "s"}${status.protocol ? ` · MCP ${status.protocol}` : ""}`
        : STATE_TEXT[status.state];
    return el(
      "li",
      {
        class: `tool-server tool-server-${status.state}`,
        "data-testid": "tool-server-entry",
        "data-name": server.name,
        "data-state": status.state,
        "data-tools": String(status.tools.length),
        ...(status.protocol ? { "data-protocol": status.protocol } : {}),
      },
      el(
        "div",
        { class: "tool-server-head" },
        el("strong", {}, server.name),
        el("span", { class: "tool-server-count" }, count),
        signIn,
        remove,
      ),
      el("div", { class: "tool-server-url" }, server.url),
      status.message ? el("p", { class: "tool-server-message" }, status.message) : null,
      status.state === "connected" ? this.resources(server.name, status) : null,
      note ? el("p", { class: "tool-server-message tool-server-signin-note" }, note) : null,
      skills.length ? renderServerSkills(server.name, skills, this.importSkill) : null,
      this.needed.has(server.name) ? this.tokenAgain(server) : null,
    );
  }

  private resources(name: string, status: ToolServerStatus): HTMLElement | null {
    const toggle = (): void => {
      if (!this.resourcesOpen.delete(name)) this.resourcesOpen.add(name);
      this.render();
    };
    return serverResources(name, status.resources ?? [], this.resourcesOpen.has(name), toggle, this.attach);
  }

  private tokenAgain(server: ToolServerConfig): HTMLElement {
    const input = el("input", {
      type: "password",
      autocomplete: "off",
      "data-testid": "tool-server-token-again",
      placeholder: "bearer token (this session only)",
      "aria-label": `Token for ${server.name}`,
    });
    input.value = this.tokenDrafts.get(server.name) ?? "";
    input.addEventListener("input", () => this.tokenDrafts.set(server.name, input.value));
    const use = el("button", { type: "button", class: "btn", "data-testid": "tool-server-token-use" }, "Connect");
    use.addEventListener("click", () => void this.giveToken(server.name, input));
    return el("div", { class: "tool-server-form" }, input, use);
  }

  private signInButton(server: ToolServerConfig): HTMLElement {
    void loadSignIn();
    const button = el(
      "button",
      { type: "button", class: "btn", "data-testid": "tool-server-signin", "aria-label": `Sign in to ${server.name}` },
      "Sign in",
    );
    button.addEventListener("click", () => this.signIn(server));
    const waiting = this.signingIn.get(server.name);
    if (!waiting) return button;
    const stop = el(
      "button",
      { type: "button", class: "btn btn-ghost", "data-testid": "tool-server-signin-cancel" },
      "Cancel sign-in",
    );
    stop.addEventListener("click", () =>
      waiting.abort(new Error("the sign-in was cancelled: sign in again when ready")),
    );
    return el("span", { class: "tool-server-signin-wait" }, "Waiting for the sign-in window… ", stop);
  }
}

export interface ToolServersHandle {
  /** Follow the worker's messages. */
  follow(message: WorkerToMain): void;
  /** Show what a redirect sign-in (handleSignInReturn at boot) came back with. */
  signInReturned(result: SignInReturn): void;
}

/** `attach`: add a server's resource to the message being written; `importSkill`: import a skill a server
 * publishes (through the skills panel). */
export function mountToolServersPanel(
  post: PostServers,
  attach: AttachResource,
  importSkill: ImportServerSkill,
): ToolServersHandle {
  const panel = new ToolServersPanel(post, attach, importSkill);
  registerPanel({
    id: "tool-servers",
    buttonTestId: "tool-servers-open",
    title: "Tool servers",
    short: "MCP",
    mount: (body) => panel.mount(body),
  });
  return { follow: (message) => panel.follow(message), signInReturned: (result) => panel.signInReturned(result) };
}
