/**
 * "Restore the files to before this turn": a `checkpoint-restore` button on each turn that changed
 * workspace files (after its last message or tool card), a `checkpoint-preview` of the files it puts
 * back with `checkpoint-confirm`, and `checkpoint-undo` on a turn whose files were restored (it puts
 * back what the restore replaced). What a turn changed is the runtime's (`checkpoints_list`), so the
 * buttons come back after a reload.
 */

import type { Requester } from "../../protocol/requests";
import { el } from "../common/dom";
import "./checkpoints.css";

interface Row {
  turn_id: string;
  kind: "turn" | "restore" | "files";
  undoes: string | null;
  files: string[];
}

export class CheckpointButtons {
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly request: Requester,
    private readonly list: () => HTMLElement | null,
    private readonly busy: () => boolean,
    private readonly showError: (text: string) => void,
  ) {}

  /** Ask again soon (a turn finished, a session was shown). */
  refresh(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.load();
    }, 50);
  }

  private async load(): Promise<void> {
    const reply = await this.request("checkpoints_list", {});
    const list = this.list();
    if (!reply.ok || !list) return;
    for (const old of list.querySelectorAll(".checkpoint-bar")) old.remove();
    const rows: Row[] = reply.value.checkpoints;
    const rootOf = (row: Row): string => {
      let id = row.turn_id;
      for (let hops = 0, r: Row | undefined = row; r?.kind === "restore" && r.undoes && hops < 100; hops++) {
        id = r.undoes;
        r = rows.find((x) => x.turn_id === id);
      }
      return id;
    };
    const undo = new Map<string, Row>(); // turn → its latest restore (restoring it undoes the restore)
    for (const row of rows) if (row.kind === "restore") undo.set(rootOf(row), row);
    for (const row of rows) {
      if (row.kind !== "turn") continue;
      const anchor = lastOfTurn(list, row.turn_id);
      if (anchor) anchor.after(this.bar(row, undo.get(row.turn_id)));
    }
  }

  private bar(row: Row, undo: Row | undefined): HTMLElement {
    const bar = el("div", { class: "checkpoint-bar", "data-turn-id": row.turn_id });
    const restore = el(
      "button",
      { type: "button", "data-testid": "checkpoint-restore", title: "Restore the files to before this turn" },
      `Restore files (${row.files.length})`,
    );
    restore.addEventListener(
      "click",
      () => void this.preview(bar, row.turn_id, "Restore these files to before this turn"),
    );
    bar.append(restore);
    if (undo) {
      const button = el(
        "button",
        { type: "button", "data-testid": "checkpoint-undo", title: "Undo the restore: put back what it replaced" },
        "Undo restore",
      );
      button.addEventListener("click", () => void this.preview(bar, undo.turn_id, "Undo the restore: put these back"));
      bar.append(button);
    }
    return bar;
  }

  private async preview(bar: HTMLElement, turnId: string, heading: string): Promise<void> {
    bar.querySelector(".checkpoint-preview")?.remove();
    const reply = await this.request("checkpoint_preview", { turn_id: turnId });
    if (!reply.ok) return this.showError(`Could not show the checkpoint: ${reply.message}`);
    const items = reply.value.files.map((f) =>
      el(
        "li",
        { "data-path": f.path, "data-action": f.action },
        f.action === "delete"
          ? `delete ${f.path} (made by the turn)`
          : `put back ${f.path} (${f.size.toLocaleString("en-US")} bytes)`,
      ),
    );
    const confirm = el("button", { type: "button", "data-testid": "checkpoint-confirm" }, "Restore");
    const cancel = el("button", { type: "button", class: "checkpoint-cancel" }, "Cancel");
    const panel = el(
      "div",
      { class: "checkpoint-preview", "data-testid": "checkpoint-preview" },
      el("div", { class: "checkpoint-heading" }, heading),
      el("ul", {}, ...items),
      confirm,
      cancel,
    );
    cancel.addEventListener("click", () => panel.remove());
    confirm.addEventListener("click", () => void this.restore(panel, confirm, turnId));
    bar.append(panel);
  }

  private async restore(panel: HTMLElement, confirm: HTMLButtonElement, turnId: string): Promise<void> {
    if (this.busy()) return this.showError("A turn is running; restore its files when it has finished.");
    confirm.disabled = true;
    const reply = await this.request("checkpoint_restore", { turn_id: turnId });
    panel.remove();
    if (!reply.ok) return this.showError(`The files were not restored: ${reply.message}`);
    this.refresh(); // the flush of the restored files tells the files panel (workspace_changed)
  }
}

/** The last message or tool card of turn `turnId` in the transcript. */
function lastOfTurn(list: HTMLElement, turnId: string): HTMLElement | null {
  const nodes = list.querySelectorAll<HTMLElement>(`[data-turn-id="${CSS.escape(turnId)}"]:not(.checkpoint-bar)`);
  return nodes.length ? nodes.item(nodes.length - 1) : null;
}
