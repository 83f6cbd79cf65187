/**
 * One writer per workspace: a Web Lock held for the worker's life. A second tab gets no lock, runs
 * without saving, and may take the workspace over (`steal`), which makes the first tab lose it.
 */

export type LockState = "held" | "elsewhere";

const LOCK_PREFIX = "tidepool-workspace:";

/**
 * Ask for the workspace's lock. Resolves with "held" or "elsewhere"; `onLost` runs if another tab
 * takes it over later.
 */
export function acquireWorkspaceLock(workspace: string, takeOver: boolean, onLost: () => void): Promise<LockState> {
  const locks = (navigator as Navigator & { locks?: LockManager }).locks;
  if (!locks) return Promise.resolve("held"); // no Web Locks: nothing to coordinate with
  return new Promise((resolve) => {
    const options: LockOptions = takeOver ? { steal: true } : { ifAvailable: true };
    locks
      .request(`${LOCK_PREFIX}${workspace}`, options, (lock) => {
        if (lock === null) {
          resolve("elsewhere");
          return undefined;
        }
        resolve("held");
        return new Promise<never>(() => undefined); // hold it until the worker ends
      })
      .catch(() => onLost()); // stolen by another tab
  });
}
