/**
 * While another chat is being opened (session_new, _open, _fork, _delete in flight) no message goes out:
 * the runtime's `session_opened` would redraw the chat over it. A message sent meanwhile waits and goes
 * to the chat that opens.
 */
export class SwitchHold {
  private pending = 0;
  private waiting = false;

  /** `changed`: whether sending is held changed; `send`: the message that waited may go now. */
  constructor(
    private readonly changed: () => void,
    private readonly send: () => void,
  ) {}

  get held(): boolean {
    return this.pending > 0;
  }

  /** Hold until `switching` settles. */
  hold(switching: Promise<unknown>): void {
    this.pending++;
    this.changed();
    const done = (): void => {
      this.pending--;
      this.changed();
      if (this.pending === 0 && this.waiting) {
        this.waiting = false;
        this.send();
      }
    };
    switching.then(done, done);
  }

  /** A message was sent while held: it goes when the chat has opened. */
  sendLater(): void {
    this.waiting = true;
  }
}
