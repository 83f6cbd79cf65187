/**
 * The composer: the message box (`chat-input`: Enter sends, Shift+Enter is a new line, it grows to
 * eight rows), `chat-send`, and `chat-stop` (also Esc while a turn runs). It says when the person
 * sends or stops; the chat decides whether that can happen now.
 */

import { byTestId } from "../common/dom";

export interface ComposerHost {
  submit(): void;
  stop(): void;
  /** A turn runs (Esc stops it). */
  running(): boolean;
}

export class Composer {
  private readonly input = byTestId<HTMLTextAreaElement>("chat-input");
  private readonly sendButton = byTestId<HTMLButtonElement>("chat-send");
  private readonly stopButton = byTestId<HTMLButtonElement>("chat-stop");

  constructor(host: ComposerHost) {
    this.input.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        host.submit();
      }
    });
    this.input.addEventListener("input", () => this.autosize());
    this.sendButton.addEventListener("click", () => host.submit());
    this.stopButton.addEventListener("click", () => host.stop());
    document.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && host.running() && !e.defaultPrevented) {
        e.preventDefault();
        host.stop();
      }
    });
  }

  /** The text typed (trimmed), left in the box. */
  get text(): string {
    return this.input.value.trim();
  }

  /** The message went: the box empties. */
  clear(): void {
    this.input.value = "";
    this.autosize();
  }

  focus(): void {
    this.input.focus();
  }

  /** Send only when the runtime can take a message and no turn runs; Stop only while one runs. */
  sync(canSend: boolean, running: boolean): void {
    this.stopButton.hidden = !running;
    this.stopButton.disabled = !running;
    this.sendButton.disabled = !canSend || running;
  }

  private autosize(): void {
    this.input.rows = Math.min(8, Math.max(1, this.input.value.split("\n").length));
  }
}
