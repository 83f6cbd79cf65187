/**
 * The memory panel (`memory-open`): what the agent remembers across sessions. `memory-search`
 * filters full-text as you type; each `memory-entry` shows its text and tags, and can be edited
 * (text, tags, pinned) or deleted. It refreshes when the agent saves or deletes a memory.
 */

import type { UiEvent } from "../../protocol/messages";
import { el } from "../common/dom";
import { toolsWithEffect } from "./tool-catalog";
import { registerPanel, type PanelHandle } from "./registry";
import type { MemoryRecord, RequestParams, Requester } from "../../protocol/requests";
import { parseTags, relativeTime } from "./records";

const SEARCH_DELAY_MS = 120;
const LIST_LIMIT = 500;

export class MemoryPanel {
  private readonly panel: PanelHandle;
  private readonly search: HTMLInputElement;
  private readonly list: HTMLElement;
  private readonly summary: HTMLElement;
  private readonly addText: HTMLTextAreaElement;
  private memories: MemoryRecord[] = [];
  private editing: number | null = null;
  private searchTimer: ReturnType<typeof setTimeout> | null = null;
  private memoryTools: ReadonlySet<string> = new Set();
  private generation = 0;
  private available = false;

  constructor(private readonly request: Requester) {
    this.search = el("input", {
      type: "search",
      class: "memory-search",
      "data-testid": "memory-search",
      placeholder: "Search memories…",
      "aria-label": "Search memories",
    });
    this.list = el("div", { class: "memory-list", role: "list" });
    this.summary = el("p", { class: "hint memory-summary", "aria-live": "polite" });
    this.addText = el("textarea", {
      class: "memory-add-text",
      "data-testid": "memory-add-text",
      rows: "2",
      placeholder: "Something the agent should remember…",
      "aria-label": "New memory",
    });
    this.search.addEventListener("input", () => this.scheduleLoad());
    this.panel = registerPanel({
      id: "memory",
      buttonTestId: "memory-open",
      title: "Memory",
      mount: (body) => body.append(this.intro(), this.search, this.summary, this.list, this.addForm()),
      onOpen: () => void this.load(),
    });
  }

  setAvailable(available: boolean): void {
    this.available = available;
    if (available && this.panel.isOpen()) void this.load();
  }

  /** The agent's memory tools (those of the catalog with the `memory` effect) change what is shown. */
  onEvent(event: UiEvent): void {
    if (event.kind === "ready") this.memoryTools = toolsWithEffect(event.tools, "memory");
    if (event.kind === "tool_finished" && this.memoryTools.has(event.name) && this.panel.isOpen()) this.scheduleLoad();
  }

  private intro(): HTMLElement {
    return el(
      "p",
      { class: "hint" },
      "Facts the agent keeps across all chats. It saves them with memory_save; you can edit or delete any of them.",
    );
  }

  private addForm(): HTMLElement {
    const pinned = el("input", { type: "checkbox", "data-testid": "memory-add-pinned" });
    const save = el("button", { type: "submit", class: "btn btn-small", "data-testid": "memory-add" }, "Remember");
    const form = el(
      "form",
      { class: "memory-add" },
      this.addText,
      el("div", { class: "memory-edit-actions" }, el("label", { class: "radio" }, pinned, "Pinned"), save),
    );
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const text = this.addText.value.trim();
      if (!text) return;
      void this.call("memory_save", { text, pinned: pinned.checked }).then((ok) => {
        if (ok) {
          this.addText.value = "";
          pinned.checked = false;
        }
      });
    });
    return form;
  }

  private scheduleLoad(): void {
    if (this.searchTimer !== null) clearTimeout(this.searchTimer);
    this.searchTimer = setTimeout(() => {
      this.searchTimer = null;
      void this.load();
    }, SEARCH_DELAY_MS);
  }

  /** List (no query) or search; an answer to an older query is dropped. */
  async load(): Promise<void> {
    if (!this.available) {
      this.summary.textContent = "Waiting for the runtime…";
      return;
    }
    const generation = ++this.generation;
    const query = this.search.value.trim();
    const reply = query
      ? await this.request("memory_search", { query, limit: LIST_LIMIT })
      : await this.request("memory_list", { limit: LIST_LIMIT });
    if (generation !== this.generation) return;
    if (!reply.ok) {
      this.summary.textContent = `Could not load memories: ${reply.message}`;
      return;
    }
    this.memories = reply.value.memories;
    const n = this.memories.length;
    this.summary.textContent = query ? `${n} match${n === 1 ? "" : "es"}` : `${n} memor${n === 1 ? "y" : "ies"}`;
    this.render();
  }

  private render(): void {
    const entries = this.memories.map((m) => (this.editing === m.id ? this.editor(m) : this.entry(m)));
    const empty = el(
      "p",
      { class: "hint memory-empty" },
      this.search.value.trim() ? "Nothing matches." : "Nothing remembered yet.",
    );
    this.list.replaceChildren(...(entries.length ? entries : [empty]));
  }

  private entry(memory: MemoryRecord): HTMLElement {
    const edit = el(
      "button",
      {
        type: "button",
        class: "btn btn-ghost btn-icon",
        "data-testid": "memory-edit",
        title: "Edit",
        "aria-label": "Edit this memory",
      },
      "Edit",
    );
    const del = el(
      "button",
      {
        type: "button",
        class: "btn btn-ghost btn-icon",
        "data-testid": "memory-delete",
        title: "Delete",
        "aria-label": "Delete this memory",
      },
      "Delete",
    );
    edit.addEventListener("click", () => {
      this.editing = memory.id;
      this.render();
      this.list.querySelector<HTMLTextAreaElement>(".memory-edit-text")?.focus();
    });
    del.addEventListener("click", () => void this.call("memory_delete", { id: memory.id }));
    const tags = memory.tags.map((t) => el("span", { class: "memory-tag" }, t));
    return el(
      "div",
      {
        class: `memory-entry${memory.pinned ? " memory-pinned" : ""}`,
        "data-testid": "memory-entry",
        "data-memory-id": String(memory.id),
        "data-pinned": String(memory.pinned),
        role: "listitem",
      },
      el("div", { class: "memory-text", "data-testid": "memory-text" }, memory.text),
      el(
        "div",
        { class: "memory-meta" },
        memory.pinned
          ? el("span", { class: "memory-pin", title: "Pinned: always given to the agent" }, "pinned")
          : null,
        ...tags,
        el("span", { class: "memory-when" }, relativeTime(memory.updated)),
        el("span", { class: "topbar-spacer" }),
        edit,
        del,
      ),
    );
  }

  private editor(memory: MemoryRecord): HTMLElement {
    const text = el("textarea", {
      class: "memory-edit-text",
      "data-testid": "memory-edit-text",
      rows: "3",
      "aria-label": "Memory text",
    });
    text.value = memory.text;
    const tags = el("input", {
      type: "text",
      "data-testid": "memory-edit-tags",
      placeholder: "tags, comma separated",
      "aria-label": "Tags",
    });
    tags.value = memory.tags.join(", ");
    const pinned = el("input", { type: "checkbox", "data-testid": "memory-edit-pinned" });
    pinned.checked = memory.pinned;
    const save = el(
      "button",
      { type: "submit", class: "btn btn-small btn-primary", "data-testid": "memory-edit-save" },
      "Save",
    );
    const cancel = el(
      "button",
      { type: "button", class: "btn btn-small", "data-testid": "memory-edit-cancel" },
      "Cancel",
    );
    cancel.addEventListener("click", () => {
      this.editing = null;
      this.render();
    });
    const form = el(
      "form",
      {
        class: "memory-entry memory-editing",
        "data-testid": "memory-entry",
        "data-memory-id": String(memory.id),
        role: "listitem",
      },
      text,
      tags,
      el(
        "div",
        { class: "memory-edit-actions" },
        el("label", { class: "radio" }, pinned, "Pinned"),
        el("span", { class: "topbar-spacer" }),
        cancel,
        save,
      ),
    );
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const params = { id: memory.id, text: text.value.trim(), tags: parseTags(tags.value), pinned: pinned.checked };
      void this.call("memory_update", params).then((ok) => {
        if (ok) this.editing = null;
        return this.load();
      });
    });
    return form;
  }

  /** A change request; shows its failure and reloads the list. True when it worked. */
  private async call<M extends "memory_save" | "memory_update" | "memory_delete">(
    method: M,
    params: RequestParams<M>,
  ): Promise<boolean> {
    const reply = await this.request(method, params);
    if (!reply.ok) this.summary.textContent = `That did not work: ${reply.message}`;
    if (reply.ok) await this.load();
    return reply.ok;
  }
}
