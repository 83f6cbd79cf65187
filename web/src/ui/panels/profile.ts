/**
 * The profile panel (`profile-open`): the storage status (`storage-status`: whether the browser promised
 * to keep the data, how much is used and available, what to do without the promise, and a button that
 * asks for the promise), then the backup and restore sections (profile-backup.ts).
 */

import { askPersistence, formatBytes, statusText, storageFacts, type StorageFacts } from "../../profile/storage-status";
import { el } from "../common/dom";
import { registerPanel, type PanelHandle } from "./registry";
import "./profile.css";

export interface ProfileSection {
  /** The section's element, appended to the panel once. */
  readonly root: HTMLElement;
  /** Called each time the panel is shown. */
  opened?(): void;
}

/** How much the checkpoints (a turn's files kept before it changed them) take, and their bound; null: not known. */
export type CheckpointBytes = () => Promise<{ total: number; limit: number } | null>;
/** Set the checkpoints' bound in bytes (0: keep none); the oldest are dropped at once to fit. An error: why not. */
export type SetCheckpointLimit = (bytes: number) => Promise<string | null>;

const MB = 1024 * 1024;

export class ProfilePanel {
  readonly panel: PanelHandle;
  private readonly status = el("p", {
    class: "hint storage-status",
    "data-testid": "storage-status",
    "data-persisted": "false",
    "data-usage": "0",
    "data-quota": "0",
    "aria-live": "polite",
  });
  private readonly keep = el(
    "button",
    { type: "button", class: "btn btn-small", "data-testid": "storage-persist" },
    "Ask the browser to keep it",
  );

  private readonly checkpoints = el("p", { class: "hint", "data-testid": "checkpoint-storage" });
  private readonly limit = el("input", {
    type: "number",
    min: "0",
    step: "1",
    class: "checkpoint-limit-input",
    "data-testid": "checkpoint-limit",
    "aria-label": "Checkpoint storage bound in MB (0 keeps none)",
  });
  private readonly limitRow = el(
    "label",
    { class: "hint checkpoint-limit" },
    "Keep at most ",
    this.limit,
    " MB of checkpoints (0: keep none)",
  );
  private readonly limitError = el("p", { class: "hint checkpoint-limit-error", role: "alert" });

  constructor(
    private readonly sections: ProfileSection[] = [],
    private readonly checkpointBytes: CheckpointBytes = () => Promise.resolve(null),
    private readonly setCheckpointLimit: SetCheckpointLimit = () => Promise.resolve("not available"),
  ) {
    this.checkpoints.hidden = true;
    this.limitRow.hidden = true;
    this.limitError.hidden = true;
    this.limit.addEventListener("change", () => void this.limitChanged());
    this.keep.addEventListener("click", () => void askPersistence().then(() => this.refresh()));
    this.panel = registerPanel({
      id: "profile",
      buttonTestId: "profile-open",
      title: "Profile",
      mount: (body) =>
        body.append(
          el(
            "section",
            { class: "profile-section", "aria-label": "Storage" },
            el("h3", {}, "Storage"),
            this.status,
            this.checkpoints,
            this.limitRow,
            this.limitError,
            this.keep,
          ),
          ...sections.map((s) => s.root),
        ),
      onOpen: () => {
        void this.refresh();
        for (const s of this.sections) s.opened?.();
      },
    });
  }

  /** Measure again and show it. */
  async refresh(): Promise<StorageFacts> {
    const facts = await storageFacts();
    this.status.dataset.persisted = String(facts.persisted);
    this.status.dataset.usage = String(facts.usage);
    this.status.dataset.quota = String(facts.quota);
    this.status.textContent = statusText(facts);
    this.keep.hidden = facts.persisted || !facts.supported;
    const kept = await this.checkpointBytes().catch(() => null);
    this.checkpoints.hidden = kept === null;
    this.limitRow.hidden = kept === null;
    if (kept) {
      if (document.activeElement !== this.limit) this.limit.value = String(Math.round(kept.limit / MB));
      this.checkpoints.dataset.bytes = String(kept.total);
      this.checkpoints.dataset.limit = String(kept.limit);
      this.checkpoints.textContent =
        `Checkpoints (files kept so a turn's changes can be undone): ${formatBytes(kept.total)} of ` +
        `${formatBytes(kept.limit)}; the oldest are dropped first.`;
    }
    return facts;
  }

  private async limitChanged(): Promise<void> {
    const mb = Number(this.limit.value);
    if (this.limit.value.trim() === "" || !Number.isInteger(mb) || mb < 0) {
      this.sayLimit("The bound is a whole number of MB, 0 or more.");
      return;
    }
    this.limit.disabled = true;
    try {
      this.sayLimit(await this.setCheckpointLimit(mb * MB));
    } finally {
      this.limit.disabled = false;
    }
    await this.refresh();
  }

  private sayLimit(error: string | null): void {
    this.limitError.hidden = error === null;
    this.limitError.textContent = error ?? "";
  }
}
