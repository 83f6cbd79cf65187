/**
 * The weekly backup reminder (`backup-reminder`): shown when something changed since the last backup
 * and that backup (or, never backed up, the first change since) is a week old or more. "Later" asks
 * again a day after. What it remembers (three times) is in localStorage, never anything of the data.
 */

import { el } from "../ui/common/dom";

export const WEEK_MS = 7 * 24 * 3600 * 1000;
const DAY_MS = 24 * 3600 * 1000;
const LAST_BACKUP = "tidepool.backup.last";
const CHANGED = "tidepool.backup.changed"; // the first change since the last backup
const SNOOZED = "tidepool.backup.snoozed";

export type Memo = Pick<Storage, "getItem" | "setItem" | "removeItem">;

/** Whether to remind now. */
export function reminderDue(memo: Memo, now = Date.now()): boolean {
  const changed = Number(memo.getItem(CHANGED) ?? 0);
  if (!changed) return false;
  if (now < Number(memo.getItem(SNOOZED) ?? 0)) return false;
  const last = Number(memo.getItem(LAST_BACKUP) ?? 0);
  return now - (last || changed) >= WEEK_MS;
}

/** Something the person made changed (a turn ended, a chat came in). */
export function workChanged(memo: Memo, now = Date.now()): void {
  if (!memo.getItem(CHANGED)) memo.setItem(CHANGED, String(now));
}

/** A backup was downloaded: everything so far is in it. */
export function backupDone(memo: Memo, now = Date.now()): void {
  memo.setItem(LAST_BACKUP, String(now));
  memo.removeItem(CHANGED);
  memo.removeItem(SNOOZED);
}

export class BackupReminder {
  readonly root: HTMLElement;

  constructor(
    private readonly memo: Memo,
    openProfile: () => void,
  ) {
    const now = el(
      "button",
      { type: "button", class: "btn btn-small", "data-testid": "backup-reminder-open" },
      "Back up now",
    );
    const later = el("button", { type: "button", class: "btn btn-ghost btn-small" }, "Later");
    now.addEventListener("click", () => {
      this.root.hidden = true;
      openProfile();
    });
    later.addEventListener("click", () => {
      this.memo.setItem(SNOOZED, String(Date.now() + DAY_MS));
      this.root.hidden = true;
    });
    this.root = el(
      "div",
      { class: "lock-banner backup-reminder", "data-testid": "backup-reminder", role: "status" },
      el("span", {}, "Your chats and files live only in this browser, and the last backup is over a week old."),
      now,
      later,
    );
    this.root.hidden = true;
    document.querySelector(".layout")?.before(this.root);
  }

  /** Show it when due (at start and after each change). */
  check(): void {
    this.root.hidden = !reminderDue(this.memo);
  }

  changed(): void {
    workChanged(this.memo);
    this.check();
  }

  backedUp(): void {
    backupDone(this.memo);
    this.check();
  }
}
