/**
 * The profile panel's backup and restore sections: `backup-export` writes the whole profile as one
 * file (profile/backup-export.ts) with its progress shown, then downloads it; `backup-import` takes a
 * backup, verifies all of it (profile/backup-verify.ts) and shows `backup-preview` (what it holds, what
 * a merge would overwrite, what a replace would remove) with `backup-restore-merge` and
 * `backup-restore-replace`; `backup-report` says what was restored, or why nothing was (`data-state`
 * `incomplete`: it failed after its commit point, and says what landed and that a reload finishes it).
 */

import { BackupRefused, BACKUP_FILENAME } from "../../profile/backup-format";
// The writer and the reader (with fflate) load when a backup is written or chosen, not with the page.
import type { ExportSources } from "../../profile/backup-export";
import type { BackupContents } from "../../profile/backup-verify";
import {
  affectedFiles,
  restoreBackup,
  RestoreIncomplete,
  type RestoreDeps,
  type RestoreOutcome,
  type RestoreMode,
} from "../../profile/backup-restore";
import { openStaging, removeStaging } from "../../profile/backup-staging";
import { appDir } from "../../profile/opfs";
import { el } from "../common/dom";
import { saveFile } from "../common/save-file";
import type { ProfileSection } from "./profile";

export interface BackupDeps extends RestoreDeps {
  sources: ExportSources;
  /** Whether this tab holds the workspace (a tab that does not saves nothing, so it may not restore). */
  holds(): boolean;
  /** After a restore: read everything again (the page reloads). */
  restored(report: string): void;
  /** A backup was downloaded (the reminder starts counting again). */
  backedUp?(): void;
}

const PENDING_REPORT = "tidepool-restore-report";

export class BackupSection implements ProfileSection {
  readonly root: HTMLElement;
  private readonly exportButton = el(
    "button",
    { type: "button", class: "btn", "data-testid": "backup-export" },
    "Download a backup",
  );
  private readonly progress = el("progress", {
    class: "backup-progress",
    "data-testid": "backup-progress",
    max: "1",
    value: "0",
  });
  private readonly withRecordings = el("input", { type: "checkbox", "data-testid": "backup-recordings" });
  private readonly exportStatus = el("p", { class: "hint", "data-testid": "backup-status", "aria-live": "polite" });
  private readonly input = el("input", {
    type: "file",
    accept: ".zip,application/zip",
    "data-testid": "backup-import",
    "aria-label": "Backup file",
  });
  private readonly preview = el("div", { class: "backup-preview", "data-testid": "backup-preview" });
  private readonly merge = el(
    "button",
    { type: "button", class: "btn", "data-testid": "backup-restore-merge" },
    "Merge into this profile",
  );
  private readonly replace = el(
    "button",
    { type: "button", class: "btn btn-danger", "data-testid": "backup-restore-replace" },
    "Replace this profile",
  );
  private readonly report = el("div", {
    class: "backup-report",
    "data-testid": "backup-report",
    "aria-live": "polite",
  });
  private contents: BackupContents | null = null;
  /** The staging area the chosen file was verified into (backup-staging.ts). */
  private staged: string | null = null;

  constructor(private readonly deps: BackupDeps) {
    this.progress.hidden = true;
    this.preview.hidden = true;
    this.report.hidden = true;
    this.exportButton.addEventListener("click", () => void this.exportAll());
    this.input.addEventListener("change", () => void this.chosen());
    this.merge.addEventListener("click", () => void this.restore("merge"));
    this.replace.addEventListener("click", () => void this.restore("replace"));
    this.root = el(
      "div",
      {},
      el(
        "section",
        { class: "profile-section", "aria-label": "Backup" },
        el("h3", {}, "Backup"),
        el(
          "p",
          { class: "hint" },
          "One file with every chat, memory, skill, workspace file, setting and tool server. Keys and tokens are never in it.",
        ),
        el(
          "label",
          { class: "hint" },
          this.withRecordings,
          " Include the recordings (each chat's model requests and replies, no keys)",
        ),
        this.exportButton,
        this.progress,
        this.exportStatus,
      ),
      el(
        "section",
        { class: "profile-section", "aria-label": "Restore" },
        el("h3", {}, "Restore"),
        el("label", { class: "hint" }, "Restore from a backup file: ", this.input),
        this.preview,
        this.report,
      ),
    );
    const pending = sessionStorage.getItem(PENDING_REPORT);
    if (pending) {
      sessionStorage.removeItem(PENDING_REPORT);
      this.say("ok", pending);
    }
  }

  /** A report kept across the reload that follows a restore (main.ts opens the panel to show it). */
  static pendingReport(): boolean {
    return sessionStorage.getItem(PENDING_REPORT) !== null;
  }

  /** Keep what a restore did for the page the reload after it opens (`how`: the mode, or how it ended). */
  static keepReport(how: string, done: RestoreOutcome): string {
    const recordings = done.recordings ? `, ${done.recordings} recordings` : "";
    const text = `Restored (${how}): ${done.sessions} chats, ${done.memories} memories, ${done.files} workspace files${recordings}.`;
    sessionStorage.setItem(PENDING_REPORT, text);
    return text;
  }

  private async exportAll(): Promise<void> {
    this.exportButton.disabled = true;
    this.progress.hidden = false;
    this.exportStatus.textContent = "Writing the backup…";
    try {
      const file = await (
        await appDir()
          .then((d) => d.getDirectoryHandle("backup", { create: true }))
          .catch(() => null)
      )?.getFileHandle(BACKUP_FILENAME, { create: true });
      const { memorySink, opfsSink, writeBackup } = await import("../../profile/backup-export");
      const memory = file ? null : memorySink();
      const sink = file ? await opfsSink(file) : (memory as ReturnType<typeof memorySink>);
      const summary = await writeBackup(
        this.deps.sources,
        sink,
        (done, total) => {
          this.progress.value = total > 0 ? done / total : 1;
          this.progress.dataset.done = String(done);
        },
        { recordings: this.withRecordings.checked },
      );
      saveFile(BACKUP_FILENAME, file ? await file.getFile() : (memory as ReturnType<typeof memorySink>).blob());
      const recordings = this.withRecordings.checked ? `, ${summary.recordings} recordings` : "";
      this.exportStatus.textContent = `Backup written: ${summary.files} workspace files${recordings}, ${summary.bytes} bytes.`;
      this.exportStatus.dataset.state = "ok";
      this.deps.backedUp?.();
    } catch (err) {
      this.exportStatus.textContent = `The backup could not be written: ${message(err)}`;
      this.exportStatus.dataset.state = "error";
    } finally {
      this.exportButton.disabled = false;
    }
  }

  private async chosen(): Promise<void> {
    const file = this.input.files?.[0];
    this.contents = null;
    this.staged = null;
    this.preview.hidden = true;
    this.report.hidden = true;
    if (!file) return;
    this.input.disabled = true; // one verification at a time: each stages into the one staging area
    try {
      const { verifyBackup } = await import("../../profile/backup-verify");
      const staging = await openStaging();
      const contents = await verifyBackup(
        file,
        undefined,
        staging ? (path, data) => staging.put(path, data) : undefined,
      );
      await staging?.seal();
      this.staged = staging?.id ?? null;
      const [overwritten, removed] = await Promise.all([
        affectedFiles(contents, "merge"),
        affectedFiles(contents, "replace"),
      ]);
      this.contents = contents;
      this.showPreview(file.name, contents, overwritten, removed);
    } catch (err) {
      await removeStaging();
      this.say(
        "rejected",
        `Nothing was restored: ${file.name} ${err instanceof BackupRefused ? err.reason : `could not be read (${message(err)})`}.`,
      );
    } finally {
      this.input.value = "";
      this.input.disabled = false;
    }
  }

  private showPreview(name: string, c: BackupContents, overwritten: string[], removed: string[]): void {
    const list = (items: string[]): HTMLElement =>
      el(
        "ul",
        {},
        ...items.slice(0, 20).map((p) => el("li", {}, p)),
        items.length > 20 ? el("li", {}, `… and ${items.length - 20} more`) : null,
      );
    this.preview.replaceChildren(
      ...[
        el(
          "p",
          {},
          `${name}: made by Tidepool ${c.manifest.app_version}${c.manifest.created ? ` on ${c.manifest.created}` : ""}.`,
        ),
        el(
          "p",
          { "data-testid": "backup-preview-counts" },
          `${c.sessions.length} chats, ${c.memories} memories, ${c.files.length} workspace files${c.settings ? ", settings" : ""}, ${c.toolServers} tool servers${c.recordings.length ? `, ${c.recordings.length} recordings` : ""}.`,
        ),
        el(
          "p",
          {},
          overwritten.length
            ? `A merge overwrites ${overwritten.length} files here:`
            : "A merge overwrites no file here (chats and memories: the newer one is kept).",
        ),
        overwritten.length ? list(overwritten) : null,
        el(
          "p",
          {},
          removed.length
            ? `A replace removes everything here, ${removed.length} files not in the backup among it:`
            : "A replace removes everything here first.",
        ),
        removed.length ? list(removed) : null,
        el("div", { class: "backup-actions" }, this.merge, this.replace),
      ].filter((n): n is HTMLElement => n !== null),
    );
    this.preview.hidden = false;
  }

  private async restore(mode: RestoreMode): Promise<void> {
    const contents = this.contents;
    if (!contents) return;
    if (!this.deps.holds()) {
      this.say("rejected", "Nothing was restored: this workspace is open in another tab; take it over here first.");
      return;
    }
    this.merge.disabled = this.replace.disabled = true;
    try {
      const text = BackupSection.keepReport(mode, await restoreBackup(contents, this.staged, mode, this.deps));
      this.say("ok", text);
      this.deps.restored(text);
    } catch (err) {
      // after the commit point part of it may have landed: say what, not "nothing"
      if (err instanceof RestoreIncomplete) this.say("incomplete", err.message);
      else {
        await removeStaging(); // before the commit point: the checked copy goes, as the profile never changed
        this.say("rejected", `Nothing was restored: ${message(err)}`);
      }
    } finally {
      this.merge.disabled = this.replace.disabled = false;
      this.preview.hidden = true;
    }
  }

  private say(state: "ok" | "rejected" | "incomplete", text: string): void {
    this.report.dataset.state = state;
    this.report.textContent = text;
    this.report.hidden = false;
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
