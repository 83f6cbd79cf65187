/**
 * One writer per workspace: a Web Lock held for the worker's life. A second tab gets no lock, runs
 * without saving, and may take the workspace over (`steal`), which makes the first tab lose it.
 */

export type LockState = "held" | "elsewhere";

const LOCK_PREFIX = "tidepool-workspace:";
/**
 * How long a boot waits for a lock that is held: a reloaded page's new worker can ask before the
 * old one has ended (the browser lets go of its locks when it does). A boot waits for Python for
 * longer than this, so the wait costs a tab that really is second nothing it would notice.
 */
export const RELOAD_GRACE_MS = 3_000;

/**
 * Ask for the workspace's lock. Resolves with "held" or "elsewhere"; `onLost` runs if another tab
 * takes it over later.
 */
export function acquireWorkspaceLock(
  workspace: string,
  takeOver: boolean,
  onLost: () => void,
  graceMs = RELOAD_GRACE_MS,
): Promise<LockState> {
  const locks = (navigator as Navigator & { locks?: LockManager }).locks;
  if (!locks) return Promise.resolve("held"); // no Web Locks: nothing to coordinate with
  const name = `${LOCK_PREFIX}${workspace}`;
  return new Promise((resolve) => {
    let granted = false;
    const hold = (lock: Lock | null): Promise<never> | undefined => {
      if (lock === null) return undefined;
      granted = true;
      resolve("held");
      return new Promise<never>(() => undefined); // hold it until the worker ends
    };
    const lost = (): void => {
      if (granted) onLost(); // stolen by another tab
    };
    const waitForIt = (): void => {
      const signal = AbortSignal.timeout(graceMs);
      locks.request(name, { signal }, hold).catch(() => {
        if (granted) lost();
        else resolve("elsewhere"); // still held after the grace: another tab has it
      });
    };
    if (takeOver) {
      locks.request(name, { steal: true }, hold).catch(lost);
      return;
    }
    locks
      .request(name, { ifAvailable: true }, (lock) => {
        if (lock === null) {
          waitForIt();
          return undefined;
        }
        return hold(lock);
      })
      .catch(lost);
  });
}
