/**
 * A running `exec_request`'s output on its way to the runtime (`exec_output` frames): pieces that
 * arrive close together go as one frame (at most one per stream every FLUSH_MS), and at most
 * LIVE_OUTPUT_CHARS in all, so a chatty loop cannot flood the runtime. The whole output still comes
 * with the `exec_result`.
 */

export const LIVE_OUTPUT_CHARS = 64 * 1024;
const FLUSH_MS = 50;

type Stream = "stdout" | "stderr";

export class LiveOutput {
  private readonly buffered: Record<Stream, string> = { stdout: "", stderr: "" };
  private sent = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly send: (stream: Stream, text: string) => void) {}

  add(stream: Stream, text: string): void {
    const room = LIVE_OUTPUT_CHARS - this.sent - this.buffered.stdout.length - this.buffered.stderr.length;
    if (room <= 0 || !text) return;
    this.buffered[stream] += text.slice(0, room);
    this.timer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  /** Send what is buffered now. */
  flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    for (const stream of ["stdout", "stderr"] as const) {
      const text = this.buffered[stream];
      if (!text) continue;
      this.buffered[stream] = "";
      this.sent += text.length;
      this.send(stream, text);
    }
  }
}
