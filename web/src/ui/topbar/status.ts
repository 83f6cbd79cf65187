/** `runtime-status`: booting (with progress) → ready ⇄ busy, or error with a restart control. */

import { byTestId } from "../common/dom";

export type RuntimeState = "booting" | "ready" | "busy" | "error";

export class StatusView {
  private readonly root = byTestId("runtime-status");
  private readonly text = this.root.querySelector<HTMLElement>(".status-text") as HTMLElement;
  private readonly bar = this.root.querySelector<HTMLProgressElement>("progress") as HTMLProgressElement;
  private readonly restart = byTestId<HTMLButtonElement>("runtime-restart");
  private current: RuntimeState = "booting";

  constructor(onRestart: () => void) {
    this.restart.addEventListener("click", onRestart);
  }

  get state(): RuntimeState {
    return this.current;
  }

  booting(label: string, index: number, total: number): void {
    this.set("booting", `${label}…`);
    this.bar.max = total;
    this.bar.value = Math.min(total, index);
  }

  ready(): void {
    this.set("ready", "Ready");
  }

  busy(): void {
    this.set("busy", "Working…");
  }

  /** `message` may be a whole Python traceback: the pill shows its last line, the tooltip all of it. */
  error(message: string): void {
    const lines = message
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean);
    const head = lines[0] ?? message;
    const last = lines[lines.length - 1] ?? message;
    const short = lines.length > 2 && head.includes("Traceback") ? `${head.split(":")[0]}: ${last}` : message;
    this.set("error", short);
    this.root.title = message;
  }

  private set(state: RuntimeState, text: string): void {
    this.current = state;
    this.root.dataset.state = state;
    this.text.textContent = text;
    this.root.title = text;
    this.bar.hidden = state !== "booting";
    this.restart.hidden = state !== "error";
  }
}
