/**
 * Keeps what the person does in the order they did it: a settings change (save, a model chosen, the
 * permission mode) runs after the ones before it, and a message waits for every change made before
 * it was sent, so "Save, then Send at once" talks to the saved provider and model.
 */

export class SettingsOrder {
  private tail: Promise<void> = Promise.resolve();
  private pending = 0;

  /** Run a settings change after the earlier ones; later `afterChanges` wait for it. */
  change(work: () => Promise<void>): Promise<void> {
    this.pending += 1;
    const run = this.tail.then(work).catch((err: unknown) => console.error("[settings] a change failed:", err));
    this.tail = run.finally(() => {
      this.pending -= 1;
    });
    return this.tail;
  }

  /** Run `work` once every change queued so far has finished (at once when none is pending). */
  afterChanges(work: () => void): void {
    if (this.pending === 0) {
      work();
      return;
    }
    void this.tail.then(work);
  }
}
