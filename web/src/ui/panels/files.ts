/**
 * The files panel (`files-open`): the agent's workspace as a tree (`file-entry` for each file and
 * folder), a viewer for the opened file (`file-viewer`), uploads to the workspace root
 * (`file-upload`), a delete control with an inline confirmation on each entry, and the whole
 * workspace as a zip (`workspace-export`). The worker answers every request from Pyodide's
 * /workspace; the panel refreshes when the worker says files changed. `.agent/` (the runtime's
 * spilled tool results) is not listed; the zip keeps it.
 */

import type { RequestResult } from "../../protocol/main-worker-messages";
import { shown } from "../../protocol/names";
import type { Changed, FileView, WorkspaceEntry, WorkspaceRequest } from "../../protocol/workspace";
import { el } from "../common/dom";
import { saveFile } from "../common/save-file";
import "./files.css";
import { registerPanel, type PanelHandle } from "./registry";

export type WorkspaceRequester = (request: WorkspaceRequest) => Promise<RequestResult>;

/** Keeps files as they are before the panel changes them (a checkpoint), and puts them back. */
export interface FileCheckpoints {
  /** The checkpoint's id, or null when nothing was kept (checkpoints off, or the runtime is not there). */
  keep(paths: string[]): Promise<string | null>;
  /** Put the kept files back; an error's text, or null. */
  restore(id: string): Promise<string | null>;
}

const NO_CHECKPOINTS: FileCheckpoints = {
  keep: () => Promise.resolve(null),
  restore: () => Promise.resolve("checkpoints are not available"),
};

const EXPORT_NAME = "tidepool-workspace.zip";

export class FilesPanel {
  private readonly panel: PanelHandle;
  private readonly tree: HTMLElement;
  private readonly status: HTMLElement;
  /** After a change from this panel whose earlier files were kept: `files-undo` (a refresh leaves it). */
  private readonly undoBox = el("p", { class: "hint files-undo-box", hidden: true });
  private readonly upload: HTMLInputElement;
  private readonly viewerBox: HTMLElement;
  private readonly viewerTitle: HTMLElement;
  private readonly viewer: HTMLElement;
  private openPath: string | null = null;
  private confirming: string | null = null;
  private readonly collapsed = new Set<string>();
  private generation = 0;
  private available = false;

  constructor(
    private readonly request: WorkspaceRequester,
    private readonly checkpoints: FileCheckpoints = NO_CHECKPOINTS,
  ) {
    this.tree = el("ul", { class: "files-tree", role: "tree", "aria-label": "Workspace files" });
    this.status = el("p", { class: "hint files-status", "data-testid": "files-status", "aria-live": "polite" });
    this.upload = el("input", {
      type: "file",
      multiple: true,
      class: "files-upload-input",
      "data-testid": "file-upload",
      "aria-label": "Upload files",
    });
    this.upload.addEventListener("change", () => void this.uploadChosen());
    this.viewerTitle = el("span", { class: "files-viewer-title" });
    this.viewer = el("pre", { class: "files-viewer", "data-testid": "file-viewer", tabindex: "0" });
    const closeViewer = el(
      "button",
      { type: "button", class: "btn btn-ghost btn-small", "aria-label": "Close the file" },
      "✕",
    );
    closeViewer.addEventListener("click", () => this.closeFile());
    this.viewerBox = el(
      "section",
      { class: "files-viewer-box", "aria-label": "Opened file" },
      el("div", { class: "files-viewer-head" }, this.viewerTitle, closeViewer),
      this.viewer,
    );
    this.viewerBox.hidden = true;
    this.panel = registerPanel({
      id: "files",
      buttonTestId: "files-open",
      title: "Files",
      mount: (body) => body.append(this.intro(), this.toolbar(), this.status, this.undoBox, this.tree, this.viewerBox),
      onOpen: () => void this.refresh(),
    });
  }

  setAvailable(available: boolean): void {
    this.available = available;
    if (available && this.panel.isOpen()) void this.refresh();
  }

  /** The worker changed workspace files (a tool, an upload, a delete): show the new state. */
  onWorkspaceChanged(paths: string[]): void {
    if (!this.panel.isOpen()) return;
    void this.refresh().then(() => {
      const open = this.openPath;
      if (open && paths.some((p) => p === open || p === "." || p === "" || open.startsWith(`${p}/`)))
        void this.openFile(open);
    });
  }

  private intro(): HTMLElement {
    return el("p", { class: "hint" }, "The agent's private workspace, kept in this browser. Open a file to read it.");
  }

  private toolbar(): HTMLElement {
    const label = el("label", { class: "btn btn-small files-upload" }, "Upload…", this.upload);
    const exportButton = el(
      "button",
      { type: "button", class: "btn btn-small", "data-testid": "workspace-export" },
      "Download zip",
    );
    exportButton.addEventListener("click", () => void this.exportZip());
    return el("div", { class: "files-toolbar" }, label, exportButton);
  }

  async refresh(): Promise<void> {
    if (!this.available) {
      this.status.textContent = "The workspace opens once the agent has started.";
      return;
    }
    const generation = ++this.generation;
    const reply = await this.request({ op: "list" });
    if (generation !== this.generation) return;
    if (!reply.ok) {
      this.status.textContent = `Could not list the files: ${reply.message}`;
      return;
    }
    const entries = reply.value as WorkspaceEntry[];
    this.render(entries);
    const files = entries.filter((e) => e.kind === "file").length;
    this.status.textContent =
      entries.length === 0
        ? "The workspace is empty. Upload files, or ask the agent to write some."
        : `${plural(files, "file")}, ${plural(entries.length - files, "folder")}`;
    if (this.openPath && !entries.some((e) => e.path === this.openPath)) this.closeFile();
  }

  private render(entries: WorkspaceEntry[]): void {
    const shown = entries.filter((e) => ![...this.collapsed].some((dir) => e.path.startsWith(`${dir}/`)));
    this.tree.replaceChildren(...shown.map((entry) => this.row(entry)));
  }

  private row(entry: WorkspaceEntry): HTMLElement {
    const depth = entry.path.split("/").length - 1;
    const name = shown(entry.path.split("/").pop() ?? entry.path); // a name made before the rule: escaped
    const isDir = entry.kind === "dir";
    const closed = this.collapsed.has(entry.path);
    const label = el(
      "button",
      {
        type: "button",
        class: "files-entry-name",
        title: shown(entry.path),
        "aria-expanded": isDir ? String(!closed) : undefined,
      },
      el("span", { class: "files-icon", "aria-hidden": "true" }, isDir ? (closed ? "▸" : "▾") : ""),
      name,
    );
    label.addEventListener("click", () => (isDir ? this.toggle(entry.path) : void this.openFile(entry.path)));
    const size = el("span", { class: "files-size" }, entry.kind === "file" ? formatSize(entry.size) : "");
    const row = el(
      "li",
      {
        class: `files-entry files-entry-${entry.kind}${entry.path === this.openPath ? " is-open" : ""}`,
        "data-testid": "file-entry",
        "data-path": entry.path,
        "data-kind": entry.kind,
        role: "treeitem",
      },
      label,
      size,
      this.deleteControl(entry),
    );
    row.style.setProperty("--depth", String(depth)); // CSSOM, not a style attribute (the CSP refuses those)
    return row;
  }

  private deleteControl(entry: WorkspaceEntry): HTMLElement {
    const what = entry.kind === "dir" ? "folder and everything in it" : "file";
    if (this.confirming === entry.path) {
      const yes = el(
        "button",
        { type: "button", class: "btn btn-small btn-danger", "data-testid": "file-delete-confirm" },
        "Delete",
      );
      const no = el(
        "button",
        { type: "button", class: "btn btn-small btn-ghost", "data-testid": "file-delete-cancel" },
        "Keep",
      );
      yes.addEventListener("click", () => void this.remove(entry.path));
      no.addEventListener("click", () => this.setConfirming(null));
      return el(
        "span",
        { class: "files-confirm", role: "group", "aria-label": `Delete this ${what}?` },
        el("span", { class: "files-confirm-text" }, "Delete?"),
        yes,
        no,
      );
    }
    const del = el(
      "button",
      {
        type: "button",
        class: "btn btn-ghost btn-small files-delete",
        "data-testid": "file-delete",
        "aria-label": `Delete ${shown(entry.path)}`,
        title: `Delete this ${what}`,
      },
      "Delete",
    );
    del.addEventListener("click", () => this.setConfirming(entry.path));
    return del;
  }

  private toggle(dir: string): void {
    if (!this.collapsed.delete(dir)) this.collapsed.add(dir);
    void this.refresh();
  }

  private setConfirming(path: string | null): void {
    this.confirming = path;
    void this.refresh();
  }

  private async openFile(path: string): Promise<void> {
    const reply = await this.request({ op: "read", path });
    if (!reply.ok) {
      this.status.textContent = `Could not open ${shown(path)}: ${reply.message}`;
      return;
    }
    const view = reply.value as FileView;
    this.openPath = view.path;
    this.viewerTitle.textContent = `${shown(view.path)} · ${formatSize(view.size)}`;
    this.viewer.classList.toggle("is-binary", view.binary);
    this.viewer.textContent = view.binary
      ? "This file is not text; download the workspace to get it."
      : view.text + (view.truncated ? "\n… (only the beginning is shown)" : "");
    this.viewerBox.hidden = false;
    for (const row of this.tree.querySelectorAll<HTMLElement>(".files-entry"))
      row.classList.toggle("is-open", row.dataset.path === view.path);
  }

  private closeFile(): void {
    this.openPath = null;
    this.viewerBox.hidden = true;
    this.viewer.textContent = "";
    for (const row of this.tree.querySelectorAll<HTMLElement>(".files-entry.is-open")) row.classList.remove("is-open");
  }

  private async uploadChosen(): Promise<void> {
    const chosen = [...(this.upload.files ?? [])];
    this.upload.value = "";
    if (chosen.length === 0) return;
    const files = await Promise.all(
      chosen.map(async (f) => ({ name: f.name, data: new Uint8Array(await f.arrayBuffer()) })),
    );
    const kept = await this.keep(files.map((f) => f.name.split(/[\\/]/).pop() ?? f.name));
    const reply = await this.request({ op: "upload", files });
    if (reply.ok) await this.refresh();
    this.report(
      reply.ok ? `Uploaded ${plural(files.length, "file")}.${unsaved(reply.value)}` : `Upload failed: ${reply.message}`,
      reply.ok ? kept : null,
    );
  }

  private async remove(path: string): Promise<void> {
    this.confirming = null;
    const kept = await this.keep([path]);
    const reply = await this.request({ op: "delete", path });
    await this.refresh();
    this.report(
      reply.ok ? `Deleted ${shown(path)}.${unsaved(reply.value)}` : `Could not delete ${shown(path)}: ${reply.message}`,
      reply.ok ? kept : null,
    );
  }

  /** A checkpoint of `paths` before the panel changes them (a failure to keep one does not stop the change). */
  private keep(paths: string[]): Promise<string | null> {
    return this.checkpoints.keep(paths).catch(() => null);
  }

  /** The status line, and `files-undo` when the change's earlier files were kept. */
  private report(text: string, kept: string | null): void {
    this.status.textContent = text;
    this.undoBox.replaceChildren();
    this.undoBox.hidden = !kept;
    if (!kept) return;
    const undo = el("button", { type: "button", class: "btn btn-small", "data-testid": "files-undo" }, "Undo");
    undo.addEventListener("click", () => void this.undo(kept, undo));
    this.undoBox.append(`${text} `, undo);
  }

  private async undo(id: string, button: HTMLButtonElement): Promise<void> {
    button.disabled = true;
    const error = await this.checkpoints.restore(id);
    await this.refresh();
    this.undoBox.replaceChildren(error ? `Could not undo: ${error}` : "Undone: the files are as they were before.");
  }

  private async exportZip(): Promise<void> {
    const reply = await this.request({ op: "export" });
    if (!reply.ok) {
      this.status.textContent = `Could not pack the workspace: ${reply.message}`;
      return;
    }
    const { zip } = reply.value as { zip: Uint8Array };
    saveFile(EXPORT_NAME, zip);
  }
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function unsaved(value: unknown): string {
  return (value as Changed).saved ? "" : " This tab does not save the workspace, so the change is lost on reload.";
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
