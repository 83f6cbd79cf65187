import { describe, expect, it } from "vitest";
import { backupDone, reminderDue, WEEK_MS, workChanged, type Memo } from "../src/profile/backup-reminder";

function memo(): Memo {
  const items = new Map<string, string>();
  return {
    getItem: (k) => items.get(k) ?? null,
    setItem: (k, v) => void items.set(k, v),
    removeItem: (k) => void items.delete(k),
  };
}

describe("the weekly backup reminder", () => {
  it("says nothing while nothing changed", () => {
    expect(reminderDue(memo(), Date.now() + 10 * WEEK_MS)).toBe(false);
  });

  it("reminds a week after the first change when there was never a backup", () => {
    const m = memo();
    workChanged(m, 1_000);
    workChanged(m, 5 * 24 * 3600 * 1000); // a later change does not move the first one
    expect(reminderDue(m, 1_000 + WEEK_MS - 1)).toBe(false);
    expect(reminderDue(m, 1_000 + WEEK_MS)).toBe(true);
  });

  it("counts from the last backup, and only when something changed since", () => {
    const m = memo();
    backupDone(m, 1_000);
    expect(reminderDue(m, 2 * WEEK_MS)).toBe(false); // nothing changed since
    workChanged(m, WEEK_MS + 10_000);
    expect(reminderDue(m, WEEK_MS + 20_000)).toBe(true); // the backup is over a week old, the change is new
    backupDone(m, WEEK_MS + 30_000);
    expect(reminderDue(m, WEEK_MS + 40_000)).toBe(false);
  });
});
