/**
 * One writer per workspace: a Web Lock held for the worker's life. A second tab gets no lock, runs
 * without saving, and may take the workspace over (`steal`), which makes the first tab lose it.
 */

export type LockState = "held" | "elsewhere";

const LOCK_PREFIX = "tidepool-workspace:";
/**
 * How long a boot waits for a lock that is held: a reloaded page's new worker can ask before the
 * old one has ended (the browser lets go of its locks when it does; ~1.5 s for a page reloaded while
 * its worker was still busy). A tab that really is second says so this much later.
 */
const RELOAD_GRACE_MS = 3_000;

/**
 * Ask for the workspace's lock. Resolves with "held" or "elsewhere"; `onLost` runs if another tab
 * takes it over later.
 */
export function acquireWorkspaceLock(workspace: string, takeOver: boolean, onLost: () => void): Promise<LockState> {
  const locks = (navigator as Navigator & { locks?: LockManager }).locks;
  if (!locks) return Promise.resolve("held"); // no Web Locks: nothing to coordinate with
  return new Promise((resolve) => {
    let granted = false;
    const options: LockOptions = takeOver ? { steal: true } : { signal: AbortSignal.timeout(RELOAD_GRACE_MS) };
    locks
      .request(`${LOCK_PREFIX}${workspace}`, options, () => {
        granted = true;
        resolve("held");
        return new Promise<never>(() => undefined); // hold it until the worker ends
      })
      .catch(() => {
        if (granted)
          onLost(); // stolen by another tab
        else resolve("elsewhere"); // still held after the grace: another tab has it
      });
  });
}
