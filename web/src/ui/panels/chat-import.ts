/**
 * Import chats (`chat-import`, a file input): a Tidepool session export, ChatGPT's data export
 * (`conversations.json` or its zip) or Claude.ai's. The file goes to the runtime as an upload
 * (`chat_import`, docs/protocol.md), which stores each chat as a new session; the report
 * (`chat-import-report`, `data-state` ok / partial / rejected) lists what came in, each a button that
 * opens it, and what did not.
 */

import type { ChatImportReport, UploadRequester } from "../../protocol/requests";
import { el } from "../common/dom";

const IMPORT_TIMEOUT_MS = 180_000;
const MAX_BYTES = 512 * 1024 * 1024; // runtime/chat_import/reader.py MAX_FILE
const SOURCES: Record<string, string> = { tidepool: "Tidepool", chatgpt: "ChatGPT", claude: "Claude" };

export interface ChatImportDeps {
  request: UploadRequester;
  whenReady(): Promise<void>;
  /** The sessions list should show the new sessions. */
  sessionsChanged(): void;
}

export class ChatImport {
  readonly root: HTMLElement;
  private readonly input = el("input", {
    type: "file",
    accept: ".json,.zip,application/json,application/zip",
    "data-testid": "chat-import",
    "aria-label": "Chat export to import",
  });
  private readonly status = el("p", { class: "hint", role: "status", "aria-live": "polite" });
  private readonly report = el("div", { class: "chat-import-report", "data-testid": "chat-import-report" });

  constructor(private readonly deps: ChatImportDeps) {
    this.report.hidden = true;
    this.status.hidden = true;
    this.input.addEventListener("change", () => void this.chosen());
    this.root = el(
      "section",
      { class: "profile-section chat-import", "aria-label": "Import chats" },
      el("h3", {}, "Import chats"),
      el(
        "p",
        { class: "hint" },
        "A Tidepool chat (.json), ChatGPT's data export (conversations.json or the zip) or Claude's " +
          "(conversations.json or the zip). Each chat becomes a new one here; nothing is replaced.",
      ),
      el("label", { class: "hint" }, "Import from a file: ", this.input),
      this.status,
      this.report,
    );
  }

  private async chosen(): Promise<void> {
    const file = this.input.files?.[0];
    this.input.value = "";
    if (!file) return;
    if (file.size > MAX_BYTES) {
      this.show({
        state: "rejected",
        message: `${file.name} is over 512 MB, the most this app reads.`,
        imported: [],
        problems: [],
      });
      return;
    }
    this.input.disabled = true;
    this.status.hidden = false;
    this.status.textContent = `Importing ${file.name}…`;
    try {
      const data = new Uint8Array(await file.arrayBuffer());
      await this.deps.whenReady();
      const answer = await this.deps.request("chat_import", { filename: file.name }, IMPORT_TIMEOUT_MS, {
        name: file.name,
        data,
      });
      if (answer.ok) {
        this.show(answer.value);
        if (answer.value.imported.length) this.deps.sessionsChanged();
      } else {
        this.show({
          state: "rejected",
          message: `The import did not finish: ${answer.message}`,
          imported: [],
          problems: [],
        });
      }
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      this.show({ state: "rejected", message: `${file.name} could not be read: ${why}`, imported: [], problems: [] });
    } finally {
      this.input.disabled = false;
      this.status.hidden = true;
    }
  }

  private show(report: ChatImportReport): void {
    this.report.dataset.state = report.state;
    const items = report.imported.map((entry) => {
      const title = entry.session.title || "Untitled chat";
      const open = el("button", { type: "button", class: "link-button" }, title);
      open.addEventListener("click", () => void this.deps.request("session_open", { session_id: entry.session.id }));
      const branches = entry.branches > 1 ? `, ${entry.branches} branches` : "";
      const from = SOURCES[entry.source] ?? entry.source;
      return el("li", {}, open, ` — ${entry.messages} messages${branches}, from ${from}`);
    });
    const problems = report.problems.map((p) => el("li", {}, p));
    this.report.replaceChildren(
      el("p", { class: "chat-import-message" }, report.message),
      ...(items.length ? [el("ul", { class: "chat-import-list" }, ...items)] : []),
      ...(problems.length
        ? [el("details", {}, el("summary", {}, "What did not come in"), el("ul", {}, ...problems))]
        : []),
    );
    this.report.hidden = false;
  }
}
