/**
 * The sessions sidebar (left of the chat): `session-new`, one `session-entry` per session (click opens
 * it; the current one has aria-current="true"), inline rename, delete with confirmation, and export as
 * Markdown or JSON (a download). Opening a session makes the runtime emit `session_opened`; main.ts
 * redraws the chat from it, this list only follows.
 */

import type { UiEvent } from "../../protocol/messages";
import { el } from "../common/dom";
import { saveFile } from "../common/save-file";
import type { Requester } from "../../protocol/requests";
import { exportFile, relativeTime, sessionLabel, type SessionEntry } from "./records";
import { markedPieces } from "./search-marks";

export interface SessionsActions {
  /** Show a failure to the person (an error message in the chat). */
  error(text: string): void;
  /** Show message `seq` of the open session (a search's hit) in the chat. */
  showFound(sessionId: string, seq: number): void;
}

const REFRESH_DELAY_MS = 150;

export class SessionsPanel {
  readonly root: HTMLElement;
  private readonly list: HTMLElement;
  private readonly newButton: HTMLButtonElement;
  private sessions: SessionEntry[] = [];
  private editing: string | null = null;
  private confirming: string | null = null;
  private refreshTimer: ReturnType<typeof setTimeout> | null = null;
  private available = false;
  private readonly search: HTMLInputElement;

  constructor(
    private readonly request: Requester,
    private readonly actions: SessionsActions,
  ) {
    this.newButton = el(
      "button",
      { type: "button", class: "btn btn-primary session-new", "data-testid": "session-new" },
      "+ New chat",
    );
    this.newButton.addEventListener("click", () => void this.create());
    this.list = el("nav", { class: "session-list", "aria-label": "Conversations" });
    this.search = el("input", {
      type: "search",
      class: "session-search",
      "data-testid": "session-search",
      placeholder: "Search chats…",
      "aria-label": "Search chats",
    });
    this.search.addEventListener("input", () => this.scheduleRefresh());
    this.root = el(
      "aside",
      { class: "sessions", "aria-label": "Sessions" },
      el("div", { class: "sessions-head" }, el("h2", {}, "Chats"), this.newButton),
      this.search,
      this.list,
    );
    const layout = document.querySelector(".layout");
    layout?.insertBefore(this.root, layout.firstChild);
    this.setAvailable(false);
  }

  /** Whether the runtime can answer (ready); the list is kept while it restarts. */
  setAvailable(available: boolean): void {
    this.available = available;
    this.newButton.disabled = !available;
    this.root.classList.toggle("sessions-unavailable", !available);
    if (available) this.scheduleRefresh();
  }

  /** Keep the list in step with what the runtime does. */
  onEvent(event: UiEvent): void {
    if (event.kind === "session_opened") {
      this.markCurrent(event.session_id);
      this.scheduleRefresh();
    } else if (event.kind === "turn_started" || event.kind === "turn_finished") {
      this.scheduleRefresh(); // the first message names a new session; a turn moves it to the top
    }
  }

  scheduleRefresh(): void {
    if (this.refreshTimer !== null) clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = null;
      void this.refresh();
    }, REFRESH_DELAY_MS);
  }

  async refresh(): Promise<void> {
    if (!this.available) return;
    const query = this.search.value.trim();
    const reply = query ? await this.request("sessions_search", { query }) : await this.request("sessions_list", {});
    if (query !== this.search.value.trim()) return; // typed on: the next refresh shows that
    if (!reply.ok) {
      if (reply.code !== "restarted") console.warn(`[sessions] could not list sessions: ${reply.message}`);
      return;
    }
    this.sessions = reply.value.sessions;
    this.render();
  }

  private markCurrent(sessionId: string): void {
    for (const s of this.sessions) s.current = s.id === sessionId;
    if (!this.sessions.some((s) => s.id === sessionId)) return; // a new one: the refresh adds it
    this.render();
  }

  private render(): void {
    const active = document.activeElement;
    const typing =
      active instanceof HTMLInputElement &&
      active.classList.contains("session-rename-input") &&
      this.list.contains(active);
    if (this.editing !== null && typing) return; // don't steal the rename field from under the person
    // An entry that shows the same as before stays the same node: a refresh that lands between a click's
    // press and release (the list asks again after each turn) must not take the clicked entry away.
    const kept = new Map([...this.list.children].map((n) => [(n as HTMLElement).dataset.sessionId, n]));
    const entries = this.sessions.map((s) => {
      const drawn = this.entry(s);
      const old = kept.get(s.id);
      return old instanceof HTMLElement && old.isEqualNode(drawn) ? old : drawn;
    });
    const none = this.search.value.trim() ? "No chat says that." : "No conversations yet.";
    const nodes = entries.length ? entries : [el("p", { class: "hint sessions-empty" }, none)];
    const same = nodes.length === this.list.children.length && nodes.every((n, i) => this.list.children[i] === n);
    if (!same) this.list.replaceChildren(...nodes);
  }

  private entry(session: SessionEntry): HTMLElement {
    const attrs: Record<string, string> = {
      class: "session-entry",
      "data-testid": "session-entry",
      "data-session-id": session.id,
      role: "link",
      tabindex: "0",
    };
    if (session.current) attrs["aria-current"] = "true";
    const node = el("div", attrs);
    const title =
      this.editing === session.id
        ? this.renameField(session)
        : el("span", { class: "session-title", "data-testid": "session-title" }, sessionLabel(session));
    const meta = el("span", { class: "session-meta" }, relativeTime(session.updated));
    node.append(el("div", { class: "session-main" }, title, meta));
    if (session.excerpt) node.append(this.excerpt(session.excerpt));
    node.append(this.confirming === session.id ? this.confirmBar(session) : this.toolbar(session));
    node.addEventListener("click", (e) => {
      if ((e.target as HTMLElement).closest("button, input, .session-confirm")) return;
      void this.open(session.id, session.seq);
    });
    node.addEventListener("keydown", (e) => {
      if (e.target === node && (e.key === "Enter" || e.key === " ")) {
        e.preventDefault();
        void this.open(session.id, session.seq);
      }
    });
    return node;
  }

  /** The text around the first hit, the searched words marked. */
  private excerpt(text: string): HTMLElement {
    const pieces = markedPieces(text, this.search.value);
    return el("span", { class: "session-excerpt" }, ...pieces.map((p) => (p.hit ? el("mark", {}, p.text) : p.text)));
  }

  private toolbar(session: SessionEntry): HTMLElement {
    const label = sessionLabel(session);
    const button = (testid: string, text: string, title: string, run: () => void): HTMLButtonElement => {
      const b = el(
        "button",
        {
          type: "button",
          class: "btn btn-ghost btn-icon",
          "data-testid": testid,
          title,
          "aria-label": `${title}: ${label}`,
        },
        text,
      );
      b.addEventListener("click", run);
      return b;
    };
    return el(
      "div",
      { class: "session-tools" },
      button("session-rename", "Rename", "Rename", () => this.startRename(session.id)),
      button("session-export-md", "MD", "Export as Markdown", () => void this.export(session.id, "markdown")),
      button("session-export-json", "JSON", "Export as JSON", () => void this.export(session.id, "json")),
      button("session-delete", "Delete", "Delete", () => this.askDelete(session.id)),
    );
  }

  private confirmBar(session: SessionEntry): HTMLElement {
    const yes = el(
      "button",
      { type: "button", class: "btn btn-small btn-danger", "data-testid": "session-delete-confirm" },
      "Delete",
    );
    const no = el("button", { type: "button", class: "btn btn-small", "data-testid": "session-delete-cancel" }, "Keep");
    yes.addEventListener("click", () => void this.remove(session.id));
    no.addEventListener("click", () => {
      this.confirming = null;
      this.render();
    });
    return el("div", { class: "session-confirm", role: "group" }, el("span", {}, "Delete this chat?"), yes, no);
  }

  private renameField(session: SessionEntry): HTMLInputElement {
    const input = el("input", {
      type: "text",
      class: "session-rename-input",
      "data-testid": "session-rename-input",
      "aria-label": "New name",
      value: session.title,
    });
    let done = false;
    const finish = (save: boolean): void => {
      if (done) return;
      done = true;
      this.editing = null;
      if (save && input.value.trim() !== session.title) void this.rename(session.id, input.value.trim());
      else this.render();
    };
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") {
        e.preventDefault();
        finish(true);
      } else if (e.key === "Escape") {
        e.preventDefault();
        e.stopPropagation();
        finish(false);
      }
    });
    input.addEventListener("blur", () => finish(true));
    return input;
  }

  private startRename(sessionId: string): void {
    this.editing = sessionId;
    this.confirming = null;
    this.render();
    const input = this.list.querySelector<HTMLInputElement>(".session-rename-input");
    input?.focus();
    input?.select();
  }

  private askDelete(sessionId: string): void {
    this.confirming = sessionId;
    this.editing = null;
    this.render();
  }

  private async create(): Promise<void> {
    const reply = await this.request("session_new", {});
    if (!reply.ok) this.actions.error(`Could not start a new chat: ${reply.message}`);
    await this.refresh();
  }

  /** Open a chat; `found`: a search's hit in it, shown there. */
  private async open(sessionId: string, found: number | null = null): Promise<void> {
    const current = this.sessions.find((s) => s.id === sessionId)?.current;
    if (!current) {
      const reply = await this.request("session_open", { session_id: sessionId });
      if (!reply.ok) this.actions.error(`Could not open that chat: ${reply.message}`);
      if (reply.ok && found !== null) this.actions.showFound(sessionId, found); // after session_opened drew it
      await this.refresh();
    } else if (found !== null) this.actions.showFound(sessionId, found);
  }

  private async rename(sessionId: string, title: string): Promise<void> {
    const session = this.sessions.find((s) => s.id === sessionId);
    if (session) session.title = title; // show it at once; the refresh confirms
    this.render();
    const reply = await this.request("session_rename", { session_id: sessionId, title });
    if (!reply.ok) this.actions.error(`Could not rename that chat: ${reply.message}`);
    await this.refresh();
  }

  private async remove(sessionId: string): Promise<void> {
    this.confirming = null;
    const reply = await this.request("session_delete", { session_id: sessionId });
    if (!reply.ok) this.actions.error(`Could not delete that chat: ${reply.message}`);
    await this.refresh();
  }

  private async export(sessionId: string, format: "markdown" | "json"): Promise<void> {
    const reply = await this.request("session_export", { session_id: sessionId, format });
    if (!reply.ok) {
      this.actions.error(`Could not export that chat: ${reply.message}`);
      return;
    }
    const file = exportFile(reply.value);
    saveFile(file.filename, file.text);
  }
}
