/**
 * The adapter's side of the handshake: waiting for the runtime's `hello`, then its `ready` event, or
 * failed (a protocol mismatch). `whenReady` lets the worker wait for it with a limit.
 */

type HandshakeState = "waiting" | "hello" | "ready" | "failed";

export class Handshake {
  private state: HandshakeState = "waiting";
  private waiters: ((outcome: Error | null) => void)[] = [];

  /** The runtime said hello (or is ready): it takes `config`. */
  get open(): boolean {
    return this.state === "hello" || this.state === "ready";
  }

  helloReceived(): void {
    this.state = "hello";
  }

  ready(): void {
    this.state = "ready";
    this.settle(null);
  }

  fail(message: string): void {
    this.state = "failed";
    this.settle(new Error(message));
  }

  /** Resolves when the runtime reported `ready`; rejects on a mismatch or after `timeoutMs`. */
  whenReady(timeoutMs: number): Promise<void> {
    if (this.state === "ready") return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => settle(new Error(`the runtime did not become ready within ${timeoutMs / 1000} s`)),
        timeoutMs,
      );
      const settle = (outcome: Error | null): void => {
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== settle);
        if (outcome) reject(outcome);
        else resolve();
      };
      this.waiters.push(settle);
    });
  }

  private settle(outcome: Error | null): void {
    for (const waiter of [...this.waiters]) waiter(outcome);
  }
}
